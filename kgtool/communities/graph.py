"""The file graph layer 2 clusters: layer-1 edges folded onto the files they join.

Symbols are aggregated to their files, self-loops dropped (they say nothing about which files
belong together), external packages left out (they are not files). Edges keep two views:
an undirected weight per file pair for Leiden, and directed typed tier counts per file pair
for the aggregates between communities.

AMBIGUOUS edges name several candidates and choose none. By default they carry no weight and
no count: clustering on them would cluster on name coincidences (``__init__``, ``to_json``).
With ``ambiguous_weight`` > 0 that share of the edge's weight is spread evenly over the
candidates' files. They are counted in the aggregates only when every candidate lies in one
community, because then the community-level edge is not ambiguous at all.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from kgtool.raw.graph import RawGraph
from kgtool.store import canonical_json

AMBIGUOUS = "AMBIGUOUS"
INFERRED = "INFERRED"
STRUCTURAL = "contains"  # parent -> child inside one file: never an edge between files

# (src file, dst file, edge type, tier) -> number of layer-1 edges
TypedCounts = Counter[tuple[str, str, str, str]]


@dataclass
class FileGraph:
    files: list[str]  # sorted
    weights: dict[tuple[str, str], float]  # undirected, key (a, b) with a < b
    typed: TypedCounts = field(default_factory=Counter)
    # AMBIGUOUS edges as (src file, edge type, candidate files): counted only if one community
    ambiguous: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    in_degree: Counter[str] = field(default_factory=Counter)  # symbol ID -> edges from other files

    def neighbours(self) -> dict[str, dict[str, float]]:
        result: dict[str, dict[str, float]] = defaultdict(dict)
        for (a, b), weight in self.weights.items():
            result[a][b] = weight
            result[b][a] = weight
        return result

    def digest(self, settings: dict[str, Any]) -> str:
        """What the partition depends on; equal digests mean Leiden would see the same input."""
        hasher = hashlib.sha256()
        hasher.update(canonical_json(settings).encode())
        for path in self.files:
            hasher.update(b"n" + path.encode("utf-8", "surrogateescape") + b"\0")
        for (a, b), weight in sorted(self.weights.items()):
            line = f"e{a}\0{b}\0{weight:.9g}\0"
            hasher.update(line.encode("utf-8", "surrogateescape"))
        return hasher.hexdigest()


def edge_weight(edge_type: str, settings: dict[str, Any]) -> float:
    return float(settings["weights"].get(edge_type, settings["default_weight"]))


def read_raw(text: str) -> RawGraph:
    """Only what layer 2 needs from raw.jsonl: file nodes and edges between files.

    raw.jsonl is written with one canonical JSON spelling, so symbol nodes and ``contains``
    edges (the bulk of the file) can be skipped before they are decoded.
    """
    graph = RawGraph()
    for line in text.splitlines():
        if '"rec":"edge"' in line:
            if '"type":"contains"' not in line:
                record = json.loads(line)
                if record.get("rec") == "edge":
                    graph.edges.append(record)
        elif '"kind":"file"' in line:
            record = json.loads(line)
            if record.get("rec") == "node":
                graph.nodes[record["id"]] = record
    return graph


def build_file_graph(raw: RawGraph, settings: dict[str, Any]) -> FileGraph:
    files = raw.files
    known = set(files)
    weights: dict[tuple[str, str], float] = defaultdict(float)
    typed: TypedCounts = Counter()
    ambiguous: list[tuple[str, str, tuple[str, ...]]] = []
    in_degree: Counter[str] = Counter()
    share = float(settings["ambiguous_weight"])
    for edge in raw.edges:
        kind = edge["type"]
        if kind == STRUCTURAL:
            continue
        src = raw.file_of(edge["src"])
        if src not in known:
            continue
        tier = edge.get("tier", "")
        dst_id = edge.get("dst")
        if dst_id is None:
            targets = tuple(
                sorted({raw.file_of(c) for c in edge.get("candidates", ())} & known - {src})
            )
            if targets:
                ambiguous.append((src, kind, targets))
                weight = edge_weight(kind, settings) * share / len(targets)
                if weight > 0:
                    for target in targets:
                        weights[_pair(src, target)] += weight
            continue
        dst = raw.file_of(dst_id)
        if dst not in known or dst == src:
            continue
        in_degree[dst_id] += 1
        weight = edge_weight(kind, settings)
        if tier == INFERRED:
            weight *= float(edge.get("confidence", 1.0))
        if weight > 0:
            weights[_pair(src, dst)] += weight
        typed[(src, dst, kind, tier)] += 1
    # Rounded so that float summation order can never change the digest or the partition.
    rounded = {pair: round(w, 6) for pair, w in sorted(weights.items()) if round(w, 6) > 0}
    ambiguous.sort()
    return FileGraph(files, rounded, typed, ambiguous, in_degree)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)
