"""`kgtool context`: a task matched to playbooks, labels, communities and symbols."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from communities_helpers import community_of
from conftest import PROJECT_ROOT, Repo, assert_one_line_error

from kgtool.errors import KgError
from kgtool.query.bundle import Bundle, render_json, render_markdown
from kgtool.query.context import context_for

SHOP_FILES = {
    "payments/__init__.py": "",
    "payments/base.py": (
        '"""What every payment provider is."""\n\n\n'
        "class Provider:\n    def record(self, amount):\n        return amount\n"
    ),
    "payments/gateway.py": (
        '"""Payment gateway: picks a provider and charges a card."""\n\n'
        "from payments.paypal_provider import PayPalProvider\n"
        "from payments.stripe_provider import StripeProvider\n\n"
        'PROVIDERS = {"stripe": StripeProvider, "paypal": PayPalProvider}\n\n\n'
        "def charge_card(provider_name, amount):\n"
        "    provider = PROVIDERS[provider_name]()\n"
        "    return provider.charge(amount)\n"
    ),
    "payments/stripe_provider.py": (
        '"""Charges cards through the Stripe API."""\n\n'
        "from payments.base import Provider\n\n\n"
        "class StripeProvider(Provider):\n"
        "    def charge(self, amount):\n        return self.record(amount)\n"
    ),
    "payments/paypal_provider.py": (
        '"""Charges through PayPal checkout."""\n\n'
        "from payments.base import Provider\n\n\n"
        "class PayPalProvider(Provider):\n"
        "    def charge(self, amount):\n        return self.record(amount)\n"
    ),
    "auth/__init__.py": "",
    "auth/login.py": (
        '"""Login: checks a password and opens a session."""\n\n'
        "from auth.passwords import check_password\nfrom auth.session import open_session\n\n\n"
        "def login(user, password):\n    check_password(user, password)\n"
        "    return open_session(user)\n"
    ),
    "auth/session.py": (
        '"""Sessions kept in signed cookies."""\n\n'
        "from auth.tokens import sign_token\n\n\n"
        "def open_session(user):\n    return sign_token(user)\n\n\n"
        "def close_session(token):\n    return sign_token(token)\n"
    ),
    "auth/tokens.py": (
        '"""Signed access tokens."""\n\nfrom auth.passwords import hash_password\n\n\n'
        "def sign_token(value):\n    return hash_password(value)\n"
    ),
    "auth/passwords.py": (
        '"""Password hashing and verification."""\n\n\n'
        "def hash_password(value):\n    return str(value)\n\n\n"
        "def check_password(user, password):\n    return hash_password(password) == user\n"
    ),
    "app.py": (
        '"""The shop\'s entry point."""\n\n'
        "from auth.login import login\nfrom payments.gateway import charge_card\n\n\n"
        "def main(user, password):\n    login(user, password)\n"
        '    return charge_card("stripe", 10)\n'
    ),
}

PLAYBOOK_PATH = "playbooks/add-a-payment-provider.md"
PLAYBOOK = """\
---
title: Add a payment provider
intent: Add a new payment provider (a card processor) that the gateway can charge through.
concepts:
  - Payment providers
  - Checkout gateway
key_files:
  - payments/stripe_provider.py::StripeProvider.charge
  - payments/base.py::Provider
  - payments/gateway.py::charge_card
validation: python -m pytest tests/test_payments.py
pitfalls:
  - A provider missing from PROVIDERS in payments/gateway.py is never charged.
rollback: Removing the provider class without its PROVIDERS entry breaks every charge.
---

# Add a payment provider

Copy `payments/stripe_provider.py`, then register the class in PROVIDERS.
"""
LABELS = {
    "payments/base.py": "Payment providers",
    "payments/gateway.py": "Checkout gateway",
    "auth/login.py": "User authentication",
}


def build_shop(repo: Repo) -> Repo:
    """The shop with its playbook, mapped, labelled (three names by hand), all committed."""
    repo.write_files(SHOP_FILES)
    repo.write(PLAYBOOK_PATH, PLAYBOOK, dedent=False)
    repo.commit("shop")
    for args in (("update",), ("label", "--offline")):
        result = repo.kg(*args)
        assert result.code == 0, result.err
    for path, name in LABELS.items():
        result = repo.kg("label", "--set", community_of(repo, path), name)
        assert result.code == 0, result.err
    repo.commit("labels")
    return repo


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo())


def context(repo: Repo, task: str, *args: str) -> tuple[str, str]:
    result = repo.kg("context", task, *args)
    assert result.code == 0, result.err
    return result.out, result.err


PROVIDER_TASK = "add a payment provider for Adyen"
AUTH_TASK = "hash passwords with a salt before signing tokens"

# The exact answers, kept as files (their lines are as long as the output's).
EXPECTED = Path(__file__).parent / "fixtures" / "context"


