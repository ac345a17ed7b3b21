"""Reading layer 1 back: the one reader of ``.kg/raw/`` (and of an older ``.kg/raw.jsonl``).

Every other layer and command reads layer 1 through here: ``load`` finds the shards, checks
that each opens with a meta record of a format this kgtool knows, and joins their records into
one text (one meta line, then every shard's records, shards ordered by their first file), the
same bytes ``kgtool update`` hands on as ``UpdateResult.content``. Decoders then restore
what the files leave out because a default says it (format 2):

- a record is a node when it has a ``kind``, an edge when it has a ``type`` (format 1 said
  so in ``rec``, which only the meta record keeps);
- an edge's source is in the file whose node it follows: without ``src`` it is that file,
  and ``"src":"::Parser.parse"`` is that file's ``Parser.parse``;
- an edge without ``tier`` is ``EXTRACTED``; without ``confidence`` it is 1.0 when
  EXTRACTED and 0.0 when AMBIGUOUS (an INFERRED edge always states its confidence);
- a symbol node's ID is written without its file's path (``"id":"::Parser.parse"``), and its
  ``file``, ``name`` and ``lang`` follow from that and its file's node;
- ``contains`` edges follow from the symbol nodes (each hangs off the enclosing symbol of its
  file, or the file itself, at the symbol's first line), and external package nodes from the
  edges that point at them.

Records are canonical JSON (sorted keys, no spaces), so readers may skip lines by substring
(``NODE_MARK``...) before decoding them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from kgtool import bounded
from kgtool.errors import KgError
from kgtool.raw.model import AMBIGUOUS, CONTAINS, EXTRACTED, symbol_parts
from kgtool.raw.shards import is_shard_name
from kgtool.store import KG_DIR, LEGACY_RAW_FILE, RAW_DIR, Store

# 2: sharded under .kg/raw/, defaults left out; 3: a file's line numbers all in its node
# (SPANS, EDGE_LINES), so that an edit moves one line of layer 1, not every record below it.
FORMAT_VERSION = 3
KNOWN_FORMATS = frozenset({1, 2, 3})
# Bump when extraction or resolution changes what they produce; each shard's meta line says
# which it is (FORMAT_VERSION, above, is the records' shape).
EXTRACTOR_VERSION = "34"  # 3: broken imports, too-deep files; 4: Go and Java values typed;
# 5: TypeScript and JavaScript values; 6: Python functions held in values; 7: sharded;
# 8: Python ``raise A``, calls of a call's result, functions passed to map/sorted/...;
# 9: Python absolute imports from the folders Python searches (no folder inside a package);
# 10: TypeScript type aliases are symbols; 11: ``await x.f<T>()`` is a call of x.f;
# 12: minified, generated and vendored files are no by-name targets; 13: nor, for
# production code, what only tests define; 14: JavaScript and TypeScript parameters called
# by name, and members of a function type, are calls through a value; 15: Python cls(),
# properties typed by what they return, a package's modules as its attributes; 16:
# super.m() of a base from outside is an external call; 17: Python ``with f() as x`` types x;
# 18: JavaScript platform methods (the DOM, web streams, Node's HTTP) are not guessed by name;
# 19: a review's fixes (a callback's parameter, cls, __enter__, object, long lines); 20:
# Python's object is no base; 21: a bare name is guessed only in its own package; 22:
# INFERRED confidences restated from what a type checker confirmed; 23: a pytest test's
# parameters typed by the fixtures of their names; 24: a JavaScript function declared in a
# callback is seen only inside it; 25: a Python function's own import of a name outranks the
# file's definition of it there; 26: every callback declaring such a function sees it; 27:
# such functions found in one pass over the file; 28: TypeScript configs read ("paths",
# "baseUrl", "extends") and imports mapped through them; 29: the functions a JavaScript object
# literal names for its members; 30: what a returned literal names, and destructured values;
# 31: a TypeScript type parameter is no class; 32: ``x as typeof g`` aliases g; 33: a guess by
# a method's name restated by ecosystem (0.94 TypeScript, 0.9 Python); 34: type parameters'
# scopes read from the query, not by walking up from each annotation.
SPANS = "spans"  # a file node's: its symbols' [first, last] lines, in the order of their records
EDGE_LINES = "edge_lines"  # a file node's: its edges' lines, in the order of their records
# Only nodes have a "kind", only edges a "type" (a string: the counts of unresolved_calls,
# which may be named "type", are numbers), only the meta record a "rec".
NODE_MARK = b'"kind":"'
META_MARK = b'"rec":"meta"'
EDGE_MARK = b'"type":"'
FILE_MARK = b'"kind":"file"'
CONTAINS_MARK = b'"type":"contains"'
# An edge's confidence when its record states none, by tier (an INFERRED edge always does).
DEFAULT_CONFIDENCE = {EXTRACTED: 1.0, AMBIGUOUS: 0.0}
WHERE = f"{KG_DIR}/{RAW_DIR}/"  # how messages name layer 1
DAMAGED = "is damaged or has a format this kgtool does not know: run `kgtool update`"
LEGACY_WHERE = f"{KG_DIR}/{LEGACY_RAW_FILE}"
# The meta line of a layer 1 with no shard at all (a repository with no files).
EMPTY_META = f'{{"format":{FORMAT_VERSION},"rec":"meta"}}\n'.encode()
# What a merge leaves at the start of a line where two sides differ; a record line opens "{".
CONFLICT_MARKER = b"<<<<<<<"


def split_node_id(node_id: str, is_file: Callable[[str], bool], longest: int) -> tuple[str, str]:
    """(path, qualname) of a layer-1 ID ``path::Qualname``; (path, "") for a file's own ID.

    A file name may itself hold '::' (``evil/::error::x.py``, ``a::b.py``), a qualname never
    does: the path is the longest prefix before a '::' that ``is_file``, tried from the right.
    Only prefixes of at most ``longest`` characters (the longest path there is) are tried, so
    an ID of a thousand '::' costs what a short one does. When no prefix is a file, the ID is
    read as written: its path ends at the first '::'.
    """
    if len(node_id) <= longest and is_file(node_id):
        return node_id, ""
    at = node_id.rfind("::", 0, longest + 2)
    while at > 0:
        if is_file(node_id[:at]):
            return node_id[:at], node_id[at + 2 :]
        at = node_id.rfind("::", 0, at + 1)
    path, _, qualname = node_id.partition("::")
    return path, qualname


class RawGraph:
    """Layer 1 as written: node records by ID, and every edge record in file order."""

    __slots__ = ("edges", "nodes")

    nodes: dict[str, dict[str, Any]]
    edges: list[dict[str, Any]]

    def __init__(
        self,
        nodes: dict[str, dict[str, Any]] | None = None,
        edges: list[dict[str, Any]] | None = None,
    ) -> None:
        self.nodes = {} if nodes is None else nodes
        self.edges = [] if edges is None else edges

    @property
    def files(self) -> list[str]:
        """Repository paths of every file node, sorted."""
        return sorted(i for i, n in self.nodes.items() if n["kind"] == "file")

    def file_of(self, node_id: str) -> str:
        """The file a node lives in (an external package has none: "")."""
        if node_id.startswith("ext:"):
            return ""
        node = self.nodes.get(node_id)
        if node is not None:  # a file's name may hold '::': its node says which it is
            return node_id if node.get("kind") == "file" else str(node.get("file", ""))
        return node_id.split("::", 1)[0]


class Layer1Files(NamedTuple):
    """Layer 1 as found on disk."""

    where: str  # how to name it in a message: ".kg/raw/", or ".kg/raw.jsonl" before migration
    data: bytes | None  # the joined records; None when damaged or of an unknown format
    identity: str  # changes whenever any of its files is rewritten (keys read caches)
    line: int = 0  # when damaged: the first line of ``where`` (then the damaged shard) at fault

    def damaged(self) -> KgError:
        """The error that says where layer 1 is damaged."""
        return KgError(DAMAGED, self.where, self.line or None)


def shard_stats(
    store: Store, listed: list[os.DirEntry[str]] | None = None
) -> dict[str, os.stat_result]:
    """The shards under ``.kg/raw/`` and their stat; {} when there is no such folder.
    ``listed``: its entries, when a walk has just listed them."""
    if listed is not None:
        return {e.name: e.stat() for e in listed if is_shard_name(e.name)}
    try:
        with os.scandir(store.path(RAW_DIR)) as entries:
            return {e.name: e.stat() for e in entries if is_shard_name(e.name)}
    except (FileNotFoundError, NotADirectoryError):
        return {}


def identity(store: Store) -> str:
    """A key for layer 1 on disk: every write is a new file renamed into place, so a changed
    shard has a new inode and times, and a shard added or removed changes the list."""
    return _identity(shard_stats(store), store)


def _identity(stats: dict[str, os.stat_result], store: Store) -> str:
    if not stats:  # before the migration: the single file's
        try:
            stats = {LEGACY_RAW_FILE: os.stat(store.path(LEGACY_RAW_FILE))}
        except OSError:
            stats = {}
    hasher = hashlib.sha256()
    for name, info in sorted(stats.items()):
        stamp = f"{name}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}\0"
        hasher.update(stamp.encode("utf-8", "surrogateescape"))
    return hasher.hexdigest()


def content_digest(shard_digests: dict[str, str]) -> str:
    """What layer 1 holds, from each shard's sha256: equal digests, equal records. Layer 1's
    cache knows its shards' digests without reading them, so a run that changed nothing
    names its layer 1 without opening a shard."""
    hasher = hashlib.sha256()
    for name, digest in sorted(shard_digests.items()):
        hasher.update(f"{name}\0{digest}\n".encode("utf-8", "surrogateescape"))
    return hasher.hexdigest()


def digest_on_disk(store: Store) -> str:
    """``content_digest`` of layer 1 as it is on disk (of the older single file before the
    migration), reading every shard: for the rare caller that has no ``UpdateResult``."""
    stats = shard_stats(store)
    names = sorted(stats) if stats else [LEGACY_RAW_FILE]
    folder = store.path(RAW_DIR) if stats else store.dir
    digests: dict[str, str] = {}
    for name in names:
        try:
            data = bounded.read_file(folder / name, f"{WHERE}{name}", SHARD_BYTES)
        except bounded.Missing:
            continue
        except bounded.Unreadable:  # past the bound: no shard kgtool wrote, never a match
            digests[name] = ""
            continue
        digests[name] = hashlib.sha256(data).hexdigest()
    return content_digest(digests)


# The most a shard of .kg/raw/ may hold: a shard is a folder's files, a few hundred kilobytes
# (226 KB at most in a 10,000-file repository), and a file kgtool parses is at most a
# megabyte of source.
SHARD_BYTES = bounded.DOCUMENT_BYTES


def load(store: Store) -> Layer1Files | None:
    """Layer 1 on disk, joined; None when there is none (no shard, no legacy file)."""
    stats = shard_stats(store)
    key = _identity(stats, store)
    if not stats:
        legacy = store.read_bytes(LEGACY_RAW_FILE)
        # An empty .kg/raw/ beside the old file is a migration that did not finish: the old
        # file still holds layer 1. Alone, it is the layer 1 of a repository with no files.
        if legacy is None and os.path.isdir(store.path(RAW_DIR)):
            return Layer1Files(WHERE, join({}), key)
        if legacy is None:
            return None
        data = legacy if _meta_format(legacy) in KNOWN_FORMATS else None
        return Layer1Files(LEGACY_WHERE, data, key)
    shards: dict[str, bytes] = {}
    folder = store.path(RAW_DIR)
    for name in sorted(stats):
        try:
            # Bounded: a checkout can put a file of any size where a shard is.
            shards[name] = bounded.read_file(folder / name, f"{WHERE}{name}", SHARD_BYTES)
        except bounded.Unreadable:
            return Layer1Files(f"{WHERE}{name}", None, key)
    joined = join(shards)
    if joined is None:
        name, line = damage(shards)
        return Layer1Files(f"{WHERE}{name}", None, key, line)
    return Layer1Files(WHERE, joined, key)


def join(shards: dict[str, bytes]) -> bytes | None:
    """The shards' records as one text: the first shard's meta line, then every shard's
    records without its own, shards in the order of their first record's ID. None when a
    shard does not open with a meta record of a known format, is cut short, or holds the
    conflict markers of a merge (every record line opens with "{")."""
    bodies: list[tuple[str, str, memoryview]] = []
    meta = b""
    for name, data in shards.items():
        end = data.find(b"\n")
        if end < 0 or _meta_format(data[:end]) not in KNOWN_FORMATS or not data.endswith(b"\n"):
            return None
        if has_conflict_markers(data):
            return None
        body = memoryview(data)[end + 1 :]
        bodies.append((_first_id(data, end + 1), name, body))
        meta = meta or data[: end + 1]
    bodies.sort(key=lambda item: item[:2])
    return (meta or EMPTY_META) + b"".join(body for _, _, body in bodies)


def damage(shards: dict[str, bytes]) -> tuple[str, int]:
    """The first shard (by name) that ``join`` refuses, and its first line at fault: the meta
    line, a merge's first marker, or a last line cut short; ("", 0) when none is."""
    for name in sorted(shards):
        data = shards[name]
        end = data.find(b"\n")
        if end < 0 or _meta_format(data[:end]) not in KNOWN_FORMATS:
            return name, 1
        if has_conflict_markers(data):
            at = 0 if data.startswith(CONFLICT_MARKER) else data.find(b"\n" + CONFLICT_MARKER) + 1
            return name, data.count(b"\n", 0, at) + 1
        if not data.endswith(b"\n"):
            return name, data.count(b"\n") + 1
    return "", 0


