"""Where a one-file edit's time goes, step by step, in checkouts of different sizes: each
named step of ``kgtool update`` timed inside the process (wall clock, milliseconds), the
same comment line appended to and removed from one file in turn, medians of ``--repeat``.

    python bench/edit_breakdown.py FILE CHECKOUT [CHECKOUT...] [--repeat 7]

FILE is a path inside every checkout (``bench/monorepo_scale.py`` makes such pairs: a real
monorepo and its packages copied ten times). Each checkout must have been built once with
``kgtool update``. The steps overlap (``update_raw`` holds the layer 1 steps): read each
against the same step of the other checkout, not as parts of a sum.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import RUN_ENV, comment_line, toggle_comment

# (module, function, the class holding it or "") of each step timed.
STEPS = [
    ("kgtool.raw.build", "listing", ""),
    ("kgtool.raw.build", "current_files_since", ""),
    ("kgtool.raw.cache", "load_manifest", ""),
    ("kgtool.raw.cache", "shard_stats", ""),
    ("kgtool.raw.cache", "open_files", ""),
    ("kgtool.raw.build", "_affected", ""),
    ("kgtool.raw.build", "_resolve_and_render", ""),
    ("kgtool.raw.build", "plan_layout", ""),
    ("kgtool.raw.build", "write_shards", ""),
    ("kgtool.raw.cache", "save", ""),
    ("kgtool.raw.build", "update_raw", ""),
    ("kgtool.pipeline.refresh", "update_communities", ""),
    ("kgtool.ontology.map", "update", "LabelledMap"),
    ("kgtool.pipeline.refresh", "refresh", ""),
]

# Run in a process of its own: the steps wrapped, one ``kgtool update -q``, the times printed.
CHILD = """
import functools, importlib, json, sys, time
# Not the checkout's own folder, which ``-c`` puts first: the kgtool timed is this one's.
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]
took = {}
def timed(module, name, owner):
    holder = importlib.import_module(module)
    holder = getattr(holder, owner) if owner else holder
    function = getattr(holder, name)
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            took[name] = took.get(name, 0.0) + time.perf_counter() - started
    setattr(holder, name, wrapper)
started = time.perf_counter()
import kgtool.cli
for step in json.loads(sys.argv[1]):
    timed(*step)
ran = time.perf_counter()
try:
    kgtool.cli.main(["update", "-q"])
except SystemExit:
    pass
took["whole run"] = time.perf_counter() - ran
took["imports"] = ran - started
print(json.dumps({name: round(seconds * 1000, 2) for name, seconds in took.items()}))
"""


def one_edit(root: Path, path: str) -> dict[str, float]:
    toggle_comment(root / path)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(STEPS)],
        cwd=root,
        capture_output=True,
        text=True,
        env=RUN_ENV,
        check=True,
    )
    times: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("checkouts", type=Path, nargs="+")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    runs: dict[Path, list[dict[str, float]]] = {root: [] for root in args.checkouts}
    for _ in range(args.repeat):
        for root in args.checkouts:  # alternating: a slow minute touches every checkout
            runs[root].append(one_edit(root, args.file))
    for root in args.checkouts:  # as each was found (the layers update on its next run)
        if comment_line(args.file) in (root / args.file).read_text():
            toggle_comment(root / args.file)
    names = [name for _, name, _ in STEPS] + ["imports", "whole run"]
    medians: dict[Path, dict[str, Any]] = {
        root: {name: statistics.median(run.get(name, 0.0) for run in found) for name in names}
        for root, found in runs.items()
    }
    print("| step | " + " | ".join(root.name for root in args.checkouts) + " |")
    print("|---|" + "---:|" * len(args.checkouts))
    for name in names:
        cells = " | ".join(f"{medians[root][name]:.1f}" for root in args.checkouts)
        print(f"| {name} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
