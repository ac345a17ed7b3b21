"""Text a pull request commits, driven through the real CLI: label text is held to the label
rules wherever it is read, and every text from the repository is escaped for the format it is
written into (markdown in the job summary, the comment, MAP.md and the community pages; step
outputs; plain text on a terminal)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from conftest import Repo, assert_one_line_error
from fake_anthropic import (
    FakeAnthropic,
    fake_anthropic_fixture,  # noqa: F401 (the fake_anthropic fixture)
    tool,
)
from playbook_helpers import add_playbook, line_of
from test_ci import (  # the simulated runner of test_ci.py
    APP,
    Actions,
    actions,  # noqa: F401 (the fixture behind runner)
    annotations,
    no_github_environment,  # noqa: F401 (an autouse fixture: no GITHUB_* from outside)
    pull_request,
    section,
    updated,
)
from test_context import PROVIDER_TASK, context
from test_context import shop as shop

from kgtool.integrations.github import SUMMARY_LIMIT


@pytest.fixture(name="runner")
def runner_fixture(request: pytest.FixtureRequest) -> Actions:
    """test_ci.py's simulated runner (its fixture, under a name of this module's own)."""
    return request.getfixturevalue("actions")


LINK = "[click](https://evil.example) ![x](https://evil.example/x.png) @admin"


def labelled(make_repo: Callable[..., Repo]) -> tuple[Repo, str]:
    """The app of test_ci.py with kgtool's own labels committed on ``main``; the branch
    ``feature`` checked out."""
    repo = make_repo(APP, commit=False)
    repo.git("add", "-A")
    assert repo.kg("label", "--offline").code == 0
    base = repo.commit("labelled")
    repo.git("checkout", "-q", "-b", "feature")
    return repo, base


def hand_edit(repo: Repo, field: str, text: str) -> int:
    """Replaces the first ``field:`` of ontology.yaml by ``text`` (quoted); returns its line."""
    path = repo.root / ".kg/ontology.yaml"
    lines = path.read_text().splitlines()
    number = next(n for n, line in enumerate(lines) if line.strip().startswith(f"{field}:"))
    indent = lines[number].split(field)[0]
    lines[number] = f"{indent}{field}: {json.dumps(text)}"
    path.write_text("\n".join(lines) + "\n")
    return number + 1


def test_a_newline_in_a_file_name_is_escaped_where_printed(make_repo: Callable[..., Repo]) -> None:
    odd = {"app/evil\nname.py": "from app.store import Store\n\nStore().save()\n"}
    repo = make_repo({**APP, **odd})
    assert repo.kg("update").code == 0

    impact = repo.kg("impact", "app/store.py")

    assert impact.code == 0, impact.err
    assert "app/evil\\nname.py" in impact.out
    assert not any(line.startswith("name.py") for line in impact.out.splitlines())
    pages = [p.read_text() for p in (repo.root / ".kg/communities").glob("c*.md")]
    (page,) = [p for p in pages if "evil" in p]
    assert "- `app/evil\\nname.py`\n" in page
    assert not re.search(r"^name\.py", page, re.M)


def test_a_skill_name_with_a_newline_stays_on_its_line(shop: Repo) -> None:
    shop.write(
        ".claude/skills/payment-providers/SKILL.md",
        '---\nname: "payment providers\\n## Playbook: forged\\x1b[31m"\n'
        "description: How to add a payment provider to the gateway.\n---\n",
    )
    shop.commit("a skill")
    assert shop.kg("update").code == 0

    out, _ = context(shop, PROVIDER_TASK, "--budget", "100000")

    assert not any(line.startswith("## Playbook: forged") for line in out.splitlines())
    assert "payment providers ## Playbook: forged\\x1b[31m (.claude/skills/" in out


@pytest.mark.parametrize(
    ("field", "text", "says"),
    [
        ("name", LINK, "link"),
        ("summary", "See <img src=x onerror=alert(1)> here.", "markdown"),
        ("name", "Store | helpers", "markdown"),
    ],
)
def test_a_hand_written_label_is_held_to_the_label_rules(
    make_repo: Callable[..., Repo], field: str, text: str, says: str
) -> None:
    repo, _ = labelled(make_repo)
    line = hand_edit(repo, field, text)
    map_before = (repo.root / ".kg/MAP.md").read_bytes()

    checked = repo.kg("check")

    assert checked.code == 1
    found = [row for row in checked.out.splitlines() if "ontology.yaml" in row]
    assert len(found) == 1, checked.out
    assert found[0].startswith(f".kg/ontology.yaml:{line}: error: L300 ")
    assert says in found[0]
    # What `label --set` refuses, `update` refuses too: the map never shows it.
    assert_one_line_error(repo.kg("update"), says=f".kg/ontology.yaml:{line}")
    assert (repo.root / ".kg/MAP.md").read_bytes() == map_before


def test_a_hand_written_at_sign_stands_and_notifies_nobody(
    make_repo: Callable[..., Repo], runner: Actions
) -> None:
    """ "the @retry decorator" is a fair summary: a commit must not fail over it, and where
    GitHub renders it, it mentions nobody."""
    repo, base = labelled(make_repo)
    hand_edit(repo, "name", "Store @admin helpers")
    assert repo.kg("update").code == 0
    assert repo.kg("check").code == 0
    assert "Store @admin helpers" in (repo.root / ".kg/MAP.md").read_text()
    repo.commit("a label with an at sign")
    runner.event(base)
    assert repo.kg("ci").code == 0
    assert "admin helpers" in runner.summary and "@admin" not in runner.summary


def test_a_hand_written_link_fails_ci_and_reaches_no_markdown(
    make_repo: Callable[..., Repo], runner: Actions
) -> None:
    repo, base = labelled(make_repo)
    line = hand_edit(repo, "name", LINK)
    repo.commit("a label with a link")
    runner.event(base)

    result = repo.kg("ci")

    assert result.code == 1
    (error,) = [a for a in annotations(result) if a.startswith("::error ")]
    assert error.startswith(f"::error file=.kg/ontology.yaml,line={line},")
    assert "L300 community" in error and "link" in error
    # The summary quotes the refused text, as text: no link, no address GitHub would turn
    # into one, no mention.
    summary = runner.summary
    assert "evil.example" in summary
    assert not re.search(r"(?<!\\)\]\(", summary)
    assert "https://" not in summary and "@admin" not in summary


def test_what_a_label_says_of_itself_is_text_in_the_changelog(
    make_repo: Callable[..., Repo], runner: Actions
) -> None:
    repo, base = pull_request(make_repo)
    assert repo.kg("label", "--offline").code == 0
    hand_edit(repo, "by", f"{LINK} <img src=x> | cell")  # who wrote it: free text
    repo.commit("labelled")
    runner.event(base)

    result = repo.kg("ci")

    assert result.code == 0, result.out + result.err
    changes = section(runner.summary, "Architecture changes").splitlines()
    named = "\n".join(line for line in changes if line.startswith("- named: "))
    assert "evil.example" in named
    assert not re.search(r"(?<!\\)\]\(", named) and "https://" not in named
    assert "@admin" not in named and "<img" not in named and not re.search(r"(?<!\\)\|", named)


def test_a_concept_with_markup_refuses_its_playbook_and_is_never_exported(
    make_repo: Callable[..., Repo],
) -> None:
    repo, _ = labelled(make_repo)
    path = add_playbook(repo, "save-data", ["app/store.py"], concepts=[json.dumps(LINK)])
    repo.commit("a playbook with a link for a concept")

    checked = repo.kg("check")

    assert checked.code == 1
    line = line_of(repo, path, "concepts:")
    # (R101 names the playbook too, as a file changed since layer 1 was built.)
    (problem,) = [row for row in checked.out.splitlines() if row.startswith(path)]
    assert problem.startswith(f"{path}:{line}: error: P423 the concept ")
    assert "link" in problem
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    exported = [p.read_text() for p in repo.root.rglob("SKILL.md")]
    assert not any("evil.example" in text for text in exported)


def test_a_summary_near_github_limit_stays_within_it_on_a_line_of_its_own(
    make_repo: Callable[..., Repo], runner: Actions
) -> None:
    repo, base = pull_request(make_repo)
    runner.event(base)
    earlier = "e" * (SUMMARY_LIMIT - 200)  # an earlier command's summary, with no newline
    (runner.folder / "summary.md").write_text(earlier)

    result = repo.kg("ci")

    assert result.code == 0, result.out + result.err
    data = (runner.folder / "summary.md").read_bytes()
    assert len(data) <= SUMMARY_LIMIT
    ours = data.decode().removeprefix(earlier)
    assert ours.startswith("\n## kgtool ci: passed\n")
    assert "Cut: " in ours


def test_a_summary_that_ends_without_a_newline_gets_one_before_the_heading(
    make_repo: Callable[..., Repo], runner: Actions
) -> None:
    repo, base = pull_request(make_repo)
    runner.event(base)
    (runner.folder / "summary.md").write_text("earlier step")

    assert repo.kg("ci").code == 0
    assert runner.summary.startswith("earlier step\n## kgtool ci: passed\n")


def test_a_slug_a_workflow_cannot_splice_is_left_out_of_the_outputs(
    make_repo: Callable[..., Repo], runner: Actions
) -> None:
    repo, base = pull_request(make_repo)
    odd = add_playbook(repo, "x$(touch pwned);`id`", ["app/store.py"])
    updated(repo, "a playbook with shell in its name")
    repo.write("app/store.py", APP["app/store.py"] + "\n    def load(self):\n        return 2\n")
    updated(repo, "load")
    runner.event(base)

    result = repo.kg("ci")

    outputs = runner.outputs()
    assert outputs["playbooks-touched"] == "save-data"
    assert "$" not in "".join(outputs.values()) and "`" not in "".join(outputs.values())
    said = [a for a in annotations(result) if "playbooks-touched" in a]
    assert len(said) == 1 and said[0].startswith("::warning ")
    assert odd.replace("$", "").split("(")[0] in said[0]
    # The summary says it too, among the playbooks' warnings, with its code.
    warned = section(runner.summary, "Playbook warnings")
    assert "P405" in warned and "left out of the step output playbooks-touched" in warned
    # A warning, as every playbook warning is: it neither fails the check nor reads as one.
    assert result.code == 0 and ": warning: P405 left out of the step output" in warned


def test_a_labeler_reply_with_a_lone_surrogate_is_a_malformed_reply(
    make_repo: Callable[..., Repo],
    fake_anthropic: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _ = labelled(make_repo)
    repo.write(".kgtool.yaml", "ontology:\n  max_retries: 0\n  timeout: 3\n")
    repo.commit("settings")
    before = (repo.root / ".kg/ontology.yaml").read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)

    def surrogate(body: dict) -> dict:
        asked = json.loads(body["messages"][0]["content"][-1]["text"])["communities"]
        ids = [c["id"] for c in asked]
        return {"communities": [{"id": cid, "name": "Job \ud800 runner"} for cid in ids]}

    fake_anthropic.script(tool(surrogate), tool(surrogate))
    result = repo.kg("label", "--relabel")

    assert_one_line_error(result, code=4, says="no label was changed")
    assert "\\ud800" in result.err
    assert len(fake_anthropic.requests) == 2  # asked again once, as for any malformed reply
    assert (repo.root / ".kg/ontology.yaml").read_bytes() == before


def test_a_pointer_holding_terminal_escapes_prints_as_text(
    make_repo: Callable[..., Repo],
) -> None:
    """A key file written with a terminal's escape sequences (a title change, colours) and a
    newline: every finding that quotes it is one line with them spelled out."""
    repo = make_repo({"app.py": "def run():\n    return 1\n"})
    add_playbook(repo, "odd", ['"evil\\e]0;pwned\\a\\e[31mred\\nnext.py"'])
    repo.commit("a hostile pointer")
    assert repo.kg("update").code == 0
    for argv in (["check"], ["playbooks", "check"]):
        result = repo.kg(*argv)
        assert result.code == 1
        assert "\x1b" not in result.out + result.err and "\x07" not in result.out
        (refused,) = [line for line in result.out.splitlines() if "key file" in line]
        assert "evil\\x1b]0;pwned\\x07\\x1b[31mred\\nnext.py" in refused


@pytest.mark.parametrize("name", ["Store * helpers | [x](y) <b>", "plain name", "a \\ b"])
def test_a_name_escaped_for_the_map_reads_back_as_it_was(name: str) -> None:
    """The read path takes an unlabelled community's name from its page, where md_cell
    escaped it: read back, it is the name, not its markdown."""
    from kgtool.escape import md_cell, md_cell_text

    assert md_cell_text(md_cell(name)) == name
