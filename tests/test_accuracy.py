"""Call-edge accuracy against the hand-checked fixtures (scored by bench/accuracy.py).

The gate is per language and per tier, at the levels measured when it was set (recorded
next to each floor) minus a margin of about one call site, so that a regression of two or
three call sites fails: precision of EXTRACTED and INFERRED edges, the share of AMBIGUOUS
edges that list the right candidate, the share of true call sites bound to the right callee
(EXTRACTED or INFERRED) and the share at least listed (AMBIGUOUS candidates included).

Two sets, reported apart. Every fixture under tests/fixtures/accuracy/ was written before or
alongside the resolver code it exercises, and the resolver was then tuned until it scored well
on it: tuning fixtures, whose scores say how well kgtool does on code it was shaped by. The
fixtures under tests/fixtures/accuracy_held_out/ had their truth written by hand before kgtool
first ran on them, and were committed before they were scored: their scores say how well it
does on code it has not seen. A resolver change made for a held-out fixture makes it a
tuning fixture (move it), and a new held-out one is written, truth first.

kgtool is scored in this process, imported from this checkout: the test fails if the
interpreter imports another copy (an installed one) instead.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import kgtool

CHECKOUT = Path(__file__).resolve().parent.parent
BENCH = CHECKOUT / "bench" / "accuracy.py"
spec = importlib.util.spec_from_file_location("accuracy", BENCH)
assert spec is not None and spec.loader is not None
accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(accuracy)

FIXTURES = [
    (name, fixture)
    for name, folder in accuracy.SETS.items()
    for fixture in accuracy.fixtures_of(folder)
]

# Measured with `python bench/accuracy.py` on 2026-12-01. Truth sites: tuning go 30, java 43,
# python 27, python_dispatch 8, python_library 20, python_values 37, typescript 62; held-out
# go 40, java 48, javascript 15, python 28, typescript 59. Keys: precision per tier
# ("AMBIGUOUS" is the share of AMBIGUOUS edges listing the right candidate), then recall_bound
# and recall_listed.
MEASURED: dict[str, dict[str, float]] = {
    "tuning/go": {"EXTRACTED": 1.0, "INFERRED": 1.0, "recall_bound": 1.0, "recall_listed": 1.0},
    # 0.907 bound before Go and Java values were typed by declared results (total().format()).
    "tuning/java": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 1.0,
        "recall_listed": 1.0,
    },
    "tuning/python": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "AMBIGUOUS": 1.0,
        "recall_bound": 0.926,
        "recall_listed": 1.0,
    },
    # Functions called from a dict, list or tuple; truth written before the code (0.375 bound
    # and listed before it). A container of several functions lists them all (AMBIGUOUS).
    "tuning/python_dispatch": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "AMBIGUOUS": 1.0,
        "recall_bound": 0.625,
        "recall_listed": 1.0,
    },
    # Held out until the value-flow binding closed its gaps (a dict-typed attribute's
    # `items()` listed the repository's `items` methods; `catalog.load_all()` on an annotated
    # parameter bound by name only): 0.9 bound, AMBIGUOUS 2 of 4 right, before.
    "tuning/python_library": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 1.0,
        "recall_listed": 1.0,
    },
    # Calls bound through values; truth written before the code (0.784 bound before it).
    "tuning/python_values": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 1.0,
        "recall_listed": 1.0,
    },
    # Truth grew by the implementations an interface's or abstract member's calls reach (54 to
    # 62 sites); the code before TypeScript's value binding scored 0.839 bound, 0.855 listed.
    "tuning/typescript": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "AMBIGUOUS": 1.0,
        "recall_bound": 0.919,
        "recall_listed": 1.0,
    },
    # Go and Java values typed by declared types; truth written and committed before the code
    # ran on them. Before it: go 0.825 bound and 0.9 listed (3 AMBIGUOUS edges, all listing the
    # right callee), java 0.854 bound and 0.875 listed. Java's two misses are a lambda's
    # untyped parameter, left unresolved by design, and a call on a List element (erased).
    "held-out/go": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 1.0,
        "recall_listed": 1.0,
    },
    "held-out/java": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 0.958,
        "recall_listed": 0.958,
    },
    "held-out/javascript": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 1.0,
        "recall_listed": 1.0,
    },
    # 0.75 bound, 0.82 listed before Python values were typed; 27 of 28 after, the miss a
    # call through a dict of functions (planner.py:40), bound since the container binding,
    # which was written after that miss was seen: that one site is no longer held out.
    "held-out/python": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "recall_bound": 1.0,
        "recall_listed": 1.0,
    },
    # Calls bound through values; truth written before the code: 0.831 bound and listed
    # before it. The one site missed is a computed member (`desk[action](...)`).
    "held-out/typescript": {
        "EXTRACTED": 1.0,
        "INFERRED": 1.0,
        "AMBIGUOUS": 1.0,
        "recall_bound": 0.949,
        "recall_listed": 0.983,
    },
}
# Floors: one wrong edge in any tier fails (the smallest tier has 3 edges, the largest 36,
# so 0.95 lets only rounding through, except one wrong of TypeScript's 36 EXTRACTED edges and
# of python_values' 21); recall may lose one call site and fails at two (go: 29/30 passes,
# 28/30 fails; java: 42/43 passes, 41/43 fails, and one wrong of its 24 EXTRACTED or 20
# INFERRED edges fails; python: 24/27 passes, 23/27 fails;
# python_dispatch bound 4/8 passes, 3/8 fails, listed 7/8 passes, 6/8 fails; python_library
# 19/20 passes, 18/20 fails; python_values 36/37 passes, 35/37 fails;
# typescript: 21 INFERRED edges, so 0.96 (20/21 fails), bound 56/62 passes, 55/62 fails,
# listed 61/62 passes, 60/62 fails; held-out javascript: 14/15 passes, 13/15 fails; held-out
# python 27/28 passes, 26/28 fails; held-out typescript: 27 EXTRACTED and 29 INFERRED edges,
# so 0.97, bound 55/59 passes, 54/59 fails, listed 57/59 passes, 56/59 fails; held-out
# go 39/40 passes, 38/40 fails, one wrong of 19 EXTRACTED or 21 INFERRED fails; held-out java
# 45/48 passes, 44/48 fails, one wrong of 18 EXTRACTED or 28 INFERRED fails).
FLOORS: dict[str, dict[str, float]] = {
    "tuning/go": {"EXTRACTED": 0.95, "INFERRED": 0.95, "recall_bound": 0.96, "recall_listed": 0.96},
    "tuning/java": {
        "EXTRACTED": 0.96,
        "INFERRED": 0.96,
        "recall_bound": 0.96,
        "recall_listed": 0.96,
    },
    "tuning/python": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.95,
        "AMBIGUOUS": 0.95,
        "recall_bound": 0.88,
        "recall_listed": 0.96,
    },
    "tuning/python_dispatch": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.95,
        "AMBIGUOUS": 0.95,
        "recall_bound": 0.45,
        "recall_listed": 0.85,
    },
    "tuning/python_library": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.95,
        "recall_bound": 0.93,
        "recall_listed": 0.93,
    },
    "tuning/python_values": {
        "EXTRACTED": 0.96,
        "INFERRED": 0.95,
        "recall_bound": 0.96,
        "recall_listed": 0.96,
    },
    "tuning/typescript": {
        "EXTRACTED": 0.97,
        "INFERRED": 0.96,
        "AMBIGUOUS": 0.95,
        "recall_bound": 0.90,
        "recall_listed": 0.98,
    },
    "held-out/go": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.96,
        "recall_bound": 0.96,
        "recall_listed": 0.96,
    },
    "held-out/java": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.97,
        "recall_bound": 0.93,
        "recall_listed": 0.93,
    },
    "held-out/javascript": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.95,
        "recall_bound": 0.93,
        "recall_listed": 0.93,
    },
    "held-out/python": {
        "EXTRACTED": 0.95,
        "INFERRED": 0.95,
        "recall_bound": 0.95,
        "recall_listed": 0.95,
    },
    "held-out/typescript": {
        "EXTRACTED": 0.97,
        "INFERRED": 0.97,
        "AMBIGUOUS": 0.95,
        "recall_bound": 0.93,
        "recall_listed": 0.96,
    },
}
TIERS = ("EXTRACTED", "INFERRED", "AMBIGUOUS")


def test_the_scored_kgtool_is_this_checkout() -> None:
    assert Path(kgtool.__file__).resolve().parent == CHECKOUT / "kgtool"
    assert accuracy.scored_kgtool() == CHECKOUT / "kgtool"


def test_every_fixture_has_a_gate() -> None:
    assert sorted(f"{name}/{fixture.name}" for name, fixture in FIXTURES) == sorted(FLOORS)
    assert {name for name, _ in FIXTURES} == {"tuning", "held-out"}
    for key, floors in FLOORS.items():
        assert floors.keys() == MEASURED[key].keys(), key
        for score, floor in floors.items():
            assert floor <= MEASURED[key][score], (key, score)


@pytest.mark.parametrize(
    ("fixture_set", "fixture"), FIXTURES, ids=[f"{n}/{f.name}" for n, f in FIXTURES]
)
def test_calls_per_tier_are_right_and_sites_bind(fixture_set: str, fixture: Path) -> None:
    result = accuracy.score(fixture)
    floors = FLOORS[f"{fixture_set}/{fixture.name}"]
    scores = {**result["precision"], "recall_bound": result["recall_bound"]}
    scores["recall_listed"] = result["recall_listed"]
    for tier in TIERS:
        # A tier the fixture has must be gated, and a gated tier must not vanish (every
        # INFERRED edge turned unresolved would otherwise leave no precision to check).
        assert (tier in result["precision"]) == (tier in floors), (tier, result["edges"])
    failing = {key: scores[key] for key, floor in floors.items() if scores[key] < floor}
    assert not failing, (failing, result["wrong"], result["missed"])
