"""Community identity across runs: match new groups to old communities, keep IDs still.

A new group may take an old community's ID when they share at least ``min_overlap`` of one
of them (so a community split in five still hands its ID to a part, and a merge keeps one of
its IDs, but a group that merely picked up one old file does not inherit a label about
something else). Eligible pairs are taken greedily by Jaccard similarity, ties broken by the
larger overlap, then the older (smaller) ID, then the group's first path: the result never
depends on iteration order. A split keeps the ID on its largest part and a merge on its best
match because those have the highest Jaccard.

IDs come from a monotonic counter, ``next_id``, and are never reused: a retired ID, and the
label people gave it, can never land on an unrelated community.

The same rules give areas (groups of communities) their IDs: only the prefix differs ("c7"
for a community, "A3" for an area), and each level keeps its own counter.
"""

from __future__ import annotations

from collections import Counter


class Identity:
    __slots__ = ("ids", "merged_into", "next_id", "retired", "split_from")

    ids: dict[str, list[str]]  # community ID -> sorted members
    next_id: int
    split_from: dict[str, str]  # new ID -> the ID it came from
    merged_into: dict[str, str]  # retired ID -> the survivor
    retired: list[str]  # retired this run, with or without heir

    def __init__(
        self,
        ids: dict[str, list[str]],
        next_id: int,
        split_from: dict[str, str] | None = None,
        merged_into: dict[str, str] | None = None,
        retired: list[str] | None = None,
    ) -> None:
        self.ids = ids
        self.next_id = next_id
        self.split_from = {} if split_from is None else split_from
        self.merged_into = {} if merged_into is None else merged_into
        self.retired = [] if retired is None else retired

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Identity):
            return NotImplemented
        return (self.ids, self.next_id, self.split_from, self.merged_into, self.retired) == (
            other.ids,
            other.next_id,
            other.split_from,
            other.merged_into,
            other.retired,
        )

    __hash__ = None  # type: ignore[assignment]  # unhashable, as __eq__ alone makes it


COMMUNITY_PREFIX = "c"


def id_number(community: str) -> int:
    """The number of an ID at either level ("c7" -> 7, "A3" -> 3); -1 for one that is not
    a letter and digits (a hand-edited file's), which then sorts first instead of failing."""
    digits = community[1:]
    return int(digits) if digits.isascii() and digits.isdigit() else -1


def format_id(number: int, prefix: str = COMMUNITY_PREFIX) -> str:
    return f"{prefix}{number}"


def assign_ids(
    groups: list[list[str]],
    old: dict[str, list[str]],
    next_id: int,
    min_overlap: float,
    prefix: str = COMMUNITY_PREFIX,
) -> Identity:
    """IDs for ``groups`` (sorted lists of members, in order of first member), matched to the
    ``old`` groups by member overlap; ``prefix`` names the level new IDs are made for."""
    old_of: dict[str, str] = {path: cid for cid, members in old.items() for path in members}
    overlaps: list[tuple[float, int, int, str, int]] = []
    for number, group in enumerate(groups):
        shared = Counter(old_of[path] for path in group if path in old_of)
        for cid, count in shared.items():
            size_old = len(old[cid])
            if count / len(group) < min_overlap and count / size_old < min_overlap:
                continue
            jaccard = count / (len(group) + size_old - count)
            overlaps.append((-jaccard, -count, id_number(cid), cid, number))
    # Groups arrive sorted by first member, so ``number`` is itself a path-order tie-break.
    overlaps.sort()
    taken: dict[int, str] = {}
    used: set[str] = set()
    for _, _, _, cid, number in overlaps:
        if number in taken or cid in used:
            continue
        taken[number] = cid
        used.add(cid)
    counter = max([next_id, *(id_number(cid) + 1 for cid in old)])
    ids: dict[str, list[str]] = {}
    fresh: list[str] = []
    for number, group in enumerate(groups):
        kept = taken.get(number)
        if kept is None:
            cid = format_id(counter, prefix)
            counter += 1
            fresh.append(cid)
        else:
            cid = kept
        ids[cid] = group
    result = Identity(ids, counter)
    new_of = {path: cid for cid, members in ids.items() for path in members}
    for cid in fresh:
        # A new community mostly made of one surviving community's files split off from it.
        origins = Counter(old_of[path] for path in ids[cid] if path in old_of)
        if origins:
            source, count = min(origins.items(), key=lambda item: (-item[1], id_number(item[0])))
            if source in ids and count * 2 > len(ids[cid]):
                result.split_from[cid] = source
    for cid in sorted(set(old) - set(ids), key=id_number):
        result.retired.append(cid)
        heirs = Counter(new_of[path] for path in old[cid] if path in new_of)
        if heirs:
            heir, count = min(heirs.items(), key=lambda item: (-item[1], id_number(item[0])))
            # Most of its files went to one community: merged, rather than dissolved.
            if count * 2 > len(old[cid]):
                result.merged_into[cid] = heir
    return result
