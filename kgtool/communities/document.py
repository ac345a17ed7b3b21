"""``.kg/communities.json`` read back: the document layer 2 wrote, checked for its shape.

Apart from the builder so that a reader (``kgtool impact``, ``explain``, the MCP server) gets
it without importing the clustering and layer-1 machinery it does not run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kgtool import bounded
from kgtool.errors import KgError
from kgtool.store import KG_DIR, Store

COMMUNITIES_FILE = "communities.json"

Document = dict[str, Any]


def read_document_bytes(store: Store) -> bytes | None:
    """communities.json's bytes (None when there is none), read up to just past what a
    document may hold: one larger, which a pull request can commit, is then refused by
    ``parse_document`` in a line that names it, never read whole. Every reader of the file
    reads it so."""
    where = f"{KG_DIR}/{COMMUNITIES_FILE}"
    try:
        path = store.path(COMMUNITIES_FILE)
        return bounded.read_file(path, where, bounded.DOCUMENT_BYTES + 1, head=True)
    except bounded.Missing:
        return None
    except bounded.Unreadable as exc:
        raise KgError(f"{exc.message}: delete it, then run `kgtool update`", where) from None


def parse_document(
    data: bytes | None, where: str = f"{KG_DIR}/{COMMUNITIES_FILE}", shape_known: bool = False
) -> Document:
    """A communities.json document; ``{}`` when there is none yet. ``shape_known``: the bytes
    are those kgtool wrote (a digest said so), and their shape need not be checked again."""
    if data is None:
        return {}
    try:
        document = bounded.load_json(data, where, bounded.DOCUMENT_BYTES, shape_known)
    except bounded.Unreadable as exc:
        # Too deep, a number too long: said as such; any other fault is broken JSON.
        reason = "is not valid JSON" if isinstance(exc, bounded.Malformed) else exc.message
        raise KgError(
            f"{reason}: restore it from git (`git checkout HEAD -- "
            f"{KG_DIR}/{COMMUNITIES_FILE}`), then run `kgtool update`",
            where,
            exc.line,
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("communities"), dict):
        raise KgError("has no 'communities' mapping; delete it and run `kgtool update`", where)
    problem = "" if shape_known else _shape_problem(document)
    if problem:
        raise KgError(
            f"{problem}: restore it from git (`git checkout HEAD -- {KG_DIR}/{COMMUNITIES_FILE}`)"
            ", or delete it, then run `kgtool update`",
            where,
        )
    return document


# Nine digits at most: an ID's number is read back with int(), which refuses thousands of them.
COMMUNITY_ID = re.compile(r"c[0-9]{1,9}")
AREA_ID = re.compile(r"A[0-9]{1,9}")


def shape_problem(document: Any) -> str:
    """What in a parsed communities.json is not as kgtool writes it; "" when nothing. For a
    reader that says "damaged" itself rather than raising ``parse_document``'s error."""
    if not isinstance(document, dict) or not isinstance(document.get("communities"), dict):
        return "has no 'communities' mapping"
    return _shape_problem(document)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ranked(value: Any) -> bool:
    """[[name, count], ...]: a community's main files or top symbols."""
    return isinstance(value, list) and all(
        isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and _count(item[1])
        for item in value
    )


