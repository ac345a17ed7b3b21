"""Missing pointers: what git history, layer 1 and the file list say they became; and fix."""

from __future__ import annotations

import pytest
from conftest import Repo
from playbook_helpers import add_playbook, line_of, playbook_text


def short(repo: Repo, rev: str = "HEAD") -> str:
    return repo.git("rev-parse", "--short=7", rev).strip()


@pytest.fixture
def renamed_twice(repo: Repo) -> Repo:
    """args.ts moves twice, in two commits, with other commits around it."""
    repo.write_files(
        {"args.ts": "export function parse() {}\n", "main.py": "def main():\n    pass\n"}
    )
    repo.commit("initial")
    repo.git("mv", "args.ts", "cli-args.ts")
    repo.commit("rename")
    repo.write("main.py", "def main():\n    return 1\n")
    repo.commit("unrelated")
    repo.write("src/cli/.keep", "")
    repo.git("add", "src/cli/.keep")
    repo.git("mv", "cli-args.ts", "src/cli/options.ts")
    repo.commit("move")
    assert repo.kg("update").code == 0
    return repo


def test_a_rename_chain_across_commits_is_followed_to_the_file_now(renamed_twice: Repo) -> None:
    repo = renamed_twice
    path = add_playbook(repo, "p", ["args.ts", "main.py"])
    check = repo.kg("playbooks", "check")
    assert check.code == 1
    line = line_of(repo, path, "- args.ts")
    first = short(repo, "HEAD~2")
    assert (
        f"{path}:{line}: error: P411 key file 'args.ts' does not resolve (missing); it was "
        "renamed to "
        f"src/cli/options.ts in {short(repo)} (by way of cli-args.ts in {first})"
    ) in check.out


def test_fix_applies_a_certain_rename_and_keeps_every_other_byte(renamed_twice: Repo) -> None:
    repo = renamed_twice
    path = add_playbook(repo, "p", ["args.ts", "main.py"])
    full = repo.root / path
    # CRLF line ends, a comment on the pointer's line and a BOM: all must survive.
    original = "\ufeff" + full.read_text().replace("\n", "\r\n").replace(
        "  - args.ts", "  - args.ts   # the parser"
    )
    full.write_bytes(original.encode("utf-8"))
    before = full.read_bytes()

    dry = repo.kg("playbooks", "fix", "--dry-run")
    assert dry.code == 0, dry.out
    assert "-  - args.ts   # the parser" in dry.out
    assert "+  - src/cli/options.ts   # the parser" in dry.out
    assert "would rewrite 1 pointer in 1 playbook(s)" in dry.out
    assert full.read_bytes() == before

    done = repo.kg("playbooks", "fix")
    assert done.code == 0, done.out
    after = full.read_bytes()
    assert after == before.replace(b"  - args.ts ", b"  - src/cli/options.ts ", 1)
    # The body mentions args.ts too: it is prose, not a pointer, and stays as written.
    assert b"Edit `args.ts` first." in after
    assert repo.kg("playbooks", "check").code == 0
    assert "rewrote 0 pointers" in repo.kg("playbooks", "fix").out


def test_fix_keeps_the_quoting_style_of_the_pointer(renamed_twice: Repo) -> None:
    repo = renamed_twice
    path = add_playbook(repo, "p", ["'args.ts'", '"main.py"'])
    assert repo.kg("playbooks", "fix").code == 0
    assert "  - 'src/cli/options.ts'\n" in (repo.root / path).read_text()
    assert '  - "main.py"\n' in (repo.root / path).read_text()


def test_uncommitted_rename_is_seen_before_the_commit_exists(repo: Repo) -> None:
    repo.write_files({"a.py": "def run():\n    pass\n"})
    repo.commit("initial")
    repo.git("mv", "a.py", "b.py")
    path = add_playbook(repo, "p", ["a.py::run"])
    check = repo.kg("playbooks", "check")
    assert "it was renamed to b.py in the working tree (uncommitted)" in check.out
    assert repo.kg("playbooks", "fix").code == 0
    assert "  - b.py::run\n" in (repo.root / path).read_text()


def test_a_symbol_moved_to_another_file_is_found_by_name(repo: Repo) -> None:
    repo.write_files(
        {
            "shop/models.py": "class Cart:\n    def total(self):\n        pass\n",
            "shop/pricing.py": "X = 1\n",
        }
    )
    repo.commit("initial")
    repo.write_files(
        {
            "shop/models.py": "class Cart:\n    pass\n",
            "shop/pricing.py": "def total(cart):\n    pass\n",
        }
    )
    repo.commit("move total")
    assert repo.kg("update").code == 0
    path = add_playbook(repo, "p", ["shop/models.py::Cart.total"])
    check = repo.kg("playbooks", "check")
    assert check.code == 1
    line = line_of(repo, path, "Cart.total")
    assert (
        f"{path}:{line}: error: P411 key file 'shop/models.py::Cart.total' does not resolve "
        "(missing): "
        "shop/models.py defines no 'Cart.total'; 'Cart.total' is now defined as "
        "shop/pricing.py::total"
    ) in check.out
    # Where a symbol went is a guess, not a certainty: fix leaves it to a person.
    fix = repo.kg("playbooks", "fix")
    assert fix.code == 1
    assert "rewrote 0 pointers" in fix.out


def test_renamed_file_whose_symbol_is_still_there_is_a_certain_fix(repo: Repo) -> None:
    repo.write_files({"old.py": "class Parser:\n    def parse(self):\n        pass\n"})
    repo.commit("initial")
    repo.git("mv", "old.py", "new.py")
    repo.commit("rename")
    path = add_playbook(repo, "p", ["old.py::Parser.parse"])
    assert repo.kg("playbooks", "fix").code == 0
    assert "  - new.py::Parser.parse\n" in (repo.root / path).read_text()


