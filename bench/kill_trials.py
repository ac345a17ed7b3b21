"""Runs ended from outside, counted: SIGTERM (what a CI cancel or a hook time-out sends)
during ``kgtool diff`` and during a partly staged ``kgtool hooks run``, and SIGKILL during a
diff followed by the next hook run. Each trial says how the run exited and what it left: a
``kgtool-worktree-*`` or ``kgtool-index-*`` folder in the temp folder, a worktree still
registered in the repository.

The signal lands at a seeded random moment after the run's temporary checkout started to
build (polled for), as a cancel lands at any moment of a run. ``--checkout`` measures
another kgtool (a ``git archive`` of an older commit, say) on the same trials.

    python bench/kill_trials.py --diff 10 --hook 8 --kill 5
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import GIT, RUN_ENV, edit_one_file, generate

CHECKOUT = Path(__file__).resolve().parent.parent
HUNG_AFTER = 60.0  # seconds after the signal
# What each kind of trial runs, and the temporary folder that run builds in.
RUNS = {
    "diff": (("diff", "HEAD~1", "HEAD"), "kgtool-worktree-"),
    "hook": (("hooks", "run"), "kgtool-index-"),
}


class Trial(NamedTuple):
    kind: str  # "diff TERM", "hook TERM", "diff KILL"
    code: int | None  # the run's exit status (negative: ended by that signal; None: hung)
    exit_s: float  # from the signal to the run's end
    folders: int  # kgtool temporary folders left in the temp folder
    worktrees: int  # worktrees registered besides the repository's own
    after_next: tuple[int, int] = (0, 0)  # (folders, worktrees) after the next hook run


def git(root: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def extra_worktrees(root: Path) -> int:
    listed = git(root, "worktree", "list", "--porcelain")
    return sum(line.startswith("worktree ") for line in listed.splitlines()) - 1


def leftovers(temp: Path) -> int:
    return sum(p.name.startswith(("kgtool-worktree-", "kgtool-index-")) for p in temp.iterdir())


def clear(root: Path, temp: Path) -> None:
    """Nothing of a trial is left for the next one to find."""
    for entry in temp.iterdir():
        shutil.rmtree(entry, ignore_errors=True)
    git(root, "worktree", "prune")


def start(root: Path, temp: Path, checkout: Path, *argv: str) -> subprocess.Popen[bytes]:
    env = {**RUN_ENV, "PYTHONPATH": str(checkout), "TMPDIR": str(temp)}
    return subprocess.Popen(
        [sys.executable, "-m", "kgtool", *argv],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a run that hangs is ended with its workers
    )


def building(temp: Path, prefix: str, process: subprocess.Popen[bytes]) -> bool:
    """Wait until a temporary checkout holds a .kg/ (its build started); False if the run
    ended first."""
    while not any(temp.glob(f"{prefix}*/tree/.kg")):
        if process.poll() is not None:
            return False
        time.sleep(0.005)
    return True


def trial(
    kind: str, root: Path, temp: Path, checkout: Path, rng: random.Random, window: float
) -> Trial | None:
    argv, prefix = RUNS[kind.split()[0]]
    sig = signal.SIGKILL if kind.endswith("KILL") else signal.SIGTERM
    process = start(root, temp, checkout, *argv)
    if not building(temp, prefix, process):
        return None
    time.sleep(rng.uniform(0, window))
    sent = time.perf_counter()
    process.send_signal(sig)
    try:
        code: int | None = process.wait(timeout=HUNG_AFTER)
    except subprocess.TimeoutExpired:  # counted as hung, then ended with what it started
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        code = None
    took = time.perf_counter() - sent
    left = Trial(kind, code, took, leftovers(temp), extra_worktrees(root))
    if sig == signal.SIGKILL:
        start(root, temp, checkout, "hooks", "run").wait(timeout=300)
        left = left._replace(after_next=(leftovers(temp), extra_worktrees(root)))
    clear(root, temp)
    return left


def repository(root: Path, files: int, kb: float) -> None:
    """Two commits without a map (each side of a diff is built), then a partly staged edit
    (a hook run maps a copy of the index)."""
    generate(root, "python", files, kb)  # committed
    edit_one_file(root)
    git(root, "commit", "-qam", "second")
    edit_one_file(root)
    git(root, "add", "-A")
    edit_one_file(root)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diff", type=int, default=10, help="SIGTERM trials during diff")
    parser.add_argument("--hook", type=int, default=8, help="SIGTERM trials during hooks run")
    parser.add_argument("--kill", type=int, default=5, help="SIGKILL trials during diff")
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--kb", type=float, default=7.0)
    parser.add_argument("--window", type=float, default=0.5, help="latest signal, seconds")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--checkout", type=Path, default=CHECKOUT, help="the kgtool to run")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    trials: list[Trial] = []
    missed = 0
    with tempfile.TemporaryDirectory(prefix="kgtool-kill-bench-") as work:
        root, temp = Path(work) / "repo", Path(work) / "tmp"
        temp.mkdir()
        repository(root, args.files, args.kb)
        plan = ["diff TERM"] * args.diff + ["hook TERM"] * args.hook + ["diff KILL"] * args.kill
        for kind in plan:
            done = trial(kind, root, temp, args.checkout.resolve(), rng, args.window)
            if done is None:
                missed += 1
            else:
                trials.append(done)
    print(f"kgtool at {args.checkout}; {args.files} files of {args.kb:g} KiB, seed {args.seed}")
    print("| trials | exit codes | left a folder | left a worktree | after the next hook run |")
    print("|---|---|---|---|---|")
    for kind in dict.fromkeys(t.kind for t in trials):
        some = [t for t in trials if t.kind == kind]
        counted = Counter("hung" if t.code is None else str(t.code) for t in some)
        codes = ", ".join(f"{c}×{n}" for c, n in sorted(counted.items()))
        folders = sum(t.folders > 0 for t in some)
        registered = sum(t.worktrees > 0 for t in some)
        after = sum(t.after_next != (0, 0) for t in some) if kind.endswith("KILL") else "-"
        slowest = max(t.exit_s for t in some)
        print(
            f"| {len(some)} {kind} (exit within {slowest:.2f}s) | {codes} | {folders} "
            f"| {registered} | {after} left |"
        )
    if missed:
        print(f"{missed} run(s) ended before the signal could be sent (not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
