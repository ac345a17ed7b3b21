"""How fast the miner reads and mines history: python bench/mine_speed.py CHECKOUT [N].

Times the whole mining run on the last N commits (default 5,000) of a checkout's default
branch, writing nothing: history read in one git log pass, filters, patterns, proposals.
The target is 5,000 commits in under a minute on 2 cores.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kgtool.config import load_config
from kgtool.mining.miner import Options, mine
from kgtool.repo import find_root
from kgtool.store import Store


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = find_root(Path(sys.argv[1]))
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    start = time.perf_counter()
    result = mine(root, load_config(root), Store(root), Options(max_changes=count, dry_run=True))
    seconds = time.perf_counter() - start
    read = len(result.mined.history.change_sets)
    print(f"{root.name}: {read} commits mined in {seconds:.2f}s ({read / seconds:.0f}/s)")
    print("\n".join(result.summary()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