def test_a_matching_playbook_comes_first_with_its_concepts_and_key_symbols(shop: Repo) -> None:
    out, err = context(shop, PROVIDER_TASK, "--budget", "100000")
    assert err == ""
    assert out == (EXPECTED / "playbook.md").read_text()


def test_a_task_no_playbook_matches_gets_the_best_communities(shop: Repo) -> None:
    out, err = context(shop, AUTH_TASK, "--budget", "100000")
    assert err == ""
    assert out == (EXPECTED / "communities.md").read_text()


def test_json_holds_the_same_items_each_citing_its_source(shop: Repo) -> None:
    out, _ = context(shop, PROVIDER_TASK, "--budget", "100000", "--format", "json")
    document = json.loads(out)
    assert (document["task"], document["notices"], document["omitted"]) == (PROVIDER_TASK, [], 0)
    items = document["items"]
    kinds = [item["kind"] for item in items]
    assert kinds[:7] == [
        "playbook", "key_files", "concept", "concept", "validation", "pitfalls", "rollback",
    ]  # fmt: skip
    assert items[0]["status"] == "active, executable (checked: every key file resolves)"
    assert items[0]["source"] == f"{PLAYBOOK_PATH}:3"
    assert items[1]["files"][0] == {
        "pointer": "payments/stripe_provider.py::StripeProvider.charge",
        "source": f"{PLAYBOOK_PATH}:8",
        "outcome": "exact",
        "id": "payments/stripe_provider.py::StripeProvider.charge",
        "file": "payments/stripe_provider.py",
        "line": 7,
        "end": 8,
        "kind": "method",
        "signature": "def charge(self, amount):",
    }
    providers = community_of(shop, "payments/base.py")
    concept = items[2]
    assert (concept["community"], concept["name"], concept["label"]) == (
        providers,
        "Payment providers",
        "fresh",
    )
    for number, item in enumerate(items):
        assert item.get("parent", -1) < number  # a detail comes after what it details
    files = [item["path"] for item in items if item["kind"] == "file"]
    assert sorted(files[:3]) == [
        "payments/base.py", "payments/paypal_provider.py", "payments/stripe_provider.py",
    ]  # fmt: skip
    # The fields a reader of the JSON relies on, by kind: the concept as the playbook names
    # it, and each file's reasons.
    assert concept["concept"] == "Payment providers" and concept["size"] == 4
    common = {"community", "kind", "parent", "path", "score"}
    whole = common | {"inside", "joined_to", "lines", "matched", "past_changes", "scope",
                      "symbols"}  # fmt: skip
    shown = [set(item) for item in items if item["kind"] == "file"]
    assert whole in shown and all(keys in (whole, common | {"short", "why"}) for keys in shown)


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_the_budget_is_a_hard_limit_and_the_best_comes_first(shop: Repo, fmt: str) -> None:
    full = context_for(shop.root, PROVIDER_TASK, 10**9, fmt)
    assert context_for(shop.root, PROVIDER_TASK, len(full), fmt) == full
    heads = []
    for budget in (0, 1, 12, 200, 400, 700, 1500, 3000, len(full) - 1):
        text = context_for(shop.root, PROVIDER_TASK, budget, fmt)
        assert len(text) <= budget, (budget, len(text))
        if fmt == "json":
            if text:
                document = json.loads(text)
                assert document["omitted"] + len(document["items"]) > len(document["items"])
                heads.append((budget, [item["kind"] for item in document["items"]][:1]))
        else:
            assert full.startswith(text[:30])
            if "## Playbook" in text:
                assert text.index("## Playbook") < text.find("## Communities") or (
                    "## Communities" not in text
                )
                assert "did not fit the budget of" in text
    assert context_for(shop.root, PROVIDER_TASK, 0, fmt) == ""
    if fmt == "markdown":
        assert context_for(shop.root, PROVIDER_TASK, 12, fmt) == "# Context fo"
    else:
        # Once the playbook fits, it comes first; below that, what fits of the rest.
        assert [kinds for budget, kinds in heads if budget >= 700] == [["playbook"]] * 4


def test_the_same_question_gives_the_same_bytes(shop: Repo) -> None:
    first, _ = context(shop, AUTH_TASK, "--budget", "2500")
    second, _ = context(shop, AUTH_TASK, "--budget", "2500")
    assert first == second == context_for(shop.root, AUTH_TASK, 2500)
    process = shop.kg_process("context", AUTH_TASK, "--budget", "2500")
    assert process.code == 0 and process.out == first


