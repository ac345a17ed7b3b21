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
SHOWN_STALE = 3  # stale paths named in the one-line warning


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
    """Layer 1 (lazily decoded) and layer 2 of one repository, as ``kgtool update`` left them."""

    root: Path
    document: Document
    _data: bytes = b""
    _node_at: dict[bytes, int] = field(default_factory=dict)  # ID -> offset of its line
    _incoming: dict[bytes, list[int]] = field(default_factory=dict)  # target -> edge offsets
    _nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    stale: str = ""  # one line saying how .kg/ is out of date; "" when it is current

    def _line_at(self, offset: int) -> bytes:
        start = self._data.rfind(b"\n", 0, offset) + 1
        end = self._data.find(b"\n", offset)
        return self._data[start : end if end >= 0 else len(self._data)]

    # -- layer 1 ---------------------------------------------------------------------------

    def node(self, node_id: str) -> dict[str, Any] | None:
        if node_id not in self._nodes:
            offset = self._node_at.get(node_id.encode())
            if offset is None:
                return None
            self._nodes[node_id] = _decoded(self._line_at(offset))
        return self._nodes[node_id]

    def node_ids(self) -> list[str]:
        return sorted(key.decode() for key in self._node_at)

    def files(self) -> list[str]:
        return [i for i in self.node_ids() if "::" not in i and not i.startswith("ext:")]

    def symbols_of(self, node_id: str) -> list[str]:
        """``node_id`` and every symbol inside it (a file's symbols, a class's methods)."""
        prefix = (f"{node_id}::" if "::" not in node_id else f"{node_id}.").encode()
        inside = sorted(key.decode() for key in self._node_at if key.startswith(prefix))
        return [node_id, *inside]

    def incoming(self, node_id: str, types: tuple[str, ...] = DEPENDENCY_TYPES) -> list[Edge]:
        """Every edge of ``types`` that ends at ``node_id``, ambiguous ones listing it included,
        in the order of raw.jsonl."""
        edges = (_edge(self._line_at(o)) for o in sorted(self._incoming.get(node_id.encode(), ())))
        return [edge for edge in edges if edge.type in types]

    def edges_from(self, path: str, types: tuple[str, ...] = DEPENDENCY_TYPES) -> list[Edge]:
        """Every edge of ``types`` whose source lies in file ``path``: layer 1 writes a file's
        node, its symbols' nodes and their edges together, up to the next file's node."""
        offset = self._node_at.get(path.encode())
        if offset is None:
            return []
        edges = []
        end = self._data.find(b"\n", offset)
        while end >= 0:
            start, end = end + 1, self._data.find(b"\n", end + 1)
            line = self._data[start : end if end >= 0 else len(self._data)]
            if _NODE_MARK in line:
                if b'"file":"' not in line:  # the next file, or the external packages
                    break
                continue
            if _EDGE_MARK in line:
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
        for name in sorted(names):
            needle = f'"{name}":'.encode()
            at = self._data.find(needle)
            while at >= 0:
                line = self._line_at(at)
                at = self._data.find(needle, at + 1)
                if b'"unresolved_calls":{' not in line:
                    continue
                record = _decoded(line)
                count = record.get("unresolved_calls", {}).get(name)
                if count and record.get("rec") == "node":
                    found.setdefault(str(record["id"]), {})[name] = int(count)
        return found

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
    _index(graph, data)
    graph.stale = staleness(root, config, graph)
    return graph


# An ID is found by these patterns only when it holds no escaped character; a raw.jsonl that
# holds a backslash anywhere is read line by line, decoded, instead (see ``_index_slowly``).
_DST_AT = re.compile(rb'"dst":"([^"\\]*)"')
_ID_AT = re.compile(rb'"id":"([^"\\]*)"')
# Anchored on the newline, not ``^``: a literal start lets the engine skip ahead instead of
# trying every position (the meta record is always the first line, so none is missed).
_CANDIDATES_AT = re.compile(rb'\n\{"candidates":\[([^\]]*)\]')


def _index(graph: KgGraph, data: bytes) -> None:
    """File every edge under its target and every node under its ID, as offsets into
    ``data``: the regular expressions scan in C, and no line is decoded until it is asked
    for (a whole-file decode costs several times the start-up budget on a large repository).
    """
    graph._data = data
    first = data.split(b"\n", 1)[0]  # layer 1 writes its meta record first
    if _META_MARK not in first or _decoded(first).get("format") not in KNOWN_FORMATS:
        raise KgError(
            f"{KG_DIR}/{RAW_FILE} has no format line this kgtool knows: run `kgtool update`"
        )
    if b"\\" in data:
        _index_slowly(graph, data)
        return
    incoming = graph._incoming
    for match in _DST_AT.finditer(data):
        key = match.group(1)
        found = incoming.get(key)
        if found is None:
            incoming[key] = [match.start()]
        else:
            found.append(match.start())
    for match in _CANDIDATES_AT.finditer(data):
        for candidate in match.group(1)[1:-1].split(b'","'):
            incoming.setdefault(candidate, []).append(match.start() + 1)
    graph._node_at = {match.group(1): match.start() for match in _ID_AT.finditer(data)}


def _index_slowly(graph: KgGraph, data: bytes) -> None:
    offset = 0
    for line in data.split(b"\n"):
        if _EDGE_MARK in line:
            record = _decoded(line)
            for target in [record.get("dst", ""), *record.get("candidates", ())]:
                if target:
                    graph._incoming.setdefault(target.encode(), []).append(offset)
        elif _NODE_MARK in line:
            graph._node_at[str(_decoded(line).get("id", "")).encode()] = offset
        offset += len(line) + 1


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
    built: dict[str, str] = {}
    for path in graph.files():
        built[path] = str((graph.node(path) or {}).get("hash", ""))
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
