"""The read path's index of past change sets, kept in the read cache: used when whole, read
again from git when any part of it is damaged."""

from __future__ import annotations

from pathlib import Path

import pytest
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
        (7, changes, lexicon),  # a tip that names no commit
        (head, sorted(changes.items()), lexicon),  # the change sets not keyed by their ids
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


def test_a_repository_with_no_commits_has_no_history_read_at_no_commit(repo: Repo) -> None:
    """Before the first commit there is nothing to read: the index is empty, and read at ""
    (no commit)."""
    index = history_index(repo.root, Store(repo.root))
    assert (index.tip, index.changes, index.lexicon.documents) == ("", {}, [])


def test_a_renamed_file_is_named_by_its_last_name_in_every_change_set(repo: Repo) -> None:
    repo.write("app/old_name.py", "def save():\n    return 1\n")
    first = repo.commit("Add the store")
    repo.git("mv", "app/old_name.py", "app/store.py")
    repo.commit("Rename the store")
    index = history_index(repo.root, Store(repo.root))
    assert index.changes[first].files == ("app/store.py",)


def test_a_kept_change_set_with_no_words_is_kept_when_new_ones_are_added(
    repo: Repo, tmp_path: Path
) -> None:
    """A message of only short or common words ("a fix") indexes no word; the change set
    is kept all the same when the index grows, and the index equals one read afresh."""
    repo.write("app/store.py", "def save():\n    return 1\n")
    quiet = repo.commit("a fix")
    assert repo.kg("update").code == 0
    store = Store(repo.root)
    history_index(repo.root, store)  # a question keeps the index in the read cache, at "a fix"
    assert read_cached(store, HISTORY_FILE, VERSION)[0] == quiet
    repo.write("app/store.py", "def save():\n    return 2\n")
    repo.commit("Save twice as hard")
    extended = history_index(repo.root, store)
    assert quiet in extended.changes and quiet in extended.lexicon.documents
    assert extended == history_index(repo.root, Store(repo.root, cache_dir=tmp_path / "fresh"))


def test_without_git_there_is_no_history_until_git_can_be_run_again(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where git cannot be run, the index is empty and read at no commit (""), the same as
    before a first commit; once git runs, HEAD is read again and so is its history."""
    store = _two_changes_mapped(repo)
    nowhere = tmp_path / "no-git"
    nowhere.mkdir()
    with monkeypatch.context() as patched:
        patched.setenv("PATH", str(nowhere))
        index = history_index(repo.root, store)
    assert (index.tip, index.changes, index.lexicon.documents) == ("", {}, [])
    titles = [change.title for change in history_index(repo.root, store).changes.values()]
    assert titles[-2:] == ["Add the store", "Save twice as hard"]


def _partial_clone(repo: Repo, tmp_path: Path, kind: str) -> Repo:
    """A clone of ``repo`` fetched with ``--filter=kind``, whose remote is then gone: what it
    lacks can no longer be fetched."""
    remote = tmp_path / "remote.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(remote))
    Repo(remote).git("config", "uploadpack.allowFilter", "true")
    clone = Repo(tmp_path / "partial")
    repo.git(
        "-c", "protocol.file.allow=always", "clone", "-q", f"--filter={kind}",
        f"file://{remote}", str(clone.root),
    )  # fmt: skip
    remote.rename(tmp_path / "gone.git")
    return clone


def test_a_clone_missing_blobs_is_read_without_following_renames(
    repo: Repo, tmp_path: Path
) -> None:
    """Telling an edited rename needs the blobs of both sides: a clone that lacks them (and
    cannot fetch them) has its history read with the rename as a deletion and an addition."""
    body = "".join(f"def f{n}():\n    return {n}\n" for n in range(20))
    repo.write_files({"old_name.py": body, "main.py": "def main():\n    pass\n"})
    first = repo.commit("initial")
    repo.git("mv", "old_name.py", "new_name.py")
    repo.write("new_name.py", body + "def extra():\n    pass\n")  # not an exact rename
    second = repo.commit("rename and edit")
    clone = _partial_clone(repo, tmp_path, "blob:none")
    index = history_index(clone.root, Store(clone.root))
    assert index.changes[first].files == ("main.py", "old_name.py")
    assert index.changes[second].files == ("new_name.py", "old_name.py")


def test_a_history_git_cannot_read_is_no_history_read_at_head(repo: Repo, tmp_path: Path) -> None:
    """A clone lacking the trees of older commits cannot list what they changed: its index
    is empty, and read at HEAD (as it is remembered, not to be tried again until HEAD
    moves)."""
    for number in range(3):
        repo.write(f"part_{number}.py", "X = 1\n")
        head = repo.commit(f"part {number}")
    clone = _partial_clone(repo, tmp_path, "tree:0")
    index = history_index(clone.root, Store(clone.root))
    assert (index.tip, index.changes, index.lexicon.documents) == (head, {}, [])


def test_adding_to_a_full_index_drops_the_oldest_as_a_fresh_read_does(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index holds the newest MAX_CHANGE_SETS change sets (3 here, for a small history):
    new ones added to a full index push the oldest out, as reading it afresh would."""
    import kgtool.query.history_index as module

    monkeypatch.setattr(module, "MAX_CHANGE_SETS", 3)
    for number in range(4):
        repo.write("app/store.py", f"def save():\n    return {number}\n")
        repo.commit(f"Save change {number}")
    assert repo.kg("update").code == 0
    store = Store(repo.root)
    kept = history_index(repo.root, store)
    assert [c.title for c in kept.changes.values()] == [f"Save change {n}" for n in (1, 2, 3)]
    repo.write("app/store.py", "def save():\n    return 4\n")
    repo.commit("Save change 4")
    extended = history_index(repo.root, store)
    assert [c.title for c in extended.changes.values()] == [f"Save change {n}" for n in (2, 3, 4)]
    assert extended == history_index(repo.root, Store(repo.root, cache_dir=tmp_path / "fresh"))