def has_conflict_markers(data: bytes) -> bool:
    """Whether a merge left its markers in ``data``: a line that opens "<<<<<<<"."""
    return data.startswith(CONFLICT_MARKER) or b"\n" + CONFLICT_MARKER in data


def _meta_format(line: bytes) -> Any:
    end = line.find(b"\n")
    try:
        meta = bounded.load_json_line(line if end < 0 else line[:end], WHERE)
    except ValueError:
        return None
    if not isinstance(meta, dict) or meta.get("rec") != "meta":
        return None
    found = meta.get("format")
    return found if type(found) is int else None  # compared to known formats: hashable


def _first_id(data: bytes, start: int) -> str:
    end = data.find(b"\n", start)
    try:
        record = bounded.load_json_line(
            data[start : end if end >= 0 else len(data)] or b"{}", WHERE
        )
    except ValueError:
        return ""
    return str(record.get("id", "")) if isinstance(record, dict) else ""


# -- shapes: what a record's fields must be for its readers -------------------------------


def _whole(value: Any) -> bool:
    return type(value) is int


def _number(value: Any) -> bool:
    """A float, or a whole number a float holds (read back with float())."""
    return type(value) is float or (type(value) is int and -(1 << 53) <= value <= 1 << 53)


def _text(value: Any) -> bool:
    return type(value) is str


