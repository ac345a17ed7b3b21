"""Proposals from a scripted history: the six fields from evidence, pointers that resolve,
overlap with existing playbooks, a saved pull-request list, and the same bytes twice."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import Repo
from mining_helpers import commit_at, task_of
from playbook_helpers import add_playbook, playbook_text
from test_mining_history import providers  # noqa: F401 (the fixture)
from test_mining_kinds import mined_titles
from test_mining_tasks import (
    BUSY,
    DAY,
    TARGETS,
    edit,
    layout,
    routes_and_enrolments_mined,
    webhook_targets_mined,
)

from kgtool.config import load_config
from kgtool.mining.history import ChangeSet, FileChange
from kgtool.mining.miner import Options, mine, mine_history
from kgtool.mining.patterns import Pattern, Task
from kgtool.mining.proposals import (
    MARK,
    MAX_EVIDENCE,
    KeyFile,
    Proposal,
    _delay,
    _evidence,
    _pitfalls,
    _validation,
    place,
    project_checks,
)
from kgtool.playbook.parse import read_playbook
from kgtool.store import Store

PROPOSAL = "playbooks/proposed/add-a-provider.md"


@pytest.fixture
def mined(providers: Repo) -> Repo:  # noqa: F811
    assert providers.kg("update").code == 0
    result = providers.kg("mine-playbooks")
    assert result.code == 0, result.err
    return providers


def test_the_recurring_addition_becomes_one_proposal_with_six_fields(mined: Repo) -> None:
    out = mined.kg("mine-playbooks", "--dry-run").out
    title = "Add a provider"  # the words its titles share
    assert f"{PROPOSAL}: {title} (support 5, confidence 0.83" in out
    assert "1 unchanged, 0 skipped; a dry run: nothing was written" in out
    playbook = read_playbook(mined.root, PROPOSAL, 100_000)
    assert playbook.problems == []
    assert playbook.status == "proposed"
    assert [k.value for k in playbook.key_files] == [
        "app/providers/delta.py",  # the newest example of app/providers/<name>.py
        "app/providers/__init__.py",
        "checks/test_delta.py",
    ]
    text = (mined.root / PROPOSAL).read_text()
    assert "# 5 of 5, an example of app/providers/<name>.py" in text
    assert "an example of checks/test_<name>.py" in text
    assert "python -m pytest checks/test_<name>.py" in playbook.validation
    assert "ruff check" in playbook.validation
    gamma_fix = mined.git("log", "--format=%h", "-1", "--grep=display name").strip()[:7]
    assert any(
        p.startswith(f"{gamma_fix} “Fix gamma: add the display name” completed ")
        for p in playbook.pitfalls
    )
    # Bookkeeping is a step of its own, never a key file.
    assert "- `CHANGES.md` (5 of 5)" in text
    assert any(r.startswith("Additive:") for r in playbook.rollback)
    evidence = "\n".join(playbook.evidence)
    assert "#11 " in evidence and "#12 " in evidence and "Add gamma provider" in evidence
    assert playbook.concepts  # layer 2 exists: its communities are named


def test_a_proposals_body_shows_every_placeholder_and_path_as_written(mined: Repo) -> None:
    """GitHub reads "<name>" in markdown as an HTML tag and drops it: outside code spans and
    the front matter, a proposal's body escapes it; paths are code spans."""
    text = (mined.root / PROPOSAL).read_text()
    body = text.split("\n---\n", 1)[1]
    outside = re.sub(r"(`+).*?\1", "", body)  # what code spans do not hold
    assert re.search(r"(?<!\\)<", outside) is None, outside
    assert "Mined from 5 change sets" in body and "`app/providers/<name>.py`" in body


def test_every_proposal_passes_the_playbook_check(mined: Repo) -> None:
    assert [p.name for p in (mined.root / "playbooks/proposed").glob("*.md")] == [
        PROPOSAL.rpartition("/")[2]
    ]
    check = mined.kg("playbooks", "check")
    assert check.code == 0, check.out
    assert "1 playbook: 0 executable, 0 refused" in check.out


