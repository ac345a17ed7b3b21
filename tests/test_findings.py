"""Findings: one shape for every problem, a stable code for each kind, silencing by code, and
the JSON documents of ``--format json``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from conftest import PROJECT_ROOT, Repo
from playbook_helpers import add_playbook, line_of

from kgtool.findings import CODES

# path:line: level: CODE message, the line left out for a file as a whole.
SHAPE = re.compile(
    r"^(?P<path>[^:\n]+?)(?::(?P<line>\d+))?: (?P<level>error|warning|note): "
    r"(?P<code>[A-Z]\d{3}) (?P<message>.+)$"
)

FILES = {
    "mypkg/__init__.py": "",
    "mypkg/app.py": "from mypkg.gone import X\n\ndef main():\n    return X\n",
    "mypkg/util.py": "def helper():\n    return 1\n",
    "broken.py": "def ok():\n    pass\n\ndef bad(:\n    pass\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00",
}


@pytest.fixture
def project(make_repo: Callable[..., Repo]) -> Repo:
    repo = make_repo(FILES)
    add_playbook(repo, "p", ["mypkg/nothere.py", "mypkg/util.py::helper"], concepts=["Nowhere"])
    repo.commit("a playbook with a missing key file")
    updated = repo.kg("update")
    assert updated.code == 0, updated.err
    repo.commit(".kg/")
    return repo


def findings_in(text: str) -> list[dict[str, str]]:
    """Every line of ``text`` that has the finding shape, split into its parts."""
    return [m.groupdict() for m in map(SHAPE.match, text.splitlines()) if m]


def test_update_reports_broken_imports_partial_and_skipped_files_in_one_shape(
    project: Repo,
) -> None:
    project.write("mypkg/util.py", "def helper():\n    return 2\n")
    result = project.kg("update", "-v")  # -v: the skipped files are named, not only counted
    assert result.code == 0, result.err
    found = findings_in(result.out)
    assert [(f["path"], f["line"], f["level"], f["code"]) for f in found] == [
        ("mypkg/app.py", "1", "warning", "R102"),
        ("broken.py", "4", "warning", "R103"),
        ("logo.png", None, "note", "R106"),
    ]
    assert (
        "mypkg/app.py:1: warning: R102 broken import 'mypkg.gone': it names this repository's "
        "own code, which has no such module"
    ) in result.out.splitlines()
    # -q keeps the problems and drops the notes, in the same shape; without -v the notes
    # are one line that counts them.
    quiet = project.kg("update", "-q")
    assert quiet.out.splitlines() == [
        line for line in result.out.splitlines() if SHAPE.match(line) and ": note: " not in line
    ]
    project.write("mypkg/util.py", "def helper():\n    return 3\n")
    plain = project.kg("update")
    assert ": note: " not in plain.out
    assert (
        "1 file not read for symbols (binary, too large, ...): `kgtool update -v` names them"
        in (plain.out)
    )


def test_check_and_update_check_report_stale_layers_as_errors(project: Repo) -> None:
    project.write("mypkg/util.py", "def helper():\n    return 2\n\ndef more():\n    return 3\n")
    project.commit("a new function, .kg/ not updated")
    stale = project.kg("update", "--check")
    assert stale.code == 1
    lines = stale.out.splitlines()
    assert lines[0] == (
        ".kg/raw/: error: R101 is out of date: mypkg/util.py changed since it was built: run "
        "`kgtool update`"
    )
    assert all(SHAPE.match(line) for line in lines), lines
    check = project.kg("check")
    assert check.code == 1
    assert lines[0] in check.out
    assert "FAILED: raw graph" in check.out


def test_playbook_findings_have_their_codes_in_check_and_playbooks_check(project: Repo) -> None:
    path = "playbooks/p.md"
    missing = line_of(project, path, "nothere")
    concept = line_of(project, path, "concepts:")
    expected = [
        {"path": path, "line": str(concept), "level": "warning", "code": "P421"},
        {"path": path, "line": str(missing), "level": "error", "code": "P411"},
    ]
    for argv in (("playbooks", "check"), ("check",)):
        result = project.kg(*argv)
        assert result.code == 1
        found = [
            {k: f[k] for k in ("path", "line", "level", "code")} for f in findings_in(result.out)
        ]
        assert sorted(found, key=lambda f: f["code"]) == sorted(expected, key=lambda f: f["code"])


def test_ignore_silences_a_code_in_output_and_exit_code(project: Repo) -> None:
    refused = project.kg("playbooks", "check")
    assert refused.code == 1 and "P411" in refused.out
    project.write(".kgtool.yaml", "ignore: [P411, R106]\n")
    accepted = project.kg("playbooks", "check")
    assert accepted.code == 0, accepted.out
    assert "P411" not in accepted.out and "P421" in accepted.out
    assert "1 playbook: 0 executable, 0 refused" in accepted.out  # silenced, not resolved
    check = project.kg("check")
    assert check.code == 0, check.out
    assert "ok: playbooks" in check.out and "P411" not in check.out
    update = project.kg("update")
    assert "R106" not in update.out and "R102" in update.out
    as_json = json.loads(project.kg("check", "--format", "json").out)
    assert [f["code"] for f in as_json["findings"]] == ["P421"]


def test_the_stale_codes_cannot_be_ignored(project: Repo) -> None:
    """A pull request can change the settings: silencing R101 or C201 would let it pass a
    stale map, so naming them is a settings error, and the verdict stands."""
    project.write("mypkg/util.py", "def helper():\n    return 2\n\ndef more():\n    return 3\n")
    for code in ("R101", "C201", "R108"):
        project.write(".kgtool.yaml", f"ignore: [P411, {code}]\n")
        project.commit(f"stale, and {code} silenced")
        refused = project.kg("check")
        assert refused.code == 2, refused.out + refused.err
        assert f".kgtool.yaml:1: error: K005 '{code}' says .kg/ is not what" in refused.err
    project.write(".kgtool.yaml", "ignore: [P411]\n")
    project.commit("stale")
    assert project.kg("update", "--check").code == 1
    check = project.kg("check")
    assert check.code == 1 and "R101" in check.out, check.out


@pytest.mark.parametrize(
    "argv",
    [("check",), ("playbooks", "check"), ("update",), ("update", "--check")],
    ids=["check", "playbooks-check", "update", "update-check"],
)
def test_json_parses_has_the_fields_repeats_byte_for_byte_and_keeps_the_exit_code(
    project: Repo, argv: tuple[str, ...]
) -> None:
    project.write("mypkg/util.py", "def helper():\n    return 2\n")
    if argv[0] == "update" and "--check" not in argv:
        project.kg("update")  # the runs compared below then both find nothing to do
    text = project.kg(*argv)
    first = project.kg(*argv, "--format", "json")
    second = project.kg(*argv, "--format", "json")
    assert first.out == second.out
    assert first.code == text.code
    document = json.loads(first.out)
    assert list(document) == ["version", "command", "ok", "summary", "findings"]
    assert document["version"] == 1
    assert document["command"] == ("playbooks check" if argv[0] == "playbooks" else argv[0])
    assert document["ok"] is (first.code == 0)
    assert document["findings"], "every command here has something to report"
    for finding in document["findings"]:
        assert list(finding) == ["path", "line", "level", "code", "message"]
        assert finding["code"] in CODES
    # The text lists the same findings (update's text lists its notes, and --check only its
    # stale layers, as before).
    shown = {(f["path"], f["line"] and int(f["line"]), f["code"]) for f in findings_in(text.out)}
    listed = {(f["path"], f["line"], f["code"]) for f in document["findings"]}
    assert shown <= listed


def test_json_summaries(project: Repo) -> None:
    check = json.loads(project.kg("check", "--format", "json").out)
    assert check["summary"] == {
        "checks": [
            {"name": "raw graph", "ok": True},
            {"name": "communities", "ok": True},
            {"name": "labels", "ok": True},
            {"name": "playbooks", "ok": False},
        ]
    }
    playbooks = json.loads(project.kg("playbooks", "check", "--format", "json").out)
    assert playbooks["summary"] == {"playbooks": 1, "executable": 0, "refused": ["p"]}
    project.write("mypkg/util.py", "def helper():\n    return 2\n")
    wrote = project.kg("update", "--format", "json")
    assert wrote.code == 0
    summary = json.loads(wrote.out)["summary"]
    assert summary["mode"] == "write" and summary["up_to_date"] is False
    assert summary["changed"][0] == ".kg/raw/" and summary["parsed"] == 1
    assert summary["files"] == 6 and "seconds" not in json.dumps(summary)
    again = json.loads(project.kg("update", "--format", "json").out)["summary"]
    assert again["up_to_date"] is True and again["changed"] == [] and again["parsed"] == 0


def test_the_findings_page_lists_every_code_with_its_meaning() -> None:
    page = (PROJECT_ROOT / "docs" / "findings.md").read_text()
    rows = dict(re.findall(r"^\| `([A-Z]\d{3})` \| [^|]+ \| (.+) \|$", page, re.MULTILINE))
    assert rows == CODES


def test_an_import_of_a_declared_dependency_is_never_a_broken_import(
    make_repo: Callable[..., Repo],
) -> None:
    """A folder of the repository may share its first name with a package the code imports
    (pydantic-ai's examples/…/ag_ui/ beside the ag_ui module of ag-ui-protocol): declared in
    a manifest, the import is the package's. The repository's own package stays its own,
    whatever a dependency is called."""
    repo = make_repo(
        {
            "pyproject.toml": (
                '[project]\nname = "mypkg"\ndependencies = ["mypkg-extras>=1"]\n'
                '[project.optional-dependencies]\nui = ["ag-ui-protocol>=0.1"]\n'
            ),
            "mypkg/__init__.py": "",
            "mypkg/app.py": "from mypkg.gone import thing\n",
            "examples/ag_ui/__init__.py": "",
            "examples/ag_ui/api.py": "from ag_ui.core import Event\n",
            "examples/ag_ui/other.py": "from ag_ui.missing import x\n",
        }
    )
    result = repo.kg("update")
    assert result.code == 0, result.err
    broken = [f["path"] for f in findings_in(result.out) if f["code"] == "R102"]
    assert broken == ["mypkg/app.py"]
    # Without the manifest's word, the same imports name the repository's own folder.
    repo.write("pyproject.toml", '[project]\nname = "mypkg"\n')
    again = [f["path"] for f in findings_in(repo.kg("update").out) if f["code"] == "R102"]
    assert again == ["examples/ag_ui/api.py", "examples/ag_ui/other.py", "mypkg/app.py"]


def test_a_go_require_hides_no_broken_import_of_the_module_s_own_packages(
    make_repo: Callable[..., Repo],
) -> None:
    """Go's imports are module paths, matched whole against go.mod: a require of
    github.com/pkg/errors covers that path and what is under it, never the repository's own
    github.com/me/repo/internal/gone (their first words are alike)."""
    repo = make_repo(
        {
            "go.mod": (
                "module github.com/me/repo\n\ngo 1.21\n\nrequire github.com/pkg/errors v0.9.1\n"
            ),
            "main.go": (
                'package main\n\nimport (\n\t"github.com/me/repo/internal/gone"\n'
                '\t"github.com/pkg/errors"\n)\n\nfunc main() { gone.X(); errors.New("x") }\n'
            ),
        }
    )
    result = repo.kg("update")
    assert result.code == 0, result.err
    broken = [(f["path"], f["code"]) for f in findings_in(result.out) if f["code"] == "R102"]
    assert broken == [("main.go", "R102")]
