"""Test helpers: real git repositories in temporary folders, and kgtool run in-process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgtool.cli import main

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass
class Repo:
    root: Path

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_ENV, "HOME": str(self.root.parent)}
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout

    def write(self, path: str, content: str | bytes, dedent: bool = True) -> Path:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            full.write_bytes(content)
        else:
            full.write_text(textwrap.dedent(content) if dedent else content)
        return full

    def write_files(self, files: dict[str, str]) -> None:
        for path, content in files.items():
            self.write(path, content)

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def kg(self, *args: str) -> Result:
        return run_kgtool(["-C", str(self.root), *args])

    def raw(self) -> list[dict]:
        text = (self.root / ".kg" / "raw.jsonl").read_text()
        return [json.loads(line) for line in text.splitlines()]

    def edges(self, kind: str | None = None) -> list[dict]:
        return [r for r in self.raw() if r["rec"] == "edge" and (kind is None or r["type"] == kind)]

    def nodes(self) -> dict[str, dict]:
        return {r["id"]: r for r in self.raw() if r["rec"] == "node"}

    def edge_rows(self, kind: str) -> list[tuple]:
        """Sorted (src, dst or candidates, tier, line) of every edge of one type."""
        rows = []
        for edge in self.edges(kind):
            target = edge.get("dst") or tuple(edge["candidates"])
            rows.append((edge["src"], target, edge["tier"], edge["line"]))
        return sorted(rows)

    def fresh_build(self) -> bytes:
        """raw.jsonl as a build with no cache makes it: what an incremental update must equal."""
        from kgtool.config import load_config
        from kgtool.raw.build import update_raw
        from kgtool.store import Store

        shutil.rmtree(self.root / ".kg" / "cache", ignore_errors=True)
        return update_raw(self.root, load_config(self.root), Store(self.root), write=False).content

    def build(self, files: dict[str, str]) -> Repo:
        """Write and commit ``files``, then run ``kgtool update``, which must succeed."""
        self.write_files(files)
        self.commit()
        result = self.kg("update")
        assert result.code == 0, result.err
        return self


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_kgtool(argv: list[str]) -> Result:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Repo]:
    counter = iter(range(1000))

    def make(files: dict[str, str] | None = None, commit: bool = True) -> Repo:
        root = tmp_path / f"repo{next(counter)}"
        root.mkdir()
        repo = Repo(root)
        repo.git("init", "-q", "-b", "main")
        if files:
            repo.write_files(files)
            if commit:
                repo.commit("initial")
        return repo

    return make


@pytest.fixture
def repo(make_repo: Callable[..., Repo]) -> Repo:
    return make_repo()
