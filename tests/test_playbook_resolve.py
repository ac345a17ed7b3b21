"""Pointer resolution against layer 1, one outcome at a time, in real git repositories."""

from __future__ import annotations

import json

import pytest
from conftest import Repo
from playbook_helpers import add_playbook, line_of

SOURCES = {
    "src/cli/args.py": (
        "def parse_args():\n    pass\n\nclass Options:\n    def merge(self):\n        pass\n"
    ),
    "src/core/util.py": "def helper():\n    pass\n",
    "src/web/util.py": "def render():\n    pass\n",
    "README.md": "# demo\n",
}


@pytest.fixture
def built(repo: Repo) -> Repo:
    repo.write_files(SOURCES)
    repo.commit("initial")
    assert repo.kg("update").code == 0
    return repo


def outcomes(repo: Repo) -> dict[str, dict]:
    result = repo.kg("playbooks", "list", "--json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    return {
        pointer["pointer"]: pointer
        for playbook in document["playbooks"]
        for pointer in playbook["key_files"]
    }


def test_exact_and_unique_suffix_pointers_resolve_to_layer1_nodes(built: Repo) -> None:
    add_playbook(
        built,
        "ok",
        [
            "src/cli/args.py",
            "src/cli/args.py::parse_args",
            "src/cli/args.py::Options.merge",
            "args.py",
            "cli/args.py::Options",
            "README.md",
        ],
    )
    found = outcomes(built)
    assert {p: (v["outcome"], v["node"]) for p, v in found.items()} == {
        "src/cli/args.py": ("exact", "src/cli/args.py"),
        "src/cli/args.py::parse_args": ("exact", "src/cli/args.py::parse_args"),
        "src/cli/args.py::Options.merge": ("exact", "src/cli/args.py::Options.merge"),
        "args.py": ("unique-suffix", "src/cli/args.py"),
        "cli/args.py::Options": ("unique-suffix", "src/cli/args.py::Options"),
        "README.md": ("exact", "README.md"),
    }
    check = built.kg("playbooks", "check")
    assert check.code == 0, check.out
    assert "1 playbook: 1 executable, 0 refused" in check.out


def test_suffix_must_end_at_a_folder_boundary(built: Repo) -> None:
    add_playbook(built, "p", ["rgs.py"])
    assert outcomes(built)["rgs.py"]["outcome"] == "missing"


def test_ambiguous_pointer_lists_its_candidates_unless_the_symbol_decides(built: Repo) -> None:
    path = add_playbook(built, "p", ["util.py", "util.py::render", "util.py::nothing"])
    found = outcomes(built)
    assert found["util.py"]["outcome"] == "ambiguous"
    assert found["util.py"]["candidates"] == ["src/core/util.py", "src/web/util.py"]
    # Only one util.py defines render: the symbol makes the pointer unique.
    assert found["util.py::render"]["outcome"] == "unique-suffix"
    assert found["util.py::render"]["node"] == "src/web/util.py::render"
    assert found["util.py::nothing"]["outcome"] == "ambiguous"
    check = built.kg("playbooks", "check")
    assert check.code == 1
    line = line_of(built, path, "  - util.py")
    assert (
        f"{path}:{line}: error: P412 key file 'util.py' does not resolve (ambiguous): "
        "it matches "
        "src/core/util.py, src/web/util.py"
    ) in check.out


def test_missing_file_and_missing_symbol(built: Repo) -> None:
    path = add_playbook(built, "p", ["src/cli/nothing.py", "src/cli/args.py::parse_argz"])
    found = outcomes(built)
    assert found["src/cli/nothing.py"]["outcome"] == "missing"
    assert found["src/cli/args.py::parse_argz"]["outcome"] == "missing"
    check = built.kg("playbooks", "check")
    assert check.code == 1
    line = line_of(built, path, "parse_argz")
    assert (
        f"{path}:{line}: error: P411 key file 'src/cli/args.py::parse_argz' does not resolve "
        "(missing): "
        "src/cli/args.py defines no 'parse_argz'; nearest in src/cli/args.py: parse_args"
    ) in check.out


@pytest.mark.parametrize(
    ("pointer", "reason"),
    [
        ("/etc/passwd", "absolute path"),
        ("~/secrets.txt", "absolute path"),
        ("C:\\\\Windows\\\\win.ini", "absolute path"),
        ("../outside.py", "outside the repository"),
        ("src/../../outside.py", "outside the repository"),
        ("src/cli/../cli/args.py", "write it as 'src/cli/args.py'"),
        ("src/../src/cli/args.py", "write it as 'src/cli/args.py'"),  # back to the root, not out
        ("./src/cli/args.py", "write 'src/cli/args.py'"),
        ("src//cli/args.py", "write 'src/cli/args.py'"),
        ("src\\\\cli\\\\args.py", "uses '\\'"),
        ("src/*/args.py", "a pattern"),
        ("providers/<X>.py", "a pattern"),
        ("src/cli", "a folder"),
        ("src/cli/", "a folder"),  # not 'write src/cli', which is a folder too
        ("src/cli/args.py::", "no symbol"),
        (".git/config", "not tracked by git"),
    ],
)
def test_invalid_pointers_are_refused_with_the_reason(
    built: Repo, pointer: str, reason: str
) -> None:
    add_playbook(built, "p", [json.dumps(pointer)])
    found = outcomes(built)
    assert found[pointer]["outcome"] == "invalid"
    assert reason in found[pointer]["reason"]
    assert built.kg("playbooks", "check").code == 1


