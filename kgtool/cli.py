"""The ``kgtool`` command: parses arguments and hands them to one command module."""

from __future__ import annotations

import _thread
import argparse
import contextlib
import io
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from types import FrameType

from kgtool import __version__, progress
from kgtool.commands import COMMANDS, load
from kgtool.commands._cli import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    OPTIONS_WITH_VALUE,
    Parser,
    add_shared_options,
    settle,
)
from kgtool.errors import KgError
from kgtool.escape import printable


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: full arguments for its command, one help line for the rest."""
    parser = Parser(
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


class _Sigterm:
    """Whether this run's Terminated is on its way out, and the unraisable hook it replaced."""

    raised = False
    hook = sys.unraisablehook


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM raises Terminated inside the block (nothing changes where handlers cannot be
    set: main() called from another thread)."""
    try:
        before = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:
        yield
        return
    _Sigterm.hook, sys.unraisablehook = sys.unraisablehook, _swallowed
    _Sigterm.raised = False
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)
        sys.unraisablehook = _Sigterm.hook


def _terminate(signum: int, frame: FrameType | None) -> None:
    if _Sigterm.raised:
        return  # a second SIGTERM must not cut short the clean-up the first one started
    _Sigterm.raised = True
    raise Terminated


def _swallowed(unraisable: sys.UnraisableHookArgs) -> None:
    """Python ignores an exception raised in a finalizer or a fork callback, where a signal
    can land like anywhere else (a pool starting its workers: 2 SIGTERMs in 40 went on so,
    and the run finished): deliver the signal again, a moment later, from outside."""
    if isinstance(unraisable.exc_value, Terminated):
        _Sigterm.raised = False
        timer = threading.Timer(0.05, _thread.interrupt_main, (signal.SIGTERM,))
        timer.daemon = True
        timer.start()
        return
    _Sigterm.hook(unraisable)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = settle(parser, parser.parse_args(argv))
    started = time.perf_counter()
    progress.show_on_terminal(not args.quiet)
    try:
        with _sigterm_unwinds():
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
        print(f"kgtool: error: {printable(f'{where}{error.strerror or error}')}", file=sys.stderr)
        return KgError.exit_code
    finally:
        progress.show_on_terminal(False)
        if args.verbose:
            name = " ".join(filter(None, (args.command, getattr(args, "action", None))))
            print(f"kgtool {name}: {time.perf_counter() - started:.2f}s", file=sys.stderr)


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
