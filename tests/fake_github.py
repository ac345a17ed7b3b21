"""A stand-in for the part of GitHub's REST API a sticky pull-request comment uses, on
127.0.0.1: who the token is, list an issue's comments, create one, update one.

Comments live in memory; every request is recorded (method, path, headers, body) so tests can
check exactly what kgtool sent. ``refuse`` makes writes answer as GitHub does for a read-only
token (a pull request from a fork).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from local_server import LocalServer, send_json

BOT = "github-actions[bot]"  # who the token writes as


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: Any


@dataclass
class FakeGitHub:
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> comment
    requests: list[Request] = field(default_factory=list)
    refuse: int = 0  # answer writes with this status (403 for a read-only token)
    login: str = ""  # the person a token belongs to; "" for the Actions token (a bot)
    next_id: int = 100

    def start(self) -> None:
        self._server = LocalServer(self._handler())
        self._server.start()

    def stop(self) -> None:
        self._server.stop()

    @property
    def url(self) -> str:
        return f"{self._server.address}/api/v3"  # a GitHub Enterprise-like prefix

    def add(self, issue: int, body: str, login: str = BOT) -> int:
        self.next_id += 1
        self.comments[self.next_id] = {
            "id": self.next_id,
            "issue": issue,
            "body": body,
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
        }
        return self.next_id

    def on_issue(self, issue: int) -> list[dict[str, Any]]:
        return [c for _, c in sorted(self.comments.items()) if c["issue"] == issue]

    def _answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        route = path.split("?")[0].removeprefix("/api/v3")
        listing = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", route)
        single = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", route)
        if method != "GET" and self.refuse:
            return self.refuse, {"message": "Resource not accessible by integration"}
        if listing and method == "GET":
            page = int(found.group(1)) if (found := re.search(r"[?&]page=(\d+)", path)) else 1
            everything = self.on_issue(int(listing.group(1)))
            return 200, everything[(page - 1) * 100 : page * 100]
        if listing and method == "POST":
            number = self.add(int(listing.group(1)), body["body"], self.login or BOT)
            return 201, {**self.comments[number], "html_url": f"https://example.test/c/{number}"}
        if single and method == "PATCH" and int(single.group(1)) in self.comments:
            # As on GitHub, a token that may write to the pull request may edit anyone's
            # comment: leaving a person's comment alone is kgtool's business.
            comment = self.comments[int(single.group(1))]
            comment["body"] = body["body"]
            return 200, {**comment, "html_url": f"https://example.test/c/{comment['id']}"}
        if route == "/user" and method == "GET":
            if self.login:
                return 200, {"login": self.login, "type": "User"}
            return 403, {"message": "Resource not accessible by integration"}
        return 404, {"message": "Not Found"}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                fake.requests.append(Request(self.command, self.path, headers, body))
                send_json(self, *fake._answer(self.command, self.path, body))

            do_GET = do_POST = do_PATCH = _serve

        return Handler


@pytest.fixture(name="fake_github")
def fake_github_fixture() -> Iterator[FakeGitHub]:
    """A running fake API; import this function into a test module to use the fixture."""
    server = FakeGitHub()
    server.start()
    try:
        yield server
    finally:
        server.stop()
