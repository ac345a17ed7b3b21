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
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from kgtool.raw.graph import RawGraph
from kgtool.raw.model import CONTAINS, INFERRED, Edge, FileEdge, file_edges, symbol_parts
from kgtool.store import canonical_json

INHERITS = "inherits"
STRUCTURAL = CONTAINS  # parent -> child inside one file: never an edge between files
# A missed change needs a collision on this many hex digits at both ends of an edge.
ADJACENCY_DIGITS = 12

# (src file, dst file, edge type, tier) -> number of layer-1 edges
TypedCounts = Counter[tuple[str, str, str, str]]


class FileGraph:
    __slots__ = ("ambiguous", "files", "in_degree", "inherits", "typed", "weights")

    files: list[str]  # sorted
    weights: dict[tuple[str, str], float]  # undirected, key (a, b) with a < b
    typed: TypedCounts
    # AMBIGUOUS edges as (src file, edge type, candidate files): counted only if one community
    ambiguous: list[tuple[str, str, tuple[str, ...]]]
    in_degree: Counter[str]  # symbol ID -> edges from other files
    # (file, symbol ID of a base it inherits from another file): families are read from these
    inherits: list[tuple[str, str]]

    def __init__(
        self,
        files: list[str],
        weights: dict[tuple[str, str], float],
        typed: TypedCounts | None = None,
        ambiguous: list[tuple[str, str, tuple[str, ...]]] | None = None,
        in_degree: Counter[str] | None = None,
        inherits: list[tuple[str, str]] | None = None,
    ) -> None:
        self.files = files
        self.weights = weights
        self.typed = Counter() if typed is None else typed
        self.ambiguous = [] if ambiguous is None else ambiguous
        self.in_degree = Counter() if in_degree is None else in_degree
        self.inherits = [] if inherits is None else inherits

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileGraph):
            return NotImplemented
        return (
            self.files,
            self.weights,
            self.typed,
            self.ambiguous,
            self.in_degree,
            self.inherits,
        ) == (
            other.files,
            other.weights,
            other.typed,
            other.ambiguous,
            other.in_degree,
            other.inherits,
        )

    __hash__ = None  # type: ignore[assignment]  # unhashable, as __eq__ alone makes it

    def neighbours(self) -> dict[str, dict[str, float]]:
        result: dict[str, dict[str, float]] = defaultdict(dict)
        for (a, b), weight in self.weights.items():
            result[a][b] = weight
            result[b][a] = weight
        return result

    def adjacency(self) -> dict[str, str]:
        """A short digest of each file's weighted neighbours (files with no edges left out).

        Stored in communities.json: comparing it with the next graph's says which files' edges
        changed, from the committed document alone, with no local state.
        """
        found: dict[str, str] = {}
        for path, others in sorted(self.neighbours().items()):
            text = "".join(f"{other}\0{weight:.9g}\0" for other, weight in sorted(others.items()))
            data = text.encode("utf-8", "surrogateescape")
            found[path] = hashlib.sha256(data).hexdigest()[:ADJACENCY_DIGITS]
        return found

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


def raw_file_edges(raw: RawGraph) -> dict[str, tuple[FileEdge, ...]]:
    """Layer 1's edges folded per file, exactly as layer 1 folds them for its cache."""
    by_file: dict[str, list[Edge]] = defaultdict(list)
    for record in raw.edges:
        by_file[raw.file_of(record["src"])].append(
            Edge(
                record["src"],
                record["type"],
                record.get("dst", ""),
                record.get("line", 0),
                record["tier"],
                float(record["confidence"]),
                tuple(record.get("candidates", ())),
            )
        )
    return {path: file_edges(path, by_file.get(path, ())) for path in raw.files}


def build_file_graph(raw: RawGraph, settings: dict[str, Any]) -> FileGraph:
    return file_graph(raw.files, raw_file_edges(raw), settings)


def file_graph(
    files: list[str], edges: Mapping[str, Sequence[FileEdge]], settings: dict[str, Any]
) -> FileGraph:
    """The file graph of ``files`` from their folded edges (see ``file_edges``).

    Both ways in (layer 1's cache, or layer 1 read back from disk) meet here with the same
    folded edges in the same order, so the float sums, and the digest, are the same either way.
    """
    files = sorted(files)
    known = set(files)
    weights: dict[tuple[str, str], float] = defaultdict(float)
    typed: TypedCounts = Counter()
    ambiguous: list[tuple[str, str, tuple[str, ...]]] = []
    in_degree: Counter[str] = Counter()
    inherits: set[tuple[str, str]] = set()
    share = float(settings["ambiguous_weight"])
    for src in files:
        for dst_id, kind, tier, confidence, candidates, count in edges.get(src, ()):
            if kind == STRUCTURAL:
                continue
            if not dst_id:
                targets = tuple(t for t in candidates if t in known)
                if targets:
                    ambiguous.extend([(src, kind, targets)] * count)
                    weight = edge_weight(kind, settings) * share / len(targets)
                    if weight > 0:
                        for target in targets:
                            weights[_pair(src, target)] += weight * count
                continue
            dst = dst_id if dst_id in known else symbol_parts(dst_id)[0]
            if dst not in known:
                continue
            in_degree[dst_id] += count
            if kind == INHERITS and "::" in dst_id:
                inherits.add((src, dst_id))
            weight = edge_weight(kind, settings)
            if tier == INFERRED:
                weight *= float(confidence)
            if weight > 0:
                weights[_pair(src, dst)] += weight * count
            typed[(src, dst, kind, tier)] += count
    # Rounded so that float summation order can never change the digest or the partition.
    rounded = {pair: round(w, 6) for pair, w in sorted(weights.items()) if round(w, 6) > 0}
    ambiguous.sort()
    return FileGraph(files, rounded, typed, ambiguous, in_degree, sorted(inherits))


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)
