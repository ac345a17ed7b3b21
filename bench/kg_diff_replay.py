"""What a commit adds to the history of ``.kg/``: the bytes of ``git diff`` under
``.kg/raw*``, and the lines and files of ``.kg/`` against the source lines the commit changed.

Replays the last N first-parent commits of a repository one by one in a fresh clone: the
map is built at the commit before them, then each commit is checked out and ``kgtool
update`` run once (incrementally, as the pre-commit hook would), one process per commit.
``.kg/`` is tracked by a side git repository of its own (the replayed repository's history
is left alone), so that after each update ``git diff`` shows exactly what a commit of the
refreshed map would add. Reports per commit the diff's bytes under ``.kg/raw/`` and
``.kg/raw.jsonl`` (whichever the kgtool in use writes), the lines and files it changes under
``.kg/`` (``git diff --numstat``: added + deleted) and the source lines the commit changed
(the same count, ``.kg/`` and binary files left out), then medians, 95th percentiles, and
how many commits changed at most 3 lines of ``.kg/`` per source line (the budget of a
readable map diff; commits that changed no source line are left out of the ratio).

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


def changed_lines(numstat: str) -> tuple[int, int]:
    """(lines added + deleted, files) of ``git diff --numstat`` output; binary files count
    as files only."""
    lines = files = 0
    for row in numstat.splitlines():
        added, deleted, _ = row.split("\t", 2)
        lines += int(added) + int(deleted) if added != "-" else 0
        files += 1
    return lines, files


def commit_map(root: Path, side: Path, message: str) -> tuple[int, int, int]:
    """Stage ``.kg/`` in the side repository, commit it; the staged diff's bytes under
    layer 1's paths (0 when nothing changed), and the lines and files it changes under .kg/."""
    git(root, "add", "-A", "--", ".kg", side=side)
    lines, files = changed_lines(git(root, "diff", "--cached", "--numstat", "--", ".kg", side=side))
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
    return len(diff), lines, files


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def replay(source: Path, commits: int, checkout: Path, work: Path) -> dict[str, object]:
    clone = work / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(clone)], check=True)
    # A partial mirror's missing blobs stand replaced by empty ones in the source: the same here.
    git(clone, "fetch", "-q", str(source), "refs/replace/*:refs/replace/*")
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
        diff_bytes, kg_lines, kg_files = commit_map(clone, side, revision)
        numstat = git(clone, "diff", "--numstat", f"{revision}^", revision, "--", ".", ":!.kg")
        source_lines, _ = changed_lines(numstat)
        per_commit.append(
            {
                "commit": revision[:12],
                "diff_bytes": diff_bytes,
                "source_lines": source_lines,
                "kg_lines": kg_lines,
                "kg_files": kg_files,
            }
        )
    sizes = [c["diff_bytes"] for c in per_commit]
    kg_lines = [c["kg_lines"] for c in per_commit]
    ratios = [c["kg_lines"] / c["source_lines"] for c in per_commit if c["source_lines"]]
    return {
        "repository": str(source),
        "checkout": str(checkout),
        "commits": len(per_commit),
        "median_diff_bytes": statistics.median(sizes),
        "p95_diff_bytes": percentile(sizes, 0.95),
        "max_diff_bytes": max(sizes),
        "median_source_lines": statistics.median(c["source_lines"] for c in per_commit),
        "median_kg_lines": statistics.median(kg_lines),
        "p95_kg_lines": percentile(kg_lines, 0.95),
        "median_kg_files": statistics.median(c["kg_files"] for c in per_commit),
        "median_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "p95_ratio": round(percentile(ratios, 0.95), 2) if ratios else None,
        "within_3x": f"{sum(r <= 3 for r in ratios)}/{len(ratios)}",
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
