"""Layer 1 laid out as shards and written: which shard each file's records go to and where
they stand in it, the bytes of each shard, and the writes (only of shards whose bytes
change, durably, many at once). Shard names and the split of a large folder are
``kgtool.raw.shards``'s."""

from __future__ import annotations

import functools
import hashlib
import posixpath
from collections.abc import Iterable, Mapping

from kgtool.raw import cache, shards
from kgtool.raw import graph as raw_graph
from kgtool.raw.cache import CachedFiles
from kgtool.raw.graph import EXTRACTOR_VERSION, FORMAT_VERSION
from kgtool.store import RAW_DIR, Store, canonical_json, write_durably


class Layout:
    """Layer 1 as shards: each shard's files, whose records follow its meta line in that
    order, and where each file's records end. Kept by shard rather than by file: an edit
    lays out again the shards of the folders it touched, and every other shard's entry is
    carried over whole, never visited file by file."""

    __slots__ = ("ends", "members", "old_spans", "unchanged")

    members: dict[str, list[str]]  # shard -> its files, sorted
    ends: dict[str, tuple[int, ...]]  # shard -> where each of its files' records end
    unchanged: set[str]  # shards of the same files as before
    # The files of the shards laid out again, where their records stood before: path ->
    # (shard, start, end). A file not rendered again is cut from there.
    old_spans: dict[str, tuple[str, int, int]]

    def __init__(
        self,
        members: dict[str, list[str]],
        ends: dict[str, tuple[int, ...]],
        unchanged: set[str] | None = None,
        old_spans: dict[str, tuple[str, int, int]] | None = None,
    ) -> None:
        self.members = members
        self.ends = ends
        self.unchanged = set() if unchanged is None else unchanged
        self.old_spans = {} if old_spans is None else old_spans

    def holds(self, files: int) -> bool:
        """Whether this is a whole layout of ``files`` files (a cache's, read back): each
        shard's files each with an end, and as many files as the cache holds."""
        ends = self.ends
        try:
            return (
                self.members.keys() == ends.keys()
                # Each a name kgtool writes in .kg/raw/: a manifest written by another hand
                # must not name a file elsewhere for the update to read or write.
                and all(shards.is_safe_name(name) for name in self.members)
                and all(len(paths) == len(ends[name]) for name, paths in self.members.items())
                and sum(map(len, self.members.values())) == files
            )
        except (TypeError, AttributeError):  # not shaped as kgtool writes it
            return False

    def spans_in(self, names: Iterable[str]) -> dict[str, tuple[str, int, int]]:
        """Path -> (shard, start, end) of its records, for the files of shards ``names``."""
        spans: dict[str, tuple[str, int, int]] = {}
        for name in names:
            start = len(meta_line())
            for path, end in zip(self.members[name], self.ends[name], strict=True):
                spans[path] = (name, start, end)
                start = end
        return spans

    @property
    def spans(self) -> dict[str, tuple[str, int, int]]:
        """Every file's (shard, start, end): a pass over every file, for tests and tools."""
        return self.spans_in(self.members)

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
    files: CachedFiles, rendered: set[str], removed: set[str], before: Layout | None
) -> Layout:
    """Where each file's records go; a file not ``rendered`` is as long as it was in
    ``before`` (the layout the cache holds, of every file of it: ``removed`` are those of
    its files that are gone).

    A file's shard depends on its folder's files and their sizes alone (see ``shards``): the
    folders where a file was rendered or removed are laid out again, every other shard keeps
    its files and their ends as ``before`` has them, without a look at its files."""
    meta = len(meta_line())
    if before is None:
        before = Layout({}, {})
    folders = {posixpath.dirname(path) for path in rendered}
    folders.update(posixpath.dirname(path) for path in removed)
    bases = {shards.folder_base(folder) for folder in folders}
    members: dict[str, list[str]] = {}
    ends: dict[str, tuple[int, ...]] = {}
    replaced: dict[str, list[str]] = {}  # the shards laid out again, with their files then
    for name, paths in before.members.items():
        if shards.base_of(name) in bases:
            replaced[name] = paths
        else:
            members[name] = paths
            ends[name] = before.ends[name]
    unchanged = set(members)
    old_spans = before.spans_in(sorted(replaced))
    sizes = {path: len(files[path].lines) for path in rendered}
    for path, (_, start, end) in old_spans.items():
        if path not in rendered and path in files:
            sizes[path] = end - start
    names = shards.assign(sizes, meta)
    laid: dict[str, list[str]] = {}
    for path in sorted(sizes):
        laid.setdefault(names[path], []).append(path)
    for name, paths in laid.items():
        offset, shard_ends = meta, []
        for path in paths:
            offset += sizes[path]
            shard_ends.append(offset)
        ends[name] = tuple(shard_ends)
        if replaced.get(name) == paths:
            unchanged.add(name)
    members.update(laid)
    return Layout({name: members[name] for name in sorted(members)}, ends, unchanged, old_spans)


def shard_contents(
    store: Store,
    layout: Layout,
    kept: set[str],
    files: CachedFiles,
    rendered: set[str],
) -> dict[str, bytes]:
    """The bytes of every shard but the ``kept`` ones: a file rendered again brings its new
    records, which its entry then lets go (held in both, a full build's records at 100k files
    were half a gigabyte twice); another's are cut from its shard as the cache wrote it
    (``layout.old_spans``; each shard read once)."""
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
            # A file not rendered in a shard not kept was in one laid out again (a shard
            # found rewritten on disk has every file rendered).
            old, start, end = layout.old_spans[path]
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
    on_disk: Mapping[str, cache.StatStamp],
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
            # Read only at its size: a checkout can put a file of any size there.
            stat = on_disk.get(name)
            same = (
                stat is not None and stat[0] == len(data) and (folder / name).read_bytes() == data
            )
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
