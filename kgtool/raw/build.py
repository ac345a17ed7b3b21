"""Building and refreshing ``.kg/raw.jsonl``, incrementally.

The committed file is the source of truth for readers; a local cache beside it (never
committed) keeps each file's facts and rendered lines, keyed by git blob id and extractor
version. Unchanged files are never re-parsed; resolution is redone for the changed files and
for the files whose names the change touched.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import posixpath
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.config import Config
from kgtool.raw.extract import extract_files
from kgtool.raw.model import (
    PARSE_PARTIAL,
    SKIP_STATUSES,
    SKIP_UNREADABLE,
    FileFacts,
    external_id,
    symbol_id,
)
from kgtool.raw.resolve import FileResolution, RepoIndex, resolve_files
from kgtool.repo import MODE_SUBMODULE, MODE_SYMLINK, TrackedFile, tracked_files
from kgtool.store import KG_DIR, RAW_FILE, Store, canonical_json

# Bump when extraction or resolution changes what they produce: every cache entry is redone.
EXTRACTOR_VERSION = "1"
FORMAT_VERSION = 1
CACHE_FILE = "raw.pickle"


@dataclass
class CachedFile:
    blob: str
    facts: FileFacts
    lines: str = ""  # this file's rendered records in raw.jsonl ("" until resolved)
    edge_counts: Counter[tuple[str, str]] = field(default_factory=Counter)  # (type, tier)
    unresolved_calls: int = 0
    externals: frozenset[str] = frozenset()  # external package IDs its edges point to


@dataclass
class Cache:
    version: str = EXTRACTOR_VERSION
    raw_digest: str = ""  # sha256 of the raw.jsonl these entries rendered
    files: dict[str, CachedFile] = field(default_factory=dict)


@dataclass
class UpdateResult:
    changed: bool  # raw.jsonl differs (or would differ) from what is on disk
    parsed: list[str]
    resolved: int
    files: int
    symbols: int
    edges: Counter[tuple[str, str]]  # (type, tier) -> count
    skipped: list[tuple[str, str]]  # (path, reason)
    partial: list[tuple[str, list[int]]]
    unresolved_calls: int
    seconds: float
    content: bytes = b""


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A gitignore-style glob: ``**`` spans folders, ``*`` and ``?`` stay inside one."""
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
    body = "".join(out).rstrip("/")
    # A pattern without a slash matches at any depth, as in .gitignore; a folder covers its files.
    prefix = "" if "/" in pattern.rstrip("/") else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$")


def excluded(path: str, patterns: list[str]) -> bool:
    return any(_compiled(p).match(path) for p in patterns)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return glob_regex(pattern)


def _load_cache(store: Store) -> Cache:
    try:
        with open(store.cache_dir / CACHE_FILE, "rb") as handle:
            cache = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        return Cache()
    if not isinstance(cache, Cache) or cache.version != EXTRACTOR_VERSION:
        return Cache()
    return cache


def _save_cache(store: Store, cache: Cache) -> None:
    from kgtool.store import atomic_write

    atomic_write(
        store.cache_dir / CACHE_FILE, pickle.dumps(cache, protocol=pickle.HIGHEST_PROTOCOL)
    )


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def update_raw(root: Path, config: Config, store: Store, write: bool = True) -> UpdateResult:
    started = time.perf_counter()
    listed = [
        f
        for f in tracked_files(root)
        if not f.path.startswith(f"{KG_DIR}/") and not excluded(f.path, config["exclude"])
    ]
    current = {f.path: f for f in listed}
    cache = _load_cache(store)
    on_disk = store.read_bytes(RAW_FILE)
    trusted = on_disk is not None and cache.raw_digest == digest(on_disk)

    if trusted and _same_files(cache, current):
        return _summary(cache, [], 0, False, started, on_disk or b"")

    stale_paths = sorted(
        path
        for path, tracked in current.items()
        if path not in cache.files or not tracked.blob or cache.files[path].blob != tracked.blob
    )
    readable = [p for p in stale_paths if _readable(current[p])]
    parsed = extract_files(root, readable, config["max_file_bytes"], config["jobs"])
    for path in stale_paths:
        if path not in parsed:
            parsed[path] = FileFacts(path, "", _unreadable_status(current[path]))

    old_files = cache.files
    new_files: dict[str, CachedFile] = {}
    for path, tracked in current.items():
        if path in parsed:
            new_files[path] = CachedFile(tracked.blob, parsed[path])
        else:
            new_files[path] = old_files[path]

    index = RepoIndex({path: entry.facts for path, entry in new_files.items()})
    # Without a trusted cache nothing but a full pass is certain to match a fresh build.
    to_resolve = _affected(old_files, new_files, set(parsed)) if trusted else set(new_files)
    resolutions = resolve_files(index, sorted(to_resolve), config["max_candidates"])
    for path, resolution in resolutions.items():
        _render_file(new_files[path], resolution)

    content = _render(new_files)
    changed = content != on_disk
    cache = Cache(raw_digest=digest(content), files=new_files)
    if write:
        store.ensure()
        if changed:
            store.write_if_changed(RAW_FILE, content)
        _save_cache(store, cache)
    return _summary(cache, sorted(parsed), len(to_resolve), changed, started, content)


