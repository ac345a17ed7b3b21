"""``kgtool mcp``: the server over stdio, driven by the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest
from conftest import GIT_ENV, PROJECT_ROOT, Repo, interruptible
from read_helpers import build_read_repo

mcp = pytest.importorskip("mcp", reason="the optional MCP SDK: the mcp extra")
anyio = pytest.importorskip("anyio")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def run_session(repo: Repo, script: Any) -> Any:
    """Start ``kgtool mcp`` in the repository as a client would, run ``script`` on it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kgtool", "mcp"],
        cwd=str(repo.root),
        env={**GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT)},
    )

    async def main() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)

    return anyio.run(main)


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


def test_tools_and_resources_over_stdio(repo: Repo) -> None:
    build_read_repo(repo)

    async def script(session: ClientSession) -> dict[str, Any]:
        tools = await session.list_tools()
        resources = await session.list_resources()
        return {
            "tools": sorted(tool.name for tool in tools.tools),
            "resources": sorted(str(r.uri) for r in resources.resources),
            "impact": await session.call_tool(
                "impact", {"target": "app/store.py::Store.save", "depth": 2}
            ),
            "explain": await session.call_tool("explain", {"subject": "app/api.py"}),
            "unknown": await session.call_tool("explain", {"subject": "app/nope.py"}),
            "list": await session.call_tool("playbooks", {}),
            "refused": await session.call_tool("playbooks", {"name": "old-cache"}),
            "context": await session.call_tool(
                "context", {"task": "save records in the store", "budget": 3000}
            ),
            "map": await session.read_resource("kgtool://map"),
            "page": await session.read_resource("kgtool://communities/c3"),
        }

    got = run_session(repo, script)
    assert got["tools"] == ["context", "explain", "impact", "playbooks"]
    assert got["resources"] == [
        "kgtool://communities/c1",
        "kgtool://communities/c2",
        "kgtool://communities/c3",
        "kgtool://map",
        "kgtool://playbooks/old-cache",
        "kgtool://playbooks/save-records",
    ]
    # The same answer as the command gives, byte for byte.
    command = repo.kg("impact", "app/store.py::Store.save", "--depth", "2")
    assert text_of(got["impact"]) == command.out
    assert not got["impact"].is_error
    assert text_of(got["explain"]) == repo.kg("explain", "app/api.py").out
    context = repo.kg("context", "save records in the store", "--budget", "3000")
    assert text_of(got["context"]) == context.out
    assert 0 < len(context.out) <= 3000 and "save-records" in context.out
    assert got["unknown"].is_error
    assert "names no community, layer-3 name, file or path::Symbol" in text_of(got["unknown"])
    assert text_of(got["list"]) == (
        "playbooks/old-cache.md (refused, active): change the thing\n"
        "playbooks/save-records.md (executable, active): change the thing\n"
        "2 playbook(s), 1 executable\n"
    )
    refused = text_of(got["refused"]).splitlines()
    assert refused[0] == (
        "> kgtool playbooks check: playbooks/old-cache.md is refused: do not follow it until "
        "it is fixed"
    )
    assert refused[1].startswith("> playbooks/old-cache.md:")
    assert got["map"].contents[0].text == (repo.root / ".kg/MAP.md").read_text()
    assert got["page"].contents[0].text == (repo.root / ".kg/communities/c3.md").read_text()


def test_answers_follow_the_repository_and_say_when_kg_is_stale(repo: Repo) -> None:
    build_read_repo(repo)
    repo.write("app/disk.py", "class Disk:\n    pass\n")

    async def script(session: ClientSession) -> str:
        explained = text_of(await session.call_tool("explain", {"subject": "c3"}))
        listed = text_of(await session.call_tool("playbooks", {}))
        return f"{explained.splitlines()[0]}\n{listed.splitlines()[0]}"

    first, verdicts = run_session(repo, script).splitlines()
    assert verdicts == first  # the verdicts are checked against the same out-of-date map
    assert first == (
        "kgtool: warning: .kg/ is out of date: 1 file changed since the last `kgtool update` "
        "(app/disk.py); answers describe the code as it was then, line numbers may be off: "
        "run `kgtool update`"
    )


def test_without_the_sdk_the_command_names_the_install(repo: Repo) -> None:
    build_read_repo(repo)
    # The SDK hidden from this one process, as if it were not installed.
    code = "import sys; sys.modules['mcp'] = None; from kgtool.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "mcp"],
        cwd=repo.root,
        env={**GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "kgtool: error: `kgtool mcp` needs the MCP Python SDK, which is not installed: "
        'pip install "kgtool[mcp] @ git+<kgtool\'s repository>" (in a checkout: pip install '
        "'.[mcp]'; see docs/install.md)\n"
    )


def test_an_answer_over_the_cap_is_cut_at_a_line_and_says_how_much_is_left(make_repo) -> None:
    from kgtool.query.server import MAX_ANSWER_CHARS

    files = {"pkg/__init__.py": "", "pkg/core.py": "def run():\n    return 1\n"}
    for i in range(600):
        files[f"pkg/caller_{i:03d}.py"] = (
            f"from pkg.core import run\n\n\ndef use_{i}():\n    return run()\n"
        )
    repo = make_repo(files)
    assert repo.kg("update").code == 0
    target = {"target": "pkg/core.py::run", "depth": 50}

    async def script(session: ClientSession) -> tuple[Any, Any]:
        text = await session.call_tool("impact", target)
        json = await session.call_tool("impact", {**target, "format": "json"})
        return text, json

    text, json = run_session(repo, script)
    whole = repo.kg("impact", "pkg/core.py::run", "--depth", "50").out
    assert len(whole) > MAX_ANSWER_CHARS  # the command itself is not capped
    answer = text_of(text)
    assert not text.is_error and len(answer) <= MAX_ANSWER_CHARS
    *kept, last = answer.splitlines(keepends=True)
    assert whole.startswith("".join(kept)) and kept[-1].endswith("\n")
    left = whole.splitlines()[len(kept) :]
    assert last == (
        f"truncated: {len(left)} more lines ({len(whole) - len(''.join(kept)):,} characters) "
        f"past the cap of {MAX_ANSWER_CHARS:,} characters an answer holds; ask a narrower "
        "question (a smaller depth, a symbol rather than a file) or run the command in a "
        "terminal\n"
    )
    # JSON cut short would not parse: an error that says so instead.
    assert json.is_error
    assert "over the cap of 32,000" in text_of(json)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


@pytest.mark.parametrize(
    ("sig", "code", "says"),
    [(signal.SIGTERM, 143, "kgtool: terminated"), (signal.SIGINT, 130, "kgtool: interrupted")],
    ids=["TERM", "INT"],
)
def test_a_signal_ends_the_server_while_its_client_keeps_stdin_open(
    repo: Repo, sig: int, code: int, says: str
) -> None:
    """A client that stops a server sends SIGTERM with the pipe still open: the SDK's reader
    thread, blocked on that pipe, must not keep the process alive."""
    build_read_repo(repo)
    server = subprocess.Popen(
        [sys.executable, "-m", "kgtool", "mcp"],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(INITIALIZE) + "\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1  # serving, its reader waiting
        server.send_signal(sig)
        status = server.wait(timeout=20)  # a hang detector: it ends at once, or never
        assert (status, server.stderr.read().strip()) == (code, says)
    finally:
        server.kill()
        server.communicate()
