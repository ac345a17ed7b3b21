"""The CLI driven with hostile input: each case gets its exit code and one clear line, never a
traceback, never a write outside the repository, and the next normal run writes the bytes of a
clean build."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import (
    GIT_ENV,
    PROJECT_ROOT,
    SETTINGS_ERROR_LINE,
    Repo,
    Result,
    assert_one_line_error,
    run_process,
)

SMALL = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n",
    "pkg/b.py": "from pkg.a import f\n\nf()\n",
}


def small(make_repo) -> Repo:
    return make_repo(SMALL)


def assert_recovers(repo: Repo) -> None:
    """The next normal run succeeds with no manual step and writes what a clean build writes."""
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert repo.kg_bytes() == repo.clean_build()


def test_bad_directory_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    missing = run_process(["-C", str(tmp_path / "nowhere"), "update"], cwd=tmp_path)
    assert_one_line_error(missing, says="no such directory")
    a_file = run_process(["-C", str(tmp_path / "file"), "update"], cwd=tmp_path)
    assert_one_line_error(a_file, says="not a directory")
    outside = run_process(["update"], cwd=tmp_path)
    assert_one_line_error(outside, says="not inside a git repository")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_git_missing_from_path_is_one_line(make_repo, tmp_path: Path) -> None:
    repo = small(make_repo)
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    result = repo.kg_process("update", env={"PATH": str(empty)})
    assert_one_line_error(result, says="git is not installed")
    assert not (repo.root / ".kg").exists()


@pytest.mark.parametrize("argv", [["update"], ["playbooks", "list", "--json"], ["check"]])
def test_closed_stdout_is_quiet_and_keeps_the_work(make_repo, argv: list[str]) -> None:
    repo = small(make_repo)
    env = {**GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "kgtool", *argv],
        cwd=repo.root,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before kgtool prints a word
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141, err
    assert err == ""
    if argv == ["update"]:
        assert repo.kg_bytes() == repo.clean_build()


def test_bare_repository_is_one_line(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "b.git")], check=True)
    result = run_process(["-C", str(tmp_path / "b.git"), "update"], cwd=tmp_path)
    assert_one_line_error(result, says="bare repository")
    assert not (tmp_path / "b.git" / ".kg").exists()


def test_git_dir_naming_another_repository_writes_nowhere(make_repo, tmp_path: Path) -> None:
    repo = small(make_repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_process(["update"], cwd=elsewhere, env={"GIT_DIR": str(repo.root / ".git")})
    assert_one_line_error(result, says="GIT_DIR")
    assert list(elsewhere.iterdir()) == []
    assert not (repo.root / ".kg").exists()
    # With the work tree named too, git and kgtool agree on where the repository is.
    named = run_process(
        ["update"],
        cwd=elsewhere,
        env={"GIT_DIR": str(repo.root / ".git"), "GIT_WORK_TREE": str(repo.root)},
    )
    assert named.code == 0, named.err
    assert list(elsewhere.iterdir()) == []
    assert_recovers(repo)


def test_stray_temp_files_of_a_killed_run_are_removed_and_ignored(make_repo) -> None:
    repo = small(make_repo)
    assert repo.kg("update").code == 0
    (repo.root / ".kg" / ".gitignore").write_text("cache/\n")  # as an older kgtool wrote it
    strays = ("raw/.pkg.jsonl.k1ll3d.tmp", "communities/.c1.md.x.tmp")
    for name in strays:
        (repo.root / ".kg" / name).write_bytes(b"half a file")
    (repo.cache_dir / ".raw.manifest.y.tmp").write_bytes(b"half a file")
    assert repo.kg("update").code == 0
    assert sorted(p.name for p in (repo.root / ".kg").rglob("*.tmp")) == []
    assert sorted(p.name for p in repo.cache_dir.rglob("*.tmp")) == []
    assert (repo.root / ".kg" / ".gitignore").read_text() == "cache/\n.*.tmp\n"
    (repo.root / ".kg" / "raw" / ".pkg.jsonl.again.tmp").write_bytes(b"x")
    assert repo.git("status", "--porcelain", "--untracked-files=all", ".kg").count(".tmp") == 0
    (repo.root / ".kg" / "raw" / ".pkg.jsonl.again.tmp").unlink()
    assert_recovers(repo)


@pytest.mark.parametrize(
    "link", [".kg", ".kg/communities", ".kg/cache", ".kg/raw", ".kg/raw/pkg.jsonl"]
)
def test_symlinks_under_kg_are_refused(make_repo, tmp_path: Path, link: str) -> None:
    repo = small(make_repo)
    assert repo.kg("update").code == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("not kgtool's\n")
    full = repo.root / link
    if full.is_dir():
        shutil.rmtree(full)
    elif os.path.lexists(full):  # .kg/cache/ is no longer made: a link there is new
        full.unlink()
    full.symlink_to(outside if not link.endswith(".jsonl") else outside / "secret")
    for argv in (["update"], ["check"], ["update", "--check"]):
        assert_one_line_error(repo.kg(*argv), says="is a symlink")
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (outside / "secret").read_text() == "not kgtool's\n"
    full.unlink()
    assert_recovers(repo)


def test_kg_as_a_regular_file_is_one_line(make_repo) -> None:
    repo = small(make_repo)
    (repo.root / ".kg").write_text("oops")
    assert_one_line_error(repo.kg("update"), says=".kg is not a folder")
    (repo.root / ".kg").unlink()
    (repo.root / ".kg").mkdir()
    # The cache is not in .kg/ (see test_hostile_cache.py): a file there is nobody's business.
    (repo.root / ".kg" / "cache").write_text("oops")
    assert repo.kg("update").code == 0
    (repo.root / ".kg" / "cache").unlink()
    assert_recovers(repo)


def no_traceback(result: Result, codes: tuple[int, ...]) -> None:
    """An allowed exit code, no traceback, at most one line on stderr; and a refusal (2) is
    that one clear line, never a silent failure. Settings are the exception: every mistake
    of the file is its own line, at its own line of the file."""
    assert result.code in codes, (result.code, result.out, result.err)
    lines = result.err.strip().splitlines()
    if len(lines) > 1 and all(SETTINGS_ERROR_LINE.match(line) for line in lines):
        assert result.code == 2
        return
    if result.code == 2:
        assert_one_line_error(result)
    assert "Traceback" not in result.err and len(lines) <= 1, result.err


YAML_BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9 if prev else ['x'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefg"], "abcdefgh", strict=True)
)

RAW_SHARD = "raw/pkg.jsonl"  # the shard of SMALL's files
CORRUPTIONS = {
    "raw-random": (RAW_SHARD, lambda old: bytes(random.Random(7).randrange(256) for _ in old)),
    "raw-truncated": (RAW_SHARD, lambda old: old[: len(old) // 2]),
    "raw-empty": (RAW_SHARD, lambda old: b""),
    "raw-wrong-records": (RAW_SHARD, lambda old: b'{"rec":"node"}\n[1]\n"x"\n{"rec":5}\n'),
    "raw-conflict": (RAW_SHARD, lambda old: b"<<<<<<< HEAD\n" + old + b"=======\n>>>>>>> b\n"),
    "raw-nul": (RAW_SHARD, lambda old: old.replace(b"\n", b"\0\n", 3)),
    "communities-truncated": ("communities.json", lambda old: old[:100]),
    "communities-wrong-types": (
        "communities.json",
        lambda old: old.replace(b'"members": [', b'"members": 5, "x": [', 1).replace(
            b'"retired": {}', b'"retired": [1]'
        ),
    ),
    "communities-list": ("communities.json", lambda old: b"[]"),
    "communities-next-id": (
        "communities.json",
        lambda old: old.replace(b'"next_id": ', b'"next_id": "x", "y": '),
    ),
    "cache-manifest-truncated": ("cache/raw.manifest", lambda old: old[: len(old) // 2]),
    "cache-shard-random": ("cache/raw.cache.00", lambda old: random.Random(3).randbytes(500)),
    "ontology-bad-yaml": ("ontology.yaml", lambda old: b"communities: [\n"),
    "ontology-list": ("ontology.yaml", lambda old: b"- 1\n"),
    "ontology-bomb": ("ontology.yaml", lambda old: YAML_BOMB.encode()),
    "ontology-binary": ("ontology.yaml", lambda old: b"\xff\xfe\0"),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_corrupted_kg_files_are_one_line_and_recoverable(make_repo, case: str) -> None:
    repo = small(make_repo)
    assert repo.kg("update").code == 0
    name, damage = CORRUPTIONS[case]
    cached = name.removeprefix("cache/")  # the local cache lives in the git directory
    path = repo.cache_dir / cached if cached != name else repo.root / ".kg" / name
    path.write_bytes(damage(path.read_bytes() if path.exists() else b""))
    for argv in (
        ["check"],
        ["update", "--check"],
        ["playbooks", "list", "--json"],
        ["diff"],
        ["ci"],
        ["mine-playbooks", "--dry-run"],
    ):
        no_traceback(repo.kg(*argv), (0, 1, 2))
    result = repo.kg("update")
    no_traceback(result, (0, 2))
    if result.code == 2:  # refused in one line naming the file: set it right (here: delete it)
        assert f".kg/{name}" in result.err, result.err
        path.unlink()
    elif name == "ontology.yaml":
        path.unlink()  # layer 3 is not rebuilt by update; a clean build has none
    assert_recovers(repo)


def test_non_utf8_file_name_is_left_out_with_a_line(make_repo) -> None:
    repo = small(make_repo)
    name = os.fsdecode(b"bad\xff name.py")
    (repo.root / name).write_text("def f():\n    pass\n")
    repo.write("ok.py", "x = 1\n")
    repo.commit()
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert "left out (file name is not UTF-8): bad\\xff name.py" in result.out
    assert "ok.py" in repo.nodes()
    for argv in (["check"], ["update", "--check"], ["playbooks", "check"], ["diff", "HEAD"]):
        no_traceback(repo.kg(*argv), (0,))
    assert_recovers(repo)


EVERY_COMMAND = [
    ["update", "--check"],
    ["check"],
    ["playbooks", "check"],
    ["playbooks", "list", "--json"],
    ["diff", "HEAD"],
    ["ci"],
    ["mine-playbooks", "--dry-run"],
    ["update"],
]


def playbook(key_files: str) -> str:
    return (
        "---\nintent: x\nconcepts: []\n"
        f"key_files: {key_files}\n"
        "validation: [x]\npitfalls: [x]\nrollback: x\n---\n"
    )


HOSTILE_FILES: dict[str, dict[str, str | bytes]] = {
    "config-yaml-bomb": {".kgtool.yaml": YAML_BOMB},
    "config-binary": {".kgtool.yaml": b"\xff\xfe\0"},
    "config-tab": {".kgtool.yaml": "jobs:\t- 1\n\t"},
    "config-conflict": {".kgtool.yaml": "<<<<<<< HEAD\njobs: 1\n=======\njobs: 2\n>>>>>>> b\n"},
    "pyproject-broken": {"pyproject.toml": "[tool.kgtool\n"},
    "pyproject-not-a-table": {"pyproject.toml": "[tool]\nkgtool = 5\n"},
    "playbook-yaml-bomb": {"playbooks/p.md": "---\n" + YAML_BOMB + "intent: x\n---\n"},
    "playbook-bomb-in-fields": {
        "playbooks/p.md": playbook("[*e]").replace("---\n", "---\n" + YAML_BOMB.split("f:")[0], 1)
    },
    "playbook-binary": {"playbooks/p.md": b"---\n\xff\0\n---\n"},
    "playbook-bad-yaml": {"playbooks/p.md": "---\nintent: [\n---\n"},
    "playbook-wrong-types": {
        "playbooks/p.md": "---\nintent: 5\nconcepts: {a: 1}\nkey_files: [[1]]\n"
        "validation: null\npitfalls: 3\nrollback: [1]\n---\n"
    },
    "playbook-hostile-pointers": {
        "playbooks/p.md": playbook(
            "['.git/config', '.git/', '/etc/passwd', '../x', '.kg/raw.jsonl', 'a.py::', "
            "'::x', 'a.py::x::y', ' ', '-rf', '--help', 'ünï.py', \"a\\0b\"]"
        )
    },
    "unusual-names": {
        "with space.py": "def f():\n    pass\n",
        "ünï/cödé.py": "def g():\n    pass\n",
        "-rf.py": "x = 1\n",
        "--help.py": "x = 1\n",
        "new\nline.py": "x = 1\n",
        'quo"te.py': "x = 1\n",
        "back\\slash.py": "x = 1\n",
        "tab\tname.py": "x = 1\n",
    },
    "nul-binary-odd-encodings": {
        "nul.py": b"x = 1\0\n",
        "blob.dat": bytes(range(256)) * 10,
        "late-nul.py": b"x = 1\n" * 5000 + b"\0",
        "bom.py": b"\xef\xbb\xbfdef f():\n    pass\n",
        "latin1.py": b"# \xe9\nx = 1\n",
        "crlf.py": b"def f():\r\n    pass\r\n",
        "empty.py": b"",
    },
    "huge-file": {"huge.py": "x = 1\n" * 200_000},
    "conflict-markers-in-source": {
        "c.py": "<<<<<<< HEAD\ndef f():\n    pass\n=======\ndef g():\n    pass\n>>>>>>> b\n"
    },
}


@pytest.mark.parametrize("case", sorted(HOSTILE_FILES))
def test_hostile_files_get_one_line_at_most_and_recover(make_repo, tmp_path: Path, case: str):
    repo = make_repo({**SMALL, **HOSTILE_FILES[case]})
    outside_before = sorted(p.name for p in tmp_path.iterdir())
    for argv in EVERY_COMMAND:
        no_traceback(repo.kg(*argv), (0, 1, 2))
    assert sorted(p.name for p in tmp_path.iterdir()) == outside_before
    if case.startswith(("config", "pyproject")):
        refused = repo.kg("update")
        assert refused.code == 2, refused.err
        assert all(SETTINGS_ERROR_LINE.match(line) for line in refused.err.splitlines())
        for name in (".kgtool.yaml", "pyproject.toml"):
            (repo.root / name).unlink(missing_ok=True)
    assert_recovers(repo)


@pytest.mark.slow
def test_repository_shapes(make_repo, tmp_path: Path) -> None:
    update_first = [["update"], *EVERY_COMMAND]
    empty = make_repo()
    for argv in update_first:
        result = empty.kg(*argv)
        if argv[0] in ("diff", "ci", "mine-playbooks"):  # history is what they read
            assert_one_line_error(result, says="no commits yet")
        else:
            no_traceback(result, (0,))
    staged = make_repo({"a.py": "x = 1\n"}, commit=False)
    staged.git("add", "-A")
    assert staged.kg("update").code == 0 and "a.py" in staged.nodes()
    assert_recovers(staged)

    base = make_repo(SMALL)
    base.write("pkg/c.py", "from pkg.b import f\n")
    base.commit("second")
    shallow = Repo(tmp_path / "shallow")
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{base.root}", str(shallow.root)],
        check=True,
    )
    detached = Repo(tmp_path / "detached")
    subprocess.run(["git", "clone", "-q", str(base.root), str(detached.root)], check=True)
    detached.git("checkout", "-q", "--detach", "HEAD~1")
    worktree = Repo(tmp_path / "worktree")
    base.git("worktree", "add", "-q", "--detach", str(worktree.root), "HEAD~1")
    superproject = make_repo({"m.py": "x = 1\n"})
    add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(base.root), "sub"]
    superproject.git(*add)
    superproject.commit("submodule")
    submodule = Repo(superproject.root / "sub")
    for repo in (shallow, detached, worktree, superproject, submodule):
        for argv in update_first:
            result = repo.kg(*argv)
            if repo is shallow and argv[0] in ("ci", "mine-playbooks"):
                no_traceback(result, (0, 1, 2))  # history is cut: they may refuse, in a line
            else:
                no_traceback(result, (0,))
        assert_recovers(repo)
    assert superproject.nodes()["sub"]["status"] == "skipped:submodule"
    # A worktree's lock and files are its own: the main checkout gained nothing.
    assert not (base.root / ".kg").exists()


@pytest.mark.parametrize("name", [".kg/raw/pkg.jsonl", ".kg/communities.json", ".git/kgtool.lock"])
def test_a_folder_where_kgtool_expects_a_file_is_one_line(make_repo, name: str) -> None:
    repo = small(make_repo)
    assert repo.kg("update").code == 0
    full = repo.root / name
    full.unlink(missing_ok=True)
    full.mkdir()
    result = repo.kg("update")
    # In the folders where kgtool writes only files, the folder is named as such; the
    # document, read within its bound, is named by its place in the repository.
    inside = name.startswith(".kg/raw/")
    says = f"{name} is a folder where kgtool writes files" if inside else f"{full}: is a directory"
    if name == ".kg/communities.json":
        says = f"{name}: is not a regular file: delete it"
    assert_one_line_error(result, says=says)
    full.rmdir()
    assert_recovers(repo)


def test_playbooks_through_symlinks_out_of_the_repository_are_not_read(
    make_repo, tmp_path: Path
) -> None:
    repo = small(make_repo)
    secret = tmp_path / "secret.md"
    secret.write_text("---\nintent: the runner's secret\n---\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo.root / "playbooks").mkdir()
    (repo.root / "playbooks" / "leak.md").symlink_to(secret)
    repo.commit("a playbook that is a symlink")
    assert repo.kg("update").code == 0
    check = repo.kg("playbooks", "check")
    assert check.code == 1
    assert (
        "playbooks/leak.md: error: P401 leads outside the repository (a symlink); not read"
        in check.out
    )
    assert "secret" not in check.out + check.err
    shutil.rmtree(repo.root / "playbooks")
    (repo.root / "playbooks").symlink_to(elsewhere)
    assert_one_line_error(repo.kg("playbooks", "new", "x"), says="leads outside the repository")
    assert list(elsewhere.iterdir()) == []
