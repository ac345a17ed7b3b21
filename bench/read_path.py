"""The read path on a real repository: how fast ``context``, ``impact`` and ``explain`` start,
and how many of the files a real change had to touch ``impact`` names.

Speed: the repository (a clone of ``--repo``, ~700 files for pytest) gets ``kgtool update``
once; then each command runs as its own process, interpreter start-up included, ``--runs``
times. Reported: the median wall time and the median CPU time (user + system) of the child,
next to ``kgtool --version`` (start-up alone) — on a shared, loaded machine the CPU time is
the steadier of the two. ``context`` is measured warm (its read cache, ``.kg/cache/
read.marshal``, filled) and cold: a shard of layer 1 rewritten before each run, as
``kgtool update`` leaves it after a change, so that the run builds the cache again.

Recall: for each of the newest ``--commits`` first-parent commits that change 2 to 12 Python
files (merges and pure test or docs commits left out), ``.kg/`` is built at its parent, the
changed file with most changed lines is taken as what the developer set out to change, and
``impact`` of that file (at each depth) is compared with the other Python files the commit
changed: recall is the share of them ``impact`` named; the size of its answer is reported
beside it, since naming every file would score 1.0.

    python bench/read_path.py [--repo CLONE] [--runs 5]
                              [--commits 30] [--skip-speed] [--skip-recall]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import CHECKOUT, GIT, RUN_ENV

sys.path.insert(0, str(CHECKOUT))
from bench.sources import source_of
from kgtool.config import load_config
from kgtool.query.impact import impact
from kgtool.query.kg import load_graph
from kgtool.store import Store

DEFAULT_REPO = "pytest-dev/pytest"  # cloned as bench/sources.py finds it
DEPTHS = (1, 2, 3)
CONTEXT_TASKS = (
    "fixture teardown ordering with parametrize",
    "Reject negative log_auto_indent values",
    "add a new command line option to the terminal reporter",
)


def kgtool(root: Path, *args: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one whole kgtool process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", *args],
        cwd=root,
        env=RUN_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"kgtool {' '.join(args)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        [*GIT, *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def speed(root: Path, runs: int) -> None:
    kgtool(root, "update")
    document = load_graph(root, load_config(root), Store(root)).document
    communities = document["communities"]
    code = [c for c in communities if communities[c]["main_files"]]  # docs have none
    largest = max(code, key=lambda c: (communities[c]["size"], c))
    top = communities[largest]
    main_file = top["main_files"][0][0]
    symbol = next(
        (s for c in document["communities"].values() for s, _ in c["top_symbols"]), main_file
    )
    files = sum(1 for _ in git(root, "ls-files").splitlines())
    print(f"speed on {files} files ({root.name}); {runs} runs each, medians:")
    cases = [
        ("--version",),
        *(("context", task, "--budget", "12000") for task in CONTEXT_TASKS),
        ("impact", symbol),
        ("impact", main_file, "--depth", "2"),
        ("explain", largest),
        ("explain", main_file),
        ("explain", symbol),
    ]
    for case in cases:
        kgtool(root, *case)  # warm: bytecode written, files in the page cache
        walls, cpus = [], []
        for _ in range(runs):
            wall, cpu, _ = kgtool(root, *case)
            walls.append(wall)
            cpus.append(cpu)
        report(" ".join(case), walls, cpus)
    raw = sorted((root / ".kg" / "raw").glob("*.jsonl"))[0]
    walls, cpus = [], []
    for _ in range(runs):
        raw.write_bytes(raw.read_bytes())  # rewritten: the read cache no longer matches it
        wall, cpu, _ = kgtool(root, "context", CONTEXT_TASKS[0], "--budget", "12000")
        walls.append(wall)
        cpus.append(cpu)
    report(f"context {CONTEXT_TASKS[0]} (cold: builds the read cache)", walls, cpus)


def report(case: str, walls: list[float], cpus: list[float]) -> None:
    print(
        f"  kgtool {case:<60} wall {statistics.median(walls):.3f} s  "
        f"cpu {statistics.median(cpus):.3f} s"
    )


def changed_python(root: Path, commit: str) -> dict[str, int]:
    """Python files the commit changed (not deleted) -> lines changed."""
    out = git(root, "show", "--numstat", "--format=", "--diff-filter=AMR", "--no-renames", commit)
    found = {}
    for line in out.splitlines():
        added, deleted, path = line.split("\t")
        if path.endswith(".py") and added != "-":
            found[path] = int(added) + int(deleted)
    return found


def recall(root: Path, commits: int) -> None:
    candidates = git(root, "rev-list", "--first-parent", "--no-merges", "-n", "3000", "HEAD")
    chosen: list[tuple[str, dict[str, int]]] = []
    for commit in candidates.split():
        files = changed_python(root, commit)
        code = [p for p in files if not p.startswith(("testing/", "tests/", "doc/"))]
        if 2 <= len(files) <= 12 and code:
            chosen.append((commit, files))
        if len(chosen) == commits:
            break
    totals = {d: [0, 0, 0] for d in DEPTHS}  # found, wanted, answer size
    same_community = [0, 0, 0]  # the baseline: every other file of the seed's community
    per_commit = []
    for commit, files in chosen:
        git(root, "checkout", "-q", "--detach", f"{commit}^")
        kgtool(root, "update")
        graph = load_graph(root, load_config(root), Store(root))
        known = set(graph.files())
        seed = max(
            (p for p in files if not p.startswith(("testing/", "tests/", "doc/"))),
            key=lambda p: (files[p], p),
        )
        if seed not in known:  # a file the commit added: nothing depended on it yet
            continue
        wanted = {p for p in files if p != seed and p in known}
        if not wanted:
            continue
        row = [commit[:10], seed, str(len(wanted))]
        for depth in DEPTHS:
            answer = set(impact(graph, [seed], depth).files)
            found = len(answer & wanted)
            totals[depth][0] += found
            totals[depth][1] += len(wanted)
            totals[depth][2] += len(answer)
            row.append(f"d{depth} {found}/{len(wanted)} of {len(answer)}")
        cid = graph.community_of(seed)
        peers = {p for p, c in graph.document["files"].items() if c == cid and p != seed}
        same_community[0] += len(peers & wanted)
        same_community[1] += len(wanted)
        same_community[2] += len(peers)
        row.append(f"community {len(peers & wanted)}/{len(wanted)} of {len(peers)}")
        per_commit.append(row)
    print(f"impact recall on {len(per_commit)} commits (seed: the most-changed non-test file):")
    for row in per_commit:
        print("  " + "  ".join(row))
    rows = [(f"impact depth {d}", totals[d]) for d in DEPTHS]
    rows.append(("baseline: the seed's community", same_community))
    for label, (found, wanted, size) in rows:
        share = found / wanted if wanted else 0.0
        mean = size / len(per_commit) if per_commit else 0.0
        print(f"  {label}: recall {found}/{wanted} = {share:.2f}; mean answer {mean:.1f} files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repo", default=source_of(DEFAULT_REPO), help="a clone or mirror to copy (pytest's)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-recall", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgtool-read-") as temp:
        source = Path(args.repo.rstrip("/"))
        name = source.parent.name if source.name == "repo" else source.name  # a mirror's
        root = Path(temp) / name.split("+")[-1]
        subprocess.run(["git", "clone", "-q", args.repo, str(root)], check=True)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        if not args.skip_speed:
            speed(root, args.runs)
        if not args.skip_recall:
            recall(root, args.commits)


if __name__ == "__main__":
    main()
