"""Known-answer repositories for the offline labeler: code whose right name is plain from the
code itself (a ``payments/`` package with Stripe and PayPal providers is about payments).

Shared by tests/test_ontology_offline.py and bench/offline_labels.py, which builds each one in
a temporary git repository, runs ``kgtool update``, labels the map and scores the names.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kgtool.config import load_config
from kgtool.ontology.facts import community_items, edge_items, phrased_edges, read_docstrings
from kgtool.ontology.items import CommunityItem, EdgeItem, LabelBatch
from kgtool.ontology.offline import OfflineLabeler


@dataclass(frozen=True)
class Expect:
    """The community holding ``path`` has a name with one word of each group in ``words``."""

    path: str
    words: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Phrase:
    """The edge from ``src``'s community to ``dst``'s has a phrase with ``has`` and not
    ``lacks``."""

    src: str
    dst: str
    has: str
    lacks: str = ""


@dataclass(frozen=True)
class Fixture:
    name: str
    files: dict[str, str]
    expect: tuple[Expect, ...]
    phrases: tuple[Phrase, ...] = ()
    docstrings: tuple[str, ...] = ()  # main-file doc lines some summary must quote


def python_package(package: str, modules: dict[str, tuple[str, str]]) -> dict[str, str]:
    """``package/<module>.py`` files that all import and call each other: one obvious
    community. ``modules`` maps a module to (its docstring, source appended at the end)."""
    files = {f"{package}/__init__.py": f'"""The {package} package."""\n'}
    for module, (doc, extra) in modules.items():
        others = [m for m in modules if m != module]
        imports = "".join(f"from {package}.{o} import {o}_entry\n" for o in others)
        calls = "".join(f"    {o}_entry()\n" for o in others)
        files[f"{package}/{module}.py"] = (
            f'"""{doc}"""\n\n{imports}\n\n'
            f"def {module}_entry(value=None):\n{calls}    return value\n{extra}"
        )
    return files


def plugin_records(names: list[str]) -> dict[str, str]:
    """Record classes that extend ``storage.models.Model`` and all use each other."""
    files = {"plugins/__init__.py": '"""Optional record types."""\n'}
    for name in names:
        others = [n for n in names if n != name]
        imports = "".join(f"from plugins.{o} import {o.title()}Record\n" for o in others)
        uses = "".join(f"        {o.title()}Record()\n" for o in others)
        files[f"plugins/{name}.py"] = (
            f'"""{name.title()} records."""\n\nfrom storage.models import Model\n{imports}\n\n'
            f"class {name.title()}Record(Model):\n    def related(self):\n{uses}"
        )
    return files


SHOP = Fixture(
    name="shop",
    files={
        **python_package(
            "payments",
            {
                "gateway": ("Payment gateway: picks a provider and charges a card.", ""),
                "stripe_provider": (
                    "Charges cards through the Stripe API.",
                    "\n\nclass StripeProvider:\n    def charge(self, amount):\n"
                    "        return gateway_entry(amount)\n",
                ),
                "paypal_provider": (
                    "Charges through PayPal checkout.",
                    "\n\nclass PayPalProvider:\n    def charge(self, amount):\n"
                    "        return gateway_entry(amount)\n",
                ),
                "refunds": ("Refunds of captured payments.", ""),
                "invoices": ("Invoices sent after a payment.", ""),
            },
        ),
        **python_package(
            "auth",
            {
                "login": ("Login: checks a password and opens a session.", ""),
                "session": (
                    "Sessions kept in signed cookies.",
                    "\n\nfrom storage.cache import cache_entry\n\n\n"
                    "def load_session(key):\n    return cache_entry(key)\n\n\n"
                    "def drop_session(key):\n    return cache_entry(key)\n",
                ),
                "tokens": ("Access and refresh tokens.", ""),
                "passwords": ("Password hashing and verification.", ""),
            },
        ),
        **python_package(
            "storage",
            {
                "database": ("The database connection pool.", ""),
                "models": (
                    "Base model every stored record extends.",
                    "\n\nclass Model:\n    def save(self):\n        return database_entry()\n",
                ),
                "migrations": ("Schema migrations.", ""),
                "cache": ("A read-through cache in front of the database.", ""),
            },
        ),
        # Plugins extend the storage models and call nothing in storage: an inherits edge.
        **plugin_records(["audit", "tags", "notes", "ratings", "reviews"]),
        "app.py": (
            '"""The shop\'s entry point."""\n\n'
            "from auth.login import login_entry\nfrom payments.gateway import gateway_entry\n"
            "from storage.database import database_entry\n\n\n"
            "def main():\n    login_entry()\n    gateway_entry()\n    database_entry()\n"
        ),
        "tests/conftest.py": (
            '"""Shared test helpers: a fake clock and a fake card."""\n\n\n'
            "def fake_clock():\n    return 0\n\n\ndef fake_card():\n    return '4242'\n"
        ),
        **{
            f"tests/test_{name}.py": (
                f"from tests.conftest import fake_card, fake_clock\n\n\n"
                f"def test_{name}():\n    assert fake_clock() == 0\n    assert fake_card()\n"
            )
            for name in ("checkout", "login_flow", "cache_expiry", "migrations_order")
        },
        # Files with no edges are grouped along the folder tree, ten or more to a group.
        **{
            f"docs/{topic}.md": f"# {topic.title()}\n\nHow the shop handles {topic}.\n"
            for topic in [
                "index",
                "checkout",
                "payments",
                "refunds",
                "auth",
                "sessions",
                "storage",
                "caching",
                "deploy",
                "faq",
            ]
        },
        **{
            f"tests/fixtures/accuracy/{name}.json": f'{{"{name}": []}}\n'
            for name in [
                "cards",
                "refunds",
                "sessions",
                "tokens",
                "orders",
                "invoices",
                "carts",
                "users",
                "prices",
                "taxes",
            ]
        },
        "README.md": "# Shop\n",
        "pyproject.toml": '[project]\nname = "shop"\n',
        ".gitignore": "*.pyc\n",
        ".pre-commit-config.yaml": "repos: []\n",
        ".github/workflows/ci.yml": "name: CI\non: [push]\n",
        ".github/workflows/release.yml": "name: Release\non: [push]\n",
    },
    expect=(
        Expect("payments/stripe_provider.py", (("payment",),)),
        Expect("auth/login.py", (("auth", "login", "session"),)),
        Expect("storage/models.py", (("storage", "database"),)),
        Expect("plugins/audit.py", (("plugin", "audit", "record"),)),
        Expect("tests/test_checkout.py", (("test",),)),
        Expect("docs/payments.md", (("doc",),)),
        Expect("tests/fixtures/accuracy/cards.json", (("fixture",), ("accuracy",))),
        Expect(".github/workflows/ci.yml", (("setup", "ci", "github"),)),
    ),
    phrases=(
        Phrase("plugins/audit.py", "storage/models.py", "extends", "calls"),
        Phrase("auth/session.py", "storage/cache.py", "calls"),
    ),
    docstrings=(
        "Payment gateway: picks a provider and charges a card",
        "Shared test helpers: a fake clock and a fake card",
    ),
)


