"""What ``kgtool context`` answers, as items, and the answer written within a budget of
characters: items are chosen by rank, a child only with its parent, a long one in its short
form when that fits; they are shown in the order they were added, in markdown or JSON, and
the budget is never exceeded."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple

FIRST_RANK = -1_000_000.0  # unranked items (playbooks, skills) come before ranked ones


class Item(NamedTuple):
    """One unit of the answer: shown whole or not at all, and only with its ``parent``.
    Items are chosen by ``rank`` (lowest first) and shown in the order they were added."""

    markdown: str
    data: dict[str, Any]
    parent: int = -1
    rank: float = 0.0
    short: tuple[str, dict[str, Any]] | None = None  # shown instead when the item does not fit
    tight: bool = False  # a line of a list: no blank line before it


class Bundle:
    __slots__ = ("items", "notices", "task", "words")

    task: str
    notices: list[str]
    words: dict[str, str]  # stem -> the task's word
    items: list[Item]

    def __init__(
        self,
        task: str,
        notices: list[str],
        words: dict[str, str] | None = None,
    ) -> None:
        self.task = task
        self.notices = notices
        self.words = {} if words is None else words
        self.items = []

    def said(self, terms: list[str]) -> list[str]:
        """Matched stems as the task wrote them."""
        return [self.words.get(t, t) for t in terms]

    def add(
        self,
        markdown: str,
        data: dict[str, Any],
        parent: int = -1,
        rank: float | None = None,
        short: tuple[str, dict[str, Any]] | None = None,
        tight: bool = False,
    ) -> int:
        """Add an item; without a ``rank`` it is chosen before every ranked one, in order."""
        chosen = rank if rank is not None else FIRST_RANK + len(self.items)
        self.items.append(Item(markdown, data, parent, chosen, short, tight))
        return len(self.items) - 1

    def text(self, number: int, short: bool) -> str:
        item = self.items[number]
        text = (item.short[0] if short and item.short else item.markdown) + "\n"
        return text if item.tight else "\n" + text

    def data(self, number: int, short: bool) -> dict[str, Any]:
        item = self.items[number]
        return dict(item.short[1] if short and item.short else item.data)


def _chosen(bundle: Bundle, fits: Any) -> tuple[list[int], set[int], int]:
    """The items kept, in the order they are shown; those kept in their short form; and how
    many were left out. Items are offered best rank first; ``fits(i, short)`` says whether
    item ``i`` (in that form) still fits, and counts it when it does."""
    kept: set[int] = set()
    shortened: set[int] = set()
    by_rank = sorted(range(len(bundle.items)), key=lambda n: (bundle.items[n].rank, n))
    for number in by_rank:
        item = bundle.items[number]
        if item.parent >= 0 and item.parent not in kept:
            continue
        if fits(number, False):
            kept.add(number)
        elif item.short is not None and fits(number, True):
            kept.add(number)
            shortened.add(number)
    return sorted(kept), shortened, len(bundle.items) - len(kept)


def _omitted_line(count: int, budget: int) -> str:
    items = f"{count} more item{'s' * (count != 1)}"
    return f"\n({items} did not fit the budget of {budget} characters)\n"


def render_markdown(bundle: Bundle, budget: int) -> str:
    """The bundle as markdown: the task and notices, then the items that fit, best first,
    and a last line saying how many did not (when there is room to say it)."""
    head = f"# Context for: {bundle.task}\n"
    head += "".join(f"\n> kgtool: {notice}\n" for notice in bundle.notices)
    if len(head) > budget:
        return head[:budget]
    everything = "".join(bundle.text(n, False) for n in range(len(bundle.items)))
    if len(head) + len(everything) <= budget:
        return head + everything
    # Not everything fits: keep room for the line that says so, unless that leaves none.
    reserve = len(_omitted_line(len(bundle.items), budget))
    if reserve > budget - len(head):
        reserve = 0
    used = len(head)

    def fits(number: int, short: bool) -> bool:
        nonlocal used
        size = len(bundle.text(number, short))
        if used + size + reserve > budget:
            return False
        used += size
        return True

    kept, shortened, omitted = _chosen(bundle, fits)
    out = head + "".join(bundle.text(number, number in shortened) for number in kept)
    if len(out) + len(_omitted_line(omitted, budget)) <= budget:
        out += _omitted_line(omitted, budget)
    return out


def _json_text(bundle: Bundle, items: list[dict[str, Any]], omitted: int) -> str:
    document = {
        "task": bundle.task,
        "notices": bundle.notices,
        "items": items,
        "omitted": omitted,
    }
    return json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def _json_items(
    bundle: Bundle, numbers: Iterable[int], shortened: set[int] | None = None
) -> list[dict[str, Any]]:
    """The data of these items, a child naming its parent by its position among them."""
    position: dict[int, int] = {}
    found: list[dict[str, Any]] = []
    for number in numbers:
        item = bundle.items[number]
        data = bundle.data(number, number in (shortened or set()))
        if item.parent >= 0:
            data["parent"] = position[item.parent]
        position[number] = len(found)
        found.append(data)
    return found


def render_json(bundle: Bundle, budget: int) -> str:
    """One JSON object: task, notices, the items kept (flat, each citing its source, a
    child naming its parent by index), and how many were left out; empty if even the frame
    does not fit."""
    total = len(bundle.items)
    everything = _json_text(bundle, _json_items(bundle, range(total)), 0)
    if len(everything) <= budget:
        return everything
    frame = len(_json_text(bundle, [], total))
    if frame > budget:
        return ""
    used = frame
    count = 0

    def fits(number: int, short: bool) -> bool:
        nonlocal used, count
        item = bundle.items[number]
        data = bundle.data(number, short)
        if item.parent >= 0:
            # Sized with the parent's index among all items: its position among those kept,
            # written in the end, is never longer.
            data["parent"] = item.parent
        size = len(json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")))
        size += 1 if count else 0  # the comma
        if used + size > budget:
            return False
        used += size
        count += 1
        return True

    kept, shortened, omitted = _chosen(bundle, fits)
    text = _json_text(bundle, _json_items(bundle, kept, shortened), omitted)
    # Positions and "omitted" may have fewer digits than were reserved, never more.
    assert len(text) <= budget
    return text