def test_deleted_file_with_history_names_the_commit(repo: Repo) -> None:
    repo.write_files({"keep.py": "x = 1\n", "legacy/config_loader.py": "x = 2\n"})
    repo.commit("initial")
    repo.git("rm", "-q", "legacy/config_loader.py")
    repo.commit("drop legacy")
    repo.write("config_loader2.py", "x = 3\n")
    repo.commit("new loader")
    add_playbook(repo, "p", ["legacy/config_loader.py"])
    check = repo.kg("playbooks", "check")
    assert check.code == 1
    assert (
        f"it was deleted in {short(repo, 'HEAD~1')}; nearest existing path: config_loader2.py"
        in check.out
    )
    assert repo.kg("playbooks", "fix").code == 1  # a deletion has no certain replacement


def test_deleted_file_without_history_suggests_the_nearest_path(repo: Repo) -> None:
    repo.write_files({"src/handlers/user_handler.py": "x = 1\n"})
    repo.commit("initial")
    add_playbook(repo, "p", ["src/handlers/users_handler.py", "totally_unknown.txt"])
    check = repo.kg("playbooks", "check")
    assert (
        "'src/handlers/users_handler.py' does not resolve (missing); no file by that name in "
        "git history; nearest existing path: src/handlers/user_handler.py"
    ) in check.out
    assert (
        "'totally_unknown.txt' does not resolve (missing); no file by that name in git history\n"
        in check.out
    )


def test_a_path_renamed_twice_from_two_different_files_is_not_certain(repo: Repo) -> None:
    repo.write_files({"a.py": "x = 1\n"})
    repo.commit("one")
    repo.git("mv", "a.py", "b.py")
    repo.commit("two")
    repo.write("a.py", "y = 'something else entirely'\n")
    repo.commit("three")
    repo.git("mv", "a.py", "c.py")
    repo.commit("four")
    path = add_playbook(repo, "p", ["a.py"])
    check = repo.kg("playbooks", "check")
    assert f"it was renamed to c.py in {short(repo)}" in check.out
    assert repo.kg("playbooks", "fix").code == 1
    assert "  - a.py\n" in (repo.root / path).read_text()


def test_a_file_renamed_away_and_back_resolves_again(repo: Repo) -> None:
    repo.write_files({"a.py": "x = 1\n"})
    repo.commit("one")
    repo.git("mv", "a.py", "b.py")
    repo.commit("two")
    repo.git("mv", "b.py", "a.py")
    repo.commit("three")
    add_playbook(repo, "p", ["a.py", "b.py"])
    check = repo.kg("playbooks", "check")
    assert "'a.py'" not in check.out
    assert (
        f"'b.py' does not resolve (missing); it was renamed to a.py in {short(repo)}" in check.out
    )


def test_fix_in_a_flow_list_rewrites_one_pointer_and_reports_the_other(repo: Repo) -> None:
    repo.write_files({"old_name.py": "x = 1\n", "keep.py": "y = 2\n"})
    repo.commit("initial")
    repo.git("mv", "old_name.py", "new_name.py")
    repo.commit("rename")
    path = "playbooks/p.md"
    text = playbook_text(["keep.py"]).replace(
        "key_files:\n  - keep.py", "key_files: [old_name.py, gone_forever.py, keep.py]"
    )
    repo.write(path, text, dedent=False)
    fix = repo.kg("playbooks", "fix")
    assert fix.code == 1
    assert "rewrote 1 pointer in 1 playbook(s)" in fix.out
    assert "key file 'gone_forever.py' does not resolve (missing)" in fix.out
    assert "key file 'old_name.py'" not in fix.out.split("rewrote")[1]
    written = (repo.root / path).read_text()
    assert written == text.replace("[old_name.py,", "[new_name.py,")


def test_list_json_carries_evidence_as_text(repo: Repo) -> None:
    import json

    repo.write_files({"a.py": "x = 1\n"})
    repo.commit("initial")
    add_playbook(repo, "p", ["a.py"], extra="evidence:\n  - pr: 12\n    merged: 2026-01-02")
    document = json.loads(repo.kg("playbooks", "list", "--json").out)
    assert document["playbooks"][0]["evidence"] == [{"pr": 12, "merged": "2026-01-02"}]


def test_history_that_cannot_be_read_still_gives_the_verdict(repo: Repo, tmp_path) -> None:
    """A partial clone whose remote is gone: renames need blobs it does not have."""
    body = "".join(f"def f{i}():\n    return {i}\n" for i in range(20))
    repo.write_files({"old_name.py": body, "main.py": "def main():\n    pass\n"})
    repo.commit("initial")
    repo.git("mv", "old_name.py", "new_name.py")
    repo.write("new_name.py", body + "def extra():\n    pass\n")  # not an exact rename
    repo.commit("rename and edit")
    remote = tmp_path / "remote.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(remote))
    Repo(remote).git("config", "uploadpack.allowFilter", "true")
    clone = Repo(tmp_path / "partial")
    repo.git(
        "-c", "protocol.file.allow=always", "clone", "-q", "--filter=blob:none",
        f"file://{remote}", str(clone.root),
    )  # fmt: skip
    remote.rename(tmp_path / "gone.git")
    add_playbook(clone, "x", ["old_name.py"])
    result = clone.kg("playbooks", "check")
    assert result.code == 1, result.err  # refused, as anywhere: not an error of kgtool's
    assert "key file 'old_name.py' does not resolve (missing); git history could not be read" in (
        result.out
    )
    assert "from promisor remote" in result.out
