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
from kgtool.query.kg import load_map, missing_notice
from kgtool.repo import differing_statuses, resolve_commit
from kgtool.store import KG_DIR, atomic_write

PAGE_FILE = "map.html"  # in the local cache, when no --out is given
MERMAID_OPEN = "```mermaid"

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


def register(subparsers: argparse._SubParsersAction) -> None:
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
    if not args.html:
        if args.out or args.diff:
            raise KgError("--out and --diff go with --html: the Mermaid picture is printed")
        sys.stdout.write(mermaid_picture(ctx.store.read_bytes("MAP.md")))
        return EXIT_OK
    from kgtool.query.map_page import PageDiff, page_data, render_page

    state = load_map(ctx.root, ctx.config, ctx.store, indexed=True)
    if state.missing:
        raise KgError(missing_notice(state.missing))
    if state.document is None:
        raise KgError(next(iter(state.notices), f"{KG_DIR}/ cannot be read: run `kgtool update`"))
    diff = None
    if args.diff:
        commit = resolve_commit(ctx.root, args.diff)
        diff = PageDiff(args.diff, commit, differing_statuses(ctx.root, commit))
    page = render_page(page_data(state, ctx.root.name, diff))
    # A relative --out is taken from where kgtool runs, as -C has it (git's way).
    out = Path(args.directory, args.out) if args.out else ctx.store.cache_dir / PAGE_FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, page, durable=False)
    if state.stale:
        print(f"kgtool: warning: {state.stale}", file=sys.stderr)
    if not args.quiet:
        communities = len(state.communities)
        print(
            f"wrote {out} ({len(page) // 1024} KB: {len(state.community_of)} files in "
            f"{communities} communities); open it in a browser"
        )
    return EXIT_OK


def mermaid_picture(map_text: bytes | None) -> str:
    """The first Mermaid block of MAP.md, fences included; "" when MAP.md has none."""
    if map_text is None:
        raise KgError(missing_notice([f"{KG_DIR}/MAP.md"]))
    lines = map_text.decode("utf-8", "replace").split("\n")
    if MERMAID_OPEN not in lines:
        return ""
    start = lines.index(MERMAID_OPEN)
    end = next((i for i in range(start + 1, len(lines)) if lines[i] == "```"), None)
    if end is None:
        return ""
    return "\n".join(lines[start : end + 1]) + "\n"
