"""The pull-request check behind ``kgtool ci``, gathered once, rendered twice.

It runs every check of ``kgtool check`` (they need nothing but the working tree), then what
needs the base of the pull request: its architecture changelog and the playbooks whose key
files it touches. When the base commit is not in the clone (a shallow checkout), the checks
still give their verdicts and one line says what to fetch for the rest.

The result is rendered as plain text (a terminal, the log of a job) and as markdown sections
(the job summary, the pull-request comment); GitHub's own formats live in ``github.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from kgtool.communities.build import COMMUNITIES_FILE, parse_document
from kgtool.communities.diff import render_markdown, render_text, touched_communities
from kgtool.communities.document import read_document_bytes
from kgtool.communities.identity import id_number
from kgtool.errors import KgError
from kgtool.escape import md_code, md_path, md_text, printable
from kgtool.findings import WARNING, Finding, unique
from kgtool.ontology.changes import change_lines
from kgtool.pipeline.changelog import WORKING_TREE, changelog, default_base
from kgtool.pipeline.checks import CheckOutcome, run_checks
from kgtool.pipeline.context import Context
from kgtool.playbook.check import CheckReport
from kgtool.playbook.model import ERROR, RETIRED
from kgtool.raw.build import update_raw
from kgtool.repo import (
    default_branch,
    head_commit,
    is_shallow,
    merge_base,
    paths_differing,
    recorded_parents,
    resolve_commit,
)

# The outcomes of check.FRESHNESS: their failure means ``.kg/`` does not describe the code.
STALE_CHECKS = ("raw graph", "communities")
LABELS_CHECK = "labels"
PLAYBOOKS_CHECK = "playbooks"
UNSPLICABLE = "P405"
# A name a workflow may paste into a shell command as it is: GitHub substitutes
# ${{ steps.<id>.outputs.playbooks-touched }} into a script before the shell reads it.
_SPLICABLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def splicable(name: str) -> bool:
    """Whether ``name`` can go into a step output: nothing in it a shell would act on."""
    return _SPLICABLE.fullmatch(name) is not None


class CheckFinding(NamedTuple):
    """One finding of a check, and the check that made it."""

    check: str
    finding: Finding

    @property
    def severity(self) -> str:
        return self.finding.level

    @property
    def text(self) -> str:
        """The line ``kgtool check`` prints for it."""
        return self.finding.format()

    @property
    def path(self) -> str:
        return self.finding.path

    @property
    def line(self) -> int:
        return self.finding.line

    @property
    def message(self) -> str:
        """What GitHub shows at the file and line: the code and the message."""
        return f"{self.finding.code} {self.finding.message}"

    @property
    def stale(self) -> bool:
        return self.check in STALE_CHECKS


class Event(NamedTuple):
    """What a GitHub Actions run knows about its pull request (empty outside one)."""

    base_sha: str = ""
    base_ref: str = ""
    number: int = 0
    from_fork: bool = False


class Base(NamedTuple):
    commit: str  # full id; "" when it could not be found in this clone
    source: str  # where it came from, in words
    need: str = ""  # when commit is "": one line saying what to fetch


class Relevant(NamedTuple):
    slug: str
    path: str
    files: list[str]  # the key files this change touches
    validation: list[str]
    executable: bool


class PullRequestReport:
    __slots__ = (
        "base",
        "changed",
        "diff",
        "findings",
        "head",
        "not_checked",
        "outcomes",
        "refused",
        "relevant",
    )

    outcomes: list[CheckOutcome]
    findings: list[CheckFinding]
    base: Base
    head: str  # the commit HEAD names; the checks read the working tree on top of it
    diff: dict[str, Any] | None
    changed: list[str]
    relevant: list[Relevant]
    refused: int
    not_checked: str  # one line: what was not compared with the base, and why

    def __init__(
        self,
        outcomes: list[CheckOutcome],
        findings: list[CheckFinding],
        base: Base,
        head: str,
    ) -> None:
        self.outcomes = outcomes
        self.findings = findings
        self.base = base
        self.head = head
        self.diff = None
        self.changed = []
        self.relevant = []
        self.refused = 0
        self.not_checked = ""

    @property
    def ok(self) -> bool:
        return all(outcome.ok for outcome in self.outcomes)

    @property
    def stale(self) -> bool:
        return any(not o.ok for o in self.outcomes if o.name in STALE_CHECKS)

    @property
    def labels_flagged(self) -> int:
        return sum(1 for f in self.findings if f.check == LABELS_CHECK)

    @property
    def touched(self) -> list[str]:
        if self.diff is None:
            return []
        return sorted(touched_communities(self.diff), key=id_number)

    @property
    def label_lines(self) -> list[str]:
        """The changelog's label changes, in words (renamed, drifted, phrased, ...)."""
        return change_lines(self.diff["labels"]) if self.diff and self.diff.get("labels") else []

    @property
    def base_name(self) -> str:
        return self.base.commit[:12]