def ts_module(folder: str, modules: dict[str, str], doc: dict[str, str]) -> dict[str, str]:
    """``folder/<Module>.ts`` files that import and call each other in a ring."""
    names = list(modules)
    files = {}
    for index, module in enumerate(names):
        nxt = names[(index + 1) % len(names)]
        header = f"/**\n * {doc[module]}\n */\n" if module in doc else ""
        files[f"{folder}/{module}.ts"] = (
            "/*\n * Copyright 2026 Example Corp. Licensed under the MIT License.\n */\n\n"
            + header
            + f"import {{ {modules[nxt]} }} from './{nxt}';\n\n"
            + f"export function {modules[module]}(input: string): string {{\n"
            + f"  return {modules[nxt]}(input);\n}}\n"
        )
    return files


WEB = Fixture(
    name="web",
    files={
        **ts_module(
            "src/components",
            {
                "Button": "renderButton",
                "Modal": "renderModal",
                "Form": "renderForm",
                "TextField": "renderTextField",
            },
            {"Button": "A clickable button, the base of every control."},
        ),
        **ts_module(
            "src/api",
            {
                "client": "request",
                "endpoints": "endpointFor",
                "retry": "withRetry",
                "errors": "toApiError",
            },
            {"client": "HTTP client for the backend REST API."},
        ),
        "src/index.ts": (
            "import { renderForm } from './components/Form';\n"
            "import { request } from './api/client';\n\n"
            "export function start(): string {\n  return renderForm(request('/'));\n}\n"
        ),
        "package.json": '{"name": "web"}\n',
        "tsconfig.json": "{}\n",
    },
    expect=(
        Expect("src/components/Button.ts", (("component", "button", "modal", "form"),)),
        Expect("src/api/client.ts", (("api", "client"),)),
    ),
    docstrings=("HTTP client for the backend REST API",),
)


