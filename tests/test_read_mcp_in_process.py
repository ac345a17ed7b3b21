"""``kgtool mcp``'s tools and resources served in this process, through the SDK's in-memory
client: the same answers as the commands, and what a mutation test can see reach the server
(the stdio tests of test_read_mcp.py run it as a process of its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Repo
from playbook_helpers import add_playbook
from read_helpers import build_read_repo

from kgtool.config import load_config
from kgtool.store import Store

pytest.importorskip("mcp", reason="the optional MCP SDK: the mcp extra")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402


def served(repo: Repo, calls: list[tuple[str, dict[str, Any]]], reads: list[str]) -> list[Any]:
    """What the server built for ``repo`` answers to each tool call, then each resource."""
    from kgtool.query.server import build_server

    server = build_server(repo.root, load_config(repo.root), Store(repo.root))

    async def main() -> list[Any]:
        async with Client(server) as client:
            answers = [await client.call_tool(name, args) for name, args in calls]
            return answers + [await client.read_resource(uri) for uri in reads]

    return anyio.run(main)


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


def test_each_tool_answers_as_its_command_does(repo: Repo) -> None:
    build_read_repo(repo)
    impact, json_impact, explain, unknown, listed, one, task, changed, page, played = served(
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
    by_slug, by_file, by_path, unknown = served(
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
    server says so and never serves what the link leads to."""
    build_read_repo(repo)
    outside = tmp_path / "outside.md"
    outside.write_text("---\nintent: secret outside\n---\n")
    (repo.root / "playbooks/leak.md").symlink_to(outside)
    repo.git("add", "playbooks/leak.md")
    repo.commit("a playbook that leads outside")
    [answer] = served(repo, [("playbooks", {"name": "leak"})], [])
    text = text_of(answer)
    assert "leads outside the repository" in text and "secret outside" not in text, text


def test_playbooks_with_no_map_to_check_them_against_say_what_is_missing(repo: Repo) -> None:
    repo.write("app/store.py", "def save():\n    return 1\n")
    add_playbook(repo, "save-records", ["app/store.py::save"])
    repo.commit("a playbook, no map")
    [answer] = served(repo, [("playbooks", {})], [])
    assert answer.is_error
    assert text_of(answer).endswith(
        ".kg/ is missing (.kg/raw/, .kg/communities.json not found): run `kgtool update`"
    )


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
