"""Call-edge accuracy against the hand-checked fixtures (scored by bench/accuracy.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "accuracy.py"
spec = importlib.util.spec_from_file_location("accuracy", BENCH)
assert spec is not None and spec.loader is not None
accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(accuracy)

FIXTURES = sorted(p for p in accuracy.FIXTURES.iterdir() if (p / accuracy.TRUTH_FILE).exists())


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.name for p in FIXTURES])
def test_extracted_calls_are_right_and_most_sites_bind(fixture: Path) -> None:
    result = accuracy.score(fixture)
    assert result["precision"].get("EXTRACTED", 0) >= 0.99, result["wrong"]
    assert result["recall_bound"] >= 0.8, result["missed"]
