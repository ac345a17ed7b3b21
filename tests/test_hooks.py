"""The pre-commit hooks, installed and run by pre-commit itself from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GIT_ENV, Repo
from hook_helpers import APP, committed_kg_is_fresh, mapped_repo, partially_stage, symbols

KGTOOL_CHECKOUT = Path(__file__).resolve().parent.parent
NEEDS_CHECKOUT = pytest.mark.skipif(
    not (KGTOOL_CHECKOUT / ".git").exists(), reason="needs kgtool's git checkout"
)


def try_repo(repo: Repo, hook: str, all_files: bool = True) -> subprocess.CompletedProcess[str]:
    """pre-commit runs ``hook`` from this checkout; without ``all_files`` it runs as on a
    commit, stashing unstaged changes first."""
    env = {
        **os.environ,
        **GIT_ENV,
        # One hook environment for all tests in a run: pre-commit builds it once.
        "PRE_COMMIT_HOME": str(Path(os.environ.get("KGTOOL_PRE_COMMIT_HOME", repo.root.parent))),
    }
    return subprocess.run(
        [
            *(sys.executable, "-m", "pre_commit", "try-repo", str(KGTOOL_CHECKOUT), hook),
            *(["--all-files"] if all_files else []),
        ],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@NEEDS_CHECKOUT
def test_update_hook_fails_when_it_rewrites_then_passes(repo: Repo) -> None:
    repo.write_files({"app.py": APP})
    repo.commit()
    first = try_repo(repo, "kgtool-update")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "kgtool rewrote .kg/" in first.stdout
    assert (repo.root / ".kg" / "raw.jsonl").exists()
    repo.commit("graph")
    second = try_repo(repo, "kgtool-update")
    assert second.returncode == 0, second.stdout + second.stderr
    check = try_repo(repo, "kgtool-check")
    assert check.returncode == 0, check.stdout + check.stderr
    repo.write("app.py", "def main():\n    pass\n")
    repo.git("add", "app.py")
    stale = try_repo(repo, "kgtool-check")
    assert stale.returncode == 1
    assert "out of date" in stale.stdout


@NEEDS_CHECKOUT
def test_check_hook_shows_drifted_labels_without_blocking(repo: Repo) -> None:
    package = {f"pkg/m{i}.py": f"from pkg.m0 import f0\ndef f{i}():\n    f0()\n" for i in range(4)}
    repo.write_files({**package, "other/x.py": "def x():\n    pass\n"})
    repo.commit()
    assert repo.kg("label", "--offline").code == 0
    repo.commit("labels")
    clean = try_repo(repo, "kgtool-check")
    assert clean.returncode == 0 and "drifted" not in clean.stdout, clean.stdout
    repo.write_files({f"pkg/n{i}.py": "from pkg.m0 import f0\nf0()\n" for i in range(6)})
    repo.commit("pkg grows")
    assert repo.kg("update").code == 0
    repo.commit("map")
    drifted = try_repo(repo, "kgtool-check")
    assert drifted.returncode == 0, drifted.stdout
    assert ".kg/ontology.yaml:" in drifted.stdout and ": warning: L301 label " in drifted.stdout
    assert "drifted: members" in drifted.stdout


@NEEDS_CHECKOUT
def test_one_process_hook_fails_when_it_rewrites_then_passes_quietly(repo: Repo) -> None:
    repo.write_files({"app.py": APP})
    repo.commit()
    first = try_repo(repo, "kgtool-update-check")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "kgtool rewrote .kg/ (.kg/.gitignore, .kg/MAP.md, .kg/communities.json and" in (
        first.stdout
    )
    repo.commit("graph")
    second = try_repo(repo, "kgtool-update-check")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "kgtool" not in second.stdout.split("Passed", 1)[1].replace("- hook id: kgtool", "")


@NEEDS_CHECKOUT
def test_stage_hook_commits_in_one_step(repo: Repo) -> None:
    repo.write_files({"app.py": APP})
    repo.commit()
    staged = try_repo(repo, "kgtool-update-stage")
    assert staged.returncode == 0, staged.stdout + staged.stderr
    assert ".kg/raw.jsonl" in repo.git("diff", "--cached", "--name-only")
    assert repo.git("status", "--porcelain", "--", ".kg").startswith("A  .kg/")
    repo.git("commit", "-q", "-m", "graph")
    assert committed_kg_is_fresh(repo)


@NEEDS_CHECKOUT
@pytest.mark.parametrize("hook", ["kgtool-update-check", "kgtool-update-stage"])
def test_framework_maps_the_staged_content_of_a_partially_staged_file(
    repo: Repo, hook: str
) -> None:
    mapped_repo(repo)
    partially_stage(repo)
    run = try_repo(repo, hook, all_files=False)
    if hook == "kgtool-update-check":  # review mode: rewritten, not staged
        assert run.returncode == 1, run.stdout + run.stderr
        assert "kgtool rewrote .kg/ (.kg/raw.jsonl)" in run.stdout
        repo.git("add", ".kg")
        assert try_repo(repo, hook, all_files=False).returncode == 0
    else:
        assert run.returncode == 0, run.stdout + run.stderr
    repo.git("commit", "-q", "-m", "add f")
    assert symbols(repo.git("show", "HEAD:.kg/raw.jsonl")) == {"main", "helper", "f"}
    assert committed_kg_is_fresh(repo)
    assert "def g()" in (repo.root / "app.py").read_text()  # pre-commit gave it back
