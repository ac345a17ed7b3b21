"""A saved pull-request list (``gh pr list --json ...``) as the miner reads it: every field in
each of the shapes gh writes, and a bad list named by its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.errors import KgError
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
