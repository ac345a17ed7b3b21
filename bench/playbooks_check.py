"""Layer 4 speed: ``kgtool playbooks check`` on a synthetic repository once layer 1 is built.

The repository has ~700 files (Python modules with classes and functions, plus docs and
config) in nested packages, and 50 playbooks of 8 pointers each: exact paths, ``path::Symbol``
and ``path::Class.method`` IDs, and bare file names resolved by unique suffix. Every pointer
resolves, which is the case that runs on every commit. Two numbers are reported:

- in-process: the check itself (reading playbooks, layer 1, ``git ls-files``, resolving),
  best of several runs;
- process: a whole ``kgtool playbooks check`` command, interpreter start-up included, as the
  pre-commit hook pays it.

    python bench/playbooks_check.py [--files 700] [--playbooks 50] [--runs 7]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import CHECKOUT, GIT, RUN_ENV


def module_source(rng: random.Random, index: int) -> tuple[str, list[str]]:
    """A Python module and the symbol qualnames it defines."""
    lines = [f'"""Module {index}."""', "", "import os", ""]
    symbols: list[str] = []
    for c in range(rng.randint(1, 3)):
        name = f"Service{index}x{c}"
        lines += [f"class {name}:"]
        symbols.append(name)
        for m in range(rng.randint(2, 5)):
            method = f"handle_{m}"
            lines += [f"    def {method}(self, value):", "        return os.path.join(value)", ""]
            symbols.append(f"{name}.{method}")
    for f in range(rng.randint(1, 4)):
        name = f"helper_{index}_{f}"
        lines += [f"def {name}(x):", f"    return Service{index}x0().handle_0(x)", ""]
        symbols.append(name)
    return "\n".join(lines) + "\n", symbols


def build_repo(root: Path, files: int, playbooks: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    symbols: dict[str, list[str]] = {}
    packages = [f"pkg{a}/sub{b}" for a in range(10) for b in range(7)]
    for i in range(files - 40):
        path = f"src/{packages[i % len(packages)]}/mod_{i}.py"
        source, defined = module_source(rng, i)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(source)
        symbols[path] = defined
    for i in range(40):
        path = f"docs/topic_{i}.md" if i % 2 else f"config/settings_{i}.yaml"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"# {i}\n")
    paths = sorted(symbols)
    (root / "playbooks").mkdir()
    for p in range(playbooks):
        chosen = rng.sample(paths, 8)
        pointers = [
            chosen[0],
            chosen[1],
            f"{chosen[2]}::{symbols[chosen[2]][0]}",
            f"{chosen[3]}::{symbols[chosen[3]][1]}",
            f"{chosen[4]}::{symbols[chosen[4]][-1]}",
            chosen[5].rsplit("/", 1)[-1],  # a bare file name: unique-suffix
            "/".join(chosen[6].split("/")[-2:]),  # a path suffix
            f"{chosen[7].rsplit('/', 1)[-1]}::{symbols[chosen[7]][0]}",
        ]
        body = "\n".join(f"  - {pointer}" for pointer in pointers)
        (root / "playbooks" / f"task-{p:02d}.md").write_text(
            f"---\ntitle: Task {p}\nintent: do recurring task {p}\nstatus: active\n"
            f"concepts: []\nkey_files:\n{body}\n"
            "validation:\n  - pytest tests/\n  - ruff check .\n"
            "pitfalls:\n  - forgetting the registry\n"
            "rollback: the registry keeps a dangling entry\n---\n\n# Steps\n\n1. Do it.\n"
        )
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "synthetic"], cwd=root, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=700)
    parser.add_argument("--playbooks", type=int, default=50)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(CHECKOUT))
    from kgtool.cli import main as kgtool

    workdir = Path(tempfile.mkdtemp(prefix="kgtool-bench-playbooks-"))
    try:
        build_repo(workdir, args.files, args.playbooks)
        subprocess.run(
            [sys.executable, "-m", "kgtool", "update", "-q"], cwd=workdir, check=True, env=RUN_ENV
        )

        def in_process() -> tuple[float, int, str]:
            out = io.StringIO()
            started = time.perf_counter()
            with contextlib.redirect_stdout(out):
                code = kgtool(["-C", str(workdir), "playbooks", "check"])
            return time.perf_counter() - started, code, out.getvalue()

        _, code, output = in_process()  # warm the page cache and imports once
        if code != 0:
            print(output)
            raise SystemExit("the synthetic playbooks should all resolve")
        inner = [in_process()[0] for _ in range(args.runs)]
        outer = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "kgtool", "playbooks", "check"],
                cwd=workdir,
                check=True,
                stdout=subprocess.DEVNULL,
                env=RUN_ENV,
            )
            outer.append(time.perf_counter() - started)
        tracked = subprocess.run(
            ["git", "ls-files"], cwd=workdir, capture_output=True, text=True, check=True
        ).stdout.count("\n")
        pointers = args.playbooks * 8
        print(
            f"repository: {tracked} tracked files, {args.playbooks} playbooks, {pointers} pointers"
        )
        print(f"last line: {output.strip().splitlines()[-1]}")
        print(
            f"in-process check: best {min(inner) * 1000:.0f} ms, "
            f"median {statistics.median(inner) * 1000:.0f} ms"
        )
        print(
            f"whole command:    best {min(outer) * 1000:.0f} ms, "
            f"median {statistics.median(outer) * 1000:.0f} ms (interpreter start-up included)"
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
