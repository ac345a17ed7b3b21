"""How layer 2's typed edge counts read in words, wherever they are shown."""

from __future__ import annotations


def describe_counts(types: dict[str, dict[str, int]]) -> str:
    """``calls×32 / imports×9 (EXTRACTED 38, INFERRED 3)``"""
    kinds = count_by_type(types)
    tiers: dict[str, int] = {}
    for counts in types.values():
        for tier, count in counts.items():
            tiers[tier] = tiers.get(tier, 0) + count
    return f"{kinds} ({', '.join(f'{t} {c}' for t, c in sorted(tiers.items()))})"


def count_by_type(types: dict[str, dict[str, int]]) -> str:
    """``calls×32 / imports×9``: each type's total, the largest first; "none" for no edge."""
    by_type = sorted(types.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    return " / ".join(f"{kind}×{sum(tiers.values())}" for kind, tiers in by_type) or "none"
