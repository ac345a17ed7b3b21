"""Drift: which labels still describe today's layer 2, and why the others do not.

Every label is compared with the community or edge it names, as ``communities.json`` has it
now:

- a community name drifts when the Jaccard distance between the members it was written for
  and today's exceeds ``member_drift``, or when its edges in or out moved (below);
- an edge phrase drifts when the weighted typed counts moved by more than ``edge_drift`` (and
  by at least ``MIN_EDGES`` edges: 2 -> 3 calls is noise, not a new relationship), or when an
  edge type holding ``type_share`` of the weight appeared or vanished;
- lineage: a community split off another has no label of its own yet and inherits its
  parent's, marked drifted; a community that absorbed a labelled one (a merge) is drifted
  until it is labelled again; a label whose community is gone is retired, never moved.

This is a pure function of the two documents and the settings: ``kgtool update``, ``check``
and CI compute the same verdicts from the same committed files.
"""

from __future__ import annotations

import posixpath
from typing import Any, NamedTuple

from kgtool.communities.counts import count_by_type
from kgtool.communities.identity import id_number
from kgtool.findings import WARNING, Finding
from kgtool.ontology.evidence import (
    exceeds,
    jaccard,
    relative_change,
    type_changes,
    type_weights,
    weighted,
)
from kgtool.ontology.facts import community_edges, sorted_counts
from kgtool.ontology.items import TypedCounts, edge_key, edge_order
from kgtool.ontology.model import CommunityLabel, EdgeLabel, Evidence, Ontology

MIN_EDGES = 3  # weighted edges that must move before a relative change counts
EDGE_GONE = "edge vanished"

FRESH = "fresh"
DRIFTED = "drifted"
INHERITED = "inherited"  # a split child showing its parent's label: drifted by definition
UNCONFIRMED = "unconfirmed"  # written by hand with no evidence snapshot
MISSING = "missing"
RETIRED = "retired"

Document = dict[str, Any]


class Drift(NamedTuple):
    measure: str  # "members", "edges out", "edges in", "counts", "type", "split", "merged", …
    value: float
    threshold: float
    detail: str  # the old and new evidence, in words

    def describe(self) -> str:
        if not self.threshold:
            return f"{self.measure} ({self.detail})"
        # Enough digits that the value visibly exceeds the threshold (0.344 > 0.34).
        digits = 2 if f"{self.value:.2f}" != f"{self.threshold:.2f}" else 3
        return f"{self.measure} {self.value:.{digits}f} > {self.threshold:.2f} ({self.detail})"


class CommunityState:
    __slots__ = ("community", "drifts", "inherited_from", "label", "status")

    community: str
    status: str
    label: CommunityLabel | None  # its own label, or the inherited one
    inherited_from: str
    drifts: list[Drift]

    def __init__(
        self,
        community: str,
        status: str,
        label: CommunityLabel | None = None,
        inherited_from: str = "",
        drifts: list[Drift] | None = None,
    ) -> None:
        self.community = community
        self.status = status
        self.label = label
        self.inherited_from = inherited_from
        self.drifts = [] if drifts is None else drifts

    @property
    def key(self) -> str:
        return self.community

    @property
    def text(self) -> str:
        return self.label.name if self.label else ""

    @property
    def needs_label(self) -> bool:
        """The labeler may (re)write it: nothing there, or a machine label gone stale."""
        if self.status in (MISSING, INHERITED):
            return True
        return self.status == DRIFTED and self.label is not None and self.label.by != "human"


class EdgeState:
    __slots__ = ("drifts", "dst", "key", "label", "src", "status")

    key: str
    src: str
    dst: str
    status: str
    label: EdgeLabel | None
    drifts: list[Drift]

    def __init__(
        self,
        key: str,
        src: str,
        dst: str,
        status: str,
        label: EdgeLabel | None = None,
        drifts: list[Drift] | None = None,
    ) -> None:
        self.key = key
        self.src = src
        self.dst = dst
        self.status = status
        self.label = label
        self.drifts = [] if drifts is None else drifts

    @property
    def text(self) -> str:
        return self.label.phrase if self.label else ""

    @property
    def needs_label(self) -> bool:
        if self.status == MISSING:
            return True
        return self.status == DRIFTED and self.label is not None and self.label.by != "human"


