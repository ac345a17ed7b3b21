"""The pre-commit hooks, installed and run by pre-commit itself from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GIT_ENV, Repo

KGTOOL_CHECKOUT = Path(__file__).resolve().parent.parent


def try_repo(repo: Repo, hook: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_ENV,
        # One hook environment for all tests in a run: pre-commit builds it once.
        "PRE_COMMIT_HOME": str(Path(os.environ.get("KGTOOL_PRE_COMMIT_HOME", repo.root.parent))),
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(KGTOOL_CHECKOUT), hook, "--all-files"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.skipif(not (KGTOOL_CHECKOUT / ".git").exists(), reason="needs kgtool's git checkout")
def test_update_hook_fails_when_it_rewrites_then_passes(repo: Repo) -> None:
    repo.write_files({"app.py": "def main():\n    helper()\n\ndef helper():\n    pass\n"})
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


@pytest.mark.skipif(not (KGTOOL_CHECKOUT / ".git").exists(), reason="needs kgtool's git checkout")
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
    assert "warning: .kg/ontology.yaml:" in drifted.stdout and "drifted: members" in drifted.stdout
