"""Layer 1's records as the lines of a shard: a file's node, its symbols and the edges whose
source is in it, each one canonical JSON line."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from kgtool.raw.cache import CachedFile
from kgtool.raw.graph import DEFAULT_CONFIDENCE, EDGE_LINES, SPANS
from kgtool.raw.model import CONTAINS, EXTRACTED, Edge, file_edges, symbol_id
from kgtool.store import canonical_json

if TYPE_CHECKING:
    from kgtool.raw.resolve import FileResolution


def render_file(entry: CachedFile, resolution: FileResolution) -> None:
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
    lines = [canonical_json(file_record), *map(symbol_line, symbols)]
    lines.extend(edge_line(e, path) for e in edges)
    entry.lines = ("\n".join(lines) + "\n").encode("utf-8")
    entry.edge_counts = Counter((edge.type, edge.tier) for edge in resolution.edges)
    entry.unresolved_calls = sum(sum(names.values()) for names in resolution.unresolved.values())
    entry.externals = frozenset(e.target for e in resolution.edges if e.target.startswith("ext:"))
    entry.file_edges = file_edges(facts.path, resolution.edges)
    entry.broken_imports = broken


SYMBOL_KEYS = frozenset({"external_calls", "id", "kind", "unresolved_calls"})


def symbol_line(record: dict[str, Any]) -> str:
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
