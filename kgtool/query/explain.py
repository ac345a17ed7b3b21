"""``kgtool explain``: one node of the map at any layer — what it is, where it lives, what it
touches, which playbooks point at it.

The argument is tried as a community ID (``c7``), a layer-3 name as the map shows it (any
case), a file, then a ``path::Symbol``. Names come from the community pages (their marks
kept: an unlabelled or drifted name is never shown as fact), counts from layer 2 for a
community and from layer 1's edges for a file or symbol, playbook verdicts from the check.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgtool.communities.counts import describe_counts
from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.escape import printable
from kgtool.query.kg import Edge, KgGraph, MapState, cid_order, did_you_mean, load_map
from kgtool.query.labels import CommunityText, Labels

if TYPE_CHECKING:
    from kgtool.query.playbooks import PlaybookStatus
from kgtool.store import KG_DIR, PAGES_DIR, Store, pretty_json

SHOWN_FILES = 30  # members listed before "N more": the community page lists them all
SHOWN_SYMBOLS = 40

Answer = dict[str, Any]


def explain_answer(
    root: Path, config: Config, store: Store, text: str, fmt: str = "text"
) -> tuple[str, str]:
    """(the rendered explanation, the one-line staleness warning or "")."""
    state = load_map(root, config, store)
    graph = state.graph
    answer = explain(graph, Labels(state), text, lambda: _statuses(state))
    if fmt == "json":
        return pretty_json({**answer, "stale": graph.stale or None}), graph.stale
    return render_text(answer), graph.stale


def _statuses(state: MapState) -> list[PlaybookStatus]:
    """The playbooks' verdicts; none, and none of the checker's imports, without playbooks."""
    folder = state.root / str(state.config.section("playbooks")["dir"]).strip().rstrip("/")
    if not folder.is_dir() or not any(folder.rglob("*.md")):
        return []
    from kgtool.query.playbooks import playbook_statuses  # the checker costs its imports

    return playbook_statuses(state.root, state.config, state.store, state)


def explain(
    graph: KgGraph, labels: Labels, text: str, statuses: Callable[[], list[PlaybookStatus]]
) -> Answer:
    """What ``text`` names, explained; ``statuses`` gives the playbooks' verdicts when called
    (the check is only run once the argument is known to name something)."""
    wanted = text.strip().removeprefix("./")
    communities = graph.communities
    texts = {cid: labels.text(cid) for cid in sorted(communities, key=cid_order)}
    if wanted in communities:
        return _community(graph, texts, wanted, statuses())
    by_name = [cid for cid, t in texts.items() if t.name and t.name.casefold() == wanted.casefold()]
    if by_name:
        return _community(graph, texts, by_name[0], statuses())
    node = graph.node(wanted)
    if node is not None and not wanted.startswith("ext:"):
        if not graph.is_file(wanted):  # a file's name may hold '::' too
            return _symbol(graph, texts, wanted, node, statuses())
        return _file(graph, texts, wanted, node, statuses())
    names = [t.name for t in texts.values() if t.name]
    raise KgError(
        f"{text!r} names no community, layer-3 name, file or path::Symbol in {KG_DIR}/"
        + did_you_mean(graph, wanted, [*communities, *names])
    )


def _label(texts: dict[str, CommunityText], cid: str) -> dict[str, Any]:
    known = texts.get(cid)
    if known is None:
        return {"id": cid or None, "title": cid or "(no community)"}
    return {"id": cid, "title": known.title, "mark": known.mark or None}


def _community(
    graph: KgGraph, texts: dict[str, CommunityText], cid: str, statuses: list[PlaybookStatus]
) -> Answer:
    community = graph.communities[cid]
    about = texts[cid]
    touches: dict[str, list[dict[str, Any]]] = {"out": [], "in": []}
    for edge in graph.document.get("edges", []):
        for direction, mine, other in (("out", "src", "dst"), ("in", "dst", "src")):
            if edge[mine] == cid and edge[other] != cid:
                touches[direction].append(
                    {
                        **_label(texts, edge[other]),
                        "types": edge["types"],
                        "counts": describe_counts(edge["types"]),
                        "total": sum(sum(t.values()) for t in edge["types"].values()),
                    }
                )
    for entries in touches.values():
        entries.sort(key=lambda e: (-e["total"], cid_order(e["id"])))
    members = set(community["members"])
    pointing = []
    for status in statuses:
        reasons = [f"concept {cid}" for c in status.communities if c == cid]
        reasons += [
            f"key file {text}" for text, node in status.pointers if graph.path_of(node) in members
        ]
        if reasons:
            pointing.append(_playbook(status, reasons))
    return {
        "kind": "community",
        "id": cid,
        "title": about.title or cid,
        "name": about.name or None,
        "mark": about.mark or None,
        "why": about.why or None,
        "summary": about.summary or None,
        "page": f"{KG_DIR}/{PAGES_DIR}/{cid}.md",
        "size": community.get("size", len(community["members"])),
        "main_files": [{"path": p, "edges_in": n} for p, n in community.get("main_files", [])],
        "files": community["members"],
        "top_symbols": [
            {"id": s, "in_degree": n, "at": graph.location(s)}
            for s, n in community.get("top_symbols", [])
        ],
        "touches": touches,
        "playbooks": pointing,
    }


def _playbook(status: PlaybookStatus, reasons: list[str]) -> dict[str, Any]:
    return {
        "path": status.path,
        "verdict": status.verdict,
        "status": status.report.playbook.status,
        "about": status.about,
        "through": reasons,
    }


def _touches(
    graph: KgGraph, texts: dict[str, CommunityText], inside: set[str], path: str
) -> dict[str, list[dict[str, Any]]]:
    """Layer-1 edges between ``inside`` (a file's or a symbol's nodes) and other files, typed
    and tiered, per community at the other end."""
    counts: dict[str, dict[str, dict[str, dict[str, int]]]] = {"out": {}, "in": {}}

    def add(direction: str, others: list[str], edge: Edge) -> None:
        # An AMBIGUOUS edge is one edge: counted once per community its candidates lie in.
        cids = {
            graph.community_of(graph.path_of(other))
            for other in others
            if graph.path_of(other) != path and not other.startswith("ext:")
        }
        for cid in cids:
            tiers = counts[direction].setdefault(cid, {}).setdefault(edge.type, {})
            tiers[edge.tier] = tiers.get(edge.tier, 0) + 1

    for edge in graph.edges_from(path):
        if edge.src in inside:
            add("out", [edge.dst] if edge.dst else list(edge.candidates), edge)
    # An ambiguous edge can list two of its symbols: it is still one edge in.
    incoming = {edge for node in sorted(inside) for edge in graph.incoming(node)}
    for edge in sorted(incoming, key=lambda e: (e.src, e.line, e.type, e.candidates, e.dst)):
        add("in", [edge.src], edge)
    result: dict[str, list[dict[str, Any]]] = {}
    for direction, by_community in counts.items():
        result[direction] = sorted(
            (
                {
                    **_label(texts, cid),
                    "types": {k: dict(sorted(v.items())) for k, v in sorted(types.items())},
                    "counts": describe_counts(types),
                    "total": sum(sum(t.values()) for t in types.values()),
                }
                for cid, types in by_community.items()
            ),
            key=lambda e: (-e["total"], cid_order(e["id"] or "")),
        )
    return result


def _file(
    graph: KgGraph,
    texts: dict[str, CommunityText],
    path: str,
    node: dict[str, Any],
    statuses: list[PlaybookStatus],
) -> Answer:
    inside = graph.symbols_of(path)
    cid = graph.community_of(path)
    pointing = []
    for status in statuses:
        reasons = [
            f"key file {text}" for text, node in status.pointers if graph.path_of(node) == path
        ]
        if reasons:
            pointing.append(_playbook(status, reasons))
    return {
        "kind": "file",
        "id": path,
        "title": path,
        "language": node.get("lang"),
        "lines": node.get("lines"),
        "parsed": node.get("status"),
        "community": _label(texts, cid),
        "symbols": [
            {"id": s, "kind": (graph.node(s) or {}).get("kind"), "at": graph.location(s)}
            for s in inside[1:]
        ],
        "touches": _touches(graph, texts, set(inside), path),
        "unresolved_calls": _unresolved(graph, inside),
        "playbooks": pointing,
    }


def _unresolved(graph: KgGraph, nodes: list[str]) -> int:
    return sum(sum((graph.node(n) or {}).get("unresolved_calls", {}).values()) for n in nodes)


def _symbol(
    graph: KgGraph,
    texts: dict[str, CommunityText],
    node_id: str,
    node: dict[str, Any],
    statuses: list[PlaybookStatus],
) -> Answer:
    path = graph.path_of(node_id)
    inside = graph.symbols_of(node_id)
    span = node.get("span") or [1, 1]
    containers = {node_id.rsplit(".", i)[0] for i in range(node_id.count(".") + 1)}
    pointing = []
    for status in statuses:
        reasons = []
        for text, target in status.pointers:
            if target == node_id or target.startswith(f"{node_id}."):
                reasons.append(f"key file {text}")
            elif target in containers or target == path:
                reasons.append(f"key file {text} (holds it)")
        if reasons:
            pointing.append(_playbook(status, reasons))
    callers: dict[str, int] = defaultdict(int)
    for edge in {edge for member in inside for edge in graph.incoming(member)}:
        if edge.src not in inside:
            callers[edge.tier] += 1
    return {
        "kind": "symbol",
        "id": node_id,
        "title": node_id,
        "symbol_kind": node.get("kind"),
        "at": f"{path}:{span[0]}-{span[-1]}",
        "community": _label(texts, graph.community_of(path)),
        "members": [
            {"id": s, "kind": (graph.node(s) or {}).get("kind"), "at": graph.location(s)}
            for s in inside[1:]
        ],
        "incoming_by_tier": dict(sorted(callers.items())),
        "touches": _touches(graph, texts, set(inside), path),
        "unresolved_calls": _unresolved(graph, inside),
        "playbooks": pointing,
    }


# -- text ----------------------------------------------------------------------------------


def render_text(answer: Answer) -> str:
    kind = answer["kind"]
    lines = [f"{answer['title']}  ({_what(answer)})"]
    if kind == "community":
        if answer["why"]:
            lines.append(answer["why"])
        if answer["summary"]:
            lines.append(answer["summary"])
        lines += ["", f"where it lives: {answer['size']} files (all in {answer['page']})"]
        main = {m["path"]: m["edges_in"] for m in answer["main_files"]}
        ordered = [*main, *(p for p in answer["files"] if p not in main)]
        for path in ordered[:SHOWN_FILES]:
            lines.append(f"  {path}" + (f"  ({main[path]} edges in)" if path in main else ""))
        if len(ordered) > SHOWN_FILES:
            lines.append(f"  ... {len(ordered) - SHOWN_FILES} more")
        if answer["top_symbols"]:
            lines += ["", "main symbols (edges in):"]
            lines += [f"  {s['id']}  {s['at']}  ({s['in_degree']})" for s in answer["top_symbols"]]
        lines += ["", "what it touches (layer-1 edges to and from other communities, layer 2):"]
    else:
        community = answer["community"]
        lines.append(f"in {community['title']}")
        if kind == "symbol":
            lines.append(f"at {answer['at']}")
            incoming = ", ".join(f"{t} {n}" for t, n in answer["incoming_by_tier"].items())
            lines.append(f"edges in from outside it: {incoming or 'none'}")
        listed = answer["symbols"] if kind == "file" else answer["members"]
        if listed:
            lines += ["", "symbols:" if kind == "file" else "members:"]
            lines += [f"  {s['id']}  {s['kind']}  {s['at']}" for s in listed[:SHOWN_SYMBOLS]]
            if len(listed) > SHOWN_SYMBOLS:
                lines.append(f"  ... {len(listed) - SHOWN_SYMBOLS} more")
        if answer["unresolved_calls"]:
            lines.append(
                f"unresolved call sites inside it: {answer['unresolved_calls']} "
                "(what they reach is not in the graph)"
            )
        lines += ["", "what it touches (layer-1 edges to and from other files, by community):"]
    for arrow, direction in (("->", "out"), ("<-", "in")):
        for entry in answer["touches"][direction]:
            lines.append(f"  {arrow} {entry['title']}: {entry['counts']}")
    if not answer["touches"]["out"] and not answer["touches"]["in"]:
        lines.append("  nothing")
    lines += ["", "playbooks pointing at it:"]
    for playbook in answer["playbooks"]:
        through = "; ".join(playbook["through"])
        lines.append(
            f"  {playbook['path']} ({playbook['verdict']}, {playbook['status']}): "
            f"{playbook['about']} [{through}]"
        )
    if not answer["playbooks"]:
        lines.append("  none")
    # A file name may hold a newline: one line of the answer is one line on the screen.
    return "\n".join(printable(line) for line in lines) + "\n"


def _what(answer: Answer) -> str:
    if answer["kind"] == "community":
        return "community"
    if answer["kind"] == "file":
        language = answer["language"] or "text"
        return f"file, {language}, {answer['lines']} lines"
    return answer["symbol_kind"] or "symbol"
