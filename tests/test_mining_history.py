"""Change sets from scripted histories: merges, squashes, direct commits, follow-ups,
renames, reverts, bots, version bumps; and the clear errors."""

from __future__ import annotations

import subprocess

import pytest
from conftest import Repo
from mining_helpers import add_provider, base_files, commit_at, merge_at

from kgtool.errors import KgError
from kgtool.mining.filters import (
    BOT,
    BRANCH_MERGE,
    FIX_SECONDS,
    MAX_FILES,
    OVERSIZE,
    RELEASE,
    REVERT,
    filter_change_sets,
    group_follow_ups,
    reason_for,
)
from kgtool.mining.history import (
    DIRECT,
    MERGE,
    SQUASH,
    ChangeSet,
    FileChange,
    final_names,
    read_history,
)
from kgtool.mining.miner import Options, read_changes
from kgtool.repo import LogCommit, LogFile


@pytest.fixture
def providers(repo: Repo) -> Repo:
    """Four providers added four ways, a follow-up fix, a rename sweep, a revert, a bot and
    a release: the history every mining test reads."""
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    repo.git("checkout", "-q", "-b", "alpha")
    add_provider(repo, "alpha")
    commit_at(repo, "alpha provider", 10)
    repo.git("checkout", "-q", "main")
    merge_at(repo, "alpha", "Merge pull request #11 from a/alpha", "Add the alpha provider", 20)
    add_provider(repo, "beta")
    commit_at(repo, "Add beta provider (#12)", 40)
    add_provider(repo, "gamma")
    commit_at(repo, "Add gamma provider", 60)
    repo.write("app/providers/gamma.py", 'NAME = "gamma"\nDISPLAY = "Gamma"\n')
    commit_at(repo, "Fix gamma: add the display name", 61)
    repo.git("mv", "tests", "checks")
    commit_at(repo, "Move the tests to checks/", 80)
    add_provider(repo, "delta", "checks")
    commit_at(repo, "Add delta provider", 100, "Grace Hopper <grace@example.com>")
    add_provider(repo, "epsilon", "checks")
    commit_at(repo, "Add epsilon provider", 120)
    epsilon = repo.git("rev-parse", "HEAD").strip()
    repo.git("revert", "--no-commit", "HEAD")
    commit_at(repo, f'Revert "Add epsilon provider"\n\nThis reverts commit {epsilon}.', 121)
    repo.write("requirements.txt", "pyyaml==6.0.2\n")
    commit_at(repo, "Bump pyyaml from 6.0.1 to 6.0.2", 130, "dependabot[bot] <bot@github.com>")
    repo.write("pyproject.toml", '[project]\nname = "app"\nversion = "1.1.0"\n\n[tool.ruff]\n')
    commit_at(repo, "Release 1.1.0", 140)
    return repo


def test_each_kind_of_change_set_is_read_with_its_files(providers: Repo) -> None:
    history = read_history(providers.root)
    rows = [(c.kind, c.pr, c.title) for c in history.change_sets]
    assert rows[:4] == [
        (DIRECT, None, "Initial layout"),
        (MERGE, 11, "Add the alpha provider"),
        (SQUASH, 12, "Add beta provider"),
        (DIRECT, None, "Add gamma provider"),
    ]
    merge = history.change_sets[1]
    # Diffed against the first parent; renames followed: the tests live in checks/ now.
    assert sorted((f.status, f.path) for f in merge.files) == [
        ("A", "app/providers/alpha.py"),
        ("A", "checks/test_alpha.py"),
        ("M", "CHANGES.md"),
        ("M", "app/providers/__init__.py"),
    ]
    assert len(history.change_sets) == 11
    assert history.branch == "main"


