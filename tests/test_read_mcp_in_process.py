"""``kgtool mcp``'s tools and resources served in this process, through the SDK's in-memory
client: the same answers as the commands, and what a mutation test can see reach the server
(the stdio tests of test_read_mcp.py run it as a process of its own)."""

from __future__ import annotations

import copy
import json
import os
import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from communities_helpers import clique
from conftest import Repo
from playbook_helpers import add_playbook
from read_helpers import build_read_repo

from kgtool.config import Config, load_config
from kgtool.store import Store

pytest.importorskip("mcp", reason="the optional MCP SDK: the mcp extra")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402


def served(
    repo: Repo,
    calls: list[tuple[str, dict[str, Any]]],
    reads: list[str],
    config: Config | None = None,
) -> list[Any]:
    """What the server built for ``repo`` answers to each tool call, then each resource,
    then its resources listed by URI (with the repository's settings unless given)."""
    from kgtool.query.server import build_server

    config = config if config is not None else load_config(repo.root)
    server = build_server(repo.root, config, Store(repo.root))

    async def main() -> list[Any]:
        async with Client(server) as client:
            answers = [await client.call_tool(name, args) for name, args in calls]
            answers += [await client.read_resource(uri) for uri in reads]
            listed = await client.list_resources()
            return [*answers, {str(r.uri): r for r in listed.resources}]

    return anyio.run(main)


def settings_reading_playbooks_from(repo: Repo, folder: str) -> Config:
    """The repository's settings, playbooks read from ``folder`` instead (as a program
    embedding the server might hand it settings of its own)."""
    config = load_config(repo.root)
    values = copy.deepcopy(config.values)
    values["playbooks"]["dir"] = folder
    return Config(values, config.source)


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


def test_each_tool_answers_as_its_command_does(repo: Repo) -> None:
    build_read_repo(repo)
    impact, json_impact, explain, unknown, listed, one, task, changed, page, played, _ = served(
        repo,
        [
            ("impact", {"target": "app/store.py::Store.save", "depth": 2}),
            ("impact", {"target": "app/store.py::Store.save", "format": "json"}),
            ("explain", {"subject": "app/api.py"}),
            ("explain", {"subject": "app/nope.py"}),
            ("playbooks", {}),
            ("playbooks", {"name": "save-records"}),
            ("context", {"task": "save records in the store", "budget": 3000}),
            ("impact", {"diff_base": "HEAD"}),
        ],
        ["kgtool://communities/c3", "kgtool://playbooks/save-records"],
    )
    assert text_of(impact) == repo.kg("impact", "app/store.py::Store.save", "--depth", "2").out
    assert (
        text_of(json_impact)
        == repo.kg("impact", "app/store.py::Store.save", "--format", "json").out
    )
    assert text_of(explain) == repo.kg("explain", "app/api.py").out
    assert unknown.is_error and "names no community" in text_of(unknown)
    assert text_of(listed) == (
        "playbooks/old-cache.md (refused, active): change the thing\n"
        "playbooks/save-records.md (executable, active): change the thing\n"
        "2 playbook(s), 1 executable\n"
    )
    marked = (repo.root / "playbooks/save-records.md").read_text()
    assert text_of(one) == (
        "> kgtool playbooks check: playbooks/save-records.md is executable\n\n" + marked
    )
    context = repo.kg("context", "save records in the store", "--budget", "3000").out
    assert text_of(task) == context
    assert not changed.is_error and text_of(changed) == repo.kg("impact", "--diff", "HEAD").out
    assert text_of(changed).endswith("note: no file differs from HEAD\n")
    assert page.contents[0].text == (repo.root / ".kg/communities/c3.md").read_text()
    assert played.contents[0].text == text_of(one)  # the resource is the tool's answer


