"""What every command needs first: the repository its arguments name, and the options that
commands share."""

from __future__ import annotations

import argparse
from pathlib import Path

from kgtool.pipeline.context import Context, open_context


def context(args: argparse.Namespace) -> Context:
    return open_context(Path(args.directory))


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format text|json``, the same on every command that reports findings."""
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: one finding a line (path:line: level: CODE message); json: one document "
        "with the findings and a summary (docs/findings.md)",
    )
