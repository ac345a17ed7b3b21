"""The local layer-1 cache, in the git directory (``Store.cache_dir``: never in a checkout).

A manifest and shards, so that the per-commit question "did anything change?" reads a few
kilobytes and a one-file edit decodes, and rewrites, little more than that file's entry:

- ``raw.manifest``: the blob id of every file, the digest and stat of each shard of
  ``.kg/raw/`` they rendered, each shard's files and where their records end (by shard: an
  edit carries the shards it does not lay out again over whole), the files of each
  language, the summary numbers (with digests of every file's folded edges and of the list
  of files), and the checksum of each cache file it goes with;
- ``raw.cache.<NN>``: per file (a file's shard is fixed by its path), its entry (facts, the
  counts of its records), encoded on its own so that only the files an update reads are
  decoded, and its head (blob, language, the names it mentions, its edges to other files
  folded for layer 2). A shard is read when a file of it is first asked for: an edit reads
  the shards of the files it touches;
- ``raw.names.<NNN>``: every symbol of the repository by its bare name (``NameTables``), and
  the files that mention each name (by ``path_key``, so that an edit that adds or removes a
  name resolves again the files that mention it without reading every file's head), in
  shards by name, each read when a name of it is first looked up; patched by each update
  from the files it re-parsed rather than gathered from every file's facts.

A file's rendered records are not cached: while its shard is the one the manifest describes,
an unchanged file's records are cut from it by their span.

All are ``marshal`` data of builtin types: loading tens of megabytes of it takes milliseconds,
where pickled objects took a second. A cache of another key (extractor version, layer-1
settings) is ignored, and so is a file whose checksum does not match. The manifest is
written last and names the checksum of every cache file beside it: a run killed between the
writes leaves a manifest that vouches for nothing.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import marshal
import os
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from kgtool.raw import graph as raw_graph
from kgtool.raw.current import ListedThen
from kgtool.raw.model import AssignFact, CallFact, FileEdge, FileFacts, packed_body, unpacked_body
from kgtool.store import RAW_DIR, Store, atomic_write

MANIFEST_FILE = "raw.manifest"
LISTED_FILE = "raw.listed"
NAMES_FILE = "raw.names"
# Each file starts with a checksum of the rest (its CRC-32 and its length): a cache damaged,
# or edited into valid but wrong data, must cost a rebuild, never a wrong graph. Nothing here
# guards against a forger (the key would be beside the data); CRC-32 reads ~3 GB/s, where a
# cryptographic hash read a 10k-file cache in a third of what an edit then costs.
CHECKSUM_BYTES = 8
CACHE_FILE = "raw.cache"
# An edit reads the cache shards of the files it resolves and of those they import, whole:
# at 100k files a shard of 1024 holds ~100 files, as at 6,000 (where 64 shards of ~100 files
# each made an edit cost a third more than at 700: a shard's read grew with the repository).
# A small repository has fewer of each (see ``Parts``).
MAX_SHARDS = 1024
MAX_NAME_SHARDS = 256
T = TypeVar("T")


class Parts(NamedTuple):
    """How many cache shards and parts of the name tables a cache has: chosen by the number
    of files when the cache is written whole, and kept by the manifest for every update that
    patches it.

    A file costs a create and a rename to write whatever its size, which on some disks is a
    millisecond: the 64 + 256 files that suit 100k files were a tenth of a 700-file build.
    """

    shards: int
    names: int

    @classmethod
    def for_files(cls, count: int) -> Parts:
        return cls(
            _power_of_two(count // FILES_PER_SHARD, 4, MAX_SHARDS),
            _power_of_two(count // FILES_PER_NAME_PART, 16, MAX_NAME_SHARDS),
        )

    def fit(self, count: int) -> bool:
        """Whether these parts still suit ``count`` files: a repository that grew past four
        times what they were chosen for is written whole again, in more of them."""
        wanted = Parts.for_files(count)
        return wanted.shards <= 4 * self.shards and wanted.names <= 4 * self.names

    def shard_of(self, path: str) -> int:
        return path_key(path) % self.shards

    def name_part_of(self, name: str) -> int:
        return zlib.crc32(name.encode("utf-8", "surrogateescape")) % self.names


LARGEST = Parts(MAX_SHARDS, MAX_NAME_SHARDS)
# Files per cache shard, and per part of the name tables, that the counts aim at.
FILES_PER_SHARD = 64
FILES_PER_NAME_PART = 16


def _power_of_two(wanted: int, smallest: int, largest: int) -> int:
    count = smallest
    while count < wanted and count < largest:
        count *= 2
    return count


def path_key(path: str) -> int:
    """A number for a path, stable across runs: what the index of mentions lists a file by
    (two paths may share one; whoever reads the index takes both)."""
    return zlib.crc32(path.encode("utf-8", "surrogateescape"))


def _shard_name(shard: int) -> str:
    return f"{CACHE_FILE}.{shard:02d}"


class CachedFile:
    __slots__ = (
        "blob",
        "body",
        "broken_imports",
        "edge_counts",
        "externals",
        "facts",
        "file_edges",
        "lines",
        "mentions",
        "unresolved_calls",
    )

    blob: str
    facts: FileFacts
    lines: bytes  # its records in its shard, once rendered (or cut from the old shard)
    edge_counts: Counter[tuple[str, str]]  # (type, tier)
    unresolved_calls: int
    externals: frozenset[str]  # external package IDs its edges point to
    # Every name its resolution depends on, sorted: a tuple is a tenth of a set's memory,
    # and what reads them asks ``isdisjoint`` or bisects.
    mentions: tuple[str, ...]
    file_edges: tuple[FileEdge, ...]  # its edges to other files, as layer 2 reads them
    broken_imports: tuple[tuple[int, str], ...]  # (line, module) of imports that broke
    # Calls and assignments as stored, until ``hydrate``: only the files being resolved need
    # them, and decoding every file's would cost more than the rest of an update.
    body: bytes | None  # ``packed_body`` of (calls, assigns): decoded only by ``hydrate``

    def __init__(
        self,
        blob: str,
        facts: FileFacts,
        lines: bytes = b"",
        edge_counts: Counter[tuple[str, str]] | None = None,
        unresolved_calls: int = 0,
        externals: frozenset[str] = frozenset(),
        mentions: tuple[str, ...] = (),
        file_edges: tuple[FileEdge, ...] = (),
        broken_imports: tuple[tuple[int, str], ...] = (),
        body: bytes | None = None,
    ) -> None:
        self.blob = blob
        self.facts = facts
        self.lines = lines
        self.edge_counts = Counter() if edge_counts is None else edge_counts
        self.unresolved_calls = unresolved_calls
        self.externals = externals
        self.mentions = mentions
        self.file_edges = file_edges
        self.broken_imports = broken_imports
        self.body = body

    def hydrate(self) -> FileFacts:
        if self.body is not None:
            calls, assigns = unpacked_body(self.body)
            self.facts.calls = list(map(CallFact._make, calls))
            self.facts.assigns = list(map(AssignFact._make, assigns))
            self.body = None
        return self.facts

    def hold_back(self, body: bytes) -> None:
        """Hold the calls and assignments back again as ``body``, what ``hydrate`` decoded."""
        self.facts.calls = []
        self.facts.assigns = []
        self.body = body

    def head(self) -> Head:
        return Head(
            self.blob,
            self.facts.language,
            self.mentions,
            self.file_edges,
            edges_digest(self.file_edges),
        )

    def dump(self) -> bytes:
        facts = self.facts.to_json()
        body = self.body
        if body is None:
            body = packed_body(facts["calls"], facts["assigns"])
        # The body travels as bytes in the "calls" slot, undecoded until a resolution needs it.
        facts["calls"], facts["assigns"] = body, ()
        return marshal.dumps(
            (
                self.blob,
                facts,
                tuple((kind, tier, n) for (kind, tier), n in sorted(self.edge_counts.items())),
                self.unresolved_calls,
                tuple(sorted(self.externals)),
                self.broken_imports,
            )
        )

    @classmethod
    def load(cls, data: bytes, head: Head) -> CachedFile:
        blob, facts, counts, unresolved, externals, broken = marshal.loads(data)
        body = facts["calls"]
        facts["calls"] = facts["assigns"] = ()
        return cls(
            blob,
            FileFacts.from_json(facts),
            b"",
            Counter({(kind, tier): n for kind, tier, n in counts}),
            unresolved,
            frozenset(externals),
            head.mentions,
            head.file_edges,
            tuple(map(tuple, broken)),
            body,
        )


class Head(NamedTuple):
    """What an update reads of every file, kept apart from its facts so that an edit
    decodes no other file's entry."""

    blob: str
    language: str
    mentions: tuple[str, ...]  # sorted
    file_edges: tuple[FileEdge, ...]
    file_edges_digest: bytes  # ``edges_digest(file_edges)``: layer 2's key reads these


