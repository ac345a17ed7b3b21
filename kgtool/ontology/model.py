"""``.kg/ontology.yaml``: layer 3 as a document, read with line numbers and written canonically.

The file is a cache over layer 2 that people may edit, so reading it is strict about shapes
(an error names the line) and lenient about omissions: a label a person wrote with only a
``name`` is a human label with no evidence yet. Writing gives one spelling for one content:
communities and edges in ID order, fields in a fixed order, member lists one per line (a
relabel then diffs line by line), counts as one-line mappings.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml

from kgtool import bounded
from kgtool.communities.identity import id_number
from kgtool.errors import KgError
from kgtool.ontology.items import TypedCounts, edge_key, edge_order
from kgtool.ontology.validate import validate_read_label
from kgtool.store import KG_DIR, ONTOLOGY_FILE, Store

WHERE = f"{KG_DIR}/{ONTOLOGY_FILE}"
FORMAT_VERSION = 1
HUMAN = "human"
OFFLINE = "offline"

HEADER = """\
# Layer 3 of kgtool's map: a name and summary per community of .kg/communities.json, and a
# phrase per strong edge between two communities ("c7->c6": c7 <phrase> c6).
# Written by `kgtool label` and by people; `kgtool update` never writes it.
#   by:       who wrote the text: human, offline (kgtool's own labeler) or llm:<model>
#   at:       the commit the label was written or last confirmed at
#   evidence: what the label was written from (the members, or a MinHash sketch of them,
#             and the typed edge counts); `kgtool check` flags a label when today's layer 2
#             has drifted from it. Leave it alone: `kgtool label --accept ID` re-snapshots it.
# To name something yourself, edit name/summary/phrase and set `by: human`, or run
# `kgtool label --set ID "Name"`; the labeler never overwrites a human label, it flags it.
"""


class Evidence:
    """What a label was written from. ``members`` is exact; for large communities it is empty
    and ``sketch`` holds the bottom-k MinHash values of the members instead."""

    __slots__ = ("edges_in", "edges_out", "members", "size", "sketch", "types")

    members: tuple[str, ...]
    size: int
    sketch: tuple[int, ...]
    edges_out: TypedCounts
    edges_in: TypedCounts
    types: TypedCounts  # an edge label's own typed counts

    def __init__(
        self,
        members: tuple[str, ...] = (),
        size: int = 0,
        sketch: tuple[int, ...] = (),
        edges_out: TypedCounts | None = None,
        edges_in: TypedCounts | None = None,
        types: TypedCounts | None = None,
    ) -> None:
        self.members = members
        self.size = size
        self.sketch = sketch
        self.edges_out = {} if edges_out is None else edges_out
        self.edges_in = {} if edges_in is None else edges_in
        self.types = {} if types is None else types

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Evidence):
            return NotImplemented
        return (
            self.members,
            self.size,
            self.sketch,
            self.edges_out,
            self.edges_in,
            self.types,
        ) == (other.members, other.size, other.sketch, other.edges_out, other.edges_in, other.types)

    __hash__ = None  # type: ignore[assignment]  # unhashable, as __eq__ alone makes it


class CommunityLabel(NamedTuple):
    community: str  # community ID, e.g. "c7"
    name: str
    summary: str = ""
    by: str = HUMAN
    at: str = ""
    evidence: Evidence | None = None  # None: written by hand, never snapshotted
    retired: bool = False
    merged_into: str = ""
    line: int = 0  # where the entry starts in ontology.yaml (0: not read from the file)


class EdgeLabel(NamedTuple):
    src: str
    dst: str
    phrase: str
    by: str = HUMAN
    at: str = ""
    evidence: Evidence | None = None
    retired: bool = False
    line: int = 0

    @property
    def key(self) -> str:
        return edge_key(self.src, self.dst)


class Ontology:
    __slots__ = ("communities", "edges")

    communities: dict[str, CommunityLabel]
    edges: dict[str, EdgeLabel]  # "c7->c6" -> label

    def __init__(
        self,
        communities: dict[str, CommunityLabel] | None = None,
        edges: dict[str, EdgeLabel] | None = None,
    ) -> None:
        self.communities = {} if communities is None else communities
        self.edges = {} if edges is None else edges


# -- reading -------------------------------------------------------------------------------

COMMUNITY_FIELDS = {"name", "summary", "by", "at", "evidence", "retired", "merged_into"}
EDGE_FIELDS = {"phrase", "by", "at", "evidence", "retired"}
EVIDENCE_FIELDS = {"members", "size", "sketch", "out", "in", "types"}

# Composed by libyaml where PyYAML has it (fast=True; its wheels do): every `kgtool update`,
# hook and check reads this file, and the pure-Python parser takes about a second per 7,000
# lines of it.


def load_ontology(store: Store) -> Ontology:
    """The ontology on disk; empty when layer 3 has not been written."""
    data = store.read_bytes(ONTOLOGY_FILE)
    return parse_ontology(data) if data is not None else Ontology()


def parse_ontology(data: bytes, where: str = WHERE) -> Ontology:
    try:
        root = bounded.compose_yaml(data, where, fast=True)
    except bounded.Unreadable as exc:
        raise KgError(exc.message, where, exc.line or None) from None
    ontology = Ontology()
    if root is None:
        return ontology
    if not isinstance(root, yaml.MappingNode):
        raise KgError("must be a mapping with 'communities' and 'edges'", where, _line(root))
    for key_node, value_node in root.value:
        key = key_node.value
        if key == "format":
            continue
        if key not in ("communities", "edges"):
            raise KgError(
                f"unknown key '{key}' (known: communities, edges, format)", where, _line(key_node)
            )
        if _is_null(value_node):
            continue
        if not isinstance(value_node, yaml.MappingNode):
            raise KgError(f"'{key}' must be a mapping of IDs to labels", where, _line(value_node))
        for entry_key, entry in value_node.value:
            if key == "communities":
                label = _community(entry_key, entry, where)
                ontology.communities[label.community] = label
            else:
                edge = _edge(entry_key, entry, where)
                ontology.edges[edge.key] = edge
    return ontology


def _line(node: yaml.Node) -> int:
    line: int = node.start_mark.line + 1
    return line


def _value(node: yaml.Node) -> Any:
    """The plain data of a node already parsed (not parsed again from text)."""
    return yaml.constructor.SafeConstructor().construct_document(node)


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")


def _fields(node: yaml.Node, known: set[str], what: str, where: str) -> dict[str, yaml.Node]:
    if not isinstance(node, yaml.MappingNode):
        raise KgError(f"{what} must be a mapping", where, _line(node))
    found: dict[str, yaml.Node] = {}
    for key_node, value_node in node.value:
        name = str(key_node.value)
        if name not in known:
            raise KgError(
                f"{what}: unknown field '{name}' (known: {', '.join(sorted(known))})",
                where,
                _line(key_node),
            )
        found[name] = value_node
    return found


def _text(fields: dict[str, yaml.Node], name: str, what: str, where: str, default: str = "") -> str:
    node = fields.get(name)
    if node is None or _is_null(node):
        return default
    if not isinstance(node, yaml.ScalarNode):
        raise KgError(f"{what}: '{name}' must be text", where, _line(node))
    value = str(node.value)
    if "\n" in value.strip():
        raise KgError(f"{what}: '{name}' must be one line", where, _line(node))
    return " ".join(value.split())


def _label_text(fields: dict[str, yaml.Node], name: str, what: str, where: str) -> str:
    """A name, summary or phrase, held to the plain-text rules every label is held to: a
    person's edit of this file is read into the map, the pull-request summary and agents'
    prompts like any other label (see ``validate_read_label``)."""
    text = _text(fields, name, what, where)
    if not text:
        return text
    try:
        return validate_read_label(text, f"the {name}")
    except ValueError as exc:
        raise KgError(f"{what}: {exc}", where, _line(fields[name])) from exc


def _flag(fields: dict[str, yaml.Node], name: str, what: str, where: str) -> bool:
    node = fields.get(name)
    if node is None:
        return False
    value = _value(node)
    if not isinstance(value, bool):
        raise KgError(f"{what}: '{name}' must be true or false", where, _line(node))
    return value


def _community(key_node: yaml.Node, node: yaml.Node, where: str) -> CommunityLabel:
    cid = str(key_node.value)
    what = f"community '{cid}'"
    if not _is_community_id(cid):
        raise KgError(f"{what}: not a community ID (c<number>)", where, _line(key_node))
    fields = _fields(node, COMMUNITY_FIELDS, what, where)
    name = _label_text(fields, "name", what, where)
    if not name and not _flag(fields, "retired", what, where):
        raise KgError(f"{what}: 'name' is missing", where, _line(key_node))
    merged_into = _text(fields, "merged_into", what, where)
    return CommunityLabel(
        community=cid,
        name=name,
        summary=_label_text(fields, "summary", what, where),
        by=_text(fields, "by", what, where, HUMAN),
        at=_text(fields, "at", what, where),
        evidence=_evidence(fields.get("evidence"), what, where),
        retired=_flag(fields, "retired", what, where),
        merged_into=merged_into,
        line=_line(key_node),
    )


def _edge(key_node: yaml.Node, node: yaml.Node, where: str) -> EdgeLabel:
    key = str(key_node.value)
    what = f"edge '{key}'"
    src, _, dst = key.partition("->")
    if not (_is_community_id(src.strip()) and _is_community_id(dst.strip())):
        raise KgError(f"{what}: an edge is written 'c<N>->c<M>'", where, _line(key_node))
    fields = _fields(node, EDGE_FIELDS, what, where)
    phrase = _label_text(fields, "phrase", what, where)
    if not phrase:
        raise KgError(f"{what}: 'phrase' is missing", where, _line(key_node))
    return EdgeLabel(
        src=src.strip(),
        dst=dst.strip(),
        phrase=phrase,
        by=_text(fields, "by", what, where, HUMAN),
        at=_text(fields, "at", what, where),
        evidence=_evidence(fields.get("evidence"), what, where),
        retired=_flag(fields, "retired", what, where),
        line=_line(key_node),
    )


def _is_community_id(text: str) -> bool:
    return len(text) > 1 and text[0] == "c" and text[1:].isdigit()


def _evidence(node: yaml.Node | None, what: str, where: str) -> Evidence | None:
    if node is None or _is_null(node):
        return None
    fields = _fields(node, EVIDENCE_FIELDS, f"{what} evidence", where)
    values = {name: _value(value) for name, value in fields.items()}
    members = values.get("members") or []
    sketch = values.get("sketch") or []
    # The size defaults to the members' count: a list's, so only once members is one.
    size = values.get("size", len(members) if isinstance(members, list) else None)
    shapes_ok = (
        isinstance(members, list)
        and all(isinstance(m, str) for m in members)
        and isinstance(sketch, list)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in sketch)
        and isinstance(size, int)
        and not isinstance(size, bool)
    )
    counts = {name: values.get(name) or {} for name in ("out", "in", "types")}
    for name, value in counts.items():
        if not _is_counts(value):
            raise KgError(
                f"{what} evidence: '{name}' must map edge types to tiers to counts",
                where,
                _line(fields[name]),
            )
    if not shapes_ok or not isinstance(size, int):  # the second: for the type checker
        raise KgError(
            f"{what} evidence: 'members' is a list of paths, 'sketch' of numbers, 'size' a number",
            where,
            _line(node),
        )
    return Evidence(
        members=tuple(members),
        size=size,
        sketch=tuple(sketch),
        edges_out=counts["out"],
        edges_in=counts["in"],
        types=counts["types"],
    )


def _is_counts(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(kind, str)
        and isinstance(tiers, dict)
        and all(
            isinstance(t, str) and isinstance(c, int) and not isinstance(c, bool)
            for t, c in tiers.items()
        )
        for kind, tiers in value.items()
    )


# -- writing -------------------------------------------------------------------------------


class _Flow(dict[str, Any]):
    """A mapping written on one line: ``{EXTRACTED: 14, INFERRED: 2}``."""


class _FlowList(list[int]):
    """A list written on one line (sketch values)."""


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML: no type information
    def ignore_aliases(self, data: Any) -> bool:  # the same counts twice are written twice
        return True


_Dumper.add_representer(
    _Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True)
)
_Dumper.add_representer(
    _FlowList, lambda d, data: d.represent_sequence("tag:yaml.org,2002:seq", data, True)
)


def _counts(counts: TypedCounts) -> dict[str, Any]:
    return {kind: _Flow(sorted(tiers.items())) for kind, tiers in sorted(counts.items())}


def _evidence_data(evidence: Evidence) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if evidence.sketch:
        data["size"] = evidence.size
        data["sketch"] = _FlowList(evidence.sketch)
    elif evidence.members:
        data["members"] = list(evidence.members)
    for name, counts in (
        ("out", evidence.edges_out),
        ("in", evidence.edges_in),
        ("types", evidence.types),
    ):
        if counts:
            data[name] = _counts(counts)
    return data


def _entry(fields: list[tuple[str, Any]]) -> dict[str, Any]:
    return {name: value for name, value in fields if value not in ("", None, False)}


def dump_ontology(ontology: Ontology) -> bytes:
    communities = {}
    for cid in sorted(ontology.communities, key=id_number):
        label = ontology.communities[cid]
        communities[cid] = _entry(
            [
                ("name", label.name),
                ("summary", label.summary),
                ("by", label.by),
                ("at", label.at),
                ("retired", label.retired),
                ("merged_into", label.merged_into),
                ("evidence", _evidence_data(label.evidence) if label.evidence else None),
            ]
        )
    edges = {}
    for key in sorted(ontology.edges, key=edge_order):
        edge = ontology.edges[key]
        edges[key] = _entry(
            [
                ("phrase", edge.phrase),
                ("by", edge.by),
                ("at", edge.at),
                ("retired", edge.retired),
                ("evidence", _evidence_data(edge.evidence) if edge.evidence else None),
            ]
        )
    document = {"format": FORMAT_VERSION, "communities": communities, "edges": edges}
    body: str = yaml.dump(
        document,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    return (HEADER + body).encode("utf-8")
