"""``.kg/MAP.md`` and ``.kg/communities/<id>.md``: the map an agent reads, then follows.

The map is layer 2's communities under layer 3's names, so it is drawn, written and cached
here, above both (``LabelledMap.update``): layer 2 returns its document and never reads a
label; the pipeline hands the document on.

The map is one table row per community, kept short enough to read whole (a few thousand
tokens for a 700-file repository): the name, the size, the main files and the strongest
outgoing edges. Each page has the rest: every member, the top symbols by in-degree, every edge
in both directions with its counts and tiers, and the lineage. Links only point at pages that
exist, so an agent following them never hits a dead end.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kgtool import __version__, bounded
from kgtool.communities.counts import describe_counts
from kgtool.communities.identity import id_number
from kgtool.config import Config
from kgtool.escape import md_cell, md_path

if TYPE_CHECKING:
    from kgtool.ontology.view import LabelView
from kgtool.store import (
    ONTOLOGY_FILE,
    PAGES_DIR,
    Store,
    canonical_json,
    file_stamp,
    write_durably,
)
from kgtool.tracked import blob_id

MAP_FILE = "MAP.md"
# In the local cache: the doc line of each main file, by blob id (see LabelledMap._doc_lines).
DOC_LINES_FILE = "map.doc_lines"
# In the local cache: what the map's files on disk were drawn from (see LabelledMap.update).
MAP_KEY_FILE = "map.key"
# In the local cache: the files whose doc lines the map reads, for the document named.
DESCRIBED_FILE = "map.described"
MAP_CACHE_VERSION = "2"  # bump when the map's keys change meaning
PAGE_NAME = re.compile(r"c[0-9]+\.md")
MAP_EDGES = 3  # outgoing edges per row in the map; the page lists them all
MAP_FILES = 3
AREA_PATHS = 40  # member paths the offline labeler reads to name an area
MAP_FAMILY_COMMUNITIES = 5  # communities shown per family in the map; pages name them all


class MapUpdate(NamedTuple):
    """What one update of the map did: the files that differ from disk (written when asked),
    pages of communities that are gone, and whether it was drawn anew (labels read, pages
    made) rather than kept."""

    changed: list[str]
    removed: list[str]
    redrawn: bool


class LabelledMap(NamedTuple):
    """The map of a repository: layer 2's document under layer 3's names."""

    root: Path
    config: Config
    store: Store

    def update(
        self,
        document: Callable[[], dict[str, Any]],
        data_digest: bytes,
        raw_digest: str,
        blobs: Callable[[], Mapping[str, str]] | None,
        write: bool,
    ) -> MapUpdate:
        """The map of ``document`` (read only to draw the map; ``data_digest``, the sha256 of
        its bytes, as layer 2 hashed them) brought up to date, and written when ``write``.
        Kept without reading a label or a file when the last run drew it from the same layer
        1 (``raw_digest``), document, labels and settings and its files are on disk as it left
        them; kept without drawing when what the drawing reads (the labels, the main files'
        doc lines, ``blobs`` naming those files' contents) is the same; drawn anew
        otherwise."""
        started = self._quick_key(data_digest, raw_digest)
        record = self._record()
        pages = self.on_disk()
        # A run that writes nothing is a check, and judges the pages by their bytes.
        digests, stats = self._digests(pages, record if write else {})
        same = record.get("pages") == digests
        if same and record.get("key") == started:
            return MapUpdate([], [], False)
        blob_ids = blobs() if blobs is not None else None
        # Most edits change layer 1 but no file the drawing reads: named by their blob ids,
        # those are what the map was last drawn from, and it is kept without a doc line read
        # or a record written (at 400 pages, a tenth of an edit's growth at 10x a monorepo).
        # Found once: a check (which keeps no record of them) found them twice.
        paths = self._described(document, data_digest, write)
        read = self._read_key(paths, data_digest, blob_ids)
        if same and read and record.get("read") == read:
            return MapUpdate([], [], False)
        version = f"{MAP_CACHE_VERSION} {__version__}".encode()
        inputs = self.inputs(document, data_digest, blob_ids, write, paths)
        drawing = hashlib.sha256(b"\0".join((version, data_digest, inputs))).hexdigest()
        kept = {"key": started, "drawing": drawing, "read": read}
        if same and record.get("drawing") == drawing:
            # What the drawing reads has not moved: the files on disk are the map.
            self._remember({**kept, "pages": digests, "stats": stats})
            return MapUpdate([], [], False)
        outputs = self.render(document())
        made = {name: hashlib.sha256(text).hexdigest() for name, text in outputs.items()}
        changed = sorted(name for name in outputs if digests.get(name) != made[name])
        removed = [name for name in pages if name not in outputs]
        if write:
            self.store.ensure()
            # Each differs from the page on disk (by digest): written together, as layer 1's
            # shards are (a page each synced in turn cost a first map of 58 pages 30 ms).
            write_durably({self.store.path(name): outputs[name] for name in changed})
            for name in removed:
                self.store.path(name).unlink(missing_ok=True)
        if write or not (changed or removed):
            # What is on disk now is exactly what this input makes: remember it for next time.
            stats = {name: file_stamp(os.fspath(self.store.path(name))) for name in sorted(made)}
            self._remember({**kept, "pages": made, "stats": stats})
        return MapUpdate(changed, removed, True)

    def _quick_key(self, data_digest: bytes, raw_digest: str) -> str:
        """What the map is a function of, named without reading it: layer 1 (the files' doc
        lines are in it), the document (the sha256 of its bytes), the labels and the
        settings."""
        # kgtool's version too: a release that draws the map otherwise draws it again.
        hasher = hashlib.sha256(f"map {MAP_CACHE_VERSION} {__version__}".encode())
        hasher.update(hashlib.sha256(raw_digest.encode()).digest())
        hasher.update(data_digest)
        for part in (self.labels(), canonical_json(self.config.values).encode()):
            hasher.update(hashlib.sha256(part).digest())
        return hasher.hexdigest()

    def _read_key(
        self, paths: list[str], data_digest: bytes, blobs: Mapping[str, str] | None
    ) -> str:
        """The quick key with the blob ids of ``paths``, the files whose doc lines the drawing
        reads, in place of layer 1's digest; "" when one has none (it is read to know its
        line)."""
        if blobs is None or not all(blobs.get(path) for path in paths):
            return ""
        named = "\0".join(f"{path}\t{blobs[path]}" for path in paths)
        return self._quick_key(data_digest, "read " + hashlib.sha256(named.encode()).hexdigest())

    def _digests(
        self, names: list[str], record: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, list[int]]]:
        """Each file's sha256 ("" for one larger than any page kgtool writes, which a pull
        request can commit: it is then not read, and never matches), and its stat. A file
        whose stat is the one ``record`` took when it remembered the file's digest keeps that
        digest unread: at hundreds of communities, reading every page cost an edit more than
        drawing the map did."""
        remembered = record.get("pages")
        remembered = remembered if isinstance(remembered, dict) else {}
        taken = record.get("stats")
        taken = taken if isinstance(taken, dict) else {}
        found, stats = {}, {}
        folder = os.fspath(self.store.dir)
        for name in names:
            stats[name] = stat = file_stamp(os.path.join(folder, name))
            digest = remembered.get(name)
            if stat and taken.get(name) == stat and isinstance(digest, str):
                found[name] = digest
                continue
            too_large = bool(stat) and stat[0] > bounded.MAX_BYTES
            data = None if too_large else self.store.read_bytes(name)
            found[name] = hashlib.sha256(data).hexdigest() if data is not None else ""
        return found, stats

    def _record(self) -> dict[str, Any]:
        """What the last run that drew the map remembered; {} when nothing."""
        return self.store.cached_record(MAP_KEY_FILE)

    def _remember(self, record: dict[str, Any]) -> None:
        self.store.keep_record(MAP_KEY_FILE, record)

    def labels(self) -> bytes:
        """The labels file as it is on disk (b"" when there is none); the settings that name
        communities are in the whole settings both keys hash."""
        return self.store.read_bytes(ONTOLOGY_FILE) or b""

    def render(self, document: dict[str, Any]) -> dict[str, bytes]:
        # Imported here: a run that finds the map up to date never reads a label.
        from kgtool.ontology.model import load_ontology
        from kgtool.ontology.view import label_view

        view = label_view(self.root, self.config, document, load_ontology(self.store))
        return render(document, view, MAP_FILE)

    def inputs(
        self,
        document: Callable[[], dict[str, Any]],
        data_digest: bytes,
        blobs: Mapping[str, str] | None = None,
        remember: bool = True,
        paths: list[str] | None = None,
    ) -> bytes:
        # The doc lines of every community's main files: those of the unlabelled ones are
        # what the offline labeler reads (label_view), and nothing else of a file's content
        # is. Not the files' blob ids: an edit below a main file's doc line, as most are,
        # leaves the map as it was. ``paths``: those files, when the caller found them.
        if paths is None:
            paths = self._described(document, data_digest, remember)
        doc_lines = self._doc_lines(paths, blobs or {}, remember)
        read = {"config": self.config.values, "doc_lines": doc_lines}
        return self.labels() + b"\0" + canonical_json(read).encode()

    def _described(
        self, document: Callable[[], dict[str, Any]], data_digest: bytes, remember: bool
    ) -> list[str]:
        """The files whose doc lines the map reads, sorted; kept by the document's digest
        (``DESCRIBED_FILE``), since most edits leave the document as it was and finding them
        reads it all."""
        # kgtool's version too: a release that chooses other files reads them at once.
        key = f"{MAP_CACHE_VERSION} {__version__} {data_digest.hex()}"
        record = self.store.cached_record(DESCRIBED_FILE)
        kept = record.get("paths")
        if (
            record.get("document") == key
            and isinstance(kept, list)
            and all(isinstance(path, str) for path in kept)
        ):
            return kept
        # Imported here, as in render: a run that finds layer 2 up to date reads only labels().
        from kgtool.ontology.facts import described_files

        communities = document()["communities"].values()
        paths = sorted({path for c in communities for path in described_files(c)})
        if remember:
            self.store.keep_record(DESCRIBED_FILE, {"document": key, "paths": paths})
        return paths

    def _doc_lines(
        self, paths: list[str], blobs: Mapping[str, str], remember: bool
    ) -> dict[str, str]:
        """Path -> doc line of each of ``paths`` that has one. A file layer 1 names by its
        blob id is read only when its blob is new to the map's cache (``DOC_LINES_FILE``,
        written when ``remember``: a run that writes nothing leaves the cache too): at
        thousands of communities, reading every main file on every edit cost more than the
        rest of layer 2."""
        remembered = self.store.cached_record(DOC_LINES_FILE)
        found: dict[str, str] = {}
        kept: dict[str, str] = {}
        for path in sorted(paths):
            blob = blobs.get(path, "")
            line = remembered.get(blob) if blob else None
            if not isinstance(line, str):
                # Imported only to read one: its patterns cost an edit 5 ms to compile.
                from kgtool.ontology.facts import doc_line

                content = bounded.read_tracked(self.root, path)
                if content is None:
                    continue
                line = doc_line(path, content)
                if blob and blob_id(content, blob) != blob:  # changed since layer 1 read it
                    blob = ""
            if blob:
                kept[blob] = line
            if line:
                found[path] = line
        if remember and kept != remembered:
            self.store.keep_record(DOC_LINES_FILE, kept)
        return found

    def on_disk(self) -> list[str]:
        # Only pages kgtool could have written: anything else in the folder is someone's own.
        try:
            listed = os.listdir(self.store.path(PAGES_DIR))
        except OSError:  # none yet, or not a folder (refused before anything is written)
            listed = []
        names = sorted(name for name in listed if PAGE_NAME.fullmatch(name))
        found = [f"{PAGES_DIR}/{name}" for name in names]
        return [MAP_FILE, *found] if self.store.path(MAP_FILE).is_file() else found


def marked(text: str, mark: str) -> str:
    """A name or phrase with what it is, when it is not a current label: never shown as fact."""
    return f"{text} ({mark})" if mark else text


def _cell(text: str) -> str:
    """Code spans in a table cell: a "|" in one would still end the cell."""
    return text.replace("|", "\\|")


def render(document: dict[str, Any], view: LabelView, map_name: str) -> dict[str, bytes]:
    """MAP.md and one page per community, by name (``map_name`` and ``communities/<id>.md``).

    Long because MAP.md is written top to bottom as one list of lines (its header, picture,
    table of code communities by area, families, then docs and data), each part a call of its
    own; what stays here is the edges sorted once per community, which the table and every
    page share."""
    from kgtool.ontology.drift import DRIFTED
    from kgtool.ontology.facts import strongest_first
    from kgtool.ontology.view import UNLABELLED

    communities: dict[str, Any] = document["communities"]
    order = sorted(communities, key=lambda cid: (-communities[cid]["size"], id_number(cid)))
    names = {cid: view.title(cid) for cid in communities}
    outgoing: dict[str, list[dict[str, Any]]] = {cid: [] for cid in communities}
    incoming: dict[str, list[dict[str, Any]]] = {cid: [] for cid in communities}
    for edge in document["edges"]:
        outgoing[edge["src"]].append(edge)
        incoming[edge["dst"]].append(edge)
    for edges in (*outgoing.values(), *incoming.values()):
        edges.sort(key=strongest_first)

    code = [cid for cid in order if communities[cid].get("kind", "code") == "code"]
    data = [cid for cid in order if cid not in code]
    areas: dict[str, Any] = document.get("areas", {})
    # One area is the whole map: its row would only repeat the table's total.
    grouped = len(areas) > 1
    from kgtool.ontology.area_names import area_names  # only a map drawn again reads them

    area_titles = {aid: f"{aid} · {name}" for aid, name in area_names(document, AREA_PATHS).items()}
    lines = [
        "# Code map",
        "",
        f"{len(document['files'])} files in {len(communities)} communities: "
        f"{_code_summary(len(code), len(areas) if grouped else 0)}, "
        f"then {len(data)} of docs and data. "
        "Generated by `kgtool update` from `.kg/communities.json`; names and phrases come "
        "from `.kg/ontology.yaml`. Edge counts are layer-1 edges between the two communities' "
        "files, by type, with their provenance tiers; each page lists them all.",
        "",
        f"({UNLABELLED}): a name kgtool made from paths and identifiers; no label has been "
        f"written yet. ({DRIFTED}): the label was written for members or edges that have "
        "changed since; treat it as a guess. `kgtool label` names both.",
        "",
        *_picture(document, area_titles if grouped else {}, names, view.marks),
        "| Community | Files | Main files | Depends on |",
        "|---|---:|---|---|",
    ]

    def row(cid: str) -> str:
        return _community_row(cid, communities[cid], names, view, outgoing[cid])

    if grouped:
        lines += _area_rows(document, area_titles, code, row)
    else:
        lines += [row(cid) for cid in code]
    lines += _families_section(document, names, view)
    if data:
        files = sum(communities[cid]["size"] for cid in data)
        lines += [
            "",
            "## Docs and data",
            "",
            f"{files} files that are not code (docs, data, fixtures, assets, manifests), "
            "grouped per package and kind.",
            "",
            "| Community | Files | Folders |",
            "|---|---:|---|",
        ]
        for cid in data:
            community = communities[cid]
            lines.append(
                f"| {_title(cid, names, view)} | {community['size']} | "
                f"{_cell(_folders(community['members']))} |"
            )
    outputs = {map_name: ("\n".join(lines) + "\n").encode("utf-8")}
    merged_here: dict[str, list[str]] = {}
    for old, info in document.get("retired", {}).items():
        heir = info.get("merged_into")
        if heir in communities:
            merged_here.setdefault(heir, []).append(old)
    for cid in communities:
        page = _page(
            cid,
            communities,
            names,
            view,
            outgoing[cid],
            incoming[cid],
            merged_here,
            map_name,
        )
        page = _with_area(page, communities[cid].get("area"), area_titles, map_name)
        page += _page_families(cid, document, map_name)
        outputs[f"{PAGES_DIR}/{cid}.md"] = page.encode("utf-8")
    return outputs


def _picture(
    document: dict[str, Any],
    area_titles: dict[str, str],
    names: dict[str, str],
    marks: Mapping[str, str],
) -> list[str]:
    """The map as a picture (``diagram.areas_flowchart``), then a blank line; nothing for a
    map of a single box."""
    from kgtool.ontology.diagram import areas_flowchart

    lines = areas_flowchart(document, area_titles, names, dict(marks))
    return [*lines, ""] if lines else []


def _community_row(
    cid: str,
    community: dict[str, Any],
    names: dict[str, str],
    view: LabelView,
    outgoing: list[dict[str, Any]],
) -> str:
    main = ", ".join(md_path(p) for p, _ in community["main_files"][:MAP_FILES])
    if not main:
        main = ", ".join(md_path(p) for p in community["members"][:MAP_FILES])
    deps = "; ".join(
        f"[{e['dst']}]({PAGES_DIR}/{e['dst']}.md) {_phrase(e, view)}"
        + describe_counts(e["types"]).split(" (")[0]
        for e in outgoing[:MAP_EDGES]
    )
    more = len(outgoing) - MAP_EDGES
    if more > 0:
        deps += f"; {more} more"
    return f"| {_title(cid, names, view)} | {community['size']} | {_cell(main)} | {deps or '—'} |"


def _code_summary(code: int, areas: int) -> str:
    if not areas:
        return f"{code} of code, largest first"
    return (
        f"{code} of code in {areas} areas (a package, or a group of closely coupled "
        "communities), each area's row followed by its communities, largest first"
    )


def _area_rows(
    document: dict[str, Any],
    titles: dict[str, str],
    code: list[str],
    row: Callable[[str], str],
) -> list[str]:
    """The code table grouped by area: an area's row (its package, its communities, the areas
    it depends on most), then its communities' rows in map order."""
    areas: dict[str, Any] = document["areas"]
    communities: dict[str, Any] = document["communities"]
    area_of = {cid: communities[cid].get("area") for cid in code}
    between: dict[tuple[str, str], int] = {}
    for edge in document["edges"]:
        a, b = area_of.get(edge["src"]), area_of.get(edge["dst"])
        if a and b and a != b:
            between[(a, b)] = between.get((a, b), 0) + int(edge["total"])
    lines = []
    for aid in sorted(areas, key=lambda a: (-areas[a]["size"], id_number(a))):
        area = areas[aid]
        where = f"package {_cell(md_path(area['package']))}, " if area["package"] else ""
        if not area["package"] and document["settings"].get("boundaries"):
            where = "outside packages, "
        count = len(area["communities"])
        deps = sorted(
            ((-total, id_number(b), b) for (a, b), total in between.items() if a == aid),
        )
        shown = "; ".join(f"{b} ×{-total}" for total, _, b in deps[:MAP_EDGES])
        if len(deps) > MAP_EDGES:
            shown += f"; {len(deps) - MAP_EDGES} more"
        files = [p for cid in area["communities"] for p in communities[cid]["members"]]
        lines.append(
            f"| **{md_cell(titles[aid])}** ({where}{count} "
            f"{'community' if count == 1 else 'communities'}) | **{area['size']}** | "
            f"{_cell(_folders(files))} | {shown or '—'} |"
        )
        lines += [row(cid) for cid in code if area_of[cid] == aid]
    return lines


