"""Label changes between two revisions: the architecture changelog in words.

``kgtool diff`` lists, besides layer 2's events, which communities were named, renamed or
had their label retired, which edge phrases appeared or changed, and which labels are drifted
at the head (with why), so a reviewer reads "c7 'Session storage' drifted: 6 files joined"
rather than a list of moved files.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kgtool.communities.identity import id_number
from kgtool.ontology.drift import DRIFTED, INHERITED, DriftReport
from kgtool.ontology.items import edge_order
from kgtool.ontology.model import Ontology


def label_changes(
    base: Ontology, head: Ontology, report: DriftReport
) -> dict[str, list[dict[str, Any]]]:
    named, renamed, retired = [], [], []
    for cid in sorted(set(base.communities) | set(head.communities), key=id_number):
        old, new = base.communities.get(cid), head.communities.get(cid)
        if new is not None and not new.retired and (old is None or old.retired):
            named.append({"id": cid, "name": new.name, "by": new.by})
        elif old is not None and new is not None and not new.retired and old.name != new.name:
            renamed.append({"id": cid, "from": old.name, "to": new.name, "by": new.by})
        elif old is not None and not old.retired and (new is None or new.retired):
            retired.append({"id": cid, "name": old.name})
    phrased, rephrased = [], []
    for key in sorted(set(base.edges) | set(head.edges), key=edge_order):
        old_edge, new_edge = base.edges.get(key), head.edges.get(key)
        if new_edge is None or new_edge.retired:
            continue
        if old_edge is None or old_edge.retired:
            phrased.append({"edge": key, "phrase": new_edge.phrase})
        elif old_edge.phrase != new_edge.phrase:
            rephrased.append({"edge": key, "from": old_edge.phrase, "to": new_edge.phrase})
    drifted = []
    for state in report.drifted:
        drifted.append(
            {
                "label": state.key,
                "text": state.text,
                "status": INHERITED if state.status == INHERITED else DRIFTED,
                "why": [d.describe() for d in state.drifts],
            }
        )
    return {
        "named": named,
        "renamed": renamed,
        "retired": retired,
        "phrased": phrased,
        "rephrased": rephrased,
        "drifted": drifted,
    }


# More names or phrases written at once than this (a repository's first `kgtool label`) are
# one line of counts: a hundred lines of "named" bury the changes a reviewer is there for.
FOLDED_OVER = 5


def change_lines(labels: dict[str, Any]) -> list[str]:
    named, phrased = labels["named"], labels["phrased"]
    if len(named) > FOLDED_OVER:
        by = Counter(str(e["by"]) for e in named)
        how = ", ".join(f"{count} by {who}" for who, count in sorted(by.items()))
        lines = [f"named: {len(named)} communities ({how}; .kg/ontology.yaml lists them)"]
    else:
        lines = [f"named: {e['id']} '{e['name']}' ({e['by']})" for e in named]
    lines += [f"renamed: {e['id']} '{e['from']}' -> '{e['to']}'" for e in labels["renamed"]]
    lines += [f"label retired: {e['id']} '{e['name']}'" for e in labels["retired"]]
    if len(phrased) > FOLDED_OVER:
        lines.append(f"phrased: {len(phrased)} edges (.kg/ontology.yaml lists them)")
    else:
        lines += [f"phrased: {e['edge']} '{e['phrase']}'" for e in phrased]
    lines += [f"rephrased: {e['edge']} '{e['from']}' -> '{e['to']}'" for e in labels["rephrased"]]
    lines += [
        f"label drifted: {e['label']} '{e['text']}': {'; '.join(e['why'])}"
        for e in labels["drifted"]
    ]
    return lines
