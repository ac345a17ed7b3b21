"""``kgtool check``: every read-only check kgtool has (``kgtool.pipeline.checks``), in one
command; exit 1 if any fails."""

from __future__ import annotations

import argparse

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_FAILED, EXIT_OK, command_parser
from kgtool.commands._common import add_format_option, context
from kgtool.pipeline.checks import as_json, report, run_checks

DESCRIPTION = """\
Runs every read-only check kgtool has and changes nothing (but the git-ignored cache):
.kg/raw/ and .kg/communities.json (and the map) are what `kgtool update` would write
now; the labels of .kg/ontology.yaml have not drifted (a warning, unless
ontology.fail_on_drift); every playbook's pointers resolve. Reads the files, .kgtool.yaml,
.kg/ and the playbooks. Prints each problem and one ok/FAILED line per check; -q prints only
problems and warnings, -v adds the time each check took."""


EXAMPLES = [
    ("kgtool check", "every check, one line each"),
    ("kgtool check -q", "in a hook or CI: only problems and warnings"),
    ("kgtool check -C ../other -v", "another repository, with each check's time"),
]

EXIT_CODES = [
    (EXIT_OK, "every check passed (drifted labels only warn, unless ontology.fail_on_drift)"),
    (EXIT_FAILED, "a check failed: .kg/ is stale, a playbook is refused, ..."),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "check", COMMANDS["check"], DESCRIPTION, EXAMPLES, EXIT_CODES
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    with ctx.store.lock():
        outcomes = run_checks(ctx)
    if args.format == "json":
        failed = sum(not outcome.ok for outcome in outcomes)
        print(as_json(outcomes), end="")
    else:
        failed = report(outcomes, args.quiet)
        if args.verbose:
            for outcome in outcomes:
                print(f"  {outcome.name}: {outcome.seconds:.2f}s")
    return EXIT_FAILED if failed else EXIT_OK
