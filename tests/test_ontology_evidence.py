"""Layer 3's measures of how far a community or an edge moved from its label's evidence,
computed on small cases worked out by hand."""

from __future__ import annotations

from kgtool.ontology.evidence import (
    community_evidence,
    jaccard,
    relative_change,
    type_changes,
    weighted,
)
from kgtool.ontology.model import Evidence

OUT = {"calls": {"EXTRACTED": 3}}
INTO = {"imports": {"EXTRACTED": 2, "INFERRED": 1}}


def test_a_large_community_keeps_a_sketch_and_both_edge_directions() -> None:
    members = [f"pkg/m{n}.py" for n in range(5)]
    small = community_evidence(members, OUT, INTO, exact_members=5)
    assert small == Evidence(members=tuple(members), size=5, edges_out=OUT, edges_in=INTO)
    large = community_evidence(members, OUT, INTO, exact_members=4)
    assert (large.members, large.size, len(large.sketch)) == ((), 5, 5)
    assert (large.edges_out, large.edges_in) == (OUT, INTO)
    assert jaccard(large, members) == 1.0
    assert jaccard(large, [*members[:4], "pkg/new.py"]) == 4 / 6


def test_jaccard_of_exact_members_and_of_two_empty_sets() -> None:
    evidence = Evidence(members=("a.py", "b.py"), size=2)
    assert jaccard(evidence, ["b.py", "c.py"]) == 1 / 3
    assert jaccard(Evidence(), []) == 1.0  # nothing then, nothing now: no change


def test_types_are_weighted_as_layer_2_weighs_them() -> None:
    counts = {
        "calls": {"EXTRACTED": 2, "INFERRED": 1},
        "contains": {"EXTRACTED": 5},
        "uses": {"EXTRACTED": 4},
    }
    # "contains" weighs 0 and is left out; "uses" is not named and takes the default.
    assert weighted(counts, {"calls": 1.0, "contains": 0.0, "": 0.5}) == {
        "calls": 3.0,
        "uses": 2.0,
    }
    assert weighted(counts, {"calls": 2.0}) == {"calls": 6.0, "contains": 5.0, "uses": 4.0}


def test_relative_change_is_the_weight_moved_over_the_larger_total() -> None:
    # calls 6 -> 5, imports 2 -> 0, inherits 0 -> 1: 4 moved of max(8, 6).
    assert relative_change({"calls": 6, "imports": 2}, {"calls": 5, "inherits": 1}) == 0.5
    assert relative_change({}, {}) == 0.0


def test_types_that_appeared_or_vanished_with_their_share() -> None:
    old = {"calls": 1.0, "imports": 9.0}
    new = {"calls": 1.0, "inherits": 3.0}
    assert type_changes(old, new, min_share=0.2, min_weight=2) == [
        ("imports", "vanished", 0.9),
        ("inherits", "appeared", 0.75),
    ]
    # Above the share but under the weight: noise.
    assert type_changes(old, new, min_share=0.2, min_weight=4) == [("imports", "vanished", 0.9)]
