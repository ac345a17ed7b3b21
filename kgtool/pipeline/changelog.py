"""The architecture changelog between two revisions.

A revision's layer 2 is its committed ``.kg/communities.json`` when it has one; otherwise it
is built in a temporary worktree. A side built that way is warm-started from the other side's
document, so that both use one set of community IDs and the changelog compares like with like.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from kgtool.communities.build import COMMUNITIES_FILE, parse_document, update_communities
from kgtool.communities.diff import compare
from kgtool.config import load_config
from kgtool.ontology.area_names import area_names
from kgtool.ontology.changes import label_changes
from kgtool.ontology.map import AREA_PATHS
from kgtool.ontology.model import Ontology, load_ontology, parse_ontology
from kgtool.ontology.view import label_view
from kgtool.pipeline.context import Context
from kgtool.raw.build import update_raw
from kgtool.repo import default_branch, merge_base, renames_between, show_file, temporary_worktree
from kgtool.store import CACHE_HOME, KG_DIR, ONTOLOGY_FILE, Store, atomic_write, pretty_json

WORKING_TREE = "working tree"


def changelog(
    ctx: Context, base: str, head: str | None, head_doc: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The changelog report from commit ``base`` to commit ``head`` (None: the working tree,
    whose layer 2 is ``head_doc`` when the caller already knows it), label changes included."""
    base_doc = _committed(ctx.root, base)
    if head is None:
        if head_doc is None:
            with ctx.store.lock():
                raw = update_raw(ctx.root, ctx.config, ctx.store, write=False)
                head_doc = update_communities(
                    ctx.root, ctx.config, ctx.store, raw, write=False
                ).document
    else:
        head_doc = _committed(ctx.root, head)
        if head_doc is None:
            head_doc = build_at(ctx.root, ctx.store, head, base_doc)
    if base_doc is None:
        base_doc = build_at(ctx.root, ctx.store, base, head_doc)

    section = ctx.config.section("communities")
    base_labels = _committed_labels(ctx.root, base) or Ontology()
    head_labels = load_ontology(ctx.store) if head is None else _committed_labels(ctx.root, head)
    head_labels = head_labels or Ontology()
    base_view = label_view(ctx.root, ctx.config, base_doc, base_labels)
    head_view = label_view(ctx.root, ctx.config, head_doc, head_labels)
    names = {**base_view.names, **head_view.names}
    names.update({**area_names(base_doc, AREA_PATHS), **area_names(head_doc, AREA_PATHS)})
    report = compare(
        base_doc,
        head_doc,
        float(section["diff_change"]),
        int(section["diff_min_edges"]),
        names,
        renames_between(ctx.root, base, head),
    )
    report["labels"] = label_changes(base_labels, head_labels, head_view.report)
    return report


def default_base(root: Path) -> str:
    """The merge base of HEAD with the default branch; HEAD itself when there is none."""
    branch = default_branch(root)
    found = merge_base(root, "HEAD", branch) if branch else None
    return found or "HEAD"


def _committed(root: Path, revision: str) -> dict[str, Any] | None:
    data = show_file(root, revision, f"{KG_DIR}/{COMMUNITIES_FILE}")
    if data is None:
        return None
    return parse_document(data, f"{revision[:12]}:{KG_DIR}/{COMMUNITIES_FILE}")


def _committed_labels(root: Path, revision: str) -> Ontology | None:
    data = show_file(root, revision, f"{KG_DIR}/{ONTOLOGY_FILE}")
    if data is None:
        return None
    return parse_ontology(data, f"{revision[:12]}:{KG_DIR}/{ONTOLOGY_FILE}")


def build_at(
    root: Path, store: Store, revision: str, warm: dict[str, Any] | None
) -> dict[str, Any]:
    """Layers 1 and 2 of ``revision``, built in a temporary worktree that is then removed."""
    with temporary_worktree(root, revision) as tree:
        # The cache beside the checkout, in its temp folder: removed with it even after a
        # SIGKILL. Its own (the worktree's git directory, in .git/worktrees/) outlives a
        # reboot that empties the temp folder.
        tree_store = Store(tree, cache_dir=tree.parent / CACHE_HOME)
        tree_store.ensure()
        if store.cache_dir.is_dir():
            # Layer 1 keys its cache by blob id, so files the revisions share are not parsed
            # again; the cache checks itself, so a copy can only save work.
            shutil.copytree(store.cache_dir, tree_store.cache_dir, dirs_exist_ok=True)
        if warm is not None:
            atomic_write(tree_store.path(COMMUNITIES_FILE), pretty_json(warm).encode("utf-8"))
        config = load_config(tree)
        raw = update_raw(tree, config, tree_store, write=True)
        return update_communities(tree, config, tree_store, raw, write=False).document