class DriftReport(NamedTuple):
    communities: dict[str, CommunityState]  # every community on today's map, plus retired ones
    edges: dict[str, EdgeState]  # every phrased edge, and every edge that has a label

    @property
    def drifted(self) -> list[CommunityState | EdgeState]:
        found: list[CommunityState | EdgeState] = [
            s for s in self.communities.values() if s.status in (DRIFTED, INHERITED)
        ]
        found += [s for s in self.edges.values() if s.status == DRIFTED]
        return found

    def stale_communities(self) -> dict[str, str]:
        return {
            cid: "; ".join(d.describe() for d in state.drifts)
            for cid, state in self.communities.items()
            if state.status in (DRIFTED, INHERITED)
        }


def _counts_drift(
    measure: str, old: TypedCounts, new: TypedCounts, settings: dict[str, Any]
) -> list[Drift]:
    weights = type_weights(settings)
    before, after = weighted(old, weights), weighted(new, weights)
    found = []
    for kind, verb, share in type_changes(before, after, float(settings["type_share"]), MIN_EDGES):
        found.append(
            Drift(
                f"{measure}: {kind} {verb}",
                share,
                float(settings["type_share"]),
                f"{count_by_type(old)} -> {count_by_type(new)}",
            )
        )
    change = relative_change(before, after)
    moved = sum(abs(after.get(k, 0.0) - before.get(k, 0.0)) for k in set(before) | set(after))
    if exceeds(change, float(settings["edge_drift"])) and moved >= MIN_EDGES and not found:
        found.append(
            Drift(
                measure,
                change,
                float(settings["edge_drift"]),
                f"{count_by_type(old)} -> {count_by_type(new)}",
            )
        )
    return found


def community_drifts(
    evidence: Evidence,
    members: list[str],
    edges_out: TypedCounts,
    edges_in: TypedCounts,
    settings: dict[str, Any],
    loose: bool = False,
) -> list[Drift]:
    """``loose``: the community is a folder group, files with no edges between them."""
    found = []
    if loose and _edgeless(evidence, edges_out, edges_in):
        # Files with no edges are grouped, and named, by folder (changelog fragments, docs):
        # files coming and going inside the same folders leave the name true.
        old_folders = {posixpath.dirname(p) for p in evidence.members}
        new_folders = {posixpath.dirname(p) for p in members}
        distance = 1.0 - len(old_folders & new_folders) / len(old_folders | new_folders)
        if exceeds(distance, float(settings["member_drift"])):
            detail = f"{_folders(old_folders)} -> {_folders(new_folders)}"
            found.append(Drift("folders", distance, float(settings["member_drift"]), detail))
        return found
    similarity = jaccard(evidence, members)
    if exceeds(1.0 - similarity, float(settings["member_drift"])):
        old_size = evidence.size or len(evidence.members)
        detail = f"written for {old_size} files, now {len(members)}"
        if not evidence.sketch:
            joined = len(set(members) - set(evidence.members))
            left = len(set(evidence.members) - set(members))
            detail += f": {joined} joined, {left} left"
        else:
            detail += ", estimated from a sketch"
        found.append(Drift("members", 1.0 - similarity, float(settings["member_drift"]), detail))
    found += _counts_drift("edges out", evidence.edges_out, edges_out, settings)
    found += _counts_drift("edges in", evidence.edges_in, edges_in, settings)
    return found


def _edgeless(evidence: Evidence, edges_out: TypedCounts, edges_in: TypedCounts) -> bool:
    """No edges to other communities then or now, and the members known exactly."""
    edgeless = not (evidence.edges_out or evidence.edges_in or edges_out or edges_in)
    return edgeless and bool(evidence.members) and not evidence.sketch


def _folders(folders: set[str]) -> str:
    shown = sorted(f"{f}/" if f else "(top level)" for f in folders)
    return ", ".join(shown[:4]) + (f" and {len(shown) - 4} more" if len(shown) > 4 else "")


def edge_drifts(evidence: Evidence, types: TypedCounts, settings: dict[str, Any]) -> list[Drift]:
    if not types:
        return [Drift(EDGE_GONE, 1.0, 0.0, f"was {count_by_type(evidence.types)}, now none")]
    return _counts_drift("counts", evidence.types, types, settings)


