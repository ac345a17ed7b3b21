"""The ``kgtool playbooks`` commands end to end: list, new, exit codes, and ``kgtool check``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import Repo
from playbook_helpers import add_playbook, playbook_text

from kgtool.playbook.parse import parse_playbook


@pytest.fixture
def app(repo: Repo) -> Repo:
    repo.write_files(
        {
            "app/cli.py": "def main():\n    pass\n",
            "app/store.py": "class Store:\n    def save(self):\n        pass\n",
            "tests/test_store.py": "def test_save():\n    pass\n",
        }
    )
    repo.commit("initial")
    assert repo.kg("update").code == 0
    return repo


def test_list_shows_status_and_who_may_act_alone(app: Repo) -> None:
    add_playbook(app, "active-ok", ["app/cli.py"])
    add_playbook(app, "active-broken", ["app/gone.py"])
    add_playbook(app, "retired-broken", ["app/gone.py"], status="retired")
    app.write(
        "playbooks/proposed/mined.md", playbook_text(["app/store.py::Store.save"]), dedent=False
    )
    listing = app.kg("playbooks", "list", "--json")
    assert listing.code == 0
    rows = {
        p["slug"]: (p["status"], p["executable"], p["refused"])
        for p in json.loads(listing.out)["playbooks"]
    }
    assert rows == {
        "active-ok": ("active", True, False),
        "active-broken": ("active", False, True),
        # A retired playbook is followed by nobody: its rot warns, it is never executable.
        "retired-broken": ("retired", False, False),
        # Proposals are checked like the rest but wait for a person before agents use them.
        "mined": ("proposed", False, False),
    }
    text = app.kg("playbooks", "list").out.splitlines()
    assert [line.split()[:3] for line in text[:-1]] == [
        ["active-broken", "active", "refused"],
        ["active-ok", "active", "executable"],
        ["mined", "proposed", "not"],
        ["retired-broken", "retired", "not"],
    ]
    check = app.kg("playbooks", "check")
    assert check.code == 1
    assert "playbooks/retired-broken.md:6: warning: P411 key file 'app/gone.py'" in check.out


def test_exit_codes(app: Repo) -> None:
    assert app.kg("playbooks", "check").code == 0  # no playbooks at all
    assert "no playbooks in playbooks/" in app.kg("playbooks", "check").out
    add_playbook(app, "p", ["app/cli.py::main"])
    assert app.kg("playbooks", "check").code == 0
    add_playbook(app, "q", ["app/cli.py::mian"])
    assert app.kg("playbooks", "check").code == 1
    app.write(".kgtool.yaml", "playbooks:\n  dir: ../elsewhere\n")
    bad = app.kg("playbooks", "check")
    assert bad.code == 2
    assert "setting 'playbooks.dir'" in bad.err
    app.write(".kgtool.yaml", "playbooks:\n  fail_on_unresolved: true\n")
    unknown = app.kg("playbooks", "check")
    assert unknown.code == 2
    assert unknown.err == (
        ".kgtool.yaml:2: error: K002 unknown setting 'playbooks.fail_on_unresolved': "
        "did you mean 'fail_on_unresolved_concepts'?\n"
    )


def test_playbooks_dir_setting_moves_the_folder(app: Repo) -> None:
    app.write(".kgtool.yaml", "playbooks:\n  dir: docs/recipes\n")
    app.write("docs/recipes/r.md", playbook_text(["app/nothing.py"]), dedent=False)
    check = app.kg("playbooks", "check")
    assert check.code == 1
    assert "docs/recipes/r.md:5: error: P411 key file 'app/nothing.py'" in check.out


def test_kgtool_check_refuses_a_broken_playbook(app: Repo) -> None:
    add_playbook(app, "p", ["app/cli.py"])
    ok = app.kg("check")
    assert ok.code == 0, ok.out
    assert "ok: playbooks" in ok.out
    add_playbook(app, "q", ["app/cli.py::nothing"])
    failed = app.kg("check")
    assert failed.code == 1
    assert (
        "playbooks/q.md:5: error: P411 key file 'app/cli.py::nothing' does not resolve"
        in failed.out
    )
    assert "FAILED: playbooks" in failed.out


def test_new_prefills_the_files_of_the_current_change(app: Repo) -> None:
    app.write("app/store.py", "class Store:\n    def save(self):\n        return 1\n")
    app.write("tests/test_store.py", "def test_save():\n    assert True\n")
    created = app.kg("playbooks", "new", "Make saving atomic!")
    assert created.code == 0, created.err
    assert "wrote playbooks/make-saving-atomic.md: 2 key files" in created.out
    path = app.root / "playbooks" / "make-saving-atomic.md"
    playbook = parse_playbook("playbooks/make-saving-atomic.md", path.read_bytes())
    assert playbook.problems == []
    assert playbook.intent == "Make saving atomic!"
    assert playbook.status == "proposed"
    assert [s.value for s in playbook.key_files] == ["app/store.py", "tests/test_store.py"]
    check = app.kg("playbooks", "check")
    # Every pointer resolves, but the TODOs are still there to be filled in.
    assert check.code == 0
    assert "field 'pitfalls' still holds a TODO" in check.out
    again = app.kg("playbooks", "new", "Make saving atomic!")
    assert again.code == 2
    assert "exists already" in again.err


def test_new_from_a_revision_range_with_communities(app: Repo) -> None:
    first = app.git("rev-parse", "HEAD").strip()
    app.write("app/cli.py", "def main():\n    return 0\n")
    app.commit("cli")
    app.write("app/extra.py", "x = 1\n")
    app.commit("extra")
    app.git("rm", "-q", "app/extra.py")
    app.commit("drop extra")
    (app.root / ".kg" / "communities.json").write_text(
        json.dumps(
            {"communities": {"c4": {"members": ["app/cli.py"]}}, "files": {"app/cli.py": "c4"}}
        )
    )
    (app.root / ".kg" / "ontology.yaml").write_text("communities:\n  c4:\n    name: Command line\n")
    created = app.kg("playbooks", "new", "Change the CLI", "--from", f"{first}..HEAD", "--dry-run")
    assert created.code == 0, created.err
    playbook = parse_playbook("playbooks/x.md", created.out.encode())
    assert [s.value for s in playbook.key_files] == ["app/cli.py"]  # extra.py is gone now
    assert [s.value for s in playbook.concepts] == ["Command line"]
    assert playbook.evidence == [f"{first}..HEAD"]
    assert not (app.root / "playbooks").exists()
    single = app.kg("playbooks", "new", "x", "--from", "HEAD~2", "--dry-run")
    assert [s.value for s in parse_playbook("p/x.md", single.out.encode()).key_files] == [
        "app/cli.py"
    ]
    bad = app.kg("playbooks", "new", "x", "--from", "--output=/tmp/x")
    assert bad.code == 2


def test_this_repository_s_own_playbooks_are_well_formed() -> None:
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "playbooks"
    found = sorted(folder.glob("*.md"))
    assert len(found) >= 3
    for path in found:
        playbook = parse_playbook(f"playbooks/{path.name}", path.read_bytes())
        assert playbook.problems == [], playbook.problems
        assert playbook.status == "active"


def test_new_from_a_commit_follows_later_renames_and_says_what_it_left_out(app: Repo) -> None:
    app.write("app/plugin.py", "def hook():\n    return 1\n")
    app.write("app/gone.py", "x = 1\n")
    app.write("poetry.lock", "# a lock file\n")
    assert app.kg("update").code == 0  # the commit carries kgtool's output, as a hook's does
    added = app.commit("add plugin and gone")
    assert ".kg/" in app.git("show", "--name-only", "--format=", added)
    app.git("mv", "app/plugin.py", "app/plugins.py")
    app.commit("rename plugin")
    app.git("rm", "-q", "app/gone.py")
    app.commit("drop gone")
    assert app.kg("update").code == 0
    created = app.kg("playbooks", "new", "Add a plugin", "--from", added, "--dry-run")
    assert created.code == 0, created.err
    playbook = parse_playbook("playbooks/x.md", created.out.encode())
    assert [s.value for s in playbook.key_files] == ["app/plugins.py"]
    assert "# app/plugin.py (renamed since: app/plugins.py is listed instead)" in created.out
    assert "# app/gone.py (deleted since, in " in created.out
    assert ".kg/" not in created.out and "poetry.lock" not in created.out  # left out silently
    written = app.kg("playbooks", "new", "Add a plugin", "--from", added)
    assert "  app/gone.py (deleted since, in " in written.out


def test_new_follows_renames_in_the_order_they_happened(app: Repo) -> None:
    app.write("app/first.py", "def first():\n    return 'first, long enough to be a rename'\n")
    app.write("app/second.py", "def second():\n    return 'second, not like the other'\n")
    added = app.commit("add both")
    app.git("mv", "app/second.py", "app/third.py")
    app.commit("second becomes third")
    app.git("mv", "app/first.py", "app/second.py")  # after that, first takes second's name
    app.commit("first becomes second")
    assert app.kg("update").code == 0
    created = app.kg("playbooks", "new", "x", "--from", added, "--dry-run")
    assert created.code == 0, created.err
    playbook = parse_playbook("playbooks/x.md", created.out.encode())
    # app/first.py is app/second.py now; app/second.py of the range is app/third.py.
    assert [s.value for s in playbook.key_files] == ["app/second.py", "app/third.py"]
    assert "# app/first.py (renamed since: app/second.py is listed instead)" in created.out
    assert "# app/second.py (renamed since: app/third.py is listed instead)" in created.out


def test_new_refuses_a_range_with_no_commits(app: Repo) -> None:
    app.write("app/one.py", "x = 1\n")
    app.commit("one")
    reversed_range = app.kg("playbooks", "new", "x", "--from", "HEAD..HEAD~1", "--dry-run")
    assert reversed_range.code == 2
    assert reversed_range.err.strip() == (
        "kgtool: error: 'HEAD..HEAD~1' selects no commits: HEAD~1 is an ancestor of HEAD; "
        "did you mean HEAD~1..HEAD?"
    )
    empty = app.kg("playbooks", "new", "x", "--from", "HEAD..HEAD", "--dry-run")
    assert empty.code == 2 and "selects no commits" in empty.err
    unknown = app.kg("playbooks", "new", "x", "--from", "nope..HEAD", "--dry-run")
    assert unknown.code == 2 and "is not a revision range" in unknown.err
    assert not (app.root / "playbooks").exists()


def test_the_hook_and_check_read_playbooks_without_loading_dataclasses(app: Repo) -> None:
    # A sixth of a hook run went into importing dataclasses (inspect, ast, dis, tokenize)
    # and making each class: every record on this path is a tuple or a plain class.
    add_playbook(app, "change-the-store", ["app/store.py::Store.save"])
    app.commit("playbook")
    assert app.kg("update").code == 0
    app.commit("map")  # the hook then finds nothing to rewrite
    script = (
        "import sys, io, contextlib\nfrom kgtool.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['-C', {str(app.root)!r}] + sys.argv[1:])\n"
        "print(code, [m for m in ('dataclasses', 'inspect') if m in sys.modules])\n"
    )
    for command in (["hooks", "run"], ["check"]):
        done = subprocess.run(
            [sys.executable, "-c", script, *command], capture_output=True, text=True, check=True
        )
        assert done.stdout.splitlines()[-1] == "0 []", (command, done.stdout, done.stderr)
