"""``kgtool check``: every read-only check kgtool has, in one command; exit 1 if any fails.

Each layer contributes one function to ``CHECKS``; a check never writes anything.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field

from kgtool.commands._common import Context, context
from kgtool.commands.update import layer2_from
from kgtool.communities.build import COMMUNITIES_FILE, parse_document
from kgtool.errors import KgError
from kgtool.ontology.drift import drift_lines, unconfirmed_lines
from kgtool.ontology.model import ONTOLOGY_FILE, WHERE, load_ontology
from kgtool.ontology.view import report_for
from kgtool.playbook.check import CheckReport
from kgtool.playbook.check import check_playbooks as run_playbook_check
from kgtool.raw.build import UpdateResult, update_raw


@dataclass
class CheckOutcome:
    name: str
    ok: bool
    messages: list[str] = field(default_factory=list)  # one problem per line, file:line first
    warnings: list[str] = field(default_factory=list)
    # The playbook check's whole report, kept so that `kgtool ci` can tell which playbooks a
    # change touches without resolving every pointer a second time.
    playbooks: CheckReport | None = None


def check_raw(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    if raw.changed:
        return CheckOutcome(
            "raw graph", False, [".kg/raw.jsonl is out of date: run `kgtool update`"]
        )
    return CheckOutcome("raw graph", True)


def check_communities(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    # Layer 2 as `kgtool update` would make it now, from the raw graph it would write, not the
    # one on disk: a stale raw.jsonl must not make stale communities look up to date.
    result = layer2_from(ctx, raw, write=False)
    if result.stale:
        names = ", ".join(f".kg/{n}" for n in [*result.changed, *result.removed])
        return CheckOutcome("communities", False, [f"{names} out of date: run `kgtool update`"])
    return CheckOutcome("communities", True)


def check_playbooks(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    report = run_playbook_check(ctx.root, ctx.config, ctx.store)
    return CheckOutcome(
        "playbooks", report.ok, report.error_lines(), report.warning_lines(), report
    )


def check_labels(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    """Layer 3 against the committed layer 2: drifted labels warn (fail when configured)."""
    if ctx.store.read_bytes(ONTOLOGY_FILE) is None:
        return CheckOutcome("labels", True)
    try:
        ontology = load_ontology(ctx.store)
    except KgError as error:
        return CheckOutcome("labels", False, [str(error)])
    data = ctx.store.read_bytes(COMMUNITIES_FILE)
    if data is None:
        return CheckOutcome("labels", True, warnings=["no .kg/communities.json to check against"])
    report = report_for(parse_document(data), ontology, ctx.config)
    drifted = drift_lines(report, WHERE)
    warnings = unconfirmed_lines(report, WHERE)
    if ctx.config.section("ontology")["fail_on_drift"]:
        return CheckOutcome("labels", not drifted, drifted, warnings)
    return CheckOutcome("labels", True, warnings=drifted + warnings)


# Each check is given the raw graph as `kgtool update` would write it now (computed once).
Check = Callable[[Context, UpdateResult], CheckOutcome]

# Whether layers 1 and 2 on disk are what `kgtool update` would write: a run that has just
# written them (the hook) has nothing to ask these.
FRESHNESS: list[Check] = [check_raw, check_communities]
# What a refresh cannot fix: labels and playbooks, judged against the layers on disk.
CONTENT: list[Check] = [check_labels, check_playbooks]
CHECKS: list[Check] = FRESHNESS + CONTENT


def _run_one(check: Check, ctx: Context, raw: UpdateResult) -> CheckOutcome:
    """One check's verdict; bad input it trips over fails that check, not the others."""
    try:
        return check(ctx, raw)
    except KgError as error:
        name = check.__name__.removeprefix("check_").replace("_", " ")
        return CheckOutcome(name, False, [str(error)])


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("check", help="run every check; change nothing")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems and warnings"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    with ctx.store.lock():
        outcomes = run_checks(ctx)
    return 1 if report(outcomes, args.quiet) else 0


def run_checks(
    ctx: Context, raw: UpdateResult | None = None, checks: list[Check] | None = None
) -> list[CheckOutcome]:
    """Every check's outcome (or those of ``checks``), in order. The caller holds the lock
    (nothing may rewrite ``.kg/`` while it is read). ``raw`` is layer 1 as ``kgtool update``
    would write it now; computed here when not given."""
    if raw is None:
        raw = update_raw(ctx.root, ctx.config, ctx.store, write=False)
    return [_run_one(check, ctx, raw) for check in (CHECKS if checks is None else checks)]


def report(outcomes: list[CheckOutcome], quiet: bool) -> int:
    """Prints the outcomes; the number of checks that failed."""
    failed = 0
    said: set[str] = set()  # a broken file fails every check that reads it: say it once
    for outcome in outcomes:
        for message in outcome.messages:
            if message not in said:
                print(message)
            said.add(message)
        for warning in outcome.warnings:
            print(f"warning: {warning}")
        if not (quiet and outcome.ok):
            print(f"{'ok' if outcome.ok else 'FAILED'}: {outcome.name}")
        failed += not outcome.ok
    return failed
