"""The cost of refused pointers: ``kgtool check`` and ``kgtool ci`` on playbooks whose key files
do not resolve, as a pull request can commit them (issue 27: 60,000 took 285 s of CI).

The repository is bench/playbooks_check.py's synthetic one (~700 Python files) with a history
of renames and deletions, and ``--pointers`` refused pointers spread over playbooks of 1,000
each, in four shapes: a path that never existed, a bare file name that never existed, a
symbol missing from an existing file, and a path renamed or deleted in history. Every
pointer is refused; the time is of one whole command each, interpreter start-up included.

    python bench/refused_pointers.py [--pointers 60000] [--files 700]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from playbooks_check import module_source
from raw_speed import GIT, RUN_ENV

PER_PLAYBOOK = 1_000  # under the default playbooks.max_bytes (256 KiB) at ~40 bytes a pointer
RENAMED = 50  # files renamed and deleted in history, for the pointers that name their old path


def build_repo(root: Path, files: int, pointers: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    paths: list[str] = []
    for i in range(files):
        path = f"src/pkg{i % 10}/sub{i % 7}/mod_{i}.py"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(module_source(rng, i)[0])
        paths.append(path)
    for i in range(RENAMED):
        (root / f"old/legacy_{i}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / f"old/legacy_{i}.py").write_text(f"def legacy_{i}():\n    return {i}\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "synthetic"], cwd=root, check=True)
    for i in range(RENAMED):
        if i % 2:
            subprocess.run(["git", "rm", "-q", f"old/legacy_{i}.py"], cwd=root, check=True)
        else:
            new = f"src/moved/legacy_{i}.py"
            (root / new).parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", f"old/legacy_{i}.py", new], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "renames and deletions"], cwd=root, check=True)
    shapes = [
        lambda i: f"gone/area_{i % 97}/never_{i}.py",
        lambda i: f"missing_{i}.py",
        lambda i: f"{paths[i % len(paths)]}::Missing{i}",
        lambda i: f"old/legacy_{i % RENAMED}.py::legacy_{i}_gone",
    ]
    (root / "playbooks").mkdir()
    for p in range(0, pointers, PER_PLAYBOOK):
        count = min(PER_PLAYBOOK, pointers - p)
        body = "\n".join(f"  - {shapes[i % len(shapes)](i)}" for i in range(p, p + count))
        (root / "playbooks" / f"task-{p // PER_PLAYBOOK:03d}.md").write_text(
            f"---\ntitle: Task {p}\nintent: do recurring task {p}\nstatus: active\n"
            f"concepts: []\nkey_files:\n{body}\n"
            "validation:\n  - pytest tests/\npitfalls:\n  - none\nrollback: revert\n---\n"
        )
    subprocess.run([sys.executable, "-m", "kgtool", "update", "-q"], cwd=root, env=RUN_ENV)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "playbooks"], cwd=root, check=True)


def timed(root: Path, *argv: str) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        env=RUN_ENV,
    )
    return time.perf_counter() - started, done.returncode, done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pointers", type=int, default=60_000)
    parser.add_argument("--files", type=int, default=700)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="kgtool-bench-refused-"))
    try:
        build_repo(workdir, args.files, args.pointers)
        print(f"repository: {args.files + RENAMED // 2} files, {args.pointers} refused pointers")
        for argv in (("check",), ("ci", "--base", "HEAD~1")):
            seconds, code, output = timed(workdir, *argv)
            refused = output.count("does not resolve")
            per = seconds / args.pointers * 1e6 if args.pointers else 0.0
            print(
                f"kgtool {' '.join(argv)}: {seconds:.2f} s, exit {code}, "
                f"{refused} pointer lines, {per:.0f} µs a pointer, "
                f"{len(output.encode()) // 1024} KiB of output"
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
