"""``kgtool map --html``: the map as one self-contained, interactive HTML page.

The page is plain SVG and a few hundred lines of script and style shipped in this package
(``map_page.js``, ``map_page.css``), inlined: it needs no network when it is viewed, and no
graph library to vendor, licence or keep up to date. A treemap is the picture: it shows
sizes at a glance, nests (areas hold communities, communities hold files) and stays readable
at thousands of files, because each view draws one level and its children only. Arrows (the
typed edge counts, as MAP.md's picture words them) are drawn for the box under the pointer.

What the page shows is what ``kgtool explain`` would say: names with their marks (an
unlabelled or drifted name is never shown as fact), summaries, typed counts in both
directions, a file's symbols with their lines. With a base revision, the files that differ
from it are coloured, and the communities and areas holding them.

Everything on the page comes from the repository, so the data is JSON inside a
``<script type="application/json">`` with ``<``, ``>`` and ``&`` escaped (nothing in it can
end the element), and the script writes text with ``textContent`` only, never as markup.
The same ``.kg/``, options and checkout give the same bytes (the page's title is the
checkout's folder name).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from kgtool.communities.identity import id_number
from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.escape import printable
from kgtool.globs import valid_name
from kgtool.ontology.area_names import area_names
from kgtool.ontology.diagram import arrow_text
from kgtool.ontology.map import AREA_PATHS, MAP_FILE
from kgtool.query.kg import MapState, load_map, missing_notice
from kgtool.query.labels import Labels
from kgtool.repo import differing_statuses, resolve_commit
from kgtool.store import KG_DIR, Store, atomic_write

DATA_AREA = "data"  # the pseudo area of the docs and data communities
WHOLE = "all"  # the pseudo area of a map with one area or none
# git's status letters, as the page words them.
CHANGE_WORDS = {"A": "added", "M": "modified", "R": "renamed", "C": "copied", "T": "modified"}


class PageDiff(NamedTuple):
    """What a change touched, for ``--diff BASE``: path -> git's status letter."""

    base: str  # the revision as the user gave it, and its commit
    commit: str
    statuses: dict[str, str]


def page_data(state: MapState, title: str, diff: PageDiff | None = None) -> dict[str, Any]:
    """What the page draws, as JSON-ready data (every list in a fixed order)."""
    document = state.document
    assert document is not None
    communities: dict[str, Any] = document["communities"]
    labels = Labels(state)
    file_lines = state.file_lines
    paths = sorted(document["files"])
    index = {path: i for i, path in enumerate(paths)}

    # Sizes are counted from the members: a box drawn from a "size" the file states would be
    # whatever a hand-edited (or hostile) communities.json says, zero and negative included.
    held = {
        cid: sorted(
            (p for p in set(c["members"]) if p in index), key=lambda p: (-file_lines.get(p, 0), p)
        )
        for cid, c in communities.items()
    }

    def size_order(cid: str) -> tuple[int, int]:
        return (-len(held[cid]), id_number(cid))

    shown: dict[str, Any] = {}
    for cid in sorted(communities, key=id_number):
        community = communities[cid]
        text = labels.text(cid)
        members = held[cid]
        shown[cid] = {
            "name": text.name or cid,
            "mark": text.mark,
            "why": text.why,
            "summary": text.summary,
            "files": [index[p] for p in members],
            "main": [path for path, _ in community.get("main_files", [])[:5]],
        }
    areas = _areas(document, size_order)
    symbols = [
        [index[path], symbol.qualname, symbol.line]
        for path in paths
        for symbol in state.symbols.get(path, ())
    ]
    page: dict[str, Any] = {
        "title": title,
        "notice": state.stale,
        "areas": areas,
        "communities": shown,
        "edges": _edges(document, set(communities)),
        "paths": paths,
        "lines": [int(file_lines.get(path, 0)) for path in paths],
        "symbols": symbols,
        "diff": None,
    }
    if diff is not None:
        # kgtool's own output is not the change; a name that is not UTF-8 (git hands it over
        # as it is) has no place in the map either, as layer 1 leaves such files out.
        changed = {
            path: letter[:1]
            for path, letter in diff.statuses.items()
            if not path.startswith(f"{KG_DIR}/") and valid_name(path)
        }
        page["diff"] = {
            "base": printable(diff.base),
            "commit": diff.commit[:12],
            "files": {
                str(index[path]): CHANGE_WORDS.get(letter, "modified")
                for path, letter in sorted(changed.items())
                if path in index and letter != "D"
            },
            "gone": sorted(path for path, letter in changed.items() if letter == "D"),
            # Files the map leaves out (excluded by the settings) that changed.
            "outside": sorted(
                path for path, letter in changed.items() if letter != "D" and path not in index
            ),
        }
    return page


