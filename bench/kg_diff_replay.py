"""What a commit adds to the history of layer 1: the bytes of ``git diff`` under ``.kg/raw*``.

Replays the last N first-parent commits of a repository one by one in a fresh clone: the
map is built at the commit before them, then each commit is checked out and ``kgtool
update`` run once (incrementally, as the pre-commit hook would), one process per commit.
``.kg/`` is tracked by a side git repository of its own (the replayed repository's history
is left alone), so that after each update ``git diff`` shows exactly what a commit of the
refreshed map would add. Reports per commit the diff's bytes under ``.kg/raw/`` and
``.kg/raw.jsonl`` (whichever the kgtool in use writes), then their median and 95th
percentile.

``--checkout`` names the kgtool source tree to run (default: this one), so that two
versions of kgtool can be compared on the same commits:

    python bench/kg_diff_replay.py /path/to/repo --commits 50
    python bench/kg_diff_replay.py /path/to/repo --commits 50 --checkout /path/to/other/kgtool
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
LAYER1_PATHS = (".kg/raw", ".kg/raw.jsonl")


def git(root: Path, *args: str, side: Path | None = None) -> str:
    """Run git in ``root``; with ``side``, on the side repository that tracks ``.kg/``."""
    prefix = ["git", f"--git-dir={side}", f"--work-tree={root}"] if side else ["git"]
    return subprocess.run(
        [*prefix, *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def update(root: Path, checkout: Path) -> None:
    """One ``kgtool update`` process of ``checkout``'s code (not started in ``root``, so that
    a ``kgtool`` folder of the repository cannot shadow it)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", "-C", str(root), "update", "-q"],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"kgtool update failed ({done.returncode}): {done.stderr}")


def commit_map(root: Path, side: Path, message: str) -> int:
    """Stage ``.kg/`` in the side repository, commit it; the staged diff's bytes under
    layer 1's paths (0 when nothing changed)."""
    git(root, "add", "-A", "--", ".kg", side=side)
    diff = subprocess.run(
        [
            "git",
            f"--git-dir={side}",
            f"--work-tree={root}",
            "diff",
            "--cached",
            "--no-color",
            "--no-ext-diff",
            "--",
            *LAYER1_PATHS,
        ],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    git(root, "commit", "-q", "--allow-empty", "-m", message, side=side)
    return len(diff)


def percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def replay(source: Path, commits: int, checkout: Path, work: Path) -> dict[str, object]:
    clone = work / "repo"
    subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
    history = git(clone, "rev-list", "--first-parent", f"--max-count={commits + 1}", "HEAD")
    revisions = history.split()[::-1]
    if len(revisions) < 2:
        raise SystemExit(f"{source}: no first-parent commit to replay after the first")
    side = work / "kg.git"
    subprocess.run(["git", "init", "-q", "--bare", str(side)], check=True)
    for key, value in (("user.name", "bench"), ("user.email", "bench@example.invalid")):
        git(clone, "config", key, value, side=side)
    (clone / ".git" / "info" / "exclude").write_text(".kg/\n")  # untracked, kept across checkouts
    git(clone, "checkout", "-q", "--detach", revisions[0])
    update(clone, checkout)
    commit_map(clone, side, revisions[0])
    per_commit = []
    for revision in revisions[1:]:
        git(clone, "checkout", "-q", "--detach", "-f", revision)
        update(clone, checkout)
        per_commit.append(
            {"commit": revision[:12], "diff_bytes": commit_map(clone, side, revision)}
        )
    sizes = [c["diff_bytes"] for c in per_commit]
    return {
        "repository": str(source),
        "checkout": str(checkout),
        "commits": len(per_commit),
        "median_diff_bytes": statistics.median(sizes),
        "p95_diff_bytes": percentile(sizes, 0.95),
        "max_diff_bytes": max(sizes),
        "per_commit": per_commit,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--checkout", type=Path, default=CHECKOUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kg-diff-replay-") as work:
        result = replay(args.repo.resolve(), args.commits, args.checkout.resolve(), Path(work))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
