""".kg/'s store on its own: the bytes and modes it writes, the .gitignore it keeps, the temp
files it clears. What whole runs show only in passing, or through a child process."""

from __future__ import annotations

import errno
import os
import stat
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo

from kgtool import store as store_module
from kgtool.store import Store, atomic_write, canonical_json, pretty_json, write_durably


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_mode_open_gives_and_a_rewrite_keeps_the_old_one(
    tmp_path: Path,
) -> None:
    previous = os.umask(0o022)
    try:
        fresh = tmp_path / "deep" / "er" / "fresh.json"
        atomic_write(fresh, b"one\n")  # its folders are made on the way
        assert fresh.read_bytes() == b"one\n"
        assert mode(fresh) == 0o644  # 0o666 without the umask's bits: never executable
        fresh.chmod(0o600)
        atomic_write(fresh, b"two\n")
        assert fresh.read_bytes() == b"two\n"
        assert mode(fresh) == 0o600
    finally:
        os.umask(previous)
    assert [p.name for p in fresh.parent.iterdir()] == ["fresh.json"]  # no temp file left


def test_files_written_from_many_threads_get_the_umask_s_mode_and_leave_it_as_it_was(
    tmp_path: Path,
) -> None:
    """Shards are written sixteen at a time, and the umask can only be read by setting it."""
    previous = os.umask(0o022)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        paths = [tmp_path / f"s{n}.jsonl" for n in range(400)]
        with ThreadPoolExecutor(max_workers=16) as pool:
            list(pool.map(lambda path: atomic_write(path, b"x\n", durable=False), paths))
        assert {mode(path) for path in paths} == {0o644}
        assert os.umask(0o022) == 0o022
    finally:
        sys.setswitchinterval(interval)
        os.umask(previous)


def test_files_written_durably_together_are_all_written_then_synced_then_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file lands with its bytes, and a rewrite keeps the old file's mode. Every temp
    file is written whole before the first is synced (their syncs wait together), and each is
    synced before it replaces its path; no temp file is left."""
    folder = tmp_path / "pages"
    files = {folder / f"s{n}.md": f"page {n}\n".encode() * 50 for n in range(8)}
    synced: set[int] = set()
    written_at_each_sync: list[int] = []
    replaced_after_sync: list[bool] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        temps = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
        written_at_each_sync.append(sum(p.stat().st_size == 350 for p in temps))
        real_fsync(fd)
        synced.add(os.fstat(fd).st_ino)

    def replace(source: Any, target: Any) -> None:
        replaced_after_sync.append(os.stat(source).st_ino in synced)
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    kept = folder / "s0.md"
    folder.mkdir()
    kept.write_bytes(b"old\n")
    kept.chmod(0o600)
    write_durably({})  # nothing to write: nothing done
    write_durably(files)
    assert {path: path.read_bytes() for path in files} == files
    assert mode(kept) == 0o600
    assert written_at_each_sync == [8] * 8
    assert replaced_after_sync == [True] * 8
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in files)


@pytest.mark.skipif(sys.platform == "win32", reason="the resource module is POSIX's")
def test_many_files_are_written_durably_under_a_low_limit_of_open_files(tmp_path: Path) -> None:
    """A thousand shards under a limit of 256 open files (macOS's default): no file is held
    open from its write to its sync."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    listed = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"  # macOS's
    open_now = len(os.listdir(listed))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_now + 48, hard))
    try:
        files = {tmp_path / f"s{n}.jsonl": b"x\n" for n in range(1000)}
        write_durably(files)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert all(path.read_bytes() == b"x\n" for path in files)
    assert len(os.listdir(tmp_path)) == 1000


def test_files_whose_mode_lets_no_one_read_them_are_written_durably(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temp file is synced through a descriptor opened to read it: the mode kept (here
    from a umask of 0o477) is given only after, or its owner could not open it. The test
    runs as root here, to whom every mode is readable: ``os.open`` answers as the kernel
    answers anyone else."""
    real_open = os.open

    def open_as_owner(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        reading = flags & (os.O_WRONLY | os.O_RDWR) == 0
        if reading and not os.stat(path).st_mode & stat.S_IRUSR:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_as_owner)
    files = {tmp_path / f"s{n}.jsonl": b"x\n" for n in range(3)}
    previous = os.umask(0o477)  # new files: written by their owner, read by no one
    try:
        write_durably(files)
    finally:
        os.umask(previous)
    assert {mode(path) for path in files} == {0o200}


def test_a_batch_that_fails_to_sync_replaces_nothing_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up while a batch is synced: every file keeps its old bytes (none is
    half replaced), and the temp files are gone."""
    old = {tmp_path / f"s{n}.jsonl": f"old {n}\n".encode() for n in range(5)}
    for path, data in old.items():
        path.write_bytes(data)

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError):
        write_durably({path: b"new\n" for path in old})
    assert {path: path.read_bytes() for path in old} == old
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in old)


