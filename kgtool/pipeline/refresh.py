"""Layers 1 and 2 (and the map) brought up to date with the files, and what is wrong with
them: stale layers (R101, C201), broken imports (R102), partly parsed files (R103-R105),
skipped files (R106, R107), a tracked cache (R108), unreadable manifests (C202)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from kgtool.communities.build import COMMUNITIES_FILE, CommunitiesResult, update_communities
from kgtool.escape import printable
from kgtool.findings import ERROR, NOTE, WARNING, Finding, kept
from kgtool.ontology.map import MapUpdate
from kgtool.pipeline.context import Context
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.raw.dependencies import declared, is_declared
from kgtool.raw.graph import WHERE as RAW_WHERE
from kgtool.raw.graph import digest_on_disk
from kgtool.raw.model import MAX_DEPTH, PARTIAL_GRAMMAR, PARTIAL_TOO_DEEP
from kgtool.store import KG_DIR, ONTOLOGY_FILE

RAW_STALE = "R101"
BROKEN_IMPORT = "R102"
PARTIAL_CODES = {"": "R103", PARTIAL_GRAMMAR: "R104", PARTIAL_TOO_DEEP: "R105"}
SKIPPED = "R106"
BAD_NAME = "R107"
TRACKED_CACHE = "R108"
COMMUNITIES_STALE = "C201"
UNREAD_MANIFEST = "C202"
STALE_NAMED = 5  # source files R101 names before it counts the rest


class Layer2AndMap(NamedTuple):
    """Layer 2 as ``update_communities`` left it and the map drawn over it (layer 3's), which
    a refresh reports as one: the files of both that changed."""

    communities: CommunitiesResult
    drawn: MapUpdate

    @property
    def document(self) -> dict[str, Any]:
        return self.communities.document

    @property
    def changed(self) -> list[str]:
        """Names under .kg/ that differ from disk (written when asked), sorted."""
        return sorted([*self.communities.changed, *self.drawn.changed])

    @property
    def removed(self) -> list[str]:
        """Pages of communities that are gone."""
        return self.drawn.removed

    @property
    def stale(self) -> bool:
        return bool(self.changed or self.removed)


def stale_findings(
    ctx: Context, raw: UpdateResult | None, layer2: Layer2AndMap | None
) -> list[Finding]:
    """Errors for the layers on disk that differ from what ``kgtool update`` writes now: one
    line when there is no .kg/ at all (a fresh clone of a repository that never ran kgtool)."""
    found: list[Finding] = []
    raw_stale, layer2_stale = raw is not None and raw.changed, layer2 is not None and layer2.stale
    if not (raw_stale or layer2_stale):
        return found
    absent = not os.path.lexists(ctx.store.path(COMMUNITIES_FILE))
    if absent and not (ctx.store.dir / "raw").is_dir():
        message = "does not exist: run `kgtool update` to build it"
        return [Finding(f"{KG_DIR}/", 0, ERROR, RAW_STALE, message)] if raw_stale else found
    if raw is not None and raw.changed:
        found.append(Finding(RAW_WHERE, 0, ERROR, RAW_STALE, _raw_stale_message(ctx)))
    if layer2 is not None and layer2.stale:
        # communities.json first: the map's pages follow from it.
        names = sorted([*layer2.changed, *layer2.removed], key=lambda n: n != COMMUNITIES_FILE)
        first, *others = [f"{KG_DIR}/{n}" for n in names]
        also = f" (and {', '.join(others)})" if others else ""
        found.append(
            Finding(
                first, 0, ERROR, COMMUNITIES_STALE, f"is out of date{also}: run `kgtool update`"
            )
        )
    return found


def _raw_stale_message(ctx: Context) -> str:
    """What R101 says: the files that changed since layer 1 was built (up to STALE_NAMED,
    then how many more), or that it was built by another kgtool or other settings."""
    # Imported here: only a stale check reads layer 1's file nodes.
    from kgtool.playbook.layer1 import load_layer1

    view = load_layer1(ctx.root, ctx.config, ctx.store)
    if not view.raw_present:
        return "does not exist or cannot be read: run `kgtool update`"
    changed = sorted(set(view.stale_files) | (set(view.raw_hashes) - set(view.files)))
    if not changed:
        return "is out of date (built by another kgtool version or settings): run `kgtool update`"
    named = ", ".join(printable(path) for path in changed[:STALE_NAMED])
    more = f" and {len(changed) - STALE_NAMED} more" if len(changed) > STALE_NAMED else ""
    return f"is out of date: {named}{more} changed since it was built: run `kgtool update`"


def refresh(
    ctx: Context, write: bool = True, rebaseline: bool = False
) -> tuple[UpdateResult, Layer2AndMap]:
    """Layers 1 and 2 (and the map) brought up to date with the files; the caller holds the
    lock."""
    if write:
        ctx.store.ensure()  # also brings an older kgtool's .kg/.gitignore up to date
        ctx.store.remove_stray_temps()
    result = update_raw(ctx.root, ctx.config, ctx.store, write=write)
    return result, layer2_from(ctx, result, write, rebaseline)


def layer2_from(
    ctx: Context, raw: UpdateResult | None, write: bool, rebaseline: bool = False
) -> Layer2AndMap:
    """Layer 2 as it follows from layer 1 as ``raw`` has it (None: layer 1 on disk), and the
    map drawn over it."""
    layer2 = update_communities(ctx.root, ctx.config, ctx.store, raw, write, rebaseline)
    digest = raw.digest if raw is not None else digest_on_disk(ctx.store)
    blobs = raw.blob_ids if raw is not None else None  # read only when the map is redrawn
    return Layer2AndMap(
        layer2, ctx.map.update(lambda: layer2.document, layer2.digest, digest, blobs, write)
    )


def drifted_labels(ctx: Context, layer2: Layer2AndMap) -> int:
    """How many labels drifted, those the setting ``ignore`` silences left out (layer 2's
    document is read only when there are labels)."""
    if ctx.store.read_bytes(ONTOLOGY_FILE) is None:
        return 0
    document = layer2.document
    # Imported here: most repositories have no labels, and a run with none never needs them.
    from kgtool.ontology.drift import drift_findings
    from kgtool.ontology.model import WHERE, load_ontology
    from kgtool.ontology.view import report_for

    report = report_for(document, load_ontology(ctx.store), ctx.config)
    return len(kept(drift_findings(report, WHERE), ctx.config["ignore"]))


def problems(
    result: UpdateResult, layer2: Layer2AndMap | None = None, root: Path | None = None
) -> list[Finding]:
    """What the user should fix: broken imports of the repository's own code, and files
    whose syntax errors (or the parser's limits) cost part of their graph.

    Skipped files (binary, too large, ...) are not problems (see ``notes``): they are
    expected and would fill every commit's output. Nor is an import of a package the
    manifests under ``root`` declare (``kgtool.raw.dependencies``): a folder of the
    repository may share its name.
    """
    found = tracked_cache_findings(result)
    if layer2 is not None:
        found += unread_manifest_findings(layer2)
    broken = result.broken_imports
    # A relative import names the repository's own files: no manifest is read for those.
    relative = all(item[2].startswith(".") for item in broken)
    if not relative and root is not None and layer2 is not None:
        names = declared(root, layer2.document.get("files", {}))
        broken = [item for item in broken if not is_declared(item[2], names)]
    found += [
        Finding(
            path,
            line,
            WARNING,
            BROKEN_IMPORT,
            f"broken import '{module}': it names this repository's own code, which has no "
            "such module",
        )
        for path, line, module in broken
    ]
    for path, error_lines, reason in result.partial:
        line = error_lines[0] if error_lines and reason != PARTIAL_TOO_DEEP else 0
        cause = _partial_cause(error_lines, reason)
        found.append(
            Finding(path, line, WARNING, PARTIAL_CODES[reason], f"partially parsed: {cause}")
        )
    return found


def unread_manifest_findings(layer2: Layer2AndMap) -> list[Finding]:
    """A workspace manifest kgtool could not read (invalid, nested too deep, ...): the
    packages it declares are not boundaries of the map until it is fixed."""
    return [
        Finding(
            path,
            line,
            WARNING,
            UNREAD_MANIFEST,
            f"{why}: the packages it declares are not used as boundaries of the map",
        )
        for path, line, why in layer2.communities.unread
    ]


def tracked_cache_findings(result: UpdateResult) -> list[Finding]:
    """One error for every file git tracks under .kg/cache/: kgtool's cache lives in the git
    directory and never in a checkout, so such files can only pose as it (a pull request's
    forged manifest). They are not read; the finding says so, and how to drop them."""
    if not result.tracked_cache:
        return []
    count = len(result.tracked_cache)
    return [
        Finding(
            result.tracked_cache[0],
            0,
            ERROR,
            TRACKED_CACHE,
            f"{count} file(s) under {KG_DIR}/cache/ are tracked by git; kgtool never reads "
            "them (its cache is local, in the git directory): remove them with "
            f"`git rm -r --cached {KG_DIR}/cache`",
        )
    ]


def notes(result: UpdateResult) -> list[Finding]:
    """Files the graph holds no symbols of, by design: skipped, or left out."""
    found = [
        Finding(path, 0, NOTE, SKIPPED, f"skipped ({reason})") for path, reason in result.skipped
    ]
    found += [
        Finding("", 0, NOTE, BAD_NAME, f"left out (file name is not UTF-8): {name}")
        for name in result.bad_names
    ]
    return found


def _partial_cause(error_lines: list[int], reason: str) -> str:
    if reason == PARTIAL_TOO_DEEP:
        return f"nested more than {MAX_DEPTH:,} levels deep; the deeper part is not read"
    where = ", ".join(str(n) for n in error_lines[:5])
    if reason == PARTIAL_GRAMMAR:
        return (
            f"parser limitation at line {where}, not a syntax error: the bundled grammar "
            'cannot read import("…").T<…> types'
        )
    return f"syntax errors at line {where}"
