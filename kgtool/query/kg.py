"""``.kg/`` as every read command sees it: layers 1-3 as committed, and whether they are current.

One loader serves ``context``, ``impact``, ``explain`` and the MCP server, so they say the same
thing in the same words when ``.kg/`` is missing, damaged or out of date.

Freshness is judged cheaply and exactly where it matters: the blob id layer 1 recorded
for each file against the blob id of the file in the working tree (one ``git ls-files``),
which is what makes a ``file:line`` citation right or wrong.

Layer 1 is read two ways, each paid for only by the questions that need it:

- the index (nodes, the words of paths and names, file-to-file neighbours), for ``context``:
  decoding every node and splitting every name into words costs more than the rest of a read
  together on a large repository, so it is kept in the local cache (``read.marshal``), keyed by
  the identity of layer 1's shards on disk (every write of one is a new file, renamed into
  place), and built by the first reader that needs it;
- the graph (``KgGraph``), for ``impact`` and ``explain``: layer 1 (its shards joined by
  ``kgtool.raw.graph.load``) is not decoded whole, its edges are found by substring search and
  a line is decoded only when an answer needs it. Records are canonical JSON (sorted keys, no
  spaces), which is what makes the search exact; a layer 1 whose IDs hold an escaped
  character is decoded line by line instead.
"""

from __future__ import annotations

import contextlib
import marshal
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from kgtool import bounded
from kgtool.communities.document import (
    COMMUNITIES_FILE,
    Document,
    read_document_bytes,
    shape_problem,
)
from kgtool.communities.identity import id_number
from kgtool.config import Config, load_config
from kgtool.errors import KgError
from kgtool.ontology.model import Ontology, load_ontology
from kgtool.query.layer_rows import decoded, read_rows
from kgtool.raw import graph as raw_graph
from kgtool.raw.graph import (
    DAMAGED,
    EDGE_MARK,
    FILE_MARK,
    META_MARK,
    NODE_MARK,
    split_node_id,
)
from kgtool.repo import tracked_files
from kgtool.store import KG_DIR, Store, atomic_write

_NODE_MARK, _META_MARK, _EDGE_MARK = NODE_MARK, META_MARK, EDGE_MARK
_EXTERNAL_MARK = b'"external":true'  # a package node (written by layer 1 format 1 only)
KNOWN_COMMUNITY_FORMATS = {2, 3}  # 3 adds areas, which the read path does not need
READ_CACHE = "read.marshal"  # in the local cache: layer 1's nodes and words, decoded
EDGE_CACHE = "read-edges.marshal"  # in the local cache: layer 1's edges by target, as offsets
UNRESOLVED_CACHE = "read-unresolved.marshal"  # in the local cache: unbound call sites by caller
READ_CACHE_VERSION = 8  # raise when what read_rows() or the edge index computes changes
STALE_NAMED = 3  # changed files named in the notice; the rest are counted
# Edge types along which a change reaches a dependent (``contains`` is structure, not use).
DEPENDENCY_TYPES = ("calls", "imports", "inherits")
# Targeted searches for a node's incoming edges (a scan of layer 1 each) before the whole
# edge index is built instead: a few cost less than the index, many cost more.
SEARCHES_BEFORE_INDEX = 4


class Symbol(NamedTuple):
    id: str  # layer-1 ID, "path::Qual.name"
    path: str
    qualname: str
    kind: str
    line: int  # first line of its span; 0 when layer 1 recorded none
    end: int


class LayerIndex(NamedTuple):
    """Layer 1 decoded for searching by words (what the read cache keeps)."""

    file_lines: dict[str, int]  # path -> lines
    symbols: dict[str, list[Symbol]]  # path -> its symbols, in source order
    # The words of layer 1 (see kgtool.query.words): word -> paths whose path holds it, and
    # word -> symbols whose name holds it.
    path_words: dict[str, tuple[str, ...]]
    symbol_words: dict[str, list[Symbol]]
    # File -> the other files its layer-1 edges (imports, calls, inherits) join it to, either
    # way, with how many edges: (neighbour, count), most first.
    neighbours: dict[str, tuple[tuple[str, int], ...]]


