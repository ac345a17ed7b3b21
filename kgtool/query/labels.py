"""Layer-3 names as every read command shows them: a drifted label marked with why, a missing
one said so, never presented as fact.

The marks come from one place, the drift report of ``.kg/ontology.yaml`` against layer 2 as
committed (the computation ``kgtool label`` and the map use). The community pages under
``.kg/communities/`` are read only for what they alone hold: the name and summary kgtool made
from paths and docstrings for a community nobody labelled (making them again would mean
reading source).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kgtool import bounded
from kgtool.escape import md_cell_text
from kgtool.query.kg import MapState
from kgtool.store import PAGES_DIR, Store

if TYPE_CHECKING:
    from kgtool.ontology.drift import DriftReport

UNLABELLED = "unlabelled"
PAGE_HEAD_BYTES = 16_384  # a page's name and summary open it
DRIFTED = "drifted"


class CommunityText(NamedTuple):
    cid: str
    name: str  # "" when there is neither a label nor a page: the ID stands alone
    mark: str = ""  # "", "unlabelled" or "drifted"
    why: str = ""  # a sentence about the mark
    summary: str = ""

    @property
    def title(self) -> str:
        """``c7 · Name (drifted)``: the ID, the name, and why it is not fact when it is not."""
        if not self.name:
            return self.cid
        return f"{self.cid} · {self.name}" + (f" ({self.mark})" if self.mark else "")


class Labels:
    """The labels of one map, from its drift report (computed once, when first asked)."""

    def __init__(self, state: MapState) -> None:
        self.state = state
        self._report: DriftReport | None = None
        self._texts: dict[str, CommunityText] = {}  # a page is read once per community

    @property
    def report(self) -> DriftReport:
        if self._report is None:
            from kgtool.ontology.drift import DriftReport
            from kgtool.ontology.view import report_for

            ontology = self.state.ontology
            if self.state.document is None or not (ontology.communities or ontology.edges):
                self._report = DriftReport({}, {})
            else:
                self._report = report_for(self.state.document, ontology, self.state.config)
        return self._report

    def mark(self, cid: str) -> str:
        """Fresh, "drifted", "unconfirmed" (a person's label with no evidence yet), or
        "unlabelled"."""
        state = self.report.communities.get(cid)
        if state is None or state.label is None or state.status in ("missing", "retired"):
            return UNLABELLED
        if state.status in ("drifted", "inherited"):
            return DRIFTED
        return state.status

    def name(self, cid: str) -> str:
        state = self.report.communities.get(cid)
        if self.mark(cid) == UNLABELLED or state is None or state.label is None:
            return ""  # (a mark other than UNLABELLED means a state with a label)
        return state.label.name

    def why(self, cid: str) -> str:
        state = self.report.communities.get(cid)
        return "; ".join(d.describe() for d in state.drifts) if state else ""

    def line(self, cid: str) -> int:
        state = self.report.communities.get(cid)
        return state.label.line if state and state.label else 0

    def summary(self, cid: str) -> str:
        state = self.report.communities.get(cid)
        return state.label.summary if state and state.label else ""

    def phrase(self, key: str) -> tuple[str, str, int]:
        """(phrase, mark, line) of an edge's label; ("", "", 0) when it has none."""
        edge = self.report.edges.get(key)
        if edge is None or edge.label is None or edge.status in ("missing", "retired"):
            return "", "", 0
        return edge.label.phrase, DRIFTED if edge.status == "drifted" else "", edge.label.line

    def text(self, cid: str) -> CommunityText:
        """The community as the map names it: its label, or kgtool's own name from its page,
        marked unless it is a current label."""
        if cid not in self._texts:
            self._texts[cid] = self._text(cid)
        return self._texts[cid]

    def _text(self, cid: str) -> CommunityText:
        mark = self.mark(cid)
        if mark == UNLABELLED:
            name, summary = _page_name(self.state.store, cid)
            why = (
                "Unlabelled: kgtool made this name and summary from paths, identifiers and "
                "docstrings; `kgtool label` writes a label."
            )
            return CommunityText(cid, name, UNLABELLED if name else "", why, summary)
        if mark == DRIFTED:
            why = (
                "Drifted: this label was written for a community that has changed "
                f"({self.why(cid)}). Treat it as a guess until `kgtool label` rewrites it or a "
                f"person confirms it (`kgtool label --accept {cid}`)."
            )
            return CommunityText(cid, self.name(cid), DRIFTED, why, self.summary(cid))
        return CommunityText(cid, self.name(cid), "", "", self.summary(cid))

    def titles(self, cids: list[str]) -> dict[str, str]:
        return {cid: self.text(cid).title for cid in cids}


def _page_name(store: Store, cid: str) -> tuple[str, str]:
    """(name, summary) from the community's page; ("", "") when it has none."""
    # Its opening lines only, as the map wrote them (a committed page may be anything).
    data = bounded.read_tracked(store.dir, f"{PAGES_DIR}/{cid}.md", PAGE_HEAD_BYTES, head=True)
    if data is None:
        return "", ""
    lines = data.decode("utf-8", "replace").splitlines()
    head = lines[0] if lines else ""
    name = md_cell_text(head.removeprefix(f"# {cid} · ")) if head.startswith(f"# {cid} · ") else ""
    paragraphs: list[str] = []
    for line in lines[1:]:
        if "· [back to the map](" in line:  # the end of the page's opening paragraphs
            break
        if not line.strip():
            paragraphs.append("")
        elif paragraphs:
            paragraphs[-1] = f"{paragraphs[-1]} {line}".strip()
    summary = [p for p in paragraphs if p and p.split(" ", 1)[0] not in ("Unlabelled:", "Drifted:")]
    return name, " ".join(summary)
