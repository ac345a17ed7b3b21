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
