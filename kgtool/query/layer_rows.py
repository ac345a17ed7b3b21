"""Layer 1's bytes as the read path's rows: its files (their lines and blob ids), its symbols,
the words of their paths and names, and the files its edges join. What the read cache of
``kgtool.query.kg`` keeps, computed here by the first reader that needs it."""

from __future__ import annotations

import json
import re
from typing import Any

from kgtool import bounded
from kgtool.query.words import identifier_words
from kgtool.raw import graph as raw_graph
from kgtool.raw.graph import EDGE_MARK, FILE_MARK, META_MARK, NODE_MARK, is_span
from kgtool.store import Store

_BOUND_MARK = b'"dst":"'  # an edge bound to one target (ambiguous ones list candidates)

# A file node's ID (keys are sorted: "id" then "kind"), or a bound edge's target: in the
# order of the text, each edge comes after the node of the file its source is in.
_FILE_OR_DST_AT = re.compile(rb'"id":"([^"\\]*)","kind":"file"|"dst":"([^"\\]*)"')


def decoded(line: bytes, store: Store | None = None) -> dict[str, Any]:
    """A JSON object of layer 1; else the error naming where it is damaged (on disk, when
    ``store`` is given)."""
    try:
        record = bounded.load_json_line(line, raw_graph.WHERE)
    except ValueError as exc:
        raise raw_graph.damaged_at(store) from exc
    if not isinstance(record, dict):
        raise raw_graph.damaged_at(store)
    return record


def read_rows(data: bytes) -> tuple[Any, ...] | None:
    """Layer 1's joined bytes as the read path's rows (files, symbols, bound edges), or
    None when they are damaged (a readable record of the wrong shape included).

    Long because it is the read path's one pass over layer 1 on a cold read: lines sorted
    by byte marks, node records decoded all at once and edges only at their ends (decoding
    every edge whole cost a quarter of the read), then each record checked as it becomes a
    row; splitting it would hand the partial tables from step to step."""
    lines = []
    exact = b"\\" not in data  # IDs can be read from the bytes: see _FILE_OR_DST_AT
    edges: list[Any] = []  # {"src": the edge's file, "dst": its target}, bound edges only
    file_id = ""
    for line in data.split(b"\n"):
        if EDGE_MARK in line:
            if not exact and _BOUND_MARK in line:
                try:
                    record = raw_graph.full_edge(
                        bounded.load_json_line(line, raw_graph.WHERE), file_id
                    )
                except ValueError:
                    return None
                edges.append(record)
        elif NODE_MARK in line or META_MARK in line:
            lines.append(line)
            if not exact and FILE_MARK in line:
                try:
                    record = bounded.load_json_line(line, raw_graph.WHERE)
                except ValueError:
                    return None
                file_id = str(record.get("id", "")) if isinstance(record, dict) else ""
    try:
        # Every node record at once, as json.loads reads them fastest (a cold read of a large
        # map): a record nested past the recursion limit is damage, like any other.
        records = json.loads(b"[" + b",".join(lines) + b"]")
        if exact:
            # Only the ends of each edge are needed: decoding 20,000 edges whole would cost
            # a quarter of a cold read. An edge's source is in the file whose node it follows.
            for match in _FILE_OR_DST_AT.finditer(data):
                found, dst = match.groups()
                if found is not None:
                    file_id = found.decode()
                else:
                    edges.append({"dst": dst.decode(), "src": file_id})
    except (ValueError, RecursionError):  # damaged: a bad merge, a cut write, a hand edit
        return None
    file_lines: dict[str, int] = {}
    hashes: dict[str, str] = {}
    symbols: list[tuple[str, str, str, str, int, int]] = []
    file_id = ""
    spans: Any = None  # the file node's spans of its symbols (format 3), in record order
    number = 0  # the symbol's place among its file's
    for record in records[1:]:
        if not isinstance(record, dict):
            return None
        node_id = record.get("id")
        if not isinstance(node_id, str) or record.get("external"):
            continue
        kind = str(record.get("kind", ""))
        if kind == "file":
            blob, lines = record.get("hash", ""), record.get("lines", 0)
            if type(blob) is not str or type(lines) is not int:  # parsed, yet not a file's
                return None
            if raw_graph.shape_problem(record):  # its table of lines, say
                return None
            hashes[node_id] = blob
            file_lines[node_id] = lines
            file_id = node_id
            spans, number = record.get(raw_graph.SPANS), 0
            continue
        if node_id.startswith("::"):  # written without its file's path (which may hold '::')
            path, qualname = file_id, node_id[2:]
            node_id = file_id + node_id
        elif "::" in node_id:
            path, _, qualname = node_id.partition("::")
        else:
            continue
        span = record["span"] if "span" in record else raw_graph.placed(spans, number, [0, 0])
        number += 1
        if not is_span(span):
            return None
        symbols.append((node_id, path, qualname, kind, span[0], span[1]))
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