class MapState:
    """The map as committed under ``.kg/``, with what is wrong with it, if anything."""

    __slots__ = (
        "_graph",
        "_index",
        "_key",
        "_longest",
        "_raw",
        "_rows",
        "config",
        "document",
        "missing",
        "notices",
        "ontology",
        "raw_hashes",
        "raw_present",
        "raw_where",
        "root",
        "stale_files",
        "store",
    )

    root: Path
    config: Config
    store: Store
    document: dict[str, Any] | None  # .kg/communities.json; None when unreadable
    ontology: Ontology
    raw_hashes: dict[str, str]  # path -> blob id layer 1 read
    raw_present: bool  # layer 1 is there and readable
    raw_where: str  # how to name layer 1: .kg/raw/ (or an unmigrated file)
    missing: list[str]  # files of .kg/ not found
    stale_files: list[str]  # changed since layer 1 was written
    notices: list[str]  # one line each: what the reader must know
    _raw: bytes
    _key: str  # the read caches' key: layer 1's identity on disk
    _rows: tuple[Any, ...] | None  # the index as the read cache keeps it
    _index: LayerIndex | None
    _graph: KgGraph | None
    _longest: int  # the longest path of a file, once an ID's path is asked for

    def __init__(
        self,
        root: Path,
        config: Config,
        store: Store,
    ) -> None:
        self.root = root
        self.config = config
        self.store = store
        self.document = None
        self.ontology = Ontology()
        self.raw_hashes = {}
        self.raw_present = False
        self.raw_where = raw_graph.WHERE
        self.missing = []
        self.stale_files = []
        self.notices = []
        self._raw = b""
        self._key = ""
        self._rows = None
        self._index = None
        self._graph = None
        self._longest = -1

    @property
    def read_key(self) -> str:
        """What the read caches built from this layer 1 are kept under ("" for none)."""
        return self._key

    @property
    def community_of(self) -> dict[str, str]:
        files: dict[str, str] = (self.document or {}).get("files", {})
        return files

    @property
    def communities(self) -> dict[str, dict[str, Any]]:
        communities: dict[str, dict[str, Any]] = (self.document or {}).get("communities", {})
        return communities

    @property
    def layered(self) -> bool:
        """Layers 1 and 2 are there to read."""
        return self.raw_present and self.document is not None

    # -- the index (context), from the read cache or built once and cached ---------------

    @property
    def index(self) -> LayerIndex:
        if self._index is None:
            if self._rows is None:
                self._rows = _cached_rows(self.store, self._key)
            rows = self._rows if self._rows is not None else read_rows(self._raw)
            if rows is None:  # damaged past its first line: as if it were not there
                rows = ({}, {}, [], {}, {}, {})
                if self.raw_present:
                    self.raw_present = False
                    self.notices.append(_damage_notice(self.store, self.raw_where))
            elif self._rows is None:
                self._rows = rows
                remember_cached(self.store, self._key, rows)
            file_lines, _, symbol_rows, path_words, symbol_words, neighbours = rows
            symbols = [Symbol(*row) for row in symbol_rows]
            by_path: dict[str, list[Symbol]] = {}
            for symbol in symbols:
                by_path.setdefault(symbol.path, []).append(symbol)
            self._index = LayerIndex(
                file_lines,
                by_path,
                path_words,
                {w: [symbols[i] for i in found] for w, found in symbol_words.items()},
                neighbours,
            )
        return self._index

    @property
    def file_lines(self) -> dict[str, int]:
        return self.index.file_lines

    @property
    def symbols(self) -> dict[str, list[Symbol]]:
        return self.index.symbols

    @property
    def path_words(self) -> dict[str, tuple[str, ...]]:
        return self.index.path_words

    @property
    def symbol_words(self) -> dict[str, list[Symbol]]:
        return self.index.symbol_words

    @property
    def neighbours(self) -> dict[str, tuple[tuple[str, int], ...]]:
        return self.index.neighbours

    def path_of(self, node_id: str) -> str:
        """The file a layer-1 ID is in (a file's name may hold '::': see split_node_id)."""
        if self._longest < 0:
            self._longest = max(map(len, self.file_lines), default=0)
        return split_node_id(node_id, self.file_lines.__contains__, self._longest)[0]

    def symbol(self, node_id: str) -> Symbol | None:
        path = self.path_of(node_id)
        for found in self.symbols.get(path, ()):
            if found.id == node_id:
                return found
        return None

    # -- the graph (impact, explain), searched in place ----------------------------------

    @property
    def graph(self) -> KgGraph:
        """Layers 1 and 2 for following edges; a one-line error when they cannot be read."""
        if self._graph is None:
            if self.missing:
                raise KgError(missing_notice(self.missing))
            if not self.layered:
                raise KgError(next(n for n in self.notices if DAMAGED in n))
            assert self.document is not None
            self._graph = KgGraph(self.root, self.document, self._raw, b"\\" in self._raw)
            self._graph._file_hashes = self.raw_hashes
            self._graph._store, self._graph._cache_key = self.store, self._key
            self._graph.stale = self.stale
        return self._graph

    @property
    def stale(self) -> str:
        """The one line saying how ``.kg/`` is out of date; "" when it is current."""
        if self.stale_files:
            return stale_notice(self.stale_files)
        return next((n for n in self.notices if _BUILT_APART in n), "")


