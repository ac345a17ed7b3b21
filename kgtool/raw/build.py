"""Building and refreshing layer 1 (the shards under ``.kg/raw/``), incrementally.

The committed shards are the source of truth for readers; a local cache beside them (never
committed) keeps each file's facts, keyed by git blob id, a fingerprint of this code and the
settings that change the output, and where its records stand in its shard. Unchanged files
are never re-parsed; resolution is redone for the changed files and for the files whose names
the change touched; only the shards whose bytes change are written.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import json
import marshal
import os
import posixpath
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from kgtool import progress
from kgtool.config import Config
from kgtool.raw import cache, shards
from kgtool.raw import graph as raw_graph
from kgtool.raw.cache import CachedFile, CachedFiles, Projected
from kgtool.raw.graph import DEFAULT_CONFIDENCE, EDGE_LINES, FORMAT_VERSION, SPANS
from kgtool.raw.model import (
    ARGUMENT,
    CLASS_KINDS,
    CONTAINS,
    DECORATED,
    EXTRACTED,
    MODULE_SEPARATORS,
    PARSE_PARTIAL,
    RETURNS,
    SKIP_UNREADABLE,
    STATED,
    Edge,
    FileEdge,
    FileFacts,
    called_name,
    file_edges,
    symbol_id,
)
from kgtool.repo import MODE_SUBMODULE, MODE_SYMLINK, Listing, TrackedFile, listing, tracked_files
from kgtool.store import (
    CACHE_DIR,
    KG_DIR,
    LEGACY_RAW_FILE,
    RAW_DIR,
    Store,
    atomic_write,
    canonical_json,
)

if TYPE_CHECKING:
    from kgtool.raw.resolve import FileResolution, NameTable, NameTables, RepoIndex

# Bump when extraction or resolution changes what they produce; each shard's meta line says
# which it is (FORMAT_VERSION, in kgtool/raw/graph.py, is the records' shape).
EXTRACTOR_VERSION = "10"  # 3: broken imports, too-deep files; 4: Go and Java values typed;
# 5: TypeScript and JavaScript values; 6: Python functions held in values; 7: sharded;
# 8: Python ``raise A``, calls of a call's result, functions passed to map/sorted/...;
# 9: Python absolute imports from the folders Python searches (no folder inside a package);
# 10: TypeScript type aliases are symbols.
# Shards written at once: enough to keep a disk's queue full while each waits on its fsync.
WRITE_THREADS = 16
# Resolution chunks per worker: more spread the work evenly, and bound what a worker holds
# at once (it forgets each chunk's files when done), at the cost of learning shared files anew.
CHUNKS_PER_WORKER = 8
# The digest of every file's folded edges is a sum of one term per file, modulo this: an
# update takes the terms of the files it changed out and puts their new ones in.
EDGES_DIGEST_MODULUS = 1 << 256


class UpdateResult:
    __slots__ = (
        "_blobs",
        "_cached",
        "_edges_digest",
        "_heads",
        "_layout",
        "bad_names",
        "broken_imports",
        "changed",
        "digest",
        "edges",
        "files",
        "migrated",
        "parsed",
        "partial",
        "removed",
        "resolved",
        "seconds",
        "skipped",
        "symbols",
        "tracked_cache",
        "unresolved_calls",
        "written",
    )

    changed: bool  # a shard differs (or would differ) from what is on disk
    parsed: list[str]
    resolved: int
    files: int
    symbols: int
    edges: Counter[tuple[str, str]]  # (type, tier) -> count
    skipped: list[tuple[str, str]]  # (path, reason)
    partial: list[tuple[str, list[int], str]]  # (path, error lines, PARTIAL_* reason or "")
    unresolved_calls: int
    # (path, line, module): imports of this repository's own code that resolve to no file.
    broken_imports: list[tuple[str, int, str]]
    seconds: float
    # ``kgtool.raw.graph.content_digest`` of the shards as written (or as they would be).
    digest: str
    # Tracked files left out because their names are not UTF-8, as printable text.
    bad_names: list[str]
    # Files git tracks under .kg/cache/ (the folder an older kgtool kept its cache in): never
    # read, and reported, since a commit that carries them means to pose as kgtool's cache.
    tracked_cache: list[str]
    # Shards under .kg/raw/ written (or that would be) and removed (or that would be).
    written: list[str]
    removed: list[str]
    migrated: bool  # a .kg/raw.jsonl of an older kgtool was (or would be) replaced
    # ``file_edges_digest()``, as the summary keeps it.
    _edges_digest: bytes
    # Where ``file_edges`` comes from: this run's files, or the cache a no-change run trusted.
    _heads: Mapping[str, cache.Head] | None
    _blobs: Mapping[str, str] | None
    _cached: tuple[Store, dict[str, str], str, cache.Parts] | None
    # Where ``content`` comes from: this run's layout and the shards it built, or the disk.
    _layout: tuple[Layout, dict[str, bytes], Store] | None

    def __init__(
        self,
        changed: bool,
        parsed: list[str],
        resolved: int,
        files: int,
        symbols: int,
        edges: Counter[tuple[str, str]],
        skipped: list[tuple[str, str]],
        partial: list[tuple[str, list[int], str]],
        unresolved_calls: int,
        broken_imports: list[tuple[str, int, str]],
        seconds: float,
        digest: str = "",
        bad_names: list[str] | None = None,
        written: list[str] | None = None,
        removed: list[str] | None = None,
        migrated: bool = False,
        _edges_digest: bytes = b"",
        _heads: Mapping[str, cache.Head] | None = None,
        _blobs: Mapping[str, str] | None = None,
        _cached: tuple[Store, dict[str, str], str, cache.Parts] | None = None,
        _layout: tuple[Layout, dict[str, bytes], Store] | None = None,
    ) -> None:
        self.changed = changed
        self.parsed = parsed
        self.resolved = resolved
        self.files = files
        self.symbols = symbols
        self.edges = edges
        self.skipped = skipped
        self.partial = partial
        self.unresolved_calls = unresolved_calls
        self.broken_imports = broken_imports
        self.seconds = seconds
        self.digest = digest
        self.bad_names = [] if bad_names is None else bad_names
        self.tracked_cache: list[str] = []
        self.written = [] if written is None else written
        self.removed = [] if removed is None else removed
        self.migrated = migrated
        self._edges_digest = _edges_digest
        self._heads = _heads
        self._blobs = _blobs
        self._cached = _cached
        self._layout = _layout

    @property
    def content(self) -> bytes:
        """Layer 1 as a reader of .kg/raw/ reads it (or would, when nothing was written):
        joined when asked for, which ``kgtool update`` never does."""
        if self._layout is not None:
            layout, shard_bytes, store = self._layout
            return layout.content(shard_bytes, store)
        if self._cached is not None:
            loaded = raw_graph.load(self._cached[0])
            if loaded is not None and loaded.data is not None:
                return loaded.data
        return b""

    def file_edges_digest(self) -> bytes:
        """A digest of ``file_edges()`` (equal edges, equal digests): what layer 2 keys its
        document on, kept up to date from the files an update changed (see ``_edges_term``)."""
        return self._edges_digest

    def blobs(self) -> dict[str, str]:
        """Each file's blob id: its working-tree content, as layer 1 read it ("" when none)."""
        if self._blobs is not None:
            return dict(self._blobs)
        return dict(self._cached[1]) if self._cached is not None else {}

    def file_edges(self) -> dict[str, tuple[FileEdge, ...]] | None:
        """Every file's edges to other files, as layer 2 folds them; None when unknown.

        After the no-change path they are read from the cache, and only when the cache holds
        exactly the files the manifest vouched for (a crash between writing the two would
        otherwise hand on another tree's edges).
        """
        if self._heads is not None:
            try:
                return {path: head.file_edges for path, head in self._heads.items()}
            except cache.CacheDamaged:  # a cache shard damaged since the update began
                return None
        if self._cached is None:
            return None
        store, blobs, key, parts = self._cached
        edges = cache.load_file_edges(store, key, parts)
        return edges if edges is not None and edges.keys() == blobs.keys() else None

    @classmethod
    def from_summary(cls, summary: dict[str, Any], started: float) -> UpdateResult:
        return cls(
            changed=False,
            parsed=[],
            resolved=0,
            files=summary["files"],
            symbols=summary["symbols"],
            edges=Counter({(kind, tier): n for kind, tier, n in summary["edges"]}),
            skipped=[tuple(item) for item in summary["skipped"]],
            partial=[(path, list(lines), why) for path, lines, why in summary["partial"]],
            unresolved_calls=summary["unresolved_calls"],
            broken_imports=[tuple(item) for item in summary["broken_imports"]],
            seconds=time.perf_counter() - started,
            _edges_digest=bytes.fromhex(summary["edges_digest"]),
        )