def _with_area(page: str, aid: str | None, titles: dict[str, str], map_name: str) -> str:
    """A community page names its area under the size line (docs and data have none; nor
    has a map of one area)."""
    if not aid or aid not in titles or len(titles) < 2:
        return page
    marker = f" · [back to the map](../{map_name})\n"
    return page.replace(marker, f"{marker}Area: {md_cell(titles[aid])}.\n", 1)


def _families_section(
    document: dict[str, Any], names: dict[str, str], view: LabelView
) -> list[str]:
    """MAP.md's list of families (files of one folder deriving from one base), or nothing."""
    families = document.get("families", [])
    if not families:
        return []
    lines = [
        "",
        "## Families",
        "",
        "Files of one folder that each derive from the same base (plugins, providers, "
        "commands), with the tests that target one of them. A family lies across the "
        "communities its files are clustered in, the fullest first.",
        "",
        "| Family | Base | Files | Communities |",
        "|---|---|---:|---|",
    ]
    for family in families:
        tests = len(family["tests"])
        size = f"{len(family['members'])}" + (f" + {tests} tests" if tests else "")
        held = _family_communities(family, document["files"])
        shown = ", ".join(
            f"{_title(cid, names, view)} ({count})" for cid, count in held[:MAP_FAMILY_COMMUNITIES]
        )
        more = len(held) - MAP_FAMILY_COMMUNITIES
        if more > 0:
            shown += f"; {more} more"
        base = _cell(md_path(family["base"]))
        lines.append(f"| {md_cell(family['name'])} | {base} | {size} | {shown} |")
    return lines