_BUILT_APART = "was built from another layer 1"


def cid_order(cid: str) -> tuple[bool, int, str]:
    """Community IDs in their number's order (c2 before c10), anything else after them."""
    number = id_number(cid)
    return number < 0, number, cid


def missing_notice(missing: list[str]) -> str:
    """The one line every read command gives when files of ``.kg/`` are not there."""
    return f"{KG_DIR}/ is missing ({', '.join(missing)} not found): run `kgtool update`"


def stale_notice(changed: list[str]) -> str:
    """The one line every read command gives when files differ from what ``.kg/`` was built
    from: how many, the first few by name."""
    named = ", ".join(changed[:STALE_NAMED])
    more = len(changed) - STALE_NAMED
    named += f" and {more} more" if more > 0 else ""
    count = len(changed)
    return (
        f"{KG_DIR}/ is out of date: {count} file{'s' * (count != 1)} changed since the last "
        f"`kgtool update` ({named}); answers describe the code as it was then, line numbers "
        "may be off: run `kgtool update`"
    )


def load_map(
    root: Path, config: Config | None = None, store: Store | None = None, indexed: bool = False
) -> MapState:
    """``.kg/`` as committed, with a notice for each thing wrong with it. Reads what every
    command needs (layer 1's bytes, layer 2, layer 3, the blob ids for freshness), and the
    index too when ``indexed`` (so that a layer 1 damaged past its first line is said)."""
    if store is None:
        store = Store(root)
        store.refuse_unsafe()
    state = MapState(root, config if config is not None else load_config(root), store)
    loaded = raw_graph.load(store)
    if loaded is None:
        state.missing.append(raw_graph.WHERE)
    else:
        state.raw_where = loaded.where
        state._key = _cache_key(loaded.identity)
        if loaded.data is None:
            state.notices.append(str(loaded.damaged()))
        elif not _read_layer1(loaded.data, state, indexed):
            state.notices.append(_damage_notice(store, loaded.where))
        elif indexed:
            state.index  # noqa: B018 - built now, or its damage said now
    document = read_document_bytes(store)
    if document is None:
        state.missing.append(f"{KG_DIR}/{COMMUNITIES_FILE}")
    else:
        state.document = _read_document(document)
        if state.document is None:
            state.notices.append(f"{KG_DIR}/{COMMUNITIES_FILE} {DAMAGED}")
    if state.missing:
        state.notices.insert(0, missing_notice(state.missing))
    try:
        state.ontology = load_ontology(store)
    except KgError as exc:
        state.notices.append(f"layer-3 labels were not read: {exc}")
    if state.raw_present:
        state.stale_files = _changed_files(root, state)
        if state.stale_files:
            state.notices.append(stale_notice(state.stale_files))
        elif state.document is not None and state.community_of.keys() != state.raw_hashes.keys():
            state.notices.append(
                f"{KG_DIR}/{COMMUNITIES_FILE} {_BUILT_APART} than {state.raw_where}: "
                "run `kgtool update`"
            )
    return state


def _read_layer1(data: bytes, state: MapState, indexed: bool) -> bool:
    """Take layer 1's bytes and the blob ids it recorded; False when it cannot be read.

    The index is left for the first reader that needs it (``MapState.index``); a reader
    that will need it (``indexed``) takes the blob ids from the read cache when it is warm,
    the others take them from one search of layer 1, which costs less than the cache.
    ``data`` is what ``kgtool.raw.graph.load`` read: its meta record is one of a known format."""
    state._raw = data
    if indexed:
        state._rows = _cached_rows(state.store, state._key)
    if state._rows is not None:
        state.raw_hashes = state._rows[1]
    elif b"\\" not in data:
        state.raw_hashes = {path.decode(): blob.decode() for blob, path in _FILE_AT.findall(data)}
    else:  # an escaped character somewhere: decode, never slice
        rows = read_rows(data)
        if rows is None:
            return False
        state._rows = rows
        remember_cached(state.store, state._key, rows)
        state.raw_hashes = rows[1]
    state.raw_present = True
    return True


