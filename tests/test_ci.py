"""``kgtool ci`` on scripted pull requests, under a simulated GitHub Actions environment.

Each pull request is a real git repository: a base commit on ``main`` with its ``.kg/`` and
playbooks, and a head commit on a branch. The Actions environment is what the runner sets:
``GITHUB_ACTIONS``, the summary and output files, and an event file naming the base.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from communities_helpers import clique, community_of
from conftest import GIT_ENV, Repo, Result
from fake_github import (
    FakeGitHub,
    fake_github_fixture,  # noqa: F401 (the fake_github fixture)
)
from playbook_helpers import add_playbook, line_of, playbook_text

from kgtool.findings import Finding
from kgtool.integrations import github, pr_check
from kgtool.integrations.github import MARKER, SUMMARY_LIMIT, escape_data, escape_property, fit
from kgtool.integrations.pr_check import (
    Base,
    CheckFinding,
    PullRequestReport,
    md_code,
    md_text,
)
from kgtool.pipeline.checks import CheckOutcome
from kgtool.playbook.model import ERROR, WARNING

APP = {
    "app/cli.py": "from app.store import Store\n\ndef main():\n    Store().save()\n",
    "app/store.py": "class Store:\n    def save(self):\n        return 1\n",
    "tests/test_store.py": "from app.store import Store\n\ndef test_save():\n    Store().save()\n",
}


@pytest.fixture(autouse=True)
def no_github_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests start outside Actions, whatever runs them; each sets what its run would have."""
    for name in list(os.environ):
        if name.startswith(("GITHUB_", "RUNNER_")):
            monkeypatch.delenv(name)
    # The fake API is on 127.0.0.1: a proxy configured on the machine must not take it.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")


@dataclass
class Actions:
    """The files a runner gives a step, and the event it describes."""

    folder: Path
    monkeypatch: pytest.MonkeyPatch

    @property
    def summary(self) -> str:
        path = self.folder / "summary.md"
        return path.read_text() if path.exists() else ""

    def outputs(self) -> dict[str, str]:
        """``$GITHUB_OUTPUT`` read as the runner reads it: ``name<<DELIMITER`` blocks."""
        lines = (self.folder / "output.txt").read_text().split("\n")
        values: dict[str, str] = {}
        i = 0
        while i < len(lines) - 1:
            name, delimiter = lines[i].split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        return values

    def event(self, base_sha: str, number: int = 7, fork: bool = False, ref: str = "main") -> None:
        head_repo = "someone/kgtool-fork" if fork else "acme/app"
        event = {
            "action": "synchronize",
            "number": number,
            "pull_request": {
                "number": number,
                "base": {"sha": base_sha, "ref": ref, "repo": {"full_name": "acme/app"}},
                "head": {"sha": "0" * 40, "ref": "feature", "repo": {"full_name": head_repo}},
            },
        }
        path = self.folder / "event.json"
        path.write_text(json.dumps(event))
        self.monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
        self.monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
        self.monkeypatch.setenv("GITHUB_BASE_REF", ref)


@pytest.fixture
def actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Actions:
    folder = tmp_path / "runner"
    folder.mkdir()
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(folder / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(folder / "output.txt"))
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/app")
    return Actions(folder, monkeypatch)


def updated(repo: Repo, message: str) -> str:
    """Commit the change with a fresh ``.kg/``, as the pre-commit hook makes people do."""
    repo.git("add", "-A")
    result = repo.kg("update")
    assert result.code == 0, result.err
    return repo.commit(message)


def pull_request(make_repo: Callable[..., Repo]) -> tuple[Repo, str]:
    """``main`` with the app, a playbook and ``.kg/``; the branch ``feature`` checked out."""
    repo = make_repo(APP, commit=False)
    add_playbook(repo, "save-data", ["app/store.py::Store.save", "tests/test_store.py"])
    base = updated(repo, "base")
    repo.git("checkout", "-q", "-b", "feature")
    return repo, base


def annotations(result: Result) -> list[str]:
    """The workflow commands before the plain report, which is printed as text only."""
    lines = result.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    return lines[:start]


def log_text(result: Result) -> str:
    """The plain report inside ``::stop-commands::TOKEN`` ... ``::TOKEN::``."""
    lines = result.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    assert lines[-1] == f"::{token}::"
    return "\n".join(lines[start + 1 : -1]) + "\n"


