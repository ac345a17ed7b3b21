"""What kgtool reads of git: the tracked files and the blob id of each one's content."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GIT_ENV, Repo

from kgtool.repo import listing, tracked_files
from kgtool.tracked import blob_id


def test_the_modified_files_are_those_whose_working_tree_differs_from_the_index(repo: Repo) -> None:
    repo.write_files(
        {
            "same.py": "x = 1\n",
            "edited.py": "x = 1\n",
            "staged.py": "x = 1\n",
            "gone.py": "x = 1\n",
            "run.sh": "echo hi\n",
            "with space.py": "x = 1\n",
        }
    )
    repo.commit()
    repo.write("edited.py", "x = 2\n")
    repo.write("with space.py", "x = 2\n")
    repo.write("staged.py", "x = 2\n")
    repo.git("add", "staged.py")  # the index holds the new content: nothing to re-read
    (repo.root / "gone.py").unlink()
    os.chmod(repo.root / "run.sh", 0o755)
    repo.write("new.py", "x = 3\n")
    repo.git("add", "--intent-to-add", "new.py")
    repo.write("untracked.py", "x = 4\n")
    assert listing(repo.root).modified == {
        "edited.py",
        "with space.py",
        "gone.py",
        "run.sh",
        "new.py",
    }
    by_path = {f.path: f for f in tracked_files(repo.root)}
    assert "untracked.py" not in by_path
    assert by_path["edited.py"].blob == blob_id(b"x = 2\n")
    assert by_path["staged.py"].blob == blob_id(b"x = 2\n")
    assert by_path["same.py"].blob == blob_id(b"x = 1\n")
    assert by_path["gone.py"].deleted and by_path["gone.py"].blob == ""


def conflicting_merge(repo: Repo, path: str) -> None:
    """A branch and the current one each change ``path``; merging them conflicts."""
    repo.git("checkout", "-q", "-b", "other")
    repo.write(path, "x = 'theirs'\n")
    repo.commit()
    repo.git("checkout", "-q", "-")
    repo.write(path, "x = 'ours'\n")
    repo.commit()
    assert repo.merge("other").returncode != 0


def test_a_path_a_merge_left_unmerged_is_read_from_the_working_tree(repo: Repo) -> None:
    repo.write("a.py", "x = 0\n")
    repo.commit()
    conflicting_merge(repo, "a.py")
    assert "a.py" in listing(repo.root).modified
    content = (repo.root / "a.py").read_bytes()
    assert b"<<<<<<<" in content
    assert {f.path: f.blob for f in tracked_files(repo.root)}["a.py"] == blob_id(content)


def test_inside_a_commit_the_commit_index_is_read_and_not_written(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write_files({"a.py": "x = 1\n", "b.py": "y = 1\n"})
    repo.commit()
    index = repo.root / ".git" / "index"
    before = index.read_bytes()
    repo.write("a.py", "x = 2\n")
    # b.py touched, not changed: a refresh would record its new time in the index.
    os.utime(repo.root / "b.py", ns=(1_900_000_000_000_000_000,) * 2)
    monkeypatch.setenv("GIT_INDEX_FILE", str(index))
    assert listing(repo.root).modified == {"a.py"}
    assert index.read_bytes() == before


def test_the_listing_fingerprint_follows_the_index_but_not_the_kg_folder(repo: Repo) -> None:
    from kgtool.tracked import Listing

    repo.write_files({".kg/raw/a.jsonl": "{}\n", "a.py": "x = 1\n", "b.py": "y = 1\n"})
    repo.commit()
    first = listing(repo.root).fingerprint(".kg")
    assert first
    repo.write(".kg/raw/a.jsonl", "{}\n{}\n")
    repo.git("add", "-A")
    assert listing(repo.root).fingerprint(".kg") == first  # .kg/ is layer 1's own output
    repo.write("b.py", "y = 2\n")
    assert listing(repo.root).fingerprint(".kg") == ""  # the working tree differs
    repo.git("add", "-A")
    staged = listing(repo.root).fingerprint(".kg")
    assert staged and staged != first
    # A path holding a tab and the folder's name is not taken for one of the folder's.
    entry = "100644 " + "0" * 40 + " 0\t"
    tricky = Listing(f"{entry}.kg/x\0{entry}a\t.kg/b\0{entry}c\0", set())
    other = Listing(f"{entry}.kg/x\0{entry}a\t.kg/B\0{entry}c\0", set())
    assert tricky.fingerprint(".kg") == "" == other.fingerprint(".kg")
    assert Listing(f"{entry}.kg/x\0{entry}c\0", set()).fingerprint(".kg") == Listing(
        f"{entry}.kg/y\0{entry}c\0", set()
    ).fingerprint(".kg")


def test_a_file_at_a_revision_is_never_read_past_a_limit(repo: Repo) -> None:
    from kgtool.repo import show_file

    repo.write("big.txt", "x" * 100_000)
    repo.write("small.txt", "tiny\n")
    commit = repo.commit("files")
    assert show_file(repo.root, commit, "small.txt", 1_000) == b"tiny\n"
    assert show_file(repo.root, commit, "big.txt", 1_000) is None
    assert show_file(repo.root, commit, "missing.txt", 1_000) is None
    assert show_file(repo.root, commit, "big.txt") == b"x" * 100_000


def _as_tracked_files_say(repo: Repo) -> tuple[dict[str, str], dict[str, tuple]]:
    files = tracked_files(repo.root)
    odd = {f.path: tuple(f) for f in files if f.deleted or f.mode in ("120000", "160000")}
    return {f.path: f.blob for f in files}, odd


@pytest.mark.parametrize("conflicted", [False, True])
def test_the_blob_ids_cut_from_the_listing_are_those_tracked_files_reads(
    repo: Repo, conflicted: bool
) -> None:
    """Layer 1 reads each file's blob id cut from the index listing in C, and a record only
    for a symlink, a submodule or a deleted file: the same as ``tracked_files`` reads, with
    odd names, modified and deleted files, symlinks, a submodule, and a merge's conflicts."""
    from kgtool.tracked import tracked_blobs

    repo.write_files(
        {
            "same.py": "x = 1\n",
            "edited.py": "x = 1\n",
            "gone.py": "x = 1\n",
            "tab\tin name.py": "x = 1\n",
            "ünï/cödé.py": "x = 1\n",
            "a 0\tb.py": "x = 1\n",  # looks like a record's stage to a careless reader
        }
    )
    os.symlink("same.py", repo.root / "link.py")
    os.symlink("gone.py", repo.root / "link-edited.py")
    repo.commit()
    inner = repo.root / "sub"
    inner.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=inner, check=True)
    (inner / "f.txt").write_text("f\n")
    env = {**os.environ, **GIT_ENV, "HOME": str(repo.root.parent)}
    subprocess.run(["git", "add", "-A"], cwd=inner, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "inner"], cwd=inner, env=env, check=True)
    repo.git("add", "sub")
    repo.commit()
    if conflicted:
        conflicting_merge(repo, "edited.py")
    else:
        repo.write("edited.py", "x = 2\n")
    (repo.root / "gone.py").unlink()
    os.unlink(repo.root / "link-edited.py")
    os.symlink("edited.py", repo.root / "link-edited.py")
    found = tracked_blobs(repo.root, listing(repo.root))
    blobs, odd = _as_tracked_files_say(repo)
    assert found.blobs == blobs
    assert {path: tuple(record) for path, record in found.odd.items()} == odd
    assert {"link.py", "link-edited.py", "sub", "gone.py"} <= odd.keys()
    assert blobs["gone.py"] == "" and blobs["tab\tin name.py"] == blob_id(b"x = 1\n")


def test_in_a_sha256_repository_an_edit_keeps_its_blob_id_once_staged(tmp_path: Path) -> None:
    """A repository of SHA-256 objects gives 64-digit blob ids: a file edited and not staged
    is named by the id git will give it, so layer 1 is the same before and after ``git add``
    (it was hashed with SHA-1, and every staged edit rewrote its shard)."""
    from kgtool.tracked import tracked_blobs

    repo = Repo(tmp_path / "repo")
    repo.root.mkdir()
    repo.git("init", "-q", "--object-format=sha256", "-b", "main")
    repo.write_files({"pay/jobs.py": "def run():\n    return 1\n", "pay/main.py": "x = 1\n"})
    repo.commit()
    assert repo.kg("update").code == 0
    repo.write("pay/jobs.py", "def run():\n    return 2\n")
    edited = tracked_blobs(repo.root, listing(repo.root)).blobs["pay/jobs.py"]
    assert edited == repo.git("hash-object", "pay/jobs.py").strip() and len(edited) == 64
    assert repo.kg("update").code == 0
    before = repo.kg_bytes()
    repo.git("add", "pay/jobs.py")
    assert repo.kg("update").code == 0
    assert repo.kg_bytes() == before
