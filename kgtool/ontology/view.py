"""What the map shows of layer 3: a name for every community, each marked for what it is.

A community with a fresh label shows it as it is. One with no label shows the offline
labeler's name, marked "unlabelled"; a drifted label (or a split child's inherited one) is
marked "drifted", so that the map never presents it as fact. Edge phrases are shown only where
a label exists, marked the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgtool.config import Config
from kgtool.ontology.drift import (
    DRIFTED,
    INHERITED,
    MISSING,
    RETIRED,
    DriftReport,
    drift_report,
)
from kgtool.ontology.facts import community_items, phrased_edges, read_docstrings
from kgtool.ontology.model import Ontology

Document = dict[str, Any]

UNLABELLED = "unlabelled"  # the mark on an offline name the map made up for itself


class LabelView:
    __slots__ = (
        "drift_reasons",
        "marks",
        "names",
        "phrase_marks",
        "phrases",
        "report",
        "summaries",
    )

    report: DriftReport
    names: dict[str, str]  # community ID -> name to show
    marks: dict[str, str]  # community ID -> "" or why not fact
    summaries: dict[str, str]
    phrases: dict[str, str]  # "c7->c6" -> phrase
    phrase_marks: dict[str, str]
    drift_reasons: dict[str, str]  # community ID -> drifts

    def __init__(
        self,
        report: DriftReport,
        names: dict[str, str] | None = None,
        marks: dict[str, str] | None = None,
        summaries: dict[str, str] | None = None,
        phrases: dict[str, str] | None = None,
        phrase_marks: dict[str, str] | None = None,
        drift_reasons: dict[str, str] | None = None,
    ) -> None:
        self.report = report
        self.names = {} if names is None else names
        self.marks = {} if marks is None else marks
        self.summaries = {} if summaries is None else summaries
        self.phrases = {} if phrases is None else phrases
        self.phrase_marks = {} if phrase_marks is None else phrase_marks
        self.drift_reasons = {} if drift_reasons is None else drift_reasons

    def title(self, cid: str) -> str:
        return self.names.get(cid, cid)


def drift_settings(config: Config) -> dict[str, Any]:
    """The ``ontology`` settings drift reads, with layer 2's type weights."""
    communities = config.section("communities")
    return {
        **config.section("ontology"),
        "weights": communities["weights"],
        "default_weight": communities["default_weight"],
    }


def report_for(document: Document, ontology: Ontology, config: Config) -> DriftReport:
    section = config.section("ontology")
    phrased = phrased_edges(
        document, int(section["edges_per_community"]), int(section["min_edge_count"])
    )
    return drift_report(document, ontology, drift_settings(config), phrased)


def label_view(root: Path, config: Config, document: Document, ontology: Ontology) -> LabelView:
    report = report_for(document, ontology, config)
    view = LabelView(report)
    unlabelled = []
    for cid, state in report.communities.items():
        if state.status == RETIRED:
            continue
        if state.status == MISSING or state.label is None:
            unlabelled.append(cid)
            continue
        view.names[cid] = state.label.name
        view.summaries[cid] = state.label.summary
        if state.status in (DRIFTED, INHERITED):
            view.marks[cid] = DRIFTED
            view.drift_reasons[cid] = "; ".join(d.describe() for d in state.drifts)
    if unlabelled:
        taken = {name.casefold() for name in view.names.values()}
        docstrings = read_docstrings(root, _only(document, unlabelled))
        items = community_items(
            _only(document, unlabelled), docstrings, {}, int(config["ontology"]["max_paths"])
        )
        # Imported here: readers that only need drift (playbook concepts, `kgtool context`)
        # must not pay for the labeler.
        from kgtool.ontology.offline import OfflineLabeler

        batch = OfflineLabeler().label(list(items.values()), [], taken)
        for cid in unlabelled:
            text = batch.communities.get(cid)
            view.names[cid] = text.name if text else cid
            view.summaries[cid] = text.summary if text else ""
            view.marks[cid] = UNLABELLED
    for key, edge_state in report.edges.items():
        if edge_state.label is None or edge_state.status in (MISSING, RETIRED):
            continue
        view.phrases[key] = edge_state.label.phrase
        if edge_state.status == DRIFTED:
            view.phrase_marks[key] = DRIFTED
    return view


def _only(document: Document, ids: list[str]) -> Document:
    """``document`` narrowed to some communities (their edges stay, for their counts)."""
    return {**document, "communities": {cid: document["communities"][cid] for cid in ids}}
