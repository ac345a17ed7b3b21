"""``.kg/`` as the read path sees it: layer 1's edges indexed by target, layer 2, and freshness.

Reading must cost little on every call (an agent asks many small questions), so raw.jsonl is
not decoded whole: its lines are split once, each edge filed under its target by a substring
search, and a line is decoded only when an answer needs it. Records are canonical JSON
(sorted keys, no spaces), which is what makes the substring search exact; a line whose ID
holds an escaped character is decoded in full instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgtool.communities.document import COMMUNITIES_FILE, Document, parse_document
from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.repo import tracked_files
from kgtool.store import KG_DIR, RAW_FILE, Store

_EDGE_MARK = b'"rec":"edge"'
_NODE_MARK = b'"rec":"node"'
_META_MARK = b'"rec":"meta"'
KNOWN_FORMATS = {1}
# Edge types along which a change reaches a dependent (``contains`` is structure, not use).
DEPENDENCY_TYPES = ("calls", "imports", "inherits")
SHOWN_STALE = 3
# Targeted searches for a node's incoming edges (a scan of raw.jsonl each) before the whole
# edge index is built instead: a few cost less than the index, many cost more.
SEARCHES_BEFORE_INDEX = 4  # stale paths named in the one-line warning


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str  # "" for an AMBIGUOUS edge: see ``candidates``
    type: str
    tier: str
    confidence: float
    line: int
    candidates: tuple[str, ...] = ()


@dataclass
class KgGraph:
    """Layer 1 (lazily decoded) and layer 2 of one repository, as ``kgtool update`` left them.

    Nothing is indexed up front: a question about a few nodes is answered by searching the
    file for their quoted IDs (a scan in C), and the full indexes (every node, every edge by
    target) are built the first time a question needs many lookups.
    """

    root: Path
    document: Document
    _data: bytes = b""
    _slow: bool = False  # an escaped character somewhere: decode lines, never slice IDs
    _node_index: dict[bytes, int] | None = None  # ID -> offset of its line
    _incoming_index: dict[bytes, list[int]] | None = None  # target -> edge line offsets
    _searches: int = 0  # targeted searches so far: past SEARCHES_BEFORE_INDEX, index
    _nodes: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    _file_hashes: dict[str, str] | None = None
    stale: str = ""  # one line saying how .kg/ is out of date; "" when it is current

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
                self._node_index = {m.group(1): m.start() for m in _ID_AT.finditer(self._data)}
        assert self._node_index is not None
        return self._node_index

    @property
    def incoming_index(self) -> dict[bytes, list[int]]:
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
        assert self._incoming_index is not None
        return self._incoming_index

    def _index_slowly(self) -> None:
        nodes: dict[bytes, int] = {}
        incoming: dict[bytes, list[int]] = {}
        offset = 0
        for line in self._data.split(b"\n"):
            if _EDGE_MARK in line:
                record = _decoded(line)
                for target in [record.get("dst", ""), *record.get("candidates", ())]:
                    if target:
                        incoming.setdefault(target.encode(), []).append(offset)
            elif _NODE_MARK in line:
                nodes[str(_decoded(line).get("id", "")).encode()] = offset
            offset += len(line) + 1
        self._node_index, self._incoming_index = nodes, incoming

    # -- layer 1 ---------------------------------------------------------------------------

    def node(self, node_id: str) -> dict[str, Any] | None:
        if node_id not in self._nodes:
            self._nodes[node_id] = self._find_node(node_id)
        return self._nodes[node_id]

    def _find_node(self, node_id: str) -> dict[str, Any] | None:
        offset = self._node_offset(node_id)
        return None if offset is None else _decoded(self._line_at(offset))

    def _node_offset(self, node_id: str) -> int | None:
        key = node_id.encode()
        if self._node_index is not None or self._slow:
            return self.node_index.get(key)
        at = self._data.find(b'"id":"' + key + b'"')  # "id" is a key of node records alone
        return None if at < 0 else at

    def node_ids(self) -> list[str]:
        return sorted(key.decode() for key in self.node_index)

    def file_hashes(self) -> dict[str, str]:
        """Path -> the blob id layer 1 read, for every file it maps."""
        if self._file_hashes is None:
            if self._slow:
                self._file_hashes = {
                    path: str((self.node(path) or {}).get("hash", ""))
                    for path in self.node_ids()
                    if "::" not in path and not path.startswith("ext:")
                }
            else:
                self._file_hashes = {
                    path.decode(): blob.decode() for blob, path in _FILE_AT.findall(self._data)
                }
        return self._file_hashes

    def files(self) -> list[str]:
        return sorted(self.file_hashes())

    def symbols_of(self, node_id: str) -> list[str]:
        """``node_id`` and every symbol inside it (a file's symbols, a class's methods), read
        from the file's own stretch of raw.jsonl (its symbols follow its node there)."""
        path = node_id.split("::", 1)[0]
        prefix = f"{node_id}::" if "::" not in node_id else f"{node_id}."
        inside = [
            symbol
            for symbol, _ in self._block(path)
            if symbol.startswith(prefix)
        ]
        return [node_id, *sorted(inside)]

    def _block(self, path: str) -> Iterator[tuple[str, bytes]]:
        """(symbol ID or "", line) of the lines after file ``path``'s node, up to the next
        file's: layer 1 writes a file's node, its symbols' nodes and their edges together."""
        at = self._node_offset(path)
        if at is None:
            return
        for _, line in self._lines_from(at):
            if _NODE_MARK in line:
                if b'"file":"' not in line:  # the next file, or the external packages
                    return
                yield str(_decoded(line).get("id", "")), line
            else:
                yield "", line

    def incoming(self, node_id: str, types: tuple[str, ...] = DEPENDENCY_TYPES) -> list[Edge]:
        """Every edge of ``types`` that ends at ``node_id``, ambiguous ones listing it included,
        in the order of raw.jsonl."""
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
                for line in dict.fromkeys(self._line_at(o) for o in offsets):
                    if _EDGE_MARK not in line:
                        continue
                    edge = _edge(line)
                    if edge.type in types and (edge.dst == node_id or node_id in edge.candidates):
                        edges.append(edge)
                return edges
        offsets = sorted(self.incoming_index.get(key, ()))
        edges = [_edge(self._line_at(o)) for o in offsets]
        return [edge for edge in edges if edge.type in types]

    def edges_from(self, path: str, types: tuple[str, ...] = DEPENDENCY_TYPES) -> list[Edge]:
        """Every edge of ``types`` whose source lies in file ``path``."""
        edges = []
        for symbol, line in self._block(path):
            if not symbol and _EDGE_MARK in line:
                edge = _edge(line)
                if edge.type in types:
                    edges.append(edge)
        return edges

    def location(self, node_id: str) -> str:
        """``file:line`` of a node (a file's first line)."""
        record = self.node(node_id) or {}
        path = record.get("file") or node_id.split("::", 1)[0]
        span = record.get("span") or [1]
        return f"{path}:{span[0]}"

    def unresolved_named(self, names: set[str]) -> dict[str, dict[str, int]]:
        """Caller ID -> {name: count} of the call sites that bound to nothing and bear one of
        ``names``: calls that could reach a symbol of that name, unseen by resolution."""
        found: dict[str, dict[str, int]] = {}
        if not names:
            return found
        if self._slow:
            callers = (
                (str(record.get("id", "")), record.get("unresolved_calls", {}))
                for record in (
                    _decoded(self._line_at(offset)) for offset in self.node_index.values()
                )
            )
        else:
            # One scan for every caller's counts (a node's "id" precedes its sorted
            # "unresolved_calls"), not one per name: a file has hundreds of names.
            callers = (
                (caller.decode(), json.loads(counts))
                for caller, counts in _UNRESOLVED_AT.findall(self._data)
            )
        for caller, counts in callers:
            hits = {name: int(counts[name]) for name in names & counts.keys()}
            if hits:
                found[caller] = dict(sorted(hits.items()))
        return dict(sorted(found.items()))

    # -- layer 2 ---------------------------------------------------------------------------

    def community_of(self, path: str) -> str:
        return str(self.document.get("files", {}).get(path, ""))

    @property
    def communities(self) -> dict[str, Any]:
        return dict(self.document.get("communities", {}))


