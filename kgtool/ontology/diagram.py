"""The map as a picture: a Mermaid flowchart GitHub draws where MAP.md is shown.

MAP.md opens with the areas (or, on a map of one area, its largest code communities) as boxes
with their names and sizes, and their strongest dependencies as arrows labelled with their
typed edge counts, the dominant type first, in words ("calls ×175, imports ×11"; "probably"
when most are INFERRED, as the table says). It is kept small enough to read: at most
``MAX_NODES`` boxes, the rest folded into one "more" box with their count, and each box's
``EDGES_PER_NODE`` strongest arrows out, arrows to or from "more" last. The same input gives
the same bytes.

Names come from the repository (paths, identifiers, labels a pull request can write), so a
label keeps only letters, digits, spaces and a few marks, and never the words Mermaid's
lexer reads as a directive wherever they stand (``direction LR``): ``escape.mermaid_label``,
which the pull-request summary's graph uses too.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from kgtool.communities.identity import id_number
from kgtool.escape import mermaid_label

MAX_NODES = 12  # boxes drawn; the rest are one "more" box
EDGES_PER_NODE = 2  # strongest arrows out of each box
NEIGHBOURS = 8  # on a community's page: the communities it is most coupled to, both ways
MAX_LABEL = 40  # characters of a name in a box, before its mark
# Edge types in words, as an arrow reads "A calls B".
TYPE_WORDS = {"calls": "calls", "imports": "imports", "inherits": "extends"}
INFERRED = "INFERRED"
MORE = "more"

Counts = dict[str, dict[str, int]]  # edge type -> tier -> count


def label_text(text: str, limit: int = MAX_LABEL) -> str:
    """``text`` as a label of the map's picture (``escape.mermaid_label``)."""
    return mermaid_label(text, limit)


def arrow_text(counts: Counts) -> str:
    """Typed counts, the dominant type first, in words: "calls ×175, imports ×11", hedged as
    the table's phrases are (``offline.edge_phrase``): "probably" when most of what is bound
    is INFERRED, "maybe" when nothing is bound but AMBIGUOUS candidates; ``contains`` never
    crosses files and is left out."""
    typed = {kind: tiers for kind, tiers in counts.items() if kind in TYPE_WORDS}
    bound = {k: t.get("EXTRACTED", 0) + t.get(INFERRED, 0) for k, t in typed.items()}
    bound = {kind: count for kind, count in bound.items() if count}
    hedge = ""
    if not bound:  # only candidates
        bound = {k: sum(t.values()) for k, t in typed.items() if sum(t.values())}
        hedge = "maybe " if bound else ""
    elif 2 * sum(typed[k].get(INFERRED, 0) for k in bound) > sum(bound.values()):
        hedge = "probably "
    order = sorted(bound, key=lambda kind: (-bound[kind], kind))
    return hedge + ", ".join(f"{TYPE_WORDS[kind]} ×{bound[kind]}" for kind in order)


def flowchart(
    nodes: list[tuple[str, str, int]],
    edges: dict[tuple[str, str], Counts],
    per_node: int = EDGES_PER_NODE,
    marks: dict[str, str] | None = None,
) -> list[str]:
    """The fenced Mermaid lines for ``nodes`` (ID, name, files; drawn in this order, the
    first ``MAX_NODES`` as boxes), ``edges`` ((src, dst) -> typed counts by tier) and
    ``marks`` (ID -> "unlabelled" or "drifted": a name that is not a current label is
    never shown as fact); the ``per_node`` strongest arrows out of each box."""
    shown = nodes[:MAX_NODES]
    folded = nodes[MAX_NODES:]
    lines = ["```mermaid", "flowchart LR"]
    for node_id, name, files in shown:
        mark = (marks or {}).get(node_id, "")
        label = label_text(name) + (f" ({mark})" if mark else "")
        size = f"<br/>{_files(files)}" if files >= 0 else ""
        lines.append(f'  {node_id}["{label}{size}"]')
    if folded:
        files = sum(size for _, _, size in folded)
        lines.append(f'  {MORE}["{len(folded)} more, {_files(files)}"]')
    owner = {node_id: node_id for node_id, _, _ in shown}
    owner.update((node_id, MORE) for node_id, _, _ in folded)
    merged: dict[tuple[str, str], Counts] = defaultdict(lambda: defaultdict(dict))
    for (src, dst), types in sorted(edges.items()):
        a, b = owner.get(src), owner.get(dst)
        if a is None or b is None or a == b:
            continue
        for kind, tiers in types.items():
            into = merged[(a, b)][kind]
            for tier, count in tiers.items():
                into[tier] = into.get(tier, 0) + int(count)
    out: dict[str, list[tuple[tuple[int, int, int, str], str, Counts]]] = defaultdict(list)
    for (a, b), counts in merged.items():
        total = sum(sum(tiers.values()) for tiers in counts.values())
        # What "more" adds up is several communities: it never outranks a box's own arrows.
        key = (int(MORE in (a, b)), -total, *_order(b))
        out[a].append((key, b, counts))
    for a in [node_id for node_id, _, _ in shown] + ([MORE] if folded else []):
        for _, b, counts in sorted(out[a], key=lambda e: e[0])[:per_node]:
            lines.append(f'  {a} -->|"{label_text(arrow_text(counts), 60)}"| {b}')
    lines.append("```")
    return lines


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _order(node_id: str) -> tuple[int, str]:
    return (1 << 62, node_id) if node_id == MORE else (id_number(node_id), node_id)