def test_a_refused_playbook_and_a_drifted_label_are_marked_never_fact(shop: Repo) -> None:
    text = (shop.root / PLAYBOOK_PATH).read_text()
    shop.write(PLAYBOOK_PATH, text.replace("StripeProvider.charge", "StripeProvider.refund"))
    for name in ("adyen", "klarna", "square", "mollie", "braintree"):
        shop.write(
            f"payments/{name}_provider.py",
            f"from payments.base import Provider\n\n\nclass {name.title()}Provider(Provider):\n"
            "    def charge(self, amount):\n        return self.record(amount)\n",
        )
    shop.commit("five more providers")
    assert shop.kg("update").code == 0  # layer 2 moves; the labels stay as written
    out, err = context(shop, PROVIDER_TASK, "--budget", "100000")
    assert err == ""
    providers = community_of(shop, "payments/base.py")
    lines = out.splitlines()
    assert lines[3] == (
        "Status: REFUSED by `kgtool playbooks check`: not executable, do not follow it as is"
    )
    assert lines[4] == (
        f"- {PLAYBOOK_PATH}:8: error: P411 key file "
        "'payments/stripe_provider.py::StripeProvider.refund' "
        "does not resolve (missing): payments/stripe_provider.py defines no "
        "'StripeProvider.refund'; nearest in payments/stripe_provider.py: "
        "StripeProvider.charge, StripeProvider"
    )
    assert (
        f"- `payments/stripe_provider.py::StripeProvider.refund` ({PLAYBOOK_PATH}:8) does not "
        "resolve: missing"
    ) in lines
    assert "executable (checked" not in out
    drift = "members 0.56 > 0.30 (written for 4 files, now 9: 5 joined, 0 left)"
    assert (
        f"Concept 'Payment providers' ({PLAYBOOK_PATH}:5) → {providers} 'Payment providers' "
        f"(drifted) — its label has DRIFTED: {drift}: 9 files (.kg/communities.json); "
    ) in out
    header = f"### {providers} 'Payment providers' (drifted) — 9 files"
    assert any(line.startswith(header) for line in lines)
    assert (
        f"Label (.kg/ontology.yaml:40) has DRIFTED, not a description of today's code: {drift}"
    ) in lines
    # Every showing of the name carries the mark (the playbook's own words are quoted as such).
    shown = out.count("'Payment providers'") - out.count("Concept 'Payment providers'")
    assert shown == out.count("'Payment providers' (drifted)") >= 3
    document = json.loads(context_for(shop.root, PROVIDER_TASK, 100000, "json"))
    playbook = document["items"][0]
    assert playbook["status"].startswith("REFUSED") and len(playbook["problems"]) == 1
    community = next(i for i in document["items"] if i.get("id") == providers)
    assert (community["label"], community["drift"]) == ("drifted", drift)