def is_span(value: Any) -> bool:
    """[first line, last line]: whole numbers."""
    return type(value) is list and len(value) == 2 and _whole(value[0]) and _whole(value[1])


def is_spans(value: Any) -> bool:
    return type(value) is list and all(is_span(item) for item in value)


def is_lines(value: Any) -> bool:
    return type(value) is list and all(_whole(item) for item in value)


def is_counts(value: Any) -> bool:
    return type(value) is dict and all(_text(k) and _whole(n) for k, n in value.items())


def _texts(value: Any) -> bool:
    return type(value) is list and all(_text(item) for item in value)


# The fields of a record that readers use, and what each must hold; a field not named here
# is not read back, whatever it holds.
NODE_SHAPES: dict[str, Callable[[Any], bool]] = {
    "id": _text,
    "kind": _text,
    "hash": _text,
    "lang": _text,
    "status": _text,
    "file": _text,
    "name": _text,
    "lines": _whole,
    "span": is_span,
    SPANS: is_spans,
    EDGE_LINES: is_lines,
    "external": lambda value: type(value) is bool,
    "unresolved_calls": is_counts,
    "external_calls": _whole,
}
EDGE_SHAPES: dict[str, Callable[[Any], bool]] = {
    "src": _text,
    "dst": _text,
    "type": _text,
    "tier": _text,
    "confidence": _number,
    "line": _whole,
    "candidates": _texts,
}


