"""Plain git hooks: install and uninstall next to other hooks, and real commits through them."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from communities_helpers import clique
from conftest import GIT_ENV, Repo
from hook_helpers import (
    APP,
    committed_kg_is_fresh,
    mapped_repo,
    node_ids,
    partially_stage,
    symbols,
)
from playbook_helpers import add_playbook

from kgtool.integrations.git_hooks import HOOK_NAMES, hook_script
from kgtool.store import Store

KGTOOL_CHECKOUT = Path(__file__).resolve().parent.parent
FOREIGN = '#!/bin/sh\necho foreign >> "$(git rev-parse --git-dir)/foreign.log"\n'


def hook_env(repo: Repo) -> dict[str, str]:
    return {
        **os.environ,
        **GIT_ENV,
        "HOME": str(repo.root.parent),
        "PYTHONPATH": str(KGTOOL_CHECKOUT),
    }


def commit(
    repo: Repo, message: str = "change", cwd: Path | None = None, paths: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``git commit [paths]`` as a user runs it: hooks run, with this checkout's kgtool
    importable. git sends hooks' output to stderr; ``stdout`` holds both."""
    return through_hooks(repo, ["commit", "-m", message, *paths], cwd)


def through_hooks(
    repo: Repo, args: list[str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` as a user runs it, every hook it runs included (see ``commit``)."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd or repo.root,
        env=hook_env(repo),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )


def hook_file(repo: Repo, name: str = "pre-commit") -> Path:
    return repo.root / ".git" / "hooks" / name


def test_hooks_folder_holds_what_install_writes() -> None:
    for name in HOOK_NAMES:
        script = KGTOOL_CHECKOUT / "hooks" / name
        assert script.read_text() == hook_script(name), f"hooks/{name} is out of date"
        assert script.stat().st_mode & stat.S_IXUSR


def test_install_refuses_a_foreign_hook_then_chains_it_and_uninstall_restores_it(
    repo: Repo,
) -> None:
    mapped_repo(repo)
    foreign = hook_file(repo)
    foreign.write_text(FOREIGN)
    foreign.chmod(0o750)
    refused = repo.kg("hooks", "install")
    assert refused.code == 2
    assert "is not kgtool's: --chain keeps it" in refused.err
    assert foreign.read_text() == FOREIGN
    assert not hook_file(repo, "pre-merge-commit").exists()  # nothing was touched

    installed = repo.kg("hooks", "install", "--chain", "--review")
    assert installed.code == 0, installed.err
    assert "pre-commit.kgtool-chained (kept, run first)" in installed.out
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    first = commit(repo)
    assert (repo.root / ".git" / "foreign.log").read_text() == "foreign\n"
    assert first.returncode == 1, first.stdout  # kgtool rewrote .kg/
    assert "kgtool rewrote .kg/" in first.stdout

    removed = repo.kg("hooks", "uninstall")
    assert removed.code == 0, removed.out
    assert foreign.read_text() == FOREIGN
    assert stat.S_IMODE(foreign.stat().st_mode) == 0o750
    hooks = sorted(p.name for p in foreign.parent.iterdir() if not p.name.endswith(".sample"))
    assert hooks == ["pre-commit"]


def test_install_refuses_a_foreign_hook_after_a_hook_kgtool_already_holds(repo: Repo) -> None:
    """Every hook is checked, not only up to the first that is kgtool's own: a foreign
    pre-merge-commit beside kgtool's pre-commit is refused and left as it is."""
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    foreign = hook_file(repo, "pre-merge-commit")
    foreign.write_text(FOREIGN)
    refused = repo.kg("hooks", "install")
    assert refused.code == 2
    assert f"{foreign} exists and is not kgtool's" in refused.err
    assert foreign.read_text() == FOREIGN


def test_a_failing_chained_hook_stops_the_commit_before_kgtool(repo: Repo) -> None:
    mapped_repo(repo)
    hook_file(repo).write_text("#!/bin/sh\necho 'lint failed'\nexit 3\n")
    hook_file(repo).chmod(0o755)
    assert repo.kg("hooks", "install", "--chain").code == 0
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    blocked = commit(repo)
    assert blocked.returncode != 0
    assert "lint failed" in blocked.stdout
    assert repo.git("diff", "--cached", "--name-only", "--", ".kg") == ""  # kgtool never ran


def test_force_sets_a_foreign_hook_aside_and_uninstall_puts_it_back(repo: Repo) -> None:
    mapped_repo(repo)
    blocking = "#!/bin/sh\nexit 1\n"
    hook_file(repo).write_text(blocking)
    hook_file(repo).chmod(0o700)
    installed = repo.kg("hooks", "install", "--force")  # one-step, the default
    assert installed.code == 0, installed.err
    assert "(set aside, not run)" in installed.out
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    done = commit(repo, "add f")
    assert done.returncode == 0, done.stdout  # one step: .kg/ was staged
    assert ".kg/raw/_root.jsonl" in repo.git("show", "--name-only", "--format=", "HEAD")
    assert repo.kg("hooks", "uninstall").code == 0
    assert hook_file(repo).read_text() == blocking
    assert stat.S_IMODE(hook_file(repo).stat().st_mode) == 0o700
    assert not hook_file(repo, "pre-merge-commit").exists()


def test_reinstall_keeps_the_chained_hook_and_uninstall_leaves_a_stranger_alone(
    repo: Repo,
) -> None:
    mapped_repo(repo)
    hook_file(repo).write_text(FOREIGN)
    hook_file(repo).chmod(0o755)
    assert repo.kg("hooks", "install", "--chain").code == 0
    assert repo.kg("hooks", "install", "--review").code == 0  # ours already there: no flag needed
    assert "\nstage=--review\n" in hook_file(repo).read_text()
    assert Path(f"{hook_file(repo)}.kgtool-chained").read_text() == FOREIGN
    hook_file(repo).write_text("#!/bin/sh\nexit 0\n")  # someone replaced kgtool's hook
    left = repo.kg("hooks", "uninstall")
    assert left.code == 1
    assert "left " in left.out and "it is not kgtool's" in left.out
    assert hook_file(repo).read_text() == "#!/bin/sh\nexit 0\n"


def test_install_honours_core_hooks_path(repo: Repo) -> None:
    mapped_repo(repo)
    repo.git("config", "core.hooksPath", ".githooks")
    assert repo.kg("hooks", "install").code == 0
    assert (repo.root / ".githooks" / "pre-commit").read_text() == hook_script(
        "pre-commit", python=sys.executable
    )
    assert not hook_file(repo).exists()
    assert repo.kg("hooks", "uninstall").code == 0
    assert list((repo.root / ".githooks").iterdir()) == []


def test_install_from_a_worktree_serves_every_worktree(repo: Repo, tmp_path: Path) -> None:
    mapped_repo(repo)
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "-b", "side", str(other))
    assert Repo(other).kg("hooks", "install", "--stage").code == 0
    assert hook_file(repo).exists()  # hooks live in the common git directory
    (other / "app.py").write_text(APP + "\n\ndef side():\n    pass\n")
    Repo(other).git("add", "app.py")
    done = commit(repo, "side", cwd=other)
    assert done.returncode == 0, done.stdout
    assert "app.py::side" in node_ids(Repo(other).git("show", "HEAD:.kg/raw/_root.jsonl"))
    assert repo.git("status", "--porcelain") == ""  # the main worktree's .kg/ was not touched


def test_plain_hook_review_mode_describes_the_staged_content(repo: Repo) -> None:
    mapped_repo(repo)
    assert repo.kg("hooks", "install", "--review").code == 0
    partially_stage(repo)
    first = commit(repo, "add f")
    assert first.returncode == 1, first.stdout
    assert "kgtool rewrote .kg/ (.kg/raw/_root.jsonl)" in first.stdout
    assert symbols(repo.layer1().decode()) == {"main", "helper", "f"}
    assert "def g()" in (repo.root / "app.py").read_text()  # the unstaged work is untouched
    repo.git("add", ".kg")
    second = commit(repo, "add f")
    assert second.returncode == 0, second.stdout
    assert second.stdout.count("\n") <= 3  # git's own summary; kgtool said nothing
    assert symbols(repo.git("show", "HEAD:.kg/raw/_root.jsonl")) == {"main", "helper", "f"}
    assert committed_kg_is_fresh(repo)
    assert repo.git("diff", "--name-only") == "app.py\n"


def test_plain_hook_one_step_mode_commits_a_partially_staged_file_at_once(repo: Repo) -> None:
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    partially_stage(repo)
    done = commit(repo, "add f")
    assert done.returncode == 0, done.stdout
    assert symbols(repo.git("show", "HEAD:.kg/raw/_root.jsonl")) == {"main", "helper", "f"}
    assert committed_kg_is_fresh(repo)
    # g() is still only in the working tree, and .kg/ there matches the commit.
    assert repo.git("status", "--porcelain") == " M app.py\n"
    assert "def g()" in (repo.root / "app.py").read_text()


def test_plain_hook_in_a_commit_of_named_paths_says_how_to_bring_kg_along(repo: Repo) -> None:
    """``git commit <paths>`` builds its own index, which ``git add .kg`` alone does not reach,
    and into which ``git commit <paths> .kg`` brings only files git already tracks: a map page
    the hook just created needs both."""
    repo.build(clique("alpha", ["a0", "a1", "a2", "a3"]))
    repo.commit("graph")
    assert repo.kg("hooks", "install", "--review").code == 0
    repo.write_files(clique("beta", ["b0", "b1", "b2", "b3"]))  # a second community
    repo.git("add", "beta")
    repo.write("alpha/a0.py", "# not staged\n", dedent=False)
    first = commit(repo, "beta", paths=("beta",))
    assert first.returncode == 1, first.stdout
    assert "review it; git add .kg, then commit again naming it (git commit <paths> .kg)" in (
        first.stdout
    )
    # The new community's page, which `git commit beta .kg` alone would leave out.
    assert ".kg/communities/" in repo.git("ls-files", "--others", "--", ".kg")
    repo.git("add", ".kg")
    second = commit(repo, "beta", paths=("beta", ".kg"))
    assert second.returncode == 0, second.stdout
    assert "beta/b0.py::beta_b0" in node_ids(repo.git("show", "HEAD:.kg/raw/beta.jsonl"))
    assert committed_kg_is_fresh(repo)
    assert repo.git("status", "--porcelain") == " M alpha/a0.py\n"


def test_plain_hook_catches_a_kg_refreshed_by_hand_but_not_staged(repo: Repo) -> None:
    mapped_repo(repo)
    assert repo.kg("hooks", "install", "--review").code == 0
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    assert repo.kg("update").code == 0  # .kg/ is fresh in the working tree, not in the index
    repo.git("add", "app.py")
    refused = commit(repo)
    assert refused.returncode == 1
    assert "differs from what is staged" in refused.stdout


def test_plain_hook_fails_on_a_broken_playbook(repo: Repo) -> None:
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    repo.write(
        "playbooks/x.md",
        "---\nintent: x\nconcepts: []\nkey_files: [gone.py]\nvalidation: [pytest]\n"
        "pitfalls: [none]\nrollback: nothing\n---\n",
    )
    repo.git("add", "playbooks/x.md")
    refused = commit(repo)
    assert refused.returncode == 1
    assert "playbooks/x.md:" in refused.stdout and "gone.py" in refused.stdout
    assert "FAILED: playbooks" in refused.stdout


@pytest.mark.parametrize("hook_args", [["update", "--quiet"], ["hooks", "run"]])
def test_concurrent_runs_never_corrupt_kg(make_repo, tmp_path: Path, hook_args: list[str]) -> None:
    files = {f"pkg/m{i}.py": f"from pkg.m0 import f0\n\ndef f{i}():\n    f0()\n" for i in range(40)}
    repo = make_repo(files)
    assert repo.kg("update").code == 0
    repo.commit("graph")
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "-b", "side", str(other))
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(KGTOOL_CHECKOUT)}
    runs = []
    for round_ in range(3):
        for root in (repo.root, other):
            # Each run sees a different edit, made while earlier runs may still be going
            # (staged between two of them: git itself refuses two index writers at once).
            (root / f"pkg/new{round_}.py").write_text(f"from pkg.m1 import f1\nf1()\n# {root}\n")
            with Store(root).lock(timeout=120):
                subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
            runs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "kgtool", *hook_args],
                    cwd=root,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
    for run in runs:
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0, out
    for root in (repo.root, other):
        checked = Repo(root).kg("check")
        assert checked.code == 0, checked.out  # the last edit is in: no lost update
        assert not [p for p in (root / ".kg").rglob("*.tmp")]
        assert Repo(root).fresh_build() == Repo(root).layer1()


def test_pre_merge_commit_stops_a_clean_merge_that_breaks_a_playbook(repo: Repo) -> None:
    repo.build(
        {
            "a.py": "def old():\n    pass\n",
            **{f"m{i}.py": f"def m{i}():\n    pass\n" for i in range(3)},
            "z.py": "def z():\n    pass\n",
        }
    )
    repo.commit("graph")
    assert repo.kg("hooks", "install", "--stage").code == 0
    repo.git("switch", "-q", "-c", "side")
    add_playbook(repo, "x", ["a.py::old"])
    repo.git("add", "-A")
    assert commit(repo, "playbook").returncode == 0
    repo.git("switch", "-q", "main")
    repo.write("a.py", "def new():\n    pass\n")
    repo.git("add", "a.py")
    assert commit(repo, "rename old").returncode == 0
    merged = through_hooks(repo, ["merge", "--no-edit", "side"])
    assert "CONFLICT" not in merged.stdout, merged.stdout  # git alone would have merged it
    assert merged.returncode != 0
    assert "playbooks/x.md:" in merged.stdout and "'a.py::old' does not resolve" in merged.stdout
    assert "Not committing merge" in merged.stdout


def test_a_hook_names_warnings_about_the_files_it_commits_and_counts_the_older_ones(
    repo: Repo,
) -> None:
    mapped_repo(repo)
    repo.write("broken.py", "def ok():\n    pass\n\ndef bad(:\n")
    repo.git("add", "broken.py")
    assert repo.kg("hooks", "install").code == 0
    first = commit(repo, "add broken.py")
    assert first.returncode == 0, first.stdout
    assert "broken.py:4: warning: R103 partially parsed" in first.stdout  # this commit's file
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    second = commit(repo, "add f")
    assert second.returncode == 0, second.stdout
    assert "R103" not in second.stdout
    assert (
        "kgtool: 1 older warning about files this commit does not touch (`kgtool update` "
        "lists them)"
    ) in second.stdout
    assert "broken.py:4: warning: R103" in repo.kg("update").out  # still listed there


def branches_that_both_change_kg(repo: Repo) -> None:
    """main and side each add a file (one-step commits through the hooks): both rewrite the
    same layer-1 shard, communities.json and MAP.md."""
    repo.git("switch", "-q", "-c", "side")
    repo.write("side.py", "from app import helper\n\n\ndef side():\n    return helper()\n")
    repo.git("add", "side.py")
    assert commit(repo, "side").returncode == 0
    repo.git("switch", "-q", "main")
    repo.write("other.py", "from app import main\n\n\ndef other():\n    return main()\n")
    repo.git("add", "other.py")
    assert commit(repo, "other").returncode == 0


def test_a_merge_of_two_branches_that_both_changed_kg_goes_through_the_driver(
    repo: Repo,
) -> None:
    mapped_repo(repo)
    installed = repo.kg("hooks", "install")
    assert "registered the merge driver" in installed.out
    assert "merge=kgtool" in (repo.root / ".kg" / ".gitattributes").read_text()
    branches_that_both_change_kg(repo)
    merged = through_hooks(repo, ["merge", "--no-edit", "side"])
    assert "CONFLICT" not in merged.stdout
    assert "Auto-merging .kg/raw/_root.jsonl" in merged.stdout  # both sides changed it
    # git commits an automatic merge from the tree it merged, whatever pre-merge-commit
    # stages: the hook stops the merge with .kg/ rebuilt and staged, and one commit ends it.
    assert merged.returncode == 1, merged.stdout
    assert "run `git commit --no-edit` to conclude it" in merged.stdout
    concluded = through_hooks(repo, ["commit", "--no-edit"])
    assert concluded.returncode == 0, concluded.stdout
    assert len(repo.git("rev-list", "--parents", "-1", "HEAD").split()) == 3  # a merge commit
    assert "<<<<<<<" not in repo.git("show", "HEAD:.kg/raw/_root.jsonl")
    # The pre-merge-commit hook rebuilt .kg/ from the merged tree: both files are in it.
    shard = node_ids(repo.git("show", "HEAD:.kg/raw/_root.jsonl"))
    assert {"side.py::side", "other.py::other"} <= shard
    assert committed_kg_is_fresh(repo)
    removed = repo.kg("hooks", "uninstall")
    assert "removed the merge driver" in removed.out
    assert '[merge "kgtool"]' not in (repo.root / ".git" / "config").read_text()


def test_without_the_driver_the_same_merge_stops_on_conflict_markers(repo: Repo) -> None:
    """What the driver spares: git's own text merge of two fresh maps."""
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    repo.git("config", "--remove-section", "merge.kgtool")
    branches_that_both_change_kg(repo)
    merged = through_hooks(repo, ["merge", "--no-edit", "side"])
    assert merged.returncode != 0
    assert "CONFLICT (content): Merge conflict in .kg/" in merged.stdout


def test_kg_files_are_marked_generated_and_a_person_s_own_attributes_are_kept(
    repo: Repo,
) -> None:
    mapped_repo(repo)
    attributes = repo.root / ".kg" / ".gitattributes"
    checked = repo.git(
        "check-attr",
        "linguist-generated",
        "merge",
        "--",
        ".kg/raw/_root.jsonl",
        ".kg/ontology.yaml",
    )
    assert checked.splitlines() == [
        ".kg/raw/_root.jsonl: linguist-generated: true",
        ".kg/raw/_root.jsonl: merge: kgtool",
        ".kg/ontology.yaml: linguist-generated: unset",  # labels are written by people too
        ".kg/ontology.yaml: merge: unspecified",
    ]
    attributes.write_text("*.md diff=markdown\n")  # a person's line, without kgtool's
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    assert repo.kg("update").code == 0
    assert attributes.read_text().splitlines()[0] == "*.md diff=markdown"
    assert "* linguist-generated=true merge=kgtool" in attributes.read_text()


def test_one_step_mode_stops_a_commit_of_named_paths_rather_than_split_the_indexes(
    repo: Repo,
) -> None:
    """``git commit <paths>`` commits a temporary index: .kg/ staged there would be in the
    commit while git's own index kept the old .kg/, ready to undo it at the next commit."""
    repo.build(clique("alpha", ["a0", "a1", "a2", "a3"]))
    repo.commit("graph")
    assert repo.kg("hooks", "install").code == 0
    repo.write("alpha/a0.py", (repo.root / "alpha/a0.py").read_text() + "\n# staged\n")
    repo.git("add", "alpha/a0.py")
    first = commit(repo, "named", paths=("alpha/a0.py",))
    assert first.returncode == 1, first.stdout
    assert "a commit of named paths cannot take it; git add .kg, then commit again" in first.stdout
    repo.git("add", ".kg")
    second = commit(repo, "named", paths=("alpha/a0.py", ".kg"))
    assert second.returncode == 0, second.stdout
    assert committed_kg_is_fresh(repo)
    assert repo.git("status", "--porcelain") == ""  # one index, nothing left to undo


def test_the_framework_guard_counts_only_this_run_s_patch(repo: Repo, tmp_path: Path) -> None:
    """pre-commit never deletes its patches: one named after a reused pid, older than the
    process it names, is another run's and must not stop a commit."""
    mapped_repo(repo)
    home = tmp_path / "pre-commit-home"
    home.mkdir()
    kg_patch = b"diff --git a/.kg/raw/_root.jsonl b/.kg/raw/_root.jsonl\n"
    (home / f"patch1600000000-{os.getpid()}").write_bytes(kg_patch)  # from 2020: stale
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    env = {"PRE_COMMIT": "1", "PRE_COMMIT_HOME": str(home)}
    staged = repo.kg_process("hooks", "run", env=env)
    assert staged.code == 0, staged.out
    assert ".kg/raw/_root.jsonl" in repo.git("diff", "--cached", "--name-only")
    repo.git("commit", "-q", "--no-verify", "-m", "f")
    # This run's own patch (no older than this process) does stop it.
    (home / f"patch{int(time.time())}-{os.getpid()}").write_bytes(kg_patch)
    repo.write("app.py", APP + "\n\ndef g():\n    pass\n")
    repo.git("add", "app.py")
    refused = repo.kg_process("hooks", "run", env=env)
    assert refused.code == 1 and "nothing was staged" in refused.out, refused.out
    assert repo.git("diff", "--cached", "--name-only") == "app.py\n"


@pytest.mark.parametrize(
    "replay",
    [["rebase", "main"], ["-c", "pull.rebase=true", "pull", "-q", ".", "main"]],
    ids=["rebase", "pull-with-pull.rebase"],
)
def test_a_rebase_through_the_driver_stops_on_kg_rather_than_commit_it_stale(
    repo: Repo, replay: list[str]
) -> None:
    """A rebase replays commits with no hook to rebuild .kg/ after them: our side kept would
    be committed stale, so the driver leaves the file conflicted there (no markers). A pull
    that rebases (pull.rebase=true) names itself plain "pull": git's own state tells it."""
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    branches_that_both_change_kg(repo)
    repo.git("switch", "-q", "side")
    rebased = through_hooks(repo, replay)
    assert rebased.returncode != 0, rebased.stdout
    assert "left conflicted: a rebase or cherry-pick runs no hook" in rebased.stdout
    assert "<<<<<<<" not in (repo.root / ".kg" / "raw" / "_root.jsonl").read_text()
    assert repo.kg("update").code == 0
    repo.git("add", ".kg")
    continued = subprocess.run(
        ["git", "-c", "core.editor=true", "rebase", "--continue"],
        cwd=repo.root,
        env=hook_env(repo),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert continued.returncode == 0, continued.stdout + continued.stderr
    assert committed_kg_is_fresh(repo)


def test_hooks_run_in_this_process_maps_what_is_staged_and_stages_it(repo: Repo) -> None:
    """``kgtool hooks run`` as the hook script calls it, in this process (so that a mutation
    test sees which tests reach it): with a file partly staged, review mode maps the index
    in a temporary checkout, copies the map back and stops the commit; one-step mode stages
    the map with the commit; the unstaged work is never touched."""
    mapped_repo(repo)
    partially_stage(repo)
    review = repo.kg("hooks", "run", "--review")
    assert review.code == 1, review.out + review.err
    assert (
        "kgtool rewrote .kg/ (.kg/raw/_root.jsonl), which differs from what is staged: "
        "review it; git add .kg and commit again"
    ) in review.out
    assert symbols(repo.layer1().decode()) == {"main", "helper", "f"}
    assert "def g()" in (repo.root / "app.py").read_text()
    assert ".kg/raw/_root.jsonl" not in repo.git("diff", "--cached", "--name-only")
    one_step = repo.kg("hooks", "run")
    assert one_step.code == 0, one_step.out + one_step.err
    assert ".kg/raw/_root.jsonl" in repo.git("diff", "--cached", "--name-only").split()
    assert symbols(repo.git("show", ":.kg/raw/_root.jsonl")) == {"main", "helper", "f"}
    assert "def g()" in (repo.root / "app.py").read_text()


def test_a_line_someone_added_to_kgtools_hook_is_kept_and_the_hooks_are_executable(
    repo: Repo,
) -> None:
    """install rewrites kgtool's own script, never lines a person put into it: a changed
    line (even one word where a setting was) makes the hook theirs until --chain or --force.
    What install writes can be run by its owner, not only by root."""
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    for name in HOOK_NAMES:
        assert stat.S_IMODE(hook_file(repo, name).stat().st_mode) & 0o700 == 0o700, name
    hook = hook_file(repo)
    assert repo.kg("hooks", "install").code == 0  # kgtool's as written: rewritten freely
    hook.write_text(hook.read_text().replace("stage=--stage\n", "exit\n"))
    refused = repo.kg("hooks", "install")
    assert refused.code == 2, refused.out
    assert "holds lines kgtool did not write (line 16: exit)" in refused.err, refused.err
    assert "\nexit\n" in hook.read_text()


def test_uninstall_removes_every_hook_when_one_is_already_gone(repo: Repo) -> None:
    mapped_repo(repo)
    assert repo.kg("hooks", "install").code == 0
    hook_file(repo, HOOK_NAMES[0]).unlink()  # removed by hand
    assert repo.kg("hooks", "uninstall").code == 0
    assert not any(hook_file(repo, name).exists() for name in HOOK_NAMES)


def test_the_older_warnings_are_counted_in_the_plural(repo: Repo) -> None:
    mapped_repo(repo)
    for name in ("broken.py", "cracked.py"):
        repo.write(name, "def ok():\n    pass\n\ndef bad(:\n")
    repo.git("add", "broken.py", "cracked.py")
    assert repo.kg("hooks", "install").code == 0
    assert commit(repo, "add two broken files").returncode == 0
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    second = commit(repo, "add f")
    assert "kgtool: 2 older warnings about files this commit does not touch" in second.stdout


def test_the_framework_guard_reads_only_this_run_s_patch_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard as the framework's hook process runs it: a patch named after a process
    above this one and written since it started counts when it touches .kg/; an older one,
    one of files elsewhere, one that cannot be read, or a run outside the framework do not."""
    from kgtool.integrations.git_hooks import _framework_set_aside_kg_changes

    home = tmp_path / "pre-commit-home"
    home.mkdir()
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    monkeypatch.setenv("PRE_COMMIT", "1")
    parent, now = os.getppid(), int(time.time())
    kg_patch = b"diff --git a/.kg/raw/_root.jsonl b/.kg/raw/_root.jsonl\n"
    (home / f"patch{now}-{parent}").write_bytes(b"diff --git a/app.py b/app.py\n")
    (home / f"patch{now + 1}-{parent}").mkdir()  # cannot be read as a file
    (home / f"patch1600000000-{parent}").write_bytes(kg_patch)  # a reused pid's, from 2020
    assert not _framework_set_aside_kg_changes()
    (home / f"patch{now + 2}-{parent}").write_bytes(kg_patch)
    assert _framework_set_aside_kg_changes()
    monkeypatch.setenv("PRE_COMMIT", "")
    assert not _framework_set_aside_kg_changes()


def test_hooks_run_in_a_commit_of_named_paths_in_this_process_stages_nothing(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git commit <paths>`` runs the hook on a temporary index (next-index-*.lock): staged
    there, .kg/ would be committed while git's own index kept the old one. In this process,
    so that a mutation test sees which tests reach it: nothing is staged, and it says how."""
    mapped_repo(repo)
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    temporary = repo.root / ".git" / "next-index-4242.lock"
    temporary.write_bytes((repo.root / ".git" / "index").read_bytes())
    monkeypatch.setenv("GIT_INDEX_FILE", str(temporary))
    repo.git("add", "app.py")  # into the temporary index, as git commit <paths> does
    ran = repo.kg("hooks", "run")
    assert ran.code == 1, ran.out + ran.err
    assert "git add .kg, then commit again naming it (git commit <paths> .kg)" in ran.out
    assert repo.git("diff", "--cached", "--name-only") == "app.py\n"  # .kg/ not staged here


def test_a_few_paths_are_named_and_the_rest_counted() -> None:
    from kgtool.integrations.git_hooks import _few

    assert _few(["a", "b", "c"]) == "a, b, c"
    assert _few(["a", "b", "c", "d"]) == "a, b, c and 1 more"


def test_the_framework_guard_looks_in_the_framework_s_default_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without PRE_COMMIT_HOME the framework keeps its patches in pre-commit/ under
    XDG_CACHE_HOME, and without that under ~/.cache: the guard finds this run's patch there."""
    from kgtool.integrations.git_hooks import _framework_set_aside_kg_changes

    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.delenv("PRE_COMMIT_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    name = f"patch{int(time.time())}-{os.getppid()}"
    kg_patch = b"diff --git a/.kg/raw/_root.jsonl b/.kg/raw/_root.jsonl\n"
    assert not _framework_set_aside_kg_changes()  # no home at all: nothing set aside
    default = tmp_path / ".cache" / "pre-commit"
    default.mkdir(parents=True)
    (default / name).write_bytes(kg_patch)
    assert _framework_set_aside_kg_changes()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert not _framework_set_aside_kg_changes()  # the cache is elsewhere now
    (tmp_path / "xdg" / "pre-commit").mkdir(parents=True)
    (tmp_path / "xdg" / "pre-commit" / name).write_bytes(kg_patch)
    assert _framework_set_aside_kg_changes()


def test_without_proc_the_parent_alone_counts_as_started_an_hour_ago(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where /proc cannot be read the guard knows only its parent, taken to have started an
    hour ago; what /proc said before failing is kept as it is, with nothing added."""
    from kgtool.integrations import git_hooks

    real_open = open
    monkeypatch.setattr(git_hooks.time, "time", lambda: 1_700_003_600.5)

    def no_proc(path: object, *args: object, **kwargs: object) -> object:
        if str(path).startswith("/proc/"):
            raise OSError("no /proc here")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(git_hooks, "open", no_proc, raising=False)
    assert git_hooks._ancestors() == [(os.getppid(), 1_700_000_000)]

    def parent_only(path: object, *args: object, **kwargs: object) -> object:
        if str(path) not in ("/proc/stat", f"/proc/{os.getppid()}/stat"):
            raise OSError("gone")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(git_hooks, "open", parent_only, raising=False)
    found = git_hooks._ancestors()
    assert [pid for pid, _ in found] == [os.getppid()]
    assert found[0][1] != 1_700_000_000  # read from /proc, not assumed


def test_install_says_what_the_merge_driver_does(repo: Repo) -> None:
    mapped_repo(repo)
    installed = repo.kg("hooks", "install")
    assert installed.code == 0, installed.err
    assert installed.out.splitlines()[-1] == (
        "registered the merge driver for .kg/ (merge.kgtool.driver): a merge keeps our side "
        "of a .kg/ file, and the pre-merge-commit hook rebuilds .kg/"
    )


def test_hooks_run_in_this_process_stages_nothing_over_kg_changes_the_framework_set_aside(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the framework, with this run's patch touching .kg/, the hook (in this process,
    so that a mutation test sees which tests reach it) rewrites .kg/ but stages none of it,
    and says how to go on."""
    mapped_repo(repo)
    home = tmp_path / "pre-commit-home"
    home.mkdir()
    kg_patch = b"diff --git a/.kg/raw/_root.jsonl b/.kg/raw/_root.jsonl\n"
    (home / f"patch{int(time.time())}-{os.getppid()}").write_bytes(kg_patch)
    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    refused = repo.kg("hooks", "run")
    assert refused.code == 1, refused.out + refused.err
    assert (
        "kgtool rewrote .kg/ (.kg/raw/_root.jsonl) for what is staged, but .kg/ also has "
        "changes you did not stage, which pre-commit set aside; staging over them would "
        "lose them when it puts them back, so nothing was staged: `git add .kg` (or "
        "`git checkout -- .kg` to drop yours), then commit again\n"
    ) in refused.out
    assert repo.git("diff", "--cached", "--name-only") == "app.py\n"
    assert symbols(repo.layer1()) == {"main", "helper", "f"}


def test_one_older_warning_is_counted_in_the_singular_with_where_to_read_it() -> None:
    from kgtool.findings import Finding
    from kgtool.integrations.git_hooks import _touched_first

    mine = Finding("mine.py", 3, "warning", "R101", "a syntax error")
    older = Finding("old.py", 1, "warning", "R101", "a syntax error")
    general = Finding("", 0, "warning", "R103", "about no file")
    assert _touched_first([mine, older, general], {"mine.py"}) == [
        mine.format(),
        general.format(),
        "kgtool: 1 older warning about files this commit does not touch "
        "(`kgtool update` lists them)",
    ]
    assert _touched_first([older, older], set())[-1].startswith("kgtool: 2 older warnings ")


def test_install_without_review_stages_kg(repo: Repo) -> None:
    from kgtool.integrations.git_hooks import install

    mapped_repo(repo)
    said = install(repo.root)
    assert said[0].endswith(f"{hook_file(repo, HOOK_NAMES[0])} (stages .kg/)"), said


def test_the_files_mirrored_are_kgtool_s_own_and_finished(tmp_path: Path) -> None:
    """What the hook copies back from its checkout: the files kgtool writes under .kg/, not
    its cache, not a file still being written (.tmp), not layer 3 (people's labels)."""
    from kgtool.integrations.git_hooks import _generated_files
    from kgtool.store import CACHE_DIR

    files = {
        ".kg/raw/_root.jsonl": b"layer 1",
        ".kg/raw/_root.jsonl.tmp": b"half",
        ".kg/communities.json": b"layer 2",
        ".kg/ontology.yaml": b"labels",
        f".kg/{CACHE_DIR}/read.marshal": b"cache",
        f".kg/raw/{CACHE_DIR}/kept.jsonl": b"a folder of that name deeper down",
        "app.py": b"code",
    }
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    assert _generated_files(tmp_path) == {
        ".kg/raw/_root.jsonl": b"layer 1",
        ".kg/communities.json": b"layer 2",
        f".kg/raw/{CACHE_DIR}/kept.jsonl": b"a folder of that name deeper down",
    }


def test_a_hook_in_this_process_reads_the_manifests_before_calling_an_import_broken(
    make_repo: Callable[..., Repo],
) -> None:
    """An import of a package a manifest declares is the package's even where a folder of
    the repository shares its name: the hook warns only of the repository's own missing
    module (in this process, so that a mutation test sees which tests reach it)."""
    repo = make_repo(
        {
            "pyproject.toml": (
                '[project]\nname = "mypkg"\ndependencies = ["ag-ui-protocol>=0.1"]\n'
            ),
            "mypkg/__init__.py": "",
            "mypkg/app.py": "from mypkg.gone import thing\n",
            "examples/ag_ui/__init__.py": "",
            "examples/ag_ui/api.py": "from ag_ui.core import Event\n",
        },
        commit=False,
    )
    repo.git("add", "-A")
    ran = repo.kg("hooks", "run")
    assert ran.code == 0, ran.out + ran.err
    assert "mypkg/app.py:1: warning: R102" in ran.out
    assert "examples/ag_ui" not in ran.out