def edges_digest(file_edges: tuple[FileEdge, ...]) -> bytes:
    # repr: exact for strings, ints and floats, and the same bytes in every process.
    return hashlib.blake2b(
        repr(file_edges).encode("utf-8", "surrogateescape"), digest_size=16
    ).digest()


class CacheDamaged(Exception):
    """A cache shard read after its manifest vouched for it is not what it vouched for."""


class ShardReader:
    """The cache shards of one manifest, each read when a file of it is first asked for and
    held to the checksum the manifest names. Not checked up front: at 100k files, reading
    the first bytes of every shard cost each edit 6.5 ms."""

    def __init__(self, store: Store, version: str, checksums: dict[str, str]) -> None:
        self._store = store
        self._version = version
        self._checksums = checksums
        self._read: dict[int, tuple[dict[str, bytes], dict[str, bytes]]] = {}

    def read(self, shard: int) -> tuple[dict[str, bytes], dict[str, bytes]]:
        """(packed heads, encoded entries) of a shard's files; raises ``CacheDamaged``."""
        if shard not in self._read:
            name = _shard_name(shard)
            parsed = _parse_shard(_vouched(self._store, name, self._checksums), self._version)
            if parsed is None:
                raise CacheDamaged(name)
            self._read[shard] = parsed
        return self._read[shard]


