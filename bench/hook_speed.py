"""What one commit pays for kgtool's hook: two processes (``kgtool update`` then
``kgtool check``) against one (``kgtool hooks run``), on a synthetic repository.

Each variant runs as a commit would run it: ``pre-commit run`` with kgtool's hooks as local
hooks (the framework's own start-up included), and the bare commands. Two cases: a passing
commit (nothing in the map changes) and a one-file edit (the map is rewritten and staged).
Wall clock, median of ``--repeat`` runs.

    python bench/hook_speed.py --files 700 --kb 7
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import GIT, RUN_ENV, edit_one_file, generate

# This checkout's kgtool, whatever is installed.
ENV = {**RUN_ENV, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
KGTOOL = [sys.executable, "-m", "kgtool"]
TWO = [["update", "--quiet", "--exit-code"], ["check", "--quiet"]]
TWO_EDIT = [["update", "--quiet"], ["check", "--quiet"]]  # as a user who stages by hand
ONE = [["hooks", "run"]]
ONE_EDIT = [["hooks", "run", "--stage"]]


def framework_config(commands: list[list[str]]) -> str:
    hooks = "".join(
        f"      - id: h{i}\n        name: h{i}\n        entry: {' '.join(KGTOOL + c)}\n"
        "        language: system\n        pass_filenames: false\n        always_run: true\n"
        "        require_serial: true\n"
        for i, c in enumerate(commands)
    )
    return f"repos:\n  - repo: local\n    hooks:\n{hooks}"


def timed_pair(
    first: Callable[[], None], second: Callable[[], None], prepare: Callable[[], None], repeat: int
) -> tuple[float, float]:
    """Medians of the two, run alternately so that a busy moment of the machine hits both."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for action, into in ((first, times[0]), (second, times[1])):
            prepare()
            started = time.perf_counter()
            action()
            into.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", default="python", choices=["typescript", "python"])
    parser.add_argument("--files", type=int, default=700)
    parser.add_argument("--kb", type=float, default=7.0)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kgtool-hook-bench-") as tmp:
        root = Path(tmp) / "repo"
        generate(root, args.language, args.files, args.kb)
        subprocess.run([*KGTOOL, "update", "--quiet"], cwd=root, env=ENV, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-qm", "map"], cwd=root, check=True)

        def commands(steps: list[list[str]]) -> Callable[[], None]:
            def go() -> None:
                for step in steps:
                    subprocess.run([*KGTOOL, *step], cwd=root, env=ENV, capture_output=True)

            return go

        def framework(steps: list[list[str]]) -> Callable[[], None]:
            config = Path(tmp) / f"config-{len(steps)}-{steps[0][-1]}.yaml"
            config.write_text(framework_config(steps))
            command = [sys.executable, "-m", "pre_commit", "run", "--config", str(config)]
            return lambda: subprocess.run(command, cwd=root, env=ENV, capture_output=True)

        def nothing() -> None:
            pass

        def edited() -> None:
            # Commit the previous round (no hooks are installed here), then edit one file.
            subprocess.run([*GIT, "commit", "-qam", "round"], cwd=root, capture_output=True)
            edit_one_file(root)
            subprocess.run(["git", "add", "-A"], cwd=root, check=True)

        print(
            f"{args.files} {args.language} files of about {args.kb} KiB, median of "
            f"{args.repeat} runs"
        )
        for label, run in (("bare commands", commands), ("pre-commit run", framework)):
            passing_two, passing_one = timed_pair(run(TWO), run(ONE), nothing, args.repeat)
            edit_two, edit_one = timed_pair(run(TWO_EDIT), run(ONE_EDIT), edited, args.repeat)
            print(
                f"{label}: passing commit {passing_two:.2f}s (two) vs {passing_one:.2f}s "
                f"(one); one-file edit {edit_two:.2f}s (two) vs {edit_one:.2f}s (one, staged)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
