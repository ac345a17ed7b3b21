"""Writing layer 3: which labels a run may write, and the new ontology once they are written.

Only what is missing or drifted is labelled, and a human label is never rewritten by a
labeler: when it drifts it is flagged for a person, who confirms it (``accept``: the text is
kept, the evidence re-snapshotted) or replaces it (``set_label``). Every label written here
carries the evidence it was written from, taken from today's layer 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.ontology.drift import (
    DRIFTED,
    RETIRED,
    CommunityState,
    EdgeState,
)
from kgtool.ontology.evidence import community_evidence, edge_evidence
from kgtool.ontology.facts import (
    community_edges,
    community_items,
    edge_items,
    read_docstrings,
    sorted_counts,
)
from kgtool.ontology.items import CommunityItem, EdgeItem, LabelBatch, edge_key
from kgtool.ontology.model import HUMAN, CommunityLabel, EdgeLabel, Evidence, Ontology
from kgtool.ontology.validate import name_key, validate_name, validate_phrase, validate_summary
from kgtool.ontology.view import label_view

Document = dict[str, Any]


class LabelPlan(NamedTuple):
    """What one ``kgtool label`` run would do."""

    communities: list[CommunityItem]
    edges: list[EdgeItem]  # phrased with today's names; re-read after communities are named
    human_drifted: list[CommunityState | EdgeState]
    names: dict[str, str]  # community ID -> name on the map now
    taken: set[str]  # casefolded names this run must not reuse
    gone: list[str]  # phrased edges that are gone: to retire


def plan_labels(
    root: Path, config: Config, document: Document, ontology: Ontology, relabel: bool = False
) -> LabelPlan:
    """The communities and edges to label: missing or drifted machine labels, or with
    ``relabel`` every label not written by a person (say, to replace offline labels by the
    LLM's)."""
    view = label_view(root, config, document, ontology)
    report = view.report
    section = config.section("ontology")
    wanted = [
        cid
        for cid, state in report.communities.items()
        if state.status != RETIRED and (state.needs_label or _replaceable(state, relabel))
    ]
    by_key = {edge_key(e["src"], e["dst"]): e for e in document.get("edges", [])}
    # A gone edge's phrase is retired, whoever wrote it: there is nothing left to phrase.
    gone = [s.key for s in report.edges.values() if s.status == DRIFTED and s.key not in by_key]
    human = [
        state
        for state in report.drifted
        if state.label is not None
        and state.label.by == HUMAN
        and not state.needs_label
        and state.key not in gone
    ]
    keep = {
        view.names[cid].casefold()
        for cid, state in report.communities.items()
        if state.status != RETIRED and cid not in wanted and cid in view.names
    }
    previous = {
        cid: state.label.name
        for cid, state in report.communities.items()
        if cid in wanted and state.label is not None
    }
    items = community_items(
        document,
        read_docstrings(root, document),
        view.names,
        int(section["max_paths"]),
        previous,
    )
    edge_wanted = [
        state
        for state in report.edges.values()
        if state.status != RETIRED and (state.needs_label or _replaceable(state, relabel))
    ]
    edges = edge_items(
        [by_key[s.key] for s in edge_wanted if s.key in by_key],
        view.names,
        {s.key: s.label.phrase for s in edge_wanted if s.label is not None},
    )
    return LabelPlan(
        communities=[items[cid] for cid in wanted],
        edges=edges,
        human_drifted=human,
        names=dict(view.names),
        taken=keep,
        gone=gone,
    )


def _replaceable(state: CommunityState | EdgeState, relabel: bool) -> bool:
    return relabel and state.label is not None and state.label.by != HUMAN


def rename_edges(edges: list[EdgeItem], names: dict[str, str]) -> list[EdgeItem]:
    """The edge items with their ends' names as they are after this run's naming."""
    return [
        e._replace(src_name=names.get(e.src, e.src_name), dst_name=names.get(e.dst, e.dst_name))
        for e in edges
    ]


def _community_evidence(document: Document, cid: str, config: Config) -> Evidence:
    out, into = community_edges(document)[cid]
    members = list(document["communities"][cid]["members"])
    return community_evidence(members, out, into, int(config.section("ontology")["exact_members"]))


def _edge_types(document: Document, key: str) -> dict[str, dict[str, int]]:
    for edge in document.get("edges", []):
        if edge_key(edge["src"], edge["dst"]) == key:
            return sorted_counts(edge["types"])
    return {}


def apply_batch(
    ontology: Ontology,
    batch: LabelBatch,
    by: str,
    at: str,
    document: Document,
    config: Config,
) -> Ontology:
    """``ontology`` with the batch's labels written, each with today's evidence."""
    result = Ontology(dict(ontology.communities), dict(ontology.edges))
    for cid, text in sorted(batch.communities.items()):
        current = result.communities.get(cid)
        if current is not None and current.by == HUMAN and not current.retired:
            continue  # a person's words are never replaced by a labeler
        result.communities[cid] = CommunityLabel(
            cid, text.name, text.summary, by, at, _community_evidence(document, cid, config)
        )
    for (src, dst), phrase in sorted(batch.edges.items()):
        key = edge_key(src, dst)
        current_edge = result.edges.get(key)
        if current_edge is not None and current_edge.by == HUMAN and not current_edge.retired:
            continue
        types = _edge_types(document, key)
        if types:
            result.edges[key] = EdgeLabel(src, dst, phrase, by, at, edge_evidence(types))
    return retire_gone(result, document, written=set(batch.communities))


def accept(ontology: Ontology, key: str, at: str, document: Document, config: Config) -> Ontology:
    """A person confirms a label: its text is kept, its evidence becomes today's."""
    result = Ontology(dict(ontology.communities), dict(ontology.edges))
    if "->" in key:
        edge = ontology.edges.get(key)
        if edge is None or edge.retired:
            raise KgError(f"no phrase for {key} to accept in .kg/ontology.yaml")
        types = _edge_types(document, key)
        if not types:
            raise KgError(
                f"{key} holds no edges now, so there is nothing to confirm its phrase against"
            )
        result.edges[key] = edge._replace(at=at, evidence=edge_evidence(types), line=0)
        return retire_gone(result, document, written=set())
    if key not in document["communities"]:
        raise KgError(f"{key} is not a community on today's map (see .kg/MAP.md)")
    label = ontology.communities.get(key)
    if label is None or label.retired:
        parent = document["communities"][key].get("split_from", "")
        inherited = ontology.communities.get(parent) if parent else None
        if inherited is None or inherited.retired:
            raise KgError(f"{key} has no label to accept: name it with `kgtool label --set`")
        label = inherited._replace(community=key)  # a split child confirms its parent's name
    evidence = _community_evidence(document, key, config)
    result.communities[key] = label._replace(at=at, evidence=evidence, retired=False, line=0)
    return retire_gone(result, document, written={key})


def set_label(
    ontology: Ontology,
    key: str,
    text: str,
    summary: str | None,
    at: str,
    document: Document,
    config: Config,
) -> Ontology:
    """A human label (or phrase), validated like a labeler's, with today's evidence."""
    result = Ontology(dict(ontology.communities), dict(ontology.edges))
    try:
        if "->" in key:
            src, _, dst = key.partition("->")
            types = _edge_types(document, key)
            if not types:
                raise KgError(f"{key} is not an edge of today's map (see .kg/MAP.md)")
            phrase = validate_phrase(text)
            result.edges[key] = EdgeLabel(src, dst, phrase, HUMAN, at, edge_evidence(types))
            return retire_gone(result, document, written=set())
        if key not in document["communities"]:
            raise KgError(f"{key} is not a community on today's map (see .kg/MAP.md)")
        name = validate_name(text)
        old = ontology.communities.get(key)
        kept = old.summary if old is not None and not old.retired else ""
        new_summary = validate_summary(summary) if summary is not None else kept
    except ValueError as exc:
        raise KgError(f"{key}: {exc}") from exc
    for cid, label in ontology.communities.items():
        alive = not label.retired and cid in document["communities"]
        if cid != key and alive and name_key(label.name) == name_key(name):
            raise KgError(f"{key}: the name '{name}' is already {cid}'s; names are unique")
    evidence = _community_evidence(document, key, config)
    result.communities[key] = CommunityLabel(key, name, new_summary, HUMAN, at, evidence)
    return retire_gone(result, document, written={key})


def retire_gone(ontology: Ontology, document: Document, written: set[str]) -> Ontology:
    """Mark the labels whose community or edge is gone as retired (kept, never moved; an
    edge that comes back is phrased again).

    A label merged into a survivor stays unmarked until the survivor is labelled again (or
    confirmed): until then it is what keeps the survivor's own label flagged as drifted.
    """
    communities: dict[str, Any] = document["communities"]
    retired_doc: dict[str, dict[str, str]] = document.get("retired", {})
    for cid, label in list(ontology.communities.items()):
        if cid in communities or label.retired:
            continue
        heir = retired_doc.get(cid, {}).get("merged_into", "")
        survivor = ontology.communities.get(heir) if heir in communities else None
        if survivor is not None and not survivor.retired and heir not in written:
            continue
        ontology.communities[cid] = label._replace(retired=True, merged_into=heir, line=0)
    edges = {edge_key(e["src"], e["dst"]) for e in document.get("edges", [])}
    for key, edge in list(ontology.edges.items()):
        if not edge.retired and key not in edges:
            ontology.edges[key] = edge._replace(retired=True, line=0)
    return ontology
