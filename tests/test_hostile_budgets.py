"""Budgets, paths and node IDs a pull request controls: many refused pointers cost a few
lookups each, an MCP answer has a size, an export stays inside the repository, and file names
with ``::`` or undecodable bytes are carried exactly. Each case runs through the real CLI (or
the real MCP client) on a real git repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Repo, assert_one_line_error
from playbook_helpers import add_playbook

import kgtool.playbook.layer1 as layer1_module
import kgtool.playbook.suggest as suggest_module

CODE = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def run():\n    return 1\n\n\nclass Engine:\n"
    "    def start(self):\n        return run()\n",
    "pkg/old.py": "def legacy():\n    return 2\n",
    "pkg/gone.py": "def gone():\n    return 3\n",
}


def code_with_history(make_repo) -> Repo:
    """A repository whose history renames pkg/old.py to pkg/new.py and deletes pkg/gone.py."""
    repo = make_repo(CODE)
    repo.git("mv", "pkg/old.py", "pkg/new.py")
    repo.git("rm", "-q", "pkg/gone.py")
    repo.commit("rename and delete")
    assert repo.kg("update").code == 0
    return repo


def counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Count the calls of ``module.name`` (a list, so the test reads its length)."""
    calls: list[int] = []
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_many_missing_pointers_index_layer1_and_history_once(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = code_with_history(make_repo)
    pointers = [f"gone/area_{i}/never_{i}.py" for i in range(60)]
    pointers += [f"missing_{i}.py" for i in range(60)]
    pointers += [f"pkg/core.py::Missing{i}" for i in range(60)]
    pointers += [f"sub/{i}/__init__.py" for i in range(60)]
    add_playbook(repo, "many", pointers)
    shallow = counting(monkeypatch, suggest_module, "is_shallow")
    history = counting(monkeypatch, suggest_module, "path_changes")
    symbols = counting(monkeypatch, layer1_module.Layer1, "symbol_index")
    result = repo.kg("playbooks", "check")
    assert result.code == 1
    assert result.out.count("does not resolve (missing)") == len(pointers)
    # Once a run, however many pointers are missing: never once a pointer.
    assert len(shallow) == 1
    assert len(history) == 1
    assert len(symbols) == 1


def test_nearest_searches_stop_at_the_budget_and_say_how_many_went_without(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = code_with_history(make_repo)
    add_playbook(
        repo,
        "many",
        [f"pkg/cor{i}.py" for i in range(20)] + ["pkg/old.py", "pkg/core.py::Engine.stat"],
    )
    # 3 files in the graph: 10 searches of 3 names.
    monkeypatch.setattr(suggest_module, "NEAREST_BUDGET", 30, raising=False)
    result = repo.kg("playbooks", "check")
    assert result.code == 1
    lines = result.out.splitlines()
    near = [line for line in lines if "nearest existing path: pkg/core.py" in line]
    assert [line.split("'")[1] for line in near] == [f"pkg/cor{i}.py" for i in range(10)]
    # Past the budget, a pointer is still named at its line, with what costs a lookup: its
    # rename, and where its symbol is defined now.
    assert sum("does not resolve (missing)" in line for line in lines) == 22
    assert any(
        "'pkg/old.py' does not resolve" in line and "renamed to pkg/new.py" in line
        for line in lines
    )
    assert "P443 11 more missing key files got no nearest path or symbol" in result.out
    assert "the first 10 used up the search budget (30 names compared)" in result.out
    # The certain rename is still fixed past the budget.
    fixed = repo.kg("playbooks", "fix")
    assert fixed.code == 1  # the other 21 are left for a person
    assert "  - pkg/new.py\n" in (repo.root / "playbooks/many.md").read_text()


def test_same_missing_symbol_under_a_common_name_skips_its_own_file(make_repo) -> None:
    repo = make_repo(
        {
            "a.py": "class A:\n    def start(self):\n        return 1\n",
            "b.py": "class B:\n    def start(self):\n        return 2\n",
            "a.py::x.py": "def start():\n    return 3\n",
        }
    )
    assert repo.kg("update").code == 0
    add_playbook(repo, "moved", ["a.py::start"])
    result = repo.kg("playbooks", "check")
    assert result.code == 1
    # a.py's own A.start is left out; the file named 'a.py::x.py' is another file.
    assert "'start' is now defined as a.py::x.py::start, b.py::B.start" in result.out


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (symlinks not followed) with its bytes."""
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("../x", "leads outside the repository"),
        ("{outside}", "leads outside the repository"),
        ("link/skills", "leads outside the repository"),
        (".git/hooks", "is inside .git/"),
        (".git", "is inside .git/"),
        (".kg/skills", "is inside .kg/"),
        (".", "is the repository root itself"),
        ("pkg/..", "is the repository root itself"),
    ],
)
def test_export_out_stays_inside_the_repository(
    make_repo, tmp_path: Path, out: str, says: str
) -> None:
    from read_helpers import build_read_repo

    repo = build_read_repo(make_repo())
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo.root / "link").symlink_to(outside)
    before = {
        "outside": tree(tmp_path / "outside"),
        "x": tree(repo.root.parent / "x"),
        "git": tree(repo.root / ".git"),
        "kg": tree(repo.root / ".kg"),
    }
    result = repo.kg("playbooks", "export", "--to", "agents", "--out", out.format(outside=outside))
    assert_one_line_error(result, says=says)
    after = {
        "outside": tree(tmp_path / "outside"),
        "x": tree(repo.root.parent / "x"),
        "git": tree(repo.root / ".git"),
        "kg": tree(repo.root / ".kg"),
    }
    assert after == before


def test_export_follows_no_symlink_out_of_the_repository(make_repo, tmp_path: Path) -> None:
    from read_helpers import build_read_repo

    repo = build_read_repo(make_repo())
    outside = tmp_path / "outside"
    (outside / "save-records").mkdir(parents=True)
    # A committed .claude that leads out of the repository: the default folder is refused.
    (repo.root / ".claude").symlink_to(outside)
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert_one_line_error(result, says="the skills folder '.claude/skills' leads outside")
    # A skill's own folder that is a symlink: skipped, not written through.
    (repo.root / ".agents/skills").mkdir(parents=True)
    (repo.root / ".agents/skills/save-records").symlink_to(outside / "save-records")
    result = repo.kg("playbooks", "export", "--to", "agents")
    assert result.code == 0, result.err
    assert "skipped playbooks/save-records.md: .agents/skills/save-records is a symlink" in (
        result.out
    )
    assert tree(outside) == {}
    # Inside the repository, through a symlink that stays inside: written where it leads.
    (repo.root / "docs/skills").mkdir(parents=True)
    (repo.root / "skills").symlink_to(repo.root / "docs/skills")
    result = repo.kg("playbooks", "export", "--to", "agents", "--out", "skills")
    assert result.code == 0, result.err
    assert "wrote docs/skills/save-records/SKILL.md" in result.out


def colons_repo(make_repo) -> Repo:
    """Files whose names hold '::', beside files their prefixes name."""
    repo = make_repo(
        {
            "a.py": "def b():\n    return 3\n",
            "a::b.py": "def f():\n    return 2\n\n\ndef g():\n    return f()\n",
            "evil/::error::pwned1.py": "def pwn():\n    return 1\n",
            "main.py": "from a import b\n\n\ndef use(obj):\n    return b(), obj.py()\n",
        }
    )
    assert repo.kg("update").code == 0
    return repo


def test_a_pointer_to_a_file_whose_name_holds_colons_resolves_exactly(make_repo) -> None:
    repo = colons_repo(make_repo)
    add_playbook(
        repo,
        "colons",
        [
            '"evil/::error::pwned1.py"',
            '"evil/::error::pwned1.py::pwn"',
            '"::error::pwned1.py::pwn"',  # shortened to a suffix, as any path may be
            '"a::b.py"',
            '"a::b.py::g"',
            '"a.py::b"',
        ],
    )
    result = repo.kg("playbooks", "check")
    assert result.code == 0, result.out
    assert result.out == "1 playbook: 1 executable, 0 refused\n"
    add_playbook(repo, "colons", ['"a::b.py::nope"', '"a.py::"'])
    result = repo.kg("playbooks", "check")
    assert "'a::b.py::nope' does not resolve (missing): a::b.py defines no 'nope'" in result.out
    assert "'a.py::' does not resolve (invalid): it has '::' but no symbol after it" in result.out


def test_explain_and_impact_read_a_path_that_holds_colons_whole(make_repo) -> None:
    repo = colons_repo(make_repo)
    file = repo.kg("explain", "a::b.py")
    assert file.code == 0 and file.out.startswith("a::b.py  (file, python, 6 lines)\n")
    symbol = repo.kg("explain", "a::b.py::f")
    assert symbol.code == 0, symbol.err
    assert symbol.out.splitlines()[0] == "a::b.py::f  (function)"
    assert "at a::b.py:1-2" in symbol.out
    impact = repo.kg("impact", "a::b.py::f")
    assert impact.code == 0, impact.err
    assert "caller    a::b.py::g  a::b.py:6  EXTRACTED 1.00" in impact.out
    # The file's own name is no symbol: no call named 'py' could reach it.
    assert repo.kg("impact", "a::b.py").out == (
        "impact of a::b.py (depth 3): at least 0 dependents in 0 communities, 0 inferred\n"
    )
    # a.py defines b alone: a::b.py's symbols are not a.py's.
    assert repo.kg("explain", "a.py::f").code != 0
    assert "symbols:\n  a.py::b  function  a.py:1\n\n" in repo.kg("explain", "a.py").out
    assert (
        "symbols:\n  a::b.py::f  function  a::b.py:1\n  a::b.py::g  function  a::b.py:5\n\n"
        in file.out
    )


def test_a_name_that_is_not_utf8_does_not_keep_kg_out_of_date(make_repo) -> None:
    repo = make_repo({"a.py": "def f():\n    return 1\n"})
    repo.write(b"bad\xff.py".decode("utf-8", "surrogateescape"), "x = 1\n")
    repo.commit("a file name that is not UTF-8")
    assert repo.kg("update").code == 0
    for argv in (["impact", "a.py::f"], ["explain", "a.py"]):
        result = repo.kg(*argv)
        assert result.code == 0 and result.err == "", result.err
    repo.write("a.py", "def f():\n    return 2\n")  # a real change is still seen
    assert "out of date: 1 file changed" in repo.kg("impact", "a.py::f").err


def test_a_class_in_a_file_whose_name_holds_colons_contains_its_methods(make_repo) -> None:
    """The qualname follows the last "::": a::b.py's class C contains C.m (the edge came
    from a::b.py::b.py::C, a node that does not exist)."""
    repo = make_repo({"a::b.py": "class C:\n    def m(self):\n        return 1\n"})
    assert repo.kg("update").code == 0
    contains = {(e["src"], e["dst"]) for e in repo.edges("contains")}
    assert ("a::b.py::C", "a::b.py::C.m") in contains
    assert ("a::b.py", "a::b.py::C") in contains


def test_a_workspace_manifest_linked_to_a_device_is_not_read(make_repo) -> None:
    """go.work (read for workspace packages) committed as a link to /dev/zero: read whole,
    it took the memory of the run (killed, or a MemoryError)."""
    repo = make_repo({"main.go": "package main\n\nfunc main() {}\n"})
    (repo.root / "go.work").symlink_to("/dev/zero")
    repo.commit("a hostile go.work")
    result = repo.kg_process("update", timeout=60)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