class Projected(Mapping[str, T]):
    """A value of each of ``keys`` (a cached file's head, its facts...), taken when first
    asked for."""

    def __init__(self, keys: Mapping[str, Any], take: Callable[[str], T]) -> None:
        self._keys = keys
        self._take = take

    def __getitem__(self, path: str) -> T:
        if path not in self._keys:
            raise KeyError(path)
        return self._take(path)

    def __contains__(self, path: object) -> bool:
        return path in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class CachedFiles(Projected[CachedFile]):
    """Files by path, each entry decoded when it is first read.

    Read lazily (``reader``), the cache knows every file's blob id from the manifest, and
    reads a file's head and entry with its cache shard when the file is first asked for: an
    edit reads the shards of the files it touches, not the whole cache."""

    def __init__(
        self,
        heads: dict[str, Head] | None = None,
        encoded: dict[str, bytes] | None = None,
        checksums: dict[str, str] | None = None,
        reader: ShardReader | None = None,
        blobs: dict[str, str] | None = None,
        parts: Parts | None = None,
    ) -> None:
        # The cache's layout as read (a lazy reader's is its manifest's).
        self.parts = parts if parts is not None else LARGEST
        self._heads: dict[str, Head] = heads if heads is not None else {}
        # Heads as a lazily read shard holds them (``pack_head``), each decoded when first
        # asked for: a shard holds a hundred files, of which an edit reads a few.
        self._packed_heads: dict[str, bytes] = {}
        self._encoded: dict[str, bytes] = encoded if encoded is not None else {}
        self._decoded: dict[str, CachedFile] = {}
        # Of each cache file as loaded: what a manifest written without rewriting it names.
        self.checksums: dict[str, str] = checksums if checksums is not None else {}
        self._reader = reader
        # Every file's blob id: what says which files the cache holds.
        self._blobs: dict[str, str] = (
            blobs if blobs is not None else {path: head.blob for path, head in self._heads.items()}
        )
        self._unread: set[int] = set(range(self.parts.shards)) if reader is not None else set()
        self.heads: Mapping[str, Head] = Projected(self._blobs, self.head)
        # A Mapping of its paths: membership, iteration and size are the blob ids'.
        super().__init__(self._blobs, self._entry)

    def head(self, path: str) -> Head:
        head = self._heads.get(path)
        if head is not None:
            return head
        if path not in self._blobs:
            raise KeyError(path)
        if path not in self._packed_heads:
            self.read_shards({self.parts.shard_of(path)})
        packed = self._packed_heads.pop(path, None)
        head = _unpacked_head(packed) if packed is not None else None
        if head is None:  # the manifest names a file its shard lacks, or not as a head
            raise CacheDamaged(_shard_name(self.parts.shard_of(path)))
        self._heads[path] = head
        return head

    def packed_head(self, path: str) -> bytes:
        """A file's head as a cache shard holds it (not decoded when it was never read)."""
        packed = self._packed_heads.get(path)
        return packed if packed is not None else pack_head(self.head(path))

    def read_all(self) -> None:
        """Read every cache shard now."""
        self.read_shards(set(self._unread))

    def read_shards_of(self, paths: Iterable[str]) -> None:
        """Read the cache shards that hold these files now."""
        self.read_shards({self.parts.shard_of(path) for path in paths})

    def read_shards(self, shards: set[int]) -> None:
        """Read these cache shards now (those read already are not read again)."""
        assert self._reader is not None or not self._unread
        for shard in sorted(shards & self._unread):
            assert self._reader is not None
            heads, encoded = self._reader.read(shard)
            self._unread.discard(shard)
            for path, packed in heads.items():
                # Neither put nor dropped since the update began.
                if path in self._blobs and path not in self._heads:
                    self._packed_heads[path] = packed
                    self._encoded[path] = encoded[path]

    def blob(self, path: str) -> str:
        return self._blobs[path]

    def blobs(self) -> dict[str, str]:
        return dict(self._blobs)

    @property
    def blob_ids(self) -> Mapping[str, str]:
        """Every file's blob id, as held (not a copy: read it, never change it)."""
        return self._blobs

    def keys(self) -> KeysView[str]:
        # The dict's own view: set operations on it run in C, where a Mapping's call
        # ``__contains__`` per path (a second each at 100k files, over an update's few).
        return self._blobs.keys()

    def paths_in_shards(self, shards: set[int]) -> list[str]:
        """The files of these cache shards, sorted: from the shards as read (they must be),
        and the files put since; every file when the cache was read whole."""
        shard_of = self.parts.shard_of
        if self._reader is None:
            return sorted(path for path in self._blobs if shard_of(path) in shards)
        assert not shards & self._unread
        found = {path for shard in shards for path in self._reader.read(shard)[0]}
        found.update(path for path in self._decoded if shard_of(path) in shards)
        return sorted(path for path in found if path in self._blobs)

    def _entry(self, path: str) -> CachedFile:
        entry = self._decoded.get(path)
        if entry is None:
            head = self.head(path)
            entry = CachedFile.load(self._encoded[path], head)
            self._decoded[path] = entry
        return entry

    def copy(self) -> CachedFiles:
        """Another view of the same entries, each decoded anew when read: what one changes
        the other never sees."""
        other = CachedFiles(
            dict(self._heads),
            dict(self._encoded),
            dict(self.checksums),
            self._reader,
            dict(self._blobs),
            self.parts,
        )
        other._packed_heads = dict(self._packed_heads)
        other._unread = set(self._unread)
        return other

    def put(self, path: str, entry: CachedFile) -> None:
        self._decoded[path] = entry
        self._encoded.pop(path, None)
        self._packed_heads.pop(path, None)
        self._heads[path] = entry.head()
        self._blobs[path] = entry.blob

    def drop(self, path: str) -> None:
        self._heads.pop(path, None)
        self._packed_heads.pop(path, None)
        self._encoded.pop(path, None)
        self._decoded.pop(path, None)
        self._blobs.pop(path, None)

    def refresh_head(self, path: str) -> None:
        """Take a decoded entry's head anew (after its file was resolved again)."""
        self._heads[path] = self[path].head()

    def decoded(self) -> dict[str, CachedFile]:
        return self._decoded

    def encoded(self, path: str) -> bytes:
        entry = self._decoded.get(path)
        if entry is not None:
            return entry.dump()
        if path not in self._encoded:
            self.head(path)  # reads its shard
        return self._encoded[path]


