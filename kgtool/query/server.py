"""``kgtool mcp``: the read path served to agents over the Model Context Protocol, on stdio.

Tools answer the same questions as the commands (impact, explain, the playbooks and their
verdicts, and the task context); resources are the map, the community
pages and the playbooks. Every call reads ``.kg/`` and ``playbooks/`` afresh, so a server left
running follows the repository, and every answer starts with the one-line warning when
``.kg/`` is out of date. Refused playbooks are marked wherever they appear.

The ``mcp`` package is an optional extra: it is imported here, and only here, when the server
starts.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from kgtool import __version__, bounded
from kgtool.communities.identity import id_number
from kgtool.config import Config
from kgtool.errors import KgError, extra_install
from kgtool.ontology.map import MAP_FILE
from kgtool.playbook.parse import NOT_READ
from kgtool.query.explain import explain_answer
from kgtool.query.impact import impact_answer
from kgtool.query.kg import load_map, missing_notice
from kgtool.query.playbooks import EXECUTABLE, PlaybookStatus, find_playbook, playbook_statuses
from kgtool.store import KG_DIR, PAGES_DIR, Store

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INSTALL = extra_install("mcp")
# The most an answer (a tool's or a resource's) may hold: 32,000 characters, about 8,000 tokens,
# a few percent of an agent's context and well above the context tool's default budget (12,000)
# and a community page. `impact --depth 50` on a central symbol is 255 KB; an answer that big
# crowds out the task it was asked for.
MAX_ANSWER_CHARS = 32_000
SCHEME = "kgtool"
PAGE_NAME = re.compile(r"c[0-9]+")
INSTRUCTIONS = (
    "kgtool's map of this repository: layer 1 symbols and edges, layer 2 communities, layer 3 "
    "labels (marked when unlabelled or drifted: then a guess, not fact), layer 4 playbooks "
    "(recipes for recurring tasks; a refused one must not be followed). For a recurring task, "
    "look for a playbook first; otherwise read the map, then explain the community. Before "
    "changing a symbol, ask impact for what depends on it: a lower bound, stated as one."
)


def require_sdk() -> None:
    """A one-line error naming the install command when the optional ``mcp`` is missing."""
    if importlib.util.find_spec("mcp") is None:
        raise KgError(f"`kgtool mcp` needs the MCP Python SDK, which is not installed: {INSTALL}")


def serve(root: Path, config: Config, store: Store) -> None:
    require_sdk()
    server = build_server(root, config, store)
    _run_beside_the_main_thread(lambda: server.run("stdio"))


def _run_beside_the_main_thread(run: Callable[[], None]) -> None:
    """``run`` in a daemon thread, the main thread waiting for it.

    The SDK reads stdin in a worker thread that only the client wakes, by closing the pipe; a
    client stopping its server sends SIGTERM with the pipe still open, and the interpreter's
    exit would wait for that thread for ever (it printed "terminated" and went on running).
    A thread is a daemon when the thread that starts it is, so the SDK's are, and the exit
    does not wait for them; signals still land in the main thread, which unwinds as in any
    other command."""
    failures: list[BaseException] = []

    def run_and_keep_the_failure() -> None:
        try:
            run()
        except BaseException as failure:  # handed to the main thread, raised there
            failures.append(failure)

    thread = threading.Thread(target=run_and_keep_the_failure, name="kgtool mcp", daemon=True)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]


def capped(text: str, json_answer: bool = False) -> str:
    """``text`` within ``MAX_ANSWER_CHARS``: whole lines, then one line saying what was left out.

    JSON cut short is not JSON: an answer in JSON over the cap is an error saying so.
    """
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    if json_answer:
        raise KgError(
            f"the answer is {len(text):,} characters, over the cap of {MAX_ANSWER_CHARS:,}: "
            "ask a narrower question (a smaller depth, a symbol rather than a file), in text "
            "to get its first part, or run the command in a terminal"
        )
    room = MAX_ANSWER_CHARS - 300  # for the line that says what is left out
    cut = text.rfind("\n", 0, room) + 1 or room
    kept = text[:cut] if text[cut - 1] == "\n" else text[:cut] + "\n"  # a line cut mid-way ends
    rest = text[cut:]
    lines = rest.count("\n") + (not rest.endswith("\n"))
    return (
        f"{kept}truncated: {lines:,} more line{'s' * (lines != 1)} ({len(rest):,} "
        f"characters) past the cap of {MAX_ANSWER_CHARS:,} characters an answer holds; ask a "
        "narrower question (a smaller depth, a symbol rather than a file) or run the command "
        "in a terminal\n"
    )


def _answer(answer: tuple[str, str]) -> str:
    """A command's answer as a tool gives it: the staleness warning (if any) on top."""
    output, stale = answer
    return f"kgtool: warning: {stale}\n{output}" if stale else output


