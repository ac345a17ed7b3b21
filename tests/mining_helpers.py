"""Scripted histories for the miner: commits with chosen authors and dates."""

from __future__ import annotations

import os
import subprocess

from conftest import GIT_ENV, Repo

from kgtool.mining.history import ChangeSet, FileChange
from kgtool.mining.patterns import Task

DAY = 24 * 3600
START = 1_767_225_600  # 2026-01-01T00:00:00Z


def commit_at(
    repo: Repo,
    message: str,
    hours: float,
    author: str = "Ada Lovelace <ada@example.com>",
) -> str:
    """Commit everything, authored ``hours`` after START by ``author``; the commit id."""
    repo.git("add", "-A")
    return _commit_at(repo, hours, "--allow-empty", f"--author={author}", "-m", message)


def merge_at(repo: Repo, branch: str, subject: str, title: str, hours: float) -> str:
    """A --no-ff merge of ``branch`` as GitHub writes one: the title as the body."""
    repo.git("merge", "-q", "--no-ff", "--no-commit", branch)
    return _commit_at(repo, hours, "-m", subject, "-m", title)


def _commit_at(repo: Repo, hours: float, *args: str) -> str:
    """``git commit`` authored and committed ``hours`` after START (``--since`` reads the
    committer's date)."""
    when = f"@{int(START + hours * 3600)} +0000"
    env = {**os.environ, **GIT_ENV, "HOME": str(repo.root.parent), "GIT_COMMITTER_DATE": when}
    subprocess.run(
        ["git", "commit", "-q", f"--date={when}", *args],
        cwd=repo.root,
        env=env,
        capture_output=True,
        check=True,
    )
    return repo.git("rev-parse", "HEAD").strip()


PROVIDER = 'NAME = "{name}"\n\n\ndef fetch():\n    return NAME\n'
TEST = "from app.providers.{name} import fetch\n\n\ndef test_fetch():\n    assert fetch()\n"


def add_provider(repo: Repo, name: str, tests_dir: str = "tests") -> None:
    repo.write(f"app/providers/{name}.py", PROVIDER.format(name=name))
    repo.write(f"{tests_dir}/test_{name}.py", TEST.format(name=name))
    registry = repo.root / "app/providers/__init__.py"
    registry.write_text(registry.read_text() + f"from app.providers import {name}  # noqa\n")
    changes = repo.root / "CHANGES.md"
    changes.write_text(changes.read_text() + f"- {name} provider\n")


def base_files() -> dict[str, str]:
    return {
        "app/__init__.py": "",
        "app/providers/__init__.py": '"""Every provider, registered."""\n',
        "app/providers/base.py": "class Provider:\n    pass\n",
        "app/cli.py": "def main():\n    return 0\n",
        "tests/test_cli.py": "def test_main():\n    pass\n",
        "tests/test_config.py": "def test_config():\n    pass\n",
        "tests/test_base.py": "def test_base():\n    pass\n",
        "CHANGES.md": "# Changes\n",
        "pyproject.toml": '[project]\nname = "app"\nversion = "1.0.0"\n\n[tool.ruff]\n',
    }


def task_of(number: int, title: str, edited: list[str], verb: str = "change") -> Task:
    """The ``number``-th change (its time too), titled ``title``, editing ``edited``: a
    task as the miner makes one, for the functions that read tasks."""
    files = tuple(FileChange("M", path) for path in edited)
    change = ChangeSet(f"{number:040x}", "direct", None, "a", "a@x", number, title, title, files)
    return Task(change, {path: [path] for path in edited}, set(), set(), verb)
