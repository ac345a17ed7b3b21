"""Layer 1 laid out as shards and written: which shard each file's records go to and where
they stand in it, the bytes of each shard, and the writes (only of shards whose bytes
change, durably, many at once). Shard names and the split of a large folder are
``kgtool.raw.shards``'s."""

from __future__ import annotations

import functools
import hashlib
import posixpath
from collections.abc import Mapping
from pathlib import Path

from kgtool.raw import cache, shards
from kgtool.raw import graph as raw_graph
from kgtool.raw.cache import CachedFiles
from kgtool.raw.graph import EXTRACTOR_VERSION, FORMAT_VERSION
from kgtool.store import RAW_DIR, Store, atomic_write, canonical_json

# Shards written at once: enough to keep a disk's queue full while each waits on its fsync.
WRITE_THREADS = 16


class Layout:
    """Layer 1 as shards: each shard's files, and where each file's records stand in its."""

    __slots__ = ("members", "spans", "unchanged")

    members: dict[str, list[str]]  # shard -> its files, sorted
    spans: dict[str, tuple[str, int, int]]  # path -> (shard, start, end)
    unchanged: set[str]  # shards of the same files as before

    def __init__(
        self,
        members: dict[str, list[str]],
        spans: dict[str, tuple[str, int, int]],
        unchanged: set[str] | None = None,
    ) -> None:
        self.members = members
        self.spans = spans
        self.unchanged = set() if unchanged is None else unchanged

    def content(self, shard_bytes: dict[str, bytes], store: Store) -> bytes:
        """Every shard joined as a reader of .kg/raw/ reads them; a shard not in
        ``shard_bytes`` is the one on disk."""
        folder = store.path(RAW_DIR)
        joined = raw_graph.join(
            {
                name: shard_bytes[name] if name in shard_bytes else (folder / name).read_bytes()
                for name in self.members
            }
        )
        assert joined is not None, "layer 1 as just laid out is always readable"
        return joined


@functools.cache
def meta_line() -> bytes:
    meta = {"rec": "meta", "format": FORMAT_VERSION, "extractor": EXTRACTOR_VERSION}
    return (canonical_json(meta) + "\n").encode("utf-8")


def plan_layout(
    files: CachedFiles, rendered: set[str], spans: dict[str, tuple[str, int, int]]
) -> Layout:
    """Where each file's records go; a file not ``rendered`` is as long as its old span.

    A file's shard depends on its folder's files and their sizes alone (see ``shards``): the
    folders where a file was rendered or removed are laid out again, every other shard keeps
    its files and their spans as ``spans`` has them."""
    meta = len(meta_line())
    removed = spans.keys() - files.keys()  # in C: a Mapping's ``in`` is a call a file
    folders = {posixpath.dirname(path) for path in rendered}
    folders.update(posixpath.dirname(path) for path in removed)
    bases = {shards.folder_base(folder) for folder in folders}
    relaid_shards: dict[str, bool] = {}
    members: dict[str, list[str]] = {}
    placed: dict[str, tuple[str, int, int]] = {}
    before: dict[str, list[str]] = {}  # the files of each shard laid out again, as they were
    relaid = list(rendered)
    for path, span in spans.items():
        name = span[0]
        again = relaid_shards.get(name)
        if again is None:
            again = relaid_shards[name] = shards.base_of(name) in bases
        if again:
            before.setdefault(name, []).append(path)
            if path in files and path not in rendered:
                relaid.append(path)
        else:
            members.setdefault(name, []).append(path)
            placed[path] = span
    unchanged = set(members)
    sizes = {
        path: len(files[path].lines) if path in rendered else spans[path][2] - spans[path][1]
        for path in relaid
    }
    names = shards.assign(sizes, meta)
    laid: dict[str, list[str]] = {}
    for path in sorted(relaid):
        laid.setdefault(names[path], []).append(path)
    for name, paths in laid.items():
        offset = meta
        for path in paths:
            placed[path] = (name, offset, offset + sizes[path])
            offset += sizes[path]
        if sorted(before.get(name, ())) == paths:
            unchanged.add(name)
    members.update(laid)
    return Layout({name: sorted(members[name]) for name in sorted(members)}, placed, unchanged)