def drift_report(
    document: Document,
    ontology: Ontology,
    settings: dict[str, Any],
    phrased: list[dict[str, Any]],
) -> DriftReport:
    """Every label's state against ``document``. ``settings`` is the ``ontology`` section with
    layer 2's ``weights`` and ``default_weight`` added; ``phrased`` the edges worth a phrase."""
    communities: dict[str, Any] = document["communities"]
    retired_doc: dict[str, dict[str, str]] = document.get("retired", {})
    edges = community_edges(document)
    states: dict[str, CommunityState] = {}
    for cid in sorted(communities, key=id_number):
        members = communities[cid]["members"]
        label = ontology.communities.get(cid)
        if label is not None and label.retired:
            label = None  # a retired ID never comes back; a stale entry names nothing now
        if label is None:
            parent = communities[cid].get("split_from", "")
            inherited = _inherited(parent, ontology)
            if inherited is not None:
                states[cid] = CommunityState(
                    cid,
                    INHERITED,
                    inherited,
                    parent,
                    [Drift("split", 0.0, 0.0, f"split off {parent}, whose label this was")],
                )
            else:
                states[cid] = CommunityState(cid, MISSING)
            continue
        if label.evidence is None:
            states[cid] = CommunityState(cid, UNCONFIRMED, label)
            continue
        out, into = edges[cid]
        # Layer 2 groups files with no edges by folder: no file of such a group has edges in.
        loose = not communities[cid].get("main_files")
        drifts = community_drifts(label.evidence, members, out, into, settings, loose)
        for old, info in sorted(retired_doc.items(), key=lambda item: id_number(item[0])):
            absorbed = ontology.communities.get(old)
            if info.get("merged_into") == cid and absorbed is not None and not absorbed.retired:
                drifts.append(Drift("merged", 0.0, 0.0, f"absorbed {old} ('{absorbed.name}')"))
        states[cid] = CommunityState(cid, DRIFTED if drifts else FRESH, label, drifts=drifts)
    for cid, label in sorted(ontology.communities.items(), key=lambda item: id_number(item[0])):
        if cid not in communities:
            states[cid] = CommunityState(cid, RETIRED, label)

    by_key = {edge_key(e["src"], e["dst"]): e for e in document.get("edges", [])}
    wanted = [edge_key(e["src"], e["dst"]) for e in phrased]
    edge_states: dict[str, EdgeState] = {}
    for key in sorted(set(wanted) | set(ontology.edges), key=edge_order):
        phrase = ontology.edges.get(key)
        src, _, dst = key.partition("->")
        if src not in communities or dst not in communities:
            if phrase is not None:
                edge_states[key] = EdgeState(key, src, dst, RETIRED, phrase)
            continue
        if phrase is None or phrase.retired:
            edge_states[key] = EdgeState(key, src, dst, MISSING)
            continue
        if phrase.evidence is None:
            edge_states[key] = EdgeState(key, src, dst, UNCONFIRMED, phrase)
            continue
        types = sorted_counts(by_key[key]["types"]) if key in by_key else {}
        drifts = edge_drifts(phrase.evidence, types, settings)
        edge_states[key] = EdgeState(key, src, dst, DRIFTED if drifts else FRESH, phrase, drifts)
    return DriftReport(states, edge_states)


def _inherited(parent: str, ontology: Ontology) -> CommunityLabel | None:
    label = ontology.communities.get(parent) if parent else None
    if label is None or label.retired or not label.name:
        return None
    return label


COMMUNITY_DRIFTED = "L301"
EDGE_DRIFTED = "L302"
UNCONFIRMED_CODE = "L303"


def drift_findings(report: DriftReport, where: str, level: str = WARNING) -> list[Finding]:
    """One finding per drifted label, at its line of ``where``: the label, the drift value and
    its threshold, the old and new evidence, and what to run."""
    found = []
    for state in report.drifted:
        label = state.label
        line = label.line if label is not None else 0
        if isinstance(state, CommunityState):
            code = COMMUNITY_DRIFTED
            what = f"label '{state.text}' of {state.community}"
            if state.status == INHERITED:
                what = f"{state.community} shows the label '{state.text}' of {state.inherited_from}"
        else:
            code = EDGE_DRIFTED
            what = f"phrase '{state.text}' of {state.key}"
        reasons = "; ".join(d.describe() for d in state.drifts)
        fix = f"run `kgtool label` or `kgtool label --accept {state.key}`"
        if any(d.measure == EDGE_GONE for d in state.drifts):
            fix = "`kgtool label` retires it"  # there is no edge left to accept it against
        found.append(Finding(where, line, level, code, f"{what} drifted: {reasons}; {fix}"))
    return found


def unconfirmed_findings(report: DriftReport, where: str) -> list[Finding]:
    states: list[CommunityState | EdgeState] = [
        *report.communities.values(),
        *report.edges.values(),
    ]
    return [
        Finding(
            where,
            state.label.line,
            WARNING,
            UNCONFIRMED_CODE,
            f"'{state.text}' ({state.key}) has no evidence, so its drift cannot be checked: "
            f"`kgtool label --accept {state.key}` records it",
        )
        for state in states
        if state.status == UNCONFIRMED and state.label is not None
    ]
