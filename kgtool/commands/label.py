"""``kgtool label``: name what is unnamed or drifted in layer 3, or record a person's word.

The only writer of ``.kg/ontology.yaml`` besides people. It first refreshes layers 1 and 2
(as ``kgtool update`` does), so labels are written against the map as it is. The labeler runs
outside the lock: a slow API must not block a commit hook for a minute. Before writing, the
files it read are compared with the files on disk; a run that raced another writer stops
with nothing written.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.communities.document import read_document_bytes
from kgtool.errors import KgError
from kgtool.ontology.items import LabelBatch, Labeler, LabelerError
from kgtool.ontology.label import (
    LabelPlan,
    accept,
    apply_batch,
    plan_labels,
    rename_edges,
    retire_gone,
    set_label,
)
from kgtool.ontology.model import (
    WHERE,
    Ontology,
    dump_ontology,
    load_ontology,
    parse_ontology,
)
from kgtool.ontology.offline import OfflineLabeler
from kgtool.pipeline.context import Context
from kgtool.pipeline.refresh import layer2_from, refresh
from kgtool.repo import head_commit
from kgtool.store import ONTOLOGY_FILE

if TYPE_CHECKING:
    from kgtool.ontology.llm import ClaudeLabeler

EXIT_PARTIAL = 1  # some items could not be labelled; the rest were written

DESCRIPTION = """\
Names the communities of .kg/MAP.md and phrases the strongest edges between them, writing
.kg/ontology.yaml (and the map, which shows the names). Only what is unlabelled or drifted is
labelled; labels people wrote are never overwritten, only flagged. First refreshes layers 1
and 2 as `kgtool update` does. With ANTHROPIC_API_KEY set, Claude writes the labels (see the
'ontology' settings; needs the llm extra, see docs/install.md); otherwise, or with
--offline, kgtool's own deterministic labeler. -q prints only problems."""

EXAMPLES = [
    ("kgtool label", "label what is missing or drifted"),
    ("kgtool label --dry-run", "show what would be sent, and its size, without sending"),
    ("kgtool label --accept c7", "a person confirms c7's label is still right"),
    ('kgtool label --set c7 "Session storage" --summary "Keeps sessions on disk."', ""),
]

