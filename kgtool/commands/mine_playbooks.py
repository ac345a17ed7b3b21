"""``kgtool mine-playbooks``: propose playbooks from recurring changes in the history."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kgtool import progress
from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_ERROR, EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.mining.filters import MAX_FILES
from kgtool.mining.miner import MAX_PROPOSALS, Options, Progress, mine
from kgtool.mining.patterns import MIN_SUPPORT


def _at_least(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number no smaller than ``low``; anything else is refused
    (never quietly raised to ``low``, nor read as "no limit")."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        return value

    return parse


DESCRIPTION = """\
Proposes playbooks from recurring changes in the history: reads the first-parent history of
the default branch (one git log pass), finds groups of files that keep changing together,
and writes one proposal per pattern (status: proposed) into <playbooks dir>/proposed/, with
its evidence. Reads the history, .kg/ and the playbooks; writes only the proposals (nothing
with --dry-run). --llm rewords the prose with Claude (needs the llm extra: see
docs/install.md). On a terminal it shows its progress on stderr; -q prints nothing but
problems, -v prints each step with its time."""

EXAMPLES = [
    ("kgtool mine-playbooks", "proposals into playbooks/proposed/, and a summary"),
    ("kgtool mine-playbooks --since 2025-01-01 --dry-run", "recent history only; write nothing"),
    ("kgtool mine-playbooks --prs prs.json", "enrich with a saved pull-request list"),
    ("kgtool mine-playbooks --evaluate", "how well would it have predicted later changes?"),
]

EXIT_CODES = [
    (EXIT_OK, "done (whether or not anything was proposed)"),
    (EXIT_ERROR, "bad usage or input (an empty repository, a shallow clone, a bad PR list)"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "mine-playbooks",
        COMMANDS["mine-playbooks"],
        DESCRIPTION,
        EXAMPLES,
        EXIT_CODES,
        locks=False,
    )
    parser.add_argument("--since", metavar="DATE", help="read only commits after DATE")
    parser.add_argument(
        "--max-changes",
        type=_at_least(0),
        default=0,
        metavar="N",
        help="read at most the last N commits of the default branch (default: all)",
    )
    parser.add_argument(
        "--out", metavar="DIR", help="folder for proposals (default: <playbooks dir>/proposed)"
    )
    parser.add_argument(
        "--prs", type=Path, metavar="FILE", help="saved pull requests (gh pr list --json ...)"
    )
    parser.add_argument(
        "--min-support",
        type=_at_least(2),
        default=MIN_SUPPORT,
        metavar="N",
        help=f"change sets a pattern needs (default {MIN_SUPPORT})",
    )
    parser.add_argument(
        "--max-files",
        type=_at_least(1),
        default=MAX_FILES,
        metavar="N",
        help=f"larger change sets are set aside (default {MAX_FILES})",
    )
    parser.add_argument(
        "--max-proposals",
        type=_at_least(0),
        default=MAX_PROPOSALS,
        metavar="N",
        help=f"write at most N proposals, best first (default {MAX_PROPOSALS})",
    )
    parser.add_argument("--rev", metavar="REV", help="mine REV's history, not the default branch")
    parser.add_argument("--dry-run", action="store_true", help="write nothing; print the summary")
    parser.add_argument(
        "--llm",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="reword intent and pitfalls with Claude, checked against the evidence"
        " (default: the mining.llm_prose setting, off)",
    )
    parser.add_argument(
        "--evaluate",
        action="store_true",
        help="mine the history before a cut and score the predictions on what came after",
    )
    parser.add_argument(
        "--cut",
        type=float,
        default=0.8,
        metavar="SHARE",
        help="--evaluate: the share of change sets mined, oldest first (default 0.8)",
    )
    parser.set_defaults(run=run)


def _progress(verbose: bool) -> Progress:
    """Each step of the run, timed: on the terminal's progress line (rewritten in place), or
    with -v as lines of their own on stderr, wherever it goes."""
    start = time.monotonic()

    def say(text: str) -> None:
        line = f"[{time.monotonic() - start:5.1f}s] {text}"
        if verbose:
            progress.clear()
            print(line, file=sys.stderr, flush=True)
        else:
            progress.draw(line)

    return say


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    options = Options(
        since=args.since,
        max_changes=args.max_changes,
        out=args.out,
        prs=args.prs,
        min_support=args.min_support,
        max_files=args.max_files,
        max_proposals=args.max_proposals,
        revision=args.rev,
        dry_run=args.dry_run,
        llm=args.llm,
    )
    if args.evaluate:
        from kgtool.mining.evaluate import evaluate

        report = evaluate(ctx.root, options, args.cut, _progress(args.verbose))
        progress.clear()
        print("\n".join(report.lines()))
        return EXIT_OK
    result = mine(ctx.root, ctx.config, ctx.store, options, _progress(args.verbose))
    progress.clear()
    if args.quiet:
        return EXIT_OK
    for proposal, path, skip in result.proposals:
        if not skip:
            p = proposal.pattern
            print(
                f"{path}: {proposal.title} (support {p.support}, confidence "
                f"{p.confidence:.2f}, {len(proposal.key_files)} key files)"
            )
    print("\n".join(result.summary()))
    return EXIT_OK