# A shard as the cache wrote it: (sha256 of its bytes, size, mtime_ns, inode, ctime_ns). The
# ctime, which no tool can set back (``touch -r`` restores only the mtime), makes a same-size
# edit whose mtime was put back a change of stat, so it is hashed.
ShardStamp = tuple[str, int, int, int, int]


class Manifest:
    __slots__ = (
        "blobs",
        "by_language",
        "checksums",
        "ends",
        "extras",
        "listed_beside",
        "listed_checksum",
        "listing",
        "members",
        "parts",
        "restamped",
        "shards",
        "summary",
        "version",
    )

    version: str
    shards: dict[str, ShardStamp]  # name under .kg/raw/ -> what the cache wrote there
    blobs: dict[str, str]
    summary: dict[str, Any]
    # .kg/raw/ as laid out (``layout.Layout``): each shard's files, where each one's records
    # end. By shard: an edit carries every shard it does not lay out again over whole.
    members: dict[str, list[str]]
    ends: dict[str, tuple[int, ...]]
    checksums: dict[str, str]  # cache file -> its checksum, as this manifest was written
    # language -> its files, sorted: what resolution groups files by, known without reading
    # every file's head.
    by_language: dict[str, list[str]]
    # path -> ``extra`` of each file whose language other files read it of
    # (``Language.extra_read_across``): a workspace's tables, without decoding those files.
    extras: dict[str, dict[str, str]]
    # ``Listing.fingerprint`` of the index the update that wrote this read ("" when a file
    # differed from it): the same fingerprint, and nothing changed.
    listing: str
    # The checksum of ``LISTED_FILE``, the index listing ``blobs`` were read from (see
    # ``current.ListedThen``): the next update reads the blob ids of the records that differ
    # from it, and takes the others' from ``blobs``. A file of its own: a run that finds
    # nothing changed never reads it (7 MB at 100k files).
    listed_checksum: str
    # The rest of that listing (``ListedThen`` but its ``staged``): the files that differed
    # from the index then, and the ``exclude`` setting. Kept here, not in ``LISTED_FILE``: an
    # edit not staged changes them alone, and the index listing (1 MB at 10k files) is then
    # not written again.
    listed_beside: tuple[Any, ...]
    parts: Parts  # the cache files it goes with
    restamped: bool  # a shard matched by digest, its stat taken anew

    def __init__(
        self,
        version: str,
        shards: dict[str, ShardStamp],
        blobs: dict[str, str],
        summary: dict[str, Any],
        members: dict[str, list[str]],
        ends: dict[str, tuple[int, ...]],
        checksums: dict[str, str],
        by_language: dict[str, list[str]],
        extras: dict[str, dict[str, str]],
        listing: str = "",
        parts: Parts = LARGEST,
        restamped: bool = False,
        listed_checksum: str = "",
        listed_beside: tuple[Any, ...] = (),
    ) -> None:
        self.version = version
        self.shards = shards
        self.blobs = blobs
        self.summary = summary
        self.members = members
        self.ends = ends
        self.checksums = checksums
        self.by_language = by_language
        self.extras = extras
        self.listing = listing
        self.listed_checksum = listed_checksum
        self.listed_beside = listed_beside
        self.parts = parts
        self.restamped = restamped

    def matching_shards(
        self, store: Store, on_disk: dict[str, StatStamp], by_content: bool = False
    ) -> tuple[set[str], set[str]]:
        """(shards on disk that are the ones this manifest describes, shards on disk it does
        not know), of ``on_disk`` (``shard_stats``). Stat first; a shard whose stat moved (a
        checkout rewrote it) is hashed. ``by_content``: every shard is hashed, whatever its
        stat says (the read-only checks: a verdict must rest on what the files hold)."""
        folder = store.path(RAW_DIR)
        matching, unknown = set(), set()
        for name, info in on_disk.items():
            stamp = self.shards.get(name)
            if stamp is None:
                unknown.add(name)
            elif stamp[1:] == info and not by_content:
                matching.add(name)
            elif info[0] == stamp[1]:
                # Hashed only at the size the cache wrote: another size is other bytes, and a
                # checkout can put a file of any size there (read whole, a gigabyte's shard
                # cost a check its memory).
                try:
                    data = (folder / name).read_bytes()
                except OSError:
                    continue
                if hashlib.sha256(data).hexdigest() == stamp[0]:
                    matching.add(name)
                    if stamp[1:] != info:
                        # The same bytes in a new file: its stat is what to compare next time.
                        self.shards[name] = (stamp[0], *info)
                        self.restamped = True
        return matching, unknown

    def save(self, store: Store) -> None:
        _write(
            store,
            MANIFEST_FILE,
            {
                "version": self.version,
                "shards": self.shards,
                "blobs": self.blobs,
                "summary": self.summary,
                "members": self.members,
                "ends": self.ends,
                "checksums": self.checksums,
                "by_language": self.by_language,
                "extras": self.extras,
                "listing": self.listing,
                "listed_checksum": self.listed_checksum,
                "listed_beside": self.listed_beside,
                "parts": tuple(self.parts),
            },
        )