def _family_communities(family: dict[str, Any], files: dict[str, str]) -> list[tuple[str, int]]:
    """The communities a family's files are in, with how many: the fullest first."""
    counts: dict[str, int] = {}
    for path in (*family["members"], *family["tests"]):
        counts[files[path]] = counts.get(files[path], 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], id_number(item[0])))


def _page_families(cid: str, document: dict[str, Any], map_name: str) -> str:
    """A community page's note of the families its files belong to, or ""."""
    lines = []
    for family in document.get("families", []):
        held = dict(_family_communities(family, document["files"]))
        if cid not in held:
            continue
        # Neither the family's total nor its other communities: one plugin added would
        # rewrite the page of every community the family lies across. The map lists them.
        where = (
            f"; the other communities it lies across are on [the map](../{map_name}#families)"
            if len(held) > 1
            else ""
        )
        lines.append(
            f"- {md_cell(family['name'])} (base {md_path(family['base'])}): {held[cid]} of its "
            f"files are here{where}"
        )
    if not lines:
        return ""
    return "\n## Families\n\n" + "\n".join(lines) + "\n"


def _title(cid: str, names: dict[str, str], view: LabelView) -> str:
    title = f"[{cid} · {md_cell(names[cid])}]({PAGES_DIR}/{cid}.md)"
    return f"{title} ({view.marks[cid]})" if view.marks.get(cid) else title


