"""``kgtool mcp``: a Model Context Protocol server on stdio (impact, explain, playbooks, the
map), for coding agents. Needs the optional ``mcp`` package (``pip install 'kgtool[mcp]'``).

Exit codes: 0 when the client closes the connection, 2 when the SDK is missing or the folder
is not a git repository.
"""

from __future__ import annotations

import argparse

from kgtool.commands._common import context


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve impact, explain, playbooks and the map to agents (MCP on stdio)",
        description="Serve kgtool's read path over the Model Context Protocol on stdin/stdout. "
        "Register it with an MCP client (see README: 'kgtool mcp'); do not run it by hand.",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kgtool.read.server import require_sdk, serve

    ctx = context(args)
    require_sdk()
    serve(ctx.root, ctx.config, ctx.store)
    return 0