def go_package(folder: str, package: str, doc: str, functions: dict[str, str]) -> dict[str, str]:
    """One Go package whose files call each other in a ring; the first file has the doc."""
    names = list(functions)
    files = {}
    for index, stem in enumerate(names):
        nxt = functions[names[(index + 1) % len(names)]]
        header = f"// {doc}\n" if index == 0 else ""
        files[f"{folder}/{stem}.go"] = (
            "// Copyright 2026 Example Corp. All rights reserved.\n\n"
            f"{header}package {package}\n\n"
            f"func {functions[stem]}(key string) string {{\n\treturn {nxt}(key)\n}}\n"
        )
    return files


SERVICE = Fixture(
    name="service",
    files={
        "go.mod": "module example.com/service\n\ngo 1.22\n",
        **go_package(
            "internal/storage",
            "storage",
            "Package storage persists orders in memory or in Postgres.",
            {"store": "Get", "memory": "memoryGet", "postgres": "postgresGet", "codec": "decode"},
        ),
        **go_package(
            "internal/httpapi",
            "httpapi",
            "Package httpapi routes HTTP requests to handlers.",
            {"router": "Route", "handlers": "handle", "middleware": "wrap", "render": "render"},
        ),
        "cmd/server/main.go": (
            'package main\n\nimport (\n\t"example.com/service/internal/httpapi"\n'
            '\t"example.com/service/internal/storage"\n)\n\n'
            'func main() {\n\thttpapi.Route(storage.Get("x"))\n}\n'
        ),
    },
    expect=(
        Expect("internal/storage/memory.go", (("storage",),)),
        Expect("internal/httpapi/router.go", (("httpapi", "http", "api", "router"),)),
    ),
    docstrings=("Package storage persists orders in memory or in Postgres",),
)


def java_package(package: str, classes: dict[str, str]) -> dict[str, str]:
    """``com.acme.<package>`` classes that use each other in a ring, each with a Javadoc."""
    names = list(classes)
    files = {}
    for index, name in enumerate(names):
        nxt = names[(index + 1) % len(names)]
        files[f"src/main/java/com/acme/{package}/{name}.java"] = (
            "/*\n * Copyright 2026 Acme. Licensed under the Apache License, Version 2.0.\n */\n"
            f"package com.acme.{package};\n\nimport java.util.List;\n\n"
            f"/**\n * {classes[name]}\n *\n * @author someone\n */\n"
            f"public class {name} {{\n"
            f"    public int run(List<String> items) {{\n"
            f"        return new {nxt}().size(items);\n    }}\n\n"
            f"    public int size(List<String> items) {{\n"
            f"        return items.size();\n    }}\n}}\n"
        )
    return files