def test_filters_count_bots_releases_and_keep_reverts_aside(providers: Repo) -> None:
    history = read_history(providers.root)
    filtered = filter_change_sets(history.change_sets, history.branch)
    assert [c.title for c in filtered.set_aside[BOT]] == ["Bump pyyaml from 6.0.1 to 6.0.2"]
    assert [c.title for c in filtered.set_aside[RELEASE]] == ["Release 1.1.0"]
    [revert] = filtered.set_aside[REVERT]
    epsilon = next(c for c in history.change_sets if c.title == "Add epsilon provider")
    assert revert.reverts == epsilon.id
    # The quick fix by the same author is grouped with the change it completes.
    gamma = next(c for c in filtered.kept if c.title == "Add gamma provider")
    assert [f.title for f in gamma.follow_ups] == ["Fix gamma: add the display name"]
    assert filtered.follow_ups == 1
    assert "Fix gamma: add the display name" not in [c.title for c in filtered.kept]


def test_a_follow_up_by_someone_else_days_later_is_its_own_change(repo: Repo) -> None:
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    add_provider(repo, "gamma")
    commit_at(repo, "Add gamma provider", 10)
    repo.write("app/cli.py", "def main():\n    return 1\n")
    commit_at(repo, "Tune the exit code", 11)  # same author, quick, but other files
    repo.write("app/providers/__init__.py", '"""Providers."""\n')
    commit_at(repo, "Reword the registry", 300, "Grace Hopper <grace@example.com>")
    filtered = filter_change_sets(read_history(repo.root).change_sets, "main")
    assert [c.title for c in filtered.kept] == [
        "Initial layout",
        "Add gamma provider",
        "Tune the exit code",
        "Reword the registry",
    ]
    assert filtered.follow_ups == 0


def test_a_history_without_pull_request_markers_is_all_direct(repo: Repo) -> None:
    repo.write_files(base_files())
    commit_at(repo, "one", 0)
    repo.write("app/cli.py", "x = 1\n")
    commit_at(repo, "two", 1)
    history = read_history(repo.root)
    assert [(c.kind, c.pr) for c in history.change_sets] == [(DIRECT, None), (DIRECT, None)]


def test_an_empty_repository_says_so_in_one_line(repo: Repo) -> None:
    with pytest.raises(KgError, match="no commits yet"):
        read_history(repo.root)
    result = repo.kg("mine-playbooks")
    assert result.code == 2
    assert result.err.strip().count("\n") == 0
    assert "no commits yet" in result.err


def test_a_revision_that_names_nothing_says_so_in_one_line(providers: Repo) -> None:
    result = providers.kg("mine-playbooks", "--rev", "no-such-branch")
    assert result.code == 2
    assert result.err.strip() == (
        "kgtool: error: 'no-such-branch' does not name a commit in this repository"
    )


def test_a_shallow_clone_says_how_deep_a_history_is_needed(providers: Repo, tmp_path) -> None:
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "3", f"file://{providers.root}", str(clone)], check=True
    )
    result = Repo(clone).kg("mine-playbooks", "--max-changes", "10")
    assert result.code == 2
    assert "shallow clone (3 commits of history)" in result.err
    assert "the last 10 commits" in result.err and "--deepen=7" in result.err
    # Deep enough for what was asked: it runs.
    assert Repo(clone).kg("mine-playbooks", "--max-changes", "3", "--dry-run").code == 0
    # The clone holds the revert (2026-01-06 01:00), the bump and the release: a date after
    # the revert asks for nothing the clone lacks, a date before it does.
    after = Repo(clone).kg("mine-playbooks", "--since", "2026-01-06T05:00:00Z", "--dry-run")
    assert after.code == 0, after.err
    assert "read 2 change sets" in after.out
    before = Repo(clone).kg("mine-playbooks", "--since", "2026-01-01T12:00:00Z")
    assert before.code == 2
    assert "needs every commit since 2026-01-01T12:00:00Z" in before.err
    # Neither a date nor a number: all of it, and no --deepen to suggest.
    whole = Repo(clone).kg("mine-playbooks")
    assert whole.code == 2
    assert "mining needs the whole history: run `git fetch --unshallow` (in" in whole.err


