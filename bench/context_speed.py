"""How fast `kgtool context` answers, as a whole process: python bench/context_speed.py [CHECKOUT].

CHECKOUT defaults to a clone of this machine's pytest mirror (680 files, the size the target
is set for: under 0.3 s). The map is built first when it is missing (`kgtool update`, then
`kgtool label --offline`). Then `python -m kgtool -C CHECKOUT context "<task>" --budget 12000`
runs as its own process:

- once right after `kgtool update` rewrote raw.jsonl ("cold": the read cache is rebuilt),
- then RUNS times per task ("warm"), reported as the best and the median wall time.

Python's bytecode cache is allowed (as in an installed kgtool), whatever
PYTHONDONTWRITEBYTECODE says here; the first run writes it and is not counted. The machine's
load average is printed with the numbers: on a shared machine, wall time is CPU time plus
waiting for a core, so the CPU time (user and system) of each process is given too.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = "/work/.mirror/pytest-dev+pytest/repo"
RUNS = 7
TASKS = (
    "fixture teardown ordering with parametrize",
    "Reject negative log_auto_indent values",
    "add a new command line option to the terminal reporter",
)
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}


def kgtool(repo: Path, *args: str) -> float:
    return timed(repo, *args)[0]


def timed(repo: Path, *args: str) -> tuple[float, float]:
    """Wall time and CPU time (user and system) of one whole `kgtool` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kgtool", "-C", str(repo), *args],
        cwd=ROOT,
        env=ENV,
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def python_alone() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=ENV, check=True)
    return time.perf_counter() - started


def main() -> int:
    if len(sys.argv) > 1:
        repo = Path(sys.argv[1]).resolve()
    else:
        repo = Path(tempfile.mkdtemp(prefix="context-speed-")) / "pytest"
        subprocess.run(["git", "clone", "-q", DEFAULT_SOURCE, str(repo)], check=True)
    if not (repo / ".kg" / "raw.jsonl").is_file():
        kgtool(repo, "update")
        kgtool(repo, "label", "--offline")
    files = subprocess.run(
        ["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.count("\n")
    kgtool(repo, "context", "warm up the bytecode cache")
    # Make raw.jsonl a new file, as `kgtool update` does after a change, for the cold run.
    raw = repo / ".kg" / "raw.jsonl"
    raw.write_bytes(raw.read_bytes())
    cold, cold_cpu = timed(repo, "context", TASKS[0], "--budget", "12000")
    print(f"{repo.name}: {files} files; load average {os.getloadavg()[0]:.2f}")
    print(f"python -c pass: {min(python_alone() for _ in range(RUNS)):.3f} s (best)")
    print(f"cold (first run after raw.jsonl changed): {cold:.3f} s wall, {cold_cpu:.3f} s CPU")
    for task in TASKS:
        runs = [timed(repo, "context", task, "--budget", "12000") for _ in range(RUNS)]
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"warm: wall best {min(walls):.3f} s, median {statistics.median(walls):.3f} s; "
            f"CPU median {statistics.median(cpus):.3f} s; over {RUNS} runs: {task!r}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
