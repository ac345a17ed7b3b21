"""``kgtool map``: the map as a picture — MAP.md's Mermaid diagram, or with ``--html`` one
self-contained page to open in a browser (``kgtool.query.map_page``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_OK, command_parser
from kgtool.commands._common import context
from kgtool.errors import KgError
from kgtool.store import KG_DIR

PAGE_FILE = "map.html"  # in the local cache, when no --out is given

DESCRIPTION = f"""\
Prints the picture that opens {KG_DIR}/MAP.md: a Mermaid flowchart of the areas (or the largest
communities) and their strongest typed dependencies, as GitHub draws it. With --html, writes
one self-contained page instead (no network needed to view it): a treemap where areas open
into communities and communities into files, names, summaries, drift marks and edge counts on
hover, a search box for files, symbols and communities, and with --diff BASE the files that
differ from BASE coloured, with their communities and areas. Reads {KG_DIR}/ only (a warning
on stderr when it is older than the working tree)."""

EXAMPLES = [
    ("kgtool map", "the Mermaid picture, to paste into an issue or a wiki"),
    ("kgtool map --html", "the page, written under the git directory; its path is printed"),
    ("kgtool map --html --out map.html", "the page, where you want it"),
    ("kgtool map --html --diff main", "what this branch touched, coloured"),
]

EXIT_CODES = [(EXIT_OK, "the picture was printed, or the page written")]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers, "map", COMMANDS["map"], DESCRIPTION, EXAMPLES, EXIT_CODES, locks=False
    )
    parser.add_argument("--html", action="store_true", help="write the interactive page")
    parser.add_argument(
        "--out", metavar="FILE", help=f"where to write the page (default: git dir/{PAGE_FILE})"
    )
    parser.add_argument(
        "--diff",
        metavar="BASE",
        help="colour the files that differ between BASE and the working tree (with --html)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ctx = context(args)
    # Imported here: the page's module reads layer 3's labels, which -h need not load.
    from kgtool.query.map_page import mermaid_picture, write_page

    if not args.html:
        if args.out or args.diff:
            raise KgError("--out and --diff go with --html: the Mermaid picture is printed")
        picture = mermaid_picture(ctx.store)
        if not picture:
            raise KgError(f"{KG_DIR}/MAP.md holds no picture (a map of one box): try --html")
        sys.stdout.write(picture)
        return EXIT_OK
    # A relative --out is taken from where kgtool runs, as -C has it (git's way).
    out = Path(args.directory, args.out) if args.out else ctx.store.cache_dir / PAGE_FILE
    written = write_page(ctx.root, ctx.config, ctx.store, out, args.diff)
    if written.stale:
        print(f"kgtool: warning: {written.stale}", file=sys.stderr)
    if not args.quiet:
        print(
            f"wrote {written.path} ({written.size // 1024} KB: {written.files} files in "
            f"{written.communities} communities); open it in a browser"
        )
    return EXIT_OK
