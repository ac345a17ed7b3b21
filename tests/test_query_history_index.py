"""The read path's index of past change sets, kept in the read cache: used when whole, read
again from git when any part of it is damaged."""

from __future__ import annotations

from conftest import Repo

from kgtool.query.history_index import HISTORY_FILE, VERSION, history_index
from kgtool.query.kg import read_cached, remember_cached
from kgtool.store import Store


def _two_changes_mapped(repo: Repo) -> Store:
    """A repository of two change sets to one file, with its map built: its store."""
    repo.write("app/store.py", "def save():\n    return 1\n")
    repo.commit("Add the store")
    repo.write("app/store.py", "def save():\n    return 2\n")
    repo.commit("Save twice as hard")
    assert repo.kg("update").code == 0
    return Store(repo.root)


def test_the_cache_is_read_when_whole_and_read_again_when_damaged(repo: Repo) -> None:
    store = _two_changes_mapped(repo)
    first = history_index(repo.root, store)
    assert [change.title for change in first.changes.values()][-2:] == [
        "Add the store",
        "Save twice as hard",
    ]
    head, changes, lexicon = read_cached(store, HISTORY_FILE, VERSION)
    cid = next(iter(changes))
    when, title, files = changes[cid]
    # A whole record at HEAD is what the index is: git is not read again.
    doctored = (head, {**changes, cid: (when, "Doctored", files)}, lexicon)
    remember_cached(store, VERSION, doctored, HISTORY_FILE)
    assert history_index(repo.root, store).changes[cid].title == "Doctored"
    damaged = [
        "not a record",
        (head, changes),
        (head, {**changes, cid: (when, title)}, lexicon),
        (head, {**changes, cid: (str(when), title, files)}, lexicon),
        (head, {**changes, cid: (when, title, [*files])}, lexicon),
        (head, {k: v for k, v in changes.items() if k != cid}, lexicon),  # words of a lost one
    ]
    for record in damaged:
        remember_cached(store, VERSION, record, HISTORY_FILE)
        assert history_index(repo.root, store) == first, record


def test_new_change_sets_are_added_to_the_kept_index_and_the_rest_is_not_read_again(
    repo: Repo,
) -> None:
    store = _two_changes_mapped(repo)
    history_index(repo.root, store)
    head, changes, lexicon = read_cached(store, HISTORY_FILE, VERSION)
    cid = next(iter(changes))
    when, _, files = changes[cid]
    doctored = (head, {**changes, cid: (when, "Doctored", files)}, lexicon)
    remember_cached(store, VERSION, doctored, HISTORY_FILE)
    repo.write("app/load.py", "def load():\n    return 3\n")
    tip = repo.commit("Load the store")
    extended = history_index(repo.root, store)
    assert extended.tip == tip
    # The kept change sets come from the cache (the doctored title stays), the new one
    # from git.
    assert extended.changes[cid].title == "Doctored"
    assert [c.title for c in extended.changes.values()][-2:] == [
        "Save twice as hard",
        "Load the store",
    ]
    assert "app/load.py" in extended.changes[tip].files
