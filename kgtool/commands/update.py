"""``kgtool update``: build or refresh ``.kg/`` for the repository; ``--check`` only reports."""

from __future__ import annotations

import argparse

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import Context, context
from kgtool.communities.build import COMMUNITIES_FILE, CommunitiesResult, update_communities
from kgtool.ontology.model import ONTOLOGY_FILE, load_ontology
from kgtool.ontology.view import report_for
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.raw.languages.base import MAX_DEPTH
from kgtool.raw.model import PARTIAL_GRAMMAR, PARTIAL_TOO_DEEP
from kgtool.store import KG_DIR

EXIT_STALE = 1


DESCRIPTION = """\
Builds or refreshes .kg/ for the repository: layer 1 (.kg/raw.jsonl) from the files git
tracks, parsing only those whose content changed since the last run (the cache is
.kg/cache/, git-ignored), then layer 2 (.kg/communities.json) and the map (.kg/MAP.md and
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


def register(subparsers: argparse._SubParsersAction) -> None:
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
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    write = not args.check
    with ctx.store.lock():
        result, layer2 = refresh(ctx, write, args.rebaseline)
    if args.check:
        stale = []
        if result.changed:
            stale.append(".kg/raw.jsonl is out of date: run `kgtool update`")
        if layer2.stale:
            names = ", ".join(f"{KG_DIR}/{n}" for n in [*layer2.changed, *layer2.removed])
            stale.append(f"{names} out of date: run `kgtool update`")
        for line in stale:
            print(line)
        if stale:
            return EXIT_STALE
        if not args.quiet:
            print(".kg/ is up to date")
        return 0
    if args.quiet:  # what was written is the hook's business; only problems are the user's
        for line in problems(result):
            print(line)
    else:
        print(describe(result))
        print(describe_communities(layer2))
        if args.verbose:  # which files the cache did not cover: why a run took its time
            for path in result.parsed:
                print(f"  parsed: {path}")
    drifted = drifted_labels(ctx, layer2.document)
    if drifted:
        print(f"{drifted} label(s) drifted; run `kgtool label` (see `kgtool check`)")
    if args.exit_code and (result.changed or layer2.stale):
        print("kgtool rewrote .kg/: review it and add it to your commit (git add .kg)")
        return EXIT_STALE
    return 0


def refresh(
    ctx: Context, write: bool = True, rebaseline: bool = False
) -> tuple[UpdateResult, CommunitiesResult]:
    """Layers 1 and 2 (and the map) brought up to date with the files; the caller holds the
    lock."""
    if write:
        ctx.store.ensure()  # also brings an older kgtool's .kg/.gitignore up to date
        ctx.store.remove_stray_temps()
    result = update_raw(ctx.root, ctx.config, ctx.store, write=write)
    return result, layer2_from(ctx, result, write, rebaseline)


def layer2_from(
    ctx: Context, raw: UpdateResult, write: bool, rebaseline: bool = False
) -> CommunitiesResult:
    """Layer 2 and the map as they follow from layer 1 as ``raw`` has it."""
    return update_communities(
        ctx.root,
        ctx.config,
        ctx.store,
        raw.content,
        write,
        rebaseline,
        edges=raw.file_edges,
        drawn=ctx.map,
    )


def drifted_labels(ctx: Context, document: dict) -> int:
    if ctx.store.read_bytes(ONTOLOGY_FILE) is None:
        return 0
    return len(report_for(document, load_ontology(ctx.store), ctx.config).drifted)


def describe_communities(result: CommunitiesResult) -> str:
    document = result.document
    how = "re-clustered" if result.reclustered else "graph unchanged, partition kept"
    verb = "wrote" if COMMUNITIES_FILE in result.changed else "unchanged"
    line = (
        f"{verb} .kg/{COMMUNITIES_FILE}: {len(document['communities'])} communities over "
        f"{len(document['files'])} files ({how}) in {result.seconds:.2f}s"
    )
    pages = len(result.changed) - (COMMUNITIES_FILE in result.changed)
    if pages or result.removed:
        line += f"; map: {pages} page(s) written, {len(result.removed)} removed"
    return line


def describe(result: UpdateResult) -> str:
    if not result.changed and not result.parsed:
        return f".kg/ is up to date ({result.files} files, {result.seconds:.2f}s); nothing written"
    lines = [
        f"{'wrote' if result.changed else 'unchanged'} .kg/raw.jsonl: {result.files} files, "
        f"{result.symbols} symbols; parsed {len(result.parsed)}, resolved {result.resolved} "
        f"in {result.seconds:.2f}s",
    ]
    by_type: dict[str, list[str]] = {}
    for (kind, tier), count in sorted(result.edges.items()):
        by_type.setdefault(kind, []).append(f"{tier} {count}")
    for kind, tiers in by_type.items():
        total = sum(c for (k, _), c in result.edges.items() if k == kind)
        lines.append(f"  {kind}: {total} ({', '.join(tiers)})")
    if result.unresolved_calls:
        lines.append(f"  unresolved call sites: {result.unresolved_calls}")
    lines.extend(f"  {line}" for line in problems(result))
    for path, reason in result.skipped:
        lines.append(f"  skipped ({reason}): {path}")
    lines += [f"  left out (file name is not UTF-8): {name}" for name in result.bad_names]
    return "\n".join(lines)


def problems(result: UpdateResult) -> list[str]:
    """What the user should fix: broken imports of the repository's own code, and files
    whose syntax errors (or the parser's limits) cost part of their graph.

    Skipped files (binary, too large, ...) are not problems: they are expected and would
    fill every commit's output.
    """
    lines = []
    if result.broken_imports:
        lines.append(
            f"broken imports: {len(result.broken_imports)} (they name this repository's own "
            "code, which has no such module)"
        )
        lines += [f"  {path}:{line}: {module}" for path, line, module in result.broken_imports]
    for path, error_lines, reason in result.partial:
        lines.append(f"partially parsed ({_partial_cause(error_lines, reason)}): {path}")
    return lines


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
