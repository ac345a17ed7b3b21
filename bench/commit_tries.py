"""How many tries a commit takes through kgtool's hooks, and what it prints when nothing is
wrong: real ``git commit`` runs in clones of public repositories, in each hook set-up and mode.

    python bench/commit_tries.py --work /tmp/tries REPO [REPO ...]   # each mapped by kgtool

For each repository and each set-up (plain git hooks from ``kgtool hooks install``, the
pre-commit framework with a local hook running ``python -m kgtool hooks run``) and mode
(one-step, the default; review, ``--review``), a fresh clone with its ``.kg/`` committed
takes three commits, as a user makes them: a line added inside a function of the busiest
source file, a new playbook, and an empty commit (``--allow-empty``). A commit that fails is
tried again after ``git add .kg`` (what review mode asks for). Prints per repository, set-up
and mode the commits that took one try and two, the lines the successful try printed besides
git's own summary, and the median wall time of the hook (the commit's, in seconds).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

PLAYBOOK = """---
title: Add a setting
intent: add a setting
status: active
concepts: []
key_files: [{path}]
validation: [run the tests]
pitfalls: [none seen]
rollback: revert the commit
---
"""
PRE_COMMIT_CONFIG = """repos:
  - repo: local
    hooks:
      - id: kgtool
        name: kgtool
        entry: {python} -m kgtool hooks run{mode}
        language: system
        pass_filenames: false
        always_run: true
        require_serial: true
        verbose: true
"""
ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip


def run(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env={**os.environ, **ENV}, capture_output=True, text=True, check=check
    )


def prepare(source: Path, work: Path, setup: str, review: bool) -> Path:
    """A clone of ``source`` with its map committed and the hooks of ``setup`` installed."""
    clone = work / f"{source.name}-{setup}-{'review' if review else 'one-step'}"
    shutil.rmtree(clone, ignore_errors=True)
    run(work, "git", "clone", "-q", "--no-checkout", str(source), str(clone))
    # A partial mirror's missing blobs stand replaced by empty ones in the source: the same here.
    run(clone, "git", "fetch", "-q", str(source), "refs/replace/*:refs/replace/*")
    run(clone, "git", "checkout", "-q", "HEAD")
    run(clone, sys.executable, "-m", "kgtool", "update", "-q")
    run(clone, "git", "add", "-A", ".kg")
    run(clone, "git", "commit", "-q", "--no-verify", "-m", "map")
    mode = " --review" if review else ""
    if setup == "plain":
        run(clone, sys.executable, "-m", "kgtool", "hooks", "install", *mode.split())
    else:
        config = clone / ".pre-commit-config.yaml"
        config.write_text(PRE_COMMIT_CONFIG.format(python=sys.executable, mode=mode))
        run(clone, "git", "add", config.name)
        run(clone, "git", "commit", "-q", "--no-verify", "-m", "pre-commit")
        run(clone, sys.executable, "-m", "pre_commit", "install")
    return clone


def busiest_source(clone: Path) -> Path:
    """The tracked Python or TypeScript file with most lines under 2,000 (a real edit's)."""
    listed = run(clone, "git", "ls-files", "*.py", "*.ts").stdout.split()
    sized = []
    for name in listed:
        try:
            count = (clone / name).read_text().count("\n")
        except (OSError, UnicodeDecodeError):
            continue
        if count < 2000 and "test" not in name:
            sized.append((count, name))
    return clone / max(sized)[1]


def edit_inside_a_function(path: Path) -> None:
    lines = path.read_text().split("\n")
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("def ", "function ", "async def ")) and line.rstrip().endswith(
            (":", "{")
        ):
            indent = " " * (len(line) - len(stripped) + 4)
            comment = "#" if path.suffix == ".py" else "//"
            lines.insert(number + 1, f"{indent}{comment} one line added")
            path.write_text("\n".join(lines))
            return
    path.write_text(path.read_text() + "\n")


def commit(clone: Path, message: str, *extra: str) -> tuple[int, int, float]:
    """(tries, lines printed besides git's summary, seconds of the last try)."""
    for tries in (1, 2):
        start = time.perf_counter()
        done = run(clone, "git", "commit", "-m", message, *extra, check=False)
        took = time.perf_counter() - start
        if done.returncode == 0:
            said = [
                line
                for line in (done.stdout + done.stderr).splitlines()
                if line.strip()
                and not line.startswith(("[", " "))
                and "Passed" not in line
                and not line.startswith("- hook id")
                and not line.startswith("- duration")
            ]
            return tries, len(said), took
        run(clone, "git", "add", ".kg")
    raise SystemExit(f"{clone}: '{message}' failed twice:\n{done.stdout}{done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| repository | set-up | mode | one try | two tries | lines printed | hook time |")
    print("|---|---|---|---:|---:|---:|---:|")
    for source in args.repos:
        for setup in ("plain", "pre-commit"):
            for review in (False, True):
                clone = prepare(source.resolve(), args.work, setup, review)
                target = busiest_source(clone)
                edit_inside_a_function(target)
                run(clone, "git", "add", str(target.relative_to(clone)))
                results = [commit(clone, "a line inside a function")]
                key_file = target.relative_to(clone).as_posix()
                playbook = clone / "playbooks" / "add-a-setting.md"
                playbook.parent.mkdir(exist_ok=True)
                playbook.write_text(PLAYBOOK.format(path=key_file))
                run(clone, "git", "add", "playbooks")
                results.append(commit(clone, "a playbook"))
                results.append(commit(clone, "nothing", "--allow-empty"))
                ones = sum(r[0] == 1 for r in results)
                print(
                    f"| {source.name} | {setup} | {'review' if review else 'one-step'} "
                    f"| {ones} | {len(results) - ones} | {sum(r[1] for r in results)} "
                    f"| {statistics.median(r[2] for r in results):.2f} s |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
