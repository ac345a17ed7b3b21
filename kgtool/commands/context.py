"""``kgtool context "<task>"``: what to read first for a task, from the map, within a budget."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.errors import KgError
from kgtool.query.context import FORMATS, bundle_and_render
from kgtool.repo import find_root

DEFAULT_BUDGET = 12_000

DESCRIPTION = """\
What to read first for a task: the playbook it matches (marked when refused), with its
concepts' labels, their communities' edges and the key symbols' locations; otherwise the
best-matching communities, files and symbols, with their bridges. Every item cites its source
(playbook line, layer-2 counts, file:line); drifted labels are marked. The budget is a hard
limit in characters, most relevant first. Reads .kg/ and playbooks/ only (says so when .kg/
is missing or older than the working tree); writes only its read cache (in the git directory)."""

EXAMPLES = [
    ('kgtool context "add support for a new LLM provider"', "markdown, 12,000 characters"),
    ('kgtool context "fix the retry delay" --budget 4000', "a smaller answer"),
    ('kgtool context "rename a CLI option" --format json', "for scripts"),
]

EXIT_CODES = [
    (EXIT_OK, "answered (also when .kg/ is older than the working tree: said on stderr)"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "context", COMMANDS["context"], DESCRIPTION, EXAMPLES, EXIT_CODES, locks=False
    )
    parser.add_argument("task", help="the task, in words (quote it)")
    parser.add_argument(
        "--budget",
        type=_budget,
        default=DEFAULT_BUDGET,
        metavar="N",
        help=f"at most N characters of output (default {DEFAULT_BUDGET})",
    )
    parser.add_argument("--format", choices=FORMATS, default="markdown", help="output format")
    parser.set_defaults(run=run)


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of characters: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    root = find_root(Path(args.directory))
    if not args.task.strip():
        raise KgError("the task is empty: say what you want to do, in words")
    text, notices = bundle_and_render(root, args.task, args.budget, args.format)
    for notice in notices:
        print(f"kgtool: warning: {notice}", file=sys.stderr)
    sys.stdout.write(text)
    return EXIT_OK