BILLING = Fixture(
    name="billing",
    files={
        **java_package(
            "billing",
            {
                "Invoice": "An invoice: lines, taxes and a total.",
                "InvoiceService": "Creates and sends invoices.",
                "TaxCalculator": "Computes the tax of each invoice line.",
            },
        ),
        **java_package(
            "notify",
            {
                "Notifier": "Sends a notification through the best channel.",
                "EmailSender": "Sends notifications by email.",
                "SmsSender": "Sends notifications by SMS.",
            },
        ),
        "pom.xml": "<project/>\n",
    },
    expect=(
        Expect("src/main/java/com/acme/billing/Invoice.java", (("billing", "invoice"),)),
        Expect("src/main/java/com/acme/notify/EmailSender.java", (("notif", "sender"),)),
    ),
    docstrings=("An invoice: lines, taxes and a total",),
)


def ts_package(root: str, name: str, modules: dict[str, str], doc: str) -> dict[str, str]:
    """A workspace package: ``root/package.json`` and ``root/src/<module>.ts`` files that call
    each other in a ring, the first with a header comment."""
    files = {f"{root}/package.json": f'{{"name": "{name}", "main": "src/index.ts"}}\n'}
    names = list(modules)
    exports = "".join(f"export {{ {modules[m]} }} from './{m}';\n" for m in names)
    files[f"{root}/src/index.ts"] = exports
    for index, module in enumerate(names):
        nxt = names[(index + 1) % len(names)]
        header = f"// {doc}\n\n" if index == 0 else ""
        files[f"{root}/src/{module}.ts"] = (
            f"{header}import {{ {modules[nxt]} }} from './{nxt}';\n\n"
            f"export function {modules[module]}(input: string): string {{\n"
            f"  return {modules[nxt]}(input) + {modules[nxt]}(input);\n}}\n"
        )
    return files


MONOREPO = Fixture(
    name="monorepo",
    files={
        "package.json": '{"name": "acme", "private": true, "workspaces": ["packages/*"]}\n',
        **ts_package(
            "packages/ui",
            "@acme/ui",
            {"Button": "button", "Dialog": "dialog", "Menu": "menu", "Tooltip": "tooltip"},
            "Buttons, dialogs and menus shared by every app.",
        ),
        **ts_package(
            "packages/api-client",
            "@acme/api-client",
            {"client": "fetchJson", "auth": "signRequest", "retry": "retrying", "errors": "fail"},
            "A typed client for the Acme REST API.",
        ),
        **{
            f"packages/api-client/test/{name}.test.ts": (
                "import { fetchJson, retrying } from '../src/index';\n\n"
                f"export function check_{name}(): string {{\n"
                "  return fetchJson('a') + retrying('b');\n}\n"
            )
            for name in ("client", "retry")
        },
        "apps/web/package.json": '{"name": "@acme/web"}\n',
        "apps/web/src/App.ts": (
            "import { button, dialog } from '@acme/ui';\n"
            "import { fetchJson } from '@acme/api-client';\n\n"
            "export function app(): string {\n"
            "  return button(fetchJson('/')) + dialog('x');\n}\n"
        ),
    },
    expect=(
        Expect("packages/ui/src/Button.ts", (("ui",),)),
        Expect("packages/api-client/src/client.ts", (("api", "client"),)),
    ),
    docstrings=("A typed client for the Acme REST API",),
)


def text_module(name: str, others: list[str], doc: str) -> str:
    imports = "".join(f"from textkit.{o} import {o}\n" for o in others)
    calls = "".join(f"    text = {o}(text)\n" for o in others)
    return f'"""{doc}"""\n\n{imports}\n\ndef {name}(text):\n{calls}    return text\n'


