"""Building and refreshing layer 1 (the shards under ``.kg/raw/``), incrementally.

The committed shards are the source of truth for readers; a local cache beside them (never
committed) keeps each file's facts, keyed by git blob id, a fingerprint of this code and the
settings that change the output, and where its records stand in its shard. Unchanged files
are never re-parsed; resolution is redone for the changed files and for the files whose names
the change touched; only the shards whose bytes change are written.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import posixpath
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from itertools import compress
from operator import ne
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from kgtool import progress
from kgtool.config import Config
from kgtool.raw import cache
from kgtool.raw import graph as raw_graph
from kgtool.raw.cache import CachedFile, CachedFiles, Projected
from kgtool.raw.current import (
    ListedThen,
    current_files,
    current_files_since,
    listed_now,
)
from kgtool.raw.graph import EXTRACTOR_VERSION
from kgtool.raw.layout import Layout, kept_shards, plan_layout, shard_contents, write_shards
from kgtool.raw.lines import render_file
from kgtool.raw.model import (
    ARGUMENT,
    CLASS_KINDS,
    DECORATED,
    LOCAL,
    MACHINE_MADE,
    MODULE_SEPARATORS,
    RETURNS,
    SKIP_UNREADABLE,
    STATED,
    FileEdge,
    FileFacts,
    called_name,
)
from kgtool.raw.summary import (
    PATHS_DIGEST,
    contribution,
    patched_summary,
    paths_digest,
    summarize,
)
from kgtool.repo import listing
from kgtool.store import (
    CACHE_DIR,
    KG_DIR,
    LEGACY_RAW_FILE,
    Store,
    canonical_json,
)
from kgtool.tracked import (
    MODE_SUBMODULE,
    MODE_SYMLINK,
    TrackedBlobs,
    TrackedFile,
)

if TYPE_CHECKING:
    from kgtool.raw.index import RepoIndex
    from kgtool.raw.names import NameTable, NameTables

# Resolution chunks per worker: more spread the work evenly, and bound what a worker holds
# at once (it forgets each chunk's files when done), at the cost of learning shared files anew.
CHUNKS_PER_WORKER = 8


class UpdateResult:
    __slots__ = (
        "_blobs",
        "_cached",
        "_edges_digest",
        "_heads",
        "_layout",
        "_paths_digest",
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
    _paths_digest: str  # ``paths_digest()``, as the summary keeps it
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
        _paths_digest: str = "",
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
        self._paths_digest = _paths_digest
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
        document on, kept up to date from the files an update changed (see ``edges_term``)."""
        return self._edges_digest

    def paths_digest(self) -> str:
        """A digest of the list of files (``summary.paths_digest``)."""
        return self._paths_digest

    def blob_ids(self) -> Mapping[str, str]:
        """Each file's blob id: its working-tree content, as layer 1 read it ("" when none);
        a view to read, not a copy (at 100k files, a copy on each edit cost)."""
        if self._blobs is not None:
            return MappingProxyType(self._blobs)
        return MappingProxyType(self._cached[1]) if self._cached is not None else {}

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
            _paths_digest=summary[PATHS_DIGEST],
        )


@functools.cache
def cache_version() -> str:
    """The local cache's key: the extractor version and a fingerprint of layer 1's own code.

    A change to a query or a resolution rule must redo every file even when nobody bumped
    EXTRACTOR_VERSION; reading these few files costs about a millisecond.
    """
    hasher = hashlib.sha256(EXTRACTOR_VERSION.encode())
    package = Path(__file__).resolve().parent
    # globs.py decides which files layer 1 holds, file_kinds.py which are a machine's (both
    # outside this package, still its code).
    # The word lists (*_builtin_methods.txt) are rules too.
    own = [p for p in sorted(package.rglob("*")) if p.suffix in (".py", ".scm", ".txt")]
    for path in [*own, package.parent / "globs.py", package.parent / "file_kinds.py"]:
        hasher.update(path.relative_to(package.parent).as_posix().encode() + b"\0")
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


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def update_raw(root: Path, config: Config, store: Store, write: bool = True) -> UpdateResult:
    try:
        return _update_raw(root, config, store, write, use_cache=True)
    except cache.CacheDamaged:
        pass
    # A cache shard is not what the manifest vouched for (a run killed between writing it and
    # the manifest, a disk, a hand): the manifest's view cannot be trusted, but every shard
    # that reads whole still holds facts by blob id, and only what none holds is parsed.
    try:
        return _update_raw(root, config, store, write, use_cache=True, whole=True)
    except cache.CacheDamaged:
        # Still not what it says: layer 1 is built again without the cache.
        return _update_raw(root, config, store, write, use_cache=False)


