"""``kgtool impact``: callers, importers and subclasses of a file or symbol, as a lower bound.

Reads ``.kg/`` only. Exit codes: 0 with an answer (a warning on stderr when ``.kg/`` is older
than the working tree), 2 when ``.kg/`` is missing or the target names no node.
"""

from __future__ import annotations

import argparse
import sys

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.query.impact import impact_answer

DEFAULT_DEPTH = 3

DESCRIPTION = """\
What depends on a file or symbol: its callers, importers and subclasses, then theirs, to a
depth, each with the weakest tier on its path and the product of the confidences, grouped by
community. Stated as a lower bound: ambiguous calls and unresolved call sites that bear one of
the target's names are counted apart, as what could also reach it. --diff takes every file
that differs from BASE as the target. Reads .kg/ only (a warning on stderr when it is older
than the working tree); writes only its read cache (in the git directory)."""

EXAMPLES = [
    ("kgtool impact src/store.py::Store.save", "what calls, imports or subclasses it"),
    ("kgtool impact src/store.py --depth 1", "direct dependents of a file's symbols"),
    ("kgtool impact --diff origin/main", "the impact of the current change set"),
    ("kgtool impact src/store.py --format json", "for scripts"),
]

EXIT_CODES = [
    (EXIT_OK, "answered (also when .kg/ is older than the working tree: said on stderr)"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "impact", COMMANDS["impact"], DESCRIPTION, EXAMPLES, EXIT_CODES, locks=False
    )
    parser.add_argument("target", nargs="?", help="a path, or path::Symbol (a layer-1 ID)")
    parser.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_DEPTH,
        help=f"how many steps to follow back from the target (default: {DEFAULT_DEPTH})",
    )
    parser.add_argument(
        "--diff",
        nargs="?",
        const="HEAD",
        metavar="BASE",
        help="the impact of every file that differs from BASE (default: HEAD) instead",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    if args.diff is not None and args.target:
        # "impact --diff path": the path was meant as BASE or as the target; say which is read.
        from kgtool.errors import KgError

        raise KgError("give a target or --diff [BASE], not both")
    output, stale = impact_answer(
        ctx.root, ctx.config, ctx.store, args.target, args.depth, args.format, args.diff
    )
    if stale:
        print(f"kgtool: warning: {stale}", file=sys.stderr)
    sys.stdout.write(output)
    return EXIT_OK
