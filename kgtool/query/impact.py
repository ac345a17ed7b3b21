"""``kgtool impact``: what depends on a file or symbol, transitively, as a stated lower bound.

A dependent is a caller, an importer or a subclass (layer-1 ``calls``, ``imports`` and
``inherits`` edges, read backwards). The walk goes breadth first from the target and every
symbol inside it, to a depth; a node is reached once (cycles end there), at its shortest
distance, through its most confident edge at that distance. Confidence multiplies along the
path and the tier is the weakest on it. AMBIGUOUS edges (several candidates, none chosen)
and unresolved call sites bearing the target's name are counted as what *could also* reach
it; they are not followed, which is why the whole is a lower bound and is said to be one.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.escape import printable
from kgtool.query.kg import (
    DEPENDENCY_TYPES,
    KgGraph,
    cid_order,
    load_map,
    require_node,
    stale_notice,
)
from kgtool.query.labels import Labels
from kgtool.raw.graph import WHERE as RAW_WHERE
from kgtool.raw.model import AMBIGUOUS, EXTRACTED, INFERRED
from kgtool.repo import paths_differing, resolve_commit
from kgtool.store import Store, pretty_json

_TIER_RANK = {EXTRACTED: 0, INFERRED: 1}
ROLE = {"calls": "caller", "imports": "importer", "inherits": "subclass"}
SHOWN_NAMES = 5  # unresolved names spelled out in the summary line


class Dependent(NamedTuple):
    node: str
    depth: int
    via: str  # the edge type of its own step: calls, imports or inherits
    tier: str  # the weakest tier on its path to the target
    confidence: float  # the product of the confidences on that path
    site: str  # file:line of that step (the call, the import, the class statement)
    reaches: str  # the node one step nearer the target
    community: str


class AmbiguousSite(NamedTuple):
    src: str
    site: str
    reaches: str  # the reached node among the edge's candidates
    candidates: int
    community: str


class ImpactReport:
    __slots__ = (
        "ambiguous",
        "dependents",
        "depth",
        "notes",
        "own_files",
        "seeds",
        "targets",
        "unresolved",
    )

    targets: list[str]  # what was asked about (one node, or the changed files of --diff)
    seeds: list[str]  # the targets and every symbol inside them
    depth: int
    dependents: list[Dependent]
    ambiguous: list[AmbiguousSite]
    unresolved: dict[str, dict[str, int]]  # caller -> name -> n
    notes: list[str]
    own_files: set[str]  # the targets' files

    def __init__(
        self,
        targets: list[str],
        seeds: list[str],
        depth: int,
    ) -> None:
        self.targets = targets
        self.seeds = seeds
        self.depth = depth
        self.dependents = []
        self.ambiguous = []
        self.unresolved = {}
        self.notes = []
        self.own_files = set()

    @property
    def files(self) -> list[str]:
        """Files holding a dependent, the targets' own files left out."""
        # A site is "path:line", and a path may hold '::': the site says where the path ends.
        found = {d.site.rsplit(":", 1)[0] for d in self.dependents}
        return sorted(found - self.own_files)

    @property
    def communities(self) -> list[str]:
        return sorted({d.community for d in self.dependents if d.community}, key=cid_order)

    def unresolved_names(self) -> Counter[str]:
        names: Counter[str] = Counter()
        for counts in self.unresolved.values():
            names.update(counts)
        return names

    def summary(self) -> str:
        roles = Counter(ROLE[d.via] for d in self.dependents)
        inferred = sum(d.tier != EXTRACTED for d in self.dependents)
        count = len(self.dependents)
        groups = len(self.communities)
        parts = [
            f"{count} dependent{'s' * (count != 1)} in {groups} communit"
            f"{'y' if groups == 1 else 'ies'}"
            + (
                f" ({', '.join(_plural(roles[r], r) for r in ROLE.values() if roles[r])})"
                if count
                else ""
            )
            + f", {inferred} inferred"
        ]
        if self.ambiguous:
            parts.append(
                f"{_plural(len(self.ambiguous), 'ambiguous call site')} could also reach it"
            )
        names = self.unresolved_names()
        if names:
            total = sum(names.values())
            shown = ", ".join(f"`{n}`" for n, _ in _by_count(names)[:SHOWN_NAMES])
            more = " and others" if len(names) > SHOWN_NAMES else ""
            parts.append(
                f"{_plural(total, 'unresolved call site')} named {shown}{more} could also reach it"
            )
        return "at least " + "; ".join(parts)


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun}{'es' if noun.endswith('s') else 's'}"


