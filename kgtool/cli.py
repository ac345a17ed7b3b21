"""The ``kgtool`` command: parses arguments and hands them to one command module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kgtool import __version__
from kgtool.commands import COMMANDS
from kgtool.errors import KgError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kgtool",
        description="Keep a four-layer code knowledge graph of a git repository fresh.",
    )
    parser.add_argument("--version", action="version", version=f"kgtool {__version__}")
    parser.add_argument(
        "-C",
        dest="directory",
        type=Path,
        default=Path.cwd(),
        metavar="DIR",
        help="run as if started in DIR (default: the current directory)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KgError as error:
        print(f"kgtool: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("kgtool: interrupted", file=sys.stderr)
        return 130
