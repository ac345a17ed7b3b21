"""How a one-file edit's cost grows with a monorepo's size: a real repository, and the same
with its packages copied N times under new names (the big-monorepo issue's "at 10× a real
repository's size, within 1.2× its edit at 1×").

    python bench/monorepo_scale.py CHECKOUT [--times 10] [--packages packages] [--repeat 9]

CHECKOUT is a git checkout of a JavaScript/TypeScript monorepo whose packages lie in one
folder (``--packages``). Each copy ``<package>-copyK`` renames its package.json's name
(``@scope/name`` → ``@scope/name-copyK``) and the imports of every package's name inside
the copy, so that a copy imports its own copies, as a real monorepo of that size would. Both
repositories are built once (``kgtool update``); then the same file of the original packages
gets one comment line appended and removed in turn, each edit a ``kgtool update`` of its own
(wall clock, interpreter start included), alternating between the two repositories; medians
of ``--repeat``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_speed import git, timed_kgtool, toggle_comment

SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs", ".json")


def package_names(packages: Path) -> dict[str, str]:
    """Folder name -> the package name its package.json states."""
    names = {}
    for manifest in sorted(packages.glob("*/package.json")):
        try:
            name = json.loads(manifest.read_text()).get("name")
        except (ValueError, OSError):
            continue
        if isinstance(name, str):
            names[manifest.parent.name] = name
    return names


def copy_packages(root: Path, packages: str, times: int) -> int:
    """Copy every package of ``root/packages`` ``times - 1`` times; the files added."""
    folder = root / packages
    names = package_names(folder)
    alternatives = "|".join(re.escape(n) for n in sorted(names.values(), key=len, reverse=True))
    pattern = re.compile(r"""(['"])(""" + alternatives + r""")(/[^'"]*)?\1""")
    added = 0
    for k in range(1, times):
        suffix = f"-copy{k}"

        def renamed(match: re.Match[str], suffix: str = suffix) -> str:
            quote, name, rest = match.group(1), match.group(2), match.group(3) or ""
            return f"{quote}{name}{suffix}{rest}{quote}"

        for package in names:
            target = folder / f"{package}{suffix}"
            shutil.copytree(folder / package, target, ignore=shutil.ignore_patterns("node_modules"))
            for path in target.rglob("*"):
                if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
                    continue
                added += 1
                text = path.read_text(errors="replace")
                changed = pattern.sub(renamed, text)
                if changed != text:
                    path.write_text(changed)
    return added


def edited_file(root: Path, packages: str) -> str:
    """The original packages' source file in the middle of their sorted list."""
    listed = subprocess.run(
        ["git", "ls-files", packages], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    sources = [p for p in listed if p.endswith((".ts", ".tsx")) and "-copy" not in p]
    if not sources:
        raise SystemExit(f"no TypeScript file under {packages}/ of {root}: a JS/TS monorepo?")
    return sources[len(sources) // 2]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--times", type=int, default=10)
    parser.add_argument("--packages", default="packages")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kgtool-monorepo-"))
    roots = {}
    for label, times in (("1x", 1), (f"{args.times}x", args.times)):
        root = work / label
        subprocess.run(["git", "clone", "-q", str(args.checkout.resolve()), str(root)], check=True)
        added = copy_packages(root, args.packages, times) if times > 1 else 0
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"packages x{times}", "--allow-empty")
        full = timed_kgtool(root, "update", "-q")
        files = len(
            subprocess.run(
                ["git", "ls-files"], cwd=root, capture_output=True, text=True
            ).stdout.split()
        )
        roots[label] = root
        print(f"{label}: {files} files ({added} copied), full update {full:.1f} s")
    path = edited_file(roots["1x"], args.packages)
    timings: dict[str, list[float]] = {label: [] for label in roots}
    for _ in range(args.repeat):
        for label, root in roots.items():
            toggle_comment(root / path)
            timings[label].append(timed_kgtool(root, "update", "-q"))
    medians = {label: statistics.median(values) for label, values in timings.items()}
    for label, value in medians.items():
        print(f"{label}: one-file edit {value:.3f} s (median of {args.repeat}), {path}")
    big = f"{args.times}x"
    print(f"ratio {big}/1x: {medians[big] / medians['1x']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
