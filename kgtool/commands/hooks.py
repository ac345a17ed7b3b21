"""``kgtool hooks``: plain git hooks (install, uninstall) and the run they make (run)."""

from __future__ import annotations

import argparse
import sys

from kgtool.integrations import git_hooks
from kgtool.repo import find_root


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hooks", help="install or remove plain git hooks, or run what they run"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    install = actions.add_parser(
        "install", help="put kgtool's pre-commit and pre-merge-commit hooks in place"
    )
    install.add_argument(
        "--stage",
        action="store_true",
        help="stage what the hook rewrote under .kg/ (one-step commits)",
    )
    existing = install.add_mutually_exclusive_group()
    existing.add_argument(
        "--chain", action="store_true", help="keep an existing hook and run it first"
    )
    existing.add_argument(
        "--force", action="store_true", help="set an existing hook aside (not run)"
    )
    install.set_defaults(run=run_install)
    uninstall = actions.add_parser(
        "uninstall", help="remove kgtool's hooks and put back the hooks that were there"
    )
    uninstall.set_defaults(run=run_uninstall)
    run = actions.add_parser(
        "run", help="refresh .kg/ from the staged content and run every check (the hook)"
    )
    run.add_argument(
        "--stage", action="store_true", help="stage what it rewrote under .kg/ (one-step commits)"
    )
    run.set_defaults(run=run_hook)


def run_install(args: argparse.Namespace) -> int:
    root = find_root(args.directory)
    lines = git_hooks.install(root, args.stage, args.chain, args.force, sys.executable)
    print("\n".join(lines))
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    lines, done = git_hooks.uninstall(find_root(args.directory))
    print("\n".join(lines) if lines else "no kgtool hook installed")
    return 0 if done else 1


def run_hook(args: argparse.Namespace) -> int:
    return git_hooks.run(find_root(args.directory), args.stage)
