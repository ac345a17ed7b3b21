"""Structured files a pull request commits (JSON, YAML, TOML, front matter), built to crash or
stall their reader: each is one clear line naming the file, through the real command line,
never a traceback, and within a bounded time and memory."""

from __future__ import annotations

import os
import re
import resource
from pathlib import Path

import pytest
from conftest import SETTINGS_ERROR_LINE, Repo, Result, assert_one_line_error
from test_hostile_cli import SMALL, assert_recovers, no_traceback

DEEP = 1_000


def nested_json(depth: int) -> str:
    return '{"name": "x", "workspaces": ' + "[" * depth + "]" * depth + "}"


def nested_flow(depth: int) -> str:
    return "[" * depth + "]" * depth


def playbook(extra: str = "", key_files: str = "[pkg/a.py]") -> str:
    return (
        f"---\nintent: call f\nconcepts: []\nkey_files: {key_files}\n"
        f"validation: [pytest]\npitfalls: [none]\nrollback: revert\n{extra}---\n"
    )


def limited(max_bytes: int) -> None:
    """Before a child kgtool starts: its address space capped, so a bomb fails, not the box."""
    resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))


def bounded_run(repo: Repo, *argv: str) -> Result:
    return repo.kg_process(*argv, timeout=120, preexec_fn=lambda: limited(1536 * 1024 * 1024))


# Manifests at the repository's top are read for workspace packages, package.json files for
# package names: one that cannot be read is not a workspace, as invalid JSON already is not.
MANIFESTS = {
    "package.json": nested_json(DEEP),
    "package.json-long-number": '{"name": "x", "version": ' + "9" * 5000 + "}",
    "pnpm-workspace.yaml": "packages: " + nested_flow(600) + "\n",
    "Cargo.toml": "[workspace]\nmembers = " + nested_flow(500) + "\n",
    "web/package.json": nested_json(DEEP),
}


@pytest.mark.parametrize("case", sorted(MANIFESTS))
def test_deep_manifests_are_read_as_unreadable_ones(make_repo, case: str) -> None:
    name = case.split("-long")[0]
    repo = make_repo({**SMALL, name: MANIFESTS[case]})
    for argv in (["update"], ["check"], ["update", "--check"], ["update"], ["check"]):
        result = repo.kg(*argv)
        assert result.code == 0, (argv, result.err)
        assert "Traceback" not in result.err
        said = [line for line in result.out.splitlines() if "C202" in line]
        if "/" in name or argv == ["update", "--check"]:
            # A nested package.json names a package, declares no workspace; --check says
            # only whether .kg/ is up to date.
            assert said == [], result.out
            continue
        # A workspace manifest that declares nothing readable: one warning, at its line,
        # on every run (the second update and check remember it, they do not read it again).
        assert len(said) == 1, (argv, result.out)
        assert re.match(rf"{re.escape(name)}:[12]: warning: C202 ", said[0]), said
        assert said[0].endswith("the packages it declares are not used as boundaries of the map")
    assert_recovers(repo)


SETTINGS = {
    "config-deep": (".kgtool.yaml", "communities: " + nested_flow(600) + "\n", 1, "nested"),
    "config-deep-block": (
        ".kgtool.yaml",
        "jobs: 1\n" + "".join(f"{'  ' * n}k{n}:\n" for n in range(400)) + "  " * 400 + "x: 1\n",
        101,
        "nested",
    ),
    "config-long-number": (".kgtool.yaml", "jobs: 1\nmax_candidates: " + "9" * 5000, 2, "digits"),
    "pyproject-deep": (
        "pyproject.toml",
        "[tool.kgtool]\njobs = 1\nexclude = " + nested_flow(500) + "\n",
        3,
        "nested",
    ),
    "pyproject-deep-tables": (
        "pyproject.toml",
        "[tool.kgtool]\njobs = 1\nx = " + "{a = " * 500 + "1" + "}" * 500 + "\n",
        3,
        "nested",
    ),
    "pyproject-long-number": (
        "pyproject.toml",
        "[tool.kgtool]\njobs = " + "9" * 5000 + "\n",
        2,
        "digits",
    ),
}


@pytest.mark.parametrize("case", sorted(SETTINGS))
def test_deep_or_long_settings_are_one_line_at_their_line(make_repo, case: str) -> None:
    name, text, line, says = SETTINGS[case]
    repo = make_repo({**SMALL, name: text})
    for argv in (["update"], ["check"], ["ci"], ["context", "call f"]):
        result = repo.kg(*argv)
        assert result.code == 2, (argv, result.err)
        assert SETTINGS_ERROR_LINE.match(result.err), result.err
        assert result.err.startswith(f"{name}:{line}: error: K001 "), result.err
        assert says in result.err and len(result.err.splitlines()) == 1, result.err
    (repo.root / name).unlink()
    assert_recovers(repo)