def areas_flowchart(
    document: dict[str, Any],
    titles: dict[str, str],
    names: dict[str, str],
    marks: dict[str, str] | None = None,
) -> list[str]:
    """The map's picture: its areas when it has more than one (``titles``: area ID -> its
    title), else its code communities (``names``, ``marks``), largest first; the typed
    edges between communities summed per pair of boxes."""
    communities: dict[str, Any] = document["communities"]
    areas: dict[str, Any] = document.get("areas", {})
    if len(areas) > 1:
        order = sorted(areas, key=lambda a: (-areas[a]["size"], id_number(a)))
        nodes = [(aid, titles.get(aid, aid), int(areas[aid]["size"])) for aid in order]
        box = {cid: c.get("area", "") for cid, c in communities.items()}
        marks = {}
    else:
        code = [cid for cid, c in communities.items() if c.get("kind", "code") == "code"]
        order = sorted(code, key=lambda c: (-communities[c]["size"], id_number(c)))
        nodes = [
            (cid, f"{cid} · {names.get(cid, cid)}", int(communities[cid]["size"])) for cid in order
        ]
        box = {cid: cid for cid in code}
    if len(nodes) < 2:
        return []
    edges: dict[tuple[str, str], Counts] = defaultdict(dict)
    for edge in document.get("edges", []):
        a, b = box.get(edge["src"]), box.get(edge["dst"])
        if not a or not b or a == b:
            continue
        into = edges[(a, b)]
        for kind, tiers in edge["types"].items():
            for tier, count in tiers.items():
                into.setdefault(kind, {}).setdefault(tier, 0)
                into[kind][tier] += int(count)
    return flowchart(nodes, dict(edges), marks=marks)


def neighbourhood_flowchart(
    cid: str,
    names: dict[str, str],
    outgoing: list[dict[str, Any]],
    incoming: list[dict[str, Any]],
    marks: dict[str, str] | None = None,
) -> list[str]:
    """A community's page's picture: it and the ``NEIGHBOURS`` communities it shares most
    layer-1 edges with (either way), with its arrows to and from each; nothing when it has
    no edge."""
    strength: dict[str, int] = defaultdict(int)
    for edge in outgoing:
        strength[edge["dst"]] += int(edge["total"])
    for edge in incoming:
        strength[edge["src"]] += int(edge["total"])
    near = sorted(strength, key=lambda other: (-strength[other], id_number(other)))[:NEIGHBOURS]
    if not near:
        return []
    shown = {cid, *near}
    # Sizes stay on the map: a neighbour's size on every page around it would rewrite eight
    # pages each time a file joins it.
    nodes = [(node, f"{node} · {names.get(node, node)}", -1) for node in [cid, *near]]
    edges = {
        (edge["src"], edge["dst"]): edge["types"]
        for edge in [*outgoing, *incoming]
        if edge["src"] in shown and edge["dst"] in shown
    }
    return flowchart(nodes, edges, per_node=NEIGHBOURS, marks=marks)
