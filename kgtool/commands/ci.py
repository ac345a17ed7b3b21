"""``kgtool ci``: the pull-request check; reports as GitHub shows it, or to a terminal."""

from __future__ import annotations

import argparse
import os

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_ERROR, EXIT_FAILED, EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.integrations import github
from kgtool.integrations.pr_check import (
    Event,
    PullRequestReport,
    gather,
    read_event,
    render_plain,
)
from kgtool.playbook.model import ERROR

DESCRIPTION = """\
Checks a pull request: every check of `kgtool check` (.kg/ up to date with the code,
playbooks refused, labels drifted), then, against the pull request's base, its architecture
changes and the playbooks whose key files it touches.

In GitHub Actions (GITHUB_ACTIONS=true) the base is the event's pull_request.base.sha (or
the merge base with GITHUB_BASE_REF); problems become annotations at their file and line,
the report goes to the job summary ($GITHUB_STEP_SUMMARY) and counts to $GITHUB_OUTPUT.
Elsewhere the base is the merge base with the default branch and the same report is
printed, so it can be run before pushing. In a shallow clone without the base, every
verdict is still given, and one line says what to fetch for the rest. -q prints only what
the checks found (no changelog), outside GitHub Actions. Writes nothing in the
repository (but the git-ignored cache); --comment needs GITHUB_TOKEN with pull-requests:
write, and is skipped otherwise."""

EXAMPLES = [
    ("kgtool ci", "before pushing: the report for this branch"),
    ("kgtool ci --base origin/main", "against another base"),
    ("kgtool ci --comment", "in a workflow: also keep one pull-request comment up to date"),
]

EXIT_CODES = [
    (EXIT_OK, "every check passed (drifted labels only warn, unless ontology.fail_on_drift)"),
    (EXIT_FAILED, "a check failed: .kg/ is stale, a playbook is refused, ..."),
    (EXIT_ERROR, "bad usage or input (an unknown --base, an unreadable event file)"),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(subparsers, "ci", COMMANDS["ci"], DESCRIPTION, EXAMPLES, EXIT_CODES)
    parser.add_argument(
        "--base", metavar="REV", help="compare with REV (default: the pull request's base)"
    )
    parser.add_argument(
        "--comment",
        action="store_true",
        help="in GitHub Actions, also write the summary to one pull-request comment, created "
        "once and updated afterwards (GITHUB_TOKEN, GITHUB_API_URL); never fails the check",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    event = read_event(os.environ) if in_actions else Event()
    report = gather(ctx, args.base, event, in_actions)
    plain = render_plain(report)
    if in_actions:
        github.publish(report, plain, os.environ, event, args.comment)
    elif args.quiet:
        print(problems_only(report), end="")
    else:
        print(plain, end="")
        if args.comment:
            print("comment skipped: only a GitHub Actions run has a pull request to comment on")
    return EXIT_OK if report.ok else EXIT_FAILED


def problems_only(report: PullRequestReport) -> str:
    """-q: what the checks found and what could not be checked, as the report words them;
    no verdict lines, no changelog."""
    lines = [
        f"{'' if finding.severity == ERROR else 'warning: '}{finding.text}"
        for finding in report.findings
    ]
    if report.not_checked:
        lines.append(f"not checked: {report.not_checked}")
    return "".join(f"{line}\n" for line in lines)
