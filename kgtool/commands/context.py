"""``kgtool context "<task>"``: what to read first for a task, from the map, within a budget."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgtool.errors import KgError
from kgtool.read.context import FORMATS, bundle_and_render
from kgtool.repo import find_root

DEFAULT_BUDGET = 12_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "context",
        help="the playbook, communities and symbols to read first for a task",
        description=(
            "Match a task to the playbooks, then to the communities, paths and symbols of the "
            "map, and print what to read first, each item with its source, within a budget."
        ),
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
    return 0