def shard_contents(
    store: Store,
    layout: Layout,
    kept: set[str],
    files: CachedFiles,
    rendered: set[str],
    manifest: cache.Manifest | None,
) -> dict[str, bytes]:
    """The bytes of every shard but the ``kept`` ones: a file rendered again brings its new
    records, which its entry then lets go (held in both, a full build's records at 100k files
    were half a gigabyte twice); another's are cut from its shard as the cache wrote it (read
    once each)."""
    old_shards: dict[str, bytes] = {}
    folder = store.path(RAW_DIR)
    contents: dict[str, bytes] = {}
    for name, paths in layout.members.items():
        if name in kept:
            continue
        parts = [meta_line()]
        for path in paths:
            if path in rendered:
                entry = files[path]
                parts.append(entry.lines)
                entry.lines = b""
                continue
            assert manifest is not None
            old, start, end = manifest.spans[path]
            if old not in old_shards:
                old_shards[old] = (folder / old).read_bytes()
            parts.append(old_shards[old][start:end])
        contents[name] = b"".join(parts)
    return contents


def kept_shards(
    layout: Layout, manifest: cache.Manifest | None, matching: set[str], rendered: set[str]
) -> set[str]:
    """Shards certain to hold on disk exactly what the layout puts there, without comparing:
    the same files as the cache wrote, none rendered again, the shard untouched since."""
    if manifest is None:
        return set()
    return {
        name
        for name in layout.unchanged
        if name in matching and rendered.isdisjoint(layout.members[name])
    }


def write_shards(
    store: Store,
    layout: Layout,
    shard_bytes: dict[str, bytes],
    kept: set[str],
    manifest: cache.Manifest | None,
    write: bool,
    on_disk: Mapping[str, object],
) -> tuple[list[str], list[str], dict[str, cache.ShardStamp]]:
    """Write the shards whose bytes changed and remove those no file lands in any more;
    (written, removed, each shard's stamp for the manifest). ``on_disk``: the shards the
    update found there (``cache.shard_stats``). Nothing is written unless ``write``: the
    lists then say what would be, and the stamps are given only when nothing would be (the
    shards on disk are then this layer 1's)."""
    folder = store.path(RAW_DIR)
    if write:  # even with no shard: an empty layer 1 is not a missing one
        folder.mkdir(exist_ok=True)
    written: list[str] = []
    stamps: dict[str, cache.ShardStamp] = {}
    for name in sorted(layout.members):
        if name in kept:
            assert manifest is not None
            stamps[name] = manifest.shards[name]
            continue
        data = shard_bytes[name]
        try:
            same = name in on_disk and (folder / name).read_bytes() == data
        except FileNotFoundError:  # removed since it was listed
            same = False
        if not same:
            written.append(name)
    removed = sorted(on_disk.keys() - layout.members.keys())
    if write:
        write_durably({folder / name: shard_bytes[name] for name in written})
    if write or not (written or removed):  # on disk now, written or found the same
        for name in sorted(shard_bytes):
            stamps[name] = cache.stamp(store, name, hashlib.sha256(shard_bytes[name]).hexdigest())
    if write:
        for name in removed:
            (folder / name).unlink(missing_ok=True)
    return written, removed, stamps


def write_durably(files: dict[Path, bytes]) -> None:
    """Write each file atomically and durably, many at once: each write waits on its own
    fsync, which costs the disk's latency and no CPU, so a full build of thousands of
    shards would otherwise spend most of its time waiting on them one after another."""
    if len(files) <= 1:
        for path, data in files.items():
            atomic_write(path, data)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(WRITE_THREADS, len(files))) as pool:
        for done in [pool.submit(atomic_write, path, data) for path, data in files.items()]:
            done.result()  # the first failure is raised, after every write has finished
