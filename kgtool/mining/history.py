"""History into change sets: one pull request, or one direct commit, each with its files.

The first-parent line of the default branch is read in one ``git log`` pass
(:func:`kgtool.repo.first_parent_log`). On it:

- a merge commit is one pull request, diffed against its first parent (what the branch
  received), numbered from "Merge pull request #123" or a "(#123)" suffix;
- a commit whose subject ends in "(#123)" is a squashed pull request;
- any other commit is a direct change set of its own: many projects commit directly, and
  their history is as much evidence as a pull request is.

Renames are followed: every path is named by the last name its file had (walking history
backwards, so a path reused later for another file is not confused with the renamed one),
and one file's history is one history. A merge whose first-parent diff shows a branch's
rename as a deletion and an addition is mended from the branch's own commits
(:func:`kgtool.repo.renamed_pairs`), a second pass read only when such a merge exists.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from kgtool.errors import KgError
from kgtool.repo import (
    LogCommit,
    LogFile,
    commit_count,
    default_branch,
    first_parent_log,
    head_commit,
    is_shallow,
    renamed_pairs,
    resolve_commit,
)

MERGE = "merge"
SQUASH = "squash"
DIRECT = "direct"

_MERGE_PR = re.compile(r"^Merge pull request #(\d+)\b")
_SQUASH_PR = re.compile(r"\(#(\d+)\)\s*$")
_GITLAB_MR = re.compile(r"^See merge request \S+!(\d+)\s*$", re.MULTILINE)
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")


class FileChange(NamedTuple):
    status: str  # A added, M modified (T: type change), D deleted, R renamed (to ``path``)
    path: str  # the last name the file had in the history read (renames followed)


class ChangeSet:
    __slots__ = (
        "author",
        "body",
        "email",
        "files",
        "follow_ups",
        "id",
        "kind",
        "labels",
        "pr",
        "pr_author",
        "reverts",
        "subject",
        "time",
        "title",
    )

    id: str  # the full id of the commit on the first-parent line
    kind: str  # merge, squash or direct
    pr: int | None
    author: str
    email: str
    time: int
    title: str  # one line: the pull request's title, or the commit's subject
    subject: str  # the commit's own subject line
    files: tuple[FileChange, ...]
    reverts: str  # the commit id (maybe abbreviated) a revert names
    labels: tuple[str, ...]  # from a saved pull-request list
    pr_author: str  # login from a saved pull-request list
    follow_ups: list[ChangeSet]  # candidate fixes of this one
    body: str  # the commit message past its subject (a merge's: the pull request's)

    def __init__(
        self,
        id: str,
        kind: str,
        pr: int | None,
        author: str,
        email: str,
        time: int,
        title: str,
        subject: str,
        files: tuple[FileChange, ...],
        reverts: str = "",
        labels: tuple[str, ...] = (),
        pr_author: str = "",
        follow_ups: list[ChangeSet] | None = None,
        body: str = "",
    ) -> None:
        self.id = id
        self.kind = kind
        self.pr = pr
        self.author = author
        self.email = email
        self.time = time
        self.title = title
        self.subject = subject
        self.files = files
        self.reverts = reverts
        self.labels = labels
        self.pr_author = pr_author
        self.follow_ups = [] if follow_ups is None else follow_ups
        self.body = body

    @property
    def short(self) -> str:
        return self.id[:7]

    @property
    def ref(self) -> str:
        """How evidence names it: the pull request number when there is one."""
        return f"#{self.pr}" if self.pr is not None else self.short

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files if f.status != "D"]


class History(NamedTuple):
    change_sets: list[ChangeSet]  # oldest first
    branch: str  # the revision walked


def read_history(
    root: Path,
    revision: str | None = None,
    since: str | None = None,
    max_changes: int = 0,
    renames: bool = True,
) -> History:
    """The change sets of the default branch (or ``revision``), oldest first; without
    ``renames``, a renamed file's history is two."""
    if not head_commit(root):
        raise KgError("this repository has no commits yet: there is no history to mine")
    branch = revision or default_branch(root) or "HEAD"
    # Said here in a line: git's own complaint would come with the whole log command.
    resolve_commit(root, branch)
    _check_depth(root, branch, since, max_changes)
    commits = first_parent_log(root, branch, since, max_changes, renames)
    # Only a merge can show a rename as a deletion and an addition that its branch's own
    # commits name (every other commit was diffed with rename detection already): a history
    # without such a merge needs no second pass.
    if renames and any(len(c.parents) > 1 and _deletes_and_adds(c) for c in commits):
        # Side branches hold more commits than the first-parent line: read as far back.
        pairs = renamed_pairs(root, branch, since, 4 * max_changes if max_changes else 0)
        commits = [_pair_renames(commit, pairs) for commit in commits]
    finals = final_names(commits)
    change_sets = [_change_set(commit, finals[index]) for index, commit in enumerate(commits)]
    return History(change_sets, branch)


