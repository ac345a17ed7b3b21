"""The pre-commit hooks, installed and run by pre-commit itself from this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import GIT_ENV, Repo
from hook_helpers import APP, committed_kg_is_fresh, mapped_repo, partially_stage, symbols

KGTOOL_CHECKOUT = Path(__file__).resolve().parent.parent
NEEDS_CHECKOUT = pytest.mark.skipif(
    not (KGTOOL_CHECKOUT / ".git").exists(), reason="needs kgtool's git checkout"
)
# Each test runs pre-commit, which runs kgtool in its own environment: seconds per test, and
# the first one of a run pip-installs kgtool there.
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class HookSource:
    """This checkout as pre-commit installs it, and the one PRE_COMMIT_HOME of a test run."""

    repo: Path
    rev: str
    home: Path


@pytest.fixture(scope="session")
def hook_source(tmp_path_factory: pytest.TempPathFactory) -> HookSource:
    """One copy of this checkout (its working tree as it is, committed) and one pre-commit
    home for the whole run: pre-commit pip-installs kgtool once, on the first hook run, and
    every later run reuses that environment. (``pre-commit try-repo`` would install it again
    on every call: it gives each call a new temporary home.)"""
    base = tmp_path_factory.mktemp("hook-source")
    source = Repo(base / "kgtool")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=KGTOOL_CHECKOUT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for relative in filter(None, listed.split("\0")):
        if (KGTOOL_CHECKOUT / relative).is_file():
            target = source.root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(KGTOOL_CHECKOUT / relative, target)
    source.git("init", "-q", "-b", "main")
    rev = source.commit("kgtool as tested")
    return HookSource(source.root, rev, base / "pre-commit-home")


def hook_config(repo: Repo, hook_source: HookSource, hook: str) -> Path:
    """A pre-commit configuration of ``hook`` from this checkout, outside the repository."""
    config = repo.root.parent / f"pre-commit-config-{repo.root.name}.yaml"
    config.write_text(
        f"repos:\n- repo: {hook_source.repo}\n  rev: {hook_source.rev}\n  hooks:\n  - id: {hook}\n"
    )
    return config


def install_hook(repo: Repo, hook_source: HookSource, hook: str) -> None:
    """``pre-commit install``: git's pre-commit hook runs ``hook`` from this checkout."""
    subprocess.run(
        [
            *(sys.executable, "-m", "pre_commit", "install"),
            "--config",
            str(hook_config(repo, hook_source, hook)),
        ],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(hook_source.home)},
        check=True,
        capture_output=True,
    )


def git_commit(
    repo: Repo, hook_source: HookSource, message: str
) -> subprocess.CompletedProcess[str]:
    """``git commit`` as a user runs it, through the hooks ``install_hook`` put in place."""
    return subprocess.run(
        ["git", "commit", "-m", message],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(hook_source.home)},
        capture_output=True,
        text=True,
        timeout=900,
    )