def test_a_rename_made_on_a_side_branch_is_followed_through_its_merge(repo: Repo) -> None:
    repo.write_files(base_files())
    repo.write("app/old_name.py", "".join(f"def f{n}():\n    return {n}\n\n" for n in range(20)))
    commit_at(repo, "Initial layout", 0)
    repo.write("app/old_name.py", (repo.root / "app/old_name.py").read_text() + "X = 1\n")
    commit_at(repo, "Tune the old module", 5)
    repo.git("checkout", "-q", "-b", "move")
    repo.git("mv", "app/old_name.py", "app/new_name.py")
    commit_at(repo, "Move the module", 10)
    repo.write("app/new_name.py", "def g():\n    return 0\n")  # rewritten past recognition
    commit_at(repo, "Rewrite the module", 11)
    repo.git("checkout", "-q", "main")
    merge_at(repo, "move", "Merge pull request #7 from a/move", "Move and rewrite", 20)
    history = read_history(repo.root)
    merge = history.change_sets[-1]
    # The merge against its first parent is a deletion and an addition; the branch's own
    # commit says it was a rename, so it is one, and the earlier edit names the file as it is
    # called now.
    assert [(f.status, f.path) for f in merge.files] == [("R", "app/new_name.py")]
    tune = history.change_sets[1]
    assert [(f.status, f.path) for f in tune.files] == [("M", "app/new_name.py")]


def test_a_limit_out_of_range_is_refused_not_quietly_changed(repo: Repo) -> None:
    # --min-support 1 was read as 2, and --max-changes -5 as "the whole history".
    for option, value, said in [
        ("--min-support", "1", "must be at least 2, not 1"),
        ("--max-changes", "-5", "must be at least 0, not -5"),
        ("--max-files", "0", "must be at least 1, not 0"),
        ("--max-proposals", "ten", "'ten' is not a whole number"),
    ]:
        result = repo.kg("mine-playbooks", option, value)
        assert result.code == 2
        assert f"argument {option}: {said}" in result.err


def test_a_follow_up_editing_a_file_its_change_added_is_that_added_file(providers: Repo) -> None:
    from kgtool.mining.miner import Options, read_changes

    tasks = read_changes(providers.root, Options()).tasks()
    [gamma] = [t for t in tasks if t.change.title == "Add gamma provider"]
    # "Fix gamma: add the display name" edited the file "Add gamma provider" added: one item,
    # the added file's pattern, and gamma.py is one of the task's files once.
    assert gamma.items["app/providers/<name>.py"] == ["app/providers/gamma.py"]
    assert "app/providers/gamma.py" not in gamma.items
    assert gamma.files.count("app/providers/gamma.py") == 1


def test_a_monorepo_version_bump_is_set_aside_by_its_files_and_its_title(repo: Repo) -> None:
    packages = ("ai", "agent", "tui", "pods", "web")
    repo.write_files(
        {f"packages/{p}/package.json": '{"version": "0.1.0"}\n' for p in packages}
        | {f"packages/{p}/src/index.ts": "export const x = 1;\n" for p in packages}
        | {"package-lock.json": "{}\n"}
    )
    commit_at(repo, "Initial layout", 0)
    for minor in range(2, 6):
        for package in packages:  # every package's manifest and the lock file: a bump
            repo.write(f"packages/{package}/package.json", f'{{"version": "0.{minor}.0"}}\n')
        repo.write("package-lock.json", f'{{"v": {minor}}}\n')
        commit_at(repo, f"Update the packages for cycle {minor}", 10 * minor)
        repo.write("packages/ai/src/index.ts", f"export const x = {minor};\n")
        repo.write("packages/ai/package.json", f'{{"version": "0.{minor}.1"}}\n')
        commit_at(repo, f"chore: bump version to 0.{minor}.1", 10 * minor + 1)
    filtered = filter_change_sets(read_history(repo.root).change_sets, "main")
    aside = [c.title for c in filtered.set_aside[RELEASE]]
    assert len(aside) == 8, aside
    assert [c.title for c in filtered.kept] == ["Initial layout"]


