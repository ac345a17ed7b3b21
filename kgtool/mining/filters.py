"""Which change sets are evidence of a task, and which are not: each one set aside is counted.

Set aside, by reason (the first that applies): merges that only bring another branch in (the
default branch into itself, a release line forward), bot authors, reverts (kept as rollback
evidence), release and version bumps, change sets over the size limit, and change sets with
no files. What is kept is then grouped: a quick follow-up that completes an earlier change
(same author within hours, over files it changed, or a fix of a file the earlier one added,
within a week) is a candidate fix of it, not a task of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from kgtool.mining.history import MERGE, ChangeSet
from kgtool.mining.paths import is_bookkeeping, is_version_file

BRANCH_MERGE = "branch merge"
BOT = "bot"
REVERT = "revert"
RELEASE = "release or version bump"
OVERSIZE = "over the size limit"
EMPTY = "no files but bookkeeping"
REASONS = (BRANCH_MERGE, BOT, REVERT, RELEASE, OVERSIZE, EMPTY)

MAX_FILES = 50  # a change set touching more files is a sweep (a rename, a reformat), not a task
SAME_AUTHOR_SECONDS = 6 * 3600
FIX_SECONDS = 7 * 24 * 3600
FOLLOW_UP_MAX_FILES = 10
QUICK_MAX_FILES = 3

_BOT = re.compile(
    r"\[bot\]|^dependabot|^renovate|github-actions|pre-commit-ci|^greenkeeper|snyk-bot"
    r"|-bot@|^bot@|allcontributors|^copilot@|weblate",
    re.IGNORECASE,
)
# What bots write even when a person merges it: their branch names and their titles.
_BOT_WORK = re.compile(
    r"from \S+/(dependabot|renovate|pre-commit-ci)[/-]|^Bump \S+ from \S+ to \S+"
    r"|^\[pre-commit\.ci\]|^chore\(deps\)",
    re.IGNORECASE,
)
_VERSION = r"v?\d+(\.\d+)+\S*"
_RELEASE = re.compile(
    rf"^(release|releasing|releases?:|prepare (for )?release|preparing (for )?release"
    rf"|version bump|bump(ed)?( the)? version|update version|set version|start version"
    rf"|chore\(release\)|{_VERSION}$|(version|release|tag) {_VERSION}|bump to {_VERSION}"
    rf"|changelog for {_VERSION}|{_VERSION} release|this is {_VERSION})",
    re.IGNORECASE,
)
_RELEASE_WORK = re.compile(r"^(cherry[- ]?pick|backport)\b|\brelease notes\b", re.IGNORECASE)
_CONVENTIONAL = re.compile(r"^(chore|build|ci|release|deps)(\([^)]*\))?!?:\s+", re.IGNORECASE)
_BRANCH_MERGE = re.compile(r"^Merge (remote-tracking )?branch '([^']+)'", re.IGNORECASE)
_LINE = re.compile(
    r"(^|/)(main|master|trunk|develop|stable|\d+(\.\d+|\.x)*[\w.-]*|"
    r"[\w.-]*(maintenance|release)[\w.-]*)$"
)
_SYNC = re.compile(r"^Merge (?:branch |remote-tracking branch )?'?([\w./-]+)'? into [\w./-]+$")
_FIX_WORDS = re.compile(
    r"\b(fix|fixes|fixed|forgot|forgotten|missing|oops|typo|follow-?up|amend|add back)\b",
    re.IGNORECASE,
)
_RELEASE_LABELS = {"release", "dependencies", "bot", "autorelease: pending"}


def _is_line(name: str, branch: str) -> bool:
    """A branch that is the default branch or a release line, not a topic branch."""
    default = branch.rsplit("/", 1)[-1]
    return name.rsplit("/", 1)[-1] == default or _LINE.search(name) is not None


class Filtered(NamedTuple):
    kept: list[ChangeSet]  # tasks, oldest first; follow-ups hang on the change they complete
    set_aside: dict[str, list[ChangeSet]]
    follow_ups: int = 0

    @property
    def reverts(self) -> list[ChangeSet]:
        return self.set_aside.get(REVERT, [])


def reason_for(change: ChangeSet, branch: str, max_files: int) -> str:
    """Why a change set is not evidence of a task; "" when it is."""
    if change.kind == MERGE and change.pr is None:
        merged = _BRANCH_MERGE.match(change.title)
        if merged is not None and _is_line(merged.group(2), branch):
            return BRANCH_MERGE
    # A pull request that only brings one line into another ("Merge stable into main").
    synced = _SYNC.match(change.title)
    if change.kind == MERGE and synced is not None and _is_line(synced.group(1), branch):
        return BRANCH_MERGE
    who = (change.email, change.author, change.pr_author)
    # "build(deps): bump x from 1 to 2": what a bot writes, under a conventional type.
    subject = _CONVENTIONAL.sub("", change.subject, count=1)
    if (
        any(_BOT.search(w) for w in who)
        or _BOT_WORK.search(change.subject)
        or (_BOT_WORK.search(subject))
    ):
        return BOT
    if change.reverts or change.title.startswith(('Revert "', "Revert '")):
        return REVERT
    # "chore: bump version to 0.5.1", "build(release): 2.0.0": a conventional commit's type
    # and scope say where, the rest says what.
    title = _CONVENTIONAL.sub("", change.title, count=1)
    if _RELEASE.match(title) or _RELEASE_LABELS & {x.lower() for x in change.labels}:
        return RELEASE
    # Release notes, and a release's changes carried to another line, are a release's
    # bookkeeping however many pages they touch ("Cherry pick 9.0.2 release notes").
    if _RELEASE_WORK.search(title):
        return RELEASE
    paths = change.paths
    # A change that touches only manifests, lock files and bookkeeping is a version bump or a
    # dependency update, whatever it says and however many packages it bumps at once.
    if (
        paths
        and all(is_bookkeeping(p) or is_version_file(p) for p in paths)
        and any(is_version_file(p) for p in paths)
    ):
        return RELEASE
    if len(change.files) > max_files:
        return OVERSIZE
    if not [p for p in paths if not is_bookkeeping(p)]:
        return EMPTY
    return ""


def filter_change_sets(
    change_sets: list[ChangeSet], branch: str = "", max_files: int = MAX_FILES
) -> Filtered:
    kept: list[ChangeSet] = []
    set_aside: dict[str, list[ChangeSet]] = {reason: [] for reason in REASONS}
    for change in change_sets:
        reason = reason_for(change, branch, max_files)
        if reason:
            set_aside[reason].append(change)
        else:
            kept.append(change)
    tasks, follow_ups = group_follow_ups(kept)
    return Filtered(tasks, set_aside, follow_ups)


def group_follow_ups(change_sets: list[ChangeSet]) -> tuple[list[ChangeSet], int]:
    """Attach each candidate fix to the change it completes; the rest are tasks."""
    tasks: list[ChangeSet] = []
    grouped = 0
    recent: list[ChangeSet] = []  # tasks of the last week, newest last
    # Each change's files, bookkeeping left out, worked out once: a busy week compares every
    # change with dozens of earlier ones.
    files: dict[str, set[str]] = {}
    for change in change_sets:
        recent = [t for t in recent if change.time - t.time <= FIX_SECONDS]
        files[change.id] = {p for p in change.paths if not is_bookkeeping(p)}
        earlier = _completes(change, recent, files)
        if earlier is not None:
            earlier.follow_ups.append(change)
            grouped += 1
            continue
        tasks.append(change)
        recent.append(change)
    return tasks, grouped


def _completes(
    change: ChangeSet, recent: list[ChangeSet], files_of: dict[str, set[str]]
) -> ChangeSet | None:
    files = files_of[change.id]
    if not files or len(files) > FOLLOW_UP_MAX_FILES or change.kind == MERGE:
        return None
    fix_words = _FIX_WORDS.search(change.title) is not None
    for earlier in reversed(recent):
        touched = files_of[earlier.id]
        if not files & touched:
            continue
        # The same author, within hours, again on files of that change and nothing else.
        quick = (
            change.email == earlier.email
            and change.time - earlier.time <= SAME_AUTHOR_SECONDS
            and len(files) <= QUICK_MAX_FILES
            and files <= touched
        )
        added = {f.path for f in earlier.files if f.status == "A" and not is_bookkeeping(f.path)}
        if quick or (fix_words and files & added):
            return earlier
    return None


# A version, a digest or a commit id, as a version bump rewrites them: 1.25.4, v1.26.3,
# ^2.0.0-rc.1, go1.25.4.linux-amd64 (the version inside), a sha256 or a pinned commit.
_VERSION_TOKEN = re.compile(rf"{_VERSION}|\b[0-9a-f]{{7,64}}\b")
BUMP_SHARE = 0.9  # this share of a diff's lines pair up once their versions are masked


class VersionRewrites(NamedTuple):
    """What a diff does to versions: the lines it rewrote with another version in them and
    nothing else ("go 1.25.4" for "go 1.25.3"), counted on each side, and all its lines."""

    paired: int
    lines: int

    @property
    def rewrites_a_version(self) -> bool:
        return self.paired > 0

    @property
    def rewrites_only_versions(self) -> bool:
        """Nothing but versions: each line written is a line removed with another version
        (a new checksum beside it). Decided by the diff, whatever the title says."""
        return self.paired > 0 and 2 * self.paired >= BUMP_SHARE * self.lines


def version_rewrites(removed: list[str], written: list[str]) -> VersionRewrites:
    """What a diff, its removed and written lines, does to versions."""

    def masked(lines: list[str]) -> Counter[str]:
        return Counter(
            _VERSION_TOKEN.sub("<v>", line).strip() for line in lines if _VERSION_TOKEN.search(line)
        )

    paired = sum((masked(removed) & masked(written)).values())
    return VersionRewrites(paired, len(removed) + len(written))
