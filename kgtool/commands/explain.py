"""``kgtool explain``: what a community, layer-3 name, file or symbol is, where it lives, what
it touches and which playbooks point at it.

Reads ``.kg/`` and the playbooks only. Exit codes: 0 with an answer (a warning on stderr when
``.kg/`` is older than the working tree), 2 when ``.kg/`` is missing or the argument names
nothing (with the closest names).
"""

from __future__ import annotations

import argparse
import sys

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.query.explain import explain_answer

DESCRIPTION = """\
What a community (c7), a layer-3 name, a file or a symbol (path::Symbol) is: its label and
summary (marked when unlabelled or drifted), where it lives (files, file:line), what it
touches (typed edge counts in and out, by community) and which playbooks point at it (refused
ones marked). Reads .kg/ and the playbooks only (a warning on stderr when .kg/ is older than
the working tree); writes only its read cache (in the git directory)."""

EXAMPLES = [
    ("kgtool explain c7", "a community"),
    ('kgtool explain "Storage"', "a layer-3 name"),
    ("kgtool explain src/store.py::Store.save", "a symbol"),
    ("kgtool explain src/store.py --format json", "a file, for scripts"),
]

EXIT_CODES = [
    (EXIT_OK, "answered (also when .kg/ is older than the working tree: said on stderr)"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "explain", COMMANDS["explain"], DESCRIPTION, EXAMPLES, EXIT_CODES, locks=False
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
        print(f"kgtool: warning: {stale}", file=sys.stderr)
    sys.stdout.write(output)
    return EXIT_OK
