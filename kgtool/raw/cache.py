"""The local layer-1 cache in ``.kg/cache/`` (never committed).

A manifest and shards, so that the per-commit question "did anything change?" reads a few
kilobytes and a one-file edit rewrites one shard, not tens of megabytes:

- ``raw.manifest``: the blob id of every file, the digest and stat of the raw.jsonl they
  rendered, where each file's records stand in it, and the summary numbers;
- ``raw.cache.<NN>``: per file (a file's shard is fixed by its path), its facts, the counts of
  its records, and its edges to other files folded for layer 2 (``file_edges``).

A file's rendered records are not cached: while raw.jsonl is the one the manifest describes,
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

from kgtool.raw.model import AssignFact, CallFact, FileEdge, FileFacts
from kgtool.store import RAW_FILE, Store, atomic_write

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
    lines: bytes = b""  # its records in raw.jsonl, once rendered (or cut from the old file)
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


@dataclass
class Manifest:
    version: str
    raw_digest: str  # sha256 of the raw.jsonl the cache rendered
    raw_stat: tuple[int, int, int]  # (size, mtime_ns, inode): skips hashing when unchanged
    blobs: dict[str, str]
    summary: dict[str, Any]
    spans: dict[str, tuple[int, int]]  # path -> (start, end) of its records in raw.jsonl


def raw_stat(store: Store) -> tuple[int, int, int]:
    try:
        stat = os.stat(store.path(RAW_FILE))
    except FileNotFoundError:
        return (-1, -1, -1)
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def load_manifest(store: Store, version: str) -> Manifest | None:
    data = _load(store, MANIFEST_FILE)
    if not isinstance(data, dict) or data.get("version") != version:
        return None
    try:
        return Manifest(
            data["version"],
            data["raw_digest"],
            tuple(data["raw_stat"]),
            data["blobs"],
            data["summary"],
            data["spans"],
        )
    except (KeyError, TypeError):
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
    raw_digest: str,
    summary: dict[str, Any],
    spans: dict[str, tuple[int, int]],
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
        "raw_digest": raw_digest,
        "raw_stat": raw_stat(store),
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