@functools.cache
def cache_version() -> str:
    """The local cache's key: the extractor version and a fingerprint of layer 1's own code.

    A change to a query or a resolution rule must redo every file even when nobody bumped
    EXTRACTOR_VERSION; reading these few files costs about a millisecond.
    """
    hasher = hashlib.sha256(EXTRACTOR_VERSION.encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".scm"):
            hasher.update(path.relative_to(package).as_posix().encode() + b"\0")
            hasher.update(path.read_bytes())
    return f"{EXTRACTOR_VERSION}-{hasher.hexdigest()[:16]}"


# Layer 1's settings are the config's top-level ones (each other layer has its section), and
# all are in the cache key, so that changing one redoes every file; a new one is covered
# without a list to keep. Except these: ``exclude`` changes the file set, which every run
# compares, and ``jobs`` and ``ignore`` (which findings are printed) change nothing written.
NOT_IN_CACHE_KEY = ("exclude", "jobs", "ignore")


def cache_key(config: Config) -> str:
    settings = canonical_json(
        {
            name: value
            for name, value in config.values.items()
            if not isinstance(value, dict) and name not in NOT_IN_CACHE_KEY
        }
    )
    return f"{cache_version()}-{digest(settings.encode())[:12]}"


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A gitignore-style glob: ``**`` spans folders, ``*`` and ``?`` stay inside one."""
    body = glob_body(pattern).rstrip("/")
    # A pattern without a slash matches at any depth, as in .gitignore; a folder covers its files.
    prefix = "" if "/" in pattern.rstrip("/") else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$")


def glob_body(pattern: str) -> str:
    """The regular expression of a glob, unanchored: ``**/`` is any number of folders, ``**``
    anything, ``*`` and ``?`` stay inside one folder."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def excluded(path: str, patterns: list[str]) -> bool:
    return exclusion(patterns)(path)


