"""``kgtool update``: build or refresh ``.kg/`` for the repository; ``--check`` only reports."""

from __future__ import annotations

import argparse

from kgtool.commands._common import context
from kgtool.raw.build import UpdateResult, update_raw

EXIT_STALE = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("update", help="build or refresh .kg/ for this repository")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if .kg/ is out of date",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    with ctx.store.lock():
        result = update_raw(ctx.root, ctx.config, ctx.store, write=not args.check)
    if args.check:
        if result.changed:
            print(".kg/raw.jsonl is out of date: run `kgtool update`")
            return EXIT_STALE
        if not args.quiet:
            print(".kg/ is up to date")
        return 0
    if not args.quiet or result.changed:
        print(describe(result))
    return 0


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
    for path, error_lines in result.partial:
        where = ", ".join(str(n) for n in error_lines[:5])
        lines.append(f"  partially parsed (syntax errors at line {where}): {path}")
    for path, reason in result.skipped:
        lines.append(f"  skipped ({reason}): {path}")
    return "\n".join(lines)