def test_settings_that_are_a_folder_are_one_line(make_repo) -> None:
    repo = make_repo(SMALL)
    (repo.root / ".kgtool.yaml").mkdir()
    (repo.root / ".kgtool.yaml" / "jobs").write_text("1\n")
    result = repo.kg("update")
    assert_one_line_error(result, says=".kgtool.yaml: error: K001 is not a regular file")
    (repo.root / ".kgtool.yaml" / "jobs").unlink()
    (repo.root / ".kgtool.yaml").rmdir()
    assert_recovers(repo)


def test_settings_linked_outside_the_repository_are_not_read(make_repo, tmp_path: Path) -> None:
    repo = make_repo(SMALL)
    secret = tmp_path / "runner-secret.yaml"
    secret.write_text("the_runners_token: 12345\n")
    (repo.root / ".kgtool.yaml").symlink_to(secret)
    repo.commit("settings that are a symlink")
    for argv in (["update"], ["check"], ["ci"]):
        result = repo.kg(*argv)
        assert_one_line_error(result, says="leads outside the repository")
        assert "the_runners_token" not in result.out + result.err
        assert str(tmp_path) not in result.out + result.err
    (repo.root / ".kgtool.yaml").unlink()
    (repo.root / ".kgtool.yaml").symlink_to("settings/kgtool.yaml")
    repo.write("settings/kgtool.yaml", "jobs: 1\n")
    assert repo.kg("update").code == 0  # a link that stays inside is a file of the repository


PLAYBOOKS = {
    "deep": (playbook(f"evidence: {nested_flow(500)}\n"), 8, "is nested deeper than 100 levels"),
    "deep-block": (
        playbook("evidence:\n" + "".join(f"{'  ' * (n + 1)}- \n" for n in range(499))),
        108,
        "is nested deeper than 100 levels",
    ),
    "long-number": (
        playbook("evidence: " + "9" * 5000 + "\n"),
        8,
        "has a number of more than 100 digits",
    ),
    "long-number-in-list": (
        playbook(key_files="[" + "9" * 5000 + "]"),
        4,
        "has a number of more than 100 digits",
    ),
}


@pytest.mark.parametrize("case", sorted(PLAYBOOKS))
def test_deep_or_long_playbooks_are_one_finding_at_their_line(make_repo, case: str) -> None:
    text, line, says = PLAYBOOKS[case]
    repo = make_repo({**SMALL, "playbooks/p.md": text})
    assert repo.kg("update").code == 0
    expected = f"playbooks/p.md:{line}: error: P402 {says}"
    for argv in (["playbooks", "check"], ["check"]):
        result = repo.kg(*argv)
        assert result.code == 1, (argv, result.out, result.err)
        assert "Traceback" not in result.err
        found = [row for row in result.out.splitlines() if "playbooks/p.md" in row]
        assert found == [expected], result.out
    no_traceback(repo.kg("ci"), (1,))
    no_traceback(repo.kg("context", "call f"), (0,))
    no_traceback(repo.kg("playbooks", "list", "--json"), (0, 1))


def test_an_empty_key_file_says_it_is_empty(make_repo) -> None:
    repo = make_repo({**SMALL, "playbooks/p.md": playbook(key_files='["", pkg/a.py]')})
    assert repo.kg("update").code == 0
    result = repo.kg("playbooks", "check")
    assert result.code == 1
    assert (
        "playbooks/p.md:4: error: P403 each entry of 'key_files' must be a non-empty string, "
        "not an empty string"
    ) in result.out, result.out


COMMUNITIES = {
    "deep": lambda old: old.replace(
        b'"communities": {', b'"x": ' + nested_flow(DEEP).encode() + b', "communities": {', 1
    ),
    "long-number": lambda old: old.replace(
        b'"next_id": ', b'"next_id": ' + b"9" * 5000 + b', "was_next_id": ', 1
    ),
}


@pytest.mark.parametrize("case", sorted(COMMUNITIES))
def test_deep_or_long_communities_json_is_one_line(make_repo, case: str) -> None:
    repo = make_repo(SMALL)
    assert repo.kg("update").code == 0
    path = repo.root / ".kg" / "communities.json"
    path.write_bytes(COMMUNITIES[case](path.read_bytes()))
    repo.commit("a hand-made layer 2")
    says = "is nested deeper than 100 levels" if case == "deep" else "has a number of more than 100"
    line = 15 if case == "deep" else 49  # where the nesting passes 100, where the number is
    assert_one_line_error(repo.kg("update"), says=f".kg/communities.json:{line}: {says}")
    for argv in (["impact", "pkg/a.py"], ["explain", "pkg/a.py"]):
        assert_one_line_error(repo.kg(*argv), says=".kg/communities.json is damaged")
    for argv in (["check"], ["ci"], ["update", "--check"]):
        no_traceback(repo.kg(*argv), (0, 1, 2))
    context = repo.kg("context", "call f")
    assert context.code == 0
    assert ".kg/communities.json is damaged" in context.err and "Traceback" not in context.err
    path.unlink()
    assert_recovers(repo)


