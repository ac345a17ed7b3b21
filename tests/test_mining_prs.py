"""A saved pull-request list (``gh pr list --json ...``) as the miner reads it: every field in
each of the shapes gh writes, and a bad list named by its file and line; and a change told
as the quick follow-up of an earlier one, or as a change of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.errors import KgError
from kgtool.mining.history import ChangeSet, FileChange
from kgtool.mining.prs import PullRequest, load_prs


def test_each_field_is_read_in_each_shape_gh_writes(tmp_path: Path) -> None:
    saved = tmp_path / "prs.json"
    saved.write_text(
        json.dumps(
            [
                {
                    "number": 12,
                    "title": "Add the beta provider",
                    "labels": [{"name": "providers"}, {"name": ""}, "docs"],
                    "author": {"login": "grace"},
                    "mergeCommit": {"oid": "abc123"},
                },
                {"number": 13, "title": None, "labels": None, "author": "ada", "mergeCommit": "d4"},
                {"number": 14, "mergeCommit": None},
            ]
        )
    )
    assert load_prs(saved) == [
        PullRequest(12, "Add the beta provider", ("docs", "providers"), "grace", "abc123"),
        PullRequest(13, "", (), "ada", "d4"),
        PullRequest(14),
    ]


def test_a_bad_list_is_one_error_naming_its_file_and_line(tmp_path: Path) -> None:
    missing = tmp_path / "none.json"
    with pytest.raises(KgError) as gone:
        load_prs(missing)
    assert str(missing) in str(gone.value) and "does not exist" in str(gone.value)
    saved = tmp_path / "prs.json"
    saved.write_text('{"number": 1}')
    with pytest.raises(KgError) as not_a_list:
        load_prs(saved)
    assert str(saved) in str(not_a_list.value) and "JSON array" in str(not_a_list.value)
    saved.write_text('\n[\n  {"number": 1},\n  {"number": "2"}\n]\n')  # a newline first
    with pytest.raises(KgError) as bad_entry:
        load_prs(saved)
    assert f"{saved}:4:" in str(bad_entry.value), str(bad_entry.value)
    assert "pull request 2 of 2 has no whole-number 'number'" in str(bad_entry.value)


def _change(
    number: int, files: dict[str, str], email: str = "a@x", hours: float = 0, title: str = "Add"
) -> ChangeSet:
    changed = tuple(FileChange(status, path) for path, status in files.items())
    return ChangeSet(f"{number:040x}", "direct", None, "a", email, int(hours * 3600), title,
                     title, changed)  # fmt: skip


@pytest.mark.parametrize(
    ("later", "completes"),
    [
        (_change(2, {"a.py": "M"}, hours=6), True),  # the same author, within six hours
        (_change(2, {"a.py": "M"}, hours=6.01), False),  # a little later: its own change
        (_change(2, {"a.py": "M"}, email="b@x", hours=1), False),  # someone else's
        (_change(2, {"a.py": "M", "b.py": "M", "c.py": "M"}, hours=1), True),  # its own files
        (_change(2, {"a.py": "M", "z.py": "M"}, hours=1), False),  # and one file more
        (_change(2, {"a.py": "M", "b.py": "M", "c.py": "M", "d.py": "M"}, hours=1), False),
        # A fix of what it added, days later and by anyone, is its follow-up...
        (_change(2, {"new.py": "M", "z.py": "M"}, email="b@x", hours=48, title="Fix x"), True),
        # ...but not of a changelog it added, nor without a word of fixing.
        (_change(2, {"CHANGES.md": "M", "z.py": "M"}, email="b@x", hours=48, title="Fix"), False),
        (_change(2, {"new.py": "M", "z.py": "M"}, email="b@x", hours=48), False),
        # Ten files at most: a fix of ten is a follow-up, of eleven a change of its own.
        (_change(2, {f"f{n}.py": "M" for n in range(9)} | {"new.py": "M"}, title="Fix"), True),
        (_change(2, {f"f{n}.py": "M" for n in range(10)} | {"new.py": "M"}, title="Fix"), False),
    ],
)
def test_a_quick_follow_up_is_told_from_a_change_of_its_own(
    later: ChangeSet, completes: bool
) -> None:
    from kgtool.mining.filters import _completes

    earlier = _change(
        1, {"a.py": "M", "b.py": "M", "c.py": "M", "d.py": "M", "new.py": "A", "CHANGES.md": "A"}
    )
    files = {c.id: {f.path for f in c.files} for c in (earlier, later)}
    assert (_completes(later, [earlier], files) is earlier) is completes


def test_a_utf16_list_is_read_and_its_bad_entry_named_by_line(tmp_path: Path) -> None:
    """A list a Windows shell redirected is UTF-16: read as such, a bad entry named by its
    line like any other, and a lone surrogate in a title (JSON allows one) read too."""
    saved = tmp_path / "prs.json"
    title = "Añadir \ud800"
    saved.write_bytes(
        f'[\n  {{"number": 1, "title": "{title}"}}\n]\n'.encode("utf-16", "surrogatepass")
    )
    assert load_prs(saved) == [PullRequest(1, title)]
    saved.write_bytes('[\n  {"number": 1},\n  {"number": "2"}\n]\n'.encode("utf-16"))
    with pytest.raises(KgError) as bad_entry:
        load_prs(saved)
    assert f"{saved}:3:" in str(bad_entry.value), str(bad_entry.value)


def test_a_folder_given_as_the_list_is_refused_by_its_name(tmp_path: Path) -> None:
    with pytest.raises(KgError) as refused:
        load_prs(tmp_path)
    assert str(refused.value) == f"{tmp_path}: is not a regular file"


def test_a_rebase_merge_is_told_by_its_merge_commit_in_the_list() -> None:
    """A rebase merge leaves no number in the history: the list's merge commit names it,
    and it becomes that pull request, squashed, with the list's title, labels and author."""
    from kgtool.mining.history import DIRECT, SQUASH
    from kgtool.mining.prs import enrich

    rebased = _change(7, {"a.py": "M"}, title="Add a")
    numbered = _change(8, {"b.py": "M"}, title="Add b")
    numbered.pr = 41
    prs = [
        PullRequest(40, "Add the alpha", ("feature",), "grace", rebased.id),
        PullRequest(41, "", ("docs",), "ada"),
    ]
    assert enrich([rebased, numbered, _change(9, {"c.py": "M"})], prs) == 2
    assert (rebased.pr, rebased.kind, rebased.title) == (40, SQUASH, "Add the alpha")
    assert (rebased.labels, rebased.pr_author) == (("feature",), "grace")
    # A pull request with no title in the list keeps the history's title.
    assert (numbered.pr, numbered.kind, numbered.title) == (41, DIRECT, "Add b")
    assert (numbered.labels, numbered.pr_author) == (("docs",), "ada")


def test_a_quick_fix_over_exactly_the_files_of_its_change_completes_it() -> None:
    from kgtool.mining.filters import _completes

    earlier = _change(1, {"a.py": "M", "b.py": "M"})
    later = _change(2, {"a.py": "M", "b.py": "M"}, hours=1)
    files = {c.id: {f.path for f in c.files} for c in (earlier, later)}
    assert _completes(later, [earlier], files) is earlier
