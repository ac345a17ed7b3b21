"""``kgtool check``: every read-only check kgtool has, in one command; exit 1 if any fails."""

from __future__ import annotations

import argparse

from kgtool.commands._common import context
from kgtool.raw.build import update_raw


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("check", help="run every check; change nothing")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    failures = 0
    with ctx.store.lock():
        raw = update_raw(ctx.root, ctx.config, ctx.store, write=False)
    if raw.changed:
        print("stale: .kg/raw.jsonl is out of date: run `kgtool update`")
        failures += 1
    else:
        print("ok: .kg/raw.jsonl is up to date")
    return 1 if failures else 0
