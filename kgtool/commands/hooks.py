"""``kgtool hooks``: plain git hooks (install, uninstall) and the run they make (run)."""

from __future__ import annotations

import argparse
import sys

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser, group_parser
from kgtool.integrations import git_hooks
from kgtool.integrations.git_hooks import EXIT_FAILED
from kgtool.repo import find_root

DESCRIPTION = """\
Plain git hooks, for repositories that do not use the pre-commit framework: `install` puts
kgtool's pre-commit and pre-merge-commit hooks in .git/hooks/ (or core.hooksPath), `uninstall`
removes them and puts back what was there, and `run` is what every hook runs: refresh .kg/
from the staged content, then every other check, in one process. See
`kgtool hooks ACTION --help`."""

EXAMPLES = [
    ("kgtool hooks install", "one-step commits: .kg/ is refreshed and staged with each commit"),
    ("kgtool hooks install --review", "a commit stops when .kg/ changed, to read it first"),
    ("kgtool hooks uninstall", "remove them; put back the hooks that were there"),
]

EXIT_CODES = [
    (EXIT_OK, "done; run: .kg/ is fresh and every check passed"),
    (
        EXIT_FAILED,
        "run: .kg/ was rewritten (with --review) or a check failed; "
        "uninstall: a hook was left alone",
    ),
]

INSTALL_DESCRIPTION = """\
Writes kgtool's pre-commit and pre-merge-commit scripts into the repository's hooks folder
(.git/hooks/, or core.hooksPath); each runs `kgtool hooks run` with the interpreter kgtool is
installed in. By default a hook stages what it rewrote under .kg/ with the commit, which goes
through in one step; with --review a commit stops when .kg/ changed (git add .kg, commit
again), for a team that reads every .kg/ change. A hook that is already there and is not
kgtool's is refused, unless --chain (keep it, run it first) or --force (set it aside).
Writes only the hooks folder."""

INSTALL_EXAMPLES = [
    ("kgtool hooks install", "one-step commits: .kg/ is staged with the commit"),
    ("kgtool hooks install --review --chain", "review mode; keep the existing hook, run first"),
]

UNINSTALL_DESCRIPTION = """\
Removes kgtool's hooks and puts back the hooks that were there before `install --chain` or
`--force`. A hook that is not kgtool's is left alone, and so is kgtool's when lines were added
to it (the first is named). Writes only the hooks folder."""

UNINSTALL_EXAMPLES = [
    ("kgtool hooks uninstall", "remove kgtool's hooks"),
    ("kgtool hooks uninstall -C ../other", "in another repository"),
]

RUN_DESCRIPTION = """\
What every kgtool hook runs (plain git hooks and the pre-commit framework's one-process
hooks): refreshes .kg/ so that it describes the staged content, then runs every other check
of `kgtool check`, in one process. Writes .kg/ and stages what it rewrote (with --review it
stages nothing and fails when .kg/ changed); prints only problems and warnings."""

RUN_EXAMPLES = [
    ("kgtool hooks run", "what the pre-commit hook runs"),
    ("kgtool hooks run --review", "fail, staging nothing, when .kg/ changed"),
]

RUN_EXIT_CODES = [
    (EXIT_OK, ".kg/ describes the staged content and every check passed"),
    (
        EXIT_FAILED,
        "a check failed; or .kg/ was rewritten and not staged with the commit: --review, a "
        "commit of named paths, a merge git concludes without it, or .kg/ changes the "
        "pre-commit framework set aside (the message says what to run)",
    ),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = group_parser(subparsers, "hooks", COMMANDS["hooks"], DESCRIPTION, EXAMPLES, EXIT_CODES)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    install = command_parser(
        actions,
        "install",
        "put kgtool's pre-commit and pre-merge-commit hooks in place",
        INSTALL_DESCRIPTION,
        INSTALL_EXAMPLES,
        [(EXIT_OK, "installed")],
        locks=False,
    )
    add_mode_options(install)
    existing = install.add_mutually_exclusive_group()
    existing.add_argument(
        "--chain", action="store_true", help="keep an existing hook and run it first"
    )
    existing.add_argument(
        "--force", action="store_true", help="set an existing hook aside (not run)"
    )
    install.set_defaults(run=run_install)
    uninstall = command_parser(
        actions,
        "uninstall",
        "remove kgtool's hooks and put back the hooks that were there",
        UNINSTALL_DESCRIPTION,
        UNINSTALL_EXAMPLES,
        [(EXIT_OK, "removed (or none was installed)"), (EXIT_FAILED, "a hook was left alone")],
        locks=False,
    )
    uninstall.set_defaults(run=run_uninstall)
    run = command_parser(
        actions,
        "run",
        "refresh .kg/ from the staged content and run every check (the hook)",
        RUN_DESCRIPTION,
        RUN_EXAMPLES,
        RUN_EXIT_CODES,
    )
    add_mode_options(run)
    run.set_defaults(run=run_hook)


def add_mode_options(parser: argparse.ArgumentParser) -> None:
    """``--review``, and ``--stage``, the default, which scripts and configurations written
    when review was the default still name."""
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--review",
        action="store_true",
        help="stage nothing: a commit stops when .kg/ changed, to be read first",
    )
    mode.add_argument(
        "--stage", action="store_true", help="stage what was rewritten under .kg/ (the default)"
    )


def run_install(args: argparse.Namespace) -> int:
    root = find_root(args.directory)
    lines = git_hooks.install(root, args.review, args.chain, args.force, sys.executable)
    if not args.quiet:
        print("\n".join(lines))
    return EXIT_OK


def run_uninstall(args: argparse.Namespace) -> int:
    lines, done = git_hooks.uninstall(find_root(args.directory))
    if not args.quiet or not done:  # a hook left alone is a problem: said even with -q
        print("\n".join(lines) if lines else "no kgtool hook installed")
    return EXIT_OK if done else EXIT_FAILED


def run_hook(args: argparse.Namespace) -> int:
    return git_hooks.run(find_root(args.directory), args.review)
