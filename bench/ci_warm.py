"""A pull request's check on a fresh clone, cold and with layer 1's cache restored, as the
GitHub Action runs it (issue: big monorepos, "CI starts warm").

    python bench/ci_warm.py --files 10000 [--repeat 3] [--out DIR]

A synthetic TypeScript repository (bench/raw_speed.py's) is built and its .kg/ committed on
``main``; a pull request adds an exported function to one file and commits its refreshed .kg/.
Then, each in a fresh clone (``git clone`` of a bare copy, as actions/checkout gives):

- the default branch's run: ``kgtool ci`` on ``main``, whose cache is kept (what the action
  saves on a push);
- the pull request's run, cold: ``kgtool ci --base main`` with no cache;
- the pull request's run, warm: the same, the default branch's cache copied into the clone's
  ``.git/kgtool-cache`` first (what the action restores).

Each run is a separate process, timed wall-clock; medians of ``--repeat``. The full build
(``kgtool update`` from scratch) is timed once, in the repository the clones come from.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import generate, git, timed_kgtool

ADDED = "\nexport function prAdded(): number {\n  return 1;\n}\n"


def clone(remote: Path, branch: str, into: Path) -> Path:
    shutil.rmtree(into, ignore_errors=True)
    git(remote.parent, "clone", "-q", "--branch", branch, str(remote), str(into))
    if branch != "main":
        git(into, "fetch", "-q", "origin", "main:main")
    return into


def measure(files: int, repeat: int, out: Path) -> dict[str, float]:
    source = out / "source"
    shutil.rmtree(source, ignore_errors=True)
    generate(source, "typescript", files, 7)
    git(source, "branch", "-M", "main")
    full = timed_kgtool(source, "update", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "the map")
    git(source, "switch", "-q", "-c", "pr")
    edited = sorted(p for p in git(source, "ls-files", "src").split() if p.endswith(".ts"))
    path = source / edited[len(edited) // 2]
    path.write_text(path.read_text() + ADDED)
    timed_kgtool(source, "update", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "a pull request")
    git(source, "switch", "-q", "main")
    remote = out / "remote.git"
    shutil.rmtree(remote, ignore_errors=True)
    git(out, "clone", "-q", "--bare", str(source), str(remote))
    main_runs, cold, warm = [], [], []
    for _ in range(repeat):
        main_run = clone(remote, "main", out / "main-run")
        main_runs.append(timed_kgtool(main_run, "ci"))
        cold.append(timed_kgtool(clone(remote, "pr", out / "pr-cold"), "ci", "--base", "main"))
        pr_warm = clone(remote, "pr", out / "pr-warm")
        shutil.copytree(main_run / ".git" / "kgtool-cache", pr_warm / ".git" / "kgtool-cache")
        warm.append(timed_kgtool(pr_warm, "ci", "--base", "main"))
    return {
        "files": files,
        "full_build_s": round(full, 2),
        "default_branch_ci_s": round(statistics.median(main_runs), 2),
        "pr_ci_cold_s": round(statistics.median(cold), 2),
        "pr_ci_warm_s": round(statistics.median(warm), 2),
        "warm_share_of_full_build": round(statistics.median(warm) / full, 3),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="kgtool-ci-warm-"))
    out.mkdir(parents=True, exist_ok=True)
    for name, value in measure(args.files, args.repeat, out.resolve()).items():
        print(f"{name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