def _edge(line: bytes) -> Edge:
    record = json.loads(line)
    return Edge(
        record["src"],
        record.get("dst", ""),
        record["type"],
        record["tier"],
        float(record.get("confidence", 0.0)),
        int(record.get("line", 0)),
        tuple(record.get("candidates", ())),
    )


def load_graph(root: Path, config: Config, store: Store) -> KgGraph:
    """Layer 1 and 2 as on disk; a one-line error when they are missing or unreadable."""
    data = store.read_bytes(RAW_FILE)
    if data is None:
        raise KgError(f"{KG_DIR}/{RAW_FILE} does not exist: run `kgtool update` first")
    communities = store.read_bytes(COMMUNITIES_FILE)
    if communities is None:
        raise KgError(f"{KG_DIR}/{COMMUNITIES_FILE} does not exist: run `kgtool update` first")
    graph = KgGraph(root, parse_document(communities))
    _open(graph, data)
    graph.stale = staleness(root, config, graph)
    return graph


# An ID is found by these patterns only when it holds no escaped character; a raw.jsonl that
# holds a backslash anywhere is read line by line, decoded, instead (``_index_slowly``).
_FILE_AT = re.compile(rb'"hash":"([0-9a-f]*)","id":"([^"\\]*)"')  # a file node's blob and ID
_UNRESOLVED_AT = re.compile(rb'"id":"([^"\\]*)"[^\n]*?"unresolved_calls":(\{[^}\n]*\})')
_DST_AT = re.compile(rb'"dst":"([^"\\]*)"')
_ID_AT = re.compile(rb'"id":"([^"\\]*)"')
# Anchored on the newline, not ``^``: a literal start lets the engine skip ahead instead of
# trying every position (the meta record is always the first line, so none is missed).
_CANDIDATES_AT = re.compile(rb'\n\{"candidates":\[([^\]]*)\]')


