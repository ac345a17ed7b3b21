"""Families named on the map, or made one community each: change locality of the options.

For each repository (with ``.kg/raw/`` from ``kgtool update``), layer 2 is computed
from scratch with families named (the partition is Leiden's, as with families off; the
families are a list beside it). Two ways of making each family one community are derived
from it: ``carved`` takes the family's files (members and their tests) out of Leiden's
communities into one of their own (exactly what a cold run of that rule gives: Leiden saw
the same graph); ``absorbed`` also hands the family the rest of every community that is
mostly the family's. Each is measured with ``bench/change_locality.py`` on the last N
first-parent changes of 2-30 code files, against folders and random partitions of the
same sizes.

    python -m kgtool -C /path/to/repo update
    python bench/families.py /path/to/repo [/path/to/other ...] [--changes 400]
    python bench/families.py /path/to/repo --replay 120   # stability with families carved
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from change_locality import measure
from communities_stability import replay

from kgtool.communities import build
from kgtool.communities import cluster as clustering
from kgtool.communities.cluster import package_of
from kgtool.communities.families import find_families
from kgtool.communities.graph import build_file_graph
from kgtool.config import load_config
from kgtool.raw.graph import load, read_raw
from kgtool.store import Store

# Weights of the family edges tried (an inherits edge weighs 2 by default).
EDGE_WEIGHTS = (2.0, 8.0)
OTHER_SEEDS = (1, 2, 3)


def layer1(repo: Path) -> Any:
    """Layer 1 of ``repo`` as ``kgtool update`` left it, shards joined."""
    loaded = load(Store(repo))
    if loaded is None or loaded.data is None:
        raise SystemExit(f"{repo}: no layer 1; run `kgtool update` there first")
    return read_raw(loaded.data)


def document(repo: Path, seed: int | None = None) -> dict[str, Any]:
    """Layer 2 of ``repo`` computed cold, families named (``communities.families: auto``),
    with the configured Leiden seed or ``seed``."""
    raw = layer1(repo)
    config = load_config(repo)
    settings = build.clustering_settings(config)
    if seed is not None:
        settings["seed"] = seed
    graph = build_file_graph(raw, settings)
    settings = build.with_packages(settings, repo, graph.files)
    families = {**build.family_settings(config), "families": "auto"}
    found, _ = build.compute(graph, settings, {}, rebaseline=True, families=families)
    return found


def with_family_edges(repo: Path, named: dict[str, Any], weight: float) -> dict[str, Any]:
    """Layer 2 computed cold after adding an edge of ``weight`` from every file of each
    family (members and tests) to its base's file: Leiden decides what else joins them."""
    raw = layer1(repo)
    settings = named["settings"]
    graph = build_file_graph(raw, settings)
    for family in named.get("families", []):
        hub = family["base"].split("::", 1)[0]
        for path in (*family["members"], *family["tests"]):
            if path != hub and hub in graph.files:
                pair = (path, hub) if path < hub else (hub, path)
                graph.weights[pair] = round(graph.weights.get(pair, 0.0) + weight, 6)
    graph.weights = dict(sorted(graph.weights.items()))
    found, _ = build.compute(graph, settings, {}, rebaseline=True)
    return found


def carved(document: dict[str, Any]) -> dict[str, str]:
    """Families made one community each: their files taken out of Leiden's communities."""
    partition = dict(document["files"])
    for family in document.get("families", []):
        for path in (*family["members"], *family["tests"]):
            partition[path] = f"family:{family['name']}"
    return partition


def absorbed(document: dict[str, Any]) -> dict[str, str]:
    """Families made one community each, which also takes the rest of every community whose
    files are mostly the family's (the helpers Leiden placed with it)."""
    partition = carved(document)
    groups: dict[str, list[str]] = {}
    for path, community in sorted(document["files"].items()):
        groups.setdefault(community, []).append(path)
    for members in groups.values():
        votes = Counter(partition[p] for p in members if partition[p].startswith("family:"))
        others = [p for p in members if not partition[p].startswith("family:")]
        if votes:
            best = min(votes, key=lambda name: (-votes[name], name))
            if votes[best] >= len(others):
                partition.update(dict.fromkeys(others, best))
    return partition


def spread(families: list[dict[str, Any]], files: dict[str, str]) -> list[list[Any]]:
    """Per family: the communities its files are in, and the share in the fullest one."""
    found = []
    for family in families:
        held = Counter(files[p] for p in (*family["members"], *family["tests"]))
        share = max(held.values()) / sum(held.values())
        found.append([family["name"], len(held), round(share, 2)])
    return found


def as_document(partition: dict[str, str], settings: dict[str, Any]) -> dict[str, Any]:
    return {
        "files": partition,
        "communities": {group: {} for group in sorted(set(partition.values()))},
        "settings": settings,
    }


def report(repo: Path, count: int) -> dict[str, Any]:
    named = document(repo)
    options = {
        "named": named,
        "carved": as_document(carved(named), named["settings"]),
        "absorbed": as_document(absorbed(named), named["settings"]),
        **{f"edges_x{w:g}": with_family_edges(repo, named, w) for w in EDGE_WEIGHTS},
        # The noise floor: the same rules, other Leiden seeds.
        **{f"named_seed{seed}": document(repo, seed) for seed in OTHER_SEEDS},
    }
    rows = {}
    for option, partition in options.items():
        rows[option] = measure(repo, partition, count)
        rows[option]["family_spread"] = spread(named.get("families", []), partition["files"])
        rows[option]["largest_code_communities"] = rows[option].pop("code_community_sizes")[:10]
        rows[option].pop("communities_by_kind")
    families = [
        {
            "name": f["name"],
            "members": len(f["members"]),
            "tests": len(f["tests"]),
            "communities": len(f["communities"]),
        }
        for f in named.get("families", [])
    ]
    return {"repo": repo.name, "families": families, "options": rows}


def carving_cluster(graph: Any, settings: dict[str, Any], *args: Any) -> list[list[str]]:
    """``cluster`` as it would be with each family carved into one community of its own."""
    groups = ORIGINAL_CLUSTER(graph, settings, *args)
    found = find_families(
        graph,
        {"families": "auto", "family_min_size": FAMILY_MIN_SIZE},
        lambda path: package_of(path, settings["boundaries"]),
    )
    taken = {path for family in found for path in family.files}
    rest = [[path for path in group if path not in taken] for group in groups]
    units = [list(family.files) for family in found]
    return sorted((sorted(g) for g in [*rest, *units] if g), key=lambda g: g[0])


# Layer 2 imports cluster from its module when it runs: replaced there, it is what runs.
ORIGINAL_CLUSTER = clustering.cluster
FAMILY_MIN_SIZE = 4


def replay_carved(repo: Path, commits: int) -> dict[str, Any]:
    """The stability replay of ``bench/communities_stability.py`` with families carved."""
    clustering.cluster = carving_cluster
    try:
        return replay(repo, commits)
    finally:
        clustering.cluster = ORIGINAL_CLUSTER


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", type=Path, nargs="+")
    parser.add_argument("--changes", type=int, default=400)
    parser.add_argument(
        "--replay",
        type=int,
        metavar="COMMITS",
        help="instead: the stability replay over this many commits with families carved",
    )
    args = parser.parse_args()
    if args.replay:
        summaries = [replay_carved(repo.resolve(), args.replay) for repo in args.repos]
        print(json.dumps(summaries, indent=1))
        return 0
    results = [report(repo.resolve(), args.changes) for repo in args.repos]
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
