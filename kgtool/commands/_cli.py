"""What every subcommand's parser shares: ``-C``, ``-q`` and ``-v`` wherever a user types
them, and a ``--help`` with a description, examples and the exit codes the code returns.

Kept free of kgtool's heavy modules: ``kgtool/cli.py`` builds the top-level parser from it
before it knows which command runs.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from kgtool.errors import KgError, LockTimeout

# Exit codes every command shares; a command names its own 0 and 1 (and any other) itself.
EXIT_OK = 0
EXIT_ERROR = KgError.exit_code  # bad usage or input, as argparse's own usage errors
# The 1 of `kgtool check` and `kgtool ci`, which report the same checks.
EXIT_FAILED = 1
EXIT_LOCKED = LockTimeout.exit_code
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe ended
EXIT_TERMINATED = 143  # 128 + SIGTERM, what a CI cancel or a hook time-out sends

SHARED_EXIT_CODES: dict[int, str] = {
    EXIT_ERROR: "bad usage or input (one line on stderr: kgtool: error: ...)",
    EXIT_LOCKED: "another kgtool run held the lock for 10 seconds",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "its output was closed early (kgtool ... | head); the work is kept",
    EXIT_TERMINATED: "terminated (SIGTERM: a CI cancel, a hook time-out); its temp folders removed",
}

# The top-level options that take a value: what the command-name scan must step over.
OPTIONS_WITH_VALUE = ("-C",)

ExitCodes = Sequence[tuple[int, str]]


class _ChangeDirectory(argparse.Action):
    """``-C DIR``, as git has it: each one is taken relative to the ones before it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        value: object,
        option: str | None = None,
    ) -> None:
        given = getattr(namespace, self.dest, None) or []
        setattr(namespace, self.dest, [*given, str(value)])


