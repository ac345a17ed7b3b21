"""Test helpers: real git repositories in temporary folders, and kgtool run in-process."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kgtool.cli import main

# Subprocess runs import this checkout's kgtool, whatever the current folder or installs say.
PROJECT_ROOT = Path(__file__).resolve().parent.parent

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

    def merge(self, branch: str) -> subprocess.CompletedProcess[str]:
        """``git merge -q branch``, which may fail (a conflict): the caller reads the result."""
        return subprocess.run(
            ["git", "merge", "-q", branch],
            cwd=self.root,
            capture_output=True,
            text=True,
            env={**os.environ, **GIT_ENV, "HOME": str(self.root.parent)},
        )

    def kg(self, *args: str) -> Result:
        return run_kgtool(["-C", str(self.root), *args])

    def kg_process(self, *args: str, **kwargs: Any) -> Result:
        """kgtool as its own process, in the repository: for what only a process can show."""
        return run_process(list(args), cwd=self.root, **kwargs)

    @property
    def cache_dir(self) -> Path:
        """kgtool's local cache: in the git directory, never in the checkout."""
        return self.root / ".git" / "kgtool-cache"

    def kg_bytes(self) -> dict[str, bytes]:
        """Every committed-kind file under .kg/ (not the local cache), path -> bytes."""
        kg = self.root / ".kg"
        return {
            p.relative_to(kg).as_posix(): p.read_bytes()
            for p in sorted(kg.rglob("*"))
            if p.is_file() and not p.relative_to(kg).as_posix().startswith("cache/")
        }

    def clean_build(self) -> dict[str, bytes]:
        """What ``kgtool update`` writes here with no .kg/ and no cache at all (both set
        aside, then put back): a cache that an update left wrong would otherwise make the
        same wrong bytes again."""
        kept = [self.root / ".kg", self.cache_dir]
        asides = [self.root.parent / f".{self.root.name}-{n}-aside" for n in range(len(kept))]
        for path, aside in zip(kept, asides, strict=True):
            shutil.rmtree(aside, ignore_errors=True)
            if os.path.lexists(path):
                path.rename(aside)
        try:
            result = self.kg("update")
            assert result.code == 0, result.err
            return self.kg_bytes()
        finally:
            for path, aside in zip(kept, asides, strict=True):
                shutil.rmtree(path, ignore_errors=True)
                if os.path.lexists(aside):
                    aside.rename(path)

    def layer1(self) -> bytes:
        """Layer 1 on disk as its reader joins it: the bytes ``fresh_build`` must equal."""
        from kgtool.raw.graph import load
        from kgtool.store import Store

        loaded = load(Store(self.root))
        assert loaded is not None and loaded.data is not None, "no readable layer 1"
        return loaded.data

    def shards(self) -> dict[str, bytes]:
        """Every shard under .kg/raw/, name -> bytes."""
        return {p.name: p.read_bytes() for p in sorted((self.root / ".kg" / "raw").glob("*.jsonl"))}

    def raw(self) -> list[dict]:
        """Every record of layer 1, defaults spelled out and implied records included."""
        from kgtool.raw.graph import records

        return list(records(self.layer1()))

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
        # A list of candidates sorts beside a target by its text: a line may hold both.
        return sorted(rows, key=lambda row: (row[0], str(row[1]), *row[2:]))

    def fresh_build(self) -> bytes:
        """Layer 1 (joined) as a build with no cache makes it: what an incremental update
        must equal."""
        from kgtool.config import load_config
        from kgtool.raw.build import update_raw
        from kgtool.store import Store

        shutil.rmtree(self.cache_dir, ignore_errors=True)
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


def interruptible() -> None:
    """``preexec_fn`` for a kgtool a test interrupts: Ctrl-C's default action, as a shell in a
    terminal gives it. A job started in the background of a non-interactive shell (a CI runner
    may be one) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler:
    the process would rightly ignore the test's SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_process(
    argv: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    **popen: Any,
) -> Result:
    full_env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", *argv],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **popen,
    )
    return Result(done.returncode, done.stdout, done.stderr)


# An error line on stderr: kgtool's own, or a finding (a settings error) at its file and line.
ERROR_LINE = re.compile(r"^(kgtool: error: |.+?(:\d+)?: error: [A-Z]\d{3} )")
SETTINGS_ERROR_LINE = re.compile(r"^.+?(:\d+)?: error: K\d{3} ")


def assert_one_line_error(result: Result, code: int = 2, says: str = "") -> None:
    """A refusal as users must see it: the exit code, one line on stderr, no traceback."""
    assert result.code == code, (result.code, result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and ERROR_LINE.match(lines[0]), result.err
    assert says.lower() in lines[0].lower(), lines[0]


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
