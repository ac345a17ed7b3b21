"""Committed ``.kg/`` files that parse but hold values of the wrong type (a hand edit, a bad
merge, a pull request): every reader says the file is damaged, naming it (and the line of a
layer-1 shard), never a traceback; the next ``kgtool update`` writes a clean build again.

bench/hostile_shapes.py finds these by replacing values one at a time; each case here is one
it found crashing a command."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from conftest import Repo, Result, assert_one_line_error
from test_hostile_cli import SMALL, assert_recovers

SHARD = ".kg/raw/pkg.jsonl"  # SMALL's one shard: meta, __init__.py, a.py, ::f, ::g, f->g...
COMMUNITIES = ".kg/communities.json"
ONTOLOGY = ".kg/ontology.yaml"


PRISTINE: dict[str, dict[str, bytes]] = {}  # repository -> its .kg/ as labelled() left it


def labelled(make_repo) -> Repo:
    """SMALL with its map and offline labels committed (labels make readers compare layer 2
    with the evidence they were written from)."""
    repo = make_repo(SMALL)
    for argv in (["update"], ["label", "--offline"]):
        assert repo.kg(*argv).code == 0, argv
    repo.commit("map")
    PRISTINE[str(repo.root)] = repo.kg_bytes()
    return repo


def shard_line(repo: Repo, number: int) -> dict[str, Any]:
    return json.loads((repo.root / SHARD).read_text().splitlines()[number - 1])


def set_shard_field(repo: Repo, number: int, key: str, value: Any) -> None:
    """Give field ``key`` of the shard's record at line ``number`` another value, the record
    written as kgtool writes records (canonical JSON), so only the value is wrong."""
    path = repo.root / SHARD
    lines = path.read_text().split("\n")
    record = json.loads(lines[number - 1])
    record[key] = value
    lines[number - 1] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines))


def edit_communities(repo: Repo, change: Callable[[dict[str, Any]], None]) -> None:
    path = repo.root / COMMUNITIES
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2) + "\n")


def edit_ontology(repo: Repo, change: Callable[[dict[str, Any]], None]) -> None:
    path = repo.root / ONTOLOGY
    document = yaml.safe_load(path.read_text())
    change(document)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def said(result: Result, where: str) -> bool:
    return where in result.out + result.err


def no_crash(result: Result) -> None:
    """A documented exit, no traceback, and a refusal (2) in one line. A read command that
    answers from what it can read (0) warns on stderr as it does for any damaged file."""
    assert result.code in (0, 1, 2), (result.code, result.out, result.err)
    assert "Traceback" not in result.err, result.err
    if result.code == 2:
        assert_one_line_error(result)


def recover(repo: Repo, where: str) -> None:
    """The next update writes .kg/ as it was before the damage; a file it refuses (one line
    naming it: set it right, here by deleting it) is the one manual step, as for any damage.
    Layer 3 is never rewritten by update: without it, .kg/ is a clean build."""
    name = where.split(":")[0]
    result = repo.kg("update")
    no_crash(result)
    if result.code == 2:
        assert name in result.err, result.err
    if result.code == 2 or name == ONTOLOGY:
        (repo.root / name).unlink()
    if name == ONTOLOGY:
        assert_recovers(repo)
        return
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert repo.kg_bytes() == PRISTINE[str(repo.root)]


def test_a_file_lines_count_that_is_a_string_is_damage_at_its_line(make_repo) -> None:
    repo = labelled(make_repo)
    assert shard_line(repo, 3)["id"] == "pkg/a.py"
    set_shard_field(repo, 3, "lines", "x")
    context = repo.kg("context", "f")
    no_crash(context)
    assert said(context, f"{SHARD}:3: is damaged"), context.out
    assert_one_line_error(repo.kg("explain", "pkg/a.py"), says=f"{SHARD}:3:")
    recover(repo, SHARD)


def test_a_span_that_is_a_number_is_damage_at_its_line(make_repo) -> None:
    repo = labelled(make_repo)
    assert shard_line(repo, 4)["id"] == "::f"
    set_shard_field(repo, 4, "span", 7)
    assert_one_line_error(repo.kg("explain", "pkg/a.py::f"), says=f"{SHARD}:4:")
    context = repo.kg("context", "f")
    no_crash(context)
    assert said(context, f"{SHARD}:4: is damaged"), context.out
    recover(repo, SHARD)


def test_a_main_file_without_its_count_makes_communities_json_damaged(make_repo) -> None:
    repo = labelled(make_repo)

    def cut(document: dict[str, Any]) -> None:
        main_files = document["communities"]["c1"]["main_files"]
        assert main_files and len(main_files[0]) == 2
        main_files[0] = main_files[0][:1]

    edit_communities(repo, cut)
    assert_one_line_error(repo.kg("explain", "c1"), says=f"{COMMUNITIES} is damaged")
    recover(repo, COMMUNITIES)


def communities_change(change: Callable[[dict[str, Any]], None]) -> Callable[[Repo], str]:
    def apply(repo: Repo) -> str:
        edit_communities(repo, change)
        return COMMUNITIES

    return apply


def shard_change(number: int, key: str, value: Any) -> Callable[[Repo], str]:
    def apply(repo: Repo) -> str:
        set_shard_field(repo, number, key, value)
        return f"{SHARD}:{number}"

    return apply


def set_evidence_members(document: dict[str, Any]) -> None:
    document["communities"]["c1"]["evidence"]["members"] = True


def apply_to_ontology(repo: Repo) -> str:
    edit_ontology(repo, set_evidence_members)
    return ONTOLOGY


def boundaries(document: dict[str, Any]) -> None:
    document["settings"]["boundaries"] = [None]


# What bench/hostile_shapes.py found crashing (seed 27, 400 trials): the value changed, then
# each command that raised, with what it must now name ("" for a command that answers
# without the damaged part, like `playbooks list` without the labels).
RAW = ".kg/raw/"  # check and update --check judge layer 1 whole: out of date or damaged
CASES: dict[str, tuple[Callable[[Repo], str], list[tuple[list[str], str]]]] = {
    # Every command that reads layer 1 raised TypeError (a dict is not hashable).
    "meta-format-object": (
        shard_change(1, "format", {"a": 1}),
        [
            (["check"], RAW),
            (["context", "f"], f"{SHARD}:1: is damaged"),
            (["explain", "pkg/a.py"], f"{SHARD}:1: is damaged"),
            (["playbooks", "list", "--json"], ""),
        ],
    ),
    # A falsy wrong value was read as the default by context alone; explain said damaged.
    "span-null": (
        shard_change(4, "span", None),
        [
            (["context", "f"], f"{SHARD}:4: is damaged"),
            (["explain", "pkg/a.py::f"], f"{SHARD}:4: is damaged"),
        ],
    ),
    # A file's node keeps its symbols' and edges' lines (format 3): of the wrong shape, they
    # are damage at the node's line, never a crash or a line of 0.
    "spans-number": (
        shard_change(3, "spans", 7),
        [
            (["context", "f"], f"{SHARD}:3: is damaged"),
            (["explain", "pkg/a.py::f"], f"{SHARD}:3: is damaged"),
        ],
    ),
    "edge-lines-string": (
        shard_change(3, "edge_lines", "x"),
        [(["impact", "pkg/a.py::g"], f"{SHARD}:3: is damaged")],
    ),
    # impact and explain read the edges into a function: int("x"), a tier that is no tier.
    "edge-line-string": (
        shard_change(6, "line", "x"),
        [(["impact", "pkg/a.py::g"], f"{SHARD}:6: is damaged")],
    ),
    "edge-tier-null": (
        shard_change(6, "tier", None),
        [(["explain", "pkg/a.py::g"], f"{SHARD}:6: is damaged")],
    ),
    "edge-confidence-null": (
        shard_change(6, "confidence", None),
        [(["impact", "pkg/a.py::g"], f"{SHARD}:6: is damaged")],
    ),
    "edge-source-object": (
        shard_change(6, "src", {"a": 1}),
        [(["explain", "pkg/a.py::g"], f"{SHARD}:6: is damaged")],
    ),
    # Layer 2 read by context, impact and explain (and drift against the labels).
    "member-object": (
        communities_change(lambda d: d["communities"]["c1"]["members"].__setitem__(1, {})),
        [
            (["context", "f"], f"{COMMUNITIES} is damaged"),
            (["impact", "pkg/a.py"], f"{COMMUNITIES} is damaged"),
            (["explain", "pkg/a.py"], f"{COMMUNITIES} is damaged"),
        ],
    ),
    "community-without-members": (
        communities_change(lambda d: d["communities"]["c1"].__setitem__("members", [])),
        [(["check"], COMMUNITIES), (["ci"], COMMUNITIES), (["label", "--offline"], COMMUNITIES)],
    ),
    "file-in-no-community": (
        communities_change(lambda d: d["files"].__setitem__("pkg/a.py", "x")),
        [(["context", "f"], f"{COMMUNITIES} is damaged")],
    ),
    "edges-strings": (
        communities_change(lambda d: d.__setitem__("edges", ["a", "b"])),
        [
            (["context", "f"], f"{COMMUNITIES} is damaged"),
            (["explain", "c1"], f"{COMMUNITIES} is damaged"),
        ],
    ),
    "community-object-empty": (
        communities_change(lambda d: d["communities"].__setitem__("c1", {})),
        [
            (["context", "f"], f"{COMMUNITIES} is damaged"),
            (["impact", "pkg/a.py"], f"{COMMUNITIES} is damaged"),
        ],
    ),
    "format-object": (
        communities_change(lambda d: d.__setitem__("format", {"a": 1})),
        [
            (["context", "f"], f"{COMMUNITIES} is damaged"),
            (["impact", "pkg/a.py"], f"{COMMUNITIES} is damaged"),
        ],
    ),
    # The previous layer 2 as ci, diff and the checks read it.
    "area-not-an-id": (
        communities_change(lambda d: d["communities"]["c1"].__setitem__("area", "x" * 50)),
        [(["ci"], COMMUNITIES), (["diff", "HEAD~1"], COMMUNITIES), (["check"], COMMUNITIES)],
    ),
    "area-without-communities": (
        communities_change(lambda d: d["areas"]["A1"].__setitem__("communities", [])),
        [(["ci"], COMMUNITIES), (["diff", "HEAD~1"], COMMUNITIES)],
    ),
    "area-package-left-out": (
        communities_change(lambda d: d["areas"]["A1"].pop("package")),
        [(["ci"], COMMUNITIES), (["diff", "HEAD~1"], COMMUNITIES)],
    ),
    "settings-left-out": (
        communities_change(lambda d: d.pop("settings")),
        [(["check"], COMMUNITIES), (["update", "--check"], COMMUNITIES), (["ci"], COMMUNITIES)],
    ),
    "boundary-null": (
        communities_change(boundaries),
        [(["check"], COMMUNITIES), (["update", "--check"], COMMUNITIES)],
    ),
    # Layer 3: every command that reads the labels raised TypeError (len(True)).
    "evidence-members-true": (
        apply_to_ontology,
        [
            (["check"], ONTOLOGY),
            (["update", "--check"], ""),
            (["context", "f"], ONTOLOGY),
            (["playbooks", "list", "--json"], ""),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrong_types_in_committed_kg_files_are_named_not_raised(make_repo, case: str) -> None:
    repo = labelled(make_repo)
    apply, commands = CASES[case]
    where = apply(repo)
    repo.commit("a hand edit")
    for argv, named in commands:
        result = repo.kg(*argv)
        no_crash(result)
        assert said(result, named), (argv, result.out, result.err)
    recover(repo, where)
