"""``kgtool mcp``: a Model Context Protocol server on stdio (impact, explain, playbooks, the
map), for coding agents. Needs the optional ``mcp`` package (the ``mcp`` extra: docs/install.md).

Exit codes: 0 when the client closes the connection, 2 when the SDK is missing or the folder
is not a git repository.
"""

from __future__ import annotations

import argparse

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import context

DESCRIPTION = """\
Serves kgtool's read path over the Model Context Protocol on stdin/stdout: the tools context,
impact, explain and playbooks, and the map, the community pages and the playbooks as
resources. Register it with an MCP client (docs/read-path.md: `kgtool mcp`); it is not meant
to be run by hand. Reads .kg/ and the playbooks only. Needs the mcp extra (see
docs/install.md)."""

EXAMPLES = [
    ("kgtool mcp", "what an MCP client runs (claude mcp add kgtool -- kgtool mcp)"),
    ("kgtool mcp -C /path/to/repo", "serve another repository"),
]

EXIT_CODES = [(EXIT_OK, "the client closed the connection")]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "mcp", COMMANDS["mcp"], DESCRIPTION, EXAMPLES, EXIT_CODES, locks=False
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kgtool.query.server import require_sdk, serve

    ctx = context(args)
    require_sdk()
    serve(ctx.root, ctx.config, ctx.store)
    return EXIT_OK