# A library whose tests cluster with the code they test, and examples that use it: the name is
# the library's, not "Tests".
TEXTKIT = Fixture(
    name="textkit",
    files={
        "src/textkit/__init__.py": '"""Text processing: tokens, normal forms and stems."""\n',
        "src/textkit/tokenize.py": text_module(
            "tokenize", ["normalize"], "Splits text into word tokens."
        ),
        "src/textkit/normalize.py": text_module(
            "normalize", ["stem"], "Lower-cases and strips accents."
        ),
        "src/textkit/stem.py": text_module("stem", ["stopwords"], "Porter stemming."),
        "src/textkit/stopwords.py": text_module("stopwords", [], "Common English stop words."),
        **{
            f"tests/test_{name}.py": (
                f"from textkit.{name} import {name}\n\n\n"
                f"def test_{name}_basic():\n    assert {name}('a b')\n\n\n"
                f"def test_{name}_empty():\n    assert {name}('') == ''\n\n\n"
                f"def test_{name}_unicode():\n    assert {name}('é')\n"
            )
            for name in ("tokenize", "normalize", "stem", "stopwords")
        },
        "pyproject.toml": '[project]\nname = "textkit"\n',
    },
    expect=(
        Expect("src/textkit/tokenize.py", (("textkit", "tokenize", "normalize", "stem"),)),
        Expect("tests/test_stem.py", (("textkit", "tokenize", "normalize", "stem", "test"),)),
    ),
    docstrings=("Splits text into word tokens",),
)

FIXTURES = (SHOP, WEB, SERVICE, BILLING, MONOREPO, TEXTKIT)


# --- building and labelling -------------------------------------------------------------------

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.com",
    "GIT_COMMITTER_NAME": "Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def build_repository(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` into a new git repository at ``root``, commit them and map it."""
    from kgtool.cli import main

    root.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    env = {**os.environ, **GIT_ENV, "HOME": str(root.parent)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["-C", str(root), "update"])
    if code:
        raise RuntimeError(f"kgtool update failed in {root} ({code}): {out.getvalue()}")


@dataclass
class Labelled:
    document: dict
    items: dict[str, CommunityItem]
    edges: list[EdgeItem]
    batch: LabelBatch


def label_repository(root: Path, taken: set[str] | None = None) -> Labelled:
    """Everything the offline labeler is given for the map in ``root/.kg``, and its answer."""
    document = json.loads((root / ".kg" / "communities.json").read_text())
    settings = load_config(root).section("ontology")
    docstrings = read_docstrings(root, document)
    items = community_items(document, docstrings, {}, settings["max_paths"])
    labeler = OfflineLabeler()
    first = labeler.label(list(items.values()), [], taken or set())
    names = {cid: text.name for cid, text in first.communities.items()}
    items = community_items(document, docstrings, names, settings["max_paths"])
    chosen = phrased_edges(document, settings["edges_per_community"], settings["min_edge_count"])
    edges = edge_items(chosen, names)
    return Labelled(
        document, items, edges, labeler.label(list(items.values()), edges, taken or set())
    )


@dataclass
class Score:
    fixture: str
    passed: list[str]
    failed: list[str]


def score(fixture: Fixture, labelled: Labelled) -> Score:
    """Every known answer of ``fixture`` checked against the labels, one line each."""
    files = labelled.document["files"]
    names = {cid: text.name for cid, text in labelled.batch.communities.items()}
    summaries = [text.summary for text in labelled.batch.communities.values()]
    passed, failed = [], []

    def check(ok: bool, line: str) -> None:
        (passed if ok else failed).append(line)

    for expect in fixture.expect:
        name = names.get(files.get(expect.path, ""), "")
        ok = all(any(w in name.casefold() for w in group) for group in expect.words)
        wanted = " and ".join("/".join(group) for group in expect.words)
        check(ok, f"{expect.path}: {name!r} has {wanted}")
    for phrase in fixture.phrases:
        key = (files.get(phrase.src, ""), files.get(phrase.dst, ""))
        said = labelled.batch.edges.get(key)
        ok = said is not None and phrase.has in said and not (phrase.lacks and phrase.lacks in said)
        check(ok, f"{phrase.src} -> {phrase.dst}: {said!r} has {phrase.has!r}")
    for line in fixture.docstrings:
        check(any(line in s for s in summaries), f"a summary quotes {line!r}")
    folded = [n.casefold() for n in names.values()]
    check(len(set(folded)) == len(folded), "names are unique")
    check(all(2 <= len(n.split()) <= 5 for n in names.values()), "names have 2-5 words")
    return Score(fixture.name, passed, failed)
