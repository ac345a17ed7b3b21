"""A saved list of pull requests: titles, labels and authors, read offline.

The shape is what ``gh pr list --state merged --json number,title,labels,author,mergeCommit``
prints: a JSON array of objects with ``number`` (required) and any of ``title``, ``labels``
(a list of ``{"name": ...}`` or of strings), ``author`` (``{"login": ...}`` or a string) and
``mergeCommit`` (``{"oid": ...}``); other fields are ignored. A pull request is matched to a
change set by its number, or, for a rebase merge that left no number in the history, by its
merge commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from kgtool import bounded
from kgtool.errors import KgError
from kgtool.mining.history import DIRECT, SQUASH, ChangeSet


class PullRequest(NamedTuple):
    number: int
    title: str = ""
    labels: tuple[str, ...] = ()
    author: str = ""
    merge_commit: str = ""


def load_prs(path: Path) -> list[PullRequest]:
    where = str(path)
    try:
        # A regular file of bounded size: `--prs /dev/zero` or a pipe is refused, not read
        # for ever, and a file is read in the time its 16 MiB take at most.
        raw = bounded.read_file(path, where)
    except bounded.Missing:
        raise KgError("the pull-request list does not exist", where) from None
    try:
        data = bounded.load_json(raw, where)
    except bounded.Unreadable as exc:
        message = exc.message.replace("is not valid JSON", "is not a JSON pull-request list", 1)
        raise KgError(message, where, exc.line) from None
    # Only to name a bad entry's line, decoded as the list was: a list a Windows shell
    # redirected is UTF-16, whose bad entry would otherwise be a traceback, not its line.
    text = raw.decode(json.detect_encoding(raw), "replace")
    if not isinstance(data, list):
        raise KgError("must be a JSON array of pull requests (gh pr list --json ...)", str(path))
    prs = []
    for index, entry in enumerate(data):
        number = entry.get("number") if isinstance(entry, dict) else None
        if not isinstance(number, int) or isinstance(number, bool):
            raise KgError(
                f"pull request {index + 1} of {len(data)} has no whole-number 'number'",
                str(path),
                _line_of_entry(text, index),
            )
        labels = tuple(
            str(label.get("name", "")) if isinstance(label, dict) else str(label)
            for label in entry.get("labels") or []
        )
        author = entry.get("author") or ""
        commit = entry.get("mergeCommit") or ""
        oid = commit.get("oid", "") if isinstance(commit, dict) else commit
        prs.append(
            PullRequest(
                number=entry["number"],
                title=str(entry.get("title") or ""),
                labels=tuple(sorted(label for label in labels if label)),
                author=str(author.get("login", "")) if isinstance(author, dict) else str(author),
                merge_commit=str(oid),
            )
        )
    return prs


def _line_of_entry(text: str, index: int) -> int:
    """The line the array's ``index``-th entry starts on (the file parsed already)."""
    decoder = json.JSONDecoder()
    position = text.index("[") + 1
    start = position
    for _ in range(index + 1):
        while text[position] in " \t\r\n,":
            position += 1
        start = position
        position = decoder.raw_decode(text, position)[1]
    return text.count("\n", 0, start) + 1


def enrich(change_sets: list[ChangeSet], prs: list[PullRequest]) -> int:
    """Give change sets their pull request's title, labels and author; how many got one."""
    by_number = {pr.number: pr for pr in prs}
    by_commit = {pr.merge_commit: pr for pr in prs if pr.merge_commit}
    matched = 0
    for change in change_sets:
        pr = by_number.get(change.pr) if change.pr is not None else by_commit.get(change.id)
        if pr is None:
            continue
        matched += 1
        if change.pr is None:  # a rebase merge: the list says it was a pull request
            change.pr = pr.number
            if change.kind == DIRECT:
                change.kind = SQUASH
        change.title = pr.title or change.title
        change.labels = pr.labels
        change.pr_author = pr.author
    return matched