def _update_raw(
    root: Path, config: Config, store: Store, write: bool, use_cache: bool, whole: bool = False
) -> UpdateResult:
    """Layer 1 brought up to date: list, compare with the manifest, parse what changed,
    resolve what the change touched, lay out and write the shards, remember it all.

    Long because it is one pass whose steps hand each other what they learnt (the manifest's
    spans, the files parsed, the name tables patched, the shards kept unread): split into
    functions, each would take and return most of the others' state, and the no-change
    return at the top, which every hook run without an edit takes, must come before anything
    heavy is imported."""
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
    current: TrackedBlobs | None = None
    then: ListedThen | None = None  # the listing the manifest's blob ids were read from
    # The shards on disk, listed once: nothing but this run writes there until it does.
    raw_stats = cache.shard_stats(store)
    if manifest is not None:
        # A run that writes nothing is a check, and judges .kg/raw/ by its bytes.
        matching, unknown = manifest.matching_shards(store, raw_stats, by_content=not write)
        up_to_date = not legacy and not unknown and matching == manifest.shards.keys()
        if not (up_to_date and fingerprint and fingerprint == manifest.listing):
            # None when the cache is read as a store (``whole``): its blob ids may not be the
            # manifest's.
            then = None if whole else cache.read_listed(store, key, manifest)
            current, bad_names = current_files_since(root, listed, config, then, manifest.blobs)
        if up_to_date and (current is None or _same_blobs(manifest.blobs, current)):
            relisted = manifest.listing != fingerprint
            if write and relisted:
                # The listing too, which the blob ids are now those of (a restamp alone keeps
                # it): the next edit's records that differ are found against it.
                manifest.listing = fingerprint
                manifest.listed_checksum, manifest.listed_beside = cache.keep_listed(
                    store, key, listed_now(listed, config), then, manifest
                )
            if write and (manifest.restamped or relisted):
                manifest.save(store)
            if current is None:  # an ASCII listing has no name that is not UTF-8
                ascii_only = listed.staged.isascii()
                bad_names = [] if ascii_only else current_files(root, listed, config)[1]
            result = UpdateResult.from_summary(manifest.summary, started)
            result._cached = (store, manifest.blobs, key, manifest.parts)
            result.digest = raw_graph.content_digest(
                {name: stamp[0] for name, stamp in manifest.shards.items()}
            )
            result.bad_names = bad_names
            result.tracked_cache = tracked_cache
            return result

    if current is None:
        then = cache.read_listed(store, key, manifest) if manifest and not whole else None
        blobs_then = manifest.blobs if manifest else {}
        current, bad_names = current_files_since(root, listed, config, then, blobs_then)
    # Imported past the no-change return: a run that finds layer 1 up to date (every hook
    # run without an edit) never parses or resolves, and need not load how.
    from kgtool.raw.extract import extract_files
    from kgtool.raw.index import RepoIndex
    from kgtool.raw.names import (
        NameLookup,
        files_by_language,
        name_tables,
        patch_name_tables,
        patched_by_language,
        stored_name_tables,
    )

    if not use_cache:
        old_files = CachedFiles()
    elif whole:  # ``whole``: every cache shard read now, as a store of facts by blob id
        old_files = cache.load_files(store, key, manifest.parts if manifest else None)
    else:
        old_files = cache.open_files(store, key, manifest)
    names_on_disk = cache.open_names(store, key, manifest) if use_cache else None
    # The manifest, the cache files and the name tables were written together (else a run
    # was killed between them): only then may an update start from what they say.
    # A repository that outgrew the cache's parts has its cache written whole again.
    laid_before = Layout(manifest.members, manifest.ends) if manifest is not None else None
    trusted = (
        manifest is not None
        and laid_before is not None
        and cache.describes(manifest, old_files, names_on_disk)
        and manifest.parts.fit(len(current.blobs))
        and laid_before.holds(len(manifest.blobs))
        # Every shard laid out has the stamp it was written with (else it is never matched,
        # and its files are neither rendered again nor safe to cut from it).
        and manifest.shards.keys() == laid_before.members.keys()
    )
    if not trusted:  # every file is resolved again: read every cache shard once, now
        old_files.read_all()
    old_blobs = old_files.blob_ids
    # What differs from the cache, and what could not be read ("" is no blob id): each file's
    # blob looked up in C, without a tuple a file (the items' difference: 30 ms at 100k).
    listed_paths = list(current.blobs)
    stale = set(
        compress(listed_paths, map(ne, current.blobs.values(), map(old_blobs.get, listed_paths)))
    )
    if "" in current.blobs.values():
        stale.update(path for path, blob in current.blobs.items() if not blob)
    stale_paths = sorted(stale)
    readable = [p for p in stale_paths if _readable(current.odd.get(p))]
    parsed, mentions, bodies = extract_files(
        root, readable, config["max_file_bytes"], config["jobs"]
    )
    for path in stale_paths:
        if path not in parsed:
            parsed[path] = FileFacts(path, "", _unreadable_status(current.odd.get(path)))
            mentions[path] = ()

    new_files = old_files.copy()
    # No file gone when the files listed are those cached and those new to the cache.
    added = sum(1 for path in stale if path not in old_blobs)
    if len(current.blobs) == len(old_blobs) + added:
        gone: set[str] = set()
    else:
        gone = old_files.keys() - current.blobs.keys()
    for path in gone:
        new_files.drop(path)
    for path in sorted(parsed):
        facts = parsed[path]
        entry = CachedFile(current.blobs[path], facts, mentions=mentions[path])
        entry.body = bodies.get(path)
        new_files.put(path, entry)

    if trusted:
        assert manifest is not None and names_on_disk is not None
        changed_paths = set(parsed) | gone
        names_on_disk.patch_mentions(
            {p: old_files.head(p).mentions for p in sorted(changed_paths) if p in old_files},
            {p: new_files.head(p).mentions for p in sorted(changed_paths) if p in new_files},
        )
        mentioning = _mentioning(new_files, names_on_disk)
        to_resolve = _affected(old_files, new_files, set(parsed), gone, mentioning)
        # A file whose records cannot be cut from its shard as the cache wrote it (a shard
        # rewritten by a merge, a checkout, a hand) is rendered again.
        assert laid_before is not None
        for name in sorted(manifest.shards.keys() - matching):
            to_resolve.update(p for p in laid_before.members.get(name, ()) if p in new_files)
        # What the files resolved again counted before, taken out of the summary below.
        dirty = set(parsed) | to_resolve | gone
        before = {p: contribution(old_files, p) for p in sorted(dirty) if p in old_files}
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
        grouped_by_language = patched_by_language(
            manifest.by_language,
            {p: old_files.head(p).language for p in sorted(changed_paths) if p in old_files},
            {p: new_files.head(p).language for p in sorted(changed_paths) if p in new_files},
        )
        extras = _extras_read_across(new_files, changed_paths, manifest.extras)
    else:
        to_resolve = set(new_files)
        tables = name_tables({path: new_files[path].facts for path in sorted(new_files)})
        grouped_by_language = files_by_language(
            {path: head.language for path, head in new_files.heads.items()}
        )
        extras = _extras_read_across(new_files, set(new_files), {})
    # A few files resolved read the facts of the files they ask for, and look up what is
    # passed to a parameter in the files that name the function; many read them all.
    few = len(to_resolve) * 4 < len(new_files)
    hydrator = Hydrator(new_files)
    index = RepoIndex(
        Projected(new_files, lambda p: new_files[p].facts)
        if few
        else {path: new_files[path].facts for path in new_files},
        hydrate=hydrator,
        names=tables,
        by_language=grouped_by_language,
        mentioning=(lambda name: mentioning([name])) if few and trusted else None,
        extras=extras,
    )
    _resolve_and_render(index, new_files, hydrator, sorted(to_resolve), config)
    for path in to_resolve:
        new_files.refresh_head(path)

    # Not trusted, every file is rendered: nothing of the layout before is read.
    laid_out = laid_before if trusted else None
    layout = plan_layout(new_files, to_resolve, gone, laid_out)
    kept = kept_shards(layout, manifest, matching, to_resolve)
    shard_bytes = shard_contents(store, layout, kept, new_files, to_resolve)
    if trusted:
        assert manifest is not None
        summary = patched_summary(
            manifest.summary,
            len(new_files),
            before,
            {p: contribution(new_files, p) for p in sorted(dirty) if p in new_files},
        )
        # The list of files, unless the update added or removed one (most add none).
        if not gone and all(path in old_files for path in parsed):
            summary[PATHS_DIGEST] = manifest.summary[PATHS_DIGEST]
        else:
            summary[PATHS_DIGEST] = paths_digest(new_files.keys())
    else:
        summary = summarize(new_files)
    if write:
        store.ensure()
        if trusted:
            # The cache shards rewritten below are read before any shard of .kg/raw/ is
            # written: a damaged one is then found while nothing has changed on disk.
            new_files.read_shards_of(dirty)
    written, removed, stamps = write_shards(
        store, layout, shard_bytes, kept, manifest, write, raw_stats
    )
    changed = bool(written or removed or legacy)
    # A check that finds .kg/raw/ to be this layer 1 keeps its cache too (outside the
    # repository): a pull request's check on a fresh clone then starts from the default
    # branch's (the GitHub Action restores it).
    keep_cache = write or not changed
    if keep_cache and not write and trusted:
        new_files.read_shards_of(dirty)
    content_digest = raw_graph.content_digest(
        {
            name: stamps[name][0] if name in stamps else digest(shard_bytes[name])
            for name in layout.members
        }
    )
    if write:  # what a reader of the content then reads is on disk
        shard_bytes = {}
    if write and legacy:
        store.path(LEGACY_RAW_FILE).unlink()
    if keep_cache:
        # Only the cache shards of entries that changed are rewritten (every file missing
        # from the old cache was parsed, so it is among them).
        parts = manifest.parts if trusted and manifest else cache.Parts.for_files(len(new_files))
        cache.save(
            store,
            key,
            new_files,
            stamps,
            summary,
            layout.members,
            layout.ends,
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
            extras,
            fingerprint,
            parts,
            cache.keep_listed(store, key, listed_now(listed, config), then, manifest),
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
    # Every file's head, without the entries: a full build's facts, held through the layers
    # above, were most of their memory. An update's heads are read from the cache if asked.
    result._heads = new_files.heads if trusted else dict(new_files.heads.items())
    result._blobs = new_files.blob_ids  # not changed past here; read through a view
    return result


class Hydrator:
    """Decodes a file's calls and assignments when a resolution first reads them. A worker
    keeps at most ``KEEP_DECODED`` files decoded after each chunk, those read last: holding
    every file it read, each would end up with a whole repository's facts decoded, and
    holding none, it decoded the files every chunk reads (a package's entry point) anew for
    each (pi-mono: each body 3.7 times, a twentieth of a full build)."""

    KEEP_DECODED = 2000

    def __init__(self, files: CachedFiles) -> None:
        self.files = files
        # path -> its packed body, the file read last at the end, while holding.
        self.decoded: dict[str, bytes] | None = None

    def __call__(self, path: str) -> FileFacts:
        entry = self.files[path]
        if self.decoded is not None:
            if entry.body is not None:
                self.decoded[path] = entry.body
            elif path in self.decoded:  # read again: the last to be held back
                self.decoded[path] = self.decoded.pop(path)
        return entry.hydrate()

    def hold(self) -> None:
        """From now on, keep what is decoded, to ``hold_back``."""
        if self.decoded is None:
            self.decoded = {}

    def hold_back(self) -> None:
        """Hold back again what was decoded since ``hold`` and read least lately, but the
        last ``KEEP_DECODED``."""
        decoded = self.decoded or {}
        while len(decoded) > self.KEEP_DECODED:
            path = next(iter(decoded))
            self.files[path].hold_back(decoded.pop(path))


# What forked resolution workers read: set just before the fork, so never pickled.
_SHARED: tuple[RepoIndex, CachedFiles, Hydrator, int] | None = None


def _resolve_and_render(
    index: RepoIndex, files: CachedFiles, hydrator: Hydrator, paths: list[str], config: Config
) -> None:
    """Resolve and render ``paths`` into their entries, on every core when there are many."""
    from kgtool.raw.extract import PARALLEL_THRESHOLD
    from kgtool.raw.resolve import resolve_files

    global _SHARED
    workers = config["jobs"] or os.cpu_count() or 1
    if workers <= 1 or len(paths) < PARALLEL_THRESHOLD or not hasattr(os, "fork"):
        for path, resolution in resolve_files(index, paths, config["max_candidates"]).items():
            render_file(files[path], resolution)
        return
    from kgtool.raw.pool import worker_pool

    _SHARED = (index, files, hydrator, config["max_candidates"])
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
    index, files, hydrator, max_candidates = _SHARED
    hydrator.hold()
    out = []
    for path, resolution in resolve_files(index, paths, max_candidates).items():
        entry = files[path]
        render_file(entry, resolution)
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
    hydrator.hold_back()
    return marshal.dumps(out)


def _remove_legacy_cache(store: Store) -> None:
    """Remove .kg/cache/, where an older kgtool kept its cache: untracked, it is only
    disk (nothing reads it since the cache moved into the git directory)."""
    legacy = store.path(CACHE_DIR)
    if os.path.isdir(legacy) and not os.path.islink(legacy):
        import shutil  # here: almost every run finds no such folder

        shutil.rmtree(legacy, ignore_errors=True)


def _same_blobs(blobs: dict[str, str], current: TrackedBlobs) -> bool:
    # Every file read ("" is no blob id), each the blob the cache holds: compared in C.
    return "" not in current.blobs.values() and blobs == current.blobs


def _readable(tracked: TrackedFile | None) -> bool:
    """Whether a file's content can be parsed (``odd``'s record, None for a regular file)."""
    if tracked is None:
        return True
    return not tracked.deleted and tracked.mode not in (MODE_SYMLINK, MODE_SUBMODULE)


def _unreadable_status(tracked: TrackedFile | None) -> str:
    if tracked is None:  # a regular file that could not be read
        return SKIP_UNREADABLE
    if tracked.mode == MODE_SYMLINK:
        return "skipped:symlink"
    if tracked.mode == MODE_SUBMODULE:
        return "skipped:submodule"
    if tracked.deleted:
        return "skipped:deleted"
    return SKIP_UNREADABLE


# How many files deep a change is passed on through values that other files read by their
# own names (``store`` of ``export const store = make()``), as resolution follows them.
MAX_VALUE_HOPS = 8
NAME_BREAKS = re.compile(r"[.()\[\]]+")  # a value's name from ``make().a``, ``xs[]``
# Marks what another file reads through a value (a function's result, an attribute, an
# argument): only the name it is read by, the item's first, is a name to touch. Its other
# parts (a type, ``number``; a kind) are what must stay the same, and are mentioned by most
# files: touching them would resolve the whole repository again for a new function.
VALUE_READ = "\0value"
# Marks a definition: its qualname's names are touched, its kind and origin only compared.
DEFINED = "\0defined"


def _exports(facts: FileFacts | None) -> set[tuple[str, ...]]:
    if facts is None:
        return set()
    # Whether the file is a machine's decides whether its symbols are by-name candidates: a
    # change of it touches every name the file defines.
    made = facts.extra.get(MACHINE_MADE, "")
    found: set[tuple[str, ...]] = {(DEFINED, s.qualname, s.kind, made) for s in facts.symbols}
    found.update((i.module, i.name, i.alias) for i in facts.imports)
    found.update((b.owner, b.base) for b in facts.bases)
    found.update(("package", k, v) for k, v in facts.extra.items() if not k.startswith(LOCAL))
    # What other files read through values: a function's result, a class's attributes (the
    # attribute or function name first, as a call mentions it; "self" would touch every file).
    classes = {s.qualname for s in facts.symbols if s.kind in CLASS_KINDS}
    for assign in facts.assigns:
        if assign.kind == ARGUMENT:
            # Read by the called function's parameters: the called name first, as it is met.
            name = called_name(assign)
            found.add((VALUE_READ, name, assign.scope, assign.var, assign.callee, assign.kind))
        elif assign.kind == DECORATED:
            found.add((VALUE_READ, assign.var, assign.scope, assign.callee, assign.kind))
        elif assign.var == RETURNS:
            found.add((VALUE_READ, assign.scope, assign.callee, assign.kind))
        elif (
            assign.scope in classes
            or not assign.scope  # a package-level variable, seen from the package's other files
            or "." in assign.var
            or assign.kind == STATED
        ):
            attribute = assign.var.rsplit(".", 1)[-1]
            found.add((VALUE_READ, attribute, assign.scope, assign.callee, assign.kind))
    return found


def _names_of(path: str) -> set[str]:
    stem = posixpath.basename(path).split(".")[0]
    return {stem, *posixpath.dirname(path).split("/")}


def _affected(
    old: CachedFiles,
    new: CachedFiles,
    reparsed: set[str],
    gone: set[str],
    mentioning: Callable[[Iterable[str]], list[str]],
) -> set[str]:
    """The files to resolve again: the changed ones, and those whose names the change touched
    (``gone``: the files removed; ``mentioning`` gives the files that mention some names)."""
    touched_names: set[str] = set()
    touched_dirs: set[str] = set()
    affected = {p for p in reparsed if p in new}
    rescoped: set[str] = set()  # folders whose files all resolve again
    configs_changed: list[str] = []
    package_renamed = False
    for path in reparsed | gone:
        # Hydrated: a cached file's calls and assignments stay undecoded until asked for, and
        # an empty list there would count every value the file exports as new.
        before = old[path].hydrate() if path in old else None
        after = new[path].hydrate() if path in new else None
        difference = _exports(before) ^ _exports(after)
        # A tracked file deleted from the working tree (or grown too large) keeps its path
        # but loses its language: as one removed, it is no module an import can name.
        if before is None or after is None or before.language != after.language:
            touched_names |= _names_of(path)
            touched_dirs.add(_folder(path))
            if _roots_package(before) or _roots_package(after):  # deleted, or put back
                # A package's bounds moved: what is below them is guessed apart from the rest.
                rescoped.add(_folder(path))
        if _configures(before, after):
            # A TypeScript config's "paths" changed: the files reading it map imports anew.
            configs_changed.append(path)
        if posixpath.basename(path) == "package.json" and _renames_package(before, after):
            package_renamed = True  # an ``extends`` naming a package may read another config
        for item in difference:
            if item[0] == VALUE_READ:
                touched_names.add(item[1].rsplit(".", 1)[-1])
                continue
            if item[0] == DEFINED:  # a definition is mentioned by its names, not its kind
                touched_names.update(item[1].split("."))
                continue
            touched_names.add(item[0].rsplit(".", 1)[-1])
            touched_names.update(part for part in item[1:] if part)
            touched_names.update(item[0].split("."))
            # A module string or package name is mentioned by its pieces (see extract.mentions).
            for part in item[1:]:
                touched_names.update(filter(None, MODULE_SEPARATORS.split(part)))
    if configs_changed or package_renamed:
        rescoped |= _configured_folders(configs_changed, package_renamed, new)
    if rescoped:
        below = _below_any(new, rescoped)
        affected.update(below)
        touched_names.update(
            s.name for p in below for s in new[p].facts.symbols if "." not in s.qualname
        )
    touched_names.discard("")  # the head of "./util": every file "mentions" it
    names, seen = touched_names, set(touched_names)
    found = set(affected)  # the files parsed again read the names touched too
    for _ in range(MAX_VALUE_HOPS):
        if not names:
            break
        found |= set(mentioning(sorted(names))) - affected
        affected |= found
        # A value another file reads through one of these names (``export const store =
        # make()``, ``{ create }``, ``return { click }``) changes with it: the files reading
        # that value by its own name resolve again too.
        following: set[str] = set()
        for path in sorted(found):
            if path in new:
                following |= _values_reading(new[path].hydrate(), names)
        names = following - seen
        seen |= names
        found = set()
    if touched_dirs:
        affected.update(path for path in new.blob_ids if _folder(path) in touched_dirs)
    return affected


def _extras_read_across(
    files: CachedFiles, changed: set[str], before: dict[str, dict[str, str]]
) -> dict[str, dict[str, str]]:
    """``before`` (the cache's table of the ``extra`` other files read across: see
    ``Language.extra_read_across``) with the ``changed`` files' taken anew."""
    from kgtool.raw.languages import language_named

    extras = {path: extra for path, extra in before.items() if path not in changed}
    for path in sorted(changed & files.keys()):
        language = files.head(path).language
        if language and language_named(language).extra_read_across:
            extras[path] = dict(files[path].facts.extra)
    return dict(sorted(extras.items()))


def _values_reading(facts: FileFacts, names: set[str]) -> set[str]:
    """The names a file's values are read by elsewhere that are stated through ``names``: a
    top-level variable or its member assigned from one of them, and a function whose result
    (or its result's member) is."""
    found = set()
    for assign in facts.assigns:
        if assign.kind == ARGUMENT or not names.intersection(NAME_BREAKS.split(assign.callee)):
            continue
        if not assign.scope:
            found.add(assign.var.partition(".")[0])
        elif assign.var == RETURNS or assign.var.startswith(f"{RETURNS}."):
            found.add(assign.scope.rpartition(".")[2])
    return found


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


def _roots_package(facts: FileFacts | None) -> bool:
    """Whether a file added or removed is a manifest whose folder roots a package."""
    if facts is None or not facts.language:
        return False
    # Imported here: a run with no edit never asks, and loads no language (a parse's cost).
    from kgtool.raw.languages import language_named
    from kgtool.raw.languages.base import Manifest

    language = language_named(facts.language)
    return isinstance(language, Manifest) and language.roots_package


def _configures(before: FileFacts | None, after: FileFacts | None) -> bool:
    """Whether a file is a TypeScript config whose stated facts changed (added, removed, or
    edited in what it maps)."""
    from kgtool.raw.languages.tsconfig import CONFIG  # a run with no edit never asks

    stated = [f.extra for f in (before, after) if f is not None and CONFIG in f.extra]
    return bool(stated) and (len(stated) == 1 or stated[0] != stated[1])


def _configured_folders(changed: list[str], package_renamed: bool, files: CachedFiles) -> set[str]:
    """The folders whose files may read a changed config: each one's own, those of every
    config whose ``extends`` chain reaches it, and, when a package was renamed, those of the
    configs whose ``extends`` names a package. One pass over the configs for them all."""
    from kgtool.raw.languages.tsconfig import configs_reaching, extends_of

    configs = _configs_of(files)
    for config in changed:  # a config removed: its path is still what others extended
        configs.setdefault(config, {})
    reached = configs_reaching(changed, configs) | set(changed)
    if package_renamed:
        reached |= {
            path
            for path, extra in configs.items()
            if any(not e.startswith(("./", "../")) for e in extends_of(extra))
        }
    return {_folder(path) for path in reached}


def _configs_of(files: CachedFiles) -> dict[str, dict[str, str]]:
    """The TypeScript configs among ``files``, with what each states."""
    from kgtool.raw.languages.tsconfig import CONFIG, is_config

    configs = {}
    for path in files.blob_ids:
        if is_config(posixpath.basename(path)):
            extra = files[path].facts.extra
            if CONFIG in extra:
                configs[path] = dict(extra)
    return configs


def _renames_package(before: FileFacts | None, after: FileFacts | None) -> bool:
    """Whether a package.json added, removed or edited names another package: an ``extends``
    naming a package may now read another config."""
    names = [f.extra.get("npm_name") for f in (before, after) if f is not None]
    return any(names) and (len(names) == 1 or names[0] != names[1])


def _below_any(files: CachedFiles, folders: set[str]) -> list[str]:
    """The files of ``folders`` and of every folder inside them, in one pass however many."""
    if "" in folders:
        return list(files.blob_ids)
    found = []
    for path in files.blob_ids:
        folder = _folder(path)
        while folder and folder not in folders:
            folder = _folder(folder)
        if folder:
            found.append(path)
    return found
