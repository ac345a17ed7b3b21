"""The miner's optional prose pass against a scripted Messages API on 127.0.0.1, through the
real SDK: a good rewording is written, one that names a commit or a path outside the evidence
is refused and the miner's text kept, a server error keeps it with one line, and nothing is
sent unless asked."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Repo
from fake_anthropic import (
    FakeAnthropic,
    batch,
    fake_anthropic_fixture,  # noqa: F401 (the fake_anthropic fixture)
    server_error,
    tool,
)
from test_mining_history import providers  # noqa: F401 (the fixture)

from kgtool.mining.prose import (
    KEPT,
    SYSTEM_PROMPT,
    TOOL_NAME,
    Evidence,
    ProseReport,
    check_reply,
    mentions,
)
from kgtool.playbook.parse import read_playbook

PROPOSAL = "playbooks/proposed/add-a-provider.md"


@pytest.fixture
def ready(
    providers: Repo,  # noqa: F811
    fake_anthropic: FakeAnthropic,
    monkeypatch: pytest.MonkeyPatch,
) -> Repo:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    assert providers.kg("update").code == 0
    return providers


def reworded(body: dict[str, Any], intent: str = "", **pitfalls: str) -> dict[str, Any]:
    """A rewording of the proposal in ``body``: each pitfall keeps its commit ids."""
    data = batch(body)
    newest = data["change_sets"][0]
    entries = []
    for item in data["pitfalls"]:
        ids = " and ".join(sorted(mentions([item["text"]]).commits)) or "none"
        text = pitfalls.get(item["id"]) or f"Reworded advice citing {ids}."
        entries.append({"id": item["id"], "text": text})
    intent = intent or (
        f"Register a new provider: add app/providers/<name>.py with its test, as"
        f" {newest['commit']} did for “{newest['title']}”."
    )
    return {"intent": intent, "pitfalls": entries}


def test_off_by_default_sends_nothing(ready: Repo, fake_anthropic: FakeAnthropic) -> None:
    result = ready.kg("mine-playbooks")
    assert result.code == 0, result.err
    assert fake_anthropic.requests == []
    assert "prose" not in result.out
    assert "reworded" not in (ready.root / PROPOSAL).read_text()


def test_a_good_rewording_is_written(ready: Repo, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.script(tool(reworded))
    result = ready.kg("mine-playbooks", "--llm")
    assert result.code == 0, result.err
    assert "prose: 1 reworded by claude-haiku-4-5, 0 kept" in result.out
    [body] = fake_anthropic.requests
    # The constant prompt is cached, the one tool is forced, the evidence is JSON data only.
    assert body["system"] == [
        {"type": "text", "text": SYSTEM_PROMPT, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["tool_choice"]["name"] == TOOL_NAME
    [block] = body["messages"][0]["content"]
    data = json.loads(block["text"])
    assert [c["title"] for c in data["change_sets"]][:3] == [
        "Add epsilon provider",
        "Add delta provider",
        "Add gamma provider",
    ]
    assert data["change_sets"][2]["follow_ups"][0]["paths"] == ["app/providers/gamma.py"]
    # Each key file as the prompt describes it: its path, its pattern, how often it changed.
    assert {"path": "app/providers/__init__.py", "pattern": "app/providers/__init__.py",
            "changed_in": 5} in data["key_files"], data["key_files"]  # fmt: skip
    assert "Add gamma provider" not in SYSTEM_PROMPT + json.dumps(body["tools"])

    playbook = read_playbook(ready.root, PROPOSAL, 100_000)
    assert playbook.problems == []
    assert playbook.intent.startswith("Register a new provider: add app/providers/<name>.py")
    gamma_fix = ready.git("log", "--format=%h", "-1", "--grep=display name").strip()[:7]
    assert any(p.startswith("Reworded advice citing") and gamma_fix in p for p in playbook.pitfalls)
    assert len(playbook.pitfalls) == len(data["pitfalls"])
    text = (ready.root / PROPOSAL).read_text()
    assert "intent and pitfalls reworded by claude-haiku-4-5" in text.splitlines()[1]
    assert ready.kg("playbooks", "check").code == 0


@pytest.mark.parametrize(
    ("invention", "said"),
    [
        ({"intent": "Add a provider, as abcdef1 did."}, '"abcdef1"'),
        ({"intent": "Add a provider and edit app/secrets.py too."}, '"app/secrets.py"'),
        ({"intent": "Add a provider, as pull request #99 did."}, '"#99"'),
        ({"p1": "Check everything twice."}, "no longer names"),
    ],
)
def test_a_reply_that_invents_a_claim_is_refused_and_the_text_kept(
    ready: Repo, fake_anthropic: FakeAnthropic, invention: dict[str, str], said: str
) -> None:
    original = ready.kg("mine-playbooks", "--no-llm")
    assert original.code == 0
    before = (ready.root / PROPOSAL).read_text()
    bad = tool(lambda body: reworded(body, **invention))
    fake_anthropic.script(bad, bad)
    result = ready.kg("mine-playbooks", "--llm")
    assert result.code == 0, result.err
    assert len(fake_anthropic.requests) == 2  # asked again once, with what was wrong
    retry = fake_anthropic.requests[1]["messages"][-1]["content"][0]
    assert retry["type"] == "tool_result" and retry["is_error"] and said in retry["content"]
    assert "prose: 0 reworded by claude-haiku-4-5, 1 kept" in result.out
    assert "the reply stayed invalid" in result.out and said in result.out
    assert (ready.root / PROPOSAL).read_text() == before


def test_a_reply_corrected_on_the_second_ask_is_written(
    ready: Repo, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.script(
        tool(lambda body: reworded(body, intent="Add a provider, see [the docs](http://x).")),
        tool(reworded),
    )
    result = ready.kg("mine-playbooks", "--llm")
    assert "prose: 1 reworded" in result.out
    assert len(fake_anthropic.requests) == 2
    assert "Register a new provider" in (ready.root / PROPOSAL).read_text()


def test_a_server_error_keeps_the_text_with_one_line(
    ready: Repo, fake_anthropic: FakeAnthropic
) -> None:
    assert ready.kg("mine-playbooks").code == 0
    before = (ready.root / PROPOSAL).read_text()
    fake_anthropic.script(server_error(), server_error(), server_error())  # 2 retries, then out
    result = ready.kg("mine-playbooks", "--llm")
    assert result.code == 0, result.err
    lines = [line for line in result.out.splitlines() if "HTTP 500" in line]
    assert lines == [
        "prose: the Claude API failed with HTTP 500: Internal server error (2 retries); try"
        " again later; the proposals keep the miner's own text"
    ]
    assert (ready.root / PROPOSAL).read_text() == before


def test_the_setting_turns_it_on_and_a_dry_run_sends_nothing(
    ready: Repo, fake_anthropic: FakeAnthropic
) -> None:
    ready.write(".kgtool.yaml", "mining:\n  llm_prose: true\n")
    result = ready.kg("mine-playbooks", "--dry-run")
    assert result.code == 0, result.err
    assert fake_anthropic.requests == []
    assert "prose: would send 1 request to claude-haiku-4-5:" in result.out
    fake_anthropic.script(tool(reworded))
    assert ready.kg("mine-playbooks").code == 0
    assert len(fake_anthropic.requests) == 1


def test_what_counts_as_named_in_the_evidence() -> None:
    sent = {
        "pitfalls": [{"id": "p1", "text": "4f4745b “Fix gamma” completed #12: it changed x."}],
        "key_files": [{"path": "app/providers/gamma.py", "pattern": "app/providers/<name>.py"}],
    }
    evidence = Evidence.of(sent)
    fine = (
        "Edit gamma.py in app/providers, or app/providers/<name>.py, as 4f4745bd9 and #12 did,"
        " e.g. with and/or without 3/5 of the tests."
    )
    assert evidence.unknown(fine) == []
    invented = evidence.unknown("See PR 7, 1234abc and lib/other.c.")
    assert invented == ["1234abc", "#7", "lib/other.c"]


def test_no_api_key_keeps_the_text_with_one_line(
    ready: Repo, fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("ANTHROPIC_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no credentials profile on disk either
    result = ready.kg("mine-playbooks", "--llm")
    assert result.code == 0, result.err
    assert fake_anthropic.requests == []
    assert (
        "prose: no Claude API key: set ANTHROPIC_API_KEY; the proposals keep the miner's own text"
        in result.out.splitlines()
    )
    assert "reworded" not in (ready.root / PROPOSAL).read_text()


def test_a_bad_reply_is_told_what_is_wrong_with_each_part() -> None:
    sent = {"pitfalls": [{"id": "p1", "text": "Keep abc1234 in mind."}], "key_files": []}
    assert check_reply({"intent": "", "pitfalls": "none"}, sent) == (
        "",
        [],
        ["the intent is empty", "the pitfalls are not a list"],
    )
    good = {"intent": "Add one.", "pitfalls": [{"id": "p1", "text": "Mind abc1234."}]}
    assert check_reply(good, sent) == ("Add one.", ["Mind abc1234."], [])


def test_a_pass_stopped_by_a_failure_says_so_after_what_it_did() -> None:
    report = ProseReport("claude-haiku-4-5", rewritten=1, kept=["“Add a provider”: x"],
                         failed="the Claude API failed with HTTP 500")  # fmt: skip
    assert report.lines() == [
        "prose: 1 reworded by claude-haiku-4-5, 1 kept",
        "  kept the miner's text for “Add a provider”: x",
        f"prose: the Claude API failed with HTTP 500; {KEPT}",
    ]


@pytest.mark.parametrize(
    ("invention", "ending"),
    [
        ({"intent": "Add a provider, as abcdef1 did."}, '"abcdef1", which is not in the request'),
        (
            {"intent": "Add a provider, as abcdef1 did to app/secrets.py."},
            '"abcdef1", which is not in the request (and 1 more)',
        ),
        (
            {"intent": "Add it as abcdef1 did to app/secrets.py for #99."},
            '"abcdef1", which is not in the request (and 2 more)',
        ),
    ],
)
def test_a_proposal_kept_is_said_with_the_first_problem_and_how_many_more(
    ready: Repo, fake_anthropic: FakeAnthropic, invention: dict[str, str], ending: str
) -> None:
    bad = tool(lambda body: reworded(body, **invention))
    fake_anthropic.script(bad, bad)
    result = ready.kg("mine-playbooks", "--llm")
    assert result.code == 0, result.err
    [kept] = [line for line in result.out.splitlines() if "kept the miner's text" in line]
    assert kept.endswith(f"the reply stayed invalid: the intent names {ending}"), kept
