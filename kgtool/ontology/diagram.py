"""The map as a picture: a Mermaid flowchart GitHub draws where MAP.md is shown.

MAP.md opens with the areas (or, on a map of one area, its largest code communities) as boxes
with their names and sizes, and their strongest dependencies as arrows labelled with the
dominant edge type in words and the layer-1 edge count. It is kept small enough to read:
at most ``MAX_NODES`` boxes, the rest folded into one "more" box with their count, and each
box's ``EDGES_PER_NODE`` strongest arrows out. The same input gives the same bytes.

Names come from the repository (paths, identifiers, labels a pull request can write), so a
label keeps only letters, digits, spaces and a few marks (``LABEL_TEXT``); nothing in it can
close the fence, start a tag or break out of the quotes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from kgtool.communities.identity import id_number

MAX_NODES = 16  # boxes drawn; the rest are one "more" box
NEIGHBOURS = 8  # on a community's page: the communities it is most coupled to, both ways
EDGES_PER_NODE = 2  # strongest arrows out of each box
MAX_LABEL = 40  # characters of a name in a box
# What a label may hold: any other character becomes a space.
LABEL_TEXT = re.compile(r"[^\w .,:;()/'+·×-]", re.UNICODE)
# Edge types in words, as an arrow reads "A calls B".
TYPE_WORDS = {"calls": "calls", "imports": "imports", "inherits": "extends"}
MORE = "more"


def label_text(text: str) -> str:
    """``text`` as a Mermaid label: only plain characters, one line, bounded."""
    plain = " ".join(LABEL_TEXT.sub(" ", text).split())
    return plain if len(plain) <= MAX_LABEL else plain[: MAX_LABEL - 1].rstrip() + "…"


def flowchart(
    nodes: list[tuple[str, str, int]],
    edges: dict[tuple[str, str], dict[str, dict[str, int]]],
    per_node: int = EDGES_PER_NODE,
) -> list[str]:
    """The fenced Mermaid lines for ``nodes`` (ID, name, files; drawn in this order, the
    first ``MAX_NODES`` as boxes) and ``edges`` ((src, dst) -> typed counts by tier), the
    ``per_node`` strongest arrows out of each box."""
    shown = nodes[:MAX_NODES]
    folded = nodes[MAX_NODES:]
    ids = {node_id for node_id, _, _ in shown}
    lines = ["```mermaid", "flowchart LR"]
    for node_id, name, files in shown:
        lines.append(f'  {node_id}["{label_text(name)}<br/>{files} files"]')
    if folded:
        files = sum(size for _, _, size in folded)
        lines.append(f'  {MORE}["{len(folded)} more, {files} files"]')
    owner = {node_id: node_id if node_id in ids else MORE for node_id, _, _ in nodes}
    merged: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (src, dst), types in edges.items():
        a, b = owner.get(src), owner.get(dst)
        if a is None or b is None or a == b:
            continue
        for kind, tiers in types.items():
            merged[(a, b)][kind] += sum(tiers.values())
    out: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for (a, b), counts in merged.items():
        total = sum(counts.values())
        kind = min(counts, key=lambda k: (-counts[k], k))
        out[a].append((-total, b, TYPE_WORDS.get(kind, kind)))
    order = [node_id for node_id, _, _ in shown] + ([MORE] if folded else [])
    for a in order:
        for negative, b, word in sorted(out[a], key=lambda e: (e[0], _order(e[1])))[:per_node]:
            lines.append(f'  {a} -->|"{label_text(word)} ×{-negative}"| {b}')
    lines.append("```")
    return lines


def _order(node_id: str) -> tuple[int, int, str]:
    return (1, 0, node_id) if node_id == MORE else (0, id_number(node_id), node_id)


def areas_flowchart(
    document: dict[str, Any], titles: dict[str, str], names: dict[str, str]
) -> list[str]:
    """The map's picture: its areas when it has more than one (``titles``: area ID -> its
    title), else its code communities (``names``), largest first; the typed edges between
    communities summed per pair of boxes."""
    communities: dict[str, Any] = document["communities"]
    areas: dict[str, Any] = document.get("areas", {})
    if len(areas) > 1:
        order = sorted(areas, key=lambda a: (-areas[a]["size"], id_number(a)))
        nodes = [(aid, titles.get(aid, aid), int(areas[aid]["size"])) for aid in order]
        box = {cid: c.get("area", "") for cid, c in communities.items()}
    else:
        code = [cid for cid, c in communities.items() if c.get("kind", "code") == "code"]
        order = sorted(code, key=lambda c: (-communities[c]["size"], id_number(c)))
        nodes = [
            (cid, f"{cid} · {names.get(cid, cid)}", int(communities[cid]["size"])) for cid in order
        ]
        box = {cid: cid for cid in code}
    if len(nodes) < 2:
        return []
    edges: dict[tuple[str, str], dict[str, dict[str, int]]] = defaultdict(dict)
    for edge in document.get("edges", []):
        a, b = box.get(edge["src"]), box.get(edge["dst"])
        if not a or not b or a == b:
            continue
        into = edges[(a, b)]
        for kind, tiers in edge["types"].items():
            for tier, count in tiers.items():
                into.setdefault(kind, {}).setdefault(tier, 0)
                into[kind][tier] += int(count)
    return flowchart(nodes, dict(edges))


def neighbourhood_flowchart(
    cid: str,
    names: dict[str, str],
    sizes: dict[str, int],
    outgoing: list[dict[str, Any]],
    incoming: list[dict[str, Any]],
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
    nodes = [
        (node, f"{node} · {names.get(node, node)}", sizes.get(node, 0)) for node in [cid, *near]
    ]
    edges = {
        (edge["src"], edge["dst"]): edge["types"]
        for edge in [*outgoing, *incoming]
        if edge["src"] in shown and edge["dst"] in shown
    }
    return flowchart(nodes, edges, per_node=NEIGHBOURS)