def test_untracked_ignored_and_symlinked_outside_files_are_invalid(built: Repo, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("x = 1\n")
    (built.root / "linked").symlink_to(outside)
    built.write(".gitignore", "build/\n")
    built.write("build/gen.py", "x = 1\n")
    built.write("scratch.py", "x = 1\n")
    add_playbook(built, "p", ["scratch.py", "build/gen.py", "linked/secret.py"])
    found = outcomes(built)
    assert found["scratch.py"]["outcome"] == "invalid"
    assert "not tracked by git" in found["scratch.py"]["reason"]
    assert found["build/gen.py"]["outcome"] == "invalid"
    assert found["linked/secret.py"]["outcome"] == "invalid"
    assert "outside the repository" in found["linked/secret.py"]["reason"]


def test_excluded_and_kg_files_are_tracked_but_not_in_the_graph(built: Repo) -> None:
    built.write(".kgtool.yaml", "exclude: ['src/web/**']\n")
    built.commit("exclude web")
    add_playbook(built, "p", ["src/web/util.py"])
    found = outcomes(built)
    assert found["src/web/util.py"]["outcome"] == "invalid"
    assert "'exclude'" in found["src/web/util.py"]["reason"]


def test_without_layer_one_paths_and_symbols_still_resolve_from_git_and_files(
    repo: Repo,
) -> None:
    repo.write_files(SOURCES)
    repo.commit("initial")
    add_playbook(repo, "p", ["args.py::Options.merge", "src/core/util.py::gone"])
    check = repo.kg("playbooks", "check")
    assert check.code == 1
    assert ".kg/raw/: warning: P441 does not exist" in check.out
    assert "'src/core/util.py::gone' does not resolve (missing)" in check.out
    assert "args.py::Options.merge'" not in check.out
    assert check.out.count("P441") == 1


def test_symbols_of_a_file_changed_since_update_are_read_from_the_file(built: Repo) -> None:
    built.write("src/core/util.py", "def helper2():\n    pass\n")
    add_playbook(built, "p", ["src/core/util.py::helper2", "src/core/util.py::helper"])
    found = outcomes(built)
    assert found["src/core/util.py::helper2"]["outcome"] == "exact"
    assert found["src/core/util.py::helper"]["outcome"] == "missing"


def test_concepts_resolve_to_layer3_names_or_community_ids(built: Repo) -> None:
    kg = built.root / ".kg"
    (kg / "ontology.yaml").write_text(
        "communities:\n  c1:\n    name: Command line\n    summary: parses arguments\n"
    )
    path = add_playbook(built, "p", ["args.py"], concepts=["command LINE", "c1", "Payments"])
    result = built.kg("playbooks", "list", "--json")
    concepts = json.loads(result.out)["playbooks"][0]["concepts"]
    assert [(c["concept"], c["community"]) for c in concepts] == [
        ("command LINE", "c1"),
        ("c1", "c1"),
        ("Payments", None),
    ]
    check = built.kg("playbooks", "check")
    assert check.code == 0  # an unresolved concept warns by default
    line = line_of(built, path, "concepts:")
    assert f"{path}:{line}: warning: P421 concept 'Payments' is unresolved" in check.out
    built.write(".kgtool.yaml", "playbooks:\n  fail_on_unresolved_concepts: true\n")
    assert built.kg("playbooks", "check").code == 1


def test_no_layer2_or_3_gives_one_warning_not_one_per_concept(built: Repo) -> None:
    (built.root / ".kg" / "communities.json").unlink(missing_ok=True)
    add_playbook(built, "a", ["args.py"], concepts=["Parsing", "Web"])
    add_playbook(built, "b", ["args.py"], concepts=["Storage"])
    check = built.kg("playbooks", "check")
    assert check.code == 0
    assert check.out.count("concepts were not checked") == 1
    assert "is unresolved" not in check.out


def test_stale_concepts_go_through_the_drift_seam(
    built: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgtool.playbook import concepts

    (built.root / ".kg" / "ontology.yaml").write_text("communities:\n  c1:\n    name: CLI\n")
    monkeypatch.setattr(
        concepts, "stale_communities", lambda store, ontology, document: {"c1": "moved by 0.6"}
    )
    add_playbook(built, "p", ["args.py"], concepts=["CLI"])
    check = built.kg("playbooks", "check")
    assert check.code == 0
    assert "warning: P422 concept 'CLI' (c1) is stale: moved by 0.6" in check.out
    built.write(".kgtool.yaml", "playbooks:\n  fail_on_stale_concepts: true\n")
    assert built.kg("playbooks", "check").code == 1


def test_tracked_symlinks_out_of_the_repository_are_invalid(built: Repo, tmp_path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    (built.root / "src" / "link.py").symlink_to(outside)
    (built.root / "src" / "passwd").symlink_to("/etc/passwd")
    (built.root / "src" / "inside.py").symlink_to("cli/args.py")
    built.commit("tracked symlinks")
    assert built.kg("update").code == 0
    add_playbook(built, "p", ["src/link.py", "src/passwd", "passwd", "src/inside.py"])
    found = outcomes(built)
    for pointer in ("src/link.py", "src/passwd", "passwd"):
        assert found[pointer]["outcome"] == "invalid", pointer
        assert "outside the repository" in found[pointer]["reason"]
    assert found["src/inside.py"]["outcome"] == "exact"
    assert built.kg("playbooks", "check").code == 1
