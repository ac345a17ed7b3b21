"""``kgtool explain``: what a community, layer-3 name, file or symbol is, where it lives, what
it touches and which playbooks point at it.

Reads ``.kg/`` and the playbooks only. Exit codes: 0 with an answer (a warning on stderr when
``.kg/`` is older than the working tree), 2 when ``.kg/`` is missing or the argument names
nothing (with the closest names).
"""

from __future__ import annotations

import argparse
import sys

from kgtool.commands._common import context
from kgtool.read.explain import explain_answer


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="what a community, label, file or symbol is, where it lives, what it touches",
    )
    parser.add_argument(
        "subject", help="a community ID (c7), a layer-3 name, a path, or path::Symbol"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    output, stale = explain_answer(ctx.root, ctx.config, ctx.store, args.subject, args.format)
    if stale:
        print(stale, file=sys.stderr)
    sys.stdout.write(output)
    return 0
