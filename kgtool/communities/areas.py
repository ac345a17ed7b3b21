"""Areas: the level above communities, so that neither level of the map has hundreds of rows.

An area is a group of code communities inside one package (see ``package_of``), or of several
packages of a file or two under one folder (``examples/*``): a package
with at most ``SMALL_PACKAGE`` code communities is one area, and a larger one (or a repository
with one package) is cut by Leiden on the community graph — communities as vertices, the typed
layer-1 edges between them summed with the configured type weights, at ``AREA_RESOLUTION``.
A monorepo's areas are therefore its packages, and a one-package repository with a few dozen
communities gets a handful of areas of a handful of communities each. Communities with no edge
to another community of their package join the area holding most of their folder's files.

Docs and data communities belong to no area: the map folds them into one section of their
own, and fixture churn then never moves an area.

Area identity follows the community rules (``assign_ids``, with the prefix "A" and a counter
of its own): a warm start from the committed areas, where a community that keeps its ID keeps
its area and only new communities (or those that changed package) are placed; IDs matched by
the Jaccard overlap of the areas' code files, never reused; ``split_from`` and
``retired_areas[…].merged_into`` as lineage.
Matching over files rather than community IDs means a community that splits inside an area
does not count as the area changing.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from kgtool.communities.cluster import _leiden, package_of
from kgtool.communities.graph import edge_weight
from kgtool.communities.identity import assign_ids, id_number
from kgtool.communities.packages import is_code
from kgtool.file_kinds import is_test
from kgtool.raw.model import AMBIGUOUS

AREA_PREFIX = "A"
SMALL_PACKAGE = 12  # a package with at most this many code communities is one area
TINY_PACKAGE = 2  # packages of at most this many code files under one folder share an area
AREA_RESOLUTION = 1.0  # modularity on the community graph: areas of a handful of communities
CODE = "code"

Document = dict[str, Any]


def community_weights(document: Document, code: dict[str, str]) -> dict[tuple[str, str], float]:
    """Undirected weights between code communities of one package, from the typed edges.

    ``code`` maps each code community to its package. AMBIGUOUS counts carry no weight, as in
    the file graph; the rest weigh their type's configured weight.
    """
    settings = document["settings"]
    weights: dict[tuple[str, str], float] = defaultdict(float)
    for edge in document["edges"]:
        a, b = edge["src"], edge["dst"]
        if a not in code or b not in code or code[a] != code[b]:
            continue
        weight = sum(
            edge_weight(kind, settings) * count
            for kind, tiers in edge["types"].items()
            for tier, count in tiers.items()
            if tier != AMBIGUOUS
        )
        pair = (a, b) if id_number(a) < id_number(b) else (b, a)
        weights[pair] += weight
    return {pair: round(w, 6) for pair, w in sorted(weights.items()) if round(w, 6) > 0}


def _packages(document: Document) -> dict[str, str]:
    """Each code community's package (a community never spans two)."""
    boundaries = document["settings"].get("boundaries", [])
    return {
        cid: package_of(community["members"][0], boundaries)
        for cid, community in document["communities"].items()
        if community.get("kind", CODE) == CODE
    }


def _old_labels(previous: Document, document: Document) -> dict[str, str]:
    """Each community's area in ``previous``: the area most of its files were in."""
    old_areas = previous.get("areas", {})
    old_communities = previous.get("communities", {})
    area_of_file = {
        path: aid
        for aid, area in old_areas.items()
        for cid in area["communities"]
        for path in old_communities.get(cid, {}).get("members", [])
    }
    labels = {}
    for cid, community in document["communities"].items():
        votes = Counter(area_of_file[p] for p in community["members"] if p in area_of_file)
        if votes:
            labels[cid] = min(votes, key=lambda aid: (-votes[aid], id_number(aid)))
    return labels


