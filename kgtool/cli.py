"""The ``kgtool`` command: parses arguments and hands them to one command module."""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from kgtool import __version__, progress
from kgtool.commands import COMMANDS, load
from kgtool.commands._cli import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    OPTIONS_WITH_VALUE,
    add_shared_options,
    settle,
)
from kgtool.errors import KgError


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: full arguments for its command, one help line for the rest."""
    parser = argparse.ArgumentParser(
        prog="kgtool",
        description="Keep a four-layer code knowledge graph of a git repository fresh.",
        epilog="-C, -q and -v may also follow the command (kgtool update -C DIR). "
        "kgtool COMMAND --help says what a command reads and writes, with examples and its "
        "exit codes.",
    )
    parser.add_argument("--version", action="version", version=f"kgtool {__version__}")
    add_shared_options(parser, top=True)
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
        if word in OPTIONS_WITH_VALUE:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised wherever the run is, as Ctrl-C raises KeyboardInterrupt: every
    ``finally`` on the way out runs, so a temporary worktree or index copy is removed and the
    lock released. Left to its default, SIGTERM ends the process where it stands."""


Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers


def _terminate(signum: int, frame: FrameType | None) -> None:
    # Once: a second SIGTERM (a CI runner sends one, then waits) must not cut the clean-up
    # that the first one started short.
    signal.signal(signal.SIGTERM, _cleaning_up)
    raise Terminated


def _cleaning_up(signum: int, frame: FrameType | None) -> None:
    """SIGTERM while the first one is being handled: the clean-up goes on."""


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = settle(parser, parser.parse_args(argv))
    started = time.perf_counter()
    progress.show_on_terminal(not args.quiet)
    before: Handler | None = None
    try:
        before = _catch_sigterm()
        return _run(args)
    except KgError as error:
        for line in error.report_lines():
            print(line, file=sys.stderr)
        return error.exit_code
    except Terminated:
        print("kgtool: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("kgtool: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
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
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)
        progress.show_on_terminal(False)
        if args.verbose:
            name = " ".join(filter(None, (args.command, getattr(args, "action", None))))
            print(f"kgtool {name}: {time.perf_counter() - started:.2f}s", file=sys.stderr)


def _catch_sigterm() -> Handler | None:
    """Turn SIGTERM into ``Terminated`` for this run; the handler it replaces, to put back
    (None when handlers cannot be set here: main() called from another thread)."""
    try:
        before = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:
        return None
    return signal.SIG_DFL if before is None else before  # None: not set from Python


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.run(args))
    finally:
        progress.clear()  # an error line that follows starts on a line of its own


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush fails no more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # not a real file (tests)
        pass
