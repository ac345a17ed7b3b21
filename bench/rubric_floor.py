"""What a support floor would do to the miner's rubric precision, read from judged lists.

The rubric's verdicts of a round (bench/results/mine-gold-rubric-r7.json: each proposal of
the thirteen repositories with a list, its support and a reviewer's verdict) say which
proposals a maintainer kept. Dropping every proposal whose support is under a floor leaves
the others as they were (the miner drops a pattern after grouping, so no other proposal's
files change), so the precision each floor would give can be read from the verdicts alone:
kept of listed over all, the repositories where at least 60% of the list is kept, and the
kept proposals a floor would lose.

    python bench/rubric_floor.py [bench/results/mine-gold-rubric-r7.json]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent / "results" / "mine-gold-rubric-r7.json"
FLOORS = (0, 5, 6, 8, 10, 12, 20)


def floor_rows(proposals: list[dict], floors: tuple[int, ...] = FLOORS) -> list[str]:
    """One markdown row per floor: kept of listed, repositories at 60%, kept ones lost."""
    rows = [
        "| support floor | kept of listed | repositories with ≥ 60% kept | kept proposals lost |",
        "|---:|---:|---:|---|",
    ]
    for floor in floors:
        listed = [p for p in proposals if p["support"] >= floor]
        kept = sum(p["verdict"] == "kept" for p in listed)
        by_repo: dict[str, list[bool]] = defaultdict(list)
        for proposal in listed:
            by_repo[proposal["repo"]].append(proposal["verdict"] == "kept")
        at_target = sum(sum(v) / len(v) >= 0.6 for v in by_repo.values())
        lost = [
            f"{p['repo']} {p['title']}"
            for p in proposals
            if p["verdict"] == "kept" and p["support"] < floor
        ]
        share = f"{kept / len(listed):.0%}" if listed else "-"
        rows.append(
            f"| {floor} | {kept} / {len(listed)} ({share}) | {at_target} of {len(by_repo)} "
            f"| {', '.join(lost) or '-'} |"
        )
    return rows


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    document = json.loads(path.read_text(encoding="utf-8"))
    print("\n".join(floor_rows(document["proposals"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
