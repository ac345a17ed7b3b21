"""``.kg/``: where each layer's files live, canonical JSON, atomic writes, and the run lock."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgtool.errors import LockTimeout
from kgtool.repo import git_dir

KG_DIR = ".kg"
RAW_FILE = "raw.jsonl"
CACHE_DIR = "cache"  # local only, never committed: see .kg/.gitignore
# In the git directory, not the working tree: a read-only run must leave the tree as it was.
LOCK_FILE = "kgtool.lock"
GITIGNORE = "cache/\n"


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / KG_DIR

    def path(self, name: str) -> Path:
        return self.dir / name

    @property
    def cache_dir(self) -> Path:
        return self.dir / CACHE_DIR

    def read_bytes(self, name: str) -> bytes | None:
        try:
            return self.path(name).read_bytes()
        except FileNotFoundError:
            return None

    def write_if_changed(self, name: str, data: bytes) -> bool:
        """Write atomically unless the file already holds exactly ``data``; True if written."""
        if self.read_bytes(name) == data:
            return False
        atomic_write(self.path(name), data)
        return True

    def ensure(self) -> None:
        self.dir.mkdir(exist_ok=True)
        ignore = self.dir / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, GITIGNORE.encode())

    @contextlib.contextmanager
    def lock(self, timeout: float = 10.0) -> Iterator[None]:
        """One kgtool run at a time per repository; the next waits ``timeout`` seconds."""
        path = git_dir(self.root) / LOCK_FILE
        with open(path, "a+") as handle:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        handle.seek(0)
                        holder = handle.read().strip() or "another process"
                        raise LockTimeout(
                            f"another kgtool run ({holder}) holds {path}; "
                            f"waited {timeout:g}s. Try again when it has finished."
                        ) from None
                    time.sleep(0.05)
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            try:
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                fcntl.flock(handle, fcntl.LOCK_UN)


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Temp file in the same folder, fsync, rename: readers see the old file or the new one.

    ``durable=False`` skips the fsync, for caches: after a crash they may be lost, never torn,
    and a lost cache only costs a rebuild.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _file_mode(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def _file_mode(path: Path) -> int:
    """Keep an existing file's mode; a new file gets what ``open()`` would give it."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, non-ASCII kept: the one JSON spelling kgtool writes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pretty_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
