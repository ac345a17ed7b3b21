"""Does a change of kgtool's code leave what it writes unchanged? ``.kg/`` built by two
checkouts of kgtool, byte for byte, on public repositories.

For a move that should change nothing (a module split, a function moved to the layer it
belongs to): each repository is cloned to a temporary folder, mapped cold by the ``--before``
checkout (``kgtool update``, then ``kgtool label --offline``), then again from scratch by
this checkout, and every file under ``.kg/`` is compared. Prints one line per repository,
"identical" or the files that differ.

    python bench/same_bytes.py --before /path/to/kgtool-at-main [owner/name ...]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sources import source_of

HERE = Path(__file__).resolve().parent.parent
REPOSITORIES = ["caronc/apprise", "pallets/flask", "colinhacks/zod", "badlogic/pi-mono",
                "pygments/pygments"]  # fmt: skip


def snapshot(root: Path) -> dict[str, str]:
    kg = root / ".kg"
    return {
        str(path.relative_to(kg)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(kg.rglob("*"))
        if path.is_file()
    }


def mapped(clone: Path, checkout: Path) -> dict[str, str]:
    shutil.rmtree(clone / ".kg", ignore_errors=True)
    env = {key: value for key, value in os.environ.items() if key != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = str(checkout)
    # Each build cold: its own cache folder in the git directory goes too.
    shutil.rmtree(clone / ".git" / "kgtool-cache", ignore_errors=True)
    for argv in (["update", "-q"], ["label", "--offline", "-q"]):
        done = subprocess.run([sys.executable, "-m", "kgtool", *argv], cwd=clone, env=env,
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode != 0:  # label's 1 is a partial labelling: not a map to compare
            raise SystemExit(f"{clone.name}: kgtool {' '.join(argv)} ended {done.returncode}:\n"
                             f"{done.stderr[-2000:]}")  # fmt: skip
    return snapshot(clone)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of kgtool")
    parser.add_argument("repos", nargs="*", default=REPOSITORIES)
    args = parser.parse_args()
    differing = 0
    with tempfile.TemporaryDirectory() as scratch:
        for repo in args.repos:
            clone = Path(scratch) / repo.replace("/", "+")
            subprocess.run(["git", "clone", "-q", source_of(repo), str(clone)], check=True)
            before, after = mapped(clone, args.before.resolve()), mapped(clone, HERE)
            changed = sorted(name for name in before.keys() | after.keys()
                             if before.get(name) != after.get(name))  # fmt: skip
            differing += bool(changed)
            said = "identical" if not changed else f"{len(changed)} differ: {changed[:5]}"
            print(f"{repo}: {len(after)} files under .kg/, {said}", flush=True)
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
