"""What every reader loads: layers 1-3 as committed under ``.kg/``, and whether they are current.

Layer 1 is read for its node records only (paths, symbols, spans): most of ``raw.jsonl`` is
edges, which a reader of symbols never needs, so node lines are picked out by a byte test and
decoded in one call. Freshness is judged cheaply and exactly where it matters: the blob id
``raw.jsonl`` recorded for each file against the blob id of the file in the working tree (one
``git ls-files``), which is what makes a ``file:line`` citation right or wrong.
"""

from __future__ import annotations

import contextlib
import json
import marshal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from kgtool.config import Config, load_config
from kgtool.errors import KgError
from kgtool.ontology.model import Ontology, load_ontology
from kgtool.read.words import identifier_words
from kgtool.repo import tracked_files
from kgtool.store import KG_DIR, RAW_FILE, Store, atomic_write

COMMUNITIES_FILE = "communities.json"  # layer 2 (kgtool.communities.build, not imported: slow)
_NODE_MARK = b'"rec":"node"'
_META_MARK = b'"rec":"meta"'
_EDGE_MARK = b'"rec":"edge"'
_BOUND_MARK = b'"dst":"'  # an edge bound to one target (ambiguous ones list candidates)
KNOWN_RAW_FORMATS = {1}
KNOWN_COMMUNITY_FORMATS = {2}
READ_CACHE = "read.marshal"  # in .kg/cache/: layer 1's nodes and words, decoded
READ_CACHE_VERSION = 3  # raise when what _rows() computes changes
STALE_NAMED = 3  # changed files named in the notice; the rest are counted


class Symbol(NamedTuple):
    id: str  # layer-1 ID, "path::Qual.name"
    path: str
    qualname: str
    kind: str
    line: int  # first line of its span; 0 when layer 1 recorded none
    end: int


@dataclass
class MapState:
    """The map as committed under ``.kg/``, with what is wrong with it, if anything."""

    root: Path
    config: Config
    store: Store
    document: dict[str, Any] | None = None  # .kg/communities.json; None when unreadable
    ontology: Ontology = field(default_factory=Ontology)
    file_lines: dict[str, int] = field(default_factory=dict)  # path -> lines, from raw.jsonl
    symbols: dict[str, list[Symbol]] = field(default_factory=dict)  # path -> in source order
    raw_hashes: dict[str, str] = field(default_factory=dict)
    # The words of layer 1 (see kgtool.read.words): word -> paths whose path holds it, and
    # word -> symbols whose name holds it.
    path_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    symbol_words: dict[str, list[Symbol]] = field(default_factory=dict)
    # File -> the other files its layer-1 edges (imports, calls, inherits) join it to, either
    # way, with how many edges: (neighbour, count), most first.
    neighbours: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    raw_present: bool = False
    stale_files: list[str] = field(default_factory=list)  # changed since raw.jsonl was written
    notices: list[str] = field(default_factory=list)  # one line each: what the reader must know

    @property
    def community_of(self) -> dict[str, str]:
        return (self.document or {}).get("files", {})

    @property
    def communities(self) -> dict[str, dict[str, Any]]:
        return (self.document or {}).get("communities", {})

    @property
    def layered(self) -> bool:
        """Layers 1 and 2 are there to read."""
        return self.raw_present and self.document is not None

    def symbol(self, node_id: str) -> Symbol | None:
        path = node_id.partition("::")[0]
        for found in self.symbols.get(path, ()):
            if found.id == node_id:
                return found
        return None