def test_a_file_that_cannot_replace_its_path_leaves_no_temporary(tmp_path: Path) -> None:
    """A folder stands where one file goes: the error is raised, the files before it are
    written, and no temp file of the batch is left behind."""
    (tmp_path / "s2.jsonl").mkdir()
    files = {tmp_path / f"s{n}.jsonl": b"x\n" for n in range(4)}
    with pytest.raises(OSError):
        write_durably(files)
    assert (tmp_path / "s1.jsonl").read_bytes() == b"x\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s0.jsonl", "s1.jsonl", "s2.jsonl"]


def test_write_if_changed_says_whether_it_wrote(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.write_if_changed("layer.jsonl", b"a\n") is True
    assert store.write_if_changed("layer.jsonl", b"a\n") is False
    assert store.write_if_changed("layer.jsonl", b"b\n") is True
    assert store.read_bytes("layer.jsonl") == b"b\n"


def test_ensure_writes_the_gitignore_lines_once_and_completes_an_older_one(
    tmp_path: Path,
) -> None:
    kg = tmp_path / ".kg"
    Store(tmp_path).ensure()
    assert (kg / ".gitignore").read_bytes() == b"cache/\n.*.tmp\n"
    Store(tmp_path).ensure()
    assert (kg / ".gitignore").read_bytes() == b"cache/\n.*.tmp\n"
    # An older kgtool wrote only "cache/", here with a line of the user's and no final newline.
    (kg / ".gitignore").write_bytes(b"cache/\nmine")
    Store(tmp_path).ensure()
    assert (kg / ".gitignore").read_bytes() == b"cache/\nmine\n.*.tmp\n"
    (kg / ".gitignore").write_bytes(b"mine\n")
    Store(tmp_path).ensure()
    assert (kg / ".gitignore").read_bytes() == b"mine\ncache/\n.*.tmp\n"


def test_stray_temp_files_are_removed_and_named_and_nothing_else_is(tmp_path: Path) -> None:
    kg = tmp_path / ".kg"
    strays = [kg / ".layer.jsonl.k2j3.tmp", kg / "communities" / ".c1.md.x9.tmp"]
    kept = [kg / "layer.jsonl", kg / ".gitignore", kg / "communities" / "c1.md", kg / "x.tmp"]
    for path in [*strays, *kept]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    (tmp_path / ".git").mkdir()
    cache_stray = tmp_path / ".git" / "kgtool-cache" / ".raw.manifest.q1.tmp"
    cache_stray.parent.mkdir()
    cache_stray.write_bytes(b"x")
    strays.append(cache_stray)
    removed = Store(tmp_path).remove_stray_temps()
    assert removed == [".layer.jsonl.k2j3.tmp", ".raw.manifest.q1.tmp", "communities/.c1.md.x9.tmp"]
    assert not any(p.exists() for p in strays)
    assert all(p.exists() for p in kept)


def test_json_is_sorted_and_keeps_non_ascii_text() -> None:
    value = {"b": "naïve", "a": [1, {"d": "☃", "c": None}]}
    assert canonical_json(value) == '{"a":[1,{"c":null,"d":"☃"}],"b":"naïve"}'
    assert pretty_json(value) == (
        '{\n  "a": [\n    1,\n    {\n      "c": null,\n      "d": "☃"\n    }\n  ],\n'
        '  "b": "naïve"\n}\n'
    )


def test_a_cache_record_that_cannot_be_read_or_written_costs_only_time(tmp_path: Path) -> None:
    store = Store(tmp_path, cache_dir=tmp_path / "cache")
    assert store.cached_record("map.key") == {}  # never written
    store.keep_record("map.key", {"key": "a", "outputs": {"MAP.md": "1"}})
    assert store.cached_record("map.key") == {"key": "a", "outputs": {"MAP.md": "1"}}
    (tmp_path / "cache" / "map.key").write_bytes(b"[1, 2]")  # JSON, not a record
    assert store.cached_record("map.key") == {}
    (tmp_path / "cache" / "map.key").write_bytes(b"\xff{")
    assert store.cached_record("map.key") == {}
    blocked = Store(tmp_path, cache_dir=tmp_path / "a-file")
    (tmp_path / "a-file").write_text("not a folder")
    blocked.keep_record("map.key", {"key": "b"})  # no error: the next run recomputes
    assert blocked.cached_record("map.key") == {}


def test_a_run_walks_kg_for_symlinks_before_its_lock_and_once_under_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every write asks whether .kg/ is safe; the walk below it (thousands of files in a
    large repository) is made before anything is read and once under the lock, its top
    checked each time (four walks an update before)."""

    repo.write_files({"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "import pkg.a\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    walked: list[str] = []
    walk = store_module._first_unsafe

    def counting(folder: str, files_only: set[str], seen: Any) -> tuple[str, bool]:
        walked.append(folder)
        return walk(folder, files_only, seen)

    monkeypatch.setattr(store_module, "_first_unsafe", counting)
    repo.write("pkg/a.py", "def f():\n    return 2\n")
    assert repo.kg("update").code == 0
    assert walked.count(str(repo.root / ".kg")) == 2


def test_an_update_lists_kg_raw_once_under_its_lock(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk under the lock also finds the temp files a killed run left and lists the
    shards layer 1 stats: .kg/raw/ (thousands of shards in a large repository) is listed
    before the lock and once under it, where the temp files' removal and layer 1 listed it
    again each. What it finds is still done: a stray temp file goes."""
    repo.write_files({"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "import pkg.a\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    stray = repo.root / ".kg" / "raw" / ".pkg.jsonl.x1y2.tmp"
    stray.write_text("half written\n")
    raw = os.fspath(repo.root / ".kg" / "raw")
    listed: list[str] = []
    scandir = os.scandir

    def counting(path: Any = ".") -> Any:
        if not isinstance(path, int):  # a folder's descriptor (shutil.rmtree's)
            listed.append(os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    repo.write("pkg/a.py", "def f():\n    return 2\n")
    assert repo.kg("update").code == 0
    assert listed.count(raw) == 2
    assert not stray.exists()
    assert repo.layer1() == repo.fresh_build()


def test_a_symlink_made_below_kg_while_a_run_waits_for_its_lock_is_refused(
    repo: Repo, tmp_path: Path
) -> None:
    """The walk a run makes before it takes the lock is not trusted under it: a folder of
    .kg/ replaced by a symlink in between is refused before any write goes through it."""
    import shutil

    from kgtool.errors import KgError
    from kgtool.pipeline.context import open_context
    from kgtool.pipeline.refresh import refresh

    repo.write_files({"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "import pkg.a\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    ctx = open_context(repo.root)  # walks .kg/, finds no symlink
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c99.md").write_text("someone's own\n")
    pages = repo.root / ".kg" / "communities"
    shutil.rmtree(pages)
    os.symlink(outside, pages)
    repo.write("pkg/a.py", "def f():\n    return 2\n")
    with ctx.store.lock(), pytest.raises(KgError, match="is a symlink"):
        refresh(ctx, write=True)
    assert sorted(p.name for p in outside.iterdir()) == ["c99.md"]


@pytest.mark.parametrize("where", [".kg/communities/c1.md", ".kg/raw/pkg.jsonl"])
def test_a_committed_folder_where_kgtool_writes_a_file_is_one_line_and_kept(
    repo: Repo, where: str
) -> None:
    """A pull request can commit a folder named like a page or a shard: every command that
    reads or writes .kg/ says so in one line that names it and what to do, and leaves it."""
    repo.write_files({"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "import pkg.a\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    target = repo.root / where
    if target.exists():
        target.unlink()
    repo.write(f"{where}/inside.txt", "someone's own\n")
    repo.commit("a folder where a page goes")
    for args in (["update"], ["update", "--check"], ["check"]):
        result = repo.kg(*args)
        assert result.code != 0
        lines = [line for line in (result.out + result.err).splitlines() if line.strip()]
        assert lines == [
            f"kgtool: error: {where} is a folder where kgtool writes files: delete it, then "
            "run `kgtool update`"
        ], args
    assert (repo.root / where / "inside.txt").read_text() == "someone's own\n"


def test_a_name_the_repository_chose_is_printed_on_one_line_escaped(repo: Repo) -> None:
    """An error naming what a commit holds spells out a newline or a terminal's escape in
    it, as a finding does: a pull request cannot forge a second line of the check's log."""
    repo.write_files({"pkg/a.py": "def f():\n    return 1\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    odd = "c1\n::error::forged\x1b[31m.md"
    repo.write(f".kg/communities/{odd}/inside.txt", "x\n")
    result = repo.kg("update")
    assert result.code == 2
    lines = (result.out + result.err).splitlines()
    assert lines == [
        "kgtool: error: .kg/communities/c1\\n::error::forged\\x1b[31m.md is a folder where "
        "kgtool writes files: delete it, then run `kgtool update`"
    ]