def _free(previous: Document, packages: dict[str, str], labels: dict[str, str]) -> set[str]:
    """Communities to place: new IDs, those that changed package, those with no old area.

    A community that keeps its ID is the same community (the matching says so), so it keeps
    its area: a file added to it never moves a hundred files to another area.
    """
    old = previous.get("communities", {})
    old_packages = _packages(previous) if old else {}
    return {
        cid
        for cid in packages
        if cid not in old or old_packages.get(cid) != packages[cid] or cid not in labels
    }


def group_communities(
    document: Document,
    previous: Document,
    rebaseline: bool = False,
    origins: dict[str, str] | None = None,
) -> list[list[str]]:
    """The areas as lists of community IDs (each sorted by ID number; the list by first file).

    Warm (a previous document with areas): each package keeps its committed areas and only
    the free communities (``_free``) are placed, beside most of their files' old area or else
    with the area they are most coupled to (``_join``). Leiden runs only for a package with no
    committed area (the first run, a new package, ``--rebaseline``), over units: the parts
    cut from one community this run (``origins``: community ID -> the first file of the
    community it was cut from) are one unit, counted as one against ``SMALL_PACKAGE``, so a
    large package's cut leaves its areas as they were.
    """
    packages = _packages(document)
    communities = document["communities"]
    labels = {} if rebaseline else _old_labels(previous, document)
    free = _free(previous, packages, labels)
    weights = community_weights(document, packages)
    by_package: dict[str, list[str]] = defaultdict(list)
    for cid in sorted(packages, key=id_number):
        by_package[packages[cid]].append(cid)
    settings = {"resolution": AREA_RESOLUTION, "seed": int(document["settings"]["seed"])}
    found: list[list[str]] = []
    # Packages of a file or two under one folder (examples/*) are one area, not one each.
    shared = _tiny_packages(by_package, communities)
    for group in shared.values():
        found.append(sorted((cid for name in group for cid in by_package[name]), key=id_number))
    for name in sorted(by_package):
        members = by_package[name]
        if any(name in group for group in shared.values()):
            continue
        units = _units(members, origins or {})
        if len(units) <= SMALL_PACKAGE:
            found.append(members)
            continue
        kept: dict[str, list[str]] = defaultdict(list)
        for cid in members:
            if cid not in free:
                kept[labels[cid]].append(cid)
        if kept:
            groups = [kept[label] for label in sorted(kept, key=id_number)]
            index = {label: number for number, label in enumerate(sorted(kept, key=id_number))}
            for cid in members:
                if cid in free:
                    _join(cid, groups, weights, communities, index.get(labels.get(cid, "")))
            found.extend(groups)
            continue
        unit_of = {cid: key for key, cids in units.items() for cid in cids}
        inside: dict[tuple[str, str], float] = defaultdict(float)
        for (a, b), weight in weights.items():
            if packages[a] == name and unit_of[a] != unit_of[b]:
                pair = sorted((unit_of[a], unit_of[b]), key=id_number)
                inside[(pair[0], pair[1])] += weight
        whole = {key: {"members": _files(cids, communities)} for key, cids in units.items()}
        connected = sorted({key for pair in inside for key in pair}, key=id_number)
        groups = _split(connected, dict(inside), settings, whole)
        isolated = [key for key in sorted(units, key=id_number) if key not in connected]
        if not groups:
            groups = [isolated]
        else:
            for key in isolated:
                _join(key, groups, dict(inside), whole, None)
        found.extend([cid for key in group for cid in units[key]] for group in groups)
    return _ordered(found, communities)


def _units(members: list[str], origins: dict[str, str]) -> dict[str, list[str]]:
    """``members`` (sorted by ID number) by the community they were cut from (``origins``),
    each unit keyed by its first community ID; a community not cut this run is a unit of its
    own."""
    units: dict[str, list[str]] = {}
    first: dict[tuple[str, str], str] = {}
    for cid in members:
        origin = ("cut from", origins[cid]) if cid in origins else ("itself", cid)
        key = first.setdefault(origin, cid)
        units.setdefault(key, []).append(cid)
    return units