def shape_problem(record: Any) -> str:
    """The first field of a layer-1 record (as decoded, before defaults are restored) that
    does not hold what kgtool writes there; "record" when it is not an object; "" when its
    shape is right. A record that parses but has the wrong shape is damage, like a cut line."""
    if type(record) is not dict:
        return "record"
    shapes = EDGE_SHAPES if "type" in record else NODE_SHAPES if "kind" in record else {}
    key: str  # a JSON object's keys are text
    for key, value in record.items():
        check = shapes.get(key)
        if check is not None and not check(value):
            return key
    return ""


def first_damage(store: Store) -> tuple[str, int]:
    """Where layer 1 on disk first holds a record that is not JSON or not of its shape:
    (".kg/raw/<shard>", line), or (".kg/raw/", 0) when no line is at fault. Slow (every
    record decoded): for the message of a reader that found damage, never on its way."""
    for name, _ in sorted(shard_stats(store).items()):
        try:
            data = (store.path(RAW_DIR) / name).read_bytes()
        except OSError:
            return f"{WHERE}{name}", 0
        for number, line in enumerate(data.split(b"\n"), 1):
            if not line:
                continue
            try:
                record = bounded.load_json_line(line, WHERE)
            except ValueError:
                return f"{WHERE}{name}", number
            if shape_problem(record):
                return f"{WHERE}{name}", number
    return WHERE, 0


