"""kgtool/bounded.py is the one reader of structured files: no other module parses JSON, YAML
or TOML itself, except where the text is not a repository's (listed here, with why), so the
next reader added cannot forget the bounds."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from conftest import PROJECT_ROOT

from kgtool import bounded

PARSER_CALL = re.compile(
    r"\bjson\.loads?\(|\byaml\.(?:safe_load|load|full_load|unsafe_load|compose|parse)\w*\("
    r"|\byaml\.(?:C?Safe|C?Full|C?Unsafe|C?Base)?Loader\(|\btoml(?:lib|i)\.loads?\("
    r"|\bjson\.JSONDecoder\("
)

# (module, parser call) -> how many there are, and why their text is not a repository's or
# is bounded otherwise.
ALLOWED = {
    # The node records of layer 1 joined into one document, for json.loads's speed on a cold
    # read: a record nested past the recursion limit is caught as damage (RecursionError).
    ("kgtool/query/layer_rows.py", "json.loads("): 1,
    # The local cache's records, in the git directory: never read from a commit (layer 2's
    # and the map's records of what they were made from, the map's doc lines).
    ("kgtool/store.py", "json.loads("): 1,
    # The runner's event file ($GITHUB_EVENT_PATH), and GitHub's API replies.
    ("kgtool/integrations/pr_check.py", "json.loads("): 1,
    ("kgtool/integrations/github.py", "json.loads("): 2,
    # The entries of a pull-request list bounded.load_json has read already, found again to
    # name the line of a bad one.
    ("kgtool/mining/prs.py", "json.JSONDecoder("): 1,
    # What a TypeScript config states, as tsconfig.py wrote it into a file's facts once
    # bounded.load_json had read the config: a flat table of strings and a list of strings.
    ("kgtool/raw/languages/tsconfig.py", "json.loads("): 2,
}


def parser_calls() -> dict[tuple[str, str], int]:
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted((PROJECT_ROOT / "kgtool").rglob("*.py")):
        module = path.relative_to(PROJECT_ROOT).as_posix()
        if module != "kgtool/bounded.py":
            text = path.read_text(encoding="utf-8")
            found.update((module, match.group()) for match in PARSER_CALL.finditer(text))
    return dict(found)


def test_every_structured_file_is_read_through_the_bounded_reader() -> None:
    assert parser_calls() == ALLOWED


def test_the_check_finds_a_new_reader() -> None:
    text = (
        "data = yaml.safe_load(text)\nx = json.loads(b)\nt = tomllib.loads(s)\n"
        "node = yaml.compose(text, Loader=yaml.CSafeLoader)\nloader = yaml.SafeLoader(text)\n"
    )
    found = [match.group() for match in PARSER_CALL.finditer(text)]
    assert found == [
        "yaml.safe_load(",
        "json.loads(",
        "tomllib.loads(",
        "yaml.compose(",
        "yaml.SafeLoader(",
    ]


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'\xef\xbb\xbf{"name": "x"}', {"name": "x"}),  # a byte order mark, as json.loads
        ('{"a": "[[[[{{{{\\"]]"}', {"a": '[[[[{{{{"]]'}),  # brackets in strings are text
        ('{"n": ' + "9" * 100 + "}", {"n": int("9" * 100)}),
        ("[" * 100 + "]" * 100, None),
    ],
)
def test_what_real_files_hold_is_read(data: bytes | str, value: object) -> None:
    if value is None:  # a hundred levels, the most there may be
        assert bounded.load_json(data, "x.json")
        with pytest.raises(bounded.Unreadable, match="nested deeper than 100"):
            bounded.load_json("[" + data + "]", "x.json")
        return
    assert bounded.load_json(data, "x.json") == value


def test_a_shared_list_of_steps_is_within_the_alias_budget() -> None:
    text = "steps: &s [a, b, c]\nagain: *s\nonce_more: *s\n"
    assert bounded.load_yaml(text, "x.yaml") == {
        "steps": ["a", "b", "c"],
        "again": ["a", "b", "c"],
        "once_more": ["a", "b", "c"],
    }


def test_an_alias_cannot_carry_a_document_past_the_depth_limit() -> None:
    shallow = "a: &a " + "[" * 50 + "x" + "]" * 50 + "\n"
    used_deep = "b: " + "[" * 60 + "*a" + "]" * 60 + "\n"
    with pytest.raises(bounded.Unreadable, match="nested deeper than 100") as refused:
        bounded.load_yaml(shallow + used_deep, "x.yaml")
    assert refused.value.line == 2
    used_shallow = "b: " + "[" * 40 + "*a" + "]" * 40 + "\n"
    assert bounded.load_yaml(shallow + used_shallow, "x.yaml")["b"]


def test_an_alias_to_itself_is_refused_at_its_line() -> None:
    with pytest.raises(bounded.Unreadable, match="refers to itself") as refused:
        bounded.load_yaml("ok: 1\nloop: &r [1, *r]\n", "x.yaml")
    assert str(refused.value) == "x.yaml:2: an alias refers to itself (recursive anchor)"


def test_settings_past_a_megabyte_are_one_line_not_a_stall(make_repo) -> None:
    """The settings are read on every run, by the pure-Python reader: a 15 MB file took 40 s
    and 1.3 GB there. Real ones are a few lines; past a megabyte, one error."""
    repo = make_repo({"a.py": "x = 1\n"})
    repo.write(".kgtool.yaml", "jobs: 1\n" + "# padding\n" * 120_000)
    result = repo.kg("check")
    assert result.code == 2
    assert result.err.startswith(".kgtool.yaml: error: K001 is over the limit of 1048576 bytes")


def test_a_skill_is_read_by_its_head(tmp_path) -> None:
    big = tmp_path / "SKILL.md"
    big.write_bytes(b"---\nname: x\n---\n" + b"body\n" * 100_000)
    assert bounded.read_file(big, "SKILL.md", 100, head=True) == big.read_bytes()[:100]
    with pytest.raises(bounded.Unreadable, match="over the limit of 100 bytes"):
        bounded.read_file(big, "SKILL.md", 100)


def test_without_libyaml_a_deep_document_is_still_one_error(monkeypatch) -> None:
    """``fast`` asks for libyaml, which some builds of PyYAML lack: then the bounded composer
    reads it, not PyYAML's recursive one."""
    import yaml

    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    deep = "communities: " + "[" * 2000 + "]" * 2000 + "\n"
    with pytest.raises(bounded.Unreadable, match="nested deeper than 100 levels"):
        bounded.compose_yaml(deep, ".kg/ontology.yaml", fast=True)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ('{"a": "' + "[" * 500 + '"}', None),  # brackets in a string: shallow
        ('{"a": "' + "9" * 500 + '"}', None),  # digits in a string: no number
        ("[" * 101 + "]" * 101, "nested deeper than 100 levels"),
        ("[" * 100 + "]" * 100, None),
        ("[" + "9" * 101 + "]", "a number of more than 100 digits"),
        ("[" * 5000 + "]" * 5000, "nested deeper than 100 levels"),
        ("[" + "9" * 5000 + "]", "a number of more than 100 digits"),
    ],
)
def test_json_is_parsed_first_then_measured(text: str, refused: str | None) -> None:
    if refused is None:
        bounded.load_json(text, "x.json")
    else:
        with pytest.raises(bounded.Unreadable, match=refused):
            bounded.load_json(text, "x.json")


def test_kgtool_s_own_document_may_be_larger_than_a_manifest() -> None:
    document = '{"files": {' + ",".join(f'"f{i}": "c1"' for i in range(1_500_000)) + "}}"
    assert len(document) > bounded.MAX_BYTES
    with pytest.raises(bounded.Unreadable, match="over the limit"):
        bounded.load_json(document, "package.json")
    assert len(bounded.load_json(document, "communities.json", bounded.DOCUMENT_BYTES)["files"])


def test_a_document_kgtool_wrote_is_not_measured_again() -> None:
    """``written_here``: bytes a kept digest vouches for skip the bounds a commit's bytes get
    (a number too long here): two passes over communities.json on every run that changed
    nothing. Any other document is measured."""
    from kgtool import bounded

    text = '{"n": ' + "7" * (bounded.MAX_DIGITS + 1) + "}"
    with pytest.raises(bounded.Unreadable):
        bounded.load_json(text, "x.json")
    assert bounded.load_json(text, "x.json", written_here=True) == {"n": int(text[6:-1])}