def _tool_error(call: Callable[[], str]) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return call()
    except KgError as error:  # the user's mistake, in the command's own words
        raise ToolError(str(error)) from None


def build_server(root: Path, config: Config, store: Store) -> MCPServer:
    from mcp.server.mcpserver import MCPServer

    server: MCPServer = MCPServer(name="kgtool", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(
        name="impact",
        structured_output=False,
        description=(
            "What depends on a file or symbol: callers, importers and subclasses, followed back "
            "to `depth` steps, with provenance tiers and multiplied confidences, grouped by "
            "community. A lower bound: ambiguous and unresolved call sites that could also "
            "reach it are counted apart. `target` is a path or path::Symbol (a layer-1 ID); "
            "or leave it empty and set `diff_base` (e.g. HEAD) for the impact of the files "
            "changed since that revision."
        ),
    )
    def impact(
        target: str = "",
        depth: int = 3,
        diff_base: str = "",
        format: Literal["text", "json"] = "text",
    ) -> str:
        return _tool_error(
            lambda: capped(
                _answer(
                    impact_answer(root, config, store, target, depth, format, diff_base or None)
                ),
                format == "json",
            )
        )

    @server.tool(
        name="explain",
        structured_output=False,
        description=(
            "What one node of the map is, where it lives (files, file:line), what it touches "
            "(typed edge counts to and from other communities) and which playbooks point at "
            "it. `subject`: a community ID (c7), a layer-3 name, a path, or path::Symbol."
        ),
    )
    def explain(subject: str, format: Literal["text", "json"] = "text") -> str:
        return _tool_error(
            lambda: capped(
                _answer(explain_answer(root, config, store, subject, format)), format == "json"
            )
        )

    @server.tool(
        name="playbooks",
        structured_output=False,
        description=(
            "The playbooks (recipes for recurring tasks) with their verdict from `kgtool "
            "playbooks check`: executable, refused (a pointer no longer resolves: do not "
            "follow it) or not executable (proposed or retired). With `name` (a slug or "
            "path), that playbook in full, its verdict and problems first."
        ),
    )
    def playbooks(name: str = "") -> str:
        return _tool_error(lambda: capped(playbook_lookup(root, config, store, name)))

    _add_context_tool(server, root)
    _add_resources(server, root, config, store)
    return server


def _add_context_tool(server: MCPServer, root: Path) -> None:
    from kgtool.query.context import context_for

    @server.tool(
        name="context",
        structured_output=False,
        description=(
            "Everything worth reading for a task, within `budget` characters (at most 32,000), "
            "most relevant "
            "first, every item cited: the matching playbook with its concepts and key symbols, "
            "or the best-matching communities when no playbook matches."
        ),
    )
    def context(
        task: str, budget: int = 12000, format: Literal["markdown", "json"] = "markdown"
    ) -> str:
        # The answer keeps within its budget: one past the cap would only be cut (in JSON, an
        # error), so the budget an agent may ask for ends at the cap.
        budget = min(budget, MAX_ANSWER_CHARS)
        return _tool_error(
            lambda: capped(context_for(root, task, budget, format), format == "json")
        )


def playbook_lookup(root: Path, config: Config, store: Store, name: str = "") -> str:
    """The playbooks with their verdicts, or one in full; under the staleness warning when
    ``.kg/``, which the verdicts are checked against, is out of date."""
    state = load_map(root, config, store)
    statuses = playbook_statuses(root, config, store, state)
    if name.strip():
        max_bytes = int(config.section("playbooks")["max_bytes"])
        found = find_playbook(statuses, name)
        return _answer((marked_playbook(root, found, max_bytes), state.stale))
    if not statuses:
        return "no playbooks\n"
    lines = [status.line() for status in statuses]
    executable = sum(s.verdict == EXECUTABLE for s in statuses)
    lines.append(f"{len(statuses)} playbook(s), {executable} executable")
    return _answer(("\n".join(lines) + "\n", state.stale))


def marked_playbook(root: Path, status: PlaybookStatus, max_bytes: int) -> str:
    """The playbook's text under a line with its verdict (and, when refused, why). A file the
    check did not read (a symlink out of the tree, too large, not UTF-8) is not read here
    either: its verdict says why, and nothing else is served."""
    head = f"> kgtool playbooks check: {status.path} is {status.verdict}"
    if status.report.refused:
        head += ": do not follow it until it is fixed"
    problems = [f"> {problem}" for problem in status.report.problems]
    unread = any(problem.code == NOT_READ for problem in status.report.problems)
    data = None if unread else bounded.read_tracked(root, status.path, max_bytes)
    text = data.decode("utf-8", errors="replace") if data is not None else ""
    return "\n".join([head, *problems, "", text])


def _add_resources(server: MCPServer, root: Path, config: Config, store: Store) -> None:
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError

    def kg_file(name: str) -> Callable[[], str]:
        def read() -> str:
            data = store.read_bytes(name)
            if data is None:
                raise ResourceNotFoundError(missing_notice([f"{KG_DIR}/{name}"]))
            return capped(data.decode("utf-8", "replace"))

        return read

    server.resource(
        f"{SCHEME}://map",
        name="MAP.md",
        description="The community map: names, main files, what each depends on",
        mime_type="text/markdown",
    )(kg_file(MAP_FILE))
    pages = store.path(PAGES_DIR)
    found = sorted(
        (p.stem for p in pages.glob("c*.md") if PAGE_NAME.fullmatch(p.stem)),
        key=id_number,
    )
    for cid in found:
        server.resource(
            f"{SCHEME}://communities/{cid}",
            name=f"community {cid}",
            description=f"{KG_DIR}/{PAGES_DIR}/{cid}.md: files, main symbols, edges",
            mime_type="text/markdown",
        )(kg_file(f"{PAGES_DIR}/{cid}.md"))

    @server.resource(
        f"{SCHEME}://communities/{{cid}}",
        name="community page",
        description="A community's page by ID (c7)",
        mime_type="text/markdown",
    )
    def community_page(cid: str) -> str:
        if not PAGE_NAME.fullmatch(cid):
            raise ResourceNotFoundError(f"{cid!r} is not a community ID (c<N>)")
        return kg_file(f"{PAGES_DIR}/{cid}.md")()

    def playbook_text(slug: str) -> Callable[[], str]:
        def read() -> str:
            try:
                status = find_playbook(playbook_statuses(root, config, store), slug)
            except KgError as error:
                raise ResourceNotFoundError(str(error)) from None
            max_bytes = int(config.section("playbooks")["max_bytes"])
            return capped(marked_playbook(root, status, max_bytes))

        return read

    try:
        slugs = [s.slug for s in playbook_statuses(root, config, store)]
    except KgError:  # unusable settings: the tools say so when called
        slugs = []
    for slug in slugs:
        server.resource(
            f"{SCHEME}://playbooks/{slug}",
            name=f"playbook {slug}",
            description="A playbook, under its verdict from `kgtool playbooks check`",
            mime_type="text/markdown",
        )(playbook_text(slug))

    @server.resource(
        f"{SCHEME}://playbooks/{{slug}}",
        name="playbook",
        description="A playbook by slug, under its verdict",
        mime_type="text/markdown",
    )
    def playbook_page(slug: str) -> str:
        return playbook_text(slug)()