def run_hook(
    repo: Repo, hook_source: HookSource, hook: str, all_files: bool = True
) -> subprocess.CompletedProcess[str]:
    """pre-commit runs ``hook`` from this checkout; without ``all_files`` it runs as on a
    commit, stashing unstaged changes first. The config lives outside the repository, as
    ``pre-commit try-repo`` keeps it."""
    config = hook_config(repo, hook_source, hook)
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(hook_source.home)}
    return subprocess.run(
        [
            *(sys.executable, "-m", "pre_commit", "run", "--config", str(config), hook),
            *(["--all-files"] if all_files else []),
        ],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@NEEDS_CHECKOUT
def test_update_hook_fails_when_it_rewrites_then_passes(
    repo: Repo, hook_source: HookSource
) -> None:
    repo.write_files({"app.py": APP})
    repo.commit()
    first = run_hook(repo, hook_source, "kgtool-update")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "kgtool rewrote .kg/" in first.stdout
    assert (repo.root / ".kg" / "raw" / "_root.jsonl").exists()
    repo.commit("graph")
    second = run_hook(repo, hook_source, "kgtool-update")
    assert second.returncode == 0, second.stdout + second.stderr
    check = run_hook(repo, hook_source, "kgtool-check")
    assert check.returncode == 0, check.stdout + check.stderr
    repo.write("app.py", "def main():\n    pass\n")
    repo.git("add", "app.py")
    stale = run_hook(repo, hook_source, "kgtool-check")
    assert stale.returncode == 1
    assert "out of date" in stale.stdout


@NEEDS_CHECKOUT
def test_check_hook_shows_drifted_labels_without_blocking(
    repo: Repo, hook_source: HookSource
) -> None:
    package = {f"pkg/m{i}.py": f"from pkg.m0 import f0\ndef f{i}():\n    f0()\n" for i in range(4)}
    repo.write_files({**package, "other/x.py": "def x():\n    pass\n"})
    repo.commit()
    assert repo.kg("label", "--offline").code == 0
    repo.commit("labels")
    clean = run_hook(repo, hook_source, "kgtool-check")
    assert clean.returncode == 0 and "drifted" not in clean.stdout, clean.stdout
    repo.write_files({f"pkg/n{i}.py": "from pkg.m0 import f0\nf0()\n" for i in range(6)})
    repo.commit("pkg grows")
    assert repo.kg("update").code == 0
    repo.commit("map")
    drifted = run_hook(repo, hook_source, "kgtool-check")
    assert drifted.returncode == 0, drifted.stdout
    assert ".kg/ontology.yaml:" in drifted.stdout and ": warning: L301 label " in drifted.stdout
    assert "drifted: members" in drifted.stdout


@NEEDS_CHECKOUT
def test_one_process_hook_fails_when_it_rewrites_then_passes_quietly(
    repo: Repo, hook_source: HookSource
) -> None:
    repo.write_files({"app.py": APP})
    repo.commit()
    first = run_hook(repo, hook_source, "kgtool-update-check")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "kgtool rewrote .kg/ (.kg/.gitattributes, .kg/.gitignore, .kg/MAP.md and" in (
        first.stdout
    )
    repo.commit("graph")
    second = run_hook(repo, hook_source, "kgtool-update-check")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "kgtool" not in second.stdout.split("Passed", 1)[1].replace("- hook id: kgtool", "")


@NEEDS_CHECKOUT
def test_the_default_hook_takes_every_commit_in_one_try(
    repo: Repo, hook_source: HookSource
) -> None:
    """Real commits through pre-commit's own git hook: the first (which creates .kg/) and an
    edit each go through the first time, with .kg/ in the commit."""
    repo.write_files({"app.py": APP})
    repo.commit()
    install_hook(repo, hook_source, "kgtool")
    for number, text in enumerate(["\n# kgtool\n", "\n\ndef f():\n    pass\n"]):
        repo.write("app.py", APP + text)
        repo.git("add", "app.py")
        done = git_commit(repo, hook_source, f"change {number}")
        assert done.returncode == 0, done.stdout + done.stderr
        assert ".kg/raw/_root.jsonl" in repo.git("show", "--name-only", "--format=", "HEAD")
        assert committed_kg_is_fresh(repo)
    assert symbols(repo.git("show", "HEAD:.kg/raw/_root.jsonl")) == {"main", "helper", "f"}
    assert repo.git("status", "--porcelain") == ""


@NEEDS_CHECKOUT
def test_the_default_hook_never_stages_over_kg_changes_the_framework_set_aside(
    repo: Repo, hook_source: HookSource
) -> None:
    """``kgtool update`` run by hand leaves .kg/ changed and unstaged; a commit of another
    file then has pre-commit set those changes aside as a patch. Staging .kg/ under it would
    make the patch fail to apply, and pre-commit would leave the user's unstaged work in its
    cache (seen: app.py's edit gone from the working tree). The hook stages nothing and says
    why; every unstaged change is back where it was."""
    mapped_repo(repo)
    install_hook(repo, hook_source, "kgtool")
    partially_stage(repo)  # f() staged, g() on top of it unstaged
    assert repo.kg("update").code == 0  # by hand: .kg/ now describes g() too, unstaged
    before = repo.git("diff")
    done = git_commit(repo, hook_source, "other")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "nothing was staged: `git add .kg`" in done.stdout + done.stderr
    assert "An unexpected error" not in done.stdout + done.stderr
    assert repo.git("diff") == before  # the unstaged edit and .kg/ changes are all back
    assert "def g()" in (repo.root / "app.py").read_text()


@NEEDS_CHECKOUT
def test_stage_hook_commits_in_one_step(repo: Repo, hook_source: HookSource) -> None:
    """``kgtool-update-stage``, the default hook's older name, stages as it always did."""
    repo.write_files({"app.py": APP})
    repo.commit()
    staged = run_hook(repo, hook_source, "kgtool-update-stage")
    assert staged.returncode == 0, staged.stdout + staged.stderr
    assert ".kg/raw/_root.jsonl" in repo.git("diff", "--cached", "--name-only")
    assert repo.git("status", "--porcelain", "--", ".kg").startswith("A  .kg/")
    repo.git("commit", "-q", "-m", "graph")
    assert committed_kg_is_fresh(repo)


@NEEDS_CHECKOUT
@pytest.mark.parametrize("hook", ["kgtool-update-check", "kgtool"])
def test_framework_maps_the_staged_content_of_a_partially_staged_file(
    repo: Repo, hook_source: HookSource, hook: str
) -> None:
    mapped_repo(repo)
    partially_stage(repo)
    run = run_hook(repo, hook_source, hook, all_files=False)
    if hook == "kgtool-update-check":  # review mode: rewritten, not staged
        assert run.returncode == 1, run.stdout + run.stderr
        assert "kgtool rewrote .kg/ (.kg/raw/_root.jsonl)" in run.stdout
        repo.git("add", ".kg")
        assert run_hook(repo, hook_source, hook, all_files=False).returncode == 0
    else:
        assert run.returncode == 0, run.stdout + run.stderr
    repo.git("commit", "-q", "-m", "add f")
    assert symbols(repo.git("show", "HEAD:.kg/raw/_root.jsonl")) == {"main", "helper", "f"}
    assert committed_kg_is_fresh(repo)
    assert "def g()" in (repo.root / "app.py").read_text()  # pre-commit gave it back