_INVALID_CHOICE = re.compile(r"argument (\S+): invalid choice: '?([^'(]*?)'? \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse's parser, with what a user of a serious tool expects: nothing asked prints
    the help, and a mistyped command or option gets the nearest one ("did you mean
    'update'?"). Its subcommands' parsers are of this class too."""

    def parse_args(  # type: ignore[override]  # argparse's overloads; this one returns its namespace
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        # As argparse does, keeping what was parsed: a mistyped option of `update` is matched
        # against the options of `update`, not of every command.
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            # Said by the command's own parser: its usage line, "kgtool update: error: ...".
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _chosen(self, given: argparse.Namespace) -> Parser:
        """The parser of the deepest subcommand ``given`` chose (this one when none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                sub = action.choices.get(getattr(given, action.dest, None) or "")
                if isinstance(sub, Parser):
                    return sub._chosen(given)
        return self

    def error(self, message: str) -> NoReturn:
        if message == "the following arguments are required: COMMAND":
            self.print_help(sys.stderr)
            self.exit(EXIT_ERROR)
        choice = _INVALID_CHOICE.match(message)
        if choice is not None:
            # Quoted or not, as Python versions print them.
            known = [c.strip().strip("'") for c in choice.group(3).split(",")]
            message = f"argument {choice.group(1)}: invalid choice: '{choice.group(2)}'"
            message += _nearest(choice.group(2), known) or f" (choose from {choice.group(3)})"
        elif message.startswith("unrecognized arguments: "):
            words = message.removeprefix("unrecognized arguments: ").split()
            first = next((w for w in words if w.startswith("-")), "")
            message += _nearest(first.partition("=")[0], self._options_in_reach())
        super().error(message)

    def _options_in_reach(self) -> list[str]:
        """The options of this parser and of the subcommands' parsers it built (the parser
        of the command given, when there is one, says the error: see ``parse_args``)."""
        found = list(self._option_string_actions)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found += sub._option_string_actions
                    if isinstance(sub, Parser):
                        found += sub._options_in_reach()
        return sorted(set(found))


def _nearest(word: str, known: Sequence[str]) -> str:
    """ ": did you mean 'X'?" for the known word nearest ``word``, or "" when none is close."""
    # Imported here: the hook's path, which never mistypes, does not load it.
    import difflib

    # Compared without their dashes, which every option shares: "--bugdet" is not near
    # "--quiet", though the two are 0.6 alike with them.
    bare = {option.lstrip("-"): option for option in known}
    close = difflib.get_close_matches(word.lstrip("-"), list(bare), n=1, cutoff=0.6) if word else []
    return f"; did you mean '{bare[close[0]]}'?" if close else ""


def add_shared_options(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """``-C``, ``-q`` and ``-v`` on ``parser``: the top-level one (before the command) or a
    command's own (after it).

    argparse parses a command's options into a namespace of its own and copies it over the
    top-level one, so the two places store under different names and :func:`settle` joins
    them: ``kgtool -C a update -C b`` runs in a/b, ``-v`` counts wherever it is given.
    """
    where = "before" if top else "after"
    parser.add_argument(
        "-C",
        dest=f"directory_{where}",
        action=_ChangeDirectory,
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="run as if started in DIR; a second -C is taken relative to the first, as in git",
    )
    loudness = parser.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q",
        "--quiet",
        dest=f"quiet_{where}",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print only problems and errors; no progress",
    )
    loudness.add_argument(
        "-v",
        "--verbose",
        dest=f"verbose_{where}",
        action="count",
        default=argparse.SUPPRESS,
        help="add detail: per-file notes and timings",
    )


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with the shared options joined: ``directory`` (a Path), ``quiet`` (bool) and
    ``verbose`` (a count), whichever side of the command they were given on."""
    given = [*getattr(args, "directory_before", []), *getattr(args, "directory_after", [])]
    directory = Path.cwd()
    if given:
        directory = Path(given[0]).joinpath(*given[1:])  # an absolute one starts afresh
    quiet = bool(getattr(args, "quiet_before", False) or getattr(args, "quiet_after", False))
    verbose = getattr(args, "verbose_before", 0) + getattr(args, "verbose_after", 0)
    if quiet and verbose:
        parser.error("-q and -v say opposite things: give one")
    for name in ("directory", "quiet", "verbose"):
        for where in ("before", "after"):
            if hasattr(args, f"{name}_{where}"):
                delattr(args, f"{name}_{where}")
    args.directory, args.quiet, args.verbose = directory, quiet, verbose
    return args


def command_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
    examples: Sequence[tuple[str, str]],
    exit_codes: ExitCodes,
    locks: bool = True,
) -> argparse.ArgumentParser:
    """The parser of one (sub)command, with the shared options and a ``--help`` that has its
    description, its examples (command line, what it does) and its exit codes: its own, then
    the ones every command shares (the lock's only when it takes the lock)."""
    parser = group_parser(subparsers, name, summary, description, examples, exit_codes, locks)
    add_shared_options(parser)
    return parser


def group_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
    examples: Sequence[tuple[str, str]],
    exit_codes: ExitCodes,
    locks: bool = True,
) -> argparse.ArgumentParser:
    """A command made of actions (``kgtool playbooks check``): the shared options go on each
    action, where a user types them (``kgtool playbooks check -C DIR``)."""
    return subparsers.add_parser(
        name,
        help=summary,
        description=textwrap.dedent(description).strip(),
        epilog=epilog(examples, exit_codes, locks),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def exit_code_table(exit_codes: ExitCodes, locks: bool = True) -> list[tuple[int, str]]:
    """A command's exit codes, its own first, then the shared ones, by code."""
    table = dict(exit_codes)
    for code, meaning in SHARED_EXIT_CODES.items():
        if code != EXIT_LOCKED or locks:
            table.setdefault(code, meaning)
    return sorted(table.items())


def epilog(examples: Sequence[tuple[str, str]], exit_codes: ExitCodes, locks: bool) -> str:
    width = max((len(line) for line, what in examples if what), default=0)
    lines = ["examples:"]
    for line, what in examples:
        lines.append(f"  {line:<{width}}  {what}" if what else f"  {line}")
    lines += ["", "exit codes:"]
    lines += [f"  {code:<3}  {meaning}" for code, meaning in exit_code_table(exit_codes, locks)]
    return "\n".join(lines)
