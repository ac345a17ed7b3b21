"""``kgtool impact``: callers, importers and subclasses of a file or symbol, as a lower bound.

Reads ``.kg/`` only. Exit codes: 0 with an answer (a warning on stderr when ``.kg/`` is older
than the working tree), 2 when ``.kg/`` is missing or the target names no node.
"""

from __future__ import annotations

import argparse
import sys

from kgtool.commands._common import context
from kgtool.read.impact import impact_answer

DEFAULT_DEPTH = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "impact", help="what depends on a file or symbol (callers, importers, subclasses)"
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
        print(stale, file=sys.stderr)
    sys.stdout.write(output)
    return 0
