"""Evidence: a snapshot of the layer-2 facts a label was written from, and how far today's
facts have moved from it.

Members are kept exactly up to ``exact_members`` files. Above that a bottom-k MinHash sketch
(the ``SKETCH_SIZE`` smallest 48-bit hashes of the member paths) stands in for them: the
Jaccard similarity it estimates has a standard error of sqrt(J(1-J)/k), at most 0.044 for
k = 128: small next to the default drift threshold (0.3), so a sketched label drifts within a
few points of where an exact one would.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kgtool.ontology.items import TypedCounts
from kgtool.ontology.model import Evidence

SKETCH_SIZE = 128
HASH_DIGITS = 12  # 48 bits: collisions among a repository's paths are negligible


def path_hash(path: str) -> int:
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()
    return int(digest[:HASH_DIGITS], 16)


def sketch(members: list[str] | tuple[str, ...]) -> tuple[int, ...]:
    return tuple(sorted(path_hash(p) for p in members)[:SKETCH_SIZE])


def community_evidence(
    members: list[str], edges_out: TypedCounts, edges_in: TypedCounts, exact_members: int
) -> Evidence:
    if len(members) <= exact_members:
        return Evidence(
            members=tuple(members), size=len(members), edges_out=edges_out, edges_in=edges_in
        )
    return Evidence(
        size=len(members), sketch=sketch(members), edges_out=edges_out, edges_in=edges_in
    )


def edge_evidence(types: TypedCounts) -> Evidence:
    return Evidence(types=types)


def jaccard(evidence: Evidence, members: list[str]) -> float:
    """Similarity of the members a label was written for and ``members`` (estimated from the
    sketch when the evidence holds one)."""
    if not evidence.sketch:
        old, new = set(evidence.members), set(members)
        union = old | new
        return len(old & new) / len(union) if union else 1.0
    current = set(path_hash(p) for p in members)
    ours = sketch(members)
    smallest = sorted(set(evidence.sketch) | set(ours))[:SKETCH_SIZE]
    kept = set(evidence.sketch)
    both = sum(1 for value in smallest if value in kept and value in current)
    return both / len(smallest) if smallest else 1.0


def weighted(counts: TypedCounts, weights: dict[str, float]) -> dict[str, float]:
    """Edge type -> its count weighted as layer 2 weighs that type (all tiers counted); a type
    layer 2 gives no weight is left out, as it is of the clustering."""
    found = {}
    for kind, tiers in counts.items():
        weight = sum(tiers.values()) * weights.get(kind, weights.get("", 1.0))
        if weight > 0:
            found[kind] = weight
    return found


def relative_change(old: dict[str, float], new: dict[str, float]) -> float:
    """Share of the weight that moved: sum of |new - old| per type over the larger total."""
    total = max(sum(old.values()), sum(new.values()))
    if not total:
        return 0.0
    moved = sum(abs(new.get(k, 0.0) - old.get(k, 0.0)) for k in set(old) | set(new))
    return moved / total


def type_changes(
    old: dict[str, float], new: dict[str, float], min_share: float, min_weight: float
) -> list[tuple[str, str, float]]:
    """Edge types that appeared or vanished, with their share of the weight where they are:
    (type, "appeared" or "vanished", share), only those holding more than ``min_share`` of it
    and at least ``min_weight`` (one call vanishing is noise, not a new relationship)."""
    found = []
    for kind in sorted(set(old) ^ set(new)):
        side, verb = (new, "appeared") if kind in new else (old, "vanished")
        share = side[kind] / sum(side.values())
        if exceeds(share, min_share) and side[kind] >= min_weight:
            found.append((kind, verb, share))
    return found


def type_weights(settings: dict[str, Any]) -> dict[str, float]:
    """Layer 2's weight per edge type; "" holds the weight of types it does not name."""
    weights = {kind: float(w) for kind, w in settings["weights"].items()}
    weights[""] = float(settings["default_weight"])
    return weights


def exceeds(value: float, threshold: float) -> bool:
    """``value > threshold`` for measures that are ratios of counts: 1 - 14/20 is
    0.30000000000000004 in floating point, and must not pass a threshold of 0.3."""
    return round(value, 9) > threshold