def load_map(root: Path, config: Config | None = None) -> MapState:
    store = Store(root)
    store.refuse_unsafe()
    state = MapState(root, config if config is not None else load_config(root), store)
    missing = []
    raw = store.read_bytes(RAW_FILE)
    if raw is None:
        missing.append(f"{KG_DIR}/{RAW_FILE}")
    elif not _read_layer1(raw, state):
        state.notices.append(
            f"{KG_DIR}/{RAW_FILE} is damaged or has a format this kgtool does not know: "
            "run `kgtool update`"
        )
    document = store.read_bytes(COMMUNITIES_FILE)
    if document is None:
        missing.append(f"{KG_DIR}/{COMMUNITIES_FILE}")
    else:
        state.document = _read_document(document)
        if state.document is None:
            state.notices.append(
                f"{KG_DIR}/{COMMUNITIES_FILE} is damaged or has a format this kgtool does not "
                "know: run `kgtool update`"
            )
    if missing:
        without = (
            "this answer is read from the playbooks alone, nothing in it is checked"
            if raw is None
            else "no communities or files are shown"
        )
        state.notices.insert(
            0,
            f"{KG_DIR}/ is missing ({', '.join(missing)} not found): run `kgtool update`; "
            f"{without}",
        )
    try:
        state.ontology = load_ontology(store)
    except KgError as exc:
        state.notices.append(f"layer-3 labels were not read: {exc}")
    if state.raw_present:
        state.stale_files = _changed_files(root, state)
        if state.stale_files:
            named = ", ".join(state.stale_files[:STALE_NAMED])
            more = len(state.stale_files) - STALE_NAMED
            named += f" and {more} more" if more > 0 else ""
            count = len(state.stale_files)
            state.notices.append(
                f"{KG_DIR}/ is out of date: {count} file{'s' * (count != 1)} changed since "
                f"the last `kgtool update` ({named}); line numbers there may be off: run "
                "`kgtool update`"
            )
    return state


def _read_layer1(data: bytes, state: MapState) -> bool:
    """Fill ``state`` with layer 1's nodes and words; False when raw.jsonl cannot be read.

    Decoding the nodes and splitting every name into words costs more than the rest of a
    read together on a large repository, so the result is kept in the local cache, keyed by
    raw.jsonl's identity on disk (every write of it is a new file, renamed into place).
    """
    key = _cache_key(state.store)
    cached = _cached_rows(state.store, key)
    rows = cached if cached is not None else _rows(data)
    if rows is None:
        return False
    file_lines, raw_hashes, symbol_rows, path_words, symbol_words, neighbours = rows
    state.neighbours = neighbours
    state.file_lines, state.raw_hashes, state.path_words = file_lines, raw_hashes, path_words
    symbols = [Symbol(*row) for row in symbol_rows]
    for symbol in symbols:
        state.symbols.setdefault(symbol.path, []).append(symbol)
    state.symbol_words = {w: [symbols[i] for i in found] for w, found in symbol_words.items()}
    state.raw_present = True
    if cached is None and key:
        _remember(state.store, key, rows)
    return True


def _rows(data: bytes) -> tuple | None:
    lines = []
    edge_lines = []
    for line in data.split(b"\n"):
        if _EDGE_MARK in line:
            if _BOUND_MARK in line:
                edge_lines.append(line)
        elif _NODE_MARK in line or _META_MARK in line:
            lines.append(line)
    try:
        records = json.loads(b"[" + b",".join(lines) + b"]")
        edges = json.loads(b"[" + b",".join(edge_lines) + b"]")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not records or not isinstance(records[0], dict) or records[0].get("rec") != "meta":
        return None
    if records[0].get("format") not in KNOWN_RAW_FORMATS:
        return None
    file_lines: dict[str, int] = {}
    hashes: dict[str, str] = {}
    symbols: list[tuple[str, str, str, str, int, int]] = []
    for record in records[1:]:
        if not isinstance(record, dict):
            return None
        node_id = record.get("id")
        if not isinstance(node_id, str) or record.get("external"):
            continue
        kind = str(record.get("kind", ""))
        if kind == "file":
            hashes[node_id] = str(record.get("hash", ""))
            file_lines[node_id] = int(record.get("lines") or 0)
        elif "::" in node_id:
            path, _, qualname = node_id.partition("::")
            span = record.get("span") or [0, 0]
            symbols.append((node_id, path, qualname, kind, int(span[0]), int(span[-1])))
    path_words: dict[str, list[str]] = {}
    for path in sorted(file_lines):
        for word in identifier_words(path):
            path_words.setdefault(word, []).append(path)
    symbol_words: dict[str, list[int]] = {}
    words_of: dict[str, set[str]] = {}  # names repeat a lot (run, __init__, test_x)
    for number, (_, _, qualname, _, _, _) in enumerate(symbols):
        name = qualname.rsplit(".", 1)[-1]
        words = words_of.get(name)
        if words is None:
            words = words_of[name] = identifier_words(name)
        for word in words:
            symbol_words.setdefault(word, []).append(number)
    return (
        file_lines,
        hashes,
        symbols,
        {w: tuple(paths) for w, paths in path_words.items()},
        {w: tuple(found) for w, found in symbol_words.items()},
        _file_neighbours(edges),
    )


