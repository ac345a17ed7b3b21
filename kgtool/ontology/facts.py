"""From layer 2 to what a labeler sees: one ``CommunityItem`` per community, one ``EdgeItem``
per edge worth a phrase.

Everything here comes from ``communities.json`` except the docstring lines, which are read
from the main files in the working tree (the same content layer 1 mapped).
"""

from __future__ import annotations

import posixpath
from bisect import bisect_left
from collections import defaultdict
from pathlib import Path
from typing import Any

from kgtool import bounded
from kgtool.communities.identity import id_number
from kgtool.ontology.docstrings import (
    HEAD_BYTES,
    MANIFEST_BYTES,
    first_doc_line,
    is_manifest,
    manifests_below_root,
)
from kgtool.ontology.items import CommunityItem, EdgeItem, TypedCounts, edge_key

Document = dict[str, Any]
DOCSTRING_FILES = 3  # main files per community whose first doc line is read


def add_counts(total: TypedCounts, types: TypedCounts) -> None:
    for kind, tiers in types.items():
        into = total.setdefault(kind, {})
        for tier, count in tiers.items():
            into[tier] = into.get(tier, 0) + count


def sorted_counts(counts: TypedCounts) -> TypedCounts:
    return {kind: dict(sorted(tiers.items())) for kind, tiers in sorted(counts.items())}


def community_edges(document: Document) -> dict[str, tuple[TypedCounts, TypedCounts]]:
    """Community ID -> (typed counts out, typed counts in), summed over its neighbours."""
    out: dict[str, TypedCounts] = defaultdict(dict)
    into: dict[str, TypedCounts] = defaultdict(dict)
    for edge in document.get("edges", []):
        add_counts(out[edge["src"]], edge["types"])
        add_counts(into[edge["dst"]], edge["types"])
    return {
        cid: (sorted_counts(out.get(cid, {})), sorted_counts(into.get(cid, {})))
        for cid in document["communities"]
    }


def main_files(community: dict[str, Any]) -> list[str]:
    files = [path for path, _ in community.get("main_files", [])]
    return files or list(community["members"][:DOCSTRING_FILES])


def package_manifest(community: dict[str, Any]) -> str:
    """The manifest of the package a community is most of ("" when none; never the
    repository's root): its description says what the package is when its paths say little
    ("Clai: code"). The members are sorted, so a folder's are one run of them."""
    members: list[str] = community["members"]
    manifests = manifests_below_root(members)
    for manifest in sorted(manifests, key=lambda p: (p.count("/"), p)):
        folder = posixpath.dirname(manifest) + "/"
        # "/" sorts just before "0": the paths under folder/ lie between the two.
        inside = bisect_left(members, folder[:-1] + "0") - bisect_left(members, folder)
        if 2 * inside >= len(members):
            return manifest
    return ""


def described_files(community: dict[str, Any], manifest: str | None = None) -> list[str]:
    """The files whose first doc line a labeler is given: the main files, then the package's
    manifest (``package_manifest``, when not given)."""
    files = main_files(community)[:DOCSTRING_FILES]
    manifest = package_manifest(community) if manifest is None else manifest
    return [*files, manifest] if manifest and manifest not in files else files


def read_docstrings(root: Path, document: Document) -> dict[str, str]:
    """Path -> first doc line, for the main files of every community and the manifest of a
    package it is most of (unreadable: left out)."""
    found: dict[str, str] = {}
    for community in document["communities"].values():
        for path in described_files(community):
            # As layer 1 reads it: never through a symlink (to /dev/zero, or out of the tree).
            limit = MANIFEST_BYTES if is_manifest(path) else HEAD_BYTES
            head = bounded.read_tracked(root, path, limit, head=True)
            if head is None:
                continue
            line = doc_line(path, head)
            if line:
                found[path] = line
    return found


def doc_line(path: str, content: bytes) -> str:
    """The first doc line of a file's content ("" when it has none), as a labeler reads it."""
    limit = MANIFEST_BYTES if is_manifest(path) else HEAD_BYTES
    return first_doc_line(path, content[:limit].decode("utf-8", "replace"))


def community_items(
    document: Document,
    docstrings: dict[str, str],
    names: dict[str, str],
    max_paths: int,
    previous: dict[str, str] | None = None,
) -> dict[str, CommunityItem]:
    """Every community as a labeler sees it; ``names`` gives its neighbours' current names."""
    edges = community_edges(document)
    neighbours: dict[str, set[str]] = defaultdict(set)
    for edge in document.get("edges", []):
        neighbours[edge["src"]].add(edge["dst"])
        neighbours[edge["dst"]].add(edge["src"])
    families = family_bases(document)
    items = {}
    for cid, community in sorted(document["communities"].items(), key=lambda i: id_number(i[0])):
        members = list(community["members"])
        mains = main_files(community)
        manifest = package_manifest(community)
        described = described_files(community, manifest)
        out, into = edges[cid]
        items[cid] = CommunityItem(
            id=cid,
            size=len(members),
            paths=tuple(members[:max_paths]),
            main_files=tuple(mains),
            top_symbols=tuple(symbol for symbol, _ in community.get("top_symbols", [])),
            docstrings={p: docstrings[p] for p in described if p in docstrings},
            edges_out=out,
            edges_in=into,
            neighbours={
                other: names.get(other, other) for other in sorted(neighbours[cid], key=id_number)
            },
            previous_name=(previous or {}).get(cid, ""),
            family=families.get(cid, ""),
            manifest=manifest,
        )
    return items


def family_bases(document: Document) -> dict[str, str]:
    """Community ID -> the base class of the family that at least half of its files belong
    to (as members, or tests of one): what those files are, where their folder only says
    where they live ("Plugins (NotifyBase)")."""
    bases: dict[str, str] = {}
    for family in document.get("families", []):
        files = {*family.get("members", []), *family.get("tests", [])}
        base = str(family.get("base", "")).rpartition("::")[2].rpartition(".")[2]
        if base.startswith("_") or base.endswith("_"):
            continue  # "_NotifyBase" would read as emphasis, and is no name a reader uses
        for cid in family.get("communities", []):
            members = document["communities"].get(cid, {}).get("members", [])
            held = sum(path in files for path in members)
            if base and members and cid not in bases and 2 * held >= len(members):
                bases[cid] = base
    return bases


def strongest_first(edge: dict[str, Any]) -> tuple[int, int, int]:
    """How the map and the phraser rank a community's edges: most layer-1 edges first."""
    return -edge["total"], id_number(edge["src"]), id_number(edge["dst"])


def phrased_edges(document: Document, per_community: int, min_count: int) -> list[dict[str, Any]]:
    """The edges worth a phrase: each community's strongest outgoing edges, in the map's
    order, holding at least ``min_count`` layer-1 edges."""
    outgoing: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for edge in document.get("edges", []):
        if edge["total"] >= min_count:
            outgoing[edge["src"]].append(edge)
    chosen = []
    for cid in sorted(outgoing, key=id_number):
        chosen += sorted(outgoing[cid], key=strongest_first)[:per_community]
    return chosen


def edge_items(
    edges: list[dict[str, Any]], names: dict[str, str], previous: dict[str, str] | None = None
) -> list[EdgeItem]:
    return [
        EdgeItem(
            src=e["src"],
            dst=e["dst"],
            src_name=names.get(e["src"], e["src"]),
            dst_name=names.get(e["dst"], e["dst"]),
            types=sorted_counts(e["types"]),
            previous_phrase=(previous or {}).get(edge_key(e["src"], e["dst"]), ""),
        )
        for e in edges
    ]