EXIT_CODES = [
    (EXIT_OK, "done"),
    (EXIT_PARTIAL, "some items could not be labelled (the rest were written)"),
    (LabelerError.exit_code, "the labeler failed (no label was changed)"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "label", COMMANDS["label"], DESCRIPTION, EXAMPLES, EXIT_CODES
    )
    parser.add_argument(
        "--offline", action="store_true", help="use kgtool's own labeler: no network, no key"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing: list the items and what a request to the API would contain",
    )
    parser.add_argument(
        "--relabel",
        action="store_true",
        help="also rewrite labels that are not drifted (never human ones), e.g. offline ones",
    )
    parser.add_argument(
        "--accept",
        action="append",
        metavar="ID",
        default=[],
        help="confirm the label of ID (c7, or c7->c6 for a phrase): keep its text, "
        "record today's evidence; may be repeated",
    )
    parser.add_argument(
        "--set",
        nargs=2,
        metavar=("ID", "TEXT"),
        help="write a human label: a name for c7, or a phrase for c7->c6",
    )
    parser.add_argument("--summary", help="with --set on a community: its one-sentence summary")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    if args.summary is not None and (not args.set or "->" in args.set[0]):
        raise KgError("--summary goes with --set on a community (kgtool label --set c7 NAME)")
    with ctx.store.lock():
        document = refresh(ctx)[1].document
        before = _snapshot(ctx)
        ontology = load_ontology(ctx.store)
        at = head_commit(ctx.root)[:12]
        if args.accept or args.set:
            return _by_hand(ctx, args, document, ontology, at)
        plan = plan_labels(ctx.root, ctx.config, document, ontology, relabel=args.relabel)
        if plan.gone and not (plan.communities or plan.edges or args.dry_run):
            # No labeler needed: writing retires the phrases of edges that are gone.
            _write(ctx, retire_gone(ontology, document, written=set()))
    for state in plan.human_drifted:
        reasons = "; ".join(d.describe() for d in state.drifts)
        print(
            f"{WHERE}:{state.label.line if state.label else 0}: human label '{state.text}' of "
            f"{state.key} drifted ({reasons}); kept: confirm it with `kgtool label --accept "
            f"{state.key}` or replace it with `kgtool label --set {state.key} ...`"
        )
    if not plan.communities and not plan.edges:
        if args.quiet:
            return 0
        if plan.gone:
            print(_gone(plan, "would retire" if args.dry_run else "retired"))
        else:
            print(f"nothing to label: {len(plan.names)} communities named, no label drifted")
        return 0
    labeler = _labeler(ctx, args)
    if args.dry_run:
        return _dry_run(labeler, plan, args.quiet)
    batch = _label(labeler, plan)
    with ctx.store.lock():
        if _snapshot(ctx) != before:
            raise KgError(
                ".kg/ changed while the labeler ran (another kgtool run?); nothing was written: "
                "run `kgtool label` again"
            )
        written = apply_batch(load_ontology(ctx.store), batch, labeler.by, at, document, ctx.config)
        _write(ctx, written)
    _report(batch, plan, labeler.by, args.quiet)
    for problem in batch.problems:
        print(f"kgtool: {problem}")
    missing = len(plan.communities) - len(batch.communities) + len(plan.edges) - len(batch.edges)
    return EXIT_PARTIAL if batch.problems or missing > 0 else 0


def _snapshot(ctx: Context) -> tuple[bytes | None, bytes | None]:
    return read_document_bytes(ctx.store), ctx.store.read_bytes(ONTOLOGY_FILE)


def _write(ctx: Context, ontology: Ontology) -> None:
    data = dump_ontology(ontology)
    # Read back as every later command reads it: a file they would refuse is never written
    # (it would stop `kgtool update` until someone deleted it).
    try:
        parse_ontology(data)
    except KgError as exc:
        raise KgError(f"{exc.message}; nothing was written", exc.path, exc.line) from None
    ctx.store.ensure()
    ctx.store.write_if_changed(ONTOLOGY_FILE, data)
    # The map shows the new names at once: its key holds the labels, so it is drawn again.
    layer2_from(ctx, None, write=True)


def _by_hand(
    ctx: Context, args: argparse.Namespace, document: dict[str, Any], ontology: Ontology, at: str
) -> int:
    for key in args.accept:
        ontology = accept(ontology, key.replace(" ", ""), at, document, ctx.config)
        if not args.quiet:
            print(f"accepted {key}: its evidence is today's")
    if args.set:
        key, text = args.set[0].replace(" ", ""), args.set[1]
        ontology = set_label(ontology, key, text, args.summary, at, document, ctx.config)
        if not args.quiet:
            print(f"set {key}: '{' '.join(text.split())}' (human)")
    _write(ctx, ontology)
    return 0


def _labeler(ctx: Context, args: argparse.Namespace) -> OfflineLabeler | ClaudeLabeler:
    if args.offline:
        return OfflineLabeler()
    if not os.environ.get("ANTHROPIC_API_KEY") and not args.dry_run:
        if not args.quiet:
            print("no ANTHROPIC_API_KEY: labelling with kgtool's offline labeler")
        return OfflineLabeler()
    from kgtool.ontology.llm import ClaudeLabeler  # the SDK loads only when it is used

    return ClaudeLabeler(ctx.config.section("ontology"))


def _label(labeler: Labeler, plan: LabelPlan) -> LabelBatch:
    """Communities first, then the edges, phrased with the names just written."""
    batch = labeler.label(plan.communities, [], plan.taken)
    names = {**plan.names, **{cid: text.name for cid, text in batch.communities.items()}}
    if plan.edges:
        try:
            phrases = labeler.label([], rename_edges(plan.edges, names), set())
        except LabelerError as error:
            if not batch.communities:
                raise
            # The names already came back: keep them, and say the phrases did not.
            batch.problems.append(f"no edge was phrased: {error.message}")
            return batch
        batch.edges.update(phrases.edges)
        batch.problems += phrases.problems
    return batch


def _dry_run(labeler: OfflineLabeler | ClaudeLabeler, plan: LabelPlan, quiet: bool) -> int:
    communities = ", ".join(item.id for item in plan.communities) or "none"
    edges = ", ".join(f"{e.src}->{e.dst}" for e in plan.edges) or "none"
    print(f"would label {len(plan.communities)} communities ({communities})")
    print(f"would phrase {len(plan.edges)} edges ({edges})")
    if isinstance(labeler, OfflineLabeler):
        batch = _label(labeler, plan)
        if not quiet:
            _report(batch, plan, labeler.by, quiet=False, verb="would write")
        return 0
    estimate = labeler.dry_run(plan.communities, rename_edges(plan.edges, plan.names), plan.taken)
    print(estimate.describe())
    if plan.gone and not quiet:
        print(_gone(plan, "would retire"))
    return 0


def _report(batch: LabelBatch, plan: LabelPlan, by: str, quiet: bool, verb: str = "wrote") -> None:
    if quiet:
        return
    for cid, text in batch.communities.items():
        print(f"  {cid}: {text.name} — {text.summary}")
    for (src, dst), phrase in batch.edges.items():
        src_name = batch.communities[src].name if src in batch.communities else plan.names.get(src)
        dst_name = batch.communities[dst].name if dst in batch.communities else plan.names.get(dst)
        print(f"  {src}->{dst}: {src_name} {phrase} {dst_name}")
    print(f"{verb} {WHERE}: {len(batch.communities)} names, {len(batch.edges)} phrases ({by})")
    if plan.gone:
        print(_gone(plan, "would retire" if verb != "wrote" else "retired"))


def _gone(plan: LabelPlan, verb: str) -> str:
    return f"{verb} the phrases of {len(plan.gone)} edge(s) that are gone: {', '.join(plan.gone)}"