def _file_neighbours(edges: list[Any]) -> dict[str, tuple[tuple[str, int], ...]]:
    """Files joined by layer-1 edges (either way), with how many; "contains" never crosses
    files and packages outside the repository are not files of it."""
    counts: dict[str, dict[str, int]] = {}
    for edge in edges:
        if not isinstance(edge, dict):
            continue
        dst, src = str(edge.get("dst", "")), str(edge.get("src", ""))
        if dst.startswith("ext:"):
            continue
        first, second = src.partition("::")[0], dst.partition("::")[0]
        if first == second:
            continue
        for one, other in ((first, second), (second, first)):
            found = counts.setdefault(one, {})
            found[other] = found.get(other, 0) + 1
    return {
        path: tuple(sorted(found.items(), key=lambda item: (-item[1], item[0])))
        for path, found in sorted(counts.items())
    }


def _cache_key(store: Store) -> str:
    try:
        info = store.path(RAW_FILE).stat()
    except OSError:
        return ""
    return (
        f"{READ_CACHE_VERSION}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"
    )


def _cached_rows(store: Store, key: str) -> tuple | None:
    if not key:
        return None
    try:
        record = marshal.loads((store.cache_dir / READ_CACHE).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(record, tuple) or len(record) != 2 or record[0] != key:
        return None
    rows = record[1]
    return rows if isinstance(rows, tuple) and len(rows) == 6 else None


def _remember(store: Store, key: str, rows: tuple) -> None:
    if not store.dir.is_dir():
        return
    # A cache that cannot be written costs time, never correctness.
    with contextlib.suppress(OSError, ValueError):
        atomic_write(store.cache_dir / READ_CACHE, marshal.dumps((key, rows)), durable=False)


def _read_document(data: bytes) -> dict[str, Any] | None:
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if (
        not isinstance(document, dict)
        or document.get("format") not in KNOWN_COMMUNITY_FORMATS
        or not isinstance(document.get("communities"), dict)
        or not isinstance(document.get("files"), dict)
        or not isinstance(document.get("edges"), list)
    ):
        return None
    return document


def _changed_files(root: Path, state: MapState) -> list[str]:
    """Files whose content differs from what raw.jsonl was built from: edited, added, deleted."""
    changed = []
    unknown = []
    seen = set()
    for tracked in tracked_files(root):
        path = tracked.path
        if path.startswith(f"{KG_DIR}/"):
            continue
        seen.add(path)
        recorded = state.raw_hashes.get(path)
        if recorded is None:
            unknown.append(path)
        elif tracked.deleted or (tracked.blob and tracked.blob != recorded):
            changed.append(path)
    if unknown:
        # Only a file new to the graph needs the exclude globs; their module costs an import.
        from kgtool.raw.build import excluded

        patterns = state.config["exclude"]
        changed += [p for p in unknown if not excluded(p, patterns)]
    changed += [p for p in state.raw_hashes if p not in seen]  # no longer tracked
    return sorted(changed)
