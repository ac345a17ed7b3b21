"""``kgtool diff [BASE [HEAD]]``: the architecture changelog between two revisions
(``kgtool.pipeline.changelog``). HEAD defaults to the working tree (what ``kgtool update``
would write now), BASE to the merge base with the default branch.
"""

from __future__ import annotations

import argparse

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.communities.diff import render_markdown, render_text
from kgtool.errors import KgError
from kgtool.ontology.changes import change_lines
from kgtool.pipeline.changelog import WORKING_TREE, changelog, default_base
from kgtool.repo import head_commit, resolve_commit
from kgtool.store import pretty_json

DESCRIPTION = """\
Prints the architecture changelog between two revisions: communities born, retired, split or
merged, files that moved between communities, coupling between communities that grew or
shrank, and label changes. BASE defaults to the merge base with the default branch, HEAD to
the working tree. A revision's layer 2 is its committed .kg/communities.json; one without it
is built in a temporary worktree (removed afterwards). Writes nothing in the repository (but
the git-ignored cache). The changelog is printed with -q too: it is what was asked for."""

EXAMPLES = [
    ("kgtool diff", "this branch's changes against the default branch"),
    ("kgtool diff HEAD~10 HEAD", "between two revisions"),
    ("kgtool diff --format markdown main", "for a pull-request description"),
]

EXIT_CODES = [(EXIT_OK, "the changelog was printed (whether or not anything changed)")]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(subparsers, "diff", COMMANDS["diff"], DESCRIPTION, EXAMPLES, EXIT_CODES)
    parser.add_argument(
        "base", nargs="?", help="base revision (default: merge base with the default branch)"
    )
    parser.add_argument("head", nargs="?", help="head revision (default: the working tree)")
    parser.add_argument(
        "--format", choices=("text", "markdown", "json"), default="text", help="output format"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    if not head_commit(ctx.root):
        raise KgError("the repository has no commits yet: there is nothing to compare against")
    base = resolve_commit(ctx.root, args.base or default_base(ctx.root))
    head = resolve_commit(ctx.root, args.head) if args.head else None
    report = changelog(ctx, base, head)
    labels = change_lines(report["labels"])
    base_name = base[:12]
    head_name = head[:12] if head else WORKING_TREE
    if args.format == "json":
        print(pretty_json({"base_rev": base, "head_rev": head or WORKING_TREE, **report}), end="")
    elif args.format == "markdown":
        print(render_markdown(report, base_name, head_name, labels), end="")
    else:
        print(render_text(report, base_name, head_name, labels), end="")
    return EXIT_OK