def test_the_revert_is_rollback_evidence(mined: Repo) -> None:
    playbook = read_playbook(mined.root, PROPOSAL, 100_000)
    revert = mined.git("log", "--format=%h", "-1", "--grep=This reverts").strip()[:7]
    assert any(r.startswith(f"{revert} “Revert") for r in playbook.rollback)


def test_the_same_history_writes_the_same_bytes(mined: Repo) -> None:
    before = (mined.root / PROPOSAL).read_bytes()
    again = mined.kg("mine-playbooks")
    assert "0 written, 0 updated, 1 unchanged" in again.out
    assert (mined.root / PROPOSAL).read_bytes() == before


def test_a_persons_playbook_with_the_same_files_wins(providers: Repo) -> None:  # noqa: F811
    add_playbook(providers, "add-provider", ["app/providers/__init__.py", "app/providers/delta.py"])
    result = providers.kg("mine-playbooks")
    assert "overlaps playbooks/add-provider.md" in result.out
    assert not (providers.root / PROPOSAL).exists()


def test_a_persons_playbook_wins_beside_a_proposals_folder_already_there(
    providers: Repo,  # noqa: F811
) -> None:
    """The playbooks folder is read for overlaps as well as the proposals folder, when that
    one already holds files."""
    add_playbook(providers, "add-provider", ["app/providers/__init__.py", "app/providers/delta.py"])
    providers.write("playbooks/proposed/README.md", "Proposals of the miner, to review.\n")
    result = providers.kg("mine-playbooks")
    assert "overlaps playbooks/add-provider.md" in result.out, result.out
    assert not (providers.root / PROPOSAL).exists()


def test_a_persons_file_at_the_proposals_path_is_kept_byte_for_byte(
    providers: Repo,  # noqa: F811
) -> None:
    """Only a file the miner wrote (its mark) is the miner's to rewrite: a person's playbook
    that happens to sit at the proposal's path, about something else, is left as it is."""
    theirs = playbook_text(["app/cli.py"]).encode()  # no key file of the proposal's
    path = providers.write(PROPOSAL, theirs)
    assert providers.kg("update").code == 0
    for _ in range(2):  # and again, with the miner's own proposal beside it
        result = providers.kg("mine-playbooks")
        assert result.code == 0, result.err
        assert path.read_bytes() == theirs
    moved = PROPOSAL.replace(".md", "-2.md")
    assert read_playbook(providers.root, moved, 100_000).status == "proposed"
    assert f"{moved}: Add a provider" in result.out, result.out


def test_only_a_mark_in_a_files_head_makes_it_the_miners(providers: Repo) -> None:  # noqa: F811
    """The miner's mark counts in a file's first 400 characters, where the miner writes it:
    a person's playbook that quotes it further down is the person's. A file of the folder
    that is not UTF-8 is read all the same."""
    theirs = playbook_text(["app/cli.py"]) + "Notes: "
    theirs += "." * (400 - len(theirs) - len(MARK) + 1) + MARK + "\n"
    assert theirs.index(MARK) + len(MARK) == 401  # its last character just past the head
    path = providers.write(PROPOSAL, theirs)
    providers.write("playbooks/proposed/notes.md", b"# Notes\n\xff\xfe not UTF-8\n")
    assert providers.kg("update").code == 0
    result = providers.kg("mine-playbooks")
    assert result.code == 0, result.err
    assert path.read_text() == theirs
    assert f"{PROPOSAL.replace('.md', '-2.md')}: Add a provider" in result.out, result.out


def test_an_earlier_proposal_gets_its_evidence_updated(mined: Repo) -> None:
    path = mined.root / PROPOSAL
    path.write_text(path.read_text().replace("#12 ", "#99 "))
    result = mined.kg("mine-playbooks")
    assert "0 written, 1 updated" in result.out
    assert "#12 " in path.read_text() and "#99 " not in path.read_text()


