"""The local layer-1 cache in ``.kg/cache/`` (never committed).

A manifest and shards, so that the per-commit question "did anything change?" reads a few
kilobytes and a one-file edit rewrites one shard, not tens of megabytes:

- ``raw.manifest``: the blob id of every file, the digest and stat of each shard of
  ``.kg/raw/`` they rendered, where each file's records stand in its shard, and the summary
  numbers;
- ``raw.cache.<NN>``: per file (a file's shard is fixed by its path), its facts, the counts of
  its records, and its edges to other files folded for layer 2 (``file_edges``).

A file's rendered records are not cached: while its shard is the one the manifest describes,
an unchanged file's records are cut from it by their span.

Both are ``marshal`` data of builtin types: loading tens of megabytes of it takes milliseconds,
where pickled objects took a second. A cache of another key (extractor version, layer-1
settings) is ignored, and so is a file whose checksum does not match.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kgtool.raw import graph as raw_graph
from kgtool.raw.model import AssignFact, CallFact, FileEdge, FileFacts
from kgtool.store import RAW_DIR, Store, atomic_write

MANIFEST_FILE = "raw.manifest"
# Each file starts with a checksum of the rest: a cache edited or damaged into valid but wrong
# data must cost a rebuild, never a wrong graph (blake2b: about 1 ms per megabyte).
CHECKSUM_BYTES = 16
CACHE_FILE = "raw.cache"
SHARDS = 16


def shard_of(path: str) -> int:
    return zlib.crc32(path.encode("utf-8", "surrogateescape")) % SHARDS


def _shard_name(shard: int) -> str:
    return f"{CACHE_FILE}.{shard:02d}"


@dataclass
class CachedFile:
    blob: str
    facts: FileFacts
    lines: bytes = b""  # its records in its shard, once rendered (or cut from the old shard)
    edge_counts: Counter[tuple[str, str]] = field(default_factory=Counter)  # (type, tier)
    unresolved_calls: int = 0
    externals: frozenset[str] = frozenset()  # external package IDs its edges point to
    mentions: frozenset[str] = frozenset()  # every name its resolution depends on
    file_edges: tuple[FileEdge, ...] = ()  # its edges to other files, as layer 2 reads them
    broken_imports: tuple[tuple[int, str], ...] = ()  # (line, module) of imports that broke
    # Calls and assignments as stored, until ``hydrate``: only the files being resolved need
    # them, and decoding every file's would cost more than the rest of an update.
    body: bytes | None = None  # marshal of (calls, assigns): decoded only by ``hydrate``

    def hydrate(self) -> FileFacts:
        if self.body is not None:
            calls, assigns = marshal.loads(self.body)
            self.facts.calls = list(map(CallFact._make, calls))
            self.facts.assigns = list(map(AssignFact._make, assigns))
            self.body = None
        return self.facts

    def dump(self) -> tuple[Any, ...]:
        facts = self.facts.to_json()
        body = self.body
        if body is None:
            body = marshal.dumps((facts["calls"], facts["assigns"]))
        # The body travels as bytes in the "calls" slot, undecoded until a resolution needs it.
        facts["calls"], facts["assigns"] = body, ()
        return (
            self.blob,
            facts,
            tuple((kind, tier, n) for (kind, tier), n in sorted(self.edge_counts.items())),
            self.unresolved_calls,
            tuple(sorted(self.externals)),
            tuple(sorted(self.mentions)),
            self.file_edges,
            self.broken_imports,
        )

    @classmethod
    def load(cls, data: tuple[Any, ...]) -> CachedFile:
        blob, facts, counts, unresolved, externals, mentions, edges, broken = data
        body = facts["calls"]
        facts["calls"] = facts["assigns"] = ()
        return cls(
            blob,
            FileFacts.from_json(facts),
            b"",
            Counter({(kind, tier): n for kind, tier, n in counts}),
            unresolved,
            frozenset(externals),
            frozenset(mentions),
            edges,
            tuple(map(tuple, broken)),
            body,
        )


# A shard as the cache wrote it: (sha256 of its bytes, size, mtime_ns, inode).
ShardStamp = tuple[str, int, int, int]


@dataclass
class Manifest:
    version: str
    shards: dict[str, ShardStamp]  # name under .kg/raw/ -> what the cache wrote there
    blobs: dict[str, str]
    summary: dict[str, Any]
    spans: dict[str, tuple[str, int, int]]  # path -> (shard, start, end) of its records
    restamped: bool = False  # a shard matched by digest, its stat taken anew

    def matching_shards(self, store: Store) -> tuple[set[str], set[str]]:
        """(shards on disk that are the ones this manifest describes, shards on disk it does
        not know). Stat first; a shard whose stat moved (a checkout rewrote it) is hashed."""
        folder = store.path(RAW_DIR)
        matching, unknown = set(), set()
        for name, info in shard_stats(store).items():
            stamp = self.shards.get(name)
            if stamp is None:
                unknown.add(name)
            elif stamp[1:] == info:
                matching.add(name)
            else:
                try:
                    data = (folder / name).read_bytes()
                except OSError:
                    continue
                if hashlib.sha256(data).hexdigest() == stamp[0]:
                    matching.add(name)
                    # The same bytes in a new file: its stat is what to compare next time.
                    self.shards[name] = (stamp[0], *info)
                    self.restamped = True
        return matching, unknown

    def save_stamps(self, store: Store) -> None:
        """Write the manifest again with the stat of shards found by their digest, so that
        the next run compares stats, not contents (after a checkout, or the hook's copy)."""
        manifest = {
            "version": self.version,
            "shards": self.shards,
            "blobs": self.blobs,
            "summary": self.summary,
            "spans": self.spans,
        }
        _write(store, MANIFEST_FILE, manifest)


def shard_stats(store: Store) -> dict[str, tuple[int, int, int]]:
    """(size, mtime_ns, inode) of every shard under .kg/raw/."""
    found = raw_graph.shard_stats(store).items()
    return {name: (s.st_size, s.st_mtime_ns, s.st_ino) for name, s in found}


def stamp(store: Store, name: str, digest: str) -> ShardStamp:
    info = os.stat(store.path(RAW_DIR) / name)
    return (digest, info.st_size, info.st_mtime_ns, info.st_ino)


def load_manifest(store: Store, version: str) -> Manifest | None:
    data = _load(store, MANIFEST_FILE)
    if not isinstance(data, dict) or data.get("version") != version:
        return None
    try:
        return Manifest(
            data["version"],
            {name: tuple(value) for name, value in data["shards"].items()},
            data["blobs"],
            data["summary"],
            data["spans"],
        )
    except (KeyError, TypeError, AttributeError):
        return None


def _entries(store: Store, version: str) -> dict[str, tuple[Any, ...]]:
    """Every shard's stored entries; a missing or foreign shard just contributes none."""
    entries: dict[str, tuple[Any, ...]] = {}
    for shard in range(SHARDS):
        data = _load(store, _shard_name(shard))
        if isinstance(data, dict) and data.get("version") == version:
            files = data.get("files")
            if isinstance(files, dict):
                entries.update(files)
    return entries


def load_files(store: Store, version: str) -> dict[str, CachedFile]:
    try:
        return {path: CachedFile.load(entry) for path, entry in _entries(store, version).items()}
    except (KeyError, TypeError, ValueError):
        return {}


def load_file_edges(store: Store, version: str) -> dict[str, tuple[FileEdge, ...]] | None:
    """Only every file's ``file_edges``: layer 2 needs nothing else, and skipping the facts
    saves most of the decoding."""
    try:
        return {path: entry[6] for path, entry in _entries(store, version).items()}
    except (KeyError, TypeError, IndexError):
        return None


def save(
    store: Store,
    version: str,
    files: dict[str, CachedFile],
    raw_shards: dict[str, ShardStamp],
    summary: dict[str, Any],
    spans: dict[str, tuple[str, int, int]],
    dirty: set[str] | None = None,
) -> None:
    """Write the shards holding a ``dirty`` path (all when None), then the manifest.

    The shards first: a crash between the two leaves a manifest that no longer matches.
    """
    shards = set(range(SHARDS)) if dirty is None else {shard_of(path) for path in dirty}
    grouped: dict[int, dict[str, tuple[Any, ...]]] = {shard: {} for shard in shards}
    for path, entry in files.items():
        shard = shard_of(path)
        if shard in grouped:
            grouped[shard][path] = entry.dump()
    for shard, entries in sorted(grouped.items()):
        _write(store, _shard_name(shard), {"version": version, "files": entries})
    manifest = {
        "version": version,
        "shards": raw_shards,
        "blobs": {path: entry.blob for path, entry in files.items()},
        "summary": summary,
        "spans": spans,
    }
    _write(store, MANIFEST_FILE, manifest)


def _checksum(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=CHECKSUM_BYTES).digest()


def _write(store: Store, name: str, value: Any) -> None:
    payload = marshal.dumps(value)
    atomic_write(store.cache_dir / name, _checksum(payload) + payload, durable=False)


def _load(store: Store, name: str) -> Any:
    """A cache file's value; None when it is missing, unreadable, or not what kgtool wrote."""
    try:
        data = (store.cache_dir / name).read_bytes()
    except OSError:
        return None
    checksum, payload = data[:CHECKSUM_BYTES], data[CHECKSUM_BYTES:]
    if len(checksum) < CHECKSUM_BYTES or checksum != _checksum(payload):
        return None
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