def damaged_at(store: Store | None, where: str = WHERE) -> KgError:
    """The error saying layer 1 (``where``) is damaged, at its first damaged line when one is
    found on disk."""
    found, line = first_damage(store) if store is not None else (where, 0)
    return KgError(DAMAGED, found, line) if line else KgError(f"{where} {DAMAGED}")


# -- decoding, defaults restored ----------------------------------------------------------


def record_kind(record: dict[str, Any]) -> str:
    """ "meta", "node" or "edge" (what format 1 stated in ``rec``); "" for anything else."""
    if "rec" in record:
        return str(record["rec"])
    return "edge" if "type" in record else "node" if "kind" in record else ""


def full_edge(record: dict[str, Any], file_id: str) -> dict[str, Any]:
    """An edge record of file ``file_id`` (the file whose node it follows) with the fields
    its format leaves out by default spelled out."""
    record.setdefault("rec", "edge")
    source = record.get("src")
    if source is None:
        record["src"] = file_id
    elif isinstance(source, str) and source.startswith("::"):
        record["src"] = file_id + source
    tier = record.setdefault("tier", EXTRACTED)
    if "confidence" not in record:
        record["confidence"] = DEFAULT_CONFIDENCE.get(tier, 0.0)
    return record


def placed(table: Any, number: int, default: Any) -> Any:
    """Entry ``number`` of a file node's SPANS or EDGE_LINES; ``default`` past its end (a
    hand-edited node: the check finds layer 1 stale, the reader does not stop)."""
    return table[number] if type(table) is list and 0 <= number < len(table) else default


def place_lines(
    file_node: dict[str, Any], symbols: list[dict[str, Any]], edges: list[dict[str, Any]]
) -> None:
    """Put the lines a file node keeps for its symbols and edges (format 3) back on each,
    and take them off the node: records as every format spells them out, ``span`` on a
    symbol, ``line`` on an edge. Records of an older format, which state their own, are left
    as they are."""
    spans, lines = file_node.pop(SPANS, None), file_node.pop(EDGE_LINES, None)
    if spans is not None:
        for number, symbol in enumerate(symbols):
            symbol.setdefault("span", placed(spans, number, [0, 0]))
    if lines is not None:
        for number, edge in enumerate(edges):
            edge.setdefault("line", placed(lines, number, 0))


def full_node(record: dict[str, Any], file_node: dict[str, Any] | None) -> dict[str, Any]:
    """A symbol node with its whole ID, ``file``, ``name`` and ``lang`` spelled out (from its
    ID and the node of its file); a file or package node as it is."""
    record.setdefault("rec", "node")
    node_id = str(record.get("id", ""))
    if node_id.startswith("::") and file_node is not None:
        node_id = record["id"] = f"{file_node['id']}{node_id}"
    if "::" in node_id and not record.get("external") and record.get("kind") != "file":
        path, _, qualname = node_id.partition("::")
        if file_node is not None and node_id.startswith(f"{file_node['id']}::"):
            path, qualname = file_node["id"], node_id[len(file_node["id"]) + 2 :]
        record.setdefault("file", path)
        record.setdefault("name", qualname.rsplit(".", 1)[-1])
        if file_node is not None and "lang" in file_node:
            record.setdefault("lang", file_node["lang"])
    return record