StatStamp = tuple[int, int, int, int]  # (size, mtime_ns, inode, ctime_ns)


def shard_stats(store: Store) -> dict[str, StatStamp]:
    """(size, mtime_ns, inode, ctime_ns) of every shard under .kg/raw/."""
    # Listed by the walk of .kg/ under the lock, when this run made one: an update asks first
    # thing, before anything is written there.
    found = raw_graph.shard_stats(store, store.listed_under_lock(RAW_DIR)).items()
    return {name: (s.st_size, s.st_mtime_ns, s.st_ino, s.st_ctime_ns) for name, s in found}


def stamp(store: Store, name: str, digest: str) -> ShardStamp:
    info = os.stat(store.path(RAW_DIR) / name)
    return (digest, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


def load_manifest(store: Store, version: str) -> Manifest | None:
    data, _ = _load(store, MANIFEST_FILE)
    if not isinstance(data, dict) or data.get("version") != version:
        return None
    try:
        return Manifest(
            data["version"],
            {name: tuple(value) for name, value in data["shards"].items()},
            data["blobs"],
            data["summary"],
            data["members"],
            data["ends"],
            data["checksums"],
            data["by_language"],
            data["extras"],
            data["listing"],
            Parts(*data["parts"]),
            listed_checksum=data["listed_checksum"],
            listed_beside=tuple(data["listed_beside"]),
        )
    except (KeyError, TypeError, AttributeError):
        return None


def keep_listed(
    store: Store,
    version: str,
    listed: ListedThen,
    then: ListedThen | None,
    manifest: Manifest | None,
) -> tuple[str, tuple[Any, ...]]:
    """(``Manifest.listed_checksum``, ``Manifest.listed_beside``) of a manifest that keeps
    ``listed``. Its index listing is written to ``LISTED_FILE`` unless ``then``, read from
    the file ``manifest`` names, holds the same one: an edit that is not staged leaves the
    index as it was, and writing its listing again was a tenth of such an edit's growth at
    10x a monorepo."""
    checksum = manifest.listed_checksum if manifest is not None else ""
    if then is None or not checksum or then.staged != listed.staged:
        checksum = _write(store, LISTED_FILE, {"version": version, "staged": listed.staged})
    return checksum, (listed.modified, listed.exclude)


def read_listed(store: Store, version: str, manifest: Manifest) -> ListedThen | None:
    """The listing ``keep_listed`` kept, when ``LISTED_FILE`` is the file the manifest
    names; else None (then every file's blob id is read from the listing)."""
    if not manifest.listed_checksum:
        return None
    data, checksum = _load(store, LISTED_FILE)
    if checksum != manifest.listed_checksum or not isinstance(data, dict):
        return None
    if data.get("version") != version:
        return None
    return ListedThen.of((data.get("staged"), *manifest.listed_beside))


def open_files(store: Store, version: str, manifest: Manifest | None) -> CachedFiles:
    """The cache's files as the manifest has them, each cache shard read when a file of it is
    first asked for and held to the checksum the manifest names then (``CacheDamaged``: a
    run killed between writing a shard and the manifest, a disk, a hand; ``update_raw`` then
    reads every shard as a store of facts by blob id). None: no files."""
    if manifest is None:
        return CachedFiles()
    expected = {
        name: c for name, c in manifest.checksums.items() if not name.startswith(NAMES_FILE)
    }
    return CachedFiles(
        checksums=dict(expected),
        reader=ShardReader(store, version, expected),
        blobs=dict(manifest.blobs),
        parts=manifest.parts,
    )


def load_files(store: Store, version: str, parts: Parts | None = None) -> CachedFiles:
    """Every cache shard's files (of ``parts``, else every one there is); a missing or
    foreign shard just contributes none. Read this way, the cache is only a store of facts
    by blob id: every file is resolved again."""
    heads: dict[str, Head] = {}
    encoded: dict[str, bytes] = {}
    checksums: dict[str, str] = {}
    for shard in range(parts.shards if parts is not None else MAX_SHARDS):
        name = _shard_name(shard)
        data, checksum = _load(store, name)
        parsed = _parse_shard(data, version)
        if parsed is None:
            continue
        for path, packed in parsed[0].items():
            head = _unpacked_head(packed)
            if head is not None:  # else a damaged head: the file is parsed again
                heads[path] = head
                encoded[path] = parsed[1][path]
        checksums[name] = checksum
    return CachedFiles(heads, encoded, checksums, parts=parts)


def _parse_shard(data: Any, version: str) -> tuple[dict[str, bytes], dict[str, bytes]] | None:
    """(packed heads, encoded entries) of a cache shard's data; None for another version's
    or data not shaped as kgtool writes it."""
    if not isinstance(data, dict) or data.get("version") != version:
        return None
    heads, encoded = data.get("heads"), data.get("files")
    if not isinstance(heads, dict) or not isinstance(encoded, dict):
        return None
    return (heads, encoded) if heads.keys() == encoded.keys() else None


def pack_head(head: Head) -> bytes:
    return marshal.dumps(tuple(head))


def _unpacked_head(packed: Any) -> Head | None:
    """A ``pack_head``'s head; None when it is not one."""
    try:
        return Head._make(marshal.loads(packed))
    except (EOFError, ValueError, TypeError):
        return None


def load_file_edges(
    store: Store, version: str, parts: Parts
) -> dict[str, tuple[FileEdge, ...]] | None:
    """Only every file's ``file_edges``: layer 2 needs nothing else."""
    files = load_files(store, version, parts)
    return {path: head.file_edges for path, head in files.heads.items()}


def describes(manifest: Manifest, files: CachedFiles, names: NamesData | None) -> bool:
    """Whether ``manifest`` was written with exactly these cache files."""
    found = dict(files.checksums)
    if names is not None:
        found.update(names.checksums)
    return manifest.checksums == found


def _names_shard_name(shard: int) -> str:
    return f"{NAMES_FILE}.{shard:03d}"


# A shard of the name tables: (top level, methods), each a kgtool.raw.names.StoredNameTable,
# and the files that mention a name: name -> the ``path_key`` of each, sorted, as an array of
# 32-bit numbers (``MentionIndex``), a file's as often as it is listed.
NameShard = tuple[dict[str, str], dict[str, str], dict[str, bytes]]
MENTIONED = 2
MentionIndex = dict[str, bytes]


def mention_index(mentions: Mapping[str, Sequence[str]]) -> MentionIndex:
    """Name -> the files that mention it, from each file's names (``CachedFile.mentions``)."""
    keys: dict[str, array[int]] = {}
    for path, names in mentions.items():
        key = path_key(path)
        for name in names:
            found = keys.get(name)
            if found is None:
                found = keys[name] = array("I")
            found.append(key)
    return {name: array("I", sorted(found)).tobytes() for name, found in keys.items()}


class NamesData:
    """The name tables as the cache stores them, in shards by name: a shard is read when a
    name of it is first looked up, and held to the checksum the manifest names (an edit
    looks up a few dozen names of the hundreds of thousands a large repository has)."""

    def __init__(
        self,
        store: Store,
        version: str,
        checksums: dict[str, str],
        parts: Parts,
        shards: dict[int, NameShard] | None = None,
    ) -> None:
        self._store = store
        self._version = version
        self._part_of = parts.name_part_of
        self.checksums = checksums  # of each shard's file, as read or written
        self._shards: dict[int, NameShard] = shards if shards is not None else {}
        self._changed: set[int] = set(self._shards)

    @classmethod
    def of(cls, store: Store, version: str, tables: NameShard, parts: Parts) -> NamesData:
        """New tables (a full build's) in ``parts.names`` parts, every part to be written."""
        empty: dict[int, NameShard] = {part: ({}, {}, {}) for part in range(parts.names)}
        data = cls(store, version, {}, parts, empty)
        # Each table into the same place of its name's shard (of values of its own kind).
        held: tuple[Mapping[str, Any], ...] = tables
        for which, table in enumerate(held):
            for name, value in table.items():
                data._shards[data._part_of(name)][which][name] = value
        return data

    def table(self, which: int, name: str) -> dict[str, Any]:
        """Of the top-level table (0), the methods' (1) or the mentions' (``MENTIONED``), the
        part that holds ``name``; raises ``CacheDamaged``."""
        shard = self._part_of(name)
        tables = self._shards.get(shard)
        if tables is None:
            file = _names_shard_name(shard)
            data = _vouched(self._store, file, self.checksums)
            found = data.get("tables") if isinstance(data, dict) else None
            if (
                not isinstance(data, dict)
                or data.get("version") != self._version
                or not isinstance(found, tuple)
                or [type(table) for table in found] != [dict, dict, dict]
            ):
                raise CacheDamaged(file)
            tables = self._shards[shard] = found
        return tables[which]

    def changed(self, name: str) -> None:
        """The part that holds ``name`` was changed: it is written by ``write``."""
        self._changed.add(self._part_of(name))

    def mentioning(self, names: Iterable[str]) -> set[int]:
        """The ``path_key`` of every file that mentions one of ``names``."""
        keys: set[int] = set()
        for name in names:
            found = self.table(MENTIONED, name).get(name)
            if found is not None:
                keys.update(array("I", found))
        return keys

    def patch_mentions(
        self, before: Mapping[str, Sequence[str]], after: Mapping[str, Sequence[str]]
    ) -> None:
        """Take out the mentions of the files of ``before`` and put in those of ``after``: only
        the names a file mentions or stops mentioning are touched."""
        for path in sorted(before.keys() | after.keys()):
            old, new = set(before.get(path, ())), set(after.get(path, ()))
            key = path_key(path)
            for name in sorted(old ^ new):
                table = self.table(MENTIONED, name)
                keys = array("I", table.get(name, b""))
                if name in old:
                    try:
                        keys.remove(key)  # one of them: another file may have the same key
                    except ValueError:  # the index never heard of it: not this cache's
                        raise CacheDamaged(_names_shard_name(self._part_of(name))) from None
                else:
                    keys.insert(bisect.bisect(keys, key), key)
                if keys:
                    table[name] = keys.tobytes()
                else:
                    table.pop(name, None)
                self.changed(name)

    def write(self) -> None:
        for shard in sorted(self._changed):
            file = _names_shard_name(shard)
            payload = {"version": self._version, "tables": self._shards[shard]}
            self.checksums[file] = _write(self._store, file, payload)
        self._changed.clear()


def open_names(store: Store, version: str, manifest: Manifest | None) -> NamesData | None:
    """The name tables the manifest vouches for, each part read as it is looked up and held
    to the checksum the manifest names then. Their first bytes are not checked up front, as
    the cache shards' are: ``save`` writes a cache shard before any part (an edit that
    changes names has parsed a file), so a run killed after writing parts shows in the
    shards already."""
    if manifest is None:
        return None
    expected = {name: c for name, c in manifest.checksums.items() if name.startswith(NAMES_FILE)}
    parts = manifest.parts
    return NamesData(store, version, expected, parts) if len(expected) == parts.names else None


def save(
    store: Store,
    version: str,
    files: CachedFiles,
    raw_shards: dict[str, ShardStamp],
    summary: dict[str, Any],
    members: dict[str, list[str]],
    ends: dict[str, tuple[int, ...]],
    names: NamesData,
    grouped_by_language: dict[str, list[str]],
    extras: dict[str, dict[str, str]],
    listing: str,
    parts: Parts,
    kept_listing: tuple[str, tuple[Any, ...]],
    dirty: set[str] | None = None,
) -> None:
    """Write the cache shards holding a ``dirty`` path (all when None, in ``parts``; else the
    parts are the cache's) and the shards of the name tables that changed, then the manifest
    that names them, with ``kept_listing`` (``keep_listed``'s, already written)."""
    if dirty is None:
        shard_of = parts.shard_of
        grouped: dict[int, list[str]] = {shard: [] for shard in range(parts.shards)}
        for path in sorted(files.keys()):
            grouped[shard_of(path)].append(path)
        files.checksums = {}  # every shard is written anew, and no other is named
    else:
        assert parts == files.parts
        shards = {parts.shard_of(path) for path in dirty}
        grouped = {shard: [] for shard in shards}
        for path in files.paths_in_shards(shards):
            grouped[parts.shard_of(path)].append(path)
    for shard, paths in sorted(grouped.items()):
        name = _shard_name(shard)
        files.checksums[name] = _write(
            store,
            name,
            {
                "version": version,
                "files": {path: files.encoded(path) for path in paths},
                "heads": {path: files.packed_head(path) for path in paths},
            },
        )
    names.write()
    Manifest(
        version,
        raw_shards,
        files.blobs(),
        summary,
        members,
        ends,
        {**files.checksums, **names.checksums},
        grouped_by_language,
        extras,
        listing,
        parts,
        listed_checksum=kept_listing[0],
        listed_beside=kept_listing[1],
    ).save(store)
    if dirty is None:  # the shards and parts of a cache laid out in more of them before
        _remove_all_but(store, {*files.checksums, *names.checksums})


def _remove_all_but(store: Store, kept: set[str]) -> None:
    """Remove the cache files of this module's that are not ``kept`` (the manifest names
    them): left beside a manifest that does not, they would only be read to be refused."""
    try:
        found = os.listdir(store.cache_dir)
    except OSError:
        return
    for name in sorted(found):
        prefix, _, number = name.rpartition(".")
        if prefix in (CACHE_FILE, NAMES_FILE) and number.isdigit() and name not in kept:
            with contextlib.suppress(OSError):
                os.unlink(store.cache_dir / name)


def _vouched(store: Store, name: str, checksums: dict[str, str]) -> Any:
    """A cache file's value, held to the checksum a manifest names for it; raises
    ``CacheDamaged`` when it is not that file."""
    data, checksum = _load(store, name)
    if not checksum or checksum != checksums.get(name):
        raise CacheDamaged(name)
    return data


def _checksum(payload: bytes) -> bytes:
    return (zlib.crc32(payload) << 32 | len(payload) & 0xFFFFFFFF).to_bytes(CHECKSUM_BYTES, "big")


def _write(store: Store, name: str, value: Any) -> str:
    """Write a cache file; its checksum, as hex."""
    payload = marshal.dumps(value)
    checksum = _checksum(payload)
    atomic_write(store.cache_dir / name, checksum + payload, durable=False)
    return checksum.hex()


def _load(store: Store, name: str) -> tuple[Any, str]:
    """A cache file's value and checksum; (None, "") when it is missing, unreadable, or not
    what kgtool wrote."""
    try:
        data = (store.cache_dir / name).read_bytes()
    except OSError:
        return None, ""
    checksum, payload = data[:CHECKSUM_BYTES], data[CHECKSUM_BYTES:]
    if len(checksum) < CHECKSUM_BYTES or checksum != _checksum(payload):
        return None, ""
    try:
        return marshal.loads(payload), checksum.hex()
    except (EOFError, ValueError, TypeError):
        return None, ""
