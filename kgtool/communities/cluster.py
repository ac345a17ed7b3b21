"""Leiden over the file graph: deterministic, warm-started, iterated to a fixpoint.

Determinism needs three things: the same vertex order (files sorted), the same edge order
(pairs sorted), and a fixed seed. Stability needs one more: the committed partition as the
starting point, so Leiden only moves what the change gave it a reason to move. leidenalg's
``find_partition`` always starts from singletons, so the ``Optimiser`` is driven directly.

Each package (a ``boundaries`` match) is clustered on its own, with the edges that cross
packages removed, so no community can span two. Files with no edges at all are not clustered:
a file joins the community most of its connected directory siblings are in, or else a group of
files along its directory tree (see ``_group_loose``), instead of becoming hundreds of singletons.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from typing import Any

from kgtool.communities.graph import FileGraph
from kgtool.raw.build import glob_regex

MIN_LOOSE_GROUP = 10
MIN_COMPONENT = 3  # smaller connected components are grouped by directory, not clustered
MAX_ROUNDS = 50  # a fixpoint comes in a handful; this only bounds a pathological oscillation

Groups = list[list[str]]  # each group sorted; the list in order of first member


def package_of(path: str, boundaries: list[str]) -> str:
    """The package root a path belongs to ("" outside every boundary)."""
    parts = path.split("/")
    # Shallowest first: a boundary glob also matches everything under the root it names.
    for depth in range(1, len(parts)):
        prefix = "/".join(parts[:depth])
        if any(glob_regex(pattern).match(prefix) for pattern in boundaries):
            return prefix
    return ""


def cluster(
    graph: FileGraph,
    settings: dict[str, Any],
    previous: dict[str, str] | None = None,
) -> Groups:
    """Partition every file; ``previous`` (file -> old community ID) warm-starts Leiden."""
    boundaries = list(settings["boundaries"])
    package = {path: package_of(path, boundaries) for path in graph.files}
    neighbours = graph.neighbours()
    # Loose files are grouped up to a share of the repository, but never in tiny groups.
    limit = max(MIN_LOOSE_GROUP, int(len(graph.files) * float(settings["loose_group_share"])))
    groups: Groups = []
    by_package: dict[str, list[str]] = defaultdict(list)
    for path in graph.files:
        by_package[package[path]].append(path)
    for name in sorted(by_package):
        members = by_package[name]
        inside = set(members)
        edges = {
            pair: weight
            for pair, weight in graph.weights.items()
            if pair[0] in inside and pair[1] in inside
        }
        small = _small_components(edges, MIN_COMPONENT)
        edges = {pair: w for pair, w in edges.items() if pair[0] not in small}
        # A pair of example files linked only to each other is placed like a loose file.
        connected = sorted({path for pair in edges for path in pair})
        clustered = _leiden(connected, edges, settings, previous or {}, neighbours)
        placed = set(connected)
        loose = [path for path in members if path not in placed]
        # Loose files join ``clustered`` in place, or come back as directory groups.
        directory_groups = _group_loose(loose, clustered, limit, name)
        groups.extend(clustered)
        groups.extend(directory_groups)
    return sorted((sorted(g) for g in groups if g), key=lambda g: g[0])


def _leiden(
    files: list[str],
    weights: dict[tuple[str, str], float],
    settings: dict[str, Any],
    previous: dict[str, str],
    neighbours: dict[str, dict[str, float]],
) -> Groups:
    if not files:
        return []
    # Imported here: they cost a tenth of a second, and most updates never re-cluster.
    import igraph
    import leidenalg

    index = {path: i for i, path in enumerate(files)}
    pairs = sorted(weights)
    graph = igraph.Graph(n=len(files), edges=[(index[a], index[b]) for a, b in pairs])
    graph.es["weight"] = [weights[pair] for pair in pairs]
    membership = initial_membership(files, previous, neighbours)
    partition = leidenalg.RBConfigurationVertexPartition(
        graph,
        weights="weight",
        initial_membership=membership,
        resolution_parameter=float(settings["resolution"]),
    )
    optimiser = leidenalg.Optimiser()
    optimiser.set_rng_seed(int(settings["seed"]))
    for _ in range(MAX_ROUNDS):
        if optimiser.optimise_partition(partition, n_iterations=-1) <= 0:
            break
    found: dict[int, list[str]] = defaultdict(list)
    for path, community in zip(files, partition.membership, strict=True):
        found[community].append(path)
    return list(found.values())


def initial_membership(
    files: list[str], previous: dict[str, str], neighbours: dict[str, dict[str, float]]
) -> list[int] | None:
    """Old community per file; a new file starts with its neighbours, or its directory."""
    if not any(path in previous for path in files):
        return None  # a cold start: Leiden's own singletons
    labels: dict[str, str] = {path: previous[path] for path in files if path in previous}
    in_directory: dict[str, Counter[str]] = defaultdict(Counter)
    for path, label in labels.items():
        in_directory[posixpath.dirname(path)][label] += 1
    # New files in path order, each seeing the ones placed before it: deterministic.
    for path in files:
        if path in labels:
            continue
        votes: Counter[str] = Counter()
        for other, weight in neighbours.get(path, {}).items():
            if other in labels:
                votes[labels[other]] += weight
        if not votes:
            votes = in_directory.get(posixpath.dirname(path), Counter())
        if votes:
            labels[path] = min(votes, key=lambda label: (-votes[label], _id_key(label)))
        else:
            labels[path] = f"new:{path}"
        in_directory[posixpath.dirname(path)][labels[path]] += 1
    numbering: dict[str, int] = {}
    for label in sorted(set(labels.values()), key=_id_key):
        numbering[label] = len(numbering)
    return [numbering[labels[path]] for path in files]


def _id_key(label: str) -> tuple[int, str]:
    digits = label[1:]
    return (int(digits), "") if label.startswith("c") and digits.isdigit() else (1 << 62, label)


def _group_loose(loose: list[str], clustered: Groups, limit: int, package: str) -> Groups:
    """Place files with no edges: beside their connected siblings, or in directory groups.

    A loose file joins the community most of its directory's connected files are in, when
    those are at least as many as the loose ones (a data file in a code folder). The rest are
    grouped along the directory tree: a folder whose loose files number at most ``limit``
    becomes one group with everything under it; a larger one keeps its own files as a group
    and hands its subfolders on. Documentation trees become a few groups, not one blob and
    not hundreds of singletons.
    """
    home: dict[str, Counter[int]] = defaultdict(Counter)
    for number, group in enumerate(clustered):
        for path in group:
            home[posixpath.dirname(path)][number] += 1
    loose_count = Counter(posixpath.dirname(path) for path in loose)
    rest: list[str] = []
    for path in loose:
        directory = posixpath.dirname(path)
        votes = home.get(directory)
        if votes and sum(votes.values()) >= loose_count[directory]:
            best = min(votes, key=lambda number: (-votes[number], number))
            clustered[best].append(path)
        else:
            rest.append(path)
    return _split_tree(rest, package, limit)


def _small_components(edges: dict[tuple[str, str], float], minimum: int) -> set[str]:
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in edges:
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)
    sizes = Counter(find(node) for node in parent)
    return {node for node in parent if sizes[find(node)] < minimum}


def _split_tree(paths: list[str], directory: str, limit: int) -> Groups:
    if not paths:
        return []
    if len(paths) <= limit:
        return [paths]
    prefix = f"{directory}/" if directory else ""
    own = [p for p in paths if posixpath.dirname(p) == directory]
    children: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if path not in own:
            children[prefix + path[len(prefix) :].split("/", 1)[0]].append(path)
    groups: Groups = []
    for child in sorted(children):
        # A small subfolder stays with its parent's files rather than standing alone.
        if len(children[child]) < MIN_LOOSE_GROUP:
            own.extend(children[child])
        else:
            groups.extend(_split_tree(children[child], child, limit))
    return [own, *groups] if own else groups