def test_a_missing_map_is_said_on_stderr_and_in_the_answer(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({**SHOP_FILES, PLAYBOOK_PATH: PLAYBOOK})
    out, err = context(repo, PROVIDER_TASK)
    notice = (
        ".kg/ is missing (.kg/raw/, .kg/communities.json not found): run `kgtool update`; "
        "this answer is read from the playbooks alone, nothing in it is checked"
    )
    assert err == f"kgtool: warning: {notice}\n"
    assert out.splitlines()[2] == f"> kgtool: {notice}"
    assert "Status: NOT CHECKED (no .kg/ to check it against): not executable" in out
    assert "## Communities" not in out and "→" not in out  # nothing is located without a map
    assert not (repo.root / ".kg").exists()  # a reader writes nothing, not even a cache
    nothing, _ = context(repo, "tune the zebra crossing lights", "--format", "json")
    assert (
        "nothing matches: without .kg/ only the playbooks can be read"
        in json.loads(nothing)["notices"]
    )


def test_a_map_older_than_the_tree_is_said_with_the_files(shop: Repo) -> None:
    shop.write("payments/base.py", '"""Moved down."""\n\n\n' + SHOP_FILES["payments/base.py"])
    shop.write("payments/refunds.py", "def refund(amount):\n    return -amount\n")
    shop.git("add", "payments/refunds.py")
    shop.write("notes.txt", "not tracked, not in the graph\n")
    out, err = context(shop, PROVIDER_TASK, "--budget", "100000")
    notice = (
        ".kg/ is out of date: 2 files changed since the last `kgtool update` "
        "(payments/base.py, payments/refunds.py); answers describe the code as it was then, "
        "line numbers may be off: run `kgtool update`"
    )
    assert err == f"kgtool: warning: {notice}\n"
    assert f"> kgtool: {notice}" in out.splitlines()
    assert shop.kg("update").code == 0
    out, err = context(shop, PROVIDER_TASK, "--budget", "100000")
    assert err == "" and "> kgtool:" not in out


def test_agent_skill_folders_are_read_as_evidence(shop: Repo) -> None:
    shop.write(
        ".claude/skills/payment-providers/SKILL.md",
        "---\nname: payment-providers\ndescription: How to add a payment provider to the "
        "gateway.\n---\n\n# Steps\n",
    )
    shop.write(
        ".agents/skills/release/SKILL.md",
        "---\nname: release\ndescription: Cut a release of the shop.\n---\n",
    )
    shop.commit("skills")
    assert shop.kg("update").code == 0
    out, _ = context(shop, PROVIDER_TASK, "--budget", "100000")
    skill = (
        "## Agent skill (evidence, not checked by kgtool): payment-providers "
        "(.claude/skills/payment-providers/SKILL.md:1)\n"
        "How to add a payment provider to the gateway.\n"
        "Matched task words: payment, provider\n"
    )
    assert skill in out
    assert out.index("## Playbook") < out.index("## Agent skill") < out.index("## Communities")
    assert "release" not in out
    items = json.loads(context_for(shop.root, PROVIDER_TASK, 10**9, "json"))["items"]
    assert [i for i in items if i["kind"] == "skill"] == [
        {
            "kind": "skill",
            "path": ".claude/skills/payment-providers/SKILL.md",
            "source": ".claude/skills/payment-providers/SKILL.md:1",
            "name": "payment-providers",
            "description": "How to add a payment provider to the gateway.",
            "matched": ["payment", "provider"],
            "checked": False,
        }
    ]


def test_bad_input_is_one_line(shop: Repo) -> None:
    assert_one_line_error(shop.kg("context", "  "), says="the task is empty")
    result = shop.kg("context", PROVIDER_TASK, "--budget", "-1")
    assert result.code == 2 and "must be 0 or more" in result.err
    with pytest.raises(KgError, match="unknown format 'yaml'"):
        context_for(shop.root, PROVIDER_TASK, 100, "yaml")


def test_the_read_path_loads_no_parser_clusterer_or_network_client(shop: Repo) -> None:
    probe = (
        "import sys\nfrom kgtool.cli import main\n"
        f"main(['-C', {str(shop.root)!r}, 'context', {PROVIDER_TASK!r}])\n"
        "heavy = ('igraph', 'leidenalg', 'tree_sitter', 'anthropic', 'kgtool.raw.extract',\n"
        "         'kgtool.communities.cluster', 'kgtool.ontology.offline')\n"
        "print('loaded:', sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        check=True,
    )
    assert done.stderr.strip().splitlines()[-1] == "loaded: []"
    assert "## Playbook: Add a payment provider" in done.stdout


def test_files_that_do_not_fit_whole_are_named_and_never_without_their_community(
    shop: Repo,
) -> None:
    full = context_for(shop.root, AUTH_TASK, 10**9)
    shortened = 0
    for budget in range(300, len(full), 40):
        text = context_for(shop.root, AUTH_TASK, budget)
        assert len(text) <= budget
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if line.startswith("- `auth/"):
                assert any(earlier.startswith("### c") for earlier in lines[:number])
                shortened += line.endswith("`")  # the path alone: its details did not fit
    assert shortened > 0


def test_without_labels_communities_are_marked_unlabelled_and_no_words_is_said(
    shop: Repo,
) -> None:
    (shop.root / ".kg" / "ontology.yaml").unlink()
    auth = community_of(shop, "auth/login.py")
    page = shop.root / ".kg" / "communities" / f"{auth}.md"
    page.unlink()  # no page, no offline name either: the ID alone
    out, _ = context(shop, AUTH_TASK, "--budget", "100000")
    lines = out.splitlines()
    assert (
        f"### {auth} (unlabelled) — 5 files (.kg/communities.json; page .kg/communities/{auth}.md)"
        in lines
    )
    assert "Label: none yet (run `kgtool label`): named here by its ID only" in lines
    assert "'User authentication'" not in out and "Summary" not in out
    # With the map drawn again, the community carries the name the map made for it, marked.
    assert shop.kg("update").code == 0
    offline = page.read_text().splitlines()[0].removeprefix(f"# {auth} · ")
    assert offline and offline != "User authentication"
    out, _ = context(shop, AUTH_TASK, "--budget", "100000")
    assert (
        f"### {auth} '{offline}' (offline name, unlabelled) — 5 files (.kg/communities.json; "
        f"page .kg/communities/{auth}.md)" in out.splitlines()
    )
    assert (
        "Label: none yet (run `kgtool label`): named here by the map's offline name, made from "
        f"its paths and identifiers (.kg/communities/{auth}.md)" in out.splitlines()
    )
    out, err = context(shop, "fix it")
    notice = "no playbook, community, path or symbol matches the task's words"
    assert out == f"# Context for: fix it\n\n> kgtool: {notice}\n"
    assert err == f"kgtool: warning: {notice}\n"


def test_words_the_repository_never_uses_do_not_hide_a_playbook(shop: Repo) -> None:
    task = "add an idempotent payment provider, quickly"
    out = context_for(shop.root, task, 100000)
    assert "## Playbook: Add a payment provider" in out
    assert "Matched task words: payment, provider\n" in out
    # Too small for the key files with their signatures: they are listed with locations only.
    budgets = range(600, 1600, 20)
    short = [
        text
        for text in (context_for(shop.root, task, b) for b in budgets)
        if "→ payments/base.py:4\n" in text
    ]
    assert short and all("`class Provider:`" not in text for text in short)


def test_items_are_chosen_by_rank_shown_in_order_and_shortened_to_fit() -> None:
    """The bundle's contract, apart from any repository: under every budget the best-ranked
    items are kept (not the first added), a kept item is shown where it was added, a child
    never without its parent, an item that does not fit whole is shown short when that fits,
    and unranked items come before every ranked one."""
    bundle = Bundle("task", [])
    first = bundle.add("## first added, ranked last " + "x" * 40, {"n": 1}, rank=9.0)
    bundle.add("## ranked best " + "y" * 40, {"n": 2}, rank=1.0)
    bundle.add("- its child", {"n": 3}, parent=first, rank=0.5, tight=True)
    bundle.add("## long " + "z" * 400, {"n": 4}, rank=2.0, short=("## long, short", {"n": 4}))
    everything = render_markdown(bundle, 100_000)
    seen = set()
    for budget in range(0, len(everything) + 1):
        text = render_markdown(bundle, budget)
        assert len(text) <= budget
        assert len(render_json(bundle, budget)) <= budget
        markers = ("first added", "ranked best", "its child", "## long")
        shown = [n for n, mark in enumerate(markers) if mark in text]
        where = [text.index(markers[n]) for n in shown]
        assert where == sorted(where)  # shown as added, whatever the ranks
        assert 0 not in shown or {1, 3} <= set(shown)  # the worst rank comes last
        assert 2 not in shown or 0 in shown  # a child never without its parent
        seen.add(tuple(shown))
    # No slack: the first budget that shows the best item is spent to the character.
    budgets = range(len(everything))
    first = next(b for b in budgets if "## ranked best" in render_markdown(bundle, b))
    assert len(render_markdown(bundle, first)) == first
    # On the way up: the best alone, then the long one short, before the first added.
    assert (1,) in seen and (1, 3) in seen and (0, 1, 2, 3) in seen
    assert any("## long, short" in render_markdown(bundle, b) for b in range(len(everything)))
    assert [item["n"] for item in json.loads(render_json(bundle, 100_000))["items"]] == [1, 2, 3, 4]
    unranked = Bundle("task", [])
    unranked.add("## ranked " + "a" * 200, {"n": 1}, rank=-5.0)
    unranked.add("## unranked " + "b" * 200, {"n": 2})
    room = len(render_markdown(unranked, 100_000)) - 1  # one of the two fits
    assert "## unranked" in render_markdown(unranked, room)
    assert "## ranked" not in render_markdown(unranked, room)


def test_a_community_in_json_has_its_score_and_its_main_symbols(shop: Repo) -> None:
    """What an agent reading JSON relies on of a community: its score as ranked (to three
    places), and its bridges and main symbols, each naming the community they detail."""
    out, _ = context(shop, AUTH_TASK, "--budget", "100000", "--format", "json")
    items = json.loads(out)["items"]
    auth = community_of(shop, "auth/tokens.py")
    (header,) = [i for i in items if i["kind"] == "community" and i["id"] == auth]
    assert header["score"] > 3 and header["score"] == round(header["score"], 3)
    number = items.index(header)
    (symbols,) = [i for i in items if i["kind"] == "main_symbols" and i["parent"] == number]
    assert symbols["community"] == auth
    assert "auth/tokens.py::sign_token" in [s["id"] for s in symbols["symbols"]]
    (bridges,) = [i for i in items if i["kind"] == "bridges" and i["parent"] == number]
    assert bridges["community"] == auth and bridges["edges"]


def test_a_community_shown_short_still_says_where_it_comes_from(shop: Repo) -> None:
    """Under a budget its full header does not fit, a community is one line; in JSON that
    line keeps what a reader needs of it, its source among them."""
    full = context_for(shop.root, PROVIDER_TASK, 10**9, "json")
    short: list[dict] = []
    for budget in range(len(full), 0, -40):
        items = json.loads(context_for(shop.root, PROVIDER_TASK, budget, "json"))["items"]
        short = [i for i in items if i["kind"] == "community" and i.get("short")]
        if short:
            break
    assert short, "no budget showed a community short"
    assert set(short[0]) >= {"id", "name", "offline_name", "label", "size", "source", "short"}
    assert short[0]["source"] == ".kg/communities.json"
    # A file shown short is marked short too, with where it is.
    for budget in range(len(full), 0, -40):
        items = json.loads(context_for(shop.root, PROVIDER_TASK, budget, "json"))["items"]
        files = [
            i
            for i in items
            if i["kind"] == "file" and set(i) <= {"kind", "community", "path", "short", "parent"}
        ]
        if files:
            break
    assert files and all(f.get("short") is True and f["path"] for f in files), files


def test_a_concept_whose_community_has_no_bridges_says_it_has_none(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(
        {
            "notes/store.py": "from notes.words import count\n\n\ndef keep(text):\n"
            "    return count(text)\n",
            "notes/words.py": "def count(text):\n    return len(text.split())\n",
        }
    )
    repo.write(
        "playbooks/keep-notes.md",
        "---\nintent: keep the notes\nconcepts: [c1, no such thing]\nkey_files:\n"
        "  - notes/store.py\n"
        "validation: pytest\n---\n\n# Keep the notes\n",
        dedent=False,
    )
    repo.commit("a playbook")
    assert repo.kg("update").code == 0
    out = context_for(repo.root, "keep the notes", 10**9)
    concept = next(line for line in out.splitlines() if line.startswith("Concept 'c1'"))
    assert concept.endswith("files (.kg/communities.json); edges: none"), concept
    # A concept no community matches is said, with where the playbook names it.
    items = json.loads(context_for(repo.root, "keep the notes", 10**9, "json"))["items"]
    unresolved = next(i for i in items if i.get("concept") == "no such thing")
    assert unresolved == {
        "kind": "concept",
        "concept": "no such thing",
        "source": "playbooks/keep-notes.md:3",
        "community": "",
        "parent": 0,
    }


def test_update_leaves_the_read_indexes_to_the_first_question(shop: Repo) -> None:
    """A commit's update builds no index of ``context`` (at 10,000 files they cost it 5 s);
    the first question builds them where the store keeps its cache, the next reads them."""
    from kgtool.query import CONTENT_INDEX_FILE, HISTORY_INDEX_FILE

    shop.write("app/notes.py", "def jot():\n    return 1\n")
    assert shop.kg("update", "-q").code == 0
    indexes = [shop.cache_dir / name for name in (CONTENT_INDEX_FILE, HISTORY_INDEX_FILE)]
    for index in indexes:
        index.unlink(missing_ok=True)
    shop.write("app/notes.py", "def jot():\n    return 2\n")
    assert shop.kg("update", "-q").code == 0
    assert not any(index.exists() for index in indexes)
    first = context_for(shop.root, PROVIDER_TASK, 10**9)
    assert all(index.is_file() for index in indexes)
    assert context_for(shop.root, PROVIDER_TASK, 10**9) == first


def test_a_playbook_matched_by_two_of_three_task_words_is_the_answer(shop: Repo) -> None:
    """Two of the task's words that the playbook holds (card, processor) are enough, though
    the task has a third the repository knows elsewhere (sessions) and names no key file."""
    out = context_for(shop.root, "card processor for sessions", 10**9)
    assert out.splitlines()[2:5] == [
        f"## Playbook: Add a payment provider ({PLAYBOOK_PATH}:1)",
        "Status: active, executable (checked: every key file resolves)",
        "Matched task words: card, processor",
    ]


def test_json_names_the_task_words_a_playbook_matched(shop: Repo) -> None:
    playbook = json.loads(context_for(shop.root, PROVIDER_TASK, 10**9, "json"))["items"][0]
    assert (playbook["kind"], playbook["path"], playbook["matched"]) == (
        "playbook",
        PLAYBOOK_PATH,
        ["payment", "provider"],
    )


def test_a_key_file_that_is_a_whole_file_is_shown_with_its_length(shop: Repo) -> None:
    shop.write(
        PLAYBOOK_PATH,
        PLAYBOOK.replace(
            "  - payments/gateway.py::charge_card\n",
            "  - payments/gateway.py::charge_card\n  - payments/gateway.py\n",
        ),
        dedent=False,
    )
    shop.commit("a whole file as a key file")
    out = context_for(shop.root, PROVIDER_TASK, 10**9)
    assert (
        f"- `payments/gateway.py` ({PLAYBOOK_PATH}:11) → `payments/gateway.py` (11 lines)"
    ) in out.splitlines()


def test_a_signature_longer_than_the_limit_is_cut_to_it_with_a_mark(repo: Repo) -> None:
    from kgtool.query.context import SIGNATURE_CHARS, SourceLines

    head = "def long(" + ", ".join(f"argument_{n}" for n in range(40)) + "):"
    repo.write("long.py", head + "\n    pass\n", dedent=False)
    signature = SourceLines(repo.root).signature("long.py", 1)
    assert signature == head[: SIGNATURE_CHARS - 1] + "…"
    assert len(signature) == SIGNATURE_CHARS


def test_json_gives_a_concept_s_size_and_bridges_and_a_community_s_size(shop: Repo) -> None:
    items = json.loads(context_for(shop.root, PROVIDER_TASK, 10**9, "json"))["items"]
    concept = next(i for i in items if i["kind"] == "concept")
    assert concept["size"] == 4
    assert concept["edges"] == [
        {
            "src": "c1",
            "dst": "c3",
            "total": 4,
            "types": {"calls": {"AMBIGUOUS": 2}, "imports": {"EXTRACTED": 2}},
        }
    ]
    community = next(i for i in items if i["kind"] == "community" and i["id"] == "c3")
    assert community["size"] == 4


def test_json_leaves_drift_and_label_source_empty_where_there_is_none(shop: Repo) -> None:
    """A community in JSON gives its label's name; its ``drift`` only for a drifted label,
    and ``label_source`` (the label's line in the ontology) only when it has a label."""
    auth = community_of(shop, "auth/login.py")
    items = json.loads(context_for(shop.root, AUTH_TASK, 10**9, "json"))["items"]
    (labelled,) = [i for i in items if i["kind"] == "community" and i["id"] == auth]
    assert (labelled["name"], labelled["label"], labelled["drift"]) == (
        "User authentication",
        "fresh",
        "",
    )
    assert labelled["label_source"].startswith(".kg/ontology.yaml:")
    (shop.root / ".kg" / "ontology.yaml").unlink()
    items = json.loads(context_for(shop.root, AUTH_TASK, 10**9, "json"))["items"]
    (unlabelled,) = [i for i in items if i["kind"] == "community" and i["id"] == auth]
    assert (unlabelled["label"], unlabelled["drift"], unlabelled["label_source"]) == (
        "unlabelled",
        "",
        "",
    )


def test_key_files_read_without_a_map_are_marked_unchecked_in_json(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo({**SHOP_FILES, PLAYBOOK_PATH: PLAYBOOK})
    items = json.loads(context_for(repo.root, PROVIDER_TASK, 10**9, "json"))["items"]
    (key_files,) = [i for i in items if i["kind"] == "key_files"]
    assert key_files["playbook"] == PLAYBOOK_PATH
    assert [f["outcome"] for f in key_files["files"]] == ["unchecked"] * 3
    assert key_files["files"][0] == {
        "pointer": "payments/stripe_provider.py::StripeProvider.charge",
        "source": f"{PLAYBOOK_PATH}:8",
        "outcome": "unchecked",
    }


def test_a_map_whose_communities_list_no_main_symbols_is_answered_without_them(
    shop: Repo,
) -> None:
    """``top_symbols`` may be absent from a community of layer 2 (its shape check accepts
    that): the answer then has no main symbols, and everything else as before."""
    path = shop.root / ".kg" / "communities.json"
    document = json.loads(path.read_text())
    for community in document["communities"].values():
        del community["top_symbols"]
    path.write_text(json.dumps(document))
    result = shop.kg("context", AUTH_TASK, "--budget", "100000", "--format", "json")
    assert result.code == 0, result.err
    kinds = {item["kind"] for item in json.loads(result.out)["items"]}
    assert "main_symbols" not in kinds and {"community", "bridges", "file"} <= kinds


def test_the_json_answer_is_written_in_one_canonical_form(shop: Repo) -> None:
    """Keys sorted at every level, no spaces, one newline: the same answer is the same bytes,
    whatever order the items were built in."""
    result = shop.kg("context", AUTH_TASK, "--budget", "100000", "--format", "json")
    assert result.code == 0, result.err
    canonical = json.dumps(
        json.loads(result.out), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    assert result.out == canonical + "\n"


def test_a_community_whose_size_is_left_out_is_counted_by_its_members(shop: Repo) -> None:
    """A layer 2 written by hand may leave out a community's ``size`` (its shape check accepts
    that): the answer counts the members, as ``kgtool explain`` does, never "0 files"."""
    path = shop.root / ".kg" / "communities.json"
    document = json.loads(path.read_text())
    for community in document["communities"].values():
        del community["size"]
    path.write_text(json.dumps(document))
    auth = community_of(shop, "auth/login.py")
    result = shop.kg("context", AUTH_TASK, "--budget", "100000", "--format", "json")
    assert result.code == 0, result.err
    sizes = {
        item["id"]: item["size"]
        for item in json.loads(result.out)["items"]
        if item["kind"] == "community"
    }
    assert sizes[auth] == 5
    out, _ = context(shop, AUTH_TASK, "--budget", "100000")
    assert "0 files" not in out and "— 5 files (.kg/communities.json" in out


def test_a_files_further_symbols_outrank_its_communitys_main_symbols(shop: Repo) -> None:
    """A detailed file's second and third symbols are ranked after a few lines of the tail,
    but before the community's bridges and main symbols: a budget a little short of the
    whole answer leaves out the main symbols first, never the file's own symbols, nor the
    bridges or the tail's lines (the first of them with the tail's heading)."""
    full = context_for(shop.root, AUTH_TASK, 10**9)
    further = "  - `check_password` auth/passwords.py:8 `def check_password(user, password):`"
    assert further in full.splitlines()
    short = context_for(shop.root, AUTH_TASK, len(full) - 1)
    assert "Main symbols of" not in short and "did not fit the budget" in short
    assert further in short.splitlines()
    assert "Bridges of " in short  # ranked just before the main symbols
    assert "- `app.py:7` `main` (c1; inside: passwords)" in short.splitlines()
    assert "  - `close_session` auth/session.py:10 `def close_session(token):`" in short


def test_a_tail_line_in_json_names_its_best_symbol_with_its_line(shop: Repo) -> None:
    items = json.loads(context_for(shop.root, AUTH_TASK, 10**9, "json"))["items"]
    tail = {i["path"]: i for i in items if i["kind"] == "file" and i.get("short")}
    assert tail["app.py"]["symbol"] == {"id": "app.py::main", "line": 7}
    assert "symbol" not in tail["payments/gateway.py"]  # reached by the walk: no symbol


def test_a_community_is_matched_by_the_words_of_its_label_s_name(shop: Repo) -> None:
    """The word "checkout" is in the name of the gateway's label ('Checkout gateway'), not
    in its summary: the community still says its label matches it."""
    gateway = community_of(shop, "payments/gateway.py")
    lines = context_for(shop.root, "checkout gateway", 10**9).splitlines()
    header = next(n for n, line in enumerate(lines) if line.startswith(f"### {gateway} "))
    assert lines[header + 1].startswith("Summary (") and "checkout" not in lines[header + 1]
    assert lines[header + 2] == "Its label matches: checkout, gateway"


def test_a_community_is_scored_by_its_three_best_files_alone(shop: Repo) -> None:
    """Many weak matches must not lift a community above one with a few strong ones: only
    its three best files count (here with no label, whose words would add to it)."""
    auth = community_of(shop, "auth/login.py")
    (shop.root / ".kg" / "ontology.yaml").unlink()
    (shop.root / ".kg" / "communities" / f"{auth}.md").unlink()  # no offline name either
    items = json.loads(context_for(shop.root, AUTH_TASK, 10**9, "json"))["items"]
    (header,) = [i for i in items if i["kind"] == "community" and i["id"] == auth]
    scores = [i["score"] for i in items if i["kind"] == "file" and "lines" in i]
    assert len(scores) == 4 and all(i["community"] == auth for i in items if "lines" in i)
    assert header["score"] == pytest.approx(sum(scores[:3]), abs=0.002)
    assert all(score == round(score, 3) for score in scores)  # to three places, as ranked
    assert scores[3] > 0.01  # counting the fourth file would show in the score


def test_a_definition_on_a_file_s_last_line_has_its_signature(repo: Repo) -> None:
    from kgtool.query.context import SourceLines

    repo.write("short.py", "X = 1\ndef last(): return max(X)", dedent=False)
    assert SourceLines(repo.root).signature("short.py", 2) == "def last(): return max(X)"
    assert SourceLines(repo.root).signature("short.py", 3) == ""  # past the end


def test_a_playbook_without_validation_still_shows_its_pitfalls_and_rollback(shop: Repo) -> None:
    shop.write(
        PLAYBOOK_PATH,
        PLAYBOOK.replace("validation: python -m pytest tests/test_payments.py\n", ""),
        dedent=False,
    )
    shop.commit("no validation")
    kinds = [
        i["kind"] for i in json.loads(context_for(shop.root, PROVIDER_TASK, 10**9, "json"))["items"]
    ]
    assert "validation" not in kinds and {"pitfalls", "rollback"} <= set(kinds)


def test_a_damaged_layer_2_leaves_a_playbooks_concepts_without_edges(shop: Repo) -> None:
    """A communities.json the read path cannot use (here: no edges) is said in a notice;
    the playbook's concepts, which its check still resolves, are shown with no edges."""
    path = shop.root / ".kg" / "communities.json"
    document = json.loads(path.read_text())
    del document["edges"]
    path.write_text(json.dumps(document))
    out, err = context(shop, PROVIDER_TASK, "--budget", "100000")
    assert "communities.json is damaged" in err
    concepts = [line for line in out.splitlines() if line.startswith("Concept '")]
    assert len(concepts) == 2 and all(line.endswith("; edges: none") for line in concepts)


def test_a_task_with_no_words_of_its_own_matches_no_playbook(
    make_repo: Callable[..., Repo],
) -> None:
    """A task of only short or common words ("do it") has nothing to match with, not even
    a key symbol whose short name its letters hold."""
    repo = make_repo({"tools/do.py": "def do():\n    return 1\n"})
    repo.write(
        "playbooks/do.md",
        "---\nintent: run the tool\nkey_files:\n  - tools/do.py::do\n---\n",
        dedent=False,
    )
    repo.commit("a playbook")
    assert repo.kg("update").code == 0
    out = context_for(repo.root, "do it", 10**9)
    assert "## Playbook" not in out
    assert "no playbook, community, path or symbol matches the task's words" in out


def test_a_symbol_whose_file_is_gone_is_located_without_a_signature(repo: Repo) -> None:
    """The map may name a file deleted since it was drawn: its symbols keep their place
    (file:line, from the map) and have no signature, none being there to read."""
    repo.write("app/store.py", "def save_records():\n    return 1\n")
    repo.commit("the store")
    assert repo.kg("update").code == 0
    (repo.root / "app" / "store.py").unlink()
    items = json.loads(context_for(repo.root, "save records", 10**9, "json"))["items"]
    (found,) = [i for i in items if i.get("path") == "app/store.py" and "lines" in i]
    assert [(s["id"], s["line"], s["signature"]) for s in found["symbols"]] == [
        ("app/store.py::save_records", 1, "")
    ]
