"""A scripted stand-in for the Claude Messages API, on 127.0.0.1, for tests that drive the
real ``anthropic`` SDK through ``base_url``.

Tests queue replies (``server.script(...)``); once the queue is empty every request gets a good
reply built from the items it asked about. Every request body is recorded, so tests can check
exactly what kgtool sent.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from local_server import LocalServer, send_json

Body = dict[str, Any]
ToolInput = Callable[[Body], Any]


@dataclass
class Reply:
    """One scripted answer: an HTTP error (``status`` >= 400), or a Message whose content is
    a tool call with ``tool_input`` (None: a good one) or, with ``text``, a text block only."""

    status: int = 200
    tool_input: ToolInput | None = None
    text: str | None = None
    stop_reason: str = "tool_use"
    delay: float = 0.0  # seconds to wait before answering
    headers: dict[str, str] = field(default_factory=dict)
    error_type: str = "api_error"
    error_message: str = "Internal server error"


def good() -> Reply:
    return Reply()


def tool(tool_input: Any) -> Reply:
    """A tool call whose input is ``tool_input``, or what it returns for the request body."""
    return Reply(tool_input=tool_input if callable(tool_input) else lambda _body: tool_input)


def text_only(text: str = "Here are the labels you asked for.") -> Reply:
    return Reply(text=text, stop_reason="end_turn")


def error(status: int, error_type: str, message: str, **headers: str) -> Reply:
    return Reply(
        status=status,
        error_type=error_type,
        error_message=message,
        headers={key.replace("_", "-"): value for key, value in headers.items()},
    )


def rate_limited() -> Reply:
    return error(
        429, "rate_limit_error", "Number of requests has exceeded your rate limit", retry_after="0"
    )


def server_error() -> Reply:
    # A tiny retry-after keeps the SDK's backoff (half a second and up) out of the test's time.
    return error(500, "api_error", "Internal server error", retry_after_ms="10")


def slow(seconds: float) -> Reply:
    return Reply(delay=seconds)


def batch(body: Body) -> dict[str, Any]:
    """The JSON document of items in a request kgtool sent (its last text block)."""
    texts = [b["text"] for b in body["messages"][0]["content"] if b.get("type") == "text"]
    return json.loads(texts[-1])


def good_input(body: Body) -> dict[str, Any]:
    """Valid labels for every item of the request."""
    data = batch(body)
    communities = [
        {
            "id": c["id"],
            "name": f"Group {c['id']} code",
            "summary": f"Holds the files of {c['id']}.",
        }
        for c in data.get("communities", [])
    ]
    edges = [
        {"src": e["src"], "dst": e["dst"], "phrase": "depends on"} for e in data.get("edges", [])
    ]
    return {"communities": communities, "edges": edges}


class FakeAnthropic:
    def __init__(self) -> None:
        self.requests: list[Body] = []
        self.headers: list[dict[str, str]] = []
        self.queue: deque[Reply] = deque()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._count = 0
        self._server = LocalServer(self._handler())

    @property
    def url(self) -> str:
        return self._server.address

    def script(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        self._stop.set()  # wakes slow replies so that shutdown does not wait for them
        self._server.stop()

    def _next(self, body: Body, headers: dict[str, str]) -> tuple[Reply, int]:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self._count += 1
            return (self.queue.popleft() if self.queue else good()), self._count

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.split("?")[0] != "/v1/messages":
                    self._send(
                        404,
                        {
                            "type": "error",
                            "error": {"type": "not_found_error", "message": "Not found"},
                        },
                    )
                    return
                reply, number = fake._next(body, {k.lower(): v for k, v in self.headers.items()})
                if reply.delay and fake._stop.wait(reply.delay):
                    return
                if reply.status >= 400:
                    error = {"type": reply.error_type, "message": reply.error_message}
                    self._send(
                        reply.status,
                        {"type": "error", "error": error, "request_id": f"req_fake_{number:04d}"},
                        reply.headers,
                    )
                    return
                self._send(200, message(body, reply, number), reply.headers)

            def _send(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                send_json(self, status, data, {"request-id": "req_fake", **(headers or {})})

        return Handler


def message(body: Body, reply: Reply, number: int) -> dict[str, Any]:
    """A Message as the API returns it."""
    if reply.text is not None:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
    else:
        make = reply.tool_input or good_input
        name = (body.get("tool_choice") or {}).get("name", "record_labels")
        content = [
            {
                "type": "tool_use",
                "id": f"toolu_fake_{number:04d}",
                "name": name,
                "input": make(body),
            }
        ]
    prompt = len(json.dumps(body))
    return {
        "id": f"msg_fake_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-test"),
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt // 4,
            "output_tokens": len(json.dumps(content)) // 4,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


@pytest.fixture(name="fake_anthropic")
def fake_anthropic_fixture() -> Iterator[FakeAnthropic]:
    """A running fake API; import this function into a test module to use the fixture."""
    server = FakeAnthropic()
    server.start()
    try:
        yield server
    finally:
        server.stop()