SHARD_RECORDS = {
    "deep": b',"deep":' + nested_flow(990).encode(),
    "long-number": b',"size":' + b"9" * 5000,
    # An escape somewhere makes the reader decode file records one by one: a broken one
    # there is damage too.
    "escaped": b',"note":"a \\"quote\\"","size":',
}


def damage_file_record(layer1: Path, file_id: str, added: bytes) -> int:
    """Adds ``added`` to the file record of ``file_id`` in a layer-1 file; its line number."""
    lines = layer1.read_bytes().split(b"\n")
    marker = f'"id":"{file_id}","kind":"file"'.encode()
    at = next(i for i, line in enumerate(lines) if marker in line)
    lines[at] = lines[at][:-1] + added + b"}"
    layer1.write_bytes(b"\n".join(lines))
    return at + 1


@pytest.mark.parametrize("case", sorted(SHARD_RECORDS))
def test_a_deep_or_long_layer_1_record_is_damage_not_a_crash(make_repo, case: str) -> None:
    repo = make_repo(SMALL)
    assert repo.kg("update").code == 0
    damage_file_record(repo.root / ".kg" / "raw" / "pkg.jsonl", "pkg/a.py", SHARD_RECORDS[case])
    repo.commit("a hand-made layer 1")
    clone = make_repo()
    clone.git("pull", "-q", str(repo.root), "main")  # no cache: layer 1 read as committed
    for argv in (["impact", "pkg/a.py"], ["explain", "pkg/a.py"]):
        assert_one_line_error(clone.kg(*argv), says=".kg/raw/pkg.jsonl:3: is damaged")
    context = clone.kg("context", "call f")
    assert context.code == 0
    assert ".kg/raw/pkg.jsonl:3: is damaged" in context.err and "Traceback" not in context.err
    for argv in (["check"], ["update", "--check"], ["ci"], ["diff", "HEAD~1"]):
        no_traceback(clone.kg(*argv), (0, 1, 2))
    assert_recovers(clone)