def read_event(environ: Mapping[str, str]) -> Event:
    """The pull request of the event GitHub Actions describes in ``GITHUB_EVENT_PATH``."""
    base_ref = environ.get("GITHUB_BASE_REF", "")
    path = environ.get("GITHUB_EVENT_PATH", "")
    if not path:
        return Event(base_ref=base_ref)
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise KgError(f"cannot read the event file GITHUB_EVENT_PATH={path}: {error}") from error
    pull = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pull, dict):
        # A merge queue checks the same change against the queue's base.
        group = event.get("merge_group") if isinstance(event, dict) else None
        sha = group.get("base_sha", "") if isinstance(group, dict) else ""
        return Event(base_sha=str(sha or ""), base_ref=base_ref)
    base, head = _object(pull.get("base")), _object(pull.get("head"))
    base_repo = _object(base.get("repo")).get("full_name")
    head_repo = _object(head.get("repo")).get("full_name")
    number = pull.get("number")
    return Event(
        base_sha=str(base.get("sha") or ""),
        base_ref=str(base.get("ref") or base_ref),
        # Only a pull request's own number: a comment goes to the pull request it names.
        number=number if type(number) is int and number > 0 else 0,
        from_fork=bool(head_repo and base_repo and head_repo != base_repo),
    )


def _object(value: object) -> dict[str, Any]:
    """A JSON object of the event file, or {} for anything else it holds there."""
    return value if isinstance(value, dict) else {}


def find_base(root: Path, requested: str | None, event: Event, in_actions: bool) -> Base:
    """The commit the pull request is compared with: ``--base``, else the event's base, else
    the merge base with the event's base branch or the default branch."""
    if requested:
        if requested.startswith("-"):
            raise KgError(f"'{requested}' is not a revision")
        return _present(root, requested, "--base", in_actions)
    if event.base_sha:
        return _present(root, event.base_sha, "the pull request's base", in_actions)
    if event.base_ref:
        for name in (f"origin/{event.base_ref}", event.base_ref):
            if _names_commit(root, name):
                found = merge_base(root, "HEAD", name)
                if found:
                    return Base(found, f"merge base with {name}")
                return Base(
                    "", name, _fetch_advice(root, f"the merge base with {name}", in_actions)
                )
        what = f"the base branch '{event.base_ref}'"
        return Base("", event.base_ref, _fetch_advice(root, what, in_actions))
    branch = default_branch(root)
    if branch and not merge_base(root, "HEAD", branch) and is_shallow(root):
        what = f"the merge base with {branch}"
        return Base("", branch, _fetch_advice(root, what, in_actions))
    found = default_base(root)
    source = f"merge base with {branch}" if branch else "HEAD (no default branch found)"
    return Base(resolve_commit(root, found), source)


def _names_commit(root: Path, name: str) -> bool:
    try:
        resolve_commit(root, name)
    except KgError:
        return False
    return True


def _present(root: Path, revision: str, source: str, in_actions: bool) -> Base:
    try:
        return Base(resolve_commit(root, revision), source)
    except KgError:
        if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", revision):
            raise  # a name that means nothing here is bad usage, not a shallow clone
    parent = revision in recorded_parents(root)
    return Base(
        "", source, _fetch_advice(root, f"the base commit {revision[:12]}", in_actions, parent)
    )