def _files(cids: list[str], communities: dict[str, Any]) -> list[str]:
    return sorted(path for cid in cids for path in communities[cid]["members"])


def _tiny_packages(
    by_package: dict[str, list[str]], communities: dict[str, Any]
) -> dict[str, list[str]]:
    """Packages of at most TINY_PACKAGE code files, by the folder holding them, where two or
    more share one. Code files only: a small package's community holds its setup too (see
    ``cluster.SMALL_PACKAGE``)."""
    by_parent: dict[str, list[str]] = defaultdict(list)
    for name in sorted(by_package):
        size = sum(map(is_code, _files(by_package[name], communities)))
        if "/" in name and size <= TINY_PACKAGE:  # not the top: "" is outside packages
            by_parent[posixpath.dirname(name)].append(name)
    return {parent: names for parent, names in by_parent.items() if len(names) >= 2}


def _split(
    members: list[str],
    weights: dict[tuple[str, str], float],
    settings: dict[str, Any],
    communities: dict[str, Any],
) -> list[list[str]]:
    """Leiden on the graph of ``members``, then again inside every group still larger than
    ``SMALL_PACKAGE`` (modularity on a hub-and-spokes graph keeps most of it in one group; on
    that group alone, its own structure shows); a group Leiden leaves whole is cut by folder
    (``_split_by_folder``)."""
    inside = {pair: w for pair, w in weights.items() if pair[0] in members and pair[1] in members}
    neighbours: dict[str, dict[str, float]] = defaultdict(dict)
    for (a, b), weight in inside.items():
        neighbours[a][b] = weight
        neighbours[b][a] = weight
    groups, _ = _leiden(members, inside, settings, {}, neighbours)
    if len(groups) <= 1:
        return _split_by_folder(groups[0], communities) if groups else []
    found: list[list[str]] = []
    for group in groups:
        ordered = sorted(group, key=id_number)
        if len(ordered) > SMALL_PACKAGE:
            found.extend(_split(ordered, weights, settings, communities))
        else:
            found.append(ordered)
    return found


def home_folder(members: list[str]) -> str:
    """The folder holding most of a community's code files, tests counted only when it has
    nothing else (a plugin and its test live with the plugins)."""
    chosen = [p for p in members if not is_test(p)] or members
    counts = Counter(posixpath.dirname(p) for p in chosen)
    return min(counts, key=lambda folder: (-counts[folder], folder))


def _split_by_folder(group: list[str], communities: dict[str, Any]) -> list[list[str]]:
    """A group Leiden cannot cut (a hub and its spokes: a base class and its plugins), cut one
    folder level below what its communities' home folders share."""
    homes = {cid: home_folder(communities[cid]["members"]) for cid in group}
    shared = posixpath.commonpath(list(homes.values())) if homes else ""
    depth = len(shared.split("/")) + 1 if shared else 1
    by_folder: dict[str, list[str]] = defaultdict(list)
    for cid in sorted(group, key=id_number):
        by_folder["/".join(homes[cid].split("/")[:depth])].append(cid)
    return [by_folder[folder] for folder in sorted(by_folder)]


def _ordered(groups: list[list[str]], communities: dict[str, Any]) -> list[list[str]]:
    ordered = [sorted(group, key=id_number) for group in groups if group]
    return sorted(ordered, key=lambda group: _first_file(group, communities))


def _first_file(group: list[str], communities: dict[str, Any]) -> str:
    first: str = min(communities[cid]["members"][0] for cid in group)
    return first