def _same_files(cache: Cache, current: dict[str, TrackedFile]) -> bool:
    if cache.files.keys() != current.keys():
        return False
    return all(
        tracked.blob and cache.files[path].blob == tracked.blob for path, tracked in current.items()
    )


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


def _mentions(facts: FileFacts) -> set[str]:
    """Every name a file's resolution depends on."""
    names: set[str] = set()
    for imp in facts.imports:
        names.update(filter(None, re.split(r"[./:\\@-]+", imp.module)))
        names.add(imp.name)
    for call in facts.calls:
        names.add(call.name)
        names.update(call.receiver.split("."))
    for base in facts.bases:
        names.update(base.base.split("."))
    for assign in facts.assigns:
        names.update(assign.callee.split("."))
    return names


def _exports(facts: FileFacts | None) -> set[tuple[str, ...]]:
    if facts is None:
        return set()
    found: set[tuple[str, ...]] = {(s.qualname, s.kind) for s in facts.symbols}
    found.update((i.module, i.name, i.alias) for i in facts.imports)
    found.update((b.owner, b.base) for b in facts.bases)
    found.update(("package", k, v) for k, v in facts.extra.items())
    return found


def _names_of(path: str) -> set[str]:
    stem = posixpath.basename(path).split(".")[0]
    return {stem, *posixpath.dirname(path).split("/")}


def _affected(
    old: dict[str, CachedFile], new: dict[str, CachedFile], reparsed: set[str]
) -> set[str]:
    """The files to resolve again: the changed ones, and those whose names the change touched."""
    touched_names: set[str] = set()
    touched_dirs: set[str] = set()
    affected = {p for p in reparsed if p in new}
    for path in reparsed | (old.keys() - new.keys()):
        before = old[path].facts if path in old else None
        after = new[path].facts if path in new else None
        difference = _exports(before) ^ _exports(after)
        if before is None or after is None:
            touched_names |= _names_of(path)
            touched_dirs.add(posixpath.dirname(path))
        for item in difference:
            touched_names.add(item[0].rsplit(".", 1)[-1])
            touched_names.update(part for part in item[1:] if part)
            touched_names.update(item[0].split("."))
    if not touched_names and not touched_dirs:
        return affected
    for path, entry in new.items():
        if path in affected:
            continue
        if posixpath.dirname(path) in touched_dirs or _mentions(entry.facts) & touched_names:
            affected.add(path)
    return affected


def _render_file(entry: CachedFile, resolution: FileResolution) -> None:
    facts = entry.facts
    records: list[dict] = []
    file_record: dict = {
        "rec": "node",
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
    records.append(file_record)
    for symbol in facts.symbols:
        records.append(
            {
                "rec": "node",
                "id": symbol_id(facts.path, symbol.qualname),
                "kind": symbol.kind,
                "name": symbol.name,
                "file": facts.path,
                "lang": facts.language,
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
    lines = [canonical_json(record) for record in sorted(records[1:], key=lambda r: r["id"])]
    lines.insert(0, canonical_json(records[0]))
    for edge in sorted(resolution.edges):
        lines.append(canonical_json({"rec": "edge", **edge.to_json()}))
    entry.lines = "\n".join(lines) + "\n"
    entry.edge_counts = Counter((edge.type, edge.tier) for edge in resolution.edges)
    entry.unresolved_calls = sum(sum(names.values()) for names in resolution.unresolved.values())
    entry.externals = frozenset(e.target for e in resolution.edges if e.target.startswith("ext:"))


def _render(files: dict[str, CachedFile]) -> bytes:
    parts = [
        canonical_json({"rec": "meta", "format": FORMAT_VERSION, "extractor": EXTRACTOR_VERSION})
        + "\n"
    ]
    externals: set[str] = set()
    for path in sorted(files):
        parts.append(files[path].lines)
        externals |= files[path].externals
    for package in sorted(externals):
        ecosystem, _, name = package.removeprefix("ext:").partition(":")
        parts.append(
            canonical_json(
                {
                    "rec": "node",
                    "id": external_id(ecosystem, name),
                    "kind": "package",
                    "external": True,
                }
            )
            + "\n"
        )
    return "".join(parts).encode("utf-8")


def _summary(
    cache: Cache, parsed: list[str], resolved: int, changed: bool, started: float, content: bytes
) -> UpdateResult:
    symbols = 0
    skipped: list[tuple[str, str]] = []
    partial: list[tuple[str, list[int]]] = []
    edges: Counter[tuple[str, str]] = Counter()
    unresolved = 0
    for path in sorted(cache.files):
        entry = cache.files[path]
        facts = entry.facts
        symbols += len(facts.symbols)
        if facts.status in SKIP_STATUSES or facts.status.startswith("skipped:"):
            skipped.append((path, facts.status.removeprefix("skipped:")))
        elif facts.status == PARSE_PARTIAL:
            partial.append((path, facts.error_lines))
        edges.update(entry.edge_counts)
        unresolved += entry.unresolved_calls
    return UpdateResult(
        changed=changed,
        parsed=parsed,
        resolved=resolved,
        files=len(cache.files),
        symbols=symbols,
        edges=edges,
        skipped=skipped,
        partial=partial,
        unresolved_calls=unresolved,
        seconds=time.perf_counter() - started,
        content=content,
    )
