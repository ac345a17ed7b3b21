"""Does a change stay inside one community? Change locality of a map on real history.

For each of the last N first-parent changes of 2 to 30 code files (files of the map at HEAD
that layer 2 counts as code), the number of groups its files fall in and the share of its
files in the largest one, averaged, for three partitions of the same code files: the map's
communities, folders (parent directory), and random partitions with the communities' sizes.
A map worth reading touches fewer groups than folders do, with a higher dominant share.
Folders are also measured held to the map's size: a folder with more code files than the
map's largest code community is cut into even slices in path order (what a reader would get
from folders under the same size limit; ``folders_capped_touched_dominant``). When
the document has areas (format 3), the same for the areas, against random partitions with the
areas' sizes: the level above should win back what package boundaries cost.

    python -m kgtool -C /path/to/repo update
    python bench/change_locality.py /path/to/repo            # its .kg/communities.json
    python bench/change_locality.py /path/to/repo --document old/communities.json
"""

from __future__ import annotations

import argparse
import json
import posixpath
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

from kgtool.communities.packages import is_code
from kgtool.repo import git

MIN_FILES, MAX_FILES = 2, 30
RANDOM_DRAWS = 20


def changes(repo: Path, code: set[str], count: int) -> list[list[str]]:
    """The code files of the newest ``count`` first-parent changes touching 2-30 of them."""
    # Without rename detection: a mirror may lack the largest blobs, and a rename's new path
    # is all that is needed here.
    log = git(
        repo,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--no-renames",
        "--name-only",
        "-z",
        "--format=%x01%H",
        "HEAD",
        "--",
    )
    found = []
    for record in log.split("\x01")[1:]:
        paths = record.split("\n", 1)[1] if "\n" in record else ""
        touched = sorted({p.strip("\n") for p in paths.split("\0") if p.strip("\n") in code})
        if MIN_FILES <= len(touched) <= MAX_FILES:
            found.append(touched)
            if len(found) == count:
                break
    return found


def locality(partition: dict[str, str], history: list[list[str]]) -> tuple[float, float]:
    """Mean groups touched per change, and mean share of its files in its largest group."""
    touched, dominant = [], []
    for files in history:
        groups = Counter(partition[path] for path in files)
        touched.append(len(groups))
        dominant.append(max(groups.values()) / len(files))
    return statistics.fmean(touched), statistics.fmean(dominant)


def random_partition(files: list[str], sizes: list[int], seed: int) -> dict[str, str]:
    shuffled = list(files)
    random.Random(seed).shuffle(shuffled)
    partition, start = {}, 0
    for number, size in enumerate(sizes):
        for path in shuffled[start : start + size]:
            partition[path] = str(number)
        start += size
    return partition


def capped_folders(folders: dict[str, str], cap: int) -> dict[str, str]:
    """Folders, each cut into even slices in path order when it holds more than ``cap`` files."""
    members: dict[str, list[str]] = {}
    for path in sorted(folders):
        members.setdefault(folders[path], []).append(path)
    capped = {}
    for folder, paths in members.items():
        slices = -(-len(paths) // cap)
        for index, path in enumerate(paths):
            capped[path] = f"{folder}#{index * slices // len(paths)}"
    return capped


def measure(repo: Path, document: dict, count: int) -> dict:
    communities = {p: c for p, c in document["files"].items() if is_code(p)}
    history = changes(repo, set(communities), count)
    sizes = sorted(Counter(communities.values()).values(), reverse=True)
    files = sorted(communities)
    folders = {path: posixpath.dirname(path) for path in files}
    draws = [
        locality(random_partition(files, sizes, seed), history) for seed in range(RANDOM_DRAWS)
    ]
    kinds = Counter(c.get("kind", "mixed") for c in document["communities"].values())
    result = {
        "changes": len(history),
        "code_files": len(files),
        "communities": len(document["communities"]),
        "communities_by_kind": dict(sorted(kinds.items())),
        "code_community_sizes": sizes,
        "packages": len(document.get("settings", {}).get("boundaries", [])),
        "communities_touched_dominant": locality(communities, history),
        "folders_touched_dominant": locality(folders, history),
        "folders_capped_touched_dominant": locality(capped_folders(folders, sizes[0]), history),
        "random_touched_dominant": (
            statistics.fmean(d[0] for d in draws),
            statistics.fmean(d[1] for d in draws),
        ),
    }
    if "areas" in document:
        area_of = {cid: c["area"] for cid, c in document["communities"].items() if "area" in c}
        areas = {path: area_of[cid] for path, cid in communities.items()}
        area_sizes = sorted(Counter(areas.values()).values(), reverse=True)
        area_draws = [
            locality(random_partition(files, area_sizes, seed), history)
            for seed in range(RANDOM_DRAWS)
        ]
        result.update(
            {
                "areas": len(document["areas"]),
                "code_area_sizes": area_sizes,
                "area_community_counts": sorted(
                    (len(a["communities"]) for a in document["areas"].values()), reverse=True
                ),
                "areas_touched_dominant": locality(areas, history),
                "random_areas_touched_dominant": (
                    statistics.fmean(d[0] for d in area_draws),
                    statistics.fmean(d[1] for d in area_draws),
                ),
            }
        )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--document", type=Path, help="a communities.json other than the repo's")
    parser.add_argument("--changes", type=int, default=400)
    args = parser.parse_args()
    path = args.document or args.repo / ".kg" / "communities.json"
    result = measure(args.repo.resolve(), json.loads(path.read_text()), args.changes)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