def _shape_problem(document: Document) -> str:
    """What in a parsed document is not as kgtool writes it, in the fields kgtool reads back
    (a hand edit or a bad merge must be one clear error, not a crash deep in layer 2)."""

    def strings(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)

    def mapping(value: Any, check: Callable[[Any], bool]) -> bool:
        return isinstance(value, dict) and all(
            isinstance(k, str) and check(v) for k, v in value.items()
        )

    for cid, community in document["communities"].items():
        if not COMMUNITY_ID.fullmatch(cid) or not isinstance(community, dict):
            return f"'communities' holds {cid!r}, which is not a community (c<N>: {{members}})"
        if not strings(community.get("members")):
            return f"'communities.{cid}.members' must be a list of paths"
        if not isinstance(community.get("split_from", ""), str):
            return f"'communities.{cid}.split_from' must be a community ID"
        area = community.get("area", "")
        if not isinstance(area, str) or (area and not AREA_ID.fullmatch(area)):
            return f"'communities.{cid}.area' must be an area ID"
        for key in ("main_files", "top_symbols"):
            if not _ranked(community.get(key, [])):
                return f"'communities.{cid}.{key}' must be a list of [name, count]"
        if not _count(community.get("size", 0)) or not isinstance(community.get("kind", ""), str):
            return f"'communities.{cid}' must have a whole-number size and a kind"
    files = document.get("files", {})
    if not mapping(files, lambda v: isinstance(v, str) and v in document["communities"]):
        return "'files' must map paths to community IDs of this map"
    listed = 0
    for cid, community in document["communities"].items():
        members = community["members"]
        listed += len(members)
        if not members or any(files.get(path) != cid for path in members):
            return f"'communities.{cid}.members' must be files that 'files' gives to {cid}"
    if listed != len(files):  # each file a member of one community, once
        return "'files' and the communities' members must name the same files"
    settings = document.get("settings")  # read again for the areas, and compared
    if (
        not isinstance(settings, dict)
        or not strings(settings.get("boundaries", []))
        or not all(_number(settings.get(key, 0)) for key in ("seed", "min_overlap"))
    ):
        return "'settings' must hold the settings layer 2 was built with"
    if not mapping(document.get("retired", {}), lambda v: mapping(v, lambda h: isinstance(h, str))):
        return "'retired' must map community IDs to {merged_into}"
    if not all(COMMUNITY_ID.fullmatch(cid) for cid in document.get("retired", {})):
        return "'retired' holds a key that is not a community ID"
    next_id = document.get("next_id", 1)
    if not isinstance(next_id, int) or isinstance(next_id, bool) or next_id < 1:
        return "'next_id' must be a positive whole number"
    problem = _areas_problem(document)
    if problem:
        return problem
    if not mapping(document.get("adjacency", {}), lambda v: isinstance(v, str)):
        return "'adjacency' must map paths to digests"
    edges = document.get("edges", [])
    if not isinstance(edges, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("src"), str)
        and isinstance(e.get("dst"), str)
        and COMMUNITY_ID.fullmatch(e["src"])
        and COMMUNITY_ID.fullmatch(e["dst"])
        and mapping(e.get("types"), lambda t: mapping(t, _count))
        and _count(e.get("total", 0))
        for e in edges
    ):
        return "'edges' must be a list of {src, dst, types, total}"
    return _families_problem(document.get("families", []), document.get("files", {}))


def _families_problem(families: Any, files: dict[str, str]) -> str:
    """What in ``families`` is not as kgtool writes it; "" when nothing."""
    if not isinstance(families, list):
        return "'families' must be a list of {name, base, folder, members, tests, communities}"
    for number, family in enumerate(families):
        where = f"'families[{number}]'"
        if not isinstance(family, dict) or not all(
            isinstance(family.get(key), str) for key in ("name", "base", "folder")
        ):
            return f"{where} must have a name, a base and a folder"
        for key in ("members", "tests", "communities"):
            value = family.get(key)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return f"{where}.{key} must be a list of strings"
        missing = [p for p in (*family["members"], *family["tests"]) if p not in files]
        if missing:
            return f"{where} names {missing[0]!r}, which is not in 'files'"
    return ""


def _areas_problem(document: Document) -> str:
    """What in the areas (format 3) is not as kgtool writes it; a format-2 document has none."""
    areas = document.get("areas", {})
    if not isinstance(areas, dict):
        return "'areas' must map area IDs to {communities}"
    for aid, area in areas.items():
        if not AREA_ID.fullmatch(aid) or not isinstance(area, dict):
            return f"'areas' holds {aid!r}, which is not an area (A<N>: {{communities}})"
        members = area.get("communities")
        if (
            not isinstance(members, list)
            or not members  # an area is named from its communities: one with none is retired
            or not all(isinstance(cid, str) and cid in document["communities"] for cid in members)
        ):
            return f"'areas.{aid}.communities' must list community IDs of this map"
        if not isinstance(area.get("split_from", ""), str):
            return f"'areas.{aid}.split_from' must be an area ID"
        if not _count(area.get("size")) or not isinstance(area.get("package"), str):
            return f"'areas.{aid}' must have a whole-number size and a package name"
    retired = document.get("retired_areas", {})
    if not isinstance(retired, dict) or not all(
        AREA_ID.fullmatch(aid) and isinstance(info, dict) for aid, info in retired.items()
    ):
        return "'retired_areas' must map area IDs to {merged_into}"
    next_id = document.get("next_area_id", 1)
    if not isinstance(next_id, int) or isinstance(next_id, bool) or next_id < 1:
        return "'next_area_id' must be a positive whole number"
    return ""