def _check_depth(root: Path, branch: str, since: str | None, max_changes: int) -> None:
    """A shallow clone mines a truncated history as if it were all: refuse it, saying how
    deep a history is needed."""
    if not is_shallow(root):
        return
    have = commit_count(root, branch)
    if max_changes > 0 and have >= max_changes:
        return  # the last N commits are all here
    # A commit older than the date is here: the commits since it are all here too.
    if since and commit_count(root, branch, since) < have:
        return
    if since:
        need = f"every commit since {since}"
    elif max_changes > 0:
        need = f"the last {max_changes} commits"
    else:
        need = "the whole history"
    raise KgError(
        f"this is a shallow clone ({have} commits of history) and mining needs {need}: run "
        f"`git fetch --unshallow`"
        + (f" or `git fetch --deepen={max_changes - have}`" if max_changes > have else "")
        + " (in a GitHub workflow, check out with fetch-depth: 0)"
    )


def _deletes_and_adds(commit: LogCommit) -> bool:
    statuses = {f.status for f in commit.files}
    return "D" in statuses and "A" in statuses


def _pair_renames(commit: LogCommit, pairs: set[tuple[str, str]]) -> LogCommit:
    """A deletion and an addition that a commit of the history made as a rename are one."""
    if len(commit.parents) < 2 or not _deletes_and_adds(commit):
        return commit
    deleted = {f.path for f in commit.files if f.status == "D"}
    added = {f.path for f in commit.files if f.status == "A"}
    moves = {new: old for old, new in pairs if old in deleted and new in added}
    if not moves:
        return commit
    gone = set(moves.values())
    files = [
        LogFile("R", f.path, moves[f.path]) if f.status == "A" and f.path in moves else f
        for f in commit.files
        if not (f.status == "D" and f.path in gone)
    ]
    return commit._replace(files=tuple(files))


def final_names(commits: list[LogCommit]) -> list[dict[str, str]]:
    """For each commit, path -> the last name that file had, renames followed.

    Walked newest first: when a rename old -> new is met, every earlier mention of ``old``
    is that file; when a path is added, earlier mentions of it were another file.
    """
    later: dict[str, str] = {}  # a path as written before the commit being read -> final name
    result: list[dict[str, str]] = [{} for _ in commits]
    for index in range(len(commits) - 1, -1, -1):
        names = result[index]
        for change in commits[index].files:
            names[change.path] = later.get(change.path, change.path)
        for change in commits[index].files:
            if change.status == "R":
                later[change.old_path] = later.get(change.path, change.path)
            elif change.status == "A":
                later.pop(change.path, None)
    return result


def _change_set(commit: LogCommit, names: dict[str, str]) -> ChangeSet:
    subject, _, body = commit.message.partition("\n")
    body = body.strip("\n")
    kind, pr, title = DIRECT, None, subject.strip()
    merge = _MERGE_PR.match(subject)
    if len(commit.parents) > 1:
        kind = MERGE
        if merge:
            pr = int(merge.group(1))
            # GitHub writes the pull request's title as the merge commit's body.
            title = next((line.strip() for line in body.splitlines() if line.strip()), title)
        elif (squashed := _SQUASH_PR.search(subject)) is not None:
            pr = int(squashed.group(1))
        elif (gitlab := _GITLAB_MR.search(body)) is not None:
            pr = int(gitlab.group(1))
    elif (squashed := _SQUASH_PR.search(subject)) is not None:
        kind, pr = SQUASH, int(squashed.group(1))
    if pr is not None:
        title = _SQUASH_PR.sub("", title).strip()
    reverted = _REVERTS.search(body)
    files = tuple(
        FileChange("M" if f.status == "T" else f.status, names.get(f.path, f.path))
        for f in commit.files
    )
    return ChangeSet(
        id=commit.sha,
        kind=kind,
        pr=pr,
        author=commit.author,
        email=commit.email.lower(),
        time=commit.time,
        title=title,
        subject=subject,
        files=files,
        reverts=reverted.group(1) if reverted else "",
        body=body,
    )
