"""Runs ended from outside: SIGTERM (a CI cancel, a hook time-out) and Ctrl-C remove the
temporary worktree or index copy the run made, and what a SIGKILL leaves is removed by the
next run, unless a live run still owns it. And `hooks uninstall` never deletes a line it did
not write.

Every run here has its own temporary folder (TMPDIR), so that what is left in it is exactly
what the runs left."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GIT_ENV, PROJECT_ROOT, Repo, interruptible
from hook_helpers import APP, mapped_repo

# A hundred modules: a cold build takes about a second, long enough to be caught mid-way.
from test_faults import MODULES, module

from kgtool.integrations.git_hooks import hook_script
from kgtool.repo import WORKTREE_PREFIX
from kgtool.store import CACHE_HOME


def big_repo(make_repo) -> Repo:
    """Two commits of a hundred modules and no map: each side of a diff is built."""
    files = {f"pkg/m{i}.py": module(i) for i in range(MODULES)}
    files["pkg/__init__.py"] = ""
    files[".kgtool.yaml"] = "jobs: 2\n"
    repo = make_repo(files)
    repo.write("pkg/m1.py", module(1, 1))
    repo.commit("second")
    return repo


def temp_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir(exist_ok=True)
    return folder


def start(repo: Repo, temp: Path, *argv: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kgtool", *argv],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT), "TMPDIR": str(temp), **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )


def wait_for(found, process: subprocess.Popen[str], what: str, timeout: float = 60.0) -> None:
    """Poll until ``found()``: the run is then where the signal must land."""
    deadline = time.monotonic() + timeout
    while not found():
        assert process.poll() is None, f"the run ended before {what}: {process.stderr.read()}"
        assert time.monotonic() < deadline, f"no {what} after {timeout:g}s"
        time.sleep(0.01)


def building_in(temp: Path, prefix: str):
    """True once a run's temporary checkout holds a .kg/: its build has started."""
    return lambda: any(temp.glob(f"{prefix}*/tree/.kg"))


def ended(process: subprocess.Popen[str]) -> tuple[int, str]:
    _, err = process.communicate(timeout=60)
    return process.returncode, err