def _change(
    title: str, kind: str = DIRECT, files: int = 1, email: str = "ada@example.com"
) -> ChangeSet:
    changed = tuple(FileChange("M", f"app/f{n}.py") for n in range(files))
    return ChangeSet("0" * 40, kind, None, "Ada", email, 0, title, title, changed)


@pytest.mark.parametrize(
    ("title", "branch", "reason"),
    [
        # git's own subject for a merge of a line, with no "into ...": a line brought in.
        ("Merge branch 'release-1.2'", "main", BRANCH_MERGE),
        ("Merge remote-tracking branch 'origin/main'", "main", BRANCH_MERGE),
        ("Merge branch 'dev'", "origin/dev", BRANCH_MERGE),  # the default branch, by name
        ("Merge branch 'dev'", "dev", BRANCH_MERGE),
        # A topic branch merged without a pull request is the work it brings.
        ("Merge branch 'feature-x'", "main", ""),
        ("Merge branch 'ada/feature-x'", "dev", ""),
    ],
)
def test_a_merge_bringing_in_a_line_is_set_aside_and_a_topic_branch_kept(
    title: str, branch: str, reason: str
) -> None:
    assert reason_for(_change(title, MERGE), branch, MAX_FILES) == reason


def test_a_bot_authors_change_is_a_bots_whatever_its_title_says() -> None:
    change = _change("Update translations (French)", email="hosted@weblate.org")
    assert reason_for(change, "main", MAX_FILES) == BOT
    assert reason_for(_change("Update translations (French)"), "main", MAX_FILES) == ""


def test_a_change_of_as_many_files_as_the_limit_is_kept_and_one_more_is_not() -> None:
    assert reason_for(_change("Add a feature", files=5), "main", 5) == ""
    assert reason_for(_change("Add a feature", files=6), "main", 5) == OVERSIZE


def test_a_pull_request_syncing_one_line_into_another_is_set_aside() -> None:
    assert reason_for(_change("Merge stable into main", MERGE), "main", MAX_FILES) == BRANCH_MERGE
    assert reason_for(_change("Merge ada/topic into main", MERGE), "main", MAX_FILES) == ""


def test_a_revert_is_known_by_what_it_reverts_or_by_its_title_alone() -> None:
    undone = ChangeSet("1" * 40, DIRECT, None, "Ada", "a@x", 0, "Undo the cache", "Undo the cache",
                       (FileChange("M", "app/cache.py"),), reverts="2" * 40)  # fmt: skip
    assert reason_for(undone, "main", MAX_FILES) == REVERT
    assert reason_for(_change('Revert "Add the cache"'), "main", MAX_FILES) == REVERT
    assert reason_for(_change("Revert 'Add the cache'"), "main", MAX_FILES) == REVERT


def test_fixes_up_to_a_week_after_a_change_are_grouped_with_it_and_counted() -> None:
    added = (FileChange("A", "app/cache.py"),)
    task = ChangeSet("1" * 40, DIRECT, None, "Ada", "a@x", 0, "Add a cache", "Add a cache", added)
    fixed = (FileChange("M", "app/cache.py"),)
    fixes = [
        ChangeSet(str(n) * 40, DIRECT, None, "Bo", "b@x", when, "Fix it", "Fix it", fixed)
        for n, when in ((2, 3600), (3, FIX_SECONDS))
    ]
    tasks, grouped = group_follow_ups([task, *fixes])
    assert (tasks, grouped) == ([task], 2)
    assert task.follow_ups == fixes