def contains_edges(file_id: str, symbols: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``contains`` edges a file's symbol nodes imply: each symbol hangs off its
    enclosing symbol when the file defines it, else off the file."""
    # The qualname follows the last "::": a file's own name may hold one (a::b.py::C).
    qualnames = {symbol_parts(str(s["id"]))[1] for s in symbols}
    edges = []
    for symbol in symbols:
        qualname = symbol_parts(str(symbol["id"]))[1]
        parent = qualname.rpartition(".")[0]
        source = f"{file_id}::{parent}" if parent in qualnames else file_id
        span = symbol.get("span") or [0]
        edges.append(
            {
                "confidence": 1.0,
                "dst": symbol["id"],
                "line": span[0],
                "rec": "edge",
                "src": source,
                "tier": EXTRACTED,
                "type": CONTAINS,
            }
        )
    return edges


def records(data: bytes) -> Iterator[dict[str, Any]]:
    """Every record of layer 1 with its defaults spelled out, implied ``contains`` edges and
    external package nodes included: the meta record, then per file its node, its symbols,
    the ``contains`` edges and its other edges; the external packages last. Raises
    ValueError on a line that is not a JSON object."""
    externals: set[str] = set()
    legacy = _meta_format(data) == 1  # a format-1 file states them all itself
    file_node: dict[str, Any] | None = None
    symbols: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []

    def flush() -> Iterator[dict[str, Any]]:
        if file_node is not None:
            place_lines(file_node, symbols, edges)
            yield file_node
            yield from symbols
            if not legacy:
                yield from contains_edges(str(file_node["id"]), symbols)
            yield from edges

    for line in data.split(b"\n"):
        if not line:
            continue
        record = bounded.load_json_line(line, WHERE)
        if not isinstance(record, dict):
            raise ValueError("a record that is not a JSON object")
        kind = record_kind(record)
        if kind == "meta":
            yield record
        elif kind == "edge":
            edges.append(full_edge(record, str(file_node["id"]) if file_node else ""))
            for target in [record.get("dst", ""), *record.get("candidates", ())]:
                if isinstance(target, str) and target.startswith("ext:"):
                    externals.add(target)
        elif kind == "node" and record.get("kind") == "file":
            yield from flush()
            file_node, symbols, edges = full_node(record, None), [], []
        elif kind == "node" and record.get("external"):
            externals.add(str(record.get("id", "")))
        elif kind == "node":
            symbols.append(full_node(record, file_node))
    yield from flush()
    for package in sorted(externals):
        yield {"external": True, "id": package, "kind": "package", "rec": "node"}


def read_raw(text: str | bytes) -> RawGraph:
    """Only what layer 2 needs: file nodes and edges between files (no ``contains``).

    Symbol nodes and ``contains`` edges (the bulk of layer 1) are skipped by their canonical
    spelling before they are decoded. ``kgtool update`` does not come here (layer 1 hands its
    folded edges on); reading a revision does.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    graph = RawGraph()
    file_id = ""
    for line in data.split(b"\n"):
        if EDGE_MARK in line:
            if CONTAINS_MARK not in line:
                record = bounded.load_json_line(line, WHERE)
                if record_kind(record) == "edge":
                    graph.edges.append(full_edge(record, file_id))
        elif FILE_MARK in line:
            record = bounded.load_json_line(line, WHERE)
            if record_kind(record) == "node":
                graph.nodes[record["id"]] = full_node(record, None)
                file_id = record["id"]
    return graph


def read_nodes(data: bytes) -> tuple[dict[str, dict[str, str]], dict[str, str]] | None:
    """(path -> qualname -> kind of its symbols, path -> blob id layer 1 read), from node
    records alone; None when a record is damaged or the format unknown."""
    symbols: dict[str, dict[str, str]] = {}
    hashes: dict[str, str] = {}
    file_id = ""
    for line in data.split(b"\n"):
        if META_MARK not in line and NODE_MARK not in line:
            continue
        try:
            record = bounded.load_json_line(line, WHERE)
        except ValueError:
            return None  # damaged (a bad merge, a truncated write): read the files instead
        if not isinstance(record, dict):
            return None
        if META_MARK in line:
            if record.get("format") not in KNOWN_FORMATS:
                return None
            continue
        node_id = record.get("id", "")
        if not isinstance(node_id, str):
            return None
        if record.get("kind") == "file":
            hashes[node_id] = record.get("hash", "")
            file_id = node_id
        elif node_id.startswith("::"):
            symbols.setdefault(file_id, {})[node_id[2:]] = record.get("kind", "")
        elif "::" in node_id and not record.get("external"):
            path, _, qualname = node_id.partition("::")
            symbols.setdefault(path, {})[qualname] = record.get("kind", "")
    return symbols, hashes