def _folders(members: list[str]) -> str:
    """The folders a data community's files are in, the fullest first (at most MAP_FILES)."""
    counts: dict[str, int] = {}
    for path in members:
        folder = path.rpartition("/")[0] or "."
        counts[folder] = counts.get(folder, 0) + 1
    ranked = sorted(counts, key=lambda folder: (-counts[folder], folder))
    shown = ", ".join(md_path(f"{folder}/") for folder in ranked[:MAP_FILES])
    more = len(ranked) - MAP_FILES
    return f"{shown}; {more} more" if more > 0 else shown


def _phrase(edge: dict[str, Any], view: LabelView) -> str:
    from kgtool.ontology.items import edge_key  # loaded with the view already

    key = edge_key(edge["src"], edge["dst"])
    phrase = view.phrases.get(key)
    if not phrase:
        return ""
    return f"{md_cell(marked(phrase, view.phrase_marks.get(key, '')))}: "


def _link(cid: str, communities: dict[str, Any], names: dict[str, str]) -> str:
    if cid in communities:
        return f"[{cid} · {md_cell(names[cid])}]({cid}.md)"
    return f"{cid} (retired)"


def _page(
    cid: str,
    communities: dict[str, Any],
    names: dict[str, str],
    view: LabelView,
    outgoing: list[dict[str, Any]],
    incoming: list[dict[str, Any]],
    merged_here: dict[str, list[str]],
    map_name: str,
) -> str:
    from kgtool.ontology.view import UNLABELLED

    community = communities[cid]
    lines = [f"# {cid} · {md_cell(names[cid])}", ""]
    mark = view.marks.get(cid)
    if mark == UNLABELLED:
        lines += [
            "Unlabelled: kgtool made this name and summary from paths, identifiers and "
            "docstrings; `kgtool label` writes a label.",
            "",
        ]
    elif mark:
        why = view.drift_reasons.get(cid, "")
        lines += [
            f"Drifted: this label was written for a community that has changed ({why}). "
            f"Treat it as a guess until `kgtool label` rewrites it or a person confirms it "
            f"(`kgtool label --accept {cid}`).",
            "",
        ]
    if view.summaries.get(cid):
        lines += [md_cell(view.summaries[cid]), ""]
    lines.append(f"{community['size']} files · [back to the map](../{map_name})")
    if community.get("split_from"):
        lines.append(f"Split from {_link(community['split_from'], communities, names)}.")
    if merged_here.get(cid):
        merged = ", ".join(sorted(merged_here[cid], key=id_number))
        lines.append(f"Absorbed retired communities: {merged}.")
    from kgtool.ontology.diagram import neighbourhood_flowchart

    picture = neighbourhood_flowchart(cid, names, outgoing, incoming, dict(view.marks))
    if picture:
        lines += ["", "## Neighbourhood", "", *picture]
    if community["main_files"]:
        lines += ["", "## Main files (edges in from other files)", ""]
        lines += [f"- {md_path(path)} ({count})" for path, count in community["main_files"]]
    if community["top_symbols"]:
        lines += ["", "## Top symbols (in-degree)", ""]
        lines += [f"- {md_path(symbol)} ({count})" for symbol, count in community["top_symbols"]]
    for title, edges, key in (("Depends on", outgoing, "dst"), ("Used by", incoming, "src")):
        if edges:
            lines += ["", f"## {title}", ""]
            lines += [
                f"- {_link(e[key], communities, names)}: {_phrase(e, view)}"
                f"{describe_counts(e['types'])}"
                for e in edges
            ]
    lines += ["", "## Files", ""]
    lines += [f"- {md_path(path)}" for path in community["members"]]
    return "\n".join(lines) + "\n"
