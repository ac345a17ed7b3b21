"""The ``kgtool`` command: parses arguments and hands them to one command module."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from kgtool import __version__
from kgtool.commands import COMMANDS, load
from kgtool.errors import KgError


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: full arguments for its command, one help line for the rest."""
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
    chosen = _command_named(argv)
    for name, summary in COMMANDS.items():
        if name == chosen:
            load(name).register(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The subcommand in ``argv``: its first word that is not an option or an option's value."""
    words = iter(argv)
    for word in words:
        if word == "-C":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    try:
        return int(args.run(args))
    except KgError as error:
        for line in error.report_lines():
            print(line, file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("kgtool: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader left (``kgtool ... | head -1``): what it wanted it has; the work is done
        # and written. Quiet, as a tool killed by SIGPIPE is, and with the same status.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as error:
        # The machine said no (a full disk, a read-only folder, a folder where a file should
        # be): the path and the reason are what the user needs, not a traceback.
        where = f"{error.filename}: " if error.filename else ""
        print(f"kgtool: error: {where}{error.strerror or error}", file=sys.stderr)
        return KgError.exit_code


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe ended


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush fails no more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # not a real file (tests)
        pass
