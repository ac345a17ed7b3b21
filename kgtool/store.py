"""``.kg/``: where each layer's files live, canonical JSON, atomic writes, and the run lock."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple

from kgtool.errors import KgError, LockTimeout
from kgtool.repo import git_dir

KG_DIR = ".kg"
RAW_DIR = "raw"  # layer 1: its shards (see kgtool/raw/shards.py)
LEGACY_RAW_FILE = "raw.jsonl"  # layer 1 before it was sharded: migrated by `kgtool update`
# Where kgtool's cache lived before it moved into the git directory: never read now (a pull
# request could commit one), removed by `kgtool update` when git does not track it.
CACHE_DIR = "cache"
# The local cache, in the git directory: no checkout writes there, so nothing a commit
# carries can pose as what kgtool computed (it is keyed by content, never verified again).
CACHE_HOME = "kgtool-cache"
PAGES_DIR = "communities"  # layer 2's one page per community
ONTOLOGY_FILE = "ontology.yaml"  # layer 3: see kgtool/ontology/model.py
REFUSED_LINK = (
    "kgtool refuses to read or write through symlinks under .kg/ (they could lead outside "
    "the repository); replace it with a real folder or file"
)
# In the git directory, not the working tree: a read-only run must leave the tree as it was.
LOCK_FILE = "kgtool.lock"
# The cache of an older kgtool (it lived in .kg/), and the temp files of a write that a kill
# interrupted (the next run removes them).
GITIGNORE_LINES = ("cache/", ".*.tmp")
# What git and GitHub are told of .kg/: its files are generated (a review folds them), and a
# conflict in one goes to `kgtool merge-driver` (which `kgtool hooks install` registers; git
# merges as text where it is not), after which a hook rebuilds .kg/ from the merged tree.
# Labels are written by people too: reviewed and merged as text.
GITATTRIBUTES_LINES = (
    "* linguist-generated=true merge=kgtool",
    f"{ONTOLOGY_FILE} -linguist-generated !merge",
)
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"  # atomic_write's temp files: ".<name>.<random>.tmp"
# Threads waiting on those fsyncs: enough to keep a disk's queue full.
WRITE_THREADS = 16


class Store:
    def __init__(self, root: Path, cache_dir: Path | None = None) -> None:
        """``cache_dir``: another store's cache to share (a hook mapping a checkout of the
        index reuses the working tree's: entries are keyed by content)."""
        self.root = root
        self.dir = root / KG_DIR
        self._cache_dir = cache_dir
        # Whether .kg/ was found to hold no symlink since this run took its lock: it looks
        # once under the lock, not before each write (at 10,000 files the walk cost a
        # millisecond and a half, and every write looked). Taking the lock forgets it: what
        # was found before may have changed while the run waited.
        self._no_symlink_below = False
        # What that walk saw, for the one reader of each under the lock (see ``_Walk``).
        self._walk: _Walk | None = None

    def path(self, name: str) -> Path:
        return self.dir / name

    @property
    def cache_dir(self) -> Path:
        if self._cache_dir is None:
            self._cache_dir = git_dir(self.root) / CACHE_HOME
        return self._cache_dir

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

    def cached_record(self, name: str) -> dict[str, Any]:
        """A JSON object kgtool keeps in its local cache (what a run was made from); {} when
        it is missing or unreadable, which only costs the work it would have saved."""
        try:
            record = json.loads((self.cache_dir / name).read_bytes())
        except (OSError, ValueError):
            return {}
        return record if isinstance(record, dict) else {}

    def keep_record(self, name: str, record: dict[str, Any]) -> None:
        """Write a cache record, unless it is there already: a cache that cannot be written
        costs time, never correctness."""
        data = canonical_json(record).encode()
        path = self.cache_dir / name
        with contextlib.suppress(OSError):
            if path.read_bytes() == data:
                return
        with contextlib.suppress(OSError):
            atomic_write(path, data, durable=False)

    def ensure(self) -> None:
        """.kg/ ready to be written: a real folder, with a .gitignore that keeps local files out
        and a .gitattributes that marks the rest generated.

        An existing file keeps its lines; any of kgtool's that it lacks are added (an older
        kgtool wrote only "cache/", and no .gitattributes).
        """
        self.refuse_unsafe()
        self.dir.mkdir(exist_ok=True)
        for name, wanted in (
            (".gitignore", GITIGNORE_LINES),
            (".gitattributes", GITATTRIBUTES_LINES),
        ):
            text = self.read_bytes(name)
            old = text.decode("utf-8", "replace") if text is not None else ""
            missing = [line for line in wanted if line not in old.splitlines()]
            if missing:
                lead = "\n" if old and not old.endswith("\n") else ""
                added = "".join(f"{line}\n" for line in missing)
                atomic_write(self.path(name), (old + lead + added).encode())

    def refuse_unsafe(self) -> None:
        """Refuse a .kg/ that leads elsewhere: a symlink (the folder, or anything in it) would
        let a checkout, such as a pull request in CI, choose what kgtool reads and where it
        writes. Also refuse a .kg/ or a folder of it that is a regular file, and a folder
        where kgtool writes files (a page, a shard), in one line."""
        if os.path.islink(self.dir):
            raise KgError(f"{KG_DIR} is a symlink: {REFUSED_LINK}")
        if not os.path.lexists(self.dir):
            return
        if not self.dir.is_dir():
            raise KgError(f"{KG_DIR} is not a folder: move it away, then run `kgtool update`")
        if not self._no_symlink_below:
            # kgtool writes only files in its pages' and shards' folders: a folder there (a
            # commit can hold one named like a page) would stop every write in the system's
            # own words.
            files_only = {os.fspath(self.path(name)) for name in (PAGES_DIR, RAW_DIR)}
            walk = _Walk([], {})
            found, symlink = _first_unsafe(os.fspath(self.dir), files_only, walk)
            if found:
                where = Path(found).relative_to(self.root).as_posix()
                if symlink:
                    raise KgError(f"{where} is a symlink: {REFUSED_LINK}")
                raise KgError(
                    f"{where} is a folder where kgtool writes files: delete it, then run "
                    "`kgtool update`"
                )
            self._no_symlink_below = True
            self._walk = walk
        for name in (PAGES_DIR, RAW_DIR):
            if os.path.lexists(self.path(name)) and not self.path(name).is_dir():
                raise KgError(
                    f"{KG_DIR}/{name} is not a folder: delete it, then run `kgtool update`"
                )

    def remove_stray_temps(self) -> list[str]:
        """Remove the temp files of writes that a killed run left half done; under the lock,
        no other run can be writing one, in .kg/ or the cache. Returns their names, relative
        to the folder each was in."""
        removed = []
        for top in (self.dir, self.cache_dir):
            if top == self.dir and self._walk is not None:
                # Seen by the walk under the lock (a temp file there is no run's but a
                # killed one's: none is written while the lock is held by another).
                found = [Path(path) for path in self._walk.temps]
            else:
                found = [
                    Path(folder) / name
                    for folder, _, files in os.walk(top)
                    for name in files
                    if _is_temp(name)
                ]
            for full in found:
                with contextlib.suppress(FileNotFoundError):
                    full.unlink()
                    removed.append(full.relative_to(top).as_posix())
        return sorted(removed)

    def listed_under_lock(self, name: str) -> list[os.DirEntry[str]] | None:
        """The entries of .kg/``name``, as the walk of .kg/ found them (made under this run's
        lock, or in a store of a tree no other run writes, as a hook's checkout of the
        index), given once (None when there was no such walk, or they were given already):
        the one reader reads them before anything writes there, and a second would read a
        listing grown stale. ``name``: a folder where kgtool writes only files."""
        if self._walk is None:
            return None
        return self._walk.listings.pop(os.fspath(self.path(name)), None)

    @contextlib.contextmanager
    def lock(self, timeout: float = 10.0) -> Iterator[None]:
        """One kgtool run at a time per repository; the next waits ``timeout`` seconds.

        The lock is the operating system's, on a file: it ends with the process that holds
        it, however that process ends (kill -9 included), so a dead holder's lock is simply
        free for the next run; nothing to clean up by hand.
        """
        path = git_dir(self.root) / LOCK_FILE
        with open(path, "a+") as handle:
            deadline = time.monotonic() + timeout
            while not _try_lock(handle):
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"another kgtool run ({_holder(handle)}) holds {path}; "
                        f"waited {timeout:g}s. Try again when it has finished."
                    ) from None
                time.sleep(0.05)
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            self._no_symlink_below = False
            self._walk = None
            try:
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                handle.flush()
                _unlock(handle)