def _join(
    cid: str,
    groups: list[list[str]],
    weights: dict[tuple[str, str], float],
    communities: dict[str, Any],
    preferred: int | None,
) -> None:
    """Put one community into ``groups`` (all of its package): the ``preferred`` group (where
    most of its files were), else the group it has most edge weight with, else the group with
    most code files right in its home folder (see ``home_folder``), or in the nearest folder
    above that has any: a package's ``__init__`` or version file goes with the package's own
    top-level modules, not with the largest subtree."""
    if preferred is None:
        where = {other: number for number, group in enumerate(groups) for other in group}
        tally: dict[int, float] = defaultdict(float)
        for (a, b), weight in weights.items():
            if a == cid and b in where:
                tally[where[b]] += weight
            elif b == cid and a in where:
                tally[where[a]] += weight
        votes: Mapping[int, float] = tally
        if not votes:
            folders: dict[str, Counter[int]] = defaultdict(Counter)
            for number, group in enumerate(groups):
                for other in group:
                    for path in communities[other]["members"]:
                        folders[posixpath.dirname(path)][number] += 1
            folder = home_folder(communities[cid]["members"])
            while not folders.get(folder) and folder:
                folder = posixpath.dirname(folder)
            votes = folders.get(folder, Counter())
        preferred = min(votes, key=lambda n: (-votes[n], n)) if votes else 0
    groups[preferred].append(cid)


def form_areas(
    document: Document,
    previous: Document,
    rebaseline: bool = False,
    origins: dict[str, str] | None = None,
) -> None:
    """Add the areas to ``document``: ``areas``, ``next_area_id``, ``retired_areas``, and each
    code community's ``area`` (``origins``: see ``group_communities``)."""
    communities = document["communities"]
    groups = group_communities(document, previous, rebaseline, origins)
    files_of = {tuple(group): _files(group, communities) for group in groups}
    group_of_files = {files[0]: list(group) for group, files in files_of.items() if files}
    old_communities = previous.get("communities", {})
    old_areas: dict[str, list[str]] = {
        aid: sorted(p for cid in area["communities"] for p in members_of(old_communities, cid))
        for aid, area in previous.get("areas", {}).items()
    }
    retired: dict[str, dict[str, str]] = dict(previous.get("retired_areas", {}))
    known = [*old_areas, *retired]
    next_id = max([int(previous.get("next_area_id", 1)), *(id_number(a) + 1 for a in known)])
    min_overlap = float(document["settings"]["min_overlap"])
    identity = assign_ids(list(files_of.values()), old_areas, next_id, min_overlap, AREA_PREFIX)
    for aid in identity.retired:
        heir = identity.merged_into.get(aid)
        retired[aid] = {"merged_into": heir} if heir else {}
    lineage = {aid: area.get("split_from") for aid, area in previous.get("areas", {}).items()}
    lineage.update(identity.split_from)
    boundaries = document["settings"].get("boundaries", [])
    areas: dict[str, Any] = {}
    for aid, files in identity.ids.items():
        members = group_of_files[files[0]]
        # An area of several tiny packages is placed at the folder that holds them.
        packages = {package_of(communities[cid]["members"][0], boundaries) for cid in members}
        place = packages.pop() if len(packages) == 1 else posixpath.commonpath(sorted(packages))
        entry: dict[str, Any] = {"communities": members, "size": len(files), "package": place}
        if lineage.get(aid):
            entry["split_from"] = lineage[aid]
        areas[aid] = entry
        for cid in members:
            communities[cid]["area"] = aid
    document["areas"] = areas
    document["next_area_id"] = identity.next_id
    document["retired_areas"] = retired


def members_of(communities: dict[str, Any], cid: str) -> list[str]:
    return list(communities.get(cid, {}).get("members", []))


def areas_note(previous: Document, document: Document) -> str:
    """What a map without areas gained (said once, by the update that adds them)."""
    if not previous.get("communities") or "areas" in previous or "areas" not in document:
        return ""
    code = sum(len(area["communities"]) for area in document["areas"].values())
    return f"areas: {len(document['areas'])} areas formed over {code} code communities"
