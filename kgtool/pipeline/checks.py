"""Every read-only check kgtool has: each layer contributes one function to ``CHECKS``; a
check never writes anything, and bad input it trips over fails that check, not the others."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kgtool.communities.build import COMMUNITIES_FILE, parse_document
from kgtool.communities.document import read_document_bytes
from kgtool.errors import KgError
from kgtool.findings import ERROR, WARNING, Finding, json_document, kept, unique
from kgtool.ontology.drift import drift_findings, unconfirmed_findings
from kgtool.ontology.model import WHERE, load_ontology
from kgtool.ontology.view import report_for
from kgtool.pipeline.context import Context
from kgtool.pipeline.refresh import (
    layer2_from,
    stale_findings,
    tracked_cache_findings,
    unread_manifest_findings,
)
from kgtool.playbook.check import CheckReport
from kgtool.playbook.check import check_playbooks as run_playbook_check
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.raw.graph import WHERE as RAW_WHERE
from kgtool.store import KG_DIR, ONTOLOGY_FILE

NO_COMMUNITIES = "L304"


class CheckOutcome:
    __slots__ = ("communities", "findings", "name", "playbooks", "seconds")

    name: str
    findings: list[Finding]
    # The playbook check's whole report, kept so that `kgtool ci` can tell which playbooks a
    # change touches without resolving every pointer a second time.
    playbooks: CheckReport | None
    # Layer 2 as `kgtool update` would write it now (the communities check computes it), kept
    # so that `kgtool ci` draws a stale map's changelog without clustering a second time.
    communities: dict[str, Any] | None
    seconds: float  # how long the check took (-v)

    def __init__(
        self,
        name: str,
        findings: list[Finding] | None = None,
        playbooks: CheckReport | None = None,
        communities: dict[str, Any] | None = None,
        seconds: float = 0.0,
    ) -> None:
        self.name = name
        self.findings = [] if findings is None else findings
        self.playbooks = playbooks
        self.communities = communities
        self.seconds = seconds

    @property
    def ok(self) -> bool:
        """A check fails on an error; warnings (and silenced errors) fail nothing."""
        return not any(f.is_error for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if not f.is_error]


def check_raw(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    return CheckOutcome("raw graph", tracked_cache_findings(raw) + stale_findings(ctx, raw, None))


def check_communities(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    # Layer 2 as `kgtool update` would make it now, from the raw graph it would write, not the
    # one on disk: a stale layer 1 must not make stale communities look up to date.
    result = layer2_from(ctx, raw, write=False)
    found = unread_manifest_findings(result) + stale_findings(ctx, None, result)
    return CheckOutcome("communities", found, communities=result.document)


def check_playbooks(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    report = run_playbook_check(ctx.root, ctx.config, ctx.store)
    return CheckOutcome("playbooks", report.findings(), report)


def check_labels(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    """Layer 3 against the committed layer 2: drifted labels warn (fail when configured)."""
    if ctx.store.read_bytes(ONTOLOGY_FILE) is None:
        return CheckOutcome("labels")
    ontology = load_ontology(ctx.store)
    data = read_document_bytes(ctx.store)
    if data is None:
        missing = Finding(
            f"{KG_DIR}/{COMMUNITIES_FILE}",
            0,
            WARNING,
            NO_COMMUNITIES,
            "does not exist: the labels cannot be checked against layer 2",
        )
        return CheckOutcome("labels", [missing])
    report = report_for(parse_document(data), ontology, ctx.config)
    level = ERROR if ctx.config.section("ontology")["fail_on_drift"] else WARNING
    return CheckOutcome(
        "labels", drift_findings(report, WHERE, level) + unconfirmed_findings(report, WHERE)
    )


# Each check is given the raw graph as `kgtool update` would write it now (computed once).
Check = Callable[[Context, UpdateResult], CheckOutcome]


# Whether layers 1 and 2 on disk are what `kgtool update` would write: a run that has just
# written them (the hook) has nothing to ask these.
FRESHNESS: list[Check] = [check_raw, check_communities]


# What a refresh cannot fix: labels and playbooks, judged against the layers on disk.
CONTENT: list[Check] = [check_labels, check_playbooks]


CHECKS: list[Check] = FRESHNESS + CONTENT


# The code of "this check could not read its input", by check: the layer's x00...
CANNOT_RUN = {
    "check_raw": "R100",
    "check_communities": "C200",
    "check_labels": "L300",
    "check_playbooks": "P400",
}


# ...unless the file it could not read belongs to a layer: drawing the map reads the labels,
# and a broken ontology.yaml is a labels problem whichever check trips over it first.
CANNOT_READ = {
    RAW_WHERE: "R100",
    f"{KG_DIR}/{COMMUNITIES_FILE}": "C200",
    WHERE: "L300",
}


def _run_one(check: Check, ctx: Context, raw: UpdateResult) -> CheckOutcome:
    """One check's verdict; bad input it trips over fails that check, not the others.
    Findings whose code the setting ``ignore`` names are dropped here, so that they neither
    print nor fail the check."""
    started = time.perf_counter()
    try:
        outcome = check(ctx, raw)
    except KgError as error:
        name = check.__name__.removeprefix("check_").replace("_", " ")
        # Layer 1's errors name the shard at fault, under its folder.
        code = next(
            (c for where, c in CANNOT_READ.items() if (error.path or "").startswith(where)),
            CANNOT_RUN[check.__name__],
        )
        outcome = CheckOutcome(name, [error.finding(code)])
    outcome.findings = kept(outcome.findings, ctx.config["ignore"])
    outcome.seconds = time.perf_counter() - started
    return outcome


def as_json(outcomes: list[CheckOutcome]) -> str:
    return json_document(
        "check",
        all(outcome.ok for outcome in outcomes),
        all_findings(outcomes),
        checks=[{"name": outcome.name, "ok": outcome.ok} for outcome in outcomes],
    )


def all_findings(outcomes: list[CheckOutcome]) -> list[Finding]:
    """Every check's findings, each once (a broken file fails every check that reads it)."""
    return unique(f for outcome in outcomes for f in outcome.findings)


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
    said: list[Finding] = []  # a broken file fails every check that reads it: say it once
    for outcome in outcomes:
        # Errors first: what fails the check leads its lines.
        for finding in unique(said + outcome.errors + outcome.warnings)[len(said) :]:
            print(finding.format())
            said.append(finding)
        if not (quiet and outcome.ok):
            print(f"{'ok' if outcome.ok else 'FAILED'}: {outcome.name}")
        failed += not outcome.ok
    return failed