def _fetch_advice(root: Path, what: str, in_actions: bool, parent: bool = False) -> str:
    needs = f"the architecture diff and the playbooks this change touches need {what}"
    if not is_shallow(root):
        return f"{needs}, which is not in this clone: fetch it (`git fetch origin`)"
    lacks = "which this shallow clone lacks"
    if in_actions:
        # A pull request is checked out as a merge commit: its parents are the base and the
        # pull request's head, so two commits of history are enough when the base is one.
        enough = " (fetch-depth: 2 is enough: it is a parent of HEAD)" if parent else ""
        return f"{needs}, {lacks}: set fetch-depth: 0 in actions/checkout{enough}"
    return f"{needs}, {lacks}: run `git fetch --unshallow`"


def findings(outcomes: list[CheckOutcome]) -> list[CheckFinding]:
    """Every problem and warning of the checks, once each (a broken file fails every check
    that reads it), errors first."""
    found = [
        CheckFinding(outcome.name, finding)
        for errors in (True, False)
        for outcome in outcomes
        for finding in outcome.findings
        if finding.is_error == errors
    ]
    return unique(found, lambda item: item.finding)


def relevant_playbooks(report: CheckReport, changed: list[str]) -> list[Relevant]:
    """The playbooks (not retired) with a key file among ``changed``."""
    changed_set = set(changed)
    found = []
    for entry in report.playbooks:
        if entry.playbook.status == RETIRED:
            continue
        files = sorted(
            {p.resolution.path for p in entry.pointers if p.resolution.path in changed_set}
        )
        if files:
            playbook = entry.playbook
            found.append(
                Relevant(playbook.slug, playbook.path, files, playbook.validation, entry.executable)
            )
    return found


def gather(
    ctx: Context, requested_base: str | None, event: Event, in_actions: bool
) -> PullRequestReport:
    if not head_commit(ctx.root):
        raise KgError("the repository has no commits yet: there is no pull request to check")
    # First: a --base that names nothing is bad usage, said before any file is parsed.
    base = find_base(ctx.root, requested_base, event, in_actions)
    with ctx.store.lock():
        # Layer 1 once: the checks judge it, and a stale map's changelog is drawn from it.
        raw = update_raw(ctx.root, ctx.config, ctx.store, write=False)
        outcomes = run_checks(ctx, raw)
    report = PullRequestReport(outcomes, findings(outcomes), base, head_commit(ctx.root))
    # None when the playbook check failed on bad input: its outcome says why.
    playbooks = next((o.playbooks for o in outcomes if o.playbooks is not None), CheckReport([]))
    report.refused = sum(entry.refused for entry in playbooks.playbooks)
    if not base.commit:
        report.not_checked = base.need
        return report
    try:
        report.changed = paths_differing(ctx.root, base.commit)
        report.relevant = relevant_playbooks(playbooks, report.changed)
        report.findings += [
            CheckFinding(
                PLAYBOOKS_CHECK,
                Finding(
                    r.path,
                    0,
                    WARNING,
                    UNSPLICABLE,
                    "left out of the step output playbooks-touched: a workflow could not use "
                    "its name safely (letters, digits, '.', '_' and '-' only); rename the file",
                ),
            )
            for r in report.relevant
            if not splicable(r.slug)
        ]
        report.diff = changelog(ctx, base.commit, None, _head_document(ctx, report.outcomes))
    except KgError as error:
        # A broken map at the base must not hide the verdicts, which do not need it.
        report.not_checked = f"the comparison with the base failed: {error}"
    return report


def _head_document(ctx: Context, outcomes: list[CheckOutcome]) -> dict[str, Any]:
    """Layer 2 of the working tree, as ``kgtool update`` would write it: the communities
    check computed it; the map on disk only when that check could not run."""
    computed = next((o.communities for o in outcomes if o.communities is not None), None)
    if computed is not None:
        return computed
    data = read_document_bytes(ctx.store)
    if data is None:
        raise KgError(f".kg/{COMMUNITIES_FILE} does not exist: run `kgtool update`")
    return parse_document(data)


# --- plain text -----------------------------------------------------------------------------


def render_plain(report: PullRequestReport) -> str:
    lines = [f"kgtool ci: {'passed' if report.ok else 'FAILED'}", _base_line(report)]
    for outcome in report.outcomes:
        lines.append(f"{'ok' if outcome.ok else 'FAILED'}: {outcome.name}")
    lines += [f"  {finding.text}" for finding in report.findings]
    if report.not_checked:
        lines.append(f"not checked: {report.not_checked}")
    if report.diff is not None:
        changes = render_text(report.diff, report.base_name, WORKING_TREE, report.label_lines)
        lines += changes.rstrip("\n").split("\n")
        if report.relevant:
            lines.append("Playbooks this change touches:")
            lines += [f"  {relevant_sentence(r)}" for r in report.relevant]
        else:
            lines.append("Playbooks this change touches: none")
    # Each line one line, whatever a slug, a validation step or a file name holds.
    return "\n".join(printable(line) for line in lines) + "\n"