def _by_count(names: Counter[str]) -> list[tuple[str, int]]:
    return sorted(names.items(), key=lambda item: (-item[1], item[0]))


def impact(graph: KgGraph, targets: list[str], depth: int) -> ImpactReport:
    seeds = sorted({s for target in targets for s in graph.symbols_of(target)})
    report = ImpactReport(sorted(targets), seeds, depth)
    report.own_files = {graph.path_of(target) for target in targets}
    reached: dict[str, tuple[float, str]] = {seed: (1.0, EXTRACTED) for seed in seeds}
    ambiguous_seen: set[tuple[str, int]] = set()
    frontier = seeds
    for level in range(1, depth + 1):
        found: dict[str, Dependent] = {}
        for node in frontier:
            confidence, tier = reached[node]
            for edge in graph.incoming(node):
                if edge.type not in DEPENDENCY_TYPES or edge.src in reached:
                    continue
                source = graph.path_of(edge.src)
                where = f"{source}:{edge.line}"
                community = graph.community_of(source)
                if edge.tier == AMBIGUOUS:
                    if (edge.src, edge.line) not in ambiguous_seen:
                        ambiguous_seen.add((edge.src, edge.line))
                        report.ambiguous.append(
                            AmbiguousSite(edge.src, where, node, len(edge.candidates), community)
                        )
                    continue
                weakest = max(tier, edge.tier, key=lambda t: _TIER_RANK.get(t, 2))
                candidate = Dependent(
                    edge.src,
                    level,
                    edge.type,
                    weakest,
                    round(confidence * edge.confidence, 6),
                    where,
                    node,
                    community,
                )
                best = found.get(edge.src)
                if best is None or _better(candidate, best):
                    found[edge.src] = candidate
        for node in sorted(found):
            reached[node] = (found[node].confidence, found[node].tier)
            report.dependents.append(found[node])
        frontier = sorted(found)
        if not frontier:
            break
    # A site that turned out to be a plain dependent too is not "could also".
    report.ambiguous = sorted(
        (a for a in report.ambiguous if a.src not in reached),
        key=lambda a: (a.community, a.src, a.site),
    )
    # Dunder names are the language's own dispatch (``super().__init__()``), not a call that
    # names the target: counting them would make every class look reachable from everywhere.
    names = {
        name
        for name in (
            s.rsplit("::", 1)[1].rsplit(".", 1)[-1]
            for s in seeds
            if "::" in s and not graph.is_file(s)
        )
        if not (name.startswith("__") and name.endswith("__"))
    }
    report.unresolved = {
        caller: counts
        for caller, counts in sorted(graph.unresolved_named(names).items())
        if caller not in seeds
    }
    return report


def _better(candidate: Dependent, best: Dependent) -> bool:
    """The more confident step, then the firmer tier, then the first site: one answer."""
    return (-candidate.confidence, _TIER_RANK.get(candidate.tier, 2), candidate.site) < (
        -best.confidence,
        _TIER_RANK.get(best.tier, 2),
        best.site,
    )


# -- output ---------------------------------------------------------------------------------