# 9 lists of 9 aliases each of the one before: 9**9 values, written in under 500 bytes.
ALIAS_BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9 if prev else ['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


@pytest.mark.parametrize("where", ["name", "description"])
def test_an_alias_bomb_in_a_skill_is_refused_at_once(make_repo, where: str) -> None:
    bomb = ALIAS_BOMB.replace("i: &i", f"{where}: &i")
    assert len(bomb.encode()) < 500
    other = "name" if where == "description" else "description"
    skill = f"---\n{bomb}{other}: call f retry helper\n---\nHow to call f.\n"
    repo = make_repo({**SMALL, ".claude/skills/bomb/SKILL.md": skill})
    assert repo.kg("update").code == 0
    result = bounded_run(repo, "context", "call f retry helper")
    assert result.code == 0, result.err
    assert result.err.strip().splitlines()[0] == (
        "kgtool: warning: .claude/skills/bomb/SKILL.md:2: not read: expands to 490329066 "
        "values through aliases (aliases may add at most 10000)"
    ), result.err
    assert "Traceback" not in result.err
    assert "Agent skill" not in result.out


def test_a_deep_skill_is_refused_with_its_line(make_repo) -> None:
    skill = f"---\nname: call f\ndescription: {nested_flow(DEEP)}\n---\n"
    repo = make_repo({**SMALL, ".agents/skills/deep/SKILL.md": skill})
    assert repo.kg("update").code == 0
    result = repo.kg("context", "call f")
    assert result.code == 0, result.err
    assert result.err.strip().splitlines()[0] == (
        "kgtool: warning: .agents/skills/deep/SKILL.md:3: not read: is nested deeper than 100 "
        "levels"
    ), result.err
    assert "Traceback" not in result.err


def test_a_pull_request_list_that_never_ends_is_refused(make_repo, tmp_path: Path) -> None:
    repo = make_repo(SMALL)
    zero = bounded_run(repo, "mine-playbooks", "--prs", "/dev/zero", "--dry-run")
    assert_one_line_error(zero, says="/dev/zero: is not a regular file")
    folder = bounded_run(repo, "mine-playbooks", "--prs", str(tmp_path), "--dry-run")
    assert_one_line_error(folder, says="is not a regular file")
    huge = tmp_path / "prs.json"
    with huge.open("wb") as handle:
        handle.truncate(16 * 1024 * 1024 + 1)  # sparse: no disk written
    big = bounded_run(repo, "mine-playbooks", "--prs", str(huge), "--dry-run")
    assert_one_line_error(big, says="is over the limit of 16777216 bytes")
    deep = tmp_path / "deep.json"
    deep.write_text("[\n" + nested_json(DEEP) + "]")
    nested = repo.kg("mine-playbooks", "--prs", str(deep), "--dry-run")
    assert_one_line_error(nested, says=f"{deep}:2: is nested deeper than 100 levels")


def test_a_pull_request_list_from_a_pipe_is_refused(make_repo, tmp_path: Path) -> None:
    repo = make_repo(SMALL)
    fifo = tmp_path / "prs.fifo"
    os.mkfifo(fifo)  # nobody ever writes: reading it would wait for ever
    result = bounded_run(repo, "mine-playbooks", "--prs", str(fifo), "--dry-run")
    assert_one_line_error(result, says="is not a regular file")


def test_an_empty_list_of_steps_says_so(make_repo) -> None:
    """ "must be a string or a list of strings, not a list" contradicted itself for []."""
    repo = make_repo({"app.py": "def run():\n    return 1\n"})
    repo.write(
        "playbooks/p.md",
        "---\nintent: run it\nconcepts: []\nkey_files: [app.py]\nvalidation: pytest\n"
        "pitfalls: []\nrollback: nothing\n---\n\nRun.\n",
    )
    repo.commit("a playbook with no pitfalls")
    result = repo.kg("playbooks", "check")
    assert result.code == 1
    assert (
        "playbooks/p.md:6: error: P403 field 'pitfalls' must be a string or a list of strings, "
        "not an empty list" in result.out
    ), result.out


def test_a_byte_that_is_not_utf8_is_named_at_its_line(make_repo, tmp_path) -> None:
    """The pull-request list and the settings were decoded before the reader saw them: the
    error said where in bytes ("position 12"), not on which line."""
    repo = make_repo(SMALL)
    prs = tmp_path / "prs.json"
    prs.write_bytes(b'[\n  {"number": 1,\n   "title": "caf\xff"}\n]\n')
    result = repo.kg("mine-playbooks", "--prs", str(prs), "--dry-run")
    assert_one_line_error(result, says=f"{prs}:3: ")
    assert "is not valid UTF-8 (byte 0xff)" in result.err
    repo.write(".kgtool.yaml", b"jobs: 1\nexclude: [caf\xff]\n")
    settings = repo.kg("check")
    assert settings.code == 2
    assert settings.err.startswith(".kgtool.yaml:2: error: K001 is not valid UTF-8"), settings.err


def test_a_damaged_layer_1_of_the_old_single_file_is_named_as_that_file(make_repo) -> None:
    """Layer 1 as the single-file format left it (.kg/raw.jsonl, read until the next update
    migrates it), with an escape and a broken file record: the error names that file, not
    the shard folder it has no part in."""
    from test_raw_shards import legacy_repo

    repo = legacy_repo(make_repo)
    damage_file_record(repo.root / ".kg" / "raw.jsonl", "cli/main.py", SHARD_RECORDS["escaped"])
    repo.commit("a hand-made old layer 1")
    assert_one_line_error(
        repo.kg("impact", "cli/main.py"),
        says=".kg/raw.jsonl is damaged or has a format this kgtool does not know",
    )


def test_a_damaged_caller_is_named_at_its_line_when_impact_reaches_it(make_repo) -> None:
    """impact of pkg/a.py::f reads its callers' edges: the file record of the caller in
    pkg/b.py, damaged, is named at its line, as the target's own would be."""
    repo = make_repo(SMALL)
    assert repo.kg("update").code == 0
    shard = repo.root / ".kg" / "raw" / "pkg.jsonl"
    line = damage_file_record(shard, "pkg/b.py", SHARD_RECORDS["deep"])
    repo.commit("a hand-made layer 1")
    assert_one_line_error(
        repo.kg("impact", "pkg/a.py::f"), says=f".kg/raw/pkg.jsonl:{line}: is damaged"
    )


def test_a_shard_cut_short_is_one_line_naming_it(make_repo) -> None:
    """A shard that does not end its last record (a write cut short, a bad merge) cannot be
    joined to the others: every read command says which, at its line."""
    repo = make_repo(SMALL)
    assert repo.kg("update").code == 0
    shard = repo.root / ".kg" / "raw" / "pkg.jsonl"
    data = shard.read_bytes()
    shard.write_bytes(data[:-1])
    last = data.count(b"\n")
    for argv in (["impact", "pkg/a.py"], ["explain", "pkg/a.py"]):
        assert_one_line_error(repo.kg(*argv), says=f".kg/raw/pkg.jsonl:{last}: is damaged")
