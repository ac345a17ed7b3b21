"""GitHub's side of ``kgtool ci``: annotations, the job summary, step outputs, one comment.

Everything here follows what GitHub documents or enforces:

- Workflow commands (``::error file=F,line=N,title=T::message``) escape their data as the
  actions toolkit does (``%`` -> %25, CR -> %0D, LF -> %0A) and their properties also
  ``:`` -> %3A and ``,`` -> %2C, so a path or message from a pull request stays one command.
- GitHub shows at most 10 error, 10 warning and 10 notice annotations per step (and 50 per
  job): "Limitations" in docs/problem-matchers.md of github.com/actions/toolkit. Past the cap
  one notice counts the rest; the log and the summary still list every one.
- A step summary over 1 MiB is not shown at all: the runner aborts the upload ("$GITHUB_STEP_
  SUMMARY upload aborted, supports content up to a size of 1024k", see "Adding a job summary"
  in docs.github.com/actions/reference/workflows-and-actions/workflow-commands). Whole
  sections are cut instead, each replaced by a line saying so.
- A comment body holds at most 65,536 characters (the REST API refuses longer ones with
  "body is too long (maximum is 65536 characters)").
- Text a pull request controls is printed to the log between ``::stop-commands::`` and its
  token, so that a line of it can never be read as a workflow command.
"""

# No ``from __future__ import annotations``: annotations() below would rebind that name. The
# annotations here are evaluated where they are defined; all of them are valid on Python 3.10.

import json
import re
import secrets
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgtool.errors import KgError
from kgtool.integrations.pr_check import (
    CheckFinding,
    Event,
    PullRequestReport,
    markdown_head,
    markdown_sections,
    splicable,
)
from kgtool.playbook.model import ERROR

ANNOTATIONS_PER_KIND = 10  # errors, warnings and notices GitHub shows per step, each
SUMMARY_LIMIT = 1024 * 1024  # bytes of a step summary GitHub still shows
COMMENT_LIMIT = 65536  # characters of an issue or pull-request comment
MARKER = "<!-- kgtool-ci: sticky comment, updated on every run -->"
TIMEOUT = 20.0  # seconds per REST request: a slow API must not hold the job up for long
MAX_PAGES = 30  # of 100 comments each: a pull request with more is beyond a sticky comment


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, file: str = "", line: int = 0, title: str = "") -> str:
    properties = []
    if file:
        properties.append(f"file={escape_property(file)}")
    if file and line:
        properties.append(f"line={line}")
    if title:
        properties.append(f"title={escape_property(title)}")
    joined = " " + ",".join(properties) if properties else ""
    return f"::{kind}{joined}::{escape_data(message)}"


def annotations(
    findings: list[CheckFinding], notes: list[str], cap: int = ANNOTATIONS_PER_KIND
) -> list[str]:
    """Errors for failed checks, warnings for the rest (``notes`` first among them), at most
    ``cap`` of each kind, then one notice counting those GitHub would not show."""
    lines: list[str] = []
    shown = {"error": 0, "warning": 0}
    hidden = {"error": 0, "warning": 0}
    items: list[tuple[str, CheckFinding | str]] = [
        (ERROR, f) for f in findings if f.severity == ERROR
    ]
    items += [("note", note) for note in notes]
    items += [("warning", f) for f in findings if f.severity != ERROR]
    for severity, item in items:
        kind = "error" if severity == ERROR else "warning"
        if shown[kind] >= cap:
            hidden[kind] += 1
            continue
        shown[kind] += 1
        if isinstance(item, CheckFinding):
            lines.append(command(kind, item.message, item.path, item.line, f"kgtool: {item.check}"))
        else:
            lines.append(command(kind, item, title="kgtool ci"))
    if hidden["error"] or hidden["warning"]:
        counts = " and ".join(f"{n} more {kind}{'s' * (n != 1)}" for kind, n in hidden.items() if n)
        lines.append(
            command(
                "notice",
                f"{counts} not annotated: GitHub shows {cap} errors and {cap} warnings per "
                "step; the log of this step and the job summary list them all",
                title="kgtool ci",
            )
        )
    return lines


def unparsed(text: str) -> list[str]:
    """``text`` as log lines the runner reads as nothing but text."""
    token = secrets.token_hex(16)
    while token in text:  # pragma: no cover - 128 random bits
        token = secrets.token_hex(16)
    return [f"::stop-commands::{token}", *text.splitlines(), f"::{token}::"]


