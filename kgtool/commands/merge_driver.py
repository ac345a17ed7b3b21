"""``kgtool merge-driver``: what git runs for a file of ``.kg/`` that both sides of a merge
changed (``.kg/.gitattributes`` names it; ``kgtool hooks install`` registers it).

Two fresh maps merged line by line are not a fresh map, and conflict markers in them help
nobody: the driver keeps our side of the file, so the merge goes on, and the hook that runs
before the merge commit (pre-merge-commit; pre-commit after a merge you finish by hand)
rebuilds ``.kg/`` from the merged tree, warm from our side's communities.
"""

from __future__ import annotations

import argparse
import sys

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.escape import printable
from kgtool.repo import find_root, named_a_merge, run_by_a_merge

DESCRIPTION = """\
What git runs for a file under .kg/ that both sides of a merge changed: keeps our side of the
file (the merge goes on, with no conflict markers), for kgtool's pre-merge-commit or
pre-commit hook to rebuild .kg/ from the merged tree before the merge is committed. In a
rebase or cherry-pick, which run no such hook, the file is left conflicted instead (without
markers): run kgtool update, git add .kg, then continue. git passes
the base, ours and theirs as temporary files and the path; nothing else is read or written.
`kgtool hooks install` registers it (merge.kgtool.driver in the repository's git config);
by hand: git config merge.kgtool.driver 'kgtool merge-driver %O %A %B %P'."""

EXAMPLES = [
    ("kgtool merge-driver %O %A %B %P", "as git runs it (merge.kgtool.driver)"),
    ("kgtool merge-driver base.tmp ours.tmp theirs.tmp .kg/MAP.md", "ours.tmp is left as it is"),
]

EXIT_CONFLICT = 1
EXIT_CODES = [
    (EXIT_OK, "our side kept: the file counts as merged"),
    (EXIT_CONFLICT, "not in a merge (a rebase, a cherry-pick): the file is left conflicted"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "merge-driver",
        COMMANDS["merge-driver"],
        DESCRIPTION,
        EXAMPLES,
        EXIT_CODES,
        locks=False,
    )
    parser.add_argument("base", help="the common ancestor's version (git's %%O)")
    parser.add_argument("ours", help="our version, where the result is left (git's %%A)")
    parser.add_argument("theirs", help="their version (git's %%B)")
    parser.add_argument("path", nargs="?", help="the file's path in the repository (git's %%P)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The action's words first: a rebase's driver need not look for the repository at all.
    if not (named_a_merge() and run_by_a_merge(find_root(args.directory))):
        # A rebase or cherry-pick replays commits with no hook to rebuild .kg/ after it:
        # our side kept would be committed stale. Left conflicted (no markers), it stops.
        print(
            f"kgtool merge-driver: {printable(args.path or 'a .kg/ file')} left conflicted: "
            "a rebase or "
            "cherry-pick runs no hook that rebuilds .kg/; run `kgtool update`, `git add .kg`, "
            "then continue",
            file=sys.stderr,
        )
        return EXIT_CONFLICT
    # Our version is already where git reads the result from: keeping it is doing nothing.
    return EXIT_OK
