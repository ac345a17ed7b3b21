"""Front matter: every kind of broken playbook is one clear error, and never stops the rest."""

from __future__ import annotations

import time

import pytest
from conftest import Repo
from playbook_helpers import add_playbook, playbook_text

from kgtool.playbook.parse import parse_playbook


@pytest.fixture
def small(repo: Repo) -> Repo:
    repo.write_files({"app.py": "def main():\n    pass\n"})
    repo.commit("initial")
    return repo


def problems(text: str | bytes) -> list[str]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return [str(p) for p in parse_playbook("playbooks/x.md", data).problems]


GOOD = playbook_text(["app.py"])


def test_a_good_playbook_has_no_problems_and_keeps_pointer_lines() -> None:
    playbook = parse_playbook("playbooks/x.md", GOOD.encode())
    assert playbook.problems == []
    assert [(s.value, s.line) for s in playbook.key_files] == [("app.py", 5)]
    assert playbook.validation == ["pytest"]
    assert playbook.status == "active"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# just markdown\n", "playbooks/x.md:1: error: P402 no front matter"),
        ("", "playbooks/x.md:1: error: P402 no front matter"),
        ("---\nintent: x\n", "playbooks/x.md:1: error: P402 front matter is not closed"),
        (
            "---\nintent: [a, b\nconcepts: []\n---\n",
            "playbooks/x.md:3: error: P402 invalid YAML: while parsing a flow sequence",
        ),
        ("---\n- a\n- b\n---\n", "playbooks/x.md:2: error: P402 front matter must be a mapping"),
        (
            GOOD.replace("  - app.py", "\t- app.py"),
            "playbooks/x.md:5: error: P402 tab in indentation",
        ),
        (
            GOOD.replace("intent: change the thing", "intent: 42"),
            "x.md:2: error: P403 field 'intent' must be a non-empty string, not a number",
        ),
        (
            GOOD.replace("validation: pytest", "validation: {a: b}"),
            "x.md:6: error: P403 field 'validation' must be a string or a list of strings, "
            "not a mapping",
        ),
        (
            GOOD.replace("  - app.py", "  - [app.py]"),
            "x.md:5: error: P403 each entry of 'key_files' must be a non-empty string, not a list",
        ),
        (
            GOOD.replace("key_files:\n  - app.py", "key_files: app.py"),
            "x.md:4: error: P403 field 'key_files' must be a list of strings, not a string",
        ),
        (
            GOOD.replace("key_files:\n  - app.py", "key_files: []"),
            "x.md:4: error: P403 field 'key_files' is empty",
        ),
        (
            GOOD.replace("rollback: nothing breaks", "rollback:"),
            "x.md:9: error: P403 field 'rollback' must be a string or a list of strings, not empty",
        ),
        (
            GOOD.replace("rollback: nothing breaks\n", ""),
            "x.md:1: error: P403 missing field 'rollback'",
        ),
        (
            GOOD.replace("intent:", "status: done\nintent:"),
            "x.md:2: error: P403 field 'status' must be one of active, proposed, retired, "
            "not 'done'",
        ),
        (
            GOOD.replace("intent:", "intnet: typo\nintent:"),
            "x.md:2: error: P403 unknown field 'intnet'",
        ),
        (
            GOOD.replace("concepts: []", "concepts: []\nconcepts: [a]"),
            "x.md:4: error: P402 field 'concepts' is given twice (first on line 3)",
        ),
        (
            GOOD.replace("validation: pytest", "validation: !!python/object/apply:os.system [ls]"),
            "x.md:6: error: P402 invalid YAML",
        ),
    ],
)
def test_front_matter_errors_name_the_line(text: str, expected: str) -> None:
    found = problems(text)
    assert any(expected in p for p in found), found


def test_non_utf8_names_the_line_of_the_bad_byte() -> None:
    data = GOOD.encode().replace(b"forgetting", b"forg\xe9tting")
    assert problems(data) == [
        "playbooks/x.md:8: error: P401 is not valid UTF-8 (byte 0xe9); write playbooks as UTF-8"
    ]