def fit(head: str, sections: list[tuple[str, str]], limit: int, limit_name: str) -> str:
    """``head`` and as many whole sections as fit in ``limit`` bytes (UTF-8), in order; each
    section that does not fit becomes a line saying it was cut and why."""

    def stub(title: str, body: str) -> str:
        size = len(body.encode("utf-8"))
        return (
            f"## {title}\n\nCut: this section ({size:,} bytes) would take the report past "
            f"{limit_name}. The log of this step, or `kgtool ci` run locally, shows it.\n"
        )

    stubs = [stub(title, body) for title, body in sections]
    # Each section counted at its smaller form: one shorter than its stub is never cut, or
    # a report that fits whole would be cut to more than the limit.
    least = [
        min(len(body.encode("utf-8")), len(short.encode("utf-8")))
        for (_title, body), short in zip(sections, stubs, strict=True)
    ]
    used = len(head.encode("utf-8")) + sum(size + 1 for size in least)
    parts = [head]
    for (_title, body), short, size in zip(sections, stubs, least, strict=True):
        extra = len(body.encode("utf-8")) - size
        if used + extra <= limit:
            parts.append(body)
            used += extra
        else:
            parts.append(short)
    return "\n".join(parts)


def summary_markdown(report: PullRequestReport, limit: int) -> str:
    limit_name = "GitHub's 1 MiB limit for a step summary"
    return fit(markdown_head(report), markdown_sections(report), limit, limit_name)


def write_summary(path: str, report: PullRequestReport) -> bool:
    """Appends the summary to ``$GITHUB_STEP_SUMMARY``, on a line of its own, within what the
    step has left: past 1 MiB GitHub drops the whole summary, an earlier step's part too.
    False when not even its verdict line fits (and nothing was written)."""
    target = Path(path)
    try:
        used, ends_line = _summary_so_far(target)
        start = "" if ends_line else "\n"
        room = SUMMARY_LIMIT - used - len(start)
        text = summary_markdown(report, room)
        if len(text.encode("utf-8")) > room:
            # Not even the verdicts fit: one line says so, or nothing when that does not fit.
            text = (
                f"## kgtool ci: {'passed' if report.ok else 'failed'}\n\nCut: the step's summary "
                "is nearly at GitHub's 1 MiB limit; the log of this step shows the report.\n"
            )
        if len(text.encode("utf-8")) > room:
            return False
        with target.open("a", encoding="utf-8") as handle:
            handle.write(start + text)
        return True
    except OSError as error:
        raise KgError(
            f"cannot write the job summary GITHUB_STEP_SUMMARY={path}: {error}"
        ) from error


def _summary_so_far(target: Path) -> tuple[int, bool]:
    """The bytes an earlier command of the step wrote, and whether they end a line."""
    if not target.exists():
        return 0, True
    size = target.stat().st_size
    if not size:
        return 0, True
    with target.open("rb") as handle:
        handle.seek(size - 1)
        return size, handle.read(1) == b"\n"


def outputs(report: PullRequestReport, comment: str) -> dict[str, str]:
    return {
        "verdict": "pass" if report.ok else "fail",
        "failed": " ".join(o.name.replace(" ", "-") for o in report.outcomes if not o.ok),
        "stale": "true" if report.stale else "false",
        "refused": str(report.refused),
        "drifted": str(report.labels_flagged),
        "base": report.base.commit,
        "diff": "done" if report.diff is not None else "skipped",
        "communities-touched": str(len(report.touched)),
        # Outputs are spliced into workflow scripts: only names that cannot change a command.
        "communities": " ".join(c for c in report.touched if re.fullmatch(r"c[0-9]+", c)),
        "changed-files": str(len(report.changed)),
        "playbooks-touched": " ".join(r.slug for r in report.relevant if splicable(r.slug)),
        "comment": comment,
    }


def write_outputs(path: str, values: Mapping[str, str]) -> None:
    """Appends ``name<<DELIMITER``, the value, ``DELIMITER`` per output: any value, newlines
    included, with a random delimiter that occurs in none of them (as the toolkit does)."""
    chunks = []
    for name, value in values.items():
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value or delimiter in name:  # pragma: no cover - 128 random bits
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    try:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write("".join(chunks))
    except OSError as error:
        raise KgError(f"cannot write the step outputs GITHUB_OUTPUT={path}: {error}") from error


# --- the sticky comment ---------------------------------------------------------------------


class CommentSkipped(Exception):
    """The comment could not be written; the message is the one line that says why."""


def comment_body(report: PullRequestReport) -> str:
    limit_name = "GitHub's limit of 65,536 characters for a comment"
    # Bytes are never fewer than characters, so fitting the bytes fits the characters.
    room = COMMENT_LIMIT - len(MARKER.encode("utf-8")) - 1
    return f"{MARKER}\n" + fit(markdown_head(report), markdown_sections(report), room, limit_name)