def worktrees(repo: Repo) -> list[str]:
    listed = repo.git("worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in listed.splitlines() if line.startswith("worktree ")]


def assert_nothing_left(repo: Repo, temp: Path) -> None:
    assert sorted(p.name for p in temp.iterdir()) == []
    assert worktrees(repo) == [str(repo.root)]


def block_checkouts(repo: Repo, tmp_path: Path) -> tuple[Path, Path]:
    """A post-checkout hook (``git worktree add`` runs it) that says it started, then waits
    until released: the run is caught inside ``git worktree add``, every time."""
    started, release = tmp_path / "started", tmp_path / "release"
    repo.write(
        ".git/hooks/post-checkout",
        f"#!/bin/sh\ntouch '{started}'\n"
        f"i=0\nwhile [ ! -e '{release}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n",
    )
    (repo.root / ".git/hooks/post-checkout").chmod(0o755)
    return started, release


@pytest.mark.parametrize(
    ("sig", "code", "says"),
    [(signal.SIGTERM, 143, "kgtool: terminated"), (signal.SIGINT, 130, "kgtool: interrupted")],
    ids=["TERM", "INT"],
)
def test_a_signal_while_git_adds_the_worktree_leaves_nothing(
    make_repo, tmp_path: Path, sig: int, code: int, says: str
) -> None:
    repo = make_repo({"app.py": APP})
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.commit("second")
    temp = temp_folder(tmp_path)
    started, release = block_checkouts(repo, tmp_path)
    process = start(repo, temp, "diff", "HEAD~1", "HEAD")
    try:
        wait_for(started.exists, process, "git worktree add")
        process.send_signal(sig)
        status, err = ended(process)
    finally:
        release.touch()
        process.kill()
    assert (status, err.strip()) == (code, says)
    assert_nothing_left(repo, temp)


@pytest.mark.slow
def test_sigterm_while_diff_builds_in_its_worktree_leaves_nothing(
    make_repo, tmp_path: Path
) -> None:
    repo = big_repo(make_repo)
    temp = temp_folder(tmp_path)
    process = start(repo, temp, "diff", "HEAD~1", "HEAD")
    wait_for(building_in(temp, "kgtool-worktree-"), process, "a build in a worktree")
    process.send_signal(signal.SIGTERM)
    assert ended(process) == (143, "kgtool: terminated\n")
    assert_nothing_left(repo, temp)


@pytest.mark.slow
def test_sigterm_while_a_partly_staged_hook_run_builds_leaves_nothing(
    make_repo, tmp_path: Path
) -> None:
    repo = big_repo(make_repo)
    staged, unstaged = module(2, 1), module(2, 2)
    repo.write("pkg/m2.py", staged)
    repo.git("add", "pkg/m2.py")
    repo.write("pkg/m2.py", unstaged)
    temp = temp_folder(tmp_path)
    process = start(repo, temp, "hooks", "run")
    wait_for(building_in(temp, "kgtool-index-"), process, "a build in the index copy")
    process.send_signal(signal.SIGTERM)
    assert ended(process) == (143, "kgtool: terminated\n")
    assert_nothing_left(repo, temp)
    # Nothing of the user's is lost: the staged and the unstaged edits are both where they were.
    assert repo.git("show", ":pkg/m2.py") == staged
    assert (repo.root / "pkg/m2.py").read_text() == unstaged


@pytest.mark.slow
def test_what_a_killed_diff_leaves_is_removed_by_the_next_hook_run(
    make_repo, tmp_path: Path
) -> None:
    repo = big_repo(make_repo)
    temp = temp_folder(tmp_path)
    process = start(repo, temp, "diff", "HEAD~1", "HEAD")
    wait_for(building_in(temp, "kgtool-worktree-"), process, "a build in a worktree")
    process.kill()
    process.communicate(timeout=60)
    assert [p.name for p in temp.iterdir()] != [] and len(worktrees(repo)) == 2
    after = start(repo, temp, "hooks", "run", "--stage")
    assert ended(after) == (0, "")
    assert_nothing_left(repo, temp)


def registrations(repo: Repo) -> list[str]:
    """The repository's worktree registrations (.git/worktrees/<id>), whatever git lists."""
    admin = repo.root / ".git/worktrees"
    return sorted(p.name for p in admin.iterdir()) if admin.is_dir() else []


@pytest.mark.slow
def test_a_killed_diff_keeps_its_cache_in_its_temp_folder_and_a_reboot_leaves_nothing(
    make_repo, tmp_path: Path
) -> None:
    repo = big_repo(make_repo)
    temp = temp_folder(tmp_path)
    in_git = repo.root / ".git/worktrees"

    def caching() -> bool:
        beside = temp.glob(f"{WORKTREE_PREFIX}*/{CACHE_HOME}")
        return any(in_git.glob(f"*/{CACHE_HOME}")) or any(beside)

    process = start(repo, temp, "diff", "HEAD~1", "HEAD")
    wait_for(caching, process, "a cache for the worktree's build")
    process.kill()
    process.communicate(timeout=60)
    # The cache of the worktree's build is in the temp folder, with the worktree, not in the
    # repository's git directory, where only git's own registration of the worktree is.
    assert list(in_git.glob(f"*/{CACHE_HOME}")) == []
    assert len(registrations(repo)) == 1
    # A reboot empties the temp folder: what is left in the repository the next run removes.
    for folder in temp.iterdir():
        shutil.rmtree(folder)
    after = start(repo, temp, "hooks", "run", "--stage")
    assert ended(after) == (0, "")
    assert_nothing_left(repo, temp)
    assert registrations(repo) == []


def test_a_registration_left_for_a_wiped_temp_folder_is_removed_and_no_one_elses(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write("app.py", APP)
    repo.commit("code without a map")
    temp = temp_folder(tmp_path)
    ours = temp / f"{WORKTREE_PREFIX}{dead_pid()}-abcdefgh" / "tree"
    repo.git("worktree", "add", "--detach", "-q", str(ours), "HEAD")
    # Folders on a drive that is not mounted now: the user's worktrees, kept until git prunes.
    drive = tmp_path / "drive"
    theirs = {
        "mine": drive / "mine",
        "named-like-ours": drive / f"{WORKTREE_PREFIX}{dead_pid()}-ijklmnop" / "elsewhere",
    }
    for path in theirs.values():
        repo.git("worktree", "add", "--detach", "-q", str(path), "HEAD")
    locked = temp / f"{WORKTREE_PREFIX}{dead_pid()}-qrstuvwx" / "tree"
    repo.git("worktree", "add", "--detach", "-q", "--lock", str(locked), "HEAD")
    shutil.rmtree(temp)
    shutil.rmtree(drive)
    temp.mkdir()
    before = registrations(repo)
    assert len(before) == 4
    mapped_repo(repo)
    result = repo.kg_process("hooks", "run", env={"TMPDIR": str(temp)})
    assert (result.code, result.out, result.err) == (0, "", "")
    # Only kgtool's own, unlocked: a locked registration is kept, as git keeps it.
    assert registrations(repo) == sorted(set(before) - {"tree"})
    listed = worktrees(repo)
    assert str(ours) not in listed
    assert all(str(path) in listed for path in [*theirs.values(), locked])
    # A diff leaves the user's registrations too (it pruned every missing worktree before):
    # HEAD~1 has no map, so it is built in a temporary worktree.
    assert repo.kg_process("diff", "HEAD~1", "HEAD", env={"TMPDIR": str(temp)}).code == 0
    assert registrations(repo) == sorted(set(before) - {"tree"})


# A SIGTERM that lands in a fork callback (the pool starting its workers), where Python
# ignores what a handler raises, as it does in a finalizer.
LANDS_IN_A_FORK_CALLBACK = """\
import os, signal, sys
import kgtool.raw.pool
from kgtool.cli import main

# The parse pool holds SIGTERM while it forks: let it through, so that it lands in the fork
# callback, where Python reports and drops it (what kgtool.cli's hook for that case is for).
kgtool.raw.pool.HELD = set()

def land_here():
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10000):  # the handler runs in here
        pass

os.register_at_fork(after_in_parent=land_here)
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_sigterm_python_ignores_in_a_fork_callback_still_ends_the_run(
    make_repo, tmp_path: Path
) -> None:
    repo = big_repo(make_repo)
    temp = temp_folder(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", LANDS_IN_A_FORK_CALLBACK, "diff", "HEAD~1", "HEAD"],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT), "TMPDIR": str(temp)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (143, "kgtool: terminated\n")
    assert_nothing_left(repo, temp)


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_leftovers_are_removed_only_when_the_run_that_made_them_is_gone(
    repo: Repo, tmp_path: Path
) -> None:
    mapped_repo(repo)
    temp = temp_folder(tmp_path)
    dead = dead_pid()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        gone_index = temp / f"kgtool-index-{dead}-abcdefgh"
        (gone_index / "tree").mkdir(parents=True)
        (gone_index / "index").write_bytes(b"a copy of an index")
        gone_tree = temp / f"kgtool-worktree-{dead}-ijklmnop"
        repo.git("worktree", "add", "--detach", "-q", str(gone_tree / "tree"), "HEAD")
        kept = [
            f"kgtool-index-{alive.pid}-qrstuvwx",  # its run is alive: in use
            f"kgtool-worktree-{os.getpid()}-yz012345",  # so is this one (these tests)
            "kgtool-worktree-6789abcd",  # no pid to ask about
            f"kgtool-bench-{dead}-efghijkl",  # not a name kgtool's runs make
            f"kgtool-index-{dead}-file",  # not a folder
        ]
        for name in kept[:4]:
            (temp / name / "tree").mkdir(parents=True)
        (temp / kept[4]).write_text("a file")
        (temp / f"kgtool-index-{dead}-link").symlink_to(temp / kept[0])
        kept.append(f"kgtool-index-{dead}-link")  # a symlink is never followed nor removed
        result = repo.kg_process("hooks", "run", env={"TMPDIR": str(temp)})
        assert (result.code, result.out, result.err) == (0, "", "")
        assert sorted(p.name for p in temp.iterdir()) == sorted(kept)
        assert worktrees(repo) == [str(repo.root)]
        assert (temp / kept[0] / "tree").is_dir()
    finally:
        alive.kill()
        alive.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder away takes root")
def test_a_leftover_someone_else_owns_is_not_touched(repo: Repo, tmp_path: Path) -> None:
    mapped_repo(repo)
    temp = temp_folder(tmp_path)
    theirs = temp / f"kgtool-index-{dead_pid()}-abcdefgh"
    (theirs / "tree").mkdir(parents=True)
    os.chown(theirs, 65534, 65534)
    result = repo.kg_process("hooks", "run", env={"TMPDIR": str(temp)})
    assert (result.code, result.err) == (0, "")
    assert (theirs / "tree").is_dir()


def test_a_live_run_keeps_its_worktree_while_the_next_hook_run_sweeps(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write("app.py", APP)
    repo.commit("first")
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.commit("second")
    temp = temp_folder(tmp_path)
    started, release = block_checkouts(repo, tmp_path)
    diff = start(repo, temp, "diff", "HEAD~1", "HEAD")
    try:
        wait_for(started.exists, diff, "git worktree add")
        (folder,) = temp.iterdir()
        (temp / f"kgtool-index-{dead_pid()}-abcdefgh" / "tree").mkdir(parents=True)
        sweep = repo.kg_process("hooks", "run", "--stage", env={"TMPDIR": str(temp)})
        assert (sweep.code, sweep.err) == (0, "")
        assert list(temp.iterdir()) == [folder] and len(worktrees(repo)) == 2
        assert (folder / "tree").is_dir()
        release.touch()
        status, err = ended(diff)
    finally:
        release.touch()
        diff.kill()
    assert (status, err) == (0, "")
    assert_nothing_left(repo, temp)


def test_uninstall_keeps_a_hook_holding_lines_kgtool_did_not_write(repo: Repo) -> None:
    assert repo.kg("hooks", "install").code == 0
    hook = repo.root / ".git/hooks/pre-commit"
    mine = hook.read_text() + "echo 'my own line'\n"
    added = f"line {mine.count(chr(10))}: echo 'my own line'"
    hook.write_text(mine)
    result = repo.kg("hooks", "uninstall")
    assert result.code == 1
    lines = result.out.strip().splitlines()
    assert f"removed {repo.root / '.git/hooks/pre-merge-commit'}" in lines
    (left,) = [line for line in lines if "pre-commit" in line and "pre-merge" not in line]
    assert left.startswith(f"left {hook} alone") and added in left, left
    assert hook.read_text() == mine
    # Reinstalling over it would lose the line as surely: refused too, unless it is set aside.
    refused = repo.kg("hooks", "install")
    assert refused.code == 2 and added in refused.err, refused.err
    assert hook.read_text() == mine
    assert repo.kg("hooks", "install", "--force").code == 0
    assert (repo.root / ".git/hooks/pre-commit.kgtool-saved").read_text() == mine
    # kgtool's own script with its settings changed by hand (docs/hooks.md: set stage=--review) is
    # still kgtool's, and removed.
    hook.write_text(hook_script("pre-commit").replace("stage=--stage", "stage=--review"))
    (repo.root / ".git/hooks/pre-commit.kgtool-saved").unlink()
    removed = repo.kg("hooks", "uninstall")
    assert removed.code == 0, removed.out
    assert not hook.exists()
    # A command written on a setting's line is a person's, not a value: kept.
    assert repo.kg("hooks", "install").code == 0
    hook.write_text(hook.read_text().replace("stage=--stage", "stage=''; echo my-own-step"))
    kept = repo.kg("hooks", "uninstall")
    assert kept.code == 1 and "stage=''; echo my-own-step" in kept.out, kept.out
    assert "echo my-own-step" in hook.read_text()


# Every script kgtool's `hooks install` has written, as it wrote them: a hook an older kgtool
# installed is kgtool's, not a user's, and a change to today's script must not make it a
# user's (when the script changes, its text as it was goes here).
SCRIPT_4BF28C1 = """\
#!/bin/sh
# kgtool-hook: pre-commit
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's README, "Plain git hooks".

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0.kgtool-chained" ]; then
    "$0.kgtool-chained" "$@" || exit $?
fi

# --stage: stage what kgtool rewrote under .kg/, so that the commit goes through in one
# step. Empty: the commit stops when .kg/ changed, as with a formatter (git add .kg, commit
# again).
args=--stage
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python=/usr/bin/python3

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run $args
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run $args
fi
echo "kgtool hook: kgtool is not installed (pip install kgtool); .kg/ was not refreshed" >&2
exit 1
"""
SCRIPT_3A04BD7 = """\
#!/bin/sh
# kgtool-hook: pre-commit
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's README, "Plain git hooks".

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0.kgtool-chained" ]; then
    "$0.kgtool-chained" "$@" || exit $?
fi

# --stage: stage what kgtool rewrote under .kg/, so that the commit goes through in one
# step. Empty: the commit stops when .kg/ changed, as with a formatter (git add .kg, commit
# again).
stage=--stage
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python=/usr/bin/python3

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run ${stage:+"$stage"}
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run ${stage:+"$stage"}
fi
echo "kgtool hook: kgtool is not installed (pip install kgtool); .kg/ was not refreshed" >&2
exit 1
"""
SCRIPT_8F52D19 = """\
#!/bin/sh
# kgtool-hook: pre-commit
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's README, "Plain git hooks".

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0.kgtool-chained" ]; then
    "$0.kgtool-chained" "$@" || exit $?
fi

# --stage (the default): stage what kgtool rewrote under .kg/ with the commit, which goes
# through in one step. --review: the commit stops when .kg/ changed, for a person to read
# the change first (git add .kg, commit again).
stage=--stage
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python=/usr/bin/python3

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run ${stage:+"$stage"}
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run ${stage:+"$stage"}
fi
echo "kgtool hook: kgtool is not installed (pip install kgtool); .kg/ was not refreshed" >&2
exit 1
"""


@pytest.mark.parametrize(
    "script",
    [SCRIPT_4BF28C1, SCRIPT_3A04BD7, SCRIPT_8F52D19],
    ids=["4bf28c1", "3a04bd7", "8f52d19"],
)
def test_a_hook_an_older_kgtool_wrote_is_kgtools_and_a_line_added_to_it_is_the_users(
    repo: Repo, script: str
) -> None:
    hook = repo.root / ".git/hooks/pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(script)
    hook.chmod(0o755)
    installed = repo.kg("hooks", "install")
    assert installed.code == 0, installed.err
    assert hook.read_text() == hook_script("pre-commit", python=sys.executable)  # today's
    assert not (repo.root / ".git/hooks/pre-commit.kgtool-saved").exists()

    hook.write_text(script)
    removed = repo.kg("hooks", "uninstall")
    assert removed.code == 0, removed.out
    assert not hook.exists()

    # The user's own line in it, after kgtool's lines or among them, is still named and kept.
    for mine, where in [
        (script + "echo 'my own line'\n", "line 28: echo 'my own line'"),
        (script.replace("\nfi\n", "\nfi\necho 'my own line'\n", 1), "line 12: echo 'my own line'"),
    ]:
        hook.write_text(mine)
        refused = repo.kg("hooks", "install")
        assert refused.code == 2 and f"({where})" in refused.err, refused.err
        left = repo.kg("hooks", "uninstall")
        assert left.code == 1 and f"({where})" in left.out, left.out
        assert hook.read_text() == mine