# The lock: POSIX record locks (``lockf``), not ``flock``: a record lock belongs to the process
# alone, never to the children it forks, so parsing workers that outlive a killed run cannot
# keep it. ``fcntl`` exists only on POSIX and ``msvcrt`` only on Windows, hence the imports
# inside. The Windows branch cannot be tested here: it is kept to the documented calls.


def _try_lock(handle: IO[str]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # EAGAIN or EACCES, as systems differ
        return False
    return True


def _unlock(handle: IO[str]) -> None:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.lockf(handle, fcntl.LOCK_UN)


def _holder(handle: IO[str]) -> str:
    """Who holds the lock, as its holder wrote it ("pid 123")."""
    try:
        handle.seek(0)
        return handle.read().strip() or "another process"
    except OSError:  # Windows: the holder's locked byte cannot be read
        return "another process"


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Temp file in the same folder, fsync, rename: readers see the old file or the new one.

    ``durable=False`` skips the fsync, for caches: after a crash they may be lost, never torn,
    and a lost cache only costs a rebuild.
    """
    fd, temp = _temp_beside(path)
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


def write_durably(files: Mapping[Path, bytes]) -> None:
    """Write each file as ``atomic_write`` does (readers see the old file or the new one, the
    new one only once its bytes are on disk), many at once: every file is written to its temp
    file first, then the temp files are synced together, then each replaces its path. Files
    each written and synced in turn, even in sixteen threads, waited on the disk mostly one
    after another (500 files of 9 KB on ext4: 131-160 ms, against 50-56 ms so). No file is
    held open between the steps: a system allowing 256 open files (macOS) writes a thousand."""
    items = list(files.items())
    if len(items) <= 1:
        for path, data in items:
            atomic_write(path, data)
        return
    from concurrent.futures import ThreadPoolExecutor

    temps: list[tuple[str, Path]] = []
    renamed = 0
    try:
        for path, data in items:
            fd, temp = _temp_beside(path)
            temps.append((temp, path))
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(fd, 0o600)  # its owner's to read again for the sync, whatever the umask
                handle.write(data)
        with ThreadPoolExecutor(max_workers=min(WRITE_THREADS, len(temps))) as pool:
            list(pool.map(_sync, [temp for temp, _ in temps]))
        for temp, path in temps:
            # The mode only now: the temp file must be readable to be synced, and the mode
            # kept (or the umask's) may not let its owner read (0o200).
            os.chmod(temp, _file_mode(path))
            os.replace(temp, path)
            renamed += 1
    finally:  # a failure (or a signal) leaves no temp file of its own behind
        for temp, _ in temps[renamed:]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new temp file in ``path``'s folder (made if missing), named as stray temps are
    found: (its descriptor, its path)."""
    import tempfile  # here: a run that finds nothing to write never needs it (nor shutil)

    path.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.mkstemp(
        dir=path.parent, prefix=f"{TEMP_PREFIX}{path.name}.", suffix=TEMP_SUFFIX
    )


def _sync(path: str) -> None:
    """Put a written file's bytes on disk, through a descriptor of its own (fsync syncs the
    file, whichever descriptor asks)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _file_mode(path: Path) -> int:
    """Keep an existing file's mode; a new file gets what ``open()`` would give it."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        # The umask can only be read by setting it: shards are written from many threads,
        # and one must not read (or leave behind) another's momentary 0.
        with _UMASK_LOCK:
            umask = os.umask(0)
            os.umask(umask)
        return 0o666 & ~umask


class _Walk(NamedTuple):
    """What the walk of .kg/ under the lock saw besides: its temp files left by a killed
    run (``remove_stray_temps``), and the entries of each folder where kgtool writes only
    files, by path (``listed_under_lock``: layer 1's shards, which an update stats)."""

    temps: list[str]
    listings: dict[str, list[os.DirEntry[str]]]


def _is_temp(name: str) -> bool:
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def file_stamp(path: str) -> list[int]:
    """(size, mtime_ns, inode, ctime_ns) of a file, [] when there is none: taken when kgtool
    wrote or read a file, the same stamp later says it is still that file, unread. The
    ctime, which no tool can set back, makes a same-size edit whose mtime was put back a
    change; every write kgtool makes is a new file renamed into place, a new inode."""
    try:
        info = os.stat(path)
    except OSError:
        return []
    return [info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns]


def _first_unsafe(folder: str, files_only: set[str], walk: _Walk) -> tuple[str, bool]:
    """The first symlink below ``folder`` (a folder's own entries by name, then its folders
    in turn), else the first folder inside one of ``files_only``: (its path, whether it is a
    symlink); ("", False) when none. Read from the folder listings, not a stat per entry:
    .kg/ of a large repository holds thousands of files, and every run looks. ``walk``
    gathers what else it saw."""
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_symlink():
            return entry.path, True
    folders = [entry for entry in entries if entry.is_dir(follow_symlinks=False)]
    if folders and folder in files_only:
        return folders[0].path, False
    walk.temps.extend(entry.path for entry in entries if _is_temp(entry.name))
    if folder in files_only:
        walk.listings[folder] = entries
    for entry in folders:
        found = _first_unsafe(entry.path, files_only, walk)
        if found[0]:
            return found
    return "", False


_UMASK_LOCK = threading.Lock()


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, non-ASCII kept: the one JSON spelling kgtool writes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pretty_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
