"""``kgtool update``: build or refresh ``.kg/`` for the repository; ``--check`` only reports."""

from __future__ import annotations

import argparse

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import add_format_option, context
from kgtool.communities.build import COMMUNITIES_FILE
from kgtool.findings import json_document, kept
from kgtool.pipeline.refresh import (
    SKIPPED,
    Layer2AndMap,
    drifted_labels,
    notes,
    problems,
    refresh,
    stale_findings,
)
from kgtool.raw.build import UpdateResult
from kgtool.raw.graph import LEGACY_WHERE
from kgtool.raw.graph import WHERE as RAW_WHERE
from kgtool.store import KG_DIR

EXIT_STALE = 1


DESCRIPTION = """\
Builds or refreshes .kg/ for the repository: layer 1 (.kg/raw/) from the files git
tracks, parsing only those whose content changed since the last run (its cache is in the git
directory, never in the checkout), then layer 2 (.kg/communities.json) and the map (.kg/MAP.md and
its pages). Reads the files, .kgtool.yaml and .kg/; writes only under .kg/, and only files
whose bytes change. Prints what it wrote, broken imports and partly parsed files; -q prints
only those problems, -v also names every file it parsed."""

EXAMPLES = [
    ("kgtool update", "build or refresh .kg/ here"),
    ("kgtool update --check", "write nothing; exit 1 if .kg/ is out of date"),
    ("kgtool update -q --exit-code", "in a hook: only problems; exit 1 if .kg/ was rewritten"),
    ("kgtool update -C ../other", "another repository"),
]

EXIT_CODES = [
    (EXIT_OK, ".kg/ is up to date (written now, or already)"),
    (EXIT_STALE, "--check: .kg/ is out of date; --exit-code: something under .kg/ was rewritten"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "update", COMMANDS["update"], DESCRIPTION, EXAMPLES, EXIT_CODES
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if .kg/ is out of date",
    )
    parser.add_argument(
        "--exit-code",
        action="store_true",
        help="exit 1 when anything under .kg/ was rewritten (for hooks, as formatters do)",
    )
    parser.add_argument(
        "--rebaseline",
        action="store_true",
        help="re-cluster communities from scratch (IDs are still mapped to the old ones)",
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    write = not args.check
    with ctx.store.lock():
        # What `context` reads besides the layers (its content and history indexes) is left to
        # the first question that needs it: built here, it cost every commit of a 10,000-file
        # repository 5 s and 600 MB (bench/results/edit-cost.md).
        result, layer2 = refresh(ctx, write, args.rebaseline)
    ignore = ctx.config["ignore"]
    # Only --check reports staleness: a run that writes has just made the layers fresh.
    out_of_date = stale_findings(ctx, result, layer2) if args.check else []
    stale = kept(out_of_date, ignore)
    found = kept(problems(result, layer2, ctx.root), ignore)
    skipped = kept(notes(result), ignore)
    drifted = 0 if args.check else drifted_labels(ctx, layer2)
    rewritten = bool(write and (result.changed or layer2.stale))
    status = EXIT_STALE if stale or (args.exit_code and rewritten) else EXIT_OK
    if args.format == "json":
        summary = summarize(result, layer2, args.check, drifted)
        print(json_document("update", status == 0, stale + found + skipped, **summary), end="")
        return status
    if args.check:
        for finding in stale:
            print(finding.format())
        if not out_of_date and not args.quiet:  # silenced is not up to date: say nothing
            print(".kg/ is up to date")
        return status
    if args.quiet:  # what was written is the hook's business; only problems are the user's
        for finding in found:
            print(finding.format())
    else:
        print(describe(result))
        # Skipped files are expected (images, archives): named with -v, counted otherwise.
        shown = skipped if args.verbose else [f for f in skipped if f.code != SKIPPED]
        for finding in found + shown:
            print(finding.format())
        if len(shown) < len(skipped):
            count = len(skipped) - len(shown)
            print(
                f"{count} file{'s' * (count != 1)} not read for symbols (binary, too large, "
                "...): `kgtool update -v` names them"
            )
        print(describe_communities(layer2))
        if args.verbose:  # which files the cache did not cover: why a run took its time
            for path in result.parsed:
                print(f"  parsed: {path}")
    if drifted:
        print(f"{drifted} label(s) drifted; run `kgtool label` (see `kgtool check`)")
    if args.exit_code and rewritten:
        print("kgtool rewrote .kg/: review it and add it to your commit (git add .kg)")
    return status


def summarize(
    result: UpdateResult, layer2: Layer2AndMap, check: bool, drifted: int
) -> dict[str, object]:
    """What ``update --format json`` says besides findings: no timings, so that two runs on
    the same tree print the same bytes."""
    changed = [RAW_WHERE] if result.changed else []
    changed += [f"{KG_DIR}/{name}" for name in sorted(layer2.changed)]
    edges: dict[str, dict[str, int]] = {}
    for (kind, tier), count in sorted(result.edges.items()):
        edges.setdefault(kind, {})[tier] = count
    return {
        "mode": "check" if check else "write",
        "up_to_date": not (result.changed or layer2.stale),
        "changed": changed,
        "removed": [f"{KG_DIR}/{name}" for name in sorted(layer2.removed)],
        "files": result.files,
        "symbols": result.symbols,
        "parsed": len(result.parsed),
        "resolved": result.resolved,
        "edges": edges,
        "unresolved_calls": result.unresolved_calls,
        "communities": len(layer2.document["communities"]),
        "reclustered": layer2.communities.reclustered,
        "labels_drifted": drifted,
    }


def describe_communities(result: Layer2AndMap) -> str:
    document, layer2 = result.document, result.communities
    how = "re-clustered" if layer2.reclustered else "graph unchanged, partition kept"
    verb = "wrote" if COMMUNITIES_FILE in result.changed else "unchanged"
    line = (
        f"{verb} .kg/{COMMUNITIES_FILE}: {len(document['communities'])} communities over "
        f"{len(document['files'])} files ({how}) in {layer2.seconds:.2f}s"
    )
    pages = len(result.changed) - (COMMUNITIES_FILE in result.changed)
    if pages or result.removed:
        line += f"; map: {pages} page(s) written, {len(result.removed)} removed"
    return f"{line}\n{layer2.note}" if layer2.note else line


def describe(result: UpdateResult) -> str:
    if not result.changed and not result.parsed:
        return f".kg/ is up to date ({result.files} files, {result.seconds:.2f}s); nothing written"
    shards = ""
    if result.written or result.removed:
        shards = f" ({len(result.written)} shard(s) written"
        shards += f", {len(result.removed)} removed)" if result.removed else ")"
    lines = [
        f"{'wrote' if result.changed else 'unchanged'} {RAW_WHERE}{shards}: {result.files} "
        f"files, {result.symbols} symbols; parsed {len(result.parsed)}, resolved "
        f"{result.resolved} in {result.seconds:.2f}s",
    ]
    if result.migrated:
        lines.insert(0, f"migrated {LEGACY_WHERE} to shards under {RAW_WHERE}; removed it")
    by_type: dict[str, list[str]] = {}
    for (kind, tier), count in sorted(result.edges.items()):
        by_type.setdefault(kind, []).append(f"{tier} {count}")
    for kind, tiers in by_type.items():
        total = sum(c for (k, _), c in result.edges.items() if k == kind)
        lines.append(f"  {kind}: {total} ({', '.join(tiers)})")
    if result.unresolved_calls:
        lines.append(f"  unresolved call sites: {result.unresolved_calls}")
    if result.broken_imports:
        lines.append(f"  broken imports: {len(result.broken_imports)}")
    return "\n".join(lines)