def _base_line(report: PullRequestReport) -> str:
    head = f"the working tree on {report.head[:12]}"
    if report.base.commit:
        return f"base {report.base_name} ({report.base.source}), head {head}"
    return f"base not found ({report.base.source}), head {head}"


def relevant_sentence(relevant: Relevant) -> str:
    validation = "; ".join(f"`{step}`" for step in relevant.validation) or "not written down"
    status = "" if relevant.executable else " (refused or not active: fix it before following it)"
    return (
        f"this change touches key files of {relevant.slug} ({', '.join(relevant.files)}): "
        f"its validation is {validation}{status}"
    )


# --- markdown -------------------------------------------------------------------------------
# Escaped with kgtool/escape.py: names, findings and file names are the pull request's text.


def markdown_head(report: PullRequestReport) -> str:
    """The part of the summary that is never cut: the verdicts and what to run."""
    lines = [
        f"## kgtool ci: {'passed' if report.ok else 'failed'}",
        "",
        md_text(_base_line(report)),
        "",
        "| check | verdict | problems | warnings |",
        "|---|---|---:|---:|",
    ]
    for outcome in report.outcomes:
        errors = sum(1 for f in report.findings if f.check == outcome.name and f.severity == ERROR)
        warnings = sum(
            1 for f in report.findings if f.check == outcome.name and f.severity != ERROR
        )
        verdict = "ok" if outcome.ok else "**failed**"
        lines.append(f"| {md_text(outcome.name)} | {verdict} | {errors} | {warnings} |")
    stale = [f for f in report.findings if f.stale and f.severity == ERROR]
    if stale:
        lines += ["", "`.kg/` does not describe the code of this pull request:", ""]
        lines += [f"- {md_text(f.text)}" for f in stale]
    if report.not_checked:
        lines += ["", f"Not checked: {md_text(report.not_checked)}"]
    return "\n".join(lines) + "\n"


def markdown_sections(report: PullRequestReport) -> list[tuple[str, str]]:
    """The summary's sections after the head, most important first: (title, markdown)."""
    sections: list[tuple[str, str]] = []

    def add(title: str, items: list[str]) -> None:
        if items:
            body = "\n".join(f"- {item}" for item in items)
            sections.append((title, f"## {title}\n\n{body}\n"))

    add(
        "Refused playbooks",
        [
            md_text(f.text)
            for f in report.findings
            if f.check == PLAYBOOKS_CHECK and f.severity == ERROR
        ],
    )
    add("Drifted labels", [md_text(f.text) for f in report.findings if f.check == LABELS_CHECK])
    if report.diff is not None:
        title = "Playbooks this change touches"
        if report.relevant:
            add(title, [_relevant_markdown(r) for r in report.relevant])
        else:
            sections.append((title, f"## {title}\n\nNone of the files it changes is a key file.\n"))
        sections.append(
            (
                "Architecture changes",
                render_markdown(report.diff, report.base_name, WORKING_TREE, report.label_lines),
            )
        )
    add(
        "Playbook warnings",
        [
            md_text(f.text)
            for f in report.findings
            if f.check == PLAYBOOKS_CHECK and f.severity != ERROR
        ],
    )
    add(
        "Other findings",
        [
            md_text(f.text)
            for f in report.findings
            if f.check not in (LABELS_CHECK, PLAYBOOKS_CHECK)
            and not (f.stale and f.severity == ERROR)
        ],
    )
    return sections


def _relevant_markdown(relevant: Relevant) -> str:
    files = ", ".join(md_path(path) for path in relevant.files)
    validation = "; ".join(md_code(step) for step in relevant.validation) or "not written down"
    status = "" if relevant.executable else " (refused or not active: fix it before following it)"
    return (
        f"this change touches key files of **{md_text(relevant.slug)}** ({files}): "
        f"its validation is {validation}{status}"
    )