def exclusion(patterns: list[str]) -> Callable[[str], bool]:
    """Whether a path is one the ``exclude`` globs leave out: one regular expression for them
    all, made once (a run asks it of every tracked file)."""
    return _exclusion(tuple(patterns))


@functools.cache
def _exclusion(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    if not patterns:
        return lambda path: False
    either = re.compile("|".join(glob_regex(pattern).pattern for pattern in patterns))
    return lambda path: either.match(path) is not None


def valid_name(path: str) -> bool:
    """Whether a path (decoded from git with surrogateescape) is UTF-8, as every ID must be:
    .kg/ is UTF-8 JSON and a name that is not cannot be written there."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_name(path: str) -> str:
    """A path whose bytes are not UTF-8, with those bytes shown as \\xNN."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def update_raw(root: Path, config: Config, store: Store, write: bool = True) -> UpdateResult:
    try:
        return _update_raw(root, config, store, write, use_cache=True)
    except cache.CacheDamaged:
        # A cache shard changed under a manifest that vouched for it (a disk, a hand): what
        # the cache says cannot be trusted, and layer 1 is built again without it.
        return _update_raw(root, config, store, write, use_cache=False)


def _update_raw(
    root: Path, config: Config, store: Store, write: bool, use_cache: bool
) -> UpdateResult:
    started = time.perf_counter()
    listed = listing(root)
    tracked_cache = listed.paths_under(f"{KG_DIR}/{CACHE_DIR}")
    if write and not tracked_cache:
        _remove_legacy_cache(store)
    # The index as it stands: when it is the one the manifest was written from, and no file
    # differs from it, nothing else need be read to know that nothing changed.
    fingerprint = listed.fingerprint(KG_DIR)
    key = cache_key(config)
    manifest = cache.load_manifest(store, key) if use_cache else None
    legacy = os.path.lexists(store.path(LEGACY_RAW_FILE))
    matching: set[str] = set()
    current: dict[str, TrackedFile] | None = None
    if manifest is not None:
        # A run that writes nothing is a check, and judges .kg/raw/ by its bytes.
        matching, unknown = manifest.matching_shards(store, by_content=not write)
        up_to_date = not legacy and not unknown and matching == manifest.shards.keys()
        if not (up_to_date and fingerprint and fingerprint == manifest.listing):
            current, bad_names = _current_files(root, listed, config)
        if up_to_date and (current is None or _same_blobs(manifest.blobs, current)):
            if write and (manifest.restamped or manifest.listing != fingerprint):
                manifest.listing = fingerprint
                manifest.save(store)
            if current is None:  # an ASCII listing has no name that is not UTF-8
                ascii_only = listed.staged.isascii()
                bad_names = [] if ascii_only else _current_files(root, listed, config)[1]
            result = UpdateResult.from_summary(manifest.summary, started)
            result._cached = (store, manifest.blobs, key, manifest.parts)
            result.digest = raw_graph.content_digest(
                {name: stamp[0] for name, stamp in manifest.shards.items()}
            )
            result.bad_names = bad_names
            result.tracked_cache = tracked_cache
            return result

    if current is None:
        current, bad_names = _current_files(root, listed, config)
    # Imported past the no-change return: a run that finds layer 1 up to date (every hook
    # run without an edit) never parses or resolves, and need not load how.
    from kgtool.raw.extract import extract_files
    from kgtool.raw.resolve import (
        NameLookup,
        RepoIndex,
        files_by_language,
        name_tables,
        patch_name_tables,
        stored_name_tables,
    )

    old_files = cache.open_files(store, key, manifest) if use_cache else CachedFiles()
    names_on_disk = cache.open_names(store, key, manifest) if use_cache else None
    # The manifest, the cache files and the name tables were written together (else a run
    # was killed between them): only then may an update start from what they say.
    # A repository that outgrew the cache's parts has its cache written whole again.
    trusted = (
        manifest is not None
        and cache.describes(manifest, old_files, names_on_disk)
        and manifest.parts.fit(len(current))
    )
    if not trusted:  # every file is resolved again: read every cache shard once, now
        old_files.read_all()
    old_blobs = old_files.blob_ids
    stale_paths = sorted(
        path
        for path, tracked in current.items()
        if not tracked.blob or old_blobs.get(path) != tracked.blob
    )
    readable = [p for p in stale_paths if _readable(current[p])]
    parsed, mentions = extract_files(root, readable, config["max_file_bytes"], config["jobs"])
    for path in stale_paths:
        if path not in parsed:
            parsed[path] = FileFacts(path, "", _unreadable_status(current[path]))
            mentions[path] = ()

    new_files = old_files.copy()
    for path in old_files.keys() - current.keys():
        new_files.drop(path)
    for path in sorted(parsed):
        facts = parsed[path]
        new_files.put(path, CachedFile(current[path].blob, facts, mentions=mentions[path]))

    if trusted:
        assert manifest is not None and names_on_disk is not None
        changed_paths = set(parsed) | (old_files.keys() - new_files.keys())
        names_on_disk.patch_mentions(
            {p: old_files.head(p).mentions for p in sorted(changed_paths) if p in old_files},
            {p: new_files.head(p).mentions for p in sorted(changed_paths) if p in new_files},
        )
        mentioning = _mentioning(new_files, names_on_disk)
        to_resolve = _affected(old_files, new_files, set(parsed), mentioning)
        # A file whose records cannot be cut from its shard as the cache wrote it (a shard
        # rewritten by a merge, a checkout, a hand) is rendered again.
        spans = manifest.spans
        to_resolve |= new_files.keys() - spans.keys()
        if matching != manifest.shards.keys():
            to_resolve |= {
                path for path in new_files if path in spans and spans[path][0] not in matching
            }
        # What the files resolved again counted before, taken out of the summary below.
        dirty = set(parsed) | to_resolve | (old_files.keys() - new_files.keys())
        before = {p: _contribution(old_files, p) for p in sorted(dirty) if p in old_files}
        on_disk = names_on_disk
        lookups = (
            NameLookup(lambda name: on_disk.table(0, name), on_disk.changed),
            NameLookup(lambda name: on_disk.table(1, name), on_disk.changed),
        )
        tables: NameTables = lookups
        patch_name_tables(
            lookups,
            {p: old_files[p].facts if p in old_files else None for p in sorted(changed_paths)},
            {p: new_files[p].facts if p in new_files else None for p in sorted(changed_paths)},
        )
        grouped_by_language = _patched_by_language(
            manifest.by_language,
            {p: old_files.head(p).language for p in sorted(changed_paths) if p in old_files},
            {p: new_files.head(p).language for p in sorted(changed_paths) if p in new_files},
        )
    else:
        to_resolve = set(new_files)
        tables = name_tables({path: new_files[path].facts for path in sorted(new_files)})
        grouped_by_language = files_by_language(
            {path: head.language for path, head in new_files.heads.items()}
        )
    for path in sorted(to_resolve):
        new_files[path].hydrate()
    # A few files resolved read the facts of the files they ask for, and look up what is
    # passed to a parameter in the files that name the function; many read them all.
    few = len(to_resolve) * 4 < len(new_files)
    index = RepoIndex(
        Projected(new_files, lambda p: new_files[p].facts)
        if few
        else {path: new_files[path].facts for path in new_files},
        # Every file resolved is hydrated already.
        hydrate=None if len(to_resolve) == len(new_files) else lambda p: new_files[p].hydrate(),
        names=tables,
        by_language=grouped_by_language,
        mentioning=(lambda name: mentioning([name])) if few and trusted else None,
    )
    _resolve_and_render(index, new_files, sorted(to_resolve), config)
    for path in to_resolve:
        new_files.refresh_head(path)

    layout = _layout(new_files, to_resolve, manifest.spans if manifest is not None else {})
    kept = _kept_shards(layout, manifest, matching, to_resolve)
    shard_bytes = _shard_bytes(store, layout, kept, new_files, to_resolve, manifest)
    for path in to_resolve:  # in the shards now: at 100k files, half a gigabyte kept twice
        new_files[path].lines = b""
    if trusted:
        assert manifest is not None
        summary = _patched_summary(
            manifest.summary,
            len(new_files),
            before,
            {p: _contribution(new_files, p) for p in sorted(dirty) if p in new_files},
        )
    else:
        summary = _summarize(new_files)
    if write:
        store.ensure()
        if trusted:
            # The cache shards rewritten below are read before any shard of .kg/raw/ is
            # written: a damaged one is then found while nothing has changed on disk.
            new_files.read_shards_of(dirty)
    written, removed, stamps = _write_shards(store, layout, shard_bytes, kept, manifest, write)
    changed = bool(written or removed or legacy)
    content_digest = raw_graph.content_digest(
        {
            name: stamps[name][0] if name in stamps else digest(shard_bytes[name])
            for name in layout.members
        }
    )
    if write:  # what a reader of the content then reads is on disk
        shard_bytes = {}
    if write:
        if legacy:
            store.path(LEGACY_RAW_FILE).unlink()
        # Only the cache shards of entries that changed are rewritten (every file missing
        # from the old cache was parsed, so it is among them).
        parts = manifest.parts if trusted and manifest else cache.Parts.for_files(len(new_files))
        cache.save(
            store,
            key,
            new_files,
            stamps,
            summary,
            layout.spans,
            # A full build's tables take their stored form only now: held beside the plain
            # form through resolution, they would raise its peak.
            names_on_disk
            if trusted and names_on_disk is not None
            else cache.NamesData.of(
                store,
                key,
                (
                    # Not trusted: a full build's, as name_tables made them.
                    *stored_name_tables(cast("tuple[NameTable, NameTable]", tables)),
                    cache.mention_index(
                        {path: head.mentions for path, head in new_files.heads.items()}
                    ),
                ),
                parts,
            ),
            grouped_by_language,
            fingerprint,
            parts,
            dirty if trusted else None,
        )
    result = UpdateResult.from_summary(summary, started)
    result.bad_names = bad_names
    result.tracked_cache = tracked_cache
    result.changed = changed
    result.parsed = sorted(parsed)
    result.resolved = len(to_resolve)
    result._layout = (layout, shard_bytes, store)
    result.digest = content_digest
    result.written, result.removed, result.migrated = written, removed, legacy
    result._heads = new_files.heads
    result._blobs = new_files.blob_ids  # not changed past here; blobs() hands out copies
    return result


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
def _meta_line() -> bytes:
    meta = {"rec": "meta", "format": FORMAT_VERSION, "extractor": EXTRACTOR_VERSION}
    return (canonical_json(meta) + "\n").encode("utf-8")


def _layout(
    files: CachedFiles, rendered: set[str], spans: dict[str, tuple[str, int, int]]
) -> Layout:
    """Where each file's records go; a file not ``rendered`` is as long as its old span.

    A file's shard depends on its folder's files and their sizes alone (see ``shards``): the
    folders where a file was rendered or removed are laid out again, every other shard keeps
    its files and their spans as ``spans`` has them."""
    meta = len(_meta_line())
    removed = [path for path in spans if path not in files]
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


def _shard_bytes(
    store: Store,
    layout: Layout,
    kept: set[str],
    files: CachedFiles,
    rendered: set[str],
    manifest: cache.Manifest | None,
) -> dict[str, bytes]:
    """The bytes of every shard but the ``kept`` ones: a file rendered again brings its new
    records; another's are cut from its shard as the cache wrote it (read once each)."""
    old_shards: dict[str, bytes] = {}
    folder = store.path(RAW_DIR)
    contents: dict[str, bytes] = {}
    for name, paths in layout.members.items():
        if name in kept:
            continue
        parts = [_meta_line()]
        for path in paths:
            if path in rendered:
                parts.append(files[path].lines)
                continue
            assert manifest is not None
            old, start, end = manifest.spans[path]
            if old not in old_shards:
                old_shards[old] = (folder / old).read_bytes()
            parts.append(old_shards[old][start:end])
        contents[name] = b"".join(parts)
    return contents


def _kept_shards(
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


def _write_shards(
    store: Store,
    layout: Layout,
    shard_bytes: dict[str, bytes],
    kept: set[str],
    manifest: cache.Manifest | None,
    write: bool,
) -> tuple[list[str], list[str], dict[str, cache.ShardStamp]]:
    """Write the shards whose bytes changed and remove those no file lands in any more;
    (written, removed, each shard's stamp for the manifest). Nothing is written unless
    ``write``: the lists then say what would be."""
    folder = store.path(RAW_DIR)
    if write:  # even with no shard: an empty layer 1 is not a missing one
        folder.mkdir(exist_ok=True)
    on_disk = cache.shard_stats(store)
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
    if write:
        _write_durably({folder / name: shard_bytes[name] for name in written})
        for name in sorted(shard_bytes):
            stamps[name] = cache.stamp(store, name, digest(shard_bytes[name]))
    removed = sorted(on_disk.keys() - layout.members.keys())
    if write:
        for name in removed:
            (folder / name).unlink(missing_ok=True)
    return written, removed, stamps


def _write_durably(files: dict[Path, bytes]) -> None:
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


# What forked resolution workers read: set just before the fork, so never pickled.
_SHARED: tuple[RepoIndex, CachedFiles, int] | None = None


def _resolve_and_render(
    index: RepoIndex, files: CachedFiles, paths: list[str], config: Config
) -> None:
    """Resolve and render ``paths`` into their entries, on every core when there are many."""
    from kgtool.raw.extract import PARALLEL_THRESHOLD
    from kgtool.raw.resolve import resolve_files

    global _SHARED
    workers = config["jobs"] or os.cpu_count() or 1
    if workers <= 1 or len(paths) < PARALLEL_THRESHOLD or not hasattr(os, "fork"):
        for path, resolution in resolve_files(index, paths, config["max_candidates"]).items():
            _render_file(files[path], resolution)
        return
    from kgtool.raw.pool import worker_pool

    _SHARED = (index, files, config["max_candidates"])
    try:
        count = workers * CHUNKS_PER_WORKER
        chunks = [paths[i::count] for i in range(count)]
        with (
            worker_pool(workers, "fork") as pool,
            progress.counting("resolving", len(paths)) as counter,
        ):
            for chunk, data in zip(chunks, pool.map(_resolve_chunk, chunks), strict=True):
                counter.advance(len(chunk))
                for path, lines, counts, unresolved, externals, edges, broken in marshal.loads(
                    data
                ):
                    entry = files[path]
                    entry.broken_imports = broken
                    entry.lines = lines
                    entry.edge_counts = Counter({(k, t): n for k, t, n in counts})
                    entry.unresolved_calls = unresolved
                    entry.externals = frozenset(externals)
                    entry.file_edges = edges
    finally:
        _SHARED = None


def _resolve_chunk(paths: list[str]) -> bytes:
    from kgtool.raw.resolve import resolve_files

    assert _SHARED is not None
    index, files, max_candidates = _SHARED
    out = []
    for path, resolution in resolve_files(index, paths, max_candidates).items():
        entry = files[path]
        _render_file(entry, resolution)
        counts = tuple((k, t, n) for (k, t), n in sorted(entry.edge_counts.items()))
        externals = tuple(entry.externals)
        out.append(
            (
                path,
                entry.lines,
                counts,
                entry.unresolved_calls,
                externals,
                entry.file_edges,
                entry.broken_imports,
            )
        )
        entry.lines = b""  # sent back: a worker keeps nothing of what it rendered
    # Nor what it learnt of the chunk's files: its memory stays that of one chunk.
    index.forget_files()
    return marshal.dumps(out)


def _current_files(
    root: Path, listed: Listing, config: Config
) -> tuple[dict[str, TrackedFile], list[str]]:
    """The files layer 1 covers, by path, and the names left out for not being UTF-8."""
    current: dict[str, TrackedFile] = {}
    bad_names: list[str] = []
    kg_folder = f"{KG_DIR}/"
    skip = exclusion(config["exclude"])
    for tracked in tracked_files(root, listed):
        path = tracked.path
        if path.startswith(kg_folder) or skip(path):
            continue
        if not (path.isascii() or valid_name(path)):
            bad_names.append(printable_name(path))
            continue
        current[path] = tracked
    return current, bad_names


def _remove_legacy_cache(store: Store) -> None:
    """Remove .kg/cache/, where an older kgtool kept its cache: untracked, it is only
    disk (nothing reads it since the cache moved into the git directory)."""
    legacy = store.path(CACHE_DIR)
    if os.path.isdir(legacy) and not os.path.islink(legacy):
        import shutil  # here: almost every run finds no such folder

        shutil.rmtree(legacy, ignore_errors=True)


def _same_blobs(blobs: dict[str, str], current: dict[str, TrackedFile]) -> bool:
    if blobs.keys() != current.keys():
        return False
    return all(tracked.blob and blobs[path] == tracked.blob for path, tracked in current.items())


def _readable(tracked: TrackedFile) -> bool:
    return not tracked.deleted and tracked.mode not in (MODE_SYMLINK, MODE_SUBMODULE)


def _unreadable_status(tracked: TrackedFile) -> str:
    if tracked.mode == MODE_SYMLINK:
        return "skipped:symlink"
    if tracked.mode == MODE_SUBMODULE:
        return "skipped:submodule"
    if tracked.deleted:
        return "skipped:deleted"
    return SKIP_UNREADABLE


def _exports(facts: FileFacts | None) -> set[tuple[str, ...]]:
    if facts is None:
        return set()
    found: set[tuple[str, ...]] = {(s.qualname, s.kind) for s in facts.symbols}
    found.update((i.module, i.name, i.alias) for i in facts.imports)
    found.update((b.owner, b.base) for b in facts.bases)
    found.update(("package", k, v) for k, v in facts.extra.items())
    # What other files read through values: a function's result, a class's attributes (the
    # attribute or function name first, as a call mentions it; "self" would touch every file).
    classes = {s.qualname for s in facts.symbols if s.kind in CLASS_KINDS}
    for assign in facts.assigns:
        if assign.kind == ARGUMENT:
            # Read by the called function's parameters: the called name first, as it is met.
            found.add((called_name(assign), assign.scope, assign.var, assign.callee, assign.kind))
        elif assign.kind == DECORATED:
            found.add((assign.var, assign.scope, assign.callee, assign.kind))
        elif assign.var == RETURNS:
            found.add((assign.scope, assign.callee, assign.kind))
        elif (
            assign.scope in classes
            or not assign.scope  # a package-level variable, seen from the package's other files
            or "." in assign.var
            or assign.kind == STATED
        ):
            attribute = assign.var.rsplit(".", 1)[-1]
            found.add((attribute, assign.scope, assign.callee, assign.kind))
    return found


def _names_of(path: str) -> set[str]:
    stem = posixpath.basename(path).split(".")[0]
    return {stem, *posixpath.dirname(path).split("/")}


def _affected(
    old: CachedFiles,
    new: CachedFiles,
    reparsed: set[str],
    mentioning: Callable[[Iterable[str]], list[str]],
) -> set[str]:
    """The files to resolve again: the changed ones, and those whose names the change touched
    (``mentioning`` gives the files that mention some names)."""
    touched_names: set[str] = set()
    touched_dirs: set[str] = set()
    affected = {p for p in reparsed if p in new}
    for path in reparsed | (old.keys() - new.keys()):
        # Hydrated: a cached file's calls and assignments stay undecoded until asked for, and
        # an empty list there would count every value the file exports as new.
        before = old[path].hydrate() if path in old else None
        after = new[path].hydrate() if path in new else None
        difference = _exports(before) ^ _exports(after)
        if before is None or after is None:
            touched_names |= _names_of(path)
            touched_dirs.add(_folder(path))
        for item in difference:
            touched_names.add(item[0].rsplit(".", 1)[-1])
            touched_names.update(part for part in item[1:] if part)
            touched_names.update(item[0].split("."))
            # A module string or package name is mentioned by its pieces (see extract.mentions).
            for part in item[1:]:
                touched_names.update(filter(None, MODULE_SEPARATORS.split(part)))
    if touched_names:
        affected.update(mentioning(sorted(touched_names)))
    if touched_dirs:
        affected.update(path for path in new.blob_ids if _folder(path) in touched_dirs)
    return affected


def _mentioning(files: CachedFiles, names: cache.NamesData) -> Callable[[Iterable[str]], list[str]]:
    """The files, sorted, that mention one of some names, from the index of mentions (which
    names a file by ``cache.path_key``): what an edit's touched names and ``RepoIndex`` ask.
    Read once ``files`` holds what the update leaves."""
    by_key: dict[int, list[str]] = {}

    def mentioning(wanted: Iterable[str]) -> list[str]:
        keys = names.mentioning(wanted)
        if keys and not by_key:
            for path in files.blob_ids:
                by_key.setdefault(cache.path_key(path), []).append(path)
        return sorted(path for key in keys for path in by_key.get(key, ()))

    return mentioning


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _render_file(entry: CachedFile, resolution: FileResolution) -> None:
    facts = entry.facts
    records: list[dict[str, Any]] = []
    file_record: dict[str, Any] = {
        "id": facts.path,
        "kind": "file",
        "hash": entry.blob,
        "lines": facts.line_count,
        "status": facts.status,
    }
    if facts.language:
        file_record["lang"] = facts.language
    if facts.error_lines:
        file_record["error_lines"] = facts.error_lines
    if facts.partial:
        file_record["partial"] = facts.partial
    broken = tuple(sorted(set(resolution.broken_imports)))
    if broken:
        file_record["broken_imports"] = [{"line": line, "module": m} for line, m in broken]
    records.append(file_record)
    # A symbol's file, name and language follow from its ID and its file's node: not written
    # (kgtool.raw.graph.full_node spells them out again), nor is the file's path in its ID.
    for symbol in facts.symbols:
        records.append(
            {
                "id": symbol_id(facts.path, symbol.qualname),
                "kind": symbol.kind,
                "span": [symbol.start_line, symbol.end_line],
            }
        )
    by_id = {record["id"]: record for record in records}
    for caller, names in resolution.unresolved.items():
        if caller in by_id:
            by_id[caller]["unresolved_calls"] = dict(sorted(names.items()))
    for caller, count in resolution.external_calls.items():
        if caller in by_id:
            by_id[caller]["external_calls"] = count
    # A symbol's ID is written without its file's path, which the file's node, just above,
    # states: "::Parser.parse".
    for record in records[1:]:
        record["id"] = record["id"][len(facts.path) :]
    symbols = sorted(records[1:], key=lambda r: r["id"])
    # ``contains`` edges follow from the symbol nodes (kgtool.raw.graph.contains_edges): not
    # written, still counted.
    edges = sorted(e for e in resolution.edges if e.type != CONTAINS)
    # Every line number of the file sits in its node, in the order of the records below it:
    # a line added near the top of a file then rewrites that node, not every record after.
    if symbols:
        file_record[SPANS] = [symbol.pop("span") for symbol in symbols]
    if edges:
        file_record[EDGE_LINES] = [int(edge.line) for edge in edges]
    path = facts.path
    lines = [canonical_json(file_record), *map(_symbol_line, symbols)]
    lines.extend(edge_line(e, path) for e in edges)
    entry.lines = ("\n".join(lines) + "\n").encode("utf-8")
    entry.edge_counts = Counter((edge.type, edge.tier) for edge in resolution.edges)
    entry.unresolved_calls = sum(sum(names.values()) for names in resolution.unresolved.values())
    entry.externals = frozenset(e.target for e in resolution.edges if e.target.startswith("ext:"))
    entry.file_edges = file_edges(facts.path, resolution.edges)
    entry.broken_imports = broken


SYMBOL_KEYS = frozenset({"external_calls", "id", "kind", "unresolved_calls"})


def _symbol_line(record: dict[str, Any]) -> str:
    """``canonical_json`` of a symbol's record, spelled out as edges are (see
    ``edge_line``): the keys in their sorted order, the counts of calls as whole numbers."""
    if not record.keys() <= SYMBOL_KEYS:
        return canonical_json(record)
    quote = _quote
    parts = []
    if "external_calls" in record:
        parts.append(f'"external_calls":{int(record["external_calls"])}')
    parts.append(f'"id":{quote(record["id"])}')
    parts.append(f'"kind":{quote(record["kind"])}')
    if "unresolved_calls" in record:
        names = sorted(record["unresolved_calls"].items())
        counted = ",".join(f"{quote(name)}:{int(count)}" for name, count in names)
        parts.append(f'"unresolved_calls":{{{counted}}}')
    return "{" + ",".join(parts) + "}"


def edge_line(edge: Edge, path: str) -> str:
    """``canonical_json`` of an edge record of file ``path``, spelled out: the keys are fixed,
    and this runs once per edge of the repository on a full build. What a default says is
    left out: ``rec`` (a record with a ``type`` is an edge), the source when it is the file
    itself, the file's path in a source inside it
    (``"src":"::Parser.parse"``: the record follows its file's node), the tier when
    EXTRACTED, the confidence when it is its tier's (1.0 EXTRACTED, 0.0 AMBIGUOUS);
    ``kgtool.raw.graph.full_edge`` restores them."""
    quote = _quote
    parts = []
    if edge.candidates:
        parts.append(f'"candidates":[{",".join(map(quote, edge.candidates))}]')
    if float(edge.confidence) != DEFAULT_CONFIDENCE.get(edge.tier):
        parts.append(f'"confidence":{float(edge.confidence)!r}')
    if edge.target:
        parts.append(f'"dst":{quote(edge.target)}')
    source = edge.source
    if source.startswith(path) and source[len(path) : len(path) + 2] == "::":
        parts.append(f'"src":{quote(source[len(path) :])}')
    elif source != path:  # not inside the file: never written by resolution, kept whole
        parts.append(f'"src":{quote(source)}')
    if edge.tier != EXTRACTED:
        parts.append(f'"tier":{quote(edge.tier)}')
    parts.append(f'"type":{quote(edge.type)}')
    return "{" + ",".join(parts) + "}"


_quote = json.encoder.encode_basestring  # JSON string escaping as canonical_json does it


def _patched_by_language(
    grouped: dict[str, list[str]], before: dict[str, str], after: dict[str, str]
) -> dict[str, list[str]]:
    """``grouped`` (language -> its files, sorted) with the files of ``before`` (path ->
    language) taken out and those of ``after`` put in."""
    patched = {language: list(paths) for language, paths in grouped.items()}
    for path, language in before.items():
        paths = patched[language]
        del paths[bisect.bisect_left(paths, path)]
    for path, language in after.items():
        bisect.insort(patched.setdefault(language, []), path)
    return {language: paths for language, paths in sorted(patched.items()) if paths}


def _summarize(files: CachedFiles) -> dict[str, Any]:
    """The numbers ``kgtool update`` prints, kept in the manifest for the no-change path."""
    return _patched_summary(
        _summary_of(0, Counter(), 0, [], [], 0, [], 0),
        len(files),
        {},
        {path: _contribution(files, path) for path in sorted(files)},
    )


class _Contribution(NamedTuple):
    """What one file adds to the summary."""

    edges: Counter[tuple[str, str]]
    symbols: int
    unresolved_calls: int
    skipped: tuple[tuple[str, str], ...]  # (path, reason), none or one
    partial: tuple[tuple[str, tuple[int, ...], str], ...]  # none or one
    broken_imports: tuple[tuple[str, int, str], ...]
    edges_term: int  # see ``_edges_term``


def _edges_term(path: str, file_edges_digest: bytes) -> int:
    """A file's term of the digest of every file's folded edges: a hash of its path and of
    its edges' digest (``cache.edges_digest``)."""
    term = hashlib.blake2b(path.encode("utf-8", "surrogateescape") + b"\0", digest_size=32)
    term.update(file_edges_digest)
    return int.from_bytes(term.digest(), "big")


def _contribution(files: CachedFiles, path: str) -> _Contribution:
    entry = files[path]
    facts = entry.facts
    status = facts.status
    return _Contribution(
        Counter(entry.edge_counts),
        len(facts.symbols),
        entry.unresolved_calls,
        ((path, status.removeprefix("skipped:")),) if status.startswith("skipped:") else (),
        ((path, tuple(facts.error_lines), facts.partial),) if status == PARSE_PARTIAL else (),
        tuple((path, line, module) for line, module in entry.broken_imports),
        _edges_term(path, files.head(path).file_edges_digest),
    )


def _patched_summary(
    summary: dict[str, Any],
    files: int,
    before: dict[str, _Contribution],
    after: dict[str, _Contribution],
) -> dict[str, Any]:
    """``summary`` with what the files of ``before`` counted taken out and what those of
    ``after`` count put in: what ``_summarize`` would give, from those files alone."""
    gone = before.keys() | after.keys()
    edges = Counter({(kind, tier): n for kind, tier, n in summary["edges"]})
    for part in before.values():
        edges.subtract(part.edges)
    for part in after.values():
        edges.update(part.edges)

    def merged(name: str) -> list[Any]:
        kept = [item for item in summary[name] if item[0] not in gone]
        new = [item for part in after.values() for item in getattr(part, name)]
        # By path, each file's own in its order: the order of a summary of every file.
        return sorted(kept + new, key=lambda item: item[0])

    return _summary_of(
        files,
        +edges,
        summary["symbols"]
        - sum(p.symbols for p in before.values())
        + sum(p.symbols for p in after.values()),
        merged("skipped"),
        merged("partial"),
        summary["unresolved_calls"]
        - sum(p.unresolved_calls for p in before.values())
        + sum(p.unresolved_calls for p in after.values()),
        merged("broken_imports"),
        (
            int(summary["edges_digest"], 16)
            - sum(p.edges_term for p in before.values())
            + sum(p.edges_term for p in after.values())
        )
        % EDGES_DIGEST_MODULUS,
    )


def _summary_of(
    files: int,
    edges: Counter[tuple[str, str]],
    symbols: int,
    skipped: list[Any],
    partial: list[Any],
    unresolved_calls: int,
    broken_imports: list[Any],
    edges_digest: int,
) -> dict[str, Any]:
    return {
        "files": files,
        "symbols": symbols,
        "edges": tuple((kind, tier, n) for (kind, tier), n in sorted(edges.items())),
        "skipped": tuple(tuple(item) for item in skipped),
        "partial": tuple(tuple(item) for item in partial),
        "unresolved_calls": unresolved_calls,
        "broken_imports": tuple(tuple(item) for item in broken_imports),
        "edges_digest": f"{edges_digest:064x}",
    }
