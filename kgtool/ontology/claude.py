"""What every Claude request kgtool makes has in common: the client built from the
``ontology`` section's settings (model, max_tokens, max_retries, timeout), the request shape
(a constant system prompt marked for caching, one forced tool for structured output), the
mapping of SDK errors to one line, and the follow-up turn that tells the model what was wrong.

The layer-3 labeler (``llm.py``) and the miner's prose pass (``kgtool.mining.prose``) both
use it, so a key, a model or a retry setting means the same thing to both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kgtool.config import DEFAULTS
from kgtool.errors import KgError, extra_install

MISSING_SDK = (
    "Claude needs the anthropic package, which only kgtool's llm extra installs: "
    f"{extra_install('llm')} (or do without Claude: kgtool label --offline, "
    "kgtool mine-playbooks --no-llm)"
)

try:
    import anthropic
except ImportError:  # the default install leaves it out: one line, not a traceback
    raise KgError(MISSING_SDK) from None

# English prose and JSON average 3.5-4 characters per token for Claude's tokenizer; 3.5 errs
# on the side of a higher estimate.
CHARS_PER_TOKEN = 3.5
EPHEMERAL = {"type": "ephemeral"}


class ClaudeError(KgError):
    """A request that could not be answered (no key, network, rate limit, server error,
    timeout), as one line; callers add what it means for their output."""


class Claude:
    """The Messages API with the ``ontology`` section's settings."""

    def __init__(
        self,
        settings: Mapping[str, Any],
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        no_key_hint: str = "",
    ) -> None:
        # Missing keys take their defaults, so callers (and tests) may pass a partial section;
        # the ranges are checked where the settings are read (kgtool.config).
        self.settings = {**DEFAULTS["ontology"], **settings}
        self.model = str(self.settings["model"])
        self.max_tokens = int(self.settings["max_tokens"])
        self.max_retries = int(self.settings["max_retries"])
        self.timeout = float(self.settings["timeout"])
        # None: the SDK reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL itself.
        self.api_key = api_key
        self.base_url = base_url
        self.no_key_hint = no_key_hint
        self._client: anthropic.Anthropic | None = None

    def params(
        self, system: str, tool: dict[str, Any], content: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The keyword arguments of ``messages.create``: the system prompt cached (it is the
        same for every request), and the one tool the reply must call."""
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": [{"type": "text", "text": system, "cache_control": EPHEMERAL}],
            "tools": [tool],
            "tool_choice": {
                "type": "tool",
                "name": tool["name"],
                "disable_parallel_tool_use": True,
            },
            "messages": [{"role": "user", "content": content}],
        }

    def send(self, params: dict[str, Any]) -> Any:
        """The reply, after the SDK's own retries; ``ClaudeError`` with one line if none."""
        client = self.client()
        retries = f"{self.max_retries} retr{'y' if self.max_retries == 1 else 'ies'}"
        try:
            reply = client.messages.create(**params)
        except anthropic.APITimeoutError:
            message = f"the Claude API timed out after {self.timeout:g}s ({retries})"
        except anthropic.APIConnectionError as exc:
            reason = one_line(str(exc.__cause__ or exc))
            message = f"could not reach the Claude API at {client.base_url} ({reason}; {retries})"
        except anthropic.RateLimitError as exc:
            message = (
                f"the Claude API is rate-limiting requests (HTTP 429{_detail(exc)}), still after"
                f" {retries}; try again later"
            )
        except anthropic.AuthenticationError as exc:
            message = (
                f"the Claude API refused the credentials (HTTP 401{_detail(exc)});"
                f" check ANTHROPIC_API_KEY"
            )
        except anthropic.PermissionDeniedError as exc:
            message = f"the Claude API denied access (HTTP 403{_detail(exc)})"
        except anthropic.NotFoundError as exc:
            message = (
                f"the Claude API answered HTTP 404{_detail(exc)}; check ontology.model"
                f" ({self.model}) and ANTHROPIC_BASE_URL"
            )
        except anthropic.InternalServerError as exc:
            message = (
                f"the Claude API failed with HTTP {exc.status_code}{_detail(exc)}"
                f" ({retries}); try again later"
            )
        except anthropic.APIStatusError as exc:
            message = f"the Claude API refused the request (HTTP {exc.status_code}{_detail(exc)})"
        except anthropic.AnthropicError as exc:  # e.g. credentials that could not be refreshed
            message = f"the Claude API call failed: {one_line(str(exc))}"
        else:
            return reply
        raise ClaudeError(message) from None

    def client(self) -> anthropic.Anthropic:
        if self._client is None:
            try:
                client = anthropic.Anthropic(
                    api_key=self.api_key,
                    base_url=self.base_url,
                    max_retries=self.max_retries,
                    timeout=self.timeout,
                )
            except anthropic.AnthropicError as exc:  # e.g. a credentials profile it cannot read
                raise ClaudeError(
                    f"the Claude API client could not start: {one_line(str(exc))}"
                ) from None
            # Checked here because the SDK only notices at the first request, with a TypeError.
            if not any(
                getattr(client, attribute, None)
                for attribute in ("api_key", "auth_token", "credentials")
            ):
                raise ClaudeError(f"no Claude API key: set ANTHROPIC_API_KEY{self.no_key_hint}")
            self._client = client
        return self._client


def tool_calls(reply: Any, name: str) -> list[Any]:
    """The reply's calls of the tool ``name`` (however unexpected the reply's shape)."""
    content = getattr(reply, "content", None)
    return [
        block
        for block in (content if isinstance(content, list) else [])
        if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == name
    ]


def follow_up(reply: Any, text: str) -> list[dict[str, Any]]:
    """The assistant turn as it came back, then a user turn whose ``text`` says what was
    wrong: the turns to append to a request to ask again."""
    content = getattr(reply, "content", None)
    blocks = content if isinstance(content, list) else []
    turn: list[dict[str, Any]] = []
    for block in blocks:
        kind_of = getattr(block, "type", None)
        if kind_of == "text" and getattr(block, "text", ""):
            turn.append({"type": "text", "text": block.text})
        elif kind_of == "tool_use":
            given = block.input if isinstance(block.input, dict) else {}
            turn.append({"type": "tool_use", "id": block.id, "name": block.name, "input": given})
    uses = [block["id"] for block in turn if block["type"] == "tool_use"]
    # What is said back must be UTF-8 (a lone surrogate in the reply is not, and the SDK
    # cannot send it): escaped here, and a reply holding one is not echoed.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not turn or not _sendable(turn):
        # Nothing to answer to, or nothing that can be sent back: the user turn alone says
        # what is wrong, as for any malformed reply.
        return [{"role": "user", "content": [{"type": "text", "text": text}]}]
    # Every tool call must be answered by a tool result; the errors go in the first one.
    results: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": use, "is_error": True, "content": text}
        if index == 0
        else {"type": "tool_result", "tool_use_id": use, "is_error": True, "content": "See above."}
        for index, use in enumerate(uses)
    ]
    if not results:
        results = [{"type": "text", "text": text}]
    return [{"role": "assistant", "content": turn}, {"role": "user", "content": results}]


def _sendable(blocks: list[dict[str, Any]]) -> bool:
    try:
        compact(blocks).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def prompt_chars(request: Mapping[str, Any]) -> int:
    """Prompt characters of a request (its ``params``, or the JSON body as received): the
    system prompt, the tool definitions as compact JSON, and the text of every message."""
    system = request.get("system") or []
    if isinstance(system, str):
        chars = len(system)
    else:
        chars = sum(len(block.get("text", "")) for block in system)
    chars += len(compact(request.get("tools") or []))
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
            continue
        for block in content or []:
            if block.get("type") == "text":
                chars += len(block["text"])
            elif block.get("type") == "tool_result":
                result = block.get("content", "")
                chars += len(result) if isinstance(result, str) else len(compact(result))
            elif block.get("type") == "tool_use":
                chars += len(compact(block.get("input", {})))
    return chars


def compact(data: Any) -> str:
    # Compact and with non-ASCII kept as is: every character sent is paid for.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _detail(exc: anthropic.APIStatusError) -> str:
    text = getattr(exc, "api_message", None)
    if not isinstance(text, str):
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        text = message if isinstance(message, str) else ""
    return f": {one_line(text)}" if text else ""