def test_an_answer_over_the_cap_is_cut_at_a_line_and_json_is_refused() -> None:
    from kgtool.errors import KgError
    from kgtool.query.server import MAX_ANSWER_CHARS, capped

    assert capped("short\n") == "short\n"
    exact = "x" * (MAX_ANSWER_CHARS - 1) + "\n"
    assert capped(exact) == exact  # at the cap, whole
    whole = "".join(f"line {n:05d}\n" for n in range(MAX_ANSWER_CHARS // 5))
    answer = capped(whole)
    *kept, last = answer.splitlines(keepends=True)
    assert len(answer) <= MAX_ANSWER_CHARS and whole.startswith("".join(kept))
    left = whole[len("".join(kept)) :]
    # Every whole line that fits beside the closing line (300 characters kept for it), not
    # fewer: the next line would not have fitted.
    next_line = left.split("\n", 1)[0] + "\n"
    assert len("".join(kept)) <= MAX_ANSWER_CHARS - 300 < len("".join(kept)) + len(next_line)
    assert last == (
        f"truncated: {left.count(chr(10)):,} more lines ({len(left):,} characters) past the "
        f"cap of {MAX_ANSWER_CHARS:,} characters an answer holds; ask a narrower question (a "
        "smaller depth, a symbol rather than a file) or run the command in a terminal\n"
    )
    # One long last line, with no newline: one more line, counted whole.
    long_last = "first\n" + "a" * MAX_ANSWER_CHARS
    assert capped(long_last).startswith(
        f"first\ntruncated: 1 more line ({MAX_ANSWER_CHARS:,} characters) past the cap"
    )
    # One line longer than the cap: cut in it, and the line saying so starts on its own.
    cut = capped("b" * (MAX_ANSWER_CHARS + 10))
    assert cut.splitlines()[1].startswith("truncated: 1 more line"), cut[-400:]
    with pytest.raises(KgError, match=f"over the cap of {MAX_ANSWER_CHARS:,}"):
        capped(whole, json_answer=True)


def test_a_playbook_is_found_by_its_slug_file_name_or_path(repo: Repo) -> None:
    build_read_repo(repo)
    by_slug, by_file, by_path, unknown, _ = served(
        repo,
        [
            ("playbooks", {"name": "save-records"}),
            ("playbooks", {"name": "save-records.md "}),
            ("playbooks", {"name": "playbooks/save-records.md"}),
            ("playbooks", {"name": "load-records"}),
        ],
        [],
    )
    assert text_of(by_slug) == text_of(by_file) == text_of(by_path)
    assert unknown.is_error
    assert text_of(unknown).endswith(
        "no playbook named 'load-records' (playbooks: old-cache, save-records)"
    )


def test_a_playbook_the_check_did_not_read_is_served_as_its_verdict_alone(
    repo: Repo, tmp_path: Path
) -> None:
    """A playbook committed as a symlink out of the repository is refused unread; the
    server says so and never serves what the link leads to. One not in UTF-8 is refused
    unread too: its verdict is served, not its bytes decoded some other way."""
    build_read_repo(repo)
    outside = tmp_path / "outside.md"
    outside.write_text("---\nintent: secret outside\n---\n")
    (repo.root / "playbooks/leak.md").symlink_to(outside)
    repo.write("playbooks/latin.md", "---\nintent: caf\xe9 recipe\n---\n".encode("latin-1"))
    repo.git("add", "playbooks/leak.md", "playbooks/latin.md")
    repo.commit("a playbook that leads outside, one in Latin-1")
    answer, latin, _ = served(
        repo, [("playbooks", {"name": "leak"}), ("playbooks", {"name": "latin"})], []
    )
    text = text_of(answer)
    assert "leads outside the repository" in text and "secret outside" not in text, text
    text = text_of(latin)
    assert "is not valid UTF-8 (byte 0xe9)" in text and "recipe" not in text, text


def test_playbooks_with_no_map_to_check_them_against_say_what_is_missing(repo: Repo) -> None:
    repo.write("app/store.py", "def save():\n    return 1\n")
    add_playbook(repo, "save-records", ["app/store.py::save"])
    repo.commit("a playbook, no map")
    answer, _ = served(repo, [("playbooks", {})], [])
    assert answer.is_error
    assert text_of(answer).endswith(
        ".kg/ is missing (.kg/raw/, .kg/communities.json not found): run `kgtool update`"
    )


def test_community_pages_are_listed_in_the_order_of_their_ids(
    make_repo: Callable[..., Repo],
) -> None:
    """c2 before c10: the pages are listed by number, as the map lists them, not as text."""
    files: dict[str, str] = {}
    for number in range(11):
        files.update(clique(f"part{number}", ["a", "b", "c"]))
    repo = make_repo(files)
    assert repo.kg("update").code == 0
    [listed] = served(repo, [], [])
    pages = [uri.rsplit("/", 1)[1] for uri in listed if uri.startswith("kgtool://communities/")]
    assert pages == [f"c{number}" for number in range(1, 12)]


def test_each_page_and_playbook_is_a_resource_named_and_described(repo: Repo) -> None:
    """A client lists what it may read before reading it: each community page and each
    playbook under its own name, with what it holds, as markdown; the list of playbooks
    counts those that may be followed."""
    build_read_repo(repo)
    add_playbook(repo, "load-records", ["app/store.py::Store.load"])
    repo.commit("a second executable playbook")
    listed, resources = served(repo, [("playbooks", {})], [])
    page, played = resources["kgtool://communities/c2"], resources["kgtool://playbooks/old-cache"]
    assert (page.name, page.description, page.mime_type) == (
        "community c2",
        ".kg/communities/c2.md: files, main symbols, edges",
        "text/markdown",
    )
    assert (played.name, played.description, played.mime_type) == (
        "playbook old-cache",
        "A playbook, under its verdict from `kgtool playbooks check`",
        "text/markdown",
    )
    assert text_of(listed).endswith("3 playbook(s), 2 executable\n"), text_of(listed)


def test_the_server_reads_with_the_settings_it_is_given(repo: Repo) -> None:
    """Tools and resources alike read with the settings handed to the server, not a second
    reading of the repository's file: with playbooks looked for in an empty folder, none is
    listed, as a tool or as a resource."""
    build_read_repo(repo)
    *_, mine = served(repo, [], [])
    assert "kgtool://playbooks/save-records" in mine
    listed, resources = served(
        repo, [("playbooks", {})], [], settings_reading_playbooks_from(repo, "recipes")
    )
    assert text_of(listed) == "no playbooks\n"
    assert not [uri for uri in resources if uri.startswith("kgtool://playbooks/")]


def test_the_server_names_itself_and_its_map_and_a_missing_map_names_its_file(
    repo: Repo,
) -> None:
    from kgtool import __version__
    from kgtool.query.server import build_server

    build_read_repo(repo)
    server = build_server(repo.root, load_config(repo.root), Store(repo.root))

    async def main() -> tuple[Any, Any, str]:
        async with Client(server) as client:
            info = client.server_info
            listed = await client.list_resources()
            (repo.root / ".kg" / "MAP.md").unlink()
            try:
                await client.read_resource("kgtool://map")
            except Exception as error:  # the SDK's error for a resource the server refused
                missing = str(error)
            else:
                missing = ""
            return info, listed, missing

    info, listed, missing = anyio.run(main)
    assert (info.name, info.version) == ("kgtool", __version__)
    by_uri = {str(r.uri): r for r in listed.resources}
    the_map = by_uri["kgtool://map"]
    assert the_map.name == "MAP.md" and the_map.mime_type == "text/markdown"
    assert the_map.description == "The community map: names, main files, what each depends on"
    assert ".kg/MAP.md" in missing


def served_over_stdio(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, config: Config, requests: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[tuple[str, bool]]]:
    """``kgtool mcp``'s ``serve`` in this process, its stdin and stdout pipes: a client
    thread sends the MCP handshake then each request, reads each answer, and ends the session
    by closing the server's stdin. Returns the answers (the handshake's first) and the
    threads (name, daemon) alive while the server ran."""
    from kgtool.query.server import serve

    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    monkeypatch.setattr(sys, "stdin", open(in_read, encoding="utf-8"))  # noqa: SIM115
    monkeypatch.setattr(sys, "stdout", open(out_write, "w", encoding="utf-8"))  # noqa: SIM115
    answers: list[dict[str, Any]] = []
    threads: list[tuple[str, bool]] = []
    hello = {
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }

    pending = bytearray()

    def answer() -> bytes:
        """The server's next line; b"" once it is gone or silent for a minute (closing its
        stdin then ends it: a server that stops answering fails the test, never hangs it)."""
        while b"\n" not in pending:
            if not select.select([out_read], [], [], 60)[0]:
                return b""
            chunk = os.read(out_read, 65536)
            if not chunk:
                return b""
            pending.extend(chunk)
        line, _, rest = bytes(pending).partition(b"\n")
        pending[:] = rest
        return line

    def client() -> None:
        # The handshake's answer first; the notice that it is done goes with the first request.
        rounds = [[hello], [{"method": "notifications/initialized"}, requests[0]]]
        rounds += [[request] for request in requests[1:]]
        try:
            with open(in_write, "w", encoding="utf-8") as send:
                for messages in rounds:
                    send.write(
                        "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in messages)
                    )
                    send.flush()
                    line = answer()
                    if not line:  # the server is gone, or silent
                        return
                    answers.append(json.loads(line))
                    if len(answers) == 1:  # serving
                        threads.extend((t.name, t.daemon) for t in threading.enumerate())
        finally:
            os.close(out_read)

    asking = threading.Thread(target=client)
    asking.start()
    try:
        serve(repo.root, config, Store(repo.root))
    finally:
        sys.stdout.close()  # a server that failed leaves the client an end of file
        asking.join(timeout=60)
        sys.stdin.close()
    return answers, threads


def test_serve_answers_on_stdio_from_a_daemon_thread(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server names itself and answers tool calls over stdin and stdout, with the
    settings it is given; it runs in a daemon thread named for it, so an interpreter told to
    stop does not wait for the SDK's reader, and it returns once the client closes stdin."""
    build_read_repo(repo)
    calls = [
        {"id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        for name, arguments in [("explain", {"subject": "app/disk.py"}), ("playbooks", {})]
    ]
    config = settings_reading_playbooks_from(repo, "recipes")
    answers, threads = served_over_stdio(repo, monkeypatch, config, calls)
    hello, explained, playbooks = answers
    assert hello["result"]["serverInfo"]["name"] == "kgtool"
    assert not explained["result"]["isError"]
    assert explained["result"]["content"][0]["text"] == repo.kg("explain", "app/disk.py").out
    assert playbooks["result"]["content"][0]["text"] == "no playbooks\n"
    assert ("kgtool mcp", True) in threads


def test_serve_without_the_sdk_says_how_to_install_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the optional ``mcp`` package not importable, ``kgtool mcp`` stops at once with
    the one-line error naming the install command, not an import error."""
    from kgtool.errors import KgError
    from kgtool.query.server import INSTALL, require_sdk, serve

    require_sdk()  # installed here: nothing to say
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)  # what importing finds for a missing one
    with pytest.raises(KgError, match="needs the MCP Python SDK") as raised:
        serve(repo.root, load_config(repo.root), Store(repo.root))
    assert str(raised.value).endswith(INSTALL)


def test_a_server_that_cannot_start_fails_in_the_caller(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server runs beside the main thread, but what stops it is raised where ``serve``
    was called (the command then fails), never left in the thread: here a closed stdin."""
    from kgtool.query.server import serve

    build_read_repo(repo)
    read, write = os.pipe()
    os.close(write)
    closed = open(read, encoding="utf-8")  # noqa: SIM115
    closed.close()
    monkeypatch.setattr(sys, "stdin", closed)
    with pytest.raises(ValueError, match="closed file"):
        serve(repo.root, load_config(repo.root), Store(repo.root))