def test_a_saved_pull_request_list_gives_titles_and_labels(mined: Repo, tmp_path) -> None:
    prs = tmp_path / "prs.json"
    prs.write_text(
        json.dumps(
            [
                {
                    "number": 12,
                    "title": "Providers: add beta",
                    "labels": [{"name": "feature"}],
                    "author": {"login": "ada"},
                    "body": "",
                    "mergeCommit": {"oid": "0" * 40},
                },
                {"number": 11, "title": "Release the alpha", "labels": [{"name": "release"}]},
            ]
        )
    )
    result = mined.kg("mine-playbooks", "--prs", str(prs), "--dry-run")
    assert result.code == 0, result.err
    assert "2 matched a saved pull request" in result.out
    assert "release or version bump 2" in result.out  # the labelled one joins the release
    bad = tmp_path / "bad.json"
    bad.write_text('{"number": 1}')
    refused = mined.kg("mine-playbooks", "--prs", str(bad))
    assert refused.code == 2 and "must be a JSON array" in refused.err
    # One line, at the file and line of the entry or the syntax error.
    bad.write_text('[\n  {"number": 1},\n  {"title": "no number"}\n]\n')
    refused = mined.kg("mine-playbooks", "--prs", str(bad))
    assert refused.code == 2
    assert refused.err.strip() == (
        f"kgtool: error: {bad}:3: pull request 2 of 2 has no whole-number 'number'"
    )
    bad.write_text('[\n  {"number": 1},\n  {"number": 2,}\n]\n')
    refused = mined.kg("mine-playbooks", "--prs", str(bad))
    assert refused.code == 2 and f"{bad}:3: is not a JSON pull-request list" in refused.err