def section(summary: str, title: str) -> str:
    """One ``## title`` section of the summary, up to the next one."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", summary, re.M | re.S)
    assert match, f"no section {title!r} in:\n{summary}"
    return match.group(1)


def test_a_clean_pull_request_passes_with_its_changelog_and_playbooks(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    repo.write("app/store.py", APP["app/store.py"] + "\n    def load(self):\n        return 2\n")
    head = updated(repo, "load")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 0, result.out + result.err
    assert annotations(result) == []
    summary = actions.summary
    assert summary.startswith(
        f"## kgtool ci: passed\n\nbase {base[:12]} (the pull request's base), head "
    )
    assert (
        "\n\n| check | verdict | problems | warnings |\n|---|---|---:|---:|\n| raw graph |"
    ) in summary
    assert "| raw graph | ok | 0 | 0 |" in summary and "| playbooks | ok | 0 | 0 |" in summary
    assert section(summary, "Playbooks this change touches") == (
        "\n- this change touches key files of **save-data** (`app/store.py`): its validation "
        "is `pytest`\n\n"
    )
    changes = section(summary, "Architecture changes")
    assert f"Architecture {base[:12]} -> working tree:" in changes
    assert "Refused playbooks" not in summary and "Drifted labels" not in summary
    outputs = actions.outputs()
    assert outputs == {
        "verdict": "pass",
        "failed": "",
        "stale": "false",
        "refused": "0",
        "drifted": "0",
        "base": base,
        "diff": "done",
        "communities-touched": "0",
        "communities": "",
        "changed-files": "2",  # app/store.py and its shard .kg/raw/app.jsonl
        "playbooks-touched": "save-data",
        "comment": "off",
    }
    plain = log_text(result)
    assert plain.startswith(f"kgtool ci: passed\nbase {base[:12]} (the pull request's base), ")
    assert f"head the working tree on {head[:12]}\n" in plain
    assert (
        "  this change touches key files of save-data (app/store.py): its validation is "
        "`pytest`\n" in plain
    )


def test_a_stale_map_and_a_refused_playbook_are_errors_at_their_lines(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    repo.git("mv", "app/store.py", "app/storage.py")
    for path in ("app/cli.py", "tests/test_store.py"):
        repo.write(path, APP[path].replace("app.store", "app.storage"))
    repo.commit("rename the store, forget .kg/ and the playbook")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 1
    line = line_of(repo, "playbooks/save-data.md", "app/store.py::Store.save")
    renamed = repo.git("rev-parse", "--short", "HEAD").strip()
    message = (
        "key file 'app/store.py::Store.save' does not resolve (missing); it was renamed to "
        f"app/storage.py in {renamed}"
    )
    found = annotations(result)
    assert found[0] == (
        "::error file=.kg/raw/,title=kgtool%3A raw graph::"
        "R101 is out of date: app/cli.py, app/storage.py, app/store.py, tests/test_store.py "
        "changed since it was built: run `kgtool update`"
    )
    # Layer 2 is judged from the raw graph update would write, so it is stale too.
    assert found[1].startswith("::error file=.kg/")
    assert "title=kgtool%3A communities::C201 is out of date" in found[1]
    assert found[1].endswith(": run `kgtool update`")
    assert found[2:] == [
        f"::error file=playbooks/save-data.md,line={line},title=kgtool%3A playbooks::"
        f"P411 {message}",
    ]
    summary = actions.summary
    assert summary.startswith("## kgtool ci: failed\n")
    assert "| raw graph | **failed** | 1 | 0 |" in summary
    assert "| playbooks | **failed** | 1 | 0 |" in summary
    assert (
        "`.kg/` does not describe the code of this pull request:\n\n"
        "- .kg/raw/: error: R101 is out of date: app/cli.py, app/storage.py, app/store.py, "
        "tests/test\\_store.py changed since it was built: run \\`kgtool update\\`\n" in summary
    )
    refused = section(summary, "Refused playbooks")
    assert refused.startswith(
        f"\n- playbooks/save-data.md:{line}: error: P411 key file 'app/store.py::Store.save'"
    )
    assert summary.count("R101 is out of date") == 1  # said once, under its own heading
    assert "## Other findings" not in summary, summary
    outputs = actions.outputs()
    assert (outputs["verdict"], outputs["stale"], outputs["refused"]) == ("fail", "true", "1")
    assert outputs["failed"] == "raw-graph communities playbooks"
    # The changelog of a stale map is drawn from the map `kgtool update` would write, where
    # the store has moved; the committed one still has it where it was.
    assert outputs["diff"] == "done"
    assert "4 -> 4 files (+1 -1)" in section(summary, "Architecture changes")
    assert "FAILED: raw graph\n" in log_text(result)


def test_paths_and_messages_are_escaped_and_never_read_as_commands(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    odd = "playbooks/100%, odd: name.md"
    text = (repo.root / "playbooks/save-data.md").read_text()
    # A pointer whose value holds a newline and a line that looks like a workflow command.
    text = text.replace("  - tests/test_store.py", '  - "gone\\n::error::injected,50%: x.py"')
    repo.write(odd, text, dedent=False)
    updated(repo, "an oddly named playbook")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 1
    line = line_of(repo, odd, "gone")
    assert annotations(result) == [
        f"::error file=playbooks/100%25%2C odd%3A name.md,line={line},"
        "title=kgtool%3A playbooks::P411 key file 'gone%0A::error::injected,50%25: x.py' does not "
        "resolve (missing); no file by that name in git history"
    ]
    # The plain report spells the newline out (and is between stop-commands and its token).
    assert "key file 'gone\\n::error::injected,50%: x.py' does not resolve" in log_text(result)
    assert "\n::error::injected" not in log_text(result)
    summary = section(actions.summary, "Refused playbooks")
    assert "playbooks/100%, odd: name.md" in summary
    assert "gone\\\\n::error::injected,50%: x.py" in summary  # "\\n", escaped for markdown


def test_each_run_stops_commands_with_a_token_of_its_own(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    """A fixed token could be written into a pull request's text to end the stop early and
    have the lines after it read as workflow commands: each run draws a new one."""
    repo, base = pull_request(make_repo)
    actions.event(base)
    tokens = []
    for _ in range(3):
        lines = repo.kg("ci").out.splitlines()
        start = next(line for line in lines if line.startswith("::stop-commands::"))
        tokens.append(start.removeprefix("::stop-commands::"))
        assert lines[-1] == f"::{tokens[-1]}::"
    assert len(set(tokens)) == 3, tokens


def test_escaping_follows_the_toolkit() -> None:
    assert escape_data("50%\r\nnext: a,b") == "50%25%0D%0Anext: a,b"
    assert escape_property("50%\r\nnext: a,b") == "50%25%0D%0Anext%3A a%2Cb"
    assert github.command("warning", "m", "", 4, "t") == "::warning title=t::m"


def test_markdown_and_html_a_pull_request_writes_are_shown_as_text() -> None:
    """Playbooks and file names come from the pull request: in the summary and the comment
    they must not turn into links, images, table cells or bold."""
    assert md_text("**x** <img src=x> a|b [l](u) `c` & d\r\nnext") == (
        "\\*\\*x\\*\\* &lt;img src=x> a\\|b \\[l\\](u) \\`c\\` &amp; d<br>next"
    )
    # A code span holds its text exactly, whatever backticks it has; it is one line.
    assert md_code("pytest -k 'a`b'") == "``pytest -k 'a`b'``"
    assert md_code("`x`") == "`` `x` ``"
    assert md_code("a\nb") == "`a b`"


def test_past_the_cap_one_notice_counts_the_rest(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    add_playbook(repo, "many", [f"app/gone{i}.py" for i in range(13)])
    updated(repo, "a playbook of missing files")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 1
    lines = annotations(result)
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == github.ANNOTATIONS_PER_KIND == 10
    assert errors[0].startswith("::error file=playbooks/many.md,line=")
    assert "app/gone0.py" in errors[0] and "app/gone9.py" in errors[9]
    assert lines[10:] == [
        "::notice title=kgtool ci::3 more errors not annotated: GitHub shows 10 errors and 10 "
        "warnings per step; the log of this step and the job summary list them all"
    ]
    assert all(f"app/gone{i}.py" in log_text(result) for i in range(13))
    refused = section(actions.summary, "Refused playbooks")
    assert len(refused.strip().splitlines()) == 13
    assert actions.outputs()["refused"] == "1"


def test_sections_that_do_not_fit_are_cut_whole_and_named() -> None:
    head = "## kgtool ci: failed\n"
    sections = [
        ("Refused playbooks", "## Refused playbooks\n\n" + "- a\n" * 100_000),  # 400 kB
        ("Architecture changes", "## Architecture changes\n\n" + "x" * 700_000 + "\n"),
        ("Playbook warnings", "## Playbook warnings\n\n- w\n"),
    ]
    text = fit(head, sections, SUMMARY_LIMIT, "the limit")
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT
    assert "- a\n" * 100_000 in text and "## Playbook warnings\n\n- w\n" in text
    assert "x" * 1000 not in text
    assert (
        "## Architecture changes\n\nCut: this section (700,026 bytes) would take the report "
        "past the limit. The log of this step, or `kgtool ci` run locally, shows it.\n" in text
    )


def test_a_summary_with_no_room_left_is_said_in_an_annotation(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    actions.event(base)
    full = "e" * (SUMMARY_LIMIT - 10) + "\n"  # an earlier command of the step took it all
    (actions.folder / "summary.md").write_text(full)

    result = repo.kg("ci")

    assert actions.summary == full
    assert any(
        "no job summary: this step's summary is at GitHub's 1 MiB limit already; the log of "
        "this step holds the report" in line
        for line in annotations(result)
    ), result.out


def test_the_summary_stays_under_github_limit_with_what_the_step_wrote_before(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    add_playbook(repo, "many", [f"app/gone{i}.py" for i in range(13)])
    updated(repo, "a playbook of missing files")
    actions.event(base)
    earlier = "e" * (SUMMARY_LIMIT - 1600) + "\n"  # an earlier command of the same step
    (actions.folder / "summary.md").write_text(earlier)

    result = repo.kg("ci")

    assert result.code == 1
    summary = actions.summary
    assert len(summary.encode("utf-8")) <= SUMMARY_LIMIT
    ours = summary.removeprefix(earlier)
    assert ours.startswith("## kgtool ci: failed\n")
    assert "| playbooks | **failed** | 13 | 0 |" in ours
    assert re.search(r"## Refused playbooks\n\nCut: this section \([\d,]+ bytes\)", ours)
    assert "## Playbooks this change touches\n\nNone of the files" in ours  # small: kept


def test_a_summary_that_ends_exactly_at_one_mib_is_kept_whole(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    """GitHub's limit is 1024k (1,048,576 bytes), not a million: a summary between the two
    is shown, so nothing of it is cut."""
    repo, base = pull_request(make_repo)
    actions.event(base)
    assert repo.kg("ci").code == 0
    ours = actions.summary
    mib = 1024 * 1024
    earlier = "e" * (mib - len(ours.encode("utf-8")) - 1) + "\n"  # leaves just our room
    (actions.folder / "summary.md").write_text(earlier)

    result = repo.kg("ci")

    assert result.code == 0
    assert actions.summary == earlier + ours
    assert len(actions.summary.encode("utf-8")) == mib
    assert not any("no job summary" in line for line in annotations(result)), result.out


def shallow_clone(repo: Repo, branch: str, depth: int, into: Path) -> Repo:
    env = {**os.environ, **GIT_ENV, "HOME": str(into.parent)}
    subprocess.run(
        ["git", "clone", "-q", f"--depth={depth}", "--branch", branch, repo.root.as_uri(), into],
        env=env,
        check=True,
        capture_output=True,
    )
    return Repo(into)


def merged_pull_request(make_repo: Callable[..., Repo]) -> tuple[Repo, str]:
    """What actions/checkout fetches for a pull request: the merge of its head into the base,
    on ``refs/pull/N/merge``; here the branch ``pr-merge``."""
    repo, base = pull_request(make_repo)
    repo.write("app/store.py", APP["app/store.py"] + "\n    def load(self):\n        return 2\n")
    updated(repo, "load")
    repo.git("checkout", "-q", "-b", "pr-merge", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge feature into main", "feature")
    return repo, base


def test_a_shallow_clone_gives_every_verdict_and_says_what_to_fetch(
    make_repo: Callable[..., Repo], actions: Actions, tmp_path: Path
) -> None:
    origin, base = merged_pull_request(make_repo)
    clone = shallow_clone(origin, "pr-merge", 1, tmp_path / "depth1")
    assert clone.git("rev-parse", "--is-shallow-repository").strip() == "true"
    actions.event(base)

    result = clone.kg("ci")

    assert result.code == 0, result.out
    need = (
        f"the architecture diff and the playbooks this change touches need the base commit "
        f"{base[:12]}, which this shallow clone lacks: set fetch-depth: 0 in actions/checkout "
        "(fetch-depth: 2 is enough: it is a parent of HEAD)"
    )
    assert annotations(result) == [f"::warning title=kgtool ci::{need}"]
    summary = actions.summary
    assert "| raw graph | ok | 0 | 0 |" in summary and "| playbooks | ok | 0 | 0 |" in summary
    assert f"\nNot checked: {md_text(need)}\n" in summary
    assert "## Architecture changes" not in summary
    outputs = actions.outputs()
    assert (outputs["verdict"], outputs["diff"], outputs["base"]) == ("pass", "skipped", "")
    assert f"not checked: {need}\n" in log_text(result)

    # Two commits of history hold the base: the diff is back.
    deeper = shallow_clone(origin, "pr-merge", 2, tmp_path / "depth2")
    (actions.folder / "summary.md").unlink()
    (actions.folder / "output.txt").unlink()
    again = deeper.kg("ci")
    assert again.code == 0 and annotations(again) == []
    assert actions.outputs()["diff"] == "done"
    assert section(actions.summary, "Playbooks this change touches").startswith(
        "\n- this change touches key files of **save-data** (`app/store.py`)"
    )


def test_without_the_base_branch_it_says_so_in_one_line(
    make_repo: Callable[..., Repo], actions: Actions, tmp_path: Path
) -> None:
    origin, _ = merged_pull_request(make_repo)
    clone = shallow_clone(origin, "pr-merge", 1, tmp_path / "depth1")
    actions.monkeypatch.setenv("GITHUB_BASE_REF", "main")  # no event file: the branch only

    result = clone.kg("ci")

    assert result.code == 0
    assert annotations(result) == [
        "::warning title=kgtool ci::the architecture diff and the playbooks this change "
        "touches need the base branch 'main', which this shallow clone lacks: set "
        "fetch-depth: 0 in actions/checkout"
    ]


def test_a_fork_without_a_token_skips_the_comment_in_one_line(
    make_repo: Callable[..., Repo], actions: Actions, fake_github: FakeGitHub
) -> None:
    repo, base = pull_request(make_repo)
    actions.event(base, fork=True)
    actions.monkeypatch.setenv("GITHUB_API_URL", fake_github.url)

    result = repo.kg("ci", "--comment")

    assert result.code == 0
    assert log_text(result).endswith(
        "comment skipped: no GITHUB_TOKEN (pull requests from forks get no secrets)\n"
    )
    assert actions.outputs()["comment"] == "skipped"
    assert fake_github.requests == []


def test_the_sticky_comment_is_created_once_then_updated(
    make_repo: Callable[..., Repo], actions: Actions, fake_github: FakeGitHub
) -> None:
    repo, base = pull_request(make_repo)
    actions.event(base, number=12)
    actions.monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    actions.monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    fake_github.add(12, "LGTM", login="reviewer")
    # A person who copied the marker: their comment is not ours to edit.
    quoted = fake_github.add(12, f"{MARKER}\ncopied by a person", login="reviewer")

    first = repo.kg("ci", "--comment")

    assert first.code == 0
    created = [c for c in fake_github.on_issue(12) if c["id"] not in (101, quoted)]
    assert len(created) == 1
    assert created[0]["body"].startswith(f"{MARKER}\n## kgtool ci: passed\n")
    assert f"comment created: https://example.test/c/{created[0]['id']}\n" in log_text(first)
    assert actions.outputs()["comment"] == "created"
    post = fake_github.requests[-1]
    assert (post.method, post.path) == ("POST", "/api/v3/repos/acme/app/issues/12/comments")
    assert post.headers["authorization"] == "Bearer t0ken"
    assert post.headers["x-github-api-version"] == "2022-11-28"
    # A request with a body says it is JSON; one without (a GET) sends neither.
    assert post.headers["content-type"] == "application/json"
    gets = [r for r in fake_github.requests if r.method == "GET"]
    assert gets and all("content-type" not in r.headers and r.body is None for r in gets)
    assert all("content-length" not in r.headers for r in gets)

    # The next push breaks a playbook: the same comment now says so.
    add_playbook(repo, "broken", ["app/gone.py"])
    updated(repo, "a broken playbook")
    second = repo.kg("ci", "--comment")

    assert second.code == 1
    assert len(fake_github.on_issue(12)) == 3
    body = fake_github.comments[created[0]["id"]]["body"]
    assert body.startswith(f"{MARKER}\n## kgtool ci: failed\n")
    assert "## Refused playbooks" in body
    assert fake_github.comments[quoted]["body"] == f"{MARKER}\ncopied by a person"
    patch = fake_github.requests[-1]
    assert (patch.method, patch.path) == (
        "PATCH",
        f"/api/v3/repos/acme/app/issues/comments/{created[0]['id']}",
    )
    assert f"comment updated: https://example.test/c/{created[0]['id']}\n" in log_text(second)


def test_with_a_person_s_token_their_own_comment_is_the_sticky_one(
    make_repo: Callable[..., Repo], actions: Actions, fake_github: FakeGitHub
) -> None:
    repo, base = pull_request(make_repo)
    actions.event(base, number=3)
    actions.monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    actions.monkeypatch.setenv("GITHUB_TOKEN", "a-personal-token")
    fake_github.login = "maintainer"
    someone = fake_github.add(3, f"{MARKER}\ncopied by a person", login="reviewer")

    assert repo.kg("ci", "--comment").code == 0
    assert repo.kg("ci", "--comment").code == 0

    ours = [c for c in fake_github.on_issue(3) if c["id"] != someone]
    assert [c["user"]["login"] for c in ours] == ["maintainer"]  # created once, then updated
    assert [r.method for r in fake_github.requests if r.method != "GET"] == ["POST", "PATCH"]
    assert fake_github.comments[someone]["body"] == f"{MARKER}\ncopied by a person"


def test_a_comment_without_the_marker_is_never_the_sticky_one(
    make_repo: Callable[..., Repo], actions: Actions, fake_github: FakeGitHub
) -> None:
    """Another workflow writes as the same bot, and a person's token writes as that person:
    their comments that do not start with the marker are not kgtool's to edit."""
    repo, base = pull_request(make_repo)
    actions.event(base, number=5)
    actions.monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    actions.monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    coverage = fake_github.add(5, "Coverage: 91%")  # by the Actions bot, as kgtool's would be

    assert repo.kg("ci", "--comment").code == 0

    assert fake_github.comments[coverage]["body"] == "Coverage: 91%"
    [ours] = [c for c in fake_github.on_issue(5) if c["id"] != coverage]
    assert ours["body"].startswith(f"{MARKER}\n")
    assert [r.method for r in fake_github.requests if r.method != "GET"] == ["POST"]

    # With a person's token, their own comment is theirs unless it carries the marker.
    fake_github.login = "maintainer"
    said = fake_github.add(6, "Please rebase", login="maintainer")
    actions.event(base, number=6)
    assert repo.kg("ci", "--comment").code == 0
    assert fake_github.comments[said]["body"] == "Please rebase"
    assert len(fake_github.on_issue(6)) == 2


