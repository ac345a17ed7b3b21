"""``kgtool check``: every read-only check kgtool has, in one command; exit 1 if any fails.

Each layer contributes one function to ``CHECKS``; a check never writes anything.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field

from kgtool.commands._common import Context, context
from kgtool.communities.build import update_communities
from kgtool.playbook.check import check_playbooks as run_playbook_check
from kgtool.raw.build import UpdateResult, update_raw


@dataclass
class CheckOutcome:
    name: str
    ok: bool
    messages: list[str] = field(default_factory=list)  # one problem per line, file:line first
    warnings: list[str] = field(default_factory=list)


def check_raw(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    if raw.changed:
        return CheckOutcome(
            "raw graph", False, [".kg/raw.jsonl is out of date: run `kgtool update`"]
        )
    return CheckOutcome("raw graph", True)


def check_communities(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    # Layer 2 as `kgtool update` would make it now, from the raw graph it would write, not the
    # one on disk: a stale raw.jsonl must not make stale communities look up to date.
    result = update_communities(
        ctx.root, ctx.config, ctx.store, raw.content, write=False, edges=raw.file_edges
    )
    if result.stale:
        names = ", ".join(f".kg/{n}" for n in [*result.changed, *result.removed])
        return CheckOutcome("communities", False, [f"{names} out of date: run `kgtool update`"])
    return CheckOutcome("communities", True)


def check_playbooks(ctx: Context, raw: UpdateResult) -> CheckOutcome:
    report = run_playbook_check(ctx.root, ctx.config, ctx.store)
    return CheckOutcome("playbooks", report.ok, report.error_lines(), report.warning_lines())


# Each check is given the raw graph as `kgtool update` would write it now (computed once).
CHECKS: list[Callable[[Context, UpdateResult], CheckOutcome]] = [
    check_raw,
    check_communities,
    check_playbooks,
]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("check", help="run every check; change nothing")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    failed = 0
    with ctx.store.lock():
        raw = update_raw(ctx.root, ctx.config, ctx.store, write=False)
        outcomes = [check(ctx, raw) for check in CHECKS]
    for outcome in outcomes:
        for message in outcome.messages:
            print(message)
        for warning in outcome.warnings:
            print(f"warning: {warning}")
        print(f"{'ok' if outcome.ok else 'FAILED'}: {outcome.name}")
        failed += not outcome.ok
    return 1 if failed else 0