def test_checks_run_by_the_projects_package_manager_and_no_snapshot_is_a_test(
    tmp_path: Path,
) -> None:
    scripts = '{"scripts": {"test": "vitest", "lint": "eslint ."}%s}'
    (tmp_path / "package.json").write_text(scripts % "")
    assert project_checks(tmp_path) == ["npm test", "npm run lint"]
    (tmp_path / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n")
    assert project_checks(tmp_path) == ["pnpm test", "pnpm run lint"]
    # The manifest's own word wins over a lock file; bun runs scripts with "bun run".
    (tmp_path / "package.json").write_text(scripts % ', "packageManager": "yarn@4.1.0"')
    assert project_checks(tmp_path) == ["yarn test", "yarn run lint"]
    (tmp_path / "package.json").write_text(scripts % ', "packageManager": "bun@1.1.0"')
    assert project_checks(tmp_path) == ["bun run test", "bun run lint"]
    pattern = Pattern("lib/cli.mjs", "add", [], [
        ("lib/__tests__/cli.test.mjs", 5), ("lib/__tests__/__snapshots__/cli.test.mjs.snap", 5)
    ], 5)  # fmt: skip
    assert [line.partition(" (")[0] for line in _validation(pattern, [])] == [
        "the test lib/__tests__/cli.test.mjs"
    ]


def test_evidence_delays_and_a_missing_validation_are_said_exactly(tmp_path: Path) -> None:
    """The counts and words a proposal's reader relies on: how many changes the evidence
    leaves out, how long after a change its follow-up came, what is said when no test and
    no check command was found; and a package manager the manifest alone names."""
    start = 1_700_000_000
    changes = [
        ChangeSet(f"{i:040x}", "direct", None, "a", "a@x", start + i * 60, "Add", "Add", ())
        for i in range(MAX_EVIDENCE + 2)
    ]
    tasks = [Task(change, {"lib/x.py": ["lib/x.py"]}, set(), set(), "add") for change in changes]
    pattern = Pattern("lib/x.py", "add", tasks, [("lib/x.py", len(tasks))], len(tasks))
    lines = _evidence(pattern)
    assert len(lines) == MAX_EVIDENCE and lines[-1] == "and 3 more"
    gaps = (3_000, 5 * 3_600, 3 * 86_400)
    later = [
        ChangeSet(f"{0:040x}", "direct", None, "a", "a@x", start + seconds, "Add", "Add", ())
        for seconds in gaps
    ]
    assert [_delay(changes[0], then) for then in later] == [
        "within the hour",
        "5 hours later",
        "3 days later",
    ]
    assert _validation(pattern, []) == [
        f"none found: no test changed in the {MAX_EVIDENCE + 2} change sets of this pattern, "
        "and no check command was found in the project's configuration"
    ]
    (tmp_path / "package.json").write_text('{"scripts": {"test": "x"}, "packageManager": "pnpm@9"}')
    assert project_checks(tmp_path) == ["pnpm test"]


def test_every_check_a_project_names_is_found_in_its_order(tmp_path: Path) -> None:
    """Each script of package.json that checks (test, lint, typecheck, check, build), each
    make target (test, check, lint; not `all`, nor a variable assignment), tox, ruff, mypy,
    cargo and go: the commands a proposal's reader runs."""
    scripts = {name: "x" for name in ("build", "check", "typecheck", "lint", "test", "dev")}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    (tmp_path / "Makefile").write_text("CC := gcc\nall: lint\nlint:\ncheck:\ntest: all\n")
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\n[tool.mypy]\n[tool.tox]\n")
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    (tmp_path / "go.mod").write_text("module x\n")
    assert project_checks(tmp_path) == [
        "tox", "npm test", "npm run lint", "npm run typecheck", "npm run check",
        "npm run build", "make test", "make check", "make lint", "ruff check", "mypy",
        "cargo test", "go test ./...",
    ]  # fmt: skip


def test_a_proposal_is_written_exactly_so(mined: Repo) -> None:
    """Every line of one proposal (commit ids and the communities' IDs aside: they are the
    history's and layer 2's, not the miner's)."""
    text = (mined.root / PROPOSAL).read_text()
    text = re.sub(r"\b[0-9a-f]{7}\b", "<sha>", text)
    text = re.sub(r'^  - "c[0-9]+"$', '  - "<community>"', text, flags=re.MULTILINE)
    assert text == GOLDEN_PROPOSAL


GOLDEN_PROPOSAL = """\
---
# proposed by kgtool mine-playbooks from 5 change sets (support 5, confidence 0.83); review \
it, then move it to the playbooks folder as active.
title: "Add a provider"
intent: "Add a provider (a new app/providers/<name>.py and checks/test_<name>.py): the change \
made 5 times in this repository's history, as in “Add epsilon provider”, “Add delta \
provider”, “Add gamma provider”."
status: proposed
concepts:
  - "<community>"
  - "<community>"
key_files:
  - "app/providers/delta.py"  # 5 of 5, an example of app/providers/<name>.py
  - "app/providers/__init__.py"  # 5 of 5
  - "checks/test_delta.py"  # 5 of 5, an example of checks/test_<name>.py
validation:
  - "python -m pytest checks/test_<name>.py"
  - "ruff check"
pitfalls:
  - "<sha> “Fix gamma: add the display name” completed <sha> “Add gamma provider” within \
the hour: it changed app/providers/gamma.py again."
rollback:
  - "<sha> “Revert \\"Add epsilon provider\\"” reverted <sha> after the hour."
  - "Additive: most of the 5 change sets added new files (app/providers/<name>.py, \
checks/test_<name>.py) and edited app/providers/__init__.py; reverting only the new files \
leaves those edits naming files that are gone, so revert them together."
evidence:
  - "<sha> 2026-01-06 Add epsilon provider"
  - "<sha> 2026-01-05 Add delta provider"
  - "<sha> 2026-01-03 Add gamma provider"
  - "<sha> 2026-01-03 Fix gamma: add the display name (follow-up)"
  - "#12 <sha> 2026-01-02 Add beta provider"
  - "#11 <sha> 2026-01-01 Add the alpha provider"
---

# Add a provider

Mined from 5 change sets titled alike (`add <name> provider`, names as `<name>`) whose files \
overlap.

1. Add `app/providers/<name>.py`, as `app/providers/delta.py` did (5 of 5).
2. Edit `app/providers/__init__.py` (5 of 5).
3. Add `checks/test_<name>.py`, as `checks/test_delta.py` did (5 of 5).

Bookkeeping, as these change sets did it:

- `CHANGES.md` (5 of 5)
"""


def test_tox_environments_are_named_at_most_four(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text("[tox]\nenvlist = py310, py311,py312\n  lint, docs\n")
    assert project_checks(tmp_path) == [
        "tox -e py310", "tox -e py311", "tox -e py312", "tox -e lint",
    ]  # fmt: skip
    (tmp_path / "tox.ini").write_text("[testenv]\ncommands = pytest\n")
    assert project_checks(tmp_path) == ["tox"]


def test_a_readme_in_the_proposals_folder_is_no_playbook_to_overlap(
    providers: Repo,  # noqa: F811
) -> None:
    """A README that explains the proposals folder, naming the files a proposal names, is
    not a person's playbook: the proposal is still written beside it."""
    readme = playbook_text(["app/providers/__init__.py", "app/providers/delta.py"])
    providers.write("playbooks/proposed/README.md", readme, dedent=False)
    assert providers.kg("update").code == 0
    result = providers.kg("mine-playbooks")
    assert result.code == 0, result.err
    assert "overlaps" not in result.out, result.out
    assert (providers.root / PROPOSAL).is_file()


def test_a_verbose_run_says_each_step_on_stderr(providers: Repo) -> None:  # noqa: F811
    assert providers.kg("update").code == 0
    result = providers.kg("mine-playbooks", "-v", "--dry-run")
    assert result.code == 0, result.err
    steps = [line.partition("] ")[2] for line in result.err.splitlines()]
    assert steps[:3] == ["reading history", "read 11 change sets", "found 1 patterns"], steps


def test_a_mining_result_holds_the_lists_it_is_given() -> None:
    from kgtool.mining.filters import REASONS, Filtered
    from kgtool.mining.history import History
    from kgtool.mining.miner import Mined, MineResult

    mined = Mined(History([], "main"), Filtered([], {}))
    assert mined.patterns == []
    # Made without counts: no line of matched pull requests, no candidate set aside as a sweep.
    assert MineResult(mined).summary()[1:3] == [
        f"set aside 0: {', '.join(f'{reason} 0' for reason in REASONS)}",
        "0 tasks (0 follow-ups grouped with the change they complete); 0 patterns found, 0 "
        "candidates set aside as sweeps",
    ]
    patterns: list[Pattern] = []
    assert Mined(History([], "main"), Filtered([], {}), patterns=patterns).patterns is patterns
    proposals: list[tuple[Proposal, str, str]] = []
    written = ["playbooks/proposed/add-a-provider.md"]
    result = MineResult(mined, proposals=proposals, written=written)
    assert result.proposals is proposals and result.written is written
    assert MineResult(mined).proposals == []


def test_an_edit_task_says_its_gone_file_its_rollback_and_each_symbol_of_a_step(
    repo: Repo,
) -> None:
    """A task that only edits files: the file it edited that was deleted since is said in
    its pitfalls, the rollback says to revert the whole change, and a step lists each
    symbol the changes wrote in, comma-separated."""
    dispatch = (
        "def route(key):\n    seen = []\n{0}    return seen\n\n\n"
        "def register():\n    seen = []\n{0}    return seen\n"
    )
    webhook_targets_mined(
        repo,
        {
            "core/dispatch.py": (dispatch, "    seen.append('{}')\n"),
            "core/legacy.py": ("KNOWN = [\n{}]\n", "    '{}',\n"),
        },
    )
    (repo.root / "core/legacy.py").unlink()
    commit_at(repo, "Drop the legacy shim", DAY * 10)
    assert repo.kg("update").code == 0
    assert repo.kg("mine-playbooks").code == 0
    path = "playbooks/proposed/add-a-webhook-target.md"
    playbook = read_playbook(repo.root, path, 100_000)
    assert playbook.pitfalls[0] == (
        "core/legacy.py (3 of 3 changes) is no longer in the repository (deleted or renamed "
        "since): left out of key_files."
    )
    assert playbook.rollback == [
        "Not additive: it edits existing files (core/dispatch.py, core/legacy.py); revert the "
        "whole change (git revert of its commit) rather than part of it.",
        "No revert of any of the 3 change sets was seen.",
    ]
    steps = [line for line in (repo.root / path).read_text().splitlines() if line[:3] == "1. "]
    assert steps == [
        "1. Edit `core/dispatch.py` (3 of 3): `core/dispatch.py::register` (3 of the 3 newest),"
        " `core/dispatch.py::route` (3 of the 3 newest)."
    ]


def test_a_step_follows_a_symbol_moved_into_a_file_whose_name_holds_a_double_colon(
    repo: Repo,
) -> None:
    """A qualname never holds "::", a file name may: route, moved to core/v2::routes.py, is
    found there by what follows the pointer's last "::"."""
    routes_and_enrolments_mined(repo)
    kept, moved = (repo.root / "core/dispatch.py").read_text().split("\n\n\n")
    repo.write("core/dispatch.py", kept + "\n")
    repo.write("core/v2::routes.py", moved)
    commit_at(repo, "Split the dispatcher", DAY * 10)
    assert repo.kg("update").code == 0
    assert repo.kg("mine-playbooks").code == 0
    text = (repo.root / "playbooks/proposed/add-a-webhook-target.md").read_text()
    assert [line for line in text.splitlines() if line[:3] == "1. "] == [
        "1. Edit `core/dispatch.py` (3 of 3): `core/v2::routes.py::route` (moved) (3 of the 3 "
        "newest)."
    ], text


def test_a_proposal_made_without_steps_ends_at_its_title() -> None:
    """Steps are optional to a Proposal: without them it renders its front matter and its
    title, and nothing after."""
    pattern = Pattern("lib/x.py", "add", [], [("lib/x.py", 3)], 4)
    proposal = Proposal("add-x", "Add x", "Add x: the change made 3 times.", pattern, [], [],
                        [], [], [], [])  # fmt: skip
    assert proposal.steps == []
    assert proposal.render().endswith("---\n\n# Add x\n\n")


def test_a_first_run_writes_its_proposal_into_the_folder_asked_for(
    providers: Repo,  # noqa: F811
) -> None:
    """--out with a trailing slash names the folder all the same; a proposal new there is
    written (not updated), and a run given no pull-request list says nothing of one."""
    assert providers.kg("update").code == 0
    result = providers.kg("mine-playbooks", "--out", "review/")
    assert result.code == 0, result.err
    assert "review/add-a-provider.md: Add a provider (support 5" in result.out, result.out
    assert "proposals: 1 written, 0 updated, 0 unchanged, 0 skipped" in result.out.splitlines()
    assert "saved pull request" not in result.out
    assert read_playbook(providers.root, "review/add-a-provider.md", 100_000).status == "proposed"


# A Go version, pinned in three files.
PINNED = {"Makefile": "GO_VERSION := 1.20.1\n", "scripts/install_go.sh": "V=1.20.1\n",
          "docker/ci.docker": "FROM golang:1.20.1\n"}  # fmt: skip


def test_a_run_of_version_bumps_passed_over_leaves_the_next_pattern_proposed(repo: Repo) -> None:
    """The bumps, newer and more often done, make the first pattern; passed over, the task
    after it, three webhook targets, is still proposed."""
    layout(repo)
    for number, name in enumerate(TARGETS, 1):
        for path in BUSY:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add a webhook target for {name}", DAY * 10 * number)
    repo.write_files(PINNED)
    commit_at(repo, "Build with Go", DAY * 40)
    for number, version in enumerate(("1.20.2", "1.21.0", "1.21.3", "1.22.0", "1.22.4"), 5):
        repo.write_files({path: text.replace("1.20.1", version) for path, text in PINNED.items()})
        commit_at(repo, f"Add support for toolchain {version}", DAY * 10 * number)
    first, second = mine_history(repo.root, Options()).patterns
    assert (first.template, second.template) == (
        ("add", "toolchain", "<name>"),
        ("add", "webhook", "target", "<name>"),
    )
    result = mine(repo.root, load_config(repo.root), Store(repo.root),
                  Options(dry_run=True, llm=False))  # fmt: skip
    assert [p.title for p, _, _ in result.proposals] == ["Add a webhook target"]
    assert result.version_bumps == 1


def test_a_task_done_fewer_times_than_the_support_asked_for_is_no_pattern(repo: Repo) -> None:
    """Three webhook targets are a pattern at the default support of three, and none when
    four changes are asked for."""
    layout(repo)
    for number, name in enumerate(TARGETS, 1):
        for path in BUSY:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add a webhook target for {name}", DAY * 10 * number)
    assert len(mine_history(repo.root, Options()).patterns) == 1
    assert mine_history(repo.root, Options(min_support=len(TARGETS) + 1)).patterns == []


def test_a_pitfall_names_what_a_follow_up_changed_beyond_its_change() -> None:
    """A quick fix that touched files its change had not is said by those files ("also
    changed", the first three of them), not as the change's files changed again."""
    touched = ("lib/x.py", "lib/registry.py", "docs/x.md", "CHANGES.md", "tests/test_x.py")
    fix = ChangeSet("f" * 40, "direct", None, "a", "a@x", 1_800, "Register it", "Register it",
                    tuple(FileChange("M", path) for path in touched))  # fmt: skip
    change = task_of(0, "Add x", ["lib/x.py"]).change
    change.follow_ups = [fix]
    task = Task(change, {"lib/x.py": ["lib/x.py"]}, set(), set(), "add")
    pattern = Pattern("lib/x.py", "add", [task], [("lib/x.py", 1)], 1)
    assert _pitfalls(pattern)[0] == (
        f"fffffff “Register it” completed {change.short} “Add x” within the hour: it also "
        "changed CHANGES.md, docs/x.md, lib/registry.py."
    )


@pytest.mark.parametrize(("support", "among"), [(5, ""), (12, "newest ")])
def test_a_file_only_some_changes_touched_is_a_pitfall_out_of_those_read(
    support: int, among: str
) -> None:
    """docs/extra.md, in three of the changes (the newest, the one before and the fourth
    newest) but not in each of the newest four: out of all of them when there are few, out
    of the newest ten (which chose the file set) when there are more."""
    paged = {support - 1, support - 2, support - 4}
    both = ["lib/core.py", "docs/extra.md"]
    tasks = [task_of(n, "Edit core", both if n in paged else both[:1]) for n in range(support)]
    pattern = Pattern("lib/core.py", "change", tasks,
                      [("lib/core.py", support), ("docs/extra.md", 3)], support)  # fmt: skip
    held, newest = pattern.recent_count("docs/extra.md")
    assert (held, newest) == (3, min(support, 10))
    assert (
        f"docs/extra.md changed in 3 of the {among}{newest} change sets only: check whether "
        "yours needs it."
    ) in _pitfalls(pattern)


def test_nox_sessions_are_checks_and_scripts_that_are_no_table_are_none(tmp_path: Path) -> None:
    """Each @nox.session of noxfile.py (decorated further or not) is run by name; a
    package.json whose "scripts" is a list names no script."""
    (tmp_path / "noxfile.py").write_text(
        "import nox\n\n\n@nox.session\ndef tests(session):\n    pass\n\n\n"
        "@nox.session(python='3.12')\n@nox.parametrize('x', [1])\ndef lint(session, x):\n"
        "    pass\n"
    )
    (tmp_path / "package.json").write_text('{"scripts": ["test", "lint"]}')
    assert project_checks(tmp_path) == ["nox -s tests", "nox -s lint"]


def test_changes_of_which_only_half_bump_a_version_are_a_task(repo: Repo) -> None:
    """Of the four changes over the pinned files, two only bump the version and two add a
    build flag: bumps are no more than half of them, and the task is proposed."""
    layout(repo)
    repo.write_files(PINNED)
    commit_at(repo, "Build with Go", DAY)
    version, flags = "1.20.1", ""
    for number, step in enumerate(("1.20.2", "-race", "1.21.0", "-trimpath"), 1):
        if step.startswith("-"):  # a build flag, a line of its own in each file
            flags += f"# {step}\n"
        else:
            version = step
        repo.write_files({path: text.replace("1.20.1", version) + flags
                          for path, text in PINNED.items()})  # fmt: skip
        commit_at(repo, f"Add support for toolchain {number}", DAY * 10 * number)
    titles, summary = mined_titles(repo)
    assert titles == ["Add a toolchain"], (titles, summary)


def test_a_proposal_after_one_that_takes_its_earlier_path_is_placed_too(tmp_path: Path) -> None:
    """The first proposal rewrites the miner's earlier proposal at its path; the next, new,
    goes to a path of its own."""
    folder = "playbooks/proposed"
    (tmp_path / folder).mkdir(parents=True)
    (tmp_path / folder / "add-x.md").write_text(playbook_text(["lib/x.py"]))
    earlier = read_playbook(tmp_path, f"{folder}/add-x.md", 100_000)
    pattern = Pattern("lib/x.py", "add", [], [("lib/x.py", 3)], 3)

    def proposing(slug: str, path: str) -> Proposal:
        key = KeyFile(path, path, 3)
        return Proposal(slug, slug, slug, pattern, [key], [], [], [], [], [])

    first, second = proposing("add-x", "lib/x.py"), proposing("add-y", "lib/y.py")
    assert place([first, second], [(earlier, True)], folder) == [
        (first, f"{folder}/add-x.md", ""),
        (second, f"{folder}/add-y.md", ""),
    ]


def test_an_automake_projects_check_targets_are_read_from_makefile_am(tmp_path: Path) -> None:
    (tmp_path / "Makefile.am").write_text("SUBDIRS = src\ncheck-local:\ncheck:\n")
    assert project_checks(tmp_path) == ["make check"]


def test_of_two_playbooks_overlapping_a_proposal_alike_the_first_is_named(tmp_path: Path) -> None:
    """Two persons' playbooks share the proposal's files equally: the first of them, in
    path order, is the one the proposal overlaps."""
    for slug in ("a-first", "b-second"):
        add_playbook(Repo(tmp_path), slug, ["lib/x.py", "lib/y.py"])
    existing = [
        (read_playbook(tmp_path, f"playbooks/{slug}.md", 100_000), False)
        for slug in ("a-first", "b-second")
    ]
    pattern = Pattern("lib/x.py", "add", [], [("lib/x.py", 3)], 3)
    keys = [KeyFile(path, path, 3) for path in ("lib/x.py", "lib/y.py")]
    proposal = Proposal("add-x", "Add x", "Add x", pattern, keys, [], [], [], [], [])
    assert place([proposal], existing, "playbooks/proposed") == [
        (proposal, "playbooks/a-first.md", "overlaps playbooks/a-first.md")
    ]


def test_a_package_json_that_is_no_object_names_no_check(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('["test", "lint"]')
    assert project_checks(tmp_path) == []