def test_a_read_only_token_is_one_line_not_a_failure(
    make_repo: Callable[..., Repo], actions: Actions, fake_github: FakeGitHub
) -> None:
    repo, base = pull_request(make_repo)
    actions.event(base, fork=True)
    actions.monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    actions.monkeypatch.setenv("GITHUB_TOKEN", "read-only")
    fake_github.refuse = 403

    result = repo.kg("ci", "--comment")

    assert result.code == 0
    said = [line for line in log_text(result).splitlines() if line.startswith("comment")]
    assert said == [
        "comment skipped: the token may not write to this pull request: HTTP 403 "
        "(Resource not accessible by integration)"
    ]
    assert actions.outputs()["comment"] == "skipped"
    assert fake_github.comments == {}


def test_an_unreachable_api_only_skips_the_comment(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    actions.event(base)
    actions.monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # discard: refused
    actions.monkeypatch.setenv("GITHUB_TOKEN", "t0ken")

    result = repo.kg("ci", "--comment")

    assert result.code == 0
    comment = [line for line in log_text(result).splitlines() if line.startswith("comment")]
    assert len(comment) == 1
    assert comment[0].startswith(
        "comment skipped: GET http://127.0.0.1:9/user failed: "  # its first request
    )


def test_outside_actions_the_same_report_goes_to_the_terminal(
    make_repo: Callable[..., Repo],
) -> None:
    repo, base = pull_request(make_repo)
    add_playbook(repo, "broken", ["app/gone.py"])
    head = updated(repo, "a broken playbook")

    result = repo.kg("ci")

    assert result.code == 1
    line = line_of(repo, "playbooks/broken.md", "app/gone.py")
    lines = result.out.splitlines()
    assert lines[:7] == [
        "kgtool ci: FAILED",
        f"base {base[:12]} (merge base with main), head the working tree on {head[:12]}",
        "ok: raw graph",
        "ok: communities",
        "ok: labels",
        "FAILED: playbooks",
        f"  playbooks/broken.md:{line}: error: P411 key file 'app/gone.py' does not resolve "
        "(missing); "
        "no file by that name in git history; nearest existing path: app/store.py, app/cli.py",
    ]
    assert lines[7].startswith(f"Architecture {base[:12]} -> working tree: ")
    assert lines[-1] == "Playbooks this change touches: none"
    assert not any(line.startswith("::") for line in lines)


def test_base_option_help_and_bad_usage(make_repo: Callable[..., Repo]) -> None:
    repo, base = pull_request(make_repo)
    updated(repo, "nothing")
    assert repo.kg("ci", "--base", "nope").code == 2
    assert f"base {base[:12]} (--base)" in repo.kg("ci", "--base", "main").out
    helped = repo.kg("ci", "--help")
    assert helped.code == 0
    assert "exit codes:" in helped.out and "kgtool ci --base origin/main" in helped.out


def test_outputs_survive_any_value(tmp_path: Path) -> None:
    path = tmp_path / "output.txt"
    github.write_outputs(str(path), {"a": "one\ntwo\n", "b": "EOF"})
    text = path.read_text()
    first, second = text.split("\n")[0], text.split("\n")[5]
    delimiter = first.split("<<", 1)[1]
    assert first == f"a<<{delimiter}" and delimiter.startswith("ghadelimiter_")
    assert text.startswith(f"a<<{delimiter}\none\ntwo\n\n{delimiter}\nb<<")
    assert second.startswith("b<<ghadelimiter_") and second.split("<<")[1] != delimiter


def test_drifted_labels_are_warnings_at_their_line(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    files = {
        ".kgtool.yaml": "ontology:\n  min_edge_count: 1\n",
        **clique("alpha", ["a0", "a1", "a2", "a3"], {"a0": ["beta.b0.beta_b0"]}),
        **clique("beta", ["b0", "b1", "b2", "b3"]),
    }
    repo = make_repo(files, commit=False)
    repo.git("add", "-A")
    assert repo.kg("label", "--offline").code == 0
    base = repo.commit("labelled")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write_files(clique("beta", [f"b{i}" for i in range(8)]))  # beta doubles
    updated(repo, "beta doubles")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 0  # drift warns unless ontology.fail_on_drift
    beta = community_of(repo, "beta/b0.py")
    text = (repo.root / ".kg/ontology.yaml").read_text().splitlines()
    line = next(n for n, row in enumerate(text, 1) if row.strip() == f"{beta}:")
    name = yaml.safe_load("\n".join(text))["communities"][beta]["name"]
    assert annotations(result) == [
        f"::warning file=.kg/ontology.yaml,line={line},title=kgtool%3A labels::L301 label "
        f"'{name}' of "
        f"{beta} drifted: members 0.50 > 0.30 (written for 4 files, now 8: 4 joined, 0 left); "
        f"run `kgtool label` or `kgtool label --accept {beta}`"
    ]
    drifted = section(actions.summary, "Drifted labels")
    assert drifted.startswith(f"\n- .kg/ontology.yaml:{line}: warning: L301 label ")
    assert "| labels | ok | 0 | 1 |" in actions.summary
    # The changelog names the label change too, in words.
    changes = section(actions.summary, "Architecture changes")
    assert f"\n- label drifted: {beta} '{name}': members 0.50 > 0.30" in changes
    assert actions.outputs()["drifted"] == "1"


def test_a_long_report_is_cut_to_a_comment_github_accepts() -> None:
    problems = [
        Finding(
            "playbooks/p.md", n, ERROR, "P411", f"key file 'x{n}.py' does not resolve " + "y" * 200
        )
        for n in range(400)
    ]
    lines = [problem.format() for problem in problems]
    report = PullRequestReport(
        [CheckOutcome("playbooks", problems)],
        [CheckFinding("playbooks", problem) for problem in problems],
        Base("a" * 40, "--base"),
        "b" * 40,
    )
    body = github.comment_body(report)
    assert len(body) <= github.COMMENT_LIMIT < len("".join(lines))
    assert body.startswith(f"{MARKER}\n## kgtool ci: failed\n")
    assert "| playbooks | **failed** | 400 | 0 |" in body
    assert re.search(r"## Refused playbooks\n\nCut: this section \([\d,]+ bytes\) would take", body)
    assert "GitHub's limit of 65,536 characters for a comment" in body


def test_an_unreadable_event_is_bad_usage(make_repo: Callable[..., Repo], actions: Actions) -> None:
    repo, _ = pull_request(make_repo)
    (actions.folder / "event.json").write_text("{not json")
    actions.monkeypatch.setenv("GITHUB_EVENT_PATH", str(actions.folder / "event.json"))
    result = repo.kg("ci")
    assert result.code == 2
    assert result.err.startswith("kgtool: error: cannot read the event file GITHUB_EVENT_PATH=")


def test_a_shallow_clone_still_fails_what_needs_no_base(
    make_repo: Callable[..., Repo], actions: Actions, tmp_path: Path
) -> None:
    origin, base = pull_request(make_repo)
    add_playbook(origin, "broken", ["app/gone.py"])
    origin.commit("a broken playbook, .kg/ not updated")
    clone = shallow_clone(origin, "feature", 1, tmp_path / "depth1")
    actions.event(base)

    result = clone.kg("ci")

    assert result.code == 1
    lines = annotations(result)
    assert [line.split("::")[1] for line in lines] == [
        "error file=.kg/raw/,title=kgtool%3A raw graph",
        "error file=.kg/communities.json,title=kgtool%3A communities",
        f"error file=playbooks/broken.md,line={line_of(clone, 'playbooks/broken.md', 'gone')},"
        "title=kgtool%3A playbooks",
        "warning title=kgtool ci",
    ]
    # One commit on top of the base: the base is its parent, so two commits of history do.
    assert lines[3].endswith(
        "set fetch-depth: 0 in actions/checkout (fetch-depth: 2 is enough: it is a parent of HEAD)"
    )
    outputs = actions.outputs()
    assert (outputs["verdict"], outputs["stale"], outputs["refused"]) == ("fail", "true", "1")


def test_the_cap_holds_for_each_kind_and_notes_come_first_among_warnings() -> None:
    def finding(level: str, n: int) -> CheckFinding:
        return CheckFinding("playbooks", Finding("p.md", n, level, "P411", f"m{n}"))

    found = [finding(ERROR, n) for n in range(12)] + [finding(WARNING, n) for n in range(12)]
    lines = github.annotations(found, ["fetch the base"])
    assert [line.split(" ", 1)[0] for line in lines] == (
        ["::error"] * 10 + ["::warning"] * 10 + ["::notice"]
    )
    assert lines[10] == "::warning title=kgtool ci::fetch the base"
    # Line 0 means the file as a whole: no line property.
    assert lines[11] == "::warning file=p.md,title=kgtool%3A playbooks::P411 m0"
    assert lines[12] == "::warning file=p.md,line=1,title=kgtool%3A playbooks::P411 m1"
    assert lines[-1].startswith("::notice title=kgtool ci::2 more errors and 3 more warnings ")


def test_an_event_without_a_base_commit_is_compared_at_the_merge_base_with_its_branch(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    """A push-like event names the base branch (GITHUB_BASE_REF) but no base commit: the
    comparison is with the merge base, not the branch's tip, which has moved on since."""
    repo, base = pull_request(make_repo)
    repo.write("app/store.py", APP["app/store.py"] + "\n    def load(self):\n        return 2\n")
    updated(repo, "load")
    repo.git("checkout", "-q", "main")
    repo.write("app/cli.py", APP["app/cli.py"] + "\n\ndef other():\n    return 3\n")
    updated(repo, "main moves on")
    repo.git("checkout", "-q", "feature")
    path = actions.folder / "event.json"
    path.write_text(json.dumps({"action": "workflow_dispatch"}))
    actions.monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    actions.monkeypatch.setenv("GITHUB_BASE_REF", "main")

    result = repo.kg("ci")

    assert result.code == 0, result.out + result.err
    assert f"base {base[:12]} (merge base with main), head" in actions.summary
    assert actions.outputs()["base"] == base
    assert "Architecture changes" in actions.summary


def test_a_touched_playbook_refused_for_its_validation_says_it_has_none(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    """A playbook refused for an empty validation list is still named as touched, with
    what it lacks and that it must be fixed before it is followed."""
    repo = make_repo(APP, commit=False)
    repo.write(
        "playbooks/save-data.md",
        playbook_text(["app/store.py::Store.save"]).replace("validation: pytest", "validation: []"),
        dedent=False,
    )
    base = updated(repo, "base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("app/store.py", APP["app/store.py"] + "\n    def load(self):\n        return 2\n")
    updated(repo, "load")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 1, result.out + result.err
    assert section(actions.summary, "Playbooks this change touches") == (
        "\n- this change touches key files of **save-data** (`app/store.py`): its validation "
        "is not written down (refused or not active: fix it before following it)\n\n"
    )
    assert (
        "  this change touches key files of save-data (app/store.py): its validation is not "
        "written down (refused or not active: fix it before following it)\n"
    ) in log_text(result)


def test_a_shallow_clone_with_no_pull_request_says_it_lacks_the_merge_base(
    make_repo: Callable[..., Repo], actions: Actions, tmp_path: Path
) -> None:
    """No event and no base branch: the base is the merge base with the default branch,
    which a clone of one commit cannot find; it says so rather than compare with a name."""
    origin, _ = merged_pull_request(make_repo)
    clone = shallow_clone(origin, "pr-merge", 1, tmp_path / "depth1")
    # The default branch's tip, one commit deep: no history shared with HEAD here.
    clone.git("fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main")
    clone.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    result = clone.kg("ci")
    assert result.code == 0, result.out
    assert annotations(result) == [
        "::warning title=kgtool ci::the architecture diff and the playbooks this change "
        "touches need the merge base with origin/main, which this shallow clone lacks: set "
        "fetch-depth: 0 in actions/checkout"
    ]
    assert actions.outputs()["base"] == ""  # no commit named after a branch


@pytest.mark.parametrize(("number", "read"), [(12, 12), ("12", 0), (True, 0), (-3, 0), (None, 0)])
def test_an_event_names_a_pull_request_only_by_a_positive_number(
    tmp_path: Path, number: object, read: int
) -> None:
    # 0 means no pull request to comment on: never #1 (True) or a number given as text.
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": number, "base": {"sha": "abc"}}}))
    found = pr_check.read_event({"GITHUB_EVENT_PATH": str(event)})
    assert (found.number, found.base_sha) == (read, "abc")


def test_a_base_that_looks_like_an_option_is_refused(make_repo: Callable[..., Repo]) -> None:
    repo, _ = pull_request(make_repo)
    refused = repo.kg("ci", "--base=--output=x")
    assert refused.code == 2 and "'--output=x' is not a revision" in refused.err, refused.err


@pytest.mark.parametrize(
    ("event", "base_sha"),
    [({"merge_group": {"base_sha": "fed"}}, "fed"), ([], ""), ({"merge_group": "x"}, "")],
    ids=["merge-queue", "not-an-object", "bad-group"],
)
def test_an_event_without_a_pull_request_keeps_the_base_branch_it_was_given(
    tmp_path: Path, event: object, base_sha: str
) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    found = pr_check.read_event({"GITHUB_EVENT_PATH": str(path), "GITHUB_BASE_REF": "main"})
    assert found == pr_check.Event(base_sha=base_sha, base_ref="main")


def test_a_pull_request_event_with_a_base_that_is_no_object_reads_as_having_none(
    tmp_path: Path,
) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"pull_request": {"number": 3, "base": "main", "head": ["x"]}}))
    found = pr_check.read_event({"GITHUB_EVENT_PATH": str(path), "GITHUB_BASE_REF": "main"})
    assert found == pr_check.Event(base_sha="", base_ref="main", number=3, from_fork=False)


def test_a_base_branch_with_no_history_in_common_is_named_with_what_to_fetch(
    make_repo: Callable[..., Repo],
) -> None:
    """The event's base branch is here but shares no commit with HEAD: the base is not
    found, named after that branch, with what the check lacks."""
    repo = make_repo({"a.txt": "a\n"})
    repo.git("checkout", "-q", "--orphan", "feature")
    repo.write("b.txt", "b\n")
    repo.commit("unrelated")
    base = pr_check.find_base(repo.root, None, pr_check.Event(base_ref="main"), False)
    assert base == pr_check.Base(
        "",
        "main",
        "the architecture diff and the playbooks this change touches need the merge base "
        "with main, which is not in this clone: fetch it (`git fetch origin`)",
    )


def test_an_unreachable_api_is_said_in_the_network_s_own_words() -> None:
    """The reason a request failed is what the network said (the refused connection), not
    the wrapper around it; the query string is not repeated."""
    client = github._Client("http://127.0.0.1:9", "t0ken")  # discard: refused
    with pytest.raises(github.CommentSkipped) as caught:
        client.call("GET", "/user?per_page=100")
    said = str(caught.value)
    assert re.fullmatch(r"GET http://127\.0\.0\.1:9/user failed: \[Errno \d+\] .+", said), said
    assert "urlopen" not in said


def test_a_shallow_clone_that_holds_the_merge_base_compares_with_it(
    make_repo: Callable[..., Repo], tmp_path: Path
) -> None:
    """Shallow, yet deep enough: the merge base with the default branch is here, so it is
    the base, and nothing is said to be missing."""
    origin, base = merged_pull_request(make_repo)
    clone = shallow_clone(origin, "pr-merge", 2, tmp_path / "depth2")
    clone.git("fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main")
    clone.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    assert clone.git("rev-parse", "--is-shallow-repository").strip() == "true"
    found = pr_check.find_base(clone.root, None, pr_check.Event(), True)
    assert found == pr_check.Base(base, "merge base with origin/main")


def test_the_event_s_base_branch_is_the_pull_request_s_own(tmp_path: Path) -> None:
    """The base branch the event names wins over GITHUB_BASE_REF, which serves without it."""
    path = tmp_path / "event.json"
    environ = {"GITHUB_EVENT_PATH": str(path), "GITHUB_BASE_REF": "main"}
    path.write_text(json.dumps({"pull_request": {"base": {"sha": "abc", "ref": "develop"}}}))
    assert pr_check.read_event(environ).base_ref == "develop"
    path.write_text(json.dumps({"pull_request": {"base": {"sha": "abc"}}}))
    assert pr_check.read_event(environ).base_ref == "main"


def failed_report() -> PullRequestReport:
    problem = Finding("playbooks/p.md", 3, ERROR, "P411", "key file 'x.py' does not resolve")
    return PullRequestReport(
        [CheckOutcome("playbooks", [problem])],
        [CheckFinding("playbooks", problem)],
        Base("a" * 40, "--base"),
        "b" * 40,
    )


def test_a_summary_with_room_for_its_verdict_alone_says_the_verdict_and_where_to_look(
    tmp_path: Path,
) -> None:
    summary = tmp_path / "summary.md"
    earlier = "e" * (SUMMARY_LIMIT - 200) + "\n"  # room for a line or two, not the table
    summary.write_text(earlier)
    assert github.write_summary(str(summary), failed_report())
    assert summary.read_text() == earlier + (
        "## kgtool ci: failed\n\nCut: the step's summary is nearly at GitHub's 1 MiB limit; "
        "the log of this step shows the report.\n"
    )


def test_every_playbook_touched_is_one_word_of_its_output() -> None:
    report = failed_report()
    report.relevant = [
        pr_check.Relevant(slug, f"playbooks/{slug}.md", ["app.py"], ["pytest"], True)
        for slug in ("save-data", "x$(id)", "add.cache")
    ]
    assert github.outputs(report, "off")["playbooks-touched"] == "save-data add.cache"


def test_an_answer_with_no_message_is_said_by_its_status_alone() -> None:
    import io
    import urllib.error
    from email.message import Message

    def error(code: int, body: bytes) -> urllib.error.HTTPError:
        return urllib.error.HTTPError("http://x", code, "no", Message(), io.BytesIO(body))

    assert github._http_reason(error(502, b"{}")) == "GitHub answered HTTP 502"
    assert github._http_reason(error(502, b'{"message": " Bad\\n gateway "}')) == (
        "GitHub answered HTTP 502 (Bad gateway)"
    )
    assert github._http_reason(error(404, b"")) == (
        "the token may not write to this pull request: HTTP 404"
    )


def test_a_finding_of_no_playbook_or_label_is_listed_among_the_other_findings(
    make_repo: Callable[..., Repo], actions: Actions
) -> None:
    repo, base = pull_request(make_repo)
    repo.write("package.json", "{not json")  # a manifest nobody can read
    updated(repo, "a broken manifest")
    actions.event(base)

    result = repo.kg("ci")

    assert result.code == 0, result.out
    other = section(actions.summary, "Other findings")
    assert "- package.json:1: warning: C202 is not valid JSON: " in other, other


def test_an_annotation_without_a_title_or_place_has_no_properties() -> None:
    assert github.command("warning", "a note") == "::warning::a note"


def test_without_a_repository_the_comment_is_skipped_saying_why() -> None:
    said = github.sticky_comment({"GITHUB_TOKEN": "t0ken"}, 3, "body", False)
    assert said == "comment skipped: GITHUB_REPOSITORY is not set"


def test_our_comment_is_found_on_the_last_page_read_and_no_further(fake_github: FakeGitHub) -> None:
    """Comments are read 100 a page, up to MAX_PAGES pages: ours on the last of them is
    found (and edited, not posted again)."""
    for _ in range((github.MAX_PAGES - 1) * 100):
        fake_github.add(5, "a comment", login="reviewer")
    ours = fake_github.add(5, f"{MARKER}\nan earlier report")
    client = github._Client(fake_github.url, "t0ken")
    assert client.find("/repos/acme/app/issues/5/comments") == ours
    pages = [r for r in fake_github.requests if "/issues/5/comments" in r.path]
    assert len(pages) == github.MAX_PAGES
    # One page further is not read: a comment there is past what a sticky comment looks at.
    for _ in range(github.MAX_PAGES * 100):
        fake_github.add(6, "a comment", login="reviewer")
    fake_github.add(6, f"{MARKER}\ntoo far down")
    assert client.find("/repos/acme/app/issues/6/comments") == 0


def test_a_report_cut_to_fit_never_passes_its_limit() -> None:
    """Whatever the limit, the sections that fit whole are kept and the rest are stubs, and
    the whole stays within the limit whenever its head and stubs do."""
    head = "## head"
    sections = [(name, f"## {name}\n\n" + name * 300) for name in ("a", "b", "c")]
    smallest = len(github.fit(head, sections, 0, "the limit").encode("utf-8"))
    whole = len("\n".join([head] + [body for _, body in sections]).encode("utf-8"))
    for limit in range(smallest, whole + 1, 5):
        text = github.fit(head, sections, limit, "the limit")
        assert len(text.encode("utf-8")) <= limit, limit
    assert github.fit(head, sections, whole, "the limit") == "\n".join(
        [head] + [body for _, body in sections]
    )