def test_anchors_and_aliases_work_within_limits() -> None:
    text = GOOD.replace("validation: pytest", "validation: &steps [pytest, ruff check]")
    text = text.replace("rollback: nothing breaks", "rollback: *steps")
    playbook = parse_playbook("playbooks/x.md", text.encode())
    assert playbook.problems == []
    assert playbook.rollback == ["pytest", "ruff check"]


def test_an_alias_bomb_is_refused_quickly() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for n in range(1, 9):
        levels.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]")
    text = "---\n" + "\n".join(f"evidence_{line}" for line in levels) + "\n---\n"
    text = text.replace("evidence_a0:", "evidence:\n  a0:").replace("evidence_a", "  a")
    started = time.perf_counter()
    found = problems(text)
    assert time.perf_counter() - started < 1.0
    assert any("expands to" in p and "through aliases" in p for p in found), found


def test_a_recursive_alias_is_refused() -> None:
    text = GOOD.replace("rollback: nothing breaks", "rollback: &r [*r]")
    assert any("alias refers to itself" in p for p in problems(text))


def test_a_huge_body_is_not_a_problem_but_a_huge_file_is_refused(small: Repo) -> None:
    body = "lorem ipsum dolor sit amet\n" * 8_000  # ~216 KB, under the default limit
    small.write("playbooks/long.md", GOOD + body, dedent=False)
    small.write("playbooks/huge.md", GOOD + body * 3, dedent=False)
    started = time.perf_counter()
    check = small.kg("playbooks", "check")
    assert time.perf_counter() - started < 2.0
    assert check.code == 1
    assert "playbooks/huge.md: error: P401 is 6" in check.out
    assert "over the limit of 262144 (setting 'playbooks.max_bytes'); not read" in check.out
    assert "playbooks/long.md" not in check.out


@pytest.mark.slow
def test_a_front_matter_with_thousands_of_pointers_is_read(small: Repo) -> None:
    small.write("playbooks/many.md", playbook_text(["app.py"] * 3000), dedent=False)
    check = small.kg("playbooks", "check")
    assert check.code == 0, check.out[:500]


def test_one_broken_playbook_never_stops_the_others(small: Repo) -> None:
    small.write("playbooks/a-bad-yaml.md", "---\nintent: [\n---\n", dedent=False)
    small.write("playbooks/b-binary.md", b"\x00\xff\xfe garbage")
    small.write("playbooks/c-no-front-matter.md", "# hello\n", dedent=False)
    add_playbook(small, "d-missing-pointer", ["nope.py"])
    add_playbook(small, "e-good", ["app.py::main"])
    check = small.kg("playbooks", "check")
    assert check.code == 1
    for name in ("a-bad-yaml", "b-binary", "c-no-front-matter", "d-missing-pointer"):
        assert f"playbooks/{name}.md:" in check.out
    assert "playbooks/e-good.md" not in check.out
    assert "5 playbooks: 1 executable, 4 refused" in check.out
    listing = small.kg("playbooks", "list")
    assert listing.code == 0
    assert "e-good" in listing.out and "executable" in listing.out


def test_duplicate_slugs_between_the_folder_and_proposals(small: Repo) -> None:
    add_playbook(small, "deploy", ["app.py"])
    small.write("playbooks/proposed/deploy.md", playbook_text(["app.py"]), dedent=False)
    check = small.kg("playbooks", "check")
    assert check.code == 1
    assert (
        "playbooks/proposed/deploy.md:1: error: P404 duplicate slug 'deploy': "
        "playbooks/deploy.md has it"
    ) in check.out


def test_readme_in_the_playbooks_folder_is_not_a_playbook(small: Repo) -> None:
    small.write("playbooks/README.md", "# Our playbooks\n")
    add_playbook(small, "p", ["app.py"])
    check = small.kg("playbooks", "check")
    assert check.code == 0
    assert "1 playbook:" in check.out


def test_a_tab_inside_a_value_is_fine_only_indentation_is_refused() -> None:
    text = GOOD.replace(
        "rollback: nothing breaks", "rollback: |\n  run:\n  \tmake clean\n  then\tretry"
    )
    playbook = parse_playbook("playbooks/x.md", text.encode())
    assert playbook.problems == []
    assert playbook.rollback == ["run:\n\tmake clean\nthen\tretry\n"]
