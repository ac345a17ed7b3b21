"""The files layer 1 covers, read from the records of the index listing that differ from the
one the cache's blob ids were read from: the same as reading every record, after any change
git can make to the index or the working tree."""

from __future__ import annotations

import os
import random
import subprocess
from typing import Any

import pytest
from conftest import GIT_ENV, Repo

from kgtool import tracked
from kgtool.config import load_config
from kgtool.raw import cache
from kgtool.raw.current import current_files, current_files_since, listed_now
from kgtool.repo import listing
from kgtool.store import CACHE_HOME
from kgtool.tracked import differing_records, records_of


def joined(records: list[str]) -> str:
    return "".join(f"{record}\0" for record in records)


@pytest.mark.parametrize("seed", range(40))
def test_the_records_outside_the_region_are_the_same_in_both_listings(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever records are changed, added or removed, and wherever: the listings are the
    same text before and after the two regions, cut at records, and every record that
    differs is in a region."""
    rng = random.Random(seed)
    # Blocks of a few characters too: the halving meets block edges everywhere.
    monkeypatch.setattr(tracked, "COMPARED_AT_ONCE", rng.choice((1, 3, 64, 1 << 16)))
    paths = sorted({f"d{rng.randrange(9)}/f{rng.randrange(400)}.py" for _ in range(300)})
    before = [f"100644 {rng.getrandbits(160):040x} 0\t{path}" for path in paths]
    after = list(before)
    for _ in range(rng.choice((1, 1, 2, 5, 40))):
        at = rng.randrange(len(after) + 1)
        what = rng.choice(("edit", "add", "remove"))
        if what == "edit" and at < len(after):
            name = after[at].partition("\t")[2]
            after[at] = f"100755 {rng.getrandbits(160):040x} 0\t{name}"
        elif what == "remove" and at < len(after):
            del after[at]
        else:
            after.insert(at, f"100644 {rng.getrandbits(160):040x} 0\tnew/{rng.random()}")
    old, new = joined(before), joined(after)
    region = differing_records(old, new, len(before) + len(after))
    assert region is not None
    cut_before, cut_after = region
    assert set(before) ^ set(after) <= set(cut_before) | set(cut_after)
    # The text outside the regions is the same, and whole records.
    start = old.find(joined(cut_before)) if cut_before else new.find(joined(cut_after))
    head = old[:start]
    tail = old[start + len(joined(cut_before)) :]
    assert new == head + joined(cut_after) + tail
    assert head == "" or head.endswith("\0")


def test_a_paths_records_are_found_by_the_whole_record_not_a_longer_one_ending_alike() -> None:
    text = joined(
        [
            "100644 " + "a" * 40 + " 0\tx\tb.py",
            "100644 " + "b" * 40 + " 0\tb.py",
            "100644 " + "c" * 40 + " 1\tc.py",
            "100644 " + "d" * 40 + " 3\tc.py",
        ]
    )
    assert records_of(text, "b.py") == ["100644 " + "b" * 40 + " 0\tb.py"]
    assert len(records_of(text, "c.py")) == 2
    assert records_of(text, "missing.py") == []


def step(repo: Repo, rng: random.Random, number: int, touched: list[str]) -> None:
    """One change git could see: an edit staged or not, a file added or removed (from the
    index, or the working tree only), a rename, a mode, a symlink, an edit undone; half of
    them to a file changed before (an edit, then its undoing)."""
    tracked = repo.git("ls-files").split()
    again = [path for path in touched if path in tracked]
    path = rng.choice(again if again and rng.random() < 0.5 else tracked)
    touched.append(path)
    what = rng.choice(
        ("edit", "edit-staged", "add", "remove", "delete", "rename", "mode", "link", "undo")
    )
    full = repo.root / path
    if what in ("edit", "edit-staged") and full.is_file() and not full.is_symlink():
        full.write_text(f"VALUE = {number}\n")
        if what == "edit-staged":
            repo.git("add", path)
    elif what == "add":
        repo.write(f"p{number % 3}/n{number}.py", f"def f{number}():\n    return {number}\n")
        repo.git("add", "-A")
    elif what == "remove" and len(tracked) > 3:
        repo.git("rm", "-q", "--cached", path)
    elif what == "delete" and len(tracked) > 3 and full.is_file():
        full.unlink()
    elif what == "rename" and full.is_file() and not full.is_symlink():
        repo.git("mv", path, f"{path}.moved.py")
    elif what == "mode" and full.is_file() and not full.is_symlink():
        os.chmod(full, 0o755)
        repo.git("add", path)
    elif what == "link":
        link = repo.root / f"link{number}.py"
        link.symlink_to(path)
        repo.git("add", link.name)
    elif what == "undo" and full.exists():
        repo.git("checkout", "-q", "--", path)


@pytest.mark.parametrize("seed", range(6))
def test_reading_what_differs_gives_what_reading_every_record_gives(
    repo: Repo, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgtool.raw import current

    read: list[int] = []  # how many records each read of the listing read
    whole_read = current.current_files

    def counting(root: Any, listed: Any, config: Any) -> Any:
        read.append(listed.staged.count("\0"))
        return whole_read(root, listed, config)

    monkeypatch.setattr(current, "current_files", counting)
    rng = random.Random(seed)
    repo.write_files({f"p{n % 3}/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(30)})
    repo.write(".kg/raw/p0.jsonl", "{}\n")  # kgtool's own output, tracked: left out
    repo.commit()
    config = load_config(repo.root)
    listed = listing(repo.root)
    whole, _ = current_files(repo.root, listed, config)
    then, blobs = listed_now(listed, config), whole.blobs
    fewer, touched = 0, []
    for number in range(25):
        step(repo, rng, number, touched)
        listed = listing(repo.root)
        expected, expected_bad = current_files(repo.root, listed, config)
        found, bad = current_files_since(repo.root, listed, config, then, blobs)
        fewer += read[-1] < listed.staged.count("\0")  # the records that differ, not all
        assert found.blobs == expected.blobs, number
        assert bad == expected_bad
        for path, odd in found.odd.items():  # the odd records of the files read again
            assert expected.odd[path] == odd
        then, blobs = listed_now(listed, config), found.blobs
    assert fewer > 20  # of 25 steps: what is tested is the read of what differs


def test_a_file_that_differed_from_the_index_then_and_not_now_is_read_again(repo: Repo) -> None:
    """The index listing alone does not say that an edit was undone in the working tree: the
    files that differed from the index when the blob ids were read are read again."""
    repo.write_files({f"m{n}.py": f"x = {n}\n" for n in range(12)})
    repo.commit()
    config = load_config(repo.root)
    listed = listing(repo.root)
    whole, _ = current_files(repo.root, listed, config)
    then, blobs = listed_now(listed, config), whole.blobs
    for change in (
        lambda: repo.write("m3.py", "x = 33\n"),  # differs from the index
        lambda: repo.git("checkout", "-q", "--", "m3.py"),  # and no more
        lambda: (repo.write("m4.py", "x = 44\n"), repo.git("add", "m4.py")),  # staged
        lambda: repo.write("m4.py", "x = 4\n"),  # the working tree back, the index not
    ):
        change()
        listed = listing(repo.root)
        found, _ = current_files_since(repo.root, listed, config, then, blobs)
        assert found.blobs == current_files(repo.root, listed, config)[0].blobs
        then, blobs = listed_now(listed, config), found.blobs


def test_an_edit_not_staged_leaves_the_kept_index_listing_unwritten(repo: Repo) -> None:
    """An edit that is not staged leaves the index as it was: its listing (a megabyte at 10k
    files) is not written again. What did change, the files that differ from it, is kept in
    the manifest: undone, the edit is read again. A staged change writes the listing."""
    repo.write_files({f"m{n}.py": f"x = {n}\n" for n in range(12)})
    repo.commit()
    assert repo.kg("update").code == 0
    kept = repo.root / ".git" / CACHE_HOME / cache.LISTED_FILE
    written = os.stat(kept)
    repo.write("m3.py", "x = 3\n\ndef shown():\n    return x\n")  # a node more
    assert repo.kg("update").code == 0
    assert os.stat(kept).st_ino == written.st_ino  # atomic writes make a new file
    repo.git("checkout", "-q", "--", "m3.py")
    assert repo.kg("update").code == 0
    assert repo.kg_bytes() == repo.clean_build()
    repo.write("m4.py", "x = 4\n\ndef staged():\n    return x\n")
    repo.git("add", "m4.py")
    assert repo.kg("update").code == 0
    assert os.stat(kept).st_ino != written.st_ino
    assert repo.kg_bytes() == repo.clean_build()


def test_a_changed_exclude_setting_reads_every_record(repo: Repo) -> None:
    """The blob ids kept were read under the ``exclude`` setting of their run: under another,
    every file is read, and a file no longer excluded comes back into layer 1."""
    repo.write_files({"a.py": "x = 1\n", "b.py": "y = 2\n", ".kgtool.yaml": "exclude: [b.py]\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    repo.write(".kgtool.yaml", "exclude: []\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert any('"id":"b.py"' in text for text in map(str, repo.kg_bytes().values()))
    assert repo.kg_bytes() == repo.clean_build()


def test_a_merge_conflict_reads_every_record(repo: Repo) -> None:
    """A record that differs is one stage of a conflict whose other stages may not differ:
    every record is read, and the file keeps its node whichever side changed."""
    repo.write_files({"a.py": "x = 0\n", "b.py": "y = 0\n"})
    repo.commit()
    base = repo.git("rev-parse", "--abbrev-ref", "HEAD").strip()
    for branch, value in (("t1", "1"), ("t2", "2")):
        repo.git("checkout", "-q", "-b", branch, base)
        repo.write("a.py", f"x = {value}\n")
        repo.commit()
    repo.git("checkout", "-q", base)
    repo.write("a.py", "x = 9\n")
    repo.commit()
    for branch in ("t1", "t2"):
        env = {**os.environ, **GIT_ENV, "HOME": str(repo.root.parent)}
        merged = subprocess.run(["git", "merge", "-q", branch], cwd=repo.root, env=env)
        assert merged.returncode != 0  # a conflict in a.py
        assert repo.kg("update").code == 0
        assert any('"id":"a.py"' in text for text in map(str, repo.kg_bytes().values()))
        repo.git("merge", "--abort")
    assert repo.kg("update").code == 0
    assert repo.kg_bytes() == repo.clean_build()


@pytest.mark.parametrize("seed", range(20))
def test_where_two_texts_part_is_found_to_the_character(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(tracked, "COMPARED_AT_ONCE", rng.choice((1, 3, 8, 1 << 16)))
    a = "".join(rng.choice("ab\0") for _ in range(rng.randrange(0, 200)))
    b = a[: rng.randrange(0, len(a) + 1)] + "".join(rng.choice("ab") for _ in range(5))
    b += a[rng.randrange(0, len(a) + 1) :]
    room = min(len(a), len(b))
    start = next((i for i in range(room) if a[i] != b[i]), room)
    end = next((i for i in range(room) if a[len(a) - 1 - i] != b[len(b) - 1 - i]), room)
    assert tracked._same_run(a, b, room) == start
    assert tracked._same_run(a, b, room, from_end=True) == end
