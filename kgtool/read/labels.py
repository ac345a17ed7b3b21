"""Community names as the map shows them, each with its mark when it is not a current label.

Read from the community pages ``kgtool update`` (and ``kgtool label``) drew under
``.kg/communities/``: they hold the layer-3 name, the summary and the mark (unlabelled, or
drifted and why) exactly as the map shows them, so a reader needs neither the drift
computation nor the offline labeler (and their imports) to say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgtool.store import PAGES_DIR, Store

UNLABELLED = "unlabelled"
DRIFTED = "drifted"
_MARKS = {"Unlabelled:": UNLABELLED, "Drifted:": DRIFTED}


@dataclass(frozen=True)
class CommunityText:
    cid: str
    name: str  # "" when the page is missing: the ID stands alone
    mark: str = ""  # "", "unlabelled" or "drifted"
    why: str = ""  # the page's sentence about the mark
    summary: str = ""

    @property
    def title(self) -> str:
        """``c7 · Name (drifted)``: the ID, the name, and why it is not fact when it is not."""
        if not self.name:
            return self.cid
        return f"{self.cid} · {self.name}" + (f" ({self.mark})" if self.mark else "")


def community_text(store: Store, cid: str) -> CommunityText:
    data = store.read_bytes(f"{PAGES_DIR}/{cid}.md")
    if data is None:
        return CommunityText(cid, "")
    lines = data.decode("utf-8", "replace").splitlines()
    head = lines[0] if lines else ""
    name = head.removeprefix(f"# {cid} · ") if head.startswith(f"# {cid} · ") else ""
    paragraphs: list[str] = []
    for line in lines[1:]:
        if "· [back to the map](" in line:  # the end of the page's opening paragraphs
            break
        if not line.strip():
            paragraphs.append("")
        elif paragraphs:
            paragraphs[-1] = f"{paragraphs[-1]} {line}".strip()
    mark = why = ""
    summary = []
    for paragraph in filter(None, paragraphs):
        first = paragraph.split(" ", 1)[0]
        if first in _MARKS and not mark:
            mark, why = _MARKS[first], paragraph
        else:
            summary.append(paragraph)
    return CommunityText(cid, name, mark, why, " ".join(summary))


def titles(store: Store, cids: list[str]) -> dict[str, str]:
    return {cid: community_text(store, cid).title for cid in cids}
