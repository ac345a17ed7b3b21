"""What past work changed, for ``context``: the repository's change sets (pull requests and
direct commits, as the miner reads them), their messages in a lexical index, their files.

Kept in the read cache with the commit it was read at. A question asks git only for HEAD:
when HEAD is the commit the index was read at, nothing more is read; when HEAD descends from
it, only the new change sets are read and added; otherwise (a checkout of another branch, a
rebase, history rewritten, a rename among the new changes) it is read again whole. Either way
it equals the index read from scratch at HEAD, which is what the tests hold it to.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from kgtool.errors import KgError
from kgtool.mining.history import ChangeSet, read_history
from kgtool.query import HISTORY_INDEX_FILE
from kgtool.query.kg import read_cached, remember_cached
from kgtool.query.lexical import EMPTY, Lexicon, build, is_lexicon, words_of
from kgtool.repo import commit_count, first_parent_history, head_commit
from kgtool.store import Store

HISTORY_FILE = HISTORY_INDEX_FILE  # (version, (tip, changes, lexicon))
VERSION = "history-2"  # raise when what is kept per change set changes
# The newest change sets kept: years of work in most repositories, and a bound on the cache.
MAX_CHANGE_SETS = 10_000


class PastChange(NamedTuple):
    time: int  # author time, seconds since the epoch
    title: str  # the pull request's title, or the commit's subject
    files: tuple[str, ...]  # by their last names (renames followed); added files included


class HistoryIndex(NamedTuple):
    tip: str  # the commit it was read at ("" when there is no history to read)
    # change set id (its commit on the first-parent line) -> the change, oldest first
    changes: dict[str, PastChange]
    lexicon: Lexicon  # each change set's message (title and body), documents named by id


NO_HISTORY = HistoryIndex("", {}, EMPTY)


def history_index(root: Path, store: Store) -> HistoryIndex:
    """The history of HEAD, from the read cache when it was read at HEAD, refreshed with the
    new change sets when HEAD's first-parent line runs through where it was read, else read
    whole. What cannot be read (no commits, no git) is remembered as no history, so that a
    question does not try again until HEAD moves."""
    try:
        head = head_commit(root)
    except (KgError, OSError):
        head = ""
    kept = _load(store)
    if kept is not None and kept.tip == head:
        return kept
    index = None
    if kept is not None and kept.tip and head:
        index = _extended(root, kept, head)
    if index is None:
        index = _read_whole(root, head) if head else NO_HISTORY
    remember_cached(
        store,
        VERSION,
        (head, {k: tuple(v) for k, v in index.changes.items()}, tuple(index.lexicon)),
        HISTORY_FILE,
    )
    return index if index.tip else index._replace(tip=head)


def _load(store: Store) -> HistoryIndex | None:
    """The index the cache holds; None when it holds none, or one damaged in any part."""
    record = read_cached(store, HISTORY_FILE, VERSION)
    if not (isinstance(record, tuple) and len(record) == 3 and is_lexicon(record[2])):
        return None
    tip, changes, lexicon = record
    if not isinstance(tip, str) or not isinstance(changes, dict):
        return None
    found = {}
    for key, value in changes.items():
        if not (isinstance(value, tuple) and len(value) == 3):
            return None
        when, title, files = value
        if type(when) is not int or not isinstance(title, str) or not isinstance(files, tuple):
            return None
        if not all(isinstance(path, str) for path in files):
            return None
        found[key] = PastChange(when, title, files)
    if not set(lexicon[0]) <= found.keys():
        return None
    return HistoryIndex(tip, found, Lexicon(*lexicon))


def _read_whole(root: Path, head: str) -> HistoryIndex:
    # A shallow clone is read as deep as it goes (the miner refuses to mine it; a question
    # is better answered with the history there is).
    try:
        count = min(commit_count(root, head), MAX_CHANGE_SETS) or MAX_CHANGE_SETS
    except (KgError, OSError):
        return NO_HISTORY
    sets = _read(root, head, count)
    return NO_HISTORY if sets is None else _index(head, sets, {})


def _read(root: Path, head: str, count: int) -> list[ChangeSet] | None:
    """The newest ``count`` change sets of ``head``; None when git cannot say. A clone
    missing some blobs cannot tell renames: it is read without."""
    for renames in (True, False):
        try:
            return read_history(root, head, max_changes=count, renames=renames).change_sets
        except (KgError, OSError):
            continue
    return None


def _extended(root: Path, kept: HistoryIndex, head: str) -> HistoryIndex | None:
    """``kept`` with the change sets made since it was read; None when they cannot be just
    added: its tip is not on HEAD's first-parent line (a question asked on a branch merged
    since, a rebase, another branch), or one of them renames a file."""
    try:
        count = commit_count(root, f"{kept.tip}..{head}")
        if count <= 0 or count >= MAX_CHANGE_SETS:
            return None
        line = first_parent_history(root, count + 1, head)
    except (KgError, OSError):
        return None
    if not line or line[0] != kept.tip:
        return None
    sets = _read(root, head, count)
    if sets is None:
        return None
    if any(f.status == "R" for s in sets for f in s.files):
        return None  # the older change sets name the file by its old name: read again
    words = _words_by_change(kept.lexicon)
    return _index(head, sets, {k: (v, words.get(k, {})) for k, v in kept.changes.items()})


def _words_by_change(lexicon: Lexicon) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for word, (numbers, tallies) in lexicon.postings.items():
        for number, tally in zip(numbers, tallies, strict=False):
            found.setdefault(lexicon.documents[number], {})[word] = tally
    return found


def _index(
    head: str, sets: list[ChangeSet], older: dict[str, tuple[PastChange, dict[str, int]]]
) -> HistoryIndex:
    """The index of ``older`` change sets and the newer ``sets`` (oldest first), the newest
    MAX_CHANGE_SETS of them."""
    memo: dict[str, str] = {}
    entries = dict(older)
    for change in sets:
        message = f"{change.title}\n{change.body}"
        files = tuple(sorted({f.path for f in change.files}))
        entries[change.id] = (PastChange(change.time, change.title, files), words_of(message, memo))
    if len(entries) > MAX_CHANGE_SETS:  # oldest first, as the history is read
        entries = dict(list(entries.items())[-MAX_CHANGE_SETS:])
    lexicon = build({k: words for k, (_, words) in entries.items()})
    return HistoryIndex(head, {k: change for k, (change, _) in entries.items()}, lexicon)