def test_a_name_taken_again_after_a_rename_is_the_new_file_s() -> None:
    """a.py renamed to b.py, then a new a.py: the old a.py's changes are b.py's, the new
    one's are a.py's (commits oldest first, as read)."""
    commits = [
        LogCommit("1" * 40, (), "Ada", "a@x", 0, "Add a", (LogFile("A", "a.py"),)),
        LogCommit("2" * 40, (), "Ada", "a@x", 1, "Edit a", (LogFile("M", "a.py"),)),
        LogCommit("3" * 40, (), "Ada", "a@x", 2, "Rename", (LogFile("R", "b.py", "a.py"),)),
        LogCommit("4" * 40, (), "Ada", "a@x", 3, "New a", (LogFile("A", "a.py"),)),
    ]
    assert final_names(commits) == [{"a.py": "b.py"}, {"a.py": "b.py"}, {"b.py": "b.py"},
                                     {"a.py": "a.py"}]  # fmt: skip
    assert final_names([]) == []


def test_a_change_set_keeps_the_follow_ups_it_is_given() -> None:
    fix = _change("Fix the feature")
    change = ChangeSet("1" * 40, DIRECT, None, "Ada", "a@x", 0, "Add", "Add", (), follow_ups=[fix])
    assert change.follow_ups == [fix]


def test_a_type_change_is_a_modification_and_a_merge_title_is_kept_whole(repo: Repo) -> None:
    """A file turned into a symbolic link is modified, not a status of its own; a pull
    request's title is its body's first line, whatever letters it ends in."""
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    (repo.root / "app/cli.py").unlink()
    (repo.root / "app/cli.py").symlink_to("providers/base.py")
    commit_at(repo, "Point the cli at the base", 1)
    repo.git("checkout", "-q", "-b", "tex")
    repo.write("app/tex.py", "X = 1\n")
    commit_at(repo, "tex", 2)
    repo.git("checkout", "-q", "main")
    merge_at(repo, "tex", "Merge pull request #5 from a/tex", "Support XeTeX", 3)
    history = read_history(repo.root)
    assert [(c.kind, c.title) for c in history.change_sets][1:] == [
        (DIRECT, "Point the cli at the base"),
        (MERGE, "Support XeTeX"),
    ]
    assert history.change_sets[1].files == (FileChange("M", "app/cli.py"),)


def test_a_pull_of_the_line_mined_into_itself_is_set_aside_on_any_branch_name(
    repo: Repo,
) -> None:
    """On a line called dev (no name a release line has), "Merge branch 'dev' of ..." — what
    git pull writes — brings the line into itself: set aside, as the line mined is dev."""
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    repo.git("branch", "-q", "-m", "dev")
    repo.write("app/cli.py", "def main():\n    return 1\n")
    commit_at(repo, "Tune the exit code", 10)
    repo.git("checkout", "-q", "-b", "upstream", "HEAD~1")
    repo.write("app/providers/base.py", "class Provider:\n    name = ''\n")
    commit_at(repo, "Name the providers", 12)
    repo.git("checkout", "-q", "dev")
    repo.git("merge", "-q", "--no-ff", "upstream", "-m", "Merge branch 'dev' of github.com:a/app")
    mined = read_changes(repo.root, Options(revision="dev"))
    assert mined.history.branch == "dev"
    assert [c.title for c in mined.filtered.set_aside[BRANCH_MERGE]] == [
        "Merge branch 'dev' of github.com:a/app"
    ]


def test_changes_over_the_file_limit_asked_for_are_set_aside_as_oversize(
    providers: Repo,
) -> None:
    """Each provider's addition changes four files: kept under the default limit, set aside
    under a limit of three."""
    assert read_changes(providers.root, Options()).filtered.set_aside[OVERSIZE] == []
    oversize = read_changes(providers.root, Options(max_files=3)).filtered.set_aside[OVERSIZE]
    assert "Add beta provider" in [c.title for c in oversize]
