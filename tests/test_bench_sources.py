"""Benchmarks find public repositories by name: a mirror under $KGTOOL_BENCH_MIRRORS when one
is there, else GitHub; no benchmark names a folder of one machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT))
from bench.sources import MIRRORS_ENV, source_of


def test_a_mirror_when_there_is_one_else_github(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MIRRORS_ENV, raising=False)
    assert source_of("caronc/apprise") == "https://github.com/caronc/apprise"
    bare = tmp_path / "caronc+apprise" / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    monkeypatch.setenv(MIRRORS_ENV, str(tmp_path))
    assert source_of("caronc/apprise") == str(bare)
    assert source_of("spf13/cobra") == "https://github.com/spf13/cobra"


def test_no_benchmark_or_recipe_names_a_machines_folder() -> None:
    machine = re.compile(r"(?<![\w.])/(work|home|Users|root)/")
    files = [*(PROJECT_ROOT / "bench").glob("*.py"), *(PROJECT_ROOT / "bench").rglob("*.yaml")]
    named = [f.name for f in files if machine.search(f.read_text())]
    assert named == []