def _cache_key(identity: str) -> str:
    return f"{READ_CACHE_VERSION}:{identity}" if identity else ""


def _cached_rows(store: Store, key: str) -> tuple[Any, ...] | None:
    rows = read_cached(store, READ_CACHE, key)
    return rows if isinstance(rows, tuple) and len(rows) == 6 else None


def read_cached(store: Store, name: str, key: str) -> Any:
    """What ``remember_cached`` kept in the cache file ``name`` under ``key``; None when it holds
    nothing for this layer 1."""
    if not key:
        return None
    try:
        record = marshal.loads((store.cache_dir / name).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(record, tuple) or len(record) != 2 or record[0] != key:
        return None
    return record[1]


def remember_cached(store: Store, key: str, value: Any, name: str = READ_CACHE) -> None:
    if not key or not store.dir.is_dir():
        return
    # A cache that cannot be written costs time, never correctness.
    with contextlib.suppress(OSError, ValueError):
        atomic_write(store.cache_dir / name, marshal.dumps((key, value)), durable=False)


def _read_document(data: bytes) -> dict[str, Any] | None:
    try:
        document = bounded.load_json(data, f"{KG_DIR}/{COMMUNITIES_FILE}", bounded.DOCUMENT_BYTES)
    except ValueError:
        return None
    if (
        not isinstance(document, dict)
        or type(document.get("format")) is not int
        or document["format"] not in KNOWN_COMMUNITY_FORMATS
        or not isinstance(document.get("files"), dict)
        or not isinstance(document.get("edges"), list)
        or shape_problem(document)
    ):
        return None
    return document


def _changed_files(root: Path, state: MapState) -> list[str]:
    """Files whose content differs from what layer 1 was built from: edited, added, deleted."""
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
        from kgtool.globs import excluded, valid_name

        patterns = state.config["exclude"]
        # A name that is not UTF-8 is left out of layer 1 by every build (R107): it is not
        # new to the graph, whatever the graph's age.
        changed += [p for p in unknown if valid_name(p) and not excluded(p, patterns)]
    changed += [p for p in state.raw_hashes if p not in seen]  # no longer tracked
    return sorted(changed)


class Edge(NamedTuple):
    src: str
    dst: str  # "" for an AMBIGUOUS edge: see ``candidates``
    type: str
    tier: str
    confidence: float
    line: int
    candidates: tuple[str, ...] = ()


class KgGraph:
    """Layer 1 (lazily decoded) and layer 2 of one repository, as ``kgtool update`` left them.

    Nothing is indexed up front: a question about a few nodes is answered by searching the
    file for their quoted IDs (a scan in C), and the full indexes (every node, every edge by
    target) are built the first time a question needs many lookups.
    """

    __slots__ = (
        "_cache_key",
        "_data",
        "_edge_tables",
        "_file_hashes",
        "_incoming_index",
        "_longest",
        "_node_index",
        "_nodes",
        "_searches",
        "_slow",
        "_store",
        "_unresolved",
        "document",
        "root",
        "stale",
    )

    root: Path
    document: Document
    _data: bytes
    _slow: bool  # an escaped character somewhere: decode lines, never slice IDs
    _node_index: dict[bytes, int] | None  # ID -> offset of its line
    _incoming_index: dict[bytes, list[int]] | None  # target -> edge line offsets
    _searches: int  # targeted searches so far: past SEARCHES_BEFORE_INDEX, index
    _nodes: dict[str, dict[str, Any] | None]
    _file_hashes: dict[str, str] | None
    _longest: int  # the longest path of a file, once an ID's path is asked for
    # Where the edge index is kept once built (None: nowhere), and the layer 1 it is for.
    _unresolved: dict[str, dict[str, int]] | None
    # A file node's offset -> (its symbols, its edges' lines): see _edge_lines.
    _edge_tables: dict[int, tuple[int, list[Any] | None]]
    _store: Store | None
    _cache_key: str
    stale: str  # one line saying how .kg/ is out of date; "" when it is current

    def __init__(
        self,
        root: Path,
        document: Document,
        _data: bytes = b"",
        _slow: bool = False,
    ) -> None:
        self.root = root
        self.document = document
        self._data = _data
        self._slow = _slow
        self._node_index = None
        self._incoming_index = None
        self._searches = 0
        self._nodes = {}
        self._file_hashes = None
        self._longest = -1
        self._unresolved = None
        self._edge_tables = {}
        self._store = None
        self._cache_key = ""
        self.stale = ""

    def _line_at(self, offset: int) -> bytes:
        start = self._data.rfind(b"\n", 0, offset) + 1
        end = self._data.find(b"\n", offset)
        return self._data[start : end if end >= 0 else len(self._data)]

    def _lines_from(self, offset: int) -> Iterator[tuple[int, bytes]]:
        """(offset, line) of every line after the one at ``offset``."""
        end = self._data.find(b"\n", offset)
        while end >= 0:
            start, end = end + 1, self._data.find(b"\n", end + 1)
            yield start, self._data[start : end if end >= 0 else len(self._data)]

    def _offsets(self, needle: bytes) -> list[int]:
        found, at = [], self._data.find(needle)
        while at >= 0:
            found.append(at)
            at = self._data.find(needle, at + 1)
        return found

    # -- indexes, built when first needed ------------------------------------------------

    @property
    def node_index(self) -> dict[bytes, int]:
        if self._node_index is None:
            if self._slow:
                self._index_slowly()
            else:
                self._node_index = {}
                file_id = b""
                for match in _ID_AT.finditer(self._data):
                    key = match.group(1)
                    if key.startswith(b"::"):  # a symbol's ID, written without its file's
                        key = file_id + key
                    elif b"::" not in key or FILE_MARK in self._line_at(match.start()):
                        file_id = key  # a file's name may hold '::': its record says so
                    self._node_index[key] = match.start()
        assert self._node_index is not None
        return self._node_index

    @property
    def incoming_index(self) -> dict[bytes, list[int]]:
        if self._incoming_index is None and self._store is not None:
            cached = read_cached(self._store, EDGE_CACHE, self._cache_key)
            self._incoming_index = cached if isinstance(cached, dict) else None
        if self._incoming_index is None:
            if self._slow:
                self._index_slowly()
            else:
                incoming: dict[bytes, list[int]] = {}
                for match in _DST_AT.finditer(self._data):
                    key = match.group(1)
                    found = incoming.get(key)
                    if found is None:
                        incoming[key] = [match.start()]
                    else:
                        found.append(match.start())
                for match in _CANDIDATES_AT.finditer(self._data):
                    for candidate in match.group(1)[1:-1].split(b'","'):
                        incoming.setdefault(candidate, []).append(match.start() + 1)
                self._incoming_index = incoming
            if self._store is not None:
                remember_cached(self._store, self._cache_key, self._incoming_index, EDGE_CACHE)
        assert self._incoming_index is not None
        return self._incoming_index

    def _index_slowly(self) -> None:
        nodes: dict[bytes, int] = {}
        incoming: dict[bytes, list[int]] = {}
        offset = 0
        file_id = ""
        for line in self._data.split(b"\n"):
            if _EDGE_MARK in line:
                record = _record(line, self._store)
                for target in [record.get("dst", ""), *record.get("candidates", ())]:
                    if target:
                        incoming.setdefault(target.encode(), []).append(offset)
            elif _NODE_MARK in line:
                node_id = str(decoded(line, self._store).get("id", ""))
                if node_id.startswith("::"):  # a symbol's ID, written without its file's
                    node_id = file_id + node_id
                elif FILE_MARK in line:
                    file_id = node_id
                nodes[node_id.encode()] = offset
            offset += len(line) + 1
        self._node_index, self._incoming_index = nodes, incoming

    # -- layer 1 ---------------------------------------------------------------------------

    def node(self, node_id: str) -> dict[str, Any] | None:
        if node_id not in self._nodes:
            self._nodes[node_id] = self._find_node(node_id)
        return self._nodes[node_id]

    def _find_node(self, node_id: str) -> dict[str, Any] | None:
        """The node's record, what its format leaves out by default spelled out; a package
        outside the repository is a node when an edge points at it."""
        offset = self._node_offset(node_id)
        if offset is None:
            if node_id.startswith("ext:") and self._data.find(b'"' + node_id.encode() + b'"') >= 0:
                return {"external": True, "id": node_id, "kind": "package", "rec": "node"}
            return None
        record = _record(self._line_at(offset), self._store)
        path = self.path_of(node_id) if "::" in node_id else node_id
        file_node = self.node(path) if path != node_id else None
        if file_node is not None and "span" not in record and raw_graph.SPANS in file_node:
            # Its span is in its file's node, at its place among the symbols under it.
            number = self._place(offset, self._node_offset(path))
            record["span"] = raw_graph.placed(file_node[raw_graph.SPANS], number, [0, 0])
        return raw_graph.full_node(record, file_node)

    def _place(self, offset: int, file_at: int | None) -> int:
        """The place of the record at ``offset`` among those under its file's node (the
        file's at ``file_at``): 0 for the first."""
        if file_at is None:
            return -1
        start = self._data.rfind(b"\n", 0, file_at) + 1
        line_start = self._data.rfind(b"\n", 0, offset) + 1
        return self._data.count(b"\n", start, line_start) - 1

    def _edge_lines(self, file_at: int) -> tuple[int, list[Any] | None]:
        """(how many symbols, the edges' lines) the file node at ``file_at`` keeps; its edges'
        records follow its symbols'. Remembered per file: an impact reads many edges of one."""
        found = self._edge_tables.get(file_at)
        if found is None:
            node = decoded(self._line_at(file_at), self._store)
            spans, lines = node.get(raw_graph.SPANS), node.get(raw_graph.EDGE_LINES)
            symbols = len(spans) if type(spans) is list else 0
            found = (symbols, lines if type(lines) is list else None)
            self._edge_tables[file_at] = found
        return found

    def _node_offset(self, node_id: str) -> int | None:
        key = node_id.encode()
        if self._node_index is not None or self._slow:
            return self.node_index.get(key)
        path = self.path_of(node_id) if b"::" in key else node_id
        if path != node_id:
            qualname = key[len(path.encode()) + 2 :]
            # A symbol's node is written without its file's path, below its file's node.
            file_at = self._node_offset(path)
            start = self._data.find(b"\n", file_at) if file_at is not None else -1
            if start >= 0:
                end = self._data.find(FILE_MARK, start)
                wanted = b'"id":"::' + qualname + b'"'
                at = self._data.find(wanted, start, end if end >= 0 else len(self._data))
                if at >= 0:
                    return at
        at = self._data.find(b'"id":"' + key + b'"')  # "id" is a key of node records alone
        return None if at < 0 else at

    def node_ids(self) -> list[str]:
        return sorted(key.decode() for key in self.node_index)

    def file_hashes(self) -> dict[str, str]:
        """Path -> the blob id layer 1 read, for every file it maps."""
        if self._file_hashes is None:
            if self._slow:
                # Each record as written, not ``node()``: a symbol's node asks ``path_of``,
                # which asks for these very hashes.
                records = {
                    key.decode(): _record(self._line_at(offset), self._store)
                    for key, offset in self.node_index.items()
                }
                self._file_hashes = {
                    path: str(record.get("hash", ""))
                    for path, record in sorted(records.items())
                    if record.get("kind") == "file"
                }
            else:
                self._file_hashes = {
                    path.decode(): blob.decode() for blob, path in _FILE_AT.findall(self._data)
                }
        return self._file_hashes

    def files(self) -> list[str]:
        return sorted(self.file_hashes())

    def path_of(self, node_id: str) -> str:
        """The file a layer-1 ID is in: the ID itself for a file. A file's name may hold '::'
        (``a::b.py``): the longest prefix that is a file of layer 1 is the path."""
        if node_id.startswith("ext:"):
            return node_id
        files = self.file_hashes()
        if self._longest < 0:
            self._longest = max(map(len, files), default=0)
        return split_node_id(node_id, files.__contains__, self._longest)[0]

    def is_file(self, node_id: str) -> bool:
        return node_id in self.file_hashes()

    def symbols_of(self, node_id: str) -> list[str]:
        """``node_id`` and every symbol inside it (a file's symbols, a class's methods), read
        from the file's own stretch of layer 1 (its symbols follow its node there)."""
        path = self.path_of(node_id)
        prefix = f"{node_id}::" if path == node_id else f"{node_id}."
        inside = [symbol for symbol, _ in self._block(path) if symbol.startswith(prefix)]
        return [node_id, *sorted(inside)]

    def _block(self, path: str) -> Iterator[tuple[str, bytes]]:
        """(symbol ID or "", line) of the lines after file ``path``'s node, up to the next
        file's: layer 1 writes a file's node, its symbols' nodes and their edges together."""
        at = self._node_offset(path)
        if at is None:
            return
        for _, line in self._lines_from(at):
            if _NODE_MARK in line:
                if FILE_MARK in line or _EXTERNAL_MARK in line:  # the next file, or packages
                    return
                symbol = str(decoded(line, self._store).get("id", ""))
                yield (path + symbol if symbol.startswith("::") else symbol), line
            else:
                yield "", line

    def incoming(self, node_id: str, types: tuple[str, ...] = DEPENDENCY_TYPES) -> list[Edge]:
        """Every edge of ``types`` that ends at ``node_id``, ambiguous ones listing it included,
        in the order of layer 1."""
        key = node_id.encode()
        if self._incoming_index is None and not self._slow:
            self._searches += 1
            if self._searches <= SEARCHES_BEFORE_INDEX:
                # One scan for the quoted ID; what precedes each hit says what it is: "dst":
                # for a bound edge, [ or , for a candidate of an ambiguous one (the line is
                # decoded and checked: the same bytes can mean something else).
                quoted = b'"' + key + b'"'
                offsets = [
                    at
                    for at in self._offsets(quoted)
                    if self._data.endswith(b'"dst":', 0, at) or self._data[at - 1 : at] in b"[,"
                ]
                edges = []
                starts = dict.fromkeys(self._data.rfind(b"\n", 0, o) + 1 for o in offsets)
                for start in starts:
                    if _EDGE_MARK not in self._line_at(start):
                        continue
                    edge = self._edge_at(start)
                    if edge.type in types and (edge.dst == node_id or node_id in edge.candidates):
                        edges.append(edge)
                return edges
        offsets = sorted(self.incoming_index.get(key, ()))
        edges = [self._edge_at(o) for o in offsets]
        return [edge for edge in edges if edge.type in types]

    def _edge_at(self, offset: int) -> Edge:
        """The edge on the line at ``offset``; its source's file is the file node above it,
        which keeps its line too (format 3)."""
        at = self._data.rfind(FILE_MARK, 0, offset)
        file_id = ""
        line_number = None
        if at >= 0:
            line = self._line_at(at)
            found = _ID_AT.search(line) if not self._slow else None
            if found:
                file_id = found.group(1).decode()
            else:
                file_id = str(decoded(line, self._store).get("id", ""))
            symbols, lines = self._edge_lines(at)
            if lines is not None:
                line_number = raw_graph.placed(lines, self._place(offset, at) - symbols, 0)
        return _edge(self._line_at(offset), file_id, self._store, line_number)

    def edges_from(self, path: str, types: tuple[str, ...] = DEPENDENCY_TYPES) -> list[Edge]:
        """Every edge of ``types`` whose source lies in file ``path``."""
        edges = []
        at = self._node_offset(path)
        lines = self._edge_lines(at)[1] if at is not None else None
        number = 0  # the edge's place among its file's
        for symbol, line in self._block(path):
            if not symbol and _EDGE_MARK in line:
                placed = raw_graph.placed(lines, number, 0) if lines is not None else None
                number += 1
                edge = _edge(line, path, self._store, placed)
                if edge.type in types:
                    edges.append(edge)
        return edges

    def location(self, node_id: str) -> str:
        """``file:line`` of a node (a file's first line)."""
        record = self.node(node_id) or {}
        path = record.get("file") or self.path_of(node_id)
        span = record.get("span") or [1]
        return f"{path}:{span[0]}"

    def unresolved_named(self, names: set[str]) -> dict[str, dict[str, int]]:
        """Caller ID -> {name: count} of the call sites that bound to nothing and bear one of
        ``names``: calls that could reach a symbol of that name, unseen by resolution."""
        found: dict[str, dict[str, int]] = {}
        if not names:
            return found
        for caller, counts in self.unresolved_calls().items():
            hits = {name: int(counts[name]) for name in names & counts.keys()}
            if hits:
                found[caller] = dict(sorted(hits.items()))
        return dict(sorted(found.items()))

    def unresolved_calls(self) -> dict[str, dict[str, int]]:
        """Caller ID -> {name: count} of its call sites that bound to nothing, for every
        caller that has some; kept in the read cache beside the edge index."""
        if self._unresolved is None and self._store is not None:
            cached = read_cached(self._store, UNRESOLVED_CACHE, self._cache_key)
            self._unresolved = cached if isinstance(cached, dict) else None
        if self._unresolved is not None:
            return self._unresolved
        callers: Iterable[tuple[str, Any]]
        if self._slow:
            callers = (
                (key.decode(), decoded(line, self._store).get("unresolved_calls", {}))
                for key, line in ((k, self._line_at(o)) for k, o in self.node_index.items())
            )
        else:
            # One scan for every caller's counts (a node's "id" precedes its sorted
            # "unresolved_calls"), not one per name: a file has hundreds of names. A symbol's
            # ID is written without its file's, whose node comes first.
            scanned: list[tuple[str, Any]] = []
            file_id = b""
            for match in _UNRESOLVED_AT.finditer(self._data):
                found, file_counts, symbol, counts = match.groups()
                if found is not None:
                    file_id = found
                    if file_counts is not None:
                        scanned.append((found.decode(), decoded(file_counts, self._store)))
                else:
                    caller = file_id + symbol if symbol.startswith(b"::") else symbol
                    scanned.append((caller.decode(), decoded(counts, self._store)))
            callers = scanned
        found = {caller: counts for caller, counts in callers if counts}
        if not all(map(raw_graph.is_counts, found.values())):  # names to whole numbers
            raise raw_graph.damaged_at(self._store)
        self._unresolved = found
        if self._store is not None:
            remember_cached(self._store, self._cache_key, self._unresolved, UNRESOLVED_CACHE)
        return self._unresolved

    # -- layer 2 ---------------------------------------------------------------------------

    def community_of(self, path: str) -> str:
        return str(self.document.get("files", {}).get(path, ""))

    @property
    def communities(self) -> dict[str, Any]:
        return dict(self.document.get("communities", {}))


def _edge(line: bytes, file_id: str, store: Store | None, number: int | None = None) -> Edge:
    """The edge record ``line`` of file ``file_id``; ``number``: its line, when its file's
    node keeps it (format 3)."""
    record = raw_graph.full_edge(_record(line, store), file_id)
    return Edge(
        record["src"],
        record.get("dst", ""),
        record["type"],
        record["tier"],
        float(record["confidence"]),
        record.get("line", 0) if number is None else number,
        tuple(record.get("candidates", ())),
    )


# An ID is found by these patterns only when it holds no escaped character; a layer 1 that
# holds a backslash anywhere is read line by line, decoded, instead (``_index_slowly``).
_FILE_AT = re.compile(rb'"hash":"([0-9a-f]*)","id":"([^"\\]*)"')  # a file node's blob and ID
_UNRESOLVED_AT = re.compile(
    rb'"id":"([^"\\]*)","kind":"file"(?:[^\n]*?"unresolved_calls":(\{[^}\n]*\}))?'
    rb'|"id":"([^"\\]*)"[^\n]*?"unresolved_calls":(\{[^}\n]*\})'
)
_DST_AT = re.compile(rb'"dst":"([^"\\]*)"')
_ID_AT = re.compile(rb'"id":"([^"\\]*)"')
# Anchored on the newline, not ``^``: a literal start lets the engine skip ahead instead of
# trying every position (the meta record is always the first line, so none is missed).
_CANDIDATES_AT = re.compile(rb'\n\{"candidates":\[([^\]]*)\]')


def _record(line: bytes, store: Store | None) -> dict[str, Any]:
    """A node or edge record, decoded and of its shape; else the one-line error saying where
    layer 1 is damaged (found again on disk, at its line: only a damaged map pays)."""
    record = decoded(line, store)
    if raw_graph.shape_problem(record):
        raise raw_graph.damaged_at(store)
    return record


def _damage_notice(store: Store, where: str) -> str:
    """The notice for a layer 1 that cannot be read, at its first damaged line if found."""
    return str(raw_graph.damaged_at(store, where))


def require_node(graph: KgGraph, text: str, what: str = "a path or path::Symbol") -> str:
    """The layer-1 node ``text`` names, or a one-line error with the closest IDs."""
    node_id = text.strip().removeprefix("./")
    if graph.node(node_id) is not None and not node_id.startswith("ext:"):
        return node_id
    raise KgError(f"{text!r} is not {what} in {raw_graph.WHERE}{did_you_mean(graph, node_id)}")


def did_you_mean(graph: KgGraph, text: str, extra: list[str] | None = None) -> str:
    """ "; did you mean ...?" with up to three close IDs, or "" when none is close."""
    import difflib

    ids = [i for i in graph.node_ids() if not i.startswith("ext:")] + (extra or [])
    bare = text.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    # Same symbol name elsewhere first (a moved symbol), then the closest spellings.
    same_name = [i for i in ids if "::" in i and i.rsplit("::", 1)[1].rsplit(".", 1)[-1] == bare]
    close = difflib.get_close_matches(text, ids, n=3, cutoff=0.6)
    guesses = list(dict.fromkeys([*same_name[:3], *close]))[:3]
    return f"; did you mean {', '.join(guesses)}?" if guesses else ""


def load_graph(root: Path, config: Config, store: Store) -> KgGraph:
    """Layers 1 and 2 for following edges; a one-line error when ``.kg/`` cannot be read."""
    return load_map(root, config, store).graph