def render_text(report: ImpactReport, titles: dict[str, str]) -> str:
    """The report as people read it: the lower bound first, then each community's share."""
    subject = (
        report.targets[0] if len(report.targets) == 1 else (f"{len(report.targets)} changed files")
    )
    lines = [f"impact of {subject} (depth {report.depth}): {report.summary()}"]
    lines.extend(f"note: {note}" for note in report.notes)
    groups: dict[str, list[Dependent]] = {}
    for dependent in report.dependents:
        groups.setdefault(dependent.community, []).append(dependent)
    for cid in sorted(groups, key=cid_order):
        members = sorted(groups[cid], key=lambda d: (d.depth, -d.confidence, d.node))
        lines += ["", f"{titles.get(cid, cid or '(no community)')}: {len(members)}"]
        for d in members:
            lines.append(
                f"  {d.depth}  {ROLE[d.via]:<8}  {d.node}  {d.site}  {d.tier} {d.confidence:.2f}"
                + (f"  (via {d.reaches})" if d.depth > 1 else "")
            )
    if report.ambiguous:
        lines += ["", "could also reach it (ambiguous: one of several candidates, not followed):"]
        lines += [
            f"  {a.src}  {a.site}  one of {a.candidates} candidates, {a.reaches}"
            for a in report.ambiguous
        ]
    if report.unresolved:
        lines += ["", "could also reach it (unresolved call sites with a matching name):"]
        for caller, counts in report.unresolved.items():
            spelled = ", ".join(f"`{n}`×{c}" for n, c in sorted(counts.items()))
            lines.append(f"  {caller}  {spelled}")
    # A file name may hold a newline: one line of the report is one line on the screen.
    return "\n".join(printable(line) for line in lines) + "\n"


def as_json(report: ImpactReport, titles: dict[str, str], stale: str = "") -> dict[str, Any]:
    return {
        "targets": report.targets,
        "depth": report.depth,
        "summary": report.summary(),
        "lower_bound": True,
        "stale": stale or None,
        "notes": report.notes,
        "files": report.files,
        "communities": [{"id": cid, "title": titles.get(cid, cid)} for cid in report.communities],
        "dependents": [
            {
                "node": d.node,
                "depth": d.depth,
                "role": ROLE[d.via],
                "type": d.via,
                "tier": d.tier,
                "confidence": d.confidence,
                "site": d.site,
                "reaches": d.reaches,
                "community": d.community or None,
            }
            for d in report.dependents
        ],
        "ambiguous": [
            {
                "src": a.src,
                "site": a.site,
                "reaches": a.reaches,
                "candidates": a.candidates,
                "community": a.community or None,
            }
            for a in report.ambiguous
        ],
        "unresolved": [
            {"caller": caller, "names": dict(sorted(counts.items()))}
            for caller, counts in report.unresolved.items()
        ],
    }


# -- the answer, as the command and the MCP server give it -----------------------------------


def impact_answer(
    root: Path,
    config: Config,
    store: Store,
    target: str | None,
    depth: int,
    fmt: str = "text",
    diff_base: str | None = None,
) -> tuple[str, str]:
    """(the rendered report, the one-line staleness warning or "")."""
    if depth < 1:
        raise KgError(f"--depth must be 1 or more, not {depth}")
    state = load_map(root, config, store)
    graph = state.graph
    stale = graph.stale
    notes: list[str] = []
    if diff_base is not None:
        resolve_commit(root, diff_base)
        changed = paths_differing(root, diff_base)
        # The change set is read as the graph before it (what depended on those files then):
        # that they differ from .kg/ is the question itself, not a reason to doubt the answer.
        elsewhere = [path for path in state.stale_files if path not in set(changed)]
        if state.stale_files:
            stale = stale_notice(elsewhere) if elsewhere else ""
        known = set(graph.files())
        targets = [path for path in changed if path in known]
        unknown = [path for path in changed if path not in known]
        if unknown:
            notes.append(
                f"{len(unknown)} changed file(s) not in {RAW_WHERE} (new, deleted or "
                f"excluded), left out: {', '.join(unknown)}"
            )
        if not changed:
            notes.append(f"no file differs from {diff_base}")
    else:
        if not target:
            raise KgError("name a path or path::Symbol, or use --diff [BASE]")
        targets = [require_node(graph, target)]
    report = impact(graph, targets, depth)
    report.notes.extend(notes)
    names = Labels(state).titles(sorted(graph.communities))
    if fmt == "json":
        return pretty_json(as_json(report, names, stale)), stale
    return render_text(report, names), stale
