"""Settings: defaults, both file forms, one clear error for each kind of mistake, and every
mistake of a file reported at once."""

from __future__ import annotations

import multiprocessing
import time

import pytest
from conftest import Repo

from kgtool.config import DEFAULTS, RANGES, load_config
from kgtool.errors import KgError, LockTimeout
from kgtool.store import Store


def test_defaults_without_a_file(repo: Repo) -> None:
    config = load_config(repo.root)
    assert config.source == "defaults"
    assert config["exclude"] == []


def test_yaml_and_pyproject_forms(repo: Repo) -> None:
    repo.write("pyproject.toml", "[tool.kgtool]\nexclude = ['a/**']\nmax_file_bytes = 10\n")
    config = load_config(repo.root)
    assert config.source == "pyproject.toml"
    assert config["exclude"] == ["a/**"] and config["max_file_bytes"] == 10
    repo.write(".kgtool.yaml", "exclude: ['b/**']\n")
    assert load_config(repo.root)["exclude"] == ["b/**"]  # the YAML file wins


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("exclude: []\nmax_file_byte: 3\n", "K002 unknown setting 'max_file_byte'", 2),
        ("jobs: two\n", "'jobs' must be a whole number, not a string", 1),
        ("jobs: true\n", "'jobs' must be a whole number, not true or false", 1),
        ("exclude: [1]\n", "'exclude' must be a list of strings", 1),
        ("exclude: [\n", "error: K001 invalid YAML", 2),
        ("ignore: [R106, X999]\n", "K005 'ignore' names no finding code 'X999'", 1),
        ("ignore:\n  - R106\n  - r101\n", "'r101': did you mean 'R101'?", 3),
        ("ignore: [K002]\n", "'K002' is a settings error: it cannot be ignored", 1),
        ("- a\n", "the settings must be a mapping", 1),
        ("jobs: -5\n", "'jobs' must be between 0 and 1024, not -5", 1),
        ("max_file_bytes: -1\n", "'max_file_bytes' must be at least 1, not -1", 1),
        ("max_candidates: 0\n", "'max_candidates' must be at least 1, not 0", 1),
        ("communities:\n  resolution: .nan\n", "'communities.resolution' must be a finite", 2),
        ("communities:\n  resolution: 0\n", "'communities.resolution' must be positive", 2),
        ("communities:\n  seed: 99999999999\n", "'communities.seed' must be between 0 and", 2),
        ("communities:\n  weights: {calls: -1}\n", "'communities.weights.calls' must be at", 2),
        ("ontology:\n  timeout: .inf\n", "'ontology.timeout' must be a finite number", 2),
    ],
)
def test_mistakes_name_the_file_and_line(repo: Repo, text: str, message: str, line: int) -> None:
    repo.write(".kgtool.yaml", text)
    with pytest.raises(KgError) as caught:
        load_config(repo.root)
    assert message in str(caught.value)
    assert str(caught.value).startswith(f".kgtool.yaml:{line}:")


def test_bad_setting_in_pyproject_names_its_line(repo: Repo) -> None:
    repo.write("pyproject.toml", "[project]\nname = 'x'\n\n[tool.kgtool]\njobs = 'many'\n")
    with pytest.raises(
        KgError, match=r"^pyproject.toml:5: error: K003 'jobs' must be a whole number"
    ):
        load_config(repo.root)


def test_cli_reports_config_error_without_traceback(repo: Repo) -> None:
    repo.write(".kgtool.yaml", "nonsense: 1\n")
    result = repo.kg("update")
    assert result.code == 2
    assert result.err.startswith(".kgtool.yaml:1: error: K002 unknown setting 'nonsense'")
    assert "Traceback" not in result.err


def test_every_config_error_is_reported_at_once_with_did_you_mean(repo: Repo) -> None:
    repo.write(
        ".kgtool.yaml",
        """\
        max_file_byte: 10
        jobs: -5
        communities:
          resolutoin: 2.0
          seed: many
        ignore: [L301, Q123]
        """,
    )
    result = repo.kg("check")
    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == [
        ".kgtool.yaml:1: error: K002 unknown setting 'max_file_byte': "
        "did you mean 'max_file_bytes'?",
        ".kgtool.yaml:2: error: K004 'jobs' must be between 0 and 1024, not -5",
        ".kgtool.yaml:4: error: K002 unknown setting 'communities.resolutoin': "
        "did you mean 'resolution'?",
        ".kgtool.yaml:5: error: K003 'communities.seed' must be a whole number, not a string",
        ".kgtool.yaml:6: error: K005 'ignore' names no finding code 'Q123' "
        "(docs/findings.md lists them)",
    ]


def test_every_pyproject_error_is_reported_at_once(repo: Repo) -> None:
    repo.write(
        "pyproject.toml",
        "[tool.kgtool]\njbos = 2\nmax_candidates = 0\n\n[tool.kgtool.ontology]\nmodle = 'x'\n",
    )
    result = repo.kg("update")
    assert result.code == 2
    assert result.err.splitlines() == [
        "pyproject.toml:2: error: K002 unknown setting 'jbos': did you mean 'jobs'?",
        "pyproject.toml:3: error: K004 'max_candidates' must be at least 1, not 0",
        "pyproject.toml:6: error: K002 unknown setting 'ontology.modle': did you mean 'model'?",
    ]


def _hold_lock(root: str, ready: multiprocessing.synchronize.Event) -> None:
    from pathlib import Path

    with Store(Path(root)).lock():
        ready.set()
        time.sleep(3)


@pytest.mark.slow
def test_second_run_waits_then_gives_up_clearly(repo: Repo) -> None:
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    holder = context.Process(target=_hold_lock, args=(str(repo.root), ready))
    holder.start()
    try:
        assert ready.wait(10)
        started = time.monotonic()
        busy = r"another kgtool run \(pid \d+\) holds .*kgtool\.lock"
        with pytest.raises(LockTimeout, match=busy), Store(repo.root).lock(timeout=0.3):
            pass
        assert time.monotonic() - started >= 0.3
    finally:
        holder.join()
    with Store(repo.root).lock(timeout=0.3):  # free again once the holder is done
        pass


def test_every_number_has_a_range_and_every_range_a_setting() -> None:
    def numbers(section: dict, prefix: str = "") -> list[str]:
        found = []
        for key, value in section.items():
            if isinstance(value, dict):
                found += numbers(value, f"{prefix}{key}.")
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                found.append(f"{prefix}{key}")
        return found

    settings = numbers(DEFAULTS)
    ranged = {name: name.rpartition(".")[0] + ".*" for name in settings}
    # A number with no range would take any value, negative or huge, without a word.
    assert [n for n, wild in ranged.items() if n not in RANGES and wild not in RANGES] == []
    assert sorted(set(RANGES) - set(ranged) - set(ranged.values())) == []