def sticky_comment(environ: Mapping[str, str], number: int, body: str, from_fork: bool) -> str:
    """Creates the pull request's kgtool comment, or updates the one an earlier run made
    (found by ``MARKER``). Returns one line saying what happened; a failure only skips it."""
    token = environ.get("GITHUB_TOKEN", "")
    repository = environ.get("GITHUB_REPOSITORY", "")
    api = environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    if not number:
        return "comment skipped: this run is not for a pull request"
    if not token:
        why = " (pull requests from forks get no secrets)" if from_fork else ""
        return f"comment skipped: no GITHUB_TOKEN{why}"
    if not repository:
        return "comment skipped: GITHUB_REPOSITORY is not set"
    client = _Client(api, token)
    try:
        found = client.find(f"/repos/{repository}/issues/{number}/comments")
        if found:
            updated = client.send("PATCH", f"/repos/{repository}/issues/comments/{found}", body)
            return f"comment updated: {updated.get('html_url') or found}"
        created = client.send("POST", f"/repos/{repository}/issues/{number}/comments", body)
        return f"comment created: {created.get('html_url') or created.get('id')}"
    except CommentSkipped as skipped:
        return f"comment skipped: {skipped}"


class _Client:
    def __init__(self, api: str, token: str) -> None:
        self.api = api
        self.token = token

    def find(self, path: str) -> int:
        """The earliest comment that starts with ``MARKER`` and that this token wrote; 0 when
        there is none. A token that may write to the pull request may also edit other
        people's comments, so authorship is checked here: a person who copied the marker
        keeps their comment."""
        me = self.login()
        ours: list[int] = []
        for page in range(1, MAX_PAGES + 1):
            batch = self.call("GET", f"{path}?per_page=100&page={page}")
            if not isinstance(batch, list):
                raise CommentSkipped("GitHub's list of comments was not a list")
            for entry in batch:
                if not isinstance(entry, dict) or not str(entry.get("body", "")).startswith(MARKER):
                    continue
                user = entry.get("user") or {}
                if (user.get("login") == me) if me else (user.get("type") == "Bot"):
                    ours.append(int(entry["id"]))
            if len(batch) < 100:
                break
        return min(ours, default=0)

    def login(self) -> str:
        """Who a person's token writes as; "" for the Actions token and app tokens, which
        write as a bot and may not ask (GitHub answers 403)."""
        try:
            answer = self.call("GET", "/user")
        except CommentSkipped as refused:
            if isinstance(refused.__cause__, urllib.error.HTTPError):
                return ""
            raise  # no answer at all: the next request would wait for nothing as long
        return str(answer.get("login") or "") if isinstance(answer, dict) else ""

    def send(self, method: str, path: str, body: str) -> dict[str, Any]:
        answer = self.call(method, path, {"body": body})
        return answer if isinstance(answer, dict) else {}

    def call(self, method: str, path: str, payload: dict[str, str] | None = None) -> Any:
        data = json.dumps(payload).encode("utf-8") if payload is not None else None
        request = urllib.request.Request(
            self.api + path,
            data=data,
            method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "kgtool-ci",
                **({"Content-Type": "application/json"} if data is not None else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise CommentSkipped(_http_reason(error)) from error
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise CommentSkipped(
                f"{method} {self.api}{path.split('?')[0]} failed: {reason}"
            ) from error


def _http_reason(error: urllib.error.HTTPError) -> str:
    try:
        message = str(json.loads(error.read() or b"{}").get("message", ""))
    except (ValueError, AttributeError, OSError):
        message = ""
    message = " ".join(message.split())[:200]
    said = f"HTTP {error.code}" + (f" ({message})" if message else "")
    if error.code in (401, 403, 404):
        # What a pull request from a fork gets: a read-only token that may not comment.
        return f"the token may not write to this pull request: {said}"
    return f"GitHub answered {said}"


def publish(
    report: PullRequestReport, plain: str, environ: Mapping[str, str], event: Event, comment: bool
) -> None:
    """Everything a GitHub Actions step shows: annotations, the log, summary and outputs."""
    status = "off"
    said = ""
    if comment:
        said = sticky_comment(environ, event.number, comment_body(report), event.from_fork)
        status = said.split(":", 1)[0].removeprefix("comment ")
    notes = [report.not_checked] if report.not_checked else []
    if environ.get("GITHUB_STEP_SUMMARY") and not write_summary(
        environ["GITHUB_STEP_SUMMARY"], report
    ):
        notes.append(
            "no job summary: this step's summary is at GitHub's 1 MiB limit already; the "
            "log of this step holds the report"
        )
    lines = annotations(report.findings, notes)
    log = plain + (f"{said}\n" if said else "")
    lines += unparsed(log)
    print("\n".join(lines))
    if environ.get("GITHUB_OUTPUT"):
        write_outputs(environ["GITHUB_OUTPUT"], outputs(report, status))