def _areas(
    document: dict[str, Any], size_order: Callable[[str], tuple[int, int]]
) -> list[dict[str, Any]]:
    """The boxes of the overview: the areas when there are several, else one box of all the
    code; then one of the docs and data, largest first inside each."""
    communities: dict[str, Any] = document["communities"]
    code = sorted(
        (cid for cid, c in communities.items() if c.get("kind", "code") == "code"),
        key=size_order,
    )
    data = sorted((cid for cid in communities if cid not in code), key=size_order)
    areas: dict[str, Any] = document.get("areas", {})
    boxes: list[dict[str, Any]] = []
    if len(areas) > 1:
        names = area_names(document, AREA_PATHS)
        for aid in sorted(areas, key=lambda a: (-int(areas[a]["size"]), id_number(a))):
            area = areas[aid]
            members = sorted(area["communities"], key=size_order)
            boxes.append(
                {
                    "id": aid,
                    "name": names.get(aid, aid),
                    "package": area.get("package", ""),
                    "communities": [cid for cid in members if cid in code],
                }
            )
        placed = {cid for box in boxes for cid in box["communities"]}
        loose = [cid for cid in code if cid not in placed]
        if loose:
            boxes.append({"id": WHOLE, "name": "other code", "package": "", "communities": loose})
    elif code:
        # One area (or none) is the whole code: the page opens on its communities.
        only = next(iter(areas), WHOLE)
        boxes.append({"id": only, "name": "code", "package": "", "communities": code})
    if data:
        boxes.append({"id": DATA_AREA, "name": "docs and data", "package": "", "communities": data})
    return boxes


def _edges(document: dict[str, Any], known: set[str]) -> list[list[Any]]:
    """[src, dst, the typed counts in words, total] per pair of ``known`` communities,
    strongest first (an edge naming a community the file does not hold is left out)."""
    rows = []
    for edge in document.get("edges", []):
        words = arrow_text(edge["types"])
        if edge["src"] == edge["dst"] or not words or not {edge["src"], edge["dst"]} <= known:
            continue
        rows.append([edge["src"], edge["dst"], words, int(edge["total"])])
    return sorted(rows, key=lambda r: (-r[3], id_number(r[0]), id_number(r[1])))


def _script_json(value: Any) -> str:
    """``value`` as JSON that nothing can end a ``<script>`` element with, in fixed bytes."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for char, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escaped)
    # Line and paragraph separators are JSON but end a line of script in old engines.
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _asset(name: str) -> str:
    return resources.files("kgtool.query").joinpath(name).read_text(encoding="utf-8")


def render_page(page: dict[str, Any]) -> bytes:
    """The whole page: markup, style, data and script in one file."""
    escaped = html.escape(page["title"], quote=False)
    text = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # No network, ever: a page opened from disk loads nothing from anywhere else.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{escaped} · code map</title>\n"
        f"<style>\n{_asset('map_page.css')}</style>\n"
        "</head>\n<body>\n"
        f"{_asset('map_page.html')}"
        f'<script type="application/json" id="kg-data">{_script_json(page)}</script>\n'
        f"<script>\n{_asset('map_page.js')}</script>\n"
        "</body>\n</html>\n"
    )
    return text.encode("utf-8")


MERMAID_OPEN = "```mermaid"


class WrittenPage(NamedTuple):
    """What ``write_page`` wrote, for the command to say."""

    path: Path
    size: int  # bytes
    files: int
    communities: int
    stale: str  # the one-line notice when .kg/ is older than the working tree, or ""


def write_page(
    root: Path, config: Config, store: Store, out: Path, base: str | None = None
) -> WrittenPage:
    """The page of the map under ``.kg/``, written to ``out``; with ``base``, what differs
    between it and the working tree is coloured. A one-line error when ``.kg/`` cannot be
    read or ``out`` is a folder."""
    if out.is_dir():
        raise KgError(f"--out {out} is a folder: name the file to write")
    state = load_map(root, config, store, indexed=True)
    if state.missing:
        raise KgError(missing_notice(state.missing))
    if state.document is None or not state.raw_present:  # layer 1 damaged: said, no page
        raise KgError(next(iter(state.notices), f"{KG_DIR}/ cannot be read: run `kgtool update`"))
    diff = None
    if base is not None:
        commit = resolve_commit(root, base)
        diff = PageDiff(base, commit, differing_statuses(root, commit))
    page = render_page(page_data(state, printable(root.name), diff))
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, page, durable=False)
    return WrittenPage(out, len(page), len(state.community_of), len(state.communities), state.stale)


def mermaid_picture(store: Store) -> str:
    """The Mermaid block that opens MAP.md, fences included; "" when it has none."""
    data = store.read_bytes(MAP_FILE)
    if data is None:
        raise KgError(missing_notice([f"{KG_DIR}/{MAP_FILE}"]))
    lines = data.decode("utf-8", "replace").split("\n")
    if MERMAID_OPEN not in lines:
        return ""
    start = lines.index(MERMAID_OPEN)
    end = next((i for i in range(start + 1, len(lines)) if lines[i] == "```"), None)
    return "" if end is None else "\n".join(lines[start : end + 1]) + "\n"
