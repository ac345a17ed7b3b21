"""Layer 3 drift verdicts on hand-built documents: the order reports come in once IDs reach
two digits, hand-written edge phrases, and the folder rule of folder groups.

``drift_report`` is a pure function of ``communities.json``, the ontology and the settings,
so these tests give it exactly the documents they need.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgtool.config import load_config
from kgtool.ontology.drift import (
    DRIFTED,
    FRESH,
    RETIRED,
    UNCONFIRMED,
    Drift,
    community_drifts,
    drift_findings,
    drift_report,
    unconfirmed_findings,
)
from kgtool.ontology.evidence import community_evidence
from kgtool.ontology.model import CommunityLabel, EdgeLabel, Evidence, Ontology
from kgtool.ontology.view import drift_settings

CALLS = {"calls": {"EXTRACTED": 4}}


@pytest.fixture
def settings(tmp_path: Path) -> dict[str, Any]:
    """The default ``ontology`` settings, as a repository without .kgtool.yaml has them."""
    return drift_settings(load_config(tmp_path))


def members_of(cid: str) -> list[str]:
    return [f"{cid}/{name}.py" for name in ("a", "b", "c")]


def document(cids: list[str], edges: list[tuple[str, str]], retired: dict | None = None) -> dict:
    return {
        "communities": {
            cid: {"members": members_of(cid), "main_files": [[members_of(cid)[0], 2]]}
            for cid in cids
        },
        "edges": [{"src": src, "dst": dst, "types": CALLS} for src, dst in edges],
        "retired": retired or {},
    }


def fresh_label(
    cid: str, name: str, out: dict | None = None, into: dict | None = None
) -> CommunityLabel:
    """A label written for exactly the members ``document`` gives ``cid``, and these edges."""
    evidence = community_evidence(members_of(cid), out or {}, into or {}, exact_members=200)
    return CommunityLabel(cid, name, by="offline", evidence=evidence)


def edge_label(src: str, dst: str, evidence: Evidence | None) -> EdgeLabel:
    return EdgeLabel(src, dst, f"{src} calls {dst}", by="offline", evidence=evidence)


def test_reports_list_communities_and_edges_by_id_number_from_c10_up(
    settings: dict[str, Any],
) -> None:
    """``kgtool check`` and CI list verdicts c2, c9, c10, not c10, c2, c9 (text order).

    Kills the three sorts of ``drift_report`` losing their numeric key: live communities
    that absorbed others (the order of "absorbed" reasons), labels of gone communities, and
    edges (``edge_order``).
    """
    live = ["c2", "c9", "c10"]
    doc = document(
        live,
        edges=[],  # every labelled edge below has vanished: each is drifted
        retired={"c3": {"merged_into": "c10"}, "c20": {"merged_into": "c10"}, "c4": {}},
    )
    labels = {cid: fresh_label(cid, f"group {cid}") for cid in live}
    labels |= {cid: fresh_label(cid, f"old {cid}") for cid in ("c3", "c4", "c20")}
    edge_evidence = Evidence(types=CALLS)
    edges = {
        label.key: label
        for label in (
            edge_label("c10", "c2", edge_evidence),
            edge_label("c2", "c10", edge_evidence),
            edge_label("c9", "c10", edge_evidence),
        )
    }
    report = drift_report(doc, Ontology(labels, edges), settings, phrased=[])

    assert list(report.communities) == ["c2", "c9", "c10", "c3", "c4", "c20"]
    assert [report.communities[c].status for c in ("c2", "c9", "c10")] == [FRESH, FRESH, DRIFTED]
    assert {report.communities[c].status for c in ("c3", "c4", "c20")} == {RETIRED}
    assert report.stale_communities() == {
        "c10": "merged (absorbed c3 ('old c3')); merged (absorbed c20 ('old c20'))"
    }
    assert list(report.edges) == ["c2->c10", "c9->c10", "c10->c2"]
    findings = [f.message.split(" drifted")[0] for f in drift_findings(report, "ontology.yaml")]
    assert findings == [
        "label 'group c10' of c10",
        "phrase 'c2 calls c10' of c2->c10",
        "phrase 'c9 calls c10' of c9->c10",
        "phrase 'c10 calls c2' of c10->c2",
    ]


def test_a_hand_written_edge_phrase_is_reported_unconfirmed_by_its_phrase(
    settings: dict[str, Any],
) -> None:
    """An edge phrase with no evidence cannot drift; ``check`` says so, naming the phrase and
    the command that records evidence. Kills the unconfirmed edge state losing its label."""
    doc = document(["c1", "c2"], edges=[("c1", "c2")])
    labels = {"c1": fresh_label("c1", "one", out=CALLS), "c2": fresh_label("c2", "two", into=CALLS)}
    phrase = edge_label("c1", "c2", evidence=None)
    report = drift_report(doc, Ontology(labels, {phrase.key: phrase}), settings, phrased=[])

    state = report.edges["c1->c2"]
    assert (state.status, state.text) == (UNCONFIRMED, "c1 calls c2")
    assert not state.needs_label  # a person's words are kept until they accept or rewrite
    assert report.drifted == []
    assert [f.message for f in unconfirmed_findings(report, "ontology.yaml")] == [
        "'c1 calls c2' (c1->c2) has no evidence, so its drift cannot be checked: "
        "`kgtool label --accept c1->c2` records it"
    ]


def test_a_folder_drift_reports_its_threshold(settings: dict[str, Any]) -> None:
    """A folder group whose files moved to other folders drifts with the distance and the
    ``member_drift`` it exceeds, as every other drift does ("folders 0.67 > 0.30")."""
    old = ["notes/1.md", "notes/2.md"]
    new = ["notes/1.md", "notes/old/2.md", "notes/new/3.md"]
    evidence = community_evidence(old, {}, {}, exact_members=200)
    (drift,) = community_drifts(evidence, new, {}, {}, settings, loose=True)
    threshold = float(settings["member_drift"])
    assert drift == Drift(
        "folders", drift.value, threshold, "notes/ -> notes/, notes/new/, notes/old/"
    )
    assert drift.value == pytest.approx(2 / 3)
    assert drift.describe() == "folders 0.67 > 0.30 (notes/ -> notes/, notes/new/, notes/old/)"
    # The setting decides, not its default: 0.67 is under a member_drift of 0.7.
    looser = {**settings, "member_drift": 0.7}
    assert community_drifts(evidence, new, {}, {}, looser, loose=True) == []


def test_a_folder_group_that_now_calls_out_is_judged_by_its_edges(
    settings: dict[str, Any],
) -> None:
    """The folder rule holds only while a group has no edges: one whose files now call into
    another community drifts on those edges, though its folders are the same. Kills
    ``_edgeless`` ignoring today's edges out."""
    files = ["scripts/a.py", "scripts/b.py"]
    evidence = community_evidence(files, {}, {}, exact_members=200)
    assert community_drifts(evidence, files, {}, {}, settings, loose=True) == []
    drifts = community_drifts(evidence, files, CALLS, {}, settings, loose=True)
    assert [d.measure for d in drifts] == ["edges out: calls appeared"]
