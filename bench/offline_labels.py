"""How well does the offline labeler name communities?

Without arguments: builds every known-answer repository of tests/offline_fixtures.py in a
temporary folder, runs ``kgtool update``, labels the map offline and scores the names against
what the code plainly is (a payments/ package must be named for payments), the edge phrases
against the edge types, and the summaries against the docstrings they should quote.

With ``--repo PATH``: prints the offline map of that repository (ID, size, name, summary, then
the phrased edges). It reads PATH/.kg/communities.json; when there is none, the map is built in
a temporary clone, so PATH itself is never written.

Both also report how long labelling takes (``--time N`` communities, cycled from the ones at
hand under fresh IDs) and how stable the names are: the share of communities whose name does
not change when one member is removed or one file is added to its folder.

    python bench/offline_labels.py
    python bench/offline_labels.py --repo /path/to/checkout --time 200
"""

from __future__ import annotations

import argparse
import posixpath
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from offline_fixtures import (
    FIXTURES,
    Labelled,
    build_repository,
    label_repository,
    score,
)

from kgtool.cli import main as kgtool_main
from kgtool.ontology.items import CommunityItem, LabelBatch
from kgtool.ontology.offline import OfflineLabeler, base_name, profile
from kgtool.ontology.validate import validate_name, validate_phrase, validate_summary

STABILITY_VARIANTS = 8  # member removals tried per community


def print_map(labelled: Labelled) -> None:
    items = labelled.items
    order = sorted(items, key=lambda cid: (-items[cid].size, int(cid[1:])))
    for cid in order:
        text = labelled.batch.communities[cid]
        print(f"{cid:>5} {items[cid].size:>5}  {text.name}")
        print(f"{'':13}{text.summary}")
    names = {cid: text.name for cid, text in labelled.batch.communities.items()}
    if labelled.edges:
        print()
    for edge in labelled.edges:
        phrase = labelled.batch.edges[(edge.src, edge.dst)]
        print(f"  {names[edge.src]} / {phrase} / {names[edge.dst]}")


def variants(item: CommunityItem) -> list[CommunityItem]:
    """The community with one member fewer (never its busiest file), or one file more in its
    folder: what an ordinary commit does to a community."""
    found = profile(item)
    removable = [p for p in item.paths if p not in item.main_files[:1]]
    step = max(1, len(removable) // STABILITY_VARIANTS)
    changed = []
    for path in removable[::step][:STABILITY_VARIANTS]:
        paths = tuple(p for p in item.paths if p != path)
        changed.append(
            item._replace(
                paths=paths,
                size=item.size - 1,
                main_files=tuple(p for p in item.main_files if p != path),
            )
        )
    folder = (found.home or posixpath.dirname(item.paths[0])) if item.paths else ""
    extension = posixpath.splitext(item.paths[0])[1] if item.paths else ".py"
    added = posixpath.join(folder, f"added{extension}")
    changed.append(item._replace(paths=tuple(sorted((*item.paths, added))), size=item.size + 1))
    return changed


def refused(batch: LabelBatch) -> list[str]:
    """The labels the label checks refuse (every label must pass them, whoever wrote it)."""
    problems = []
    checks = [(validate_name, t.name) for t in batch.communities.values()]
    checks += [(validate_summary, t.summary) for t in batch.communities.values()]
    checks += [(validate_phrase, phrase) for phrase in batch.edges.values()]
    for check, text in checks:
        try:
            check(text)
        except ValueError as exc:
            problems.append(str(exc))
    return problems


def stability(items: list[CommunityItem]) -> tuple[int, int]:
    """(names unchanged, names tried) over every variant of every community of 3+ files."""
    kept = tried = 0
    for item in items:
        if item.size < 3:
            continue
        name = base_name(item)
        for variant in variants(item):
            tried += 1
            kept += base_name(variant) == name
    return kept, tried


def timing(items: list[CommunityItem], count: int, runs: int = 5) -> float:
    """Seconds to label ``count`` communities (the best of ``runs``), edges not included."""
    batch = [items[i % len(items)]._replace(id=f"c{i + 1}") for i in range(count)]
    labeler = OfflineLabeler()
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        labeler.label(batch, [], set())
        best = min(best, time.perf_counter() - start)
    return best


def run_fixtures(count: int) -> int:
    total_passed = total = 0
    all_items: list[CommunityItem] = []
    with tempfile.TemporaryDirectory() as temp:
        for fixture in FIXTURES:
            root = Path(temp) / fixture.name
            build_repository(root, fixture.files)
            labelled = label_repository(root)
            again = label_repository(root)
            result = score(fixture, labelled)
            result.failed += refused(labelled.batch)
            same = again.batch == labelled.batch
            print(
                f"== {fixture.name}: {len(result.passed)}/{len(result.passed) + len(result.failed)}"
                f" known answers; same input, same labels: {same}"
            )
            print_map(labelled)
            for line in result.failed:
                print(f"  FAILED {line}")
            print()
            total_passed += len(result.passed) + same
            total += len(result.passed) + len(result.failed) + 1
            all_items += list(labelled.items.values())
    kept, tried = stability(all_items)
    print(f"known answers: {total_passed}/{total} ({100 * total_passed / total:.0f}%)")
    print(f"names unchanged by a one-file change: {kept}/{tried}")
    print(f"labelling {count} communities: {1000 * timing(all_items, count):.1f} ms")
    return 0 if total_passed == total else 1


def run_repository(path: Path, count: int) -> int:
    path = path.resolve()
    if (path / ".kg" / "communities.json").is_file():
        return report_repository(path, count)
    print(f"{path} has no .kg/communities.json: mapping a temporary clone", file=sys.stderr)
    with tempfile.TemporaryDirectory() as temp:
        clone = Path(temp) / path.name
        subprocess.run(["git", "clone", "-q", str(path), str(clone)], check=True)
        if kgtool_main(["-C", str(clone), "update", "--quiet"]):
            return 2
        return report_repository(clone, count)


def report_repository(root: Path, count: int) -> int:
    start = time.perf_counter()
    labelled = label_repository(root)
    took = time.perf_counter() - start
    print(f"{len(labelled.items)} communities in {root.name} (read and labelled in {took:.2f}s)")
    print_map(labelled)
    problems = refused(labelled.batch)
    for problem in problems:
        print(f"  REFUSED {problem}")
    labels = 2 * len(labelled.batch.communities) + len(labelled.batch.edges)
    print(f"\nlabels passing the label checks: {labels - len(problems)}/{labels}")
    kept, tried = stability(list(labelled.items.values()))
    print(f"names unchanged by a one-file change: {kept}/{tried}")
    elapsed = timing(list(labelled.items.values()), count)
    print(f"labelling {count} communities: {1000 * elapsed:.1f} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="print the offline map of this repository")
    parser.add_argument(
        "--time",
        type=int,
        default=200,
        metavar="N",
        help="communities to label in the timing (default 200)",
    )
    args = parser.parse_args(argv)
    if args.repo:
        return run_repository(args.repo, args.time)
    return run_fixtures(args.time)


if __name__ == "__main__":
    sys.exit(main())