def _open(graph: KgGraph, data: bytes) -> None:
    graph._data = data
    first = data.split(b"\n", 1)[0]  # layer 1 writes its meta record first
    if _META_MARK not in first or _decoded(first).get("format") not in KNOWN_FORMATS:
        raise KgError(
            f"{KG_DIR}/{RAW_FILE} has no format line this kgtool knows: run `kgtool update`"
        )
    graph._slow = b"\\" in data


def _decoded(line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise KgError(f"{KG_DIR}/{RAW_FILE} is damaged: run `kgtool update`") from exc
    if not isinstance(record, dict):
        raise KgError(f"{KG_DIR}/{RAW_FILE} is damaged: run `kgtool update`")
    return record


def staleness(root: Path, config: Config, graph: KgGraph) -> str:
    """One line saying which files differ from what .kg/ was built from; "" when none do."""
    built = graph.file_hashes()
    changed: list[str] = []
    current: set[str] = set()
    for tracked in tracked_files(root):
        if tracked.path.startswith(f"{KG_DIR}/") or tracked.deleted:
            continue
        if tracked.path not in built:
            if not _excluded(tracked.path, config):
                changed.append(tracked.path)
            continue
        current.add(tracked.path)
        if tracked.blob != built[tracked.path]:
            changed.append(tracked.path)
    changed.extend(path for path in built if path not in current)
    layer2 = set(graph.document.get("files", {}))
    if not changed and layer2 and layer2 != set(built):
        return (
            f"warning: {KG_DIR}/{COMMUNITIES_FILE} was built from another layer 1 than "
            f"{KG_DIR}/{RAW_FILE}: run `kgtool update`"
        )
    if not changed:
        return ""
    changed.sort()
    shown = ", ".join(changed[:SHOWN_STALE]) + (", ..." if len(changed) > SHOWN_STALE else "")
    return (
        f"warning: {KG_DIR}/ is out of date: {len(changed)} file(s) differ from what it was "
        f"built from ({shown}); answers describe the last `kgtool update`: run it"
    )


def _excluded(path: str, config: Config) -> bool:
    # Imported here: only a file missing from layer 1 needs the pattern matcher, and the
    # module that holds it is layer 1's builder, costly to import on every read.
    from kgtool.raw.build import excluded

    return excluded(path, config["exclude"])


def require_node(graph: KgGraph, text: str, what: str = "a path or path::Symbol") -> str:
    """The layer-1 node ``text`` names, or a one-line error with the closest IDs."""
    node_id = text.strip().removeprefix("./")
    if graph.node(node_id) is not None and not node_id.startswith("ext:"):
        return node_id
    raise KgError(f"{text!r} is not {what} in {KG_DIR}/{RAW_FILE}{did_you_mean(graph, node_id)}")


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
