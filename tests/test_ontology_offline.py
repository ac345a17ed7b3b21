from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import yaml
from conftest import Repo
from offline_fixtures import FIXTURES, Fixture, label_repository, score

from kgtool.ontology.docstrings import first_doc_line
from kgtool.ontology.file_words import file_role, humanize, words
from kgtool.ontology.items import CommunityItem, EdgeItem, LabelBatch
from kgtool.ontology.offline import OfflineLabeler, base_name, edge_phrase
from kgtool.ontology.validate import validate_name, validate_phrase, validate_summary


def item(
    cid: str,
    paths: list[str],
    main: list[str] | None = None,
    symbols: list[str] | None = None,
    docstrings: dict[str, str] | None = None,
    size: int | None = None,
) -> CommunityItem:
    return CommunityItem(
        id=cid,
        size=size or len(paths),
        paths=tuple(sorted(paths)),
        main_files=tuple(main if main is not None else sorted(paths)[:3]),
        top_symbols=tuple(symbols or ()),
        docstrings=docstrings or {},
        edges_out={},
        edges_in={"calls": {"EXTRACTED": 5}} if main else {},
        neighbours={},
    )


def label(*items: CommunityItem, taken: set[str] | None = None) -> dict[str, tuple[str, str]]:
    batch = OfflineLabeler().label(list(items), [], taken or set())
    return {cid: (text.name, text.summary) for cid, text in batch.communities.items()}


LANGUAGES = item(
    "c2",
    [
        *(f"kgtool/raw/languages/{n}.py" for n in ("__init__", "base", "python", "go", "java")),
        *(f"kgtool/raw/languages/{n}.scm" for n in ("python", "go", "java")),
        "kgtool/raw/model.py",
    ],
    main=["kgtool/raw/languages/base.py", "kgtool/raw/model.py", "kgtool/raw/languages/go.py"],
    symbols=["kgtool/raw/languages/base.py::Language.node_text", "kgtool/raw/model.py::ImportFact"],
    docstrings={
        "kgtool/raw/languages/base.py": "What a language module provides, and the extraction "
        "every language shares."
    },
)


# --- names -------------------------------------------------------------------------------------


def test_a_code_community_is_named_for_its_folder_and_busiest_files() -> None:
    name, summary = label(LANGUAGES)["c2"]
    assert name == "Raw languages: base, model"
    assert summary == (
        "9 files mostly in kgtool/raw/languages/, around Language and ImportFact, with 3 query "
        "files; base.py says 'What a language module provides, and the extraction every "
        "language shares'."
    )


def test_tests_docs_fixtures_and_setup_are_named_for_what_they_are() -> None:
    tests = item(
        "c1",
        ["tests/communities_helpers.py", "tests/test_communities.py", "tests/test_diff.py"],
        main=["tests/communities_helpers.py"],
        symbols=["tests/communities_helpers.py::clique"],
    )
    docs = item("c2", [f"docs/{n}.md" for n in ("index", "install", "usage", "faq")])
    fixtures = item("c3", [f"tests/fixtures/accuracy/{n}.json" for n in ("a", "b", "c")])
    setup = item(
        "c4",
        [
            ".github/workflows/ci.yml",
            ".github/workflows/release.yml",
            ".gitignore",
            "README.md",
            "pyproject.toml",
            ".pre-commit-config.yaml",
        ],
    )
    names = {cid: name for cid, (name, _) in label(tests, docs, fixtures, setup).items()}
    assert names == {
        "c1": "Tests: communities",
        "c2": "Docs: pages",
        "c3": "Fixtures: accuracy",
        "c4": "Project setup: CI",
    }


def test_code_and_its_tests_are_named_for_the_code() -> None:
    mixed = item(
        "c8",
        ["src/click/decorators.py", *(f"tests/test_{n}.py" for n in ("basic", "options", "args"))],
        main=["src/click/decorators.py"],
        symbols=["src/click/decorators.py::command", "tests/test_basic.py::helper"],
    )
    name, summary = label(mixed)["c8"]
    assert name == "Click: decorators"
    assert summary.startswith("4 files: source in src/click/, around command and helper, with 3")


def test_top_level_files_are_named_after_the_busiest_one() -> None:
    go = item(
        "c6",
        ["command.go", "command_test.go", "completions.go", "completions_test.go"],
        main=["command.go", "completions.go"],
        symbols=["command.go::Command"],
    )
    assert label(go)["c6"][0] == "Command: completions"


def test_a_word_most_files_share_becomes_one_item() -> None:
    shells = ["bash", "fish", "zsh", "powershell"]
    community = item(
        "c2",
        ["cobra.go", "doc/md_docs.go", *(f"{s}_completions.go" for s in shells)],
        main=["cobra.go", "bash_completions.go"],
    )
    assert label(community)["c2"][0] == "Cobra: completions"


def test_a_mixed_bag_of_leftovers_says_so() -> None:
    leftovers = item(
        "c1",
        [
            "README.md",
            "pyproject.toml",
            "docs/a.md",
            "docs/b.md",
            "tests/fixtures/x.json",
            "tests/fixtures/y.json",
        ],
    )
    assert label(leftovers)["c1"][0] == "Mixed: docs, fixtures, project setup"


def test_names_have_two_to_five_words() -> None:
    items = [
        LANGUAGES,
        item("c3", ["a.py"]),
        item("c4", ["args.go", "args_test.go"], main=["args.go"], symbols=["args.go::ExactArgs"]),
        item(
            "c5",
            ["pkg/very_long_module_name_with_many_words.py", "pkg/x.py"],
            main=["pkg/very_long_module_name_with_many_words.py"],
        ),
        item("c6", ["tests/repositories/fixtures/installed/lib/python3.7/site-packages/a.json"]),
        item("c7", ["LICENSE"]),
    ]
    for name, _ in label(*items).values():
        assert 2 <= len(name.split()) <= 5, name


def test_names_are_unique_and_deterministic() -> None:
    first = item("c1", ["docs/a/one.md", "docs/a/two.md"])
    second = item("c2", ["docs/b/one.md", "docs/b/two.md"])
    twin = item("c3", ["docs/a/one.md", "docs/a/two.md"])
    taken = {"docs: pages"}
    labels = label(first, second, twin, taken=taken)
    names = [name.casefold() for name, _ in labels.values()]
    assert len(set(names)) == 3 and not set(names) & taken
    # Who keeps a name does not depend on the order the communities come in.
    assert label(twin, second, first, taken=taken) == labels
    batch = OfflineLabeler().label([first, second, twin], [], taken)
    assert OfflineLabeler().label([first, second, twin], [], taken) == batch


def test_taken_names_are_compared_casefolded() -> None:
    name = label(LANGUAGES, taken={"raw languages: base, model"})["c2"][0]
    assert name.casefold() != "raw languages: base, model"
    assert "Raw languages" in name


def test_a_small_change_of_members_keeps_the_name() -> None:
    before = base_name(LANGUAGES)
    fewer = LANGUAGES._replace(
        paths=tuple(p for p in LANGUAGES.paths if p != "kgtool/raw/languages/java.scm"),
        size=LANGUAGES.size - 1,
    )
    more = LANGUAGES._replace(
        paths=tuple(sorted((*LANGUAGES.paths, "kgtool/raw/languages/aardvark.py"))),
        size=LANGUAGES.size + 1,
    )
    assert base_name(fewer) == before
    assert base_name(more) == before


def test_ties_are_never_broken_alphabetically() -> None:
    tests = item("c1", [f"tests/test_{n}.py" for n in ("alpha", "beta", "gamma")])
    renamed = item("c1", [f"tests/test_{n}.py" for n in ("aardvark", "beta", "gamma")])
    assert base_name(tests) == base_name(renamed) == "Test suite"


def assert_valid(batch: LabelBatch) -> None:
    """Every label passes the checks any label must pass, whoever wrote it."""
    for text in batch.communities.values():
        assert validate_name(text.name) == text.name
        assert validate_summary(text.summary) == text.summary
    for phrase in batch.edges.values():
        assert validate_phrase(phrase) == phrase


def test_summaries_are_plain_one_line_and_short_enough() -> None:
    community = item(
        "c1",
        ["app/_core.py", "app/io.py", "app/__init__.py"],
        main=["app/_core.py"],
        symbols=["app/_core.py::_private", "app/_core.py::Engine"],
        docstrings={
            "app/_core.py": "The `Core`\u200b of **everything** | see <docs> #1 [here] at "
            "https://example.com and __init__, then " + "many more words " * 20
        },
    )
    batch = OfflineLabeler().label([community], [], set())
    assert_valid(batch)
    summary = batch.communities["c1"].summary
    assert summary.startswith("3 files in app/, around Engine; its main file says 'The Core of")
    assert summary.endswith("...'.") and len(summary) <= 200


def test_labels_pass_the_label_checks_where_paths_have_underscores() -> None:
    twins = [item(f"c{n}", [f"pkg/_private/{m}.md" for m in ("a", "b")]) for n in (1, 2)] + [
        item("c3", ["__tests__/a.test.ts", "__tests__/b.test.ts"])
    ]
    batch = OfflineLabeler().label(twins, [], set())
    assert_valid(batch)
    assert batch.communities["c3"].summary == "2 test files in the tests folder, testing a and b."


def test_labelling_two_hundred_communities_is_fast() -> None:
    items = [LANGUAGES._replace(id=f"c{n}") for n in range(1, 201)]
    start = time.perf_counter()
    batch = OfflineLabeler().label(items, [], set())
    assert time.perf_counter() - start < 1.0
    assert len({text.name for text in batch.communities.values()}) == 200


# --- words and files ---------------------------------------------------------------------------


def test_words_split_identifiers_and_stems() -> None:
    assert words("HTTPServerError") == ["http", "server", "error"]
    assert words("bash_completionsV2") == ["bash", "completions", "v2"]
    assert words("pcre2") == ["pcre2"]
    assert words("PayPalProvider") == ["paypal", "provider"]
    assert humanize("_urls") == "URLs"
    assert humanize("shell_completion") == "shell completion"


def test_numeronyms_are_words_whole() -> None:
    # "I18 n" and "e2 ee" were names: letters, digits, letters in one case are one word.
    assert words("i18n") == ["i18n"] and words("I18N") == ["i18n"]
    assert words("e2ee_keys") == ["e2ee", "keys"]
    assert humanize("k8s_operators") == "k8s operators"
    assert words("http2Server") == ["http2", "server"]  # a hump still splits
    assert words("sha256sum") == ["sha256", "sum"] and words("base64url") == ["base64", "url"]


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("kgtool/store.py", "code"),
        ("tests/test_store.py", "test"),
        ("src/users.test.ts", "test"),
        ("pkg/store_test.go", "test"),
        ("src/test/java/com/acme/StoreTest.java", "test"),
        ("tests/fixtures/accuracy/a.json", "fixture"),
        ("examples/demo/main.py", "example"),
        ("examples/javascript/tests/test_js_example.py", "example"),  # an example app's tests
        ("tests/examples/test_demo.py", "test"),  # examples a test suite reads
        ("docs/index.md", "doc"),
        ("docs/img/logo.png", "doc"),
        (".github/workflows/ci.yml", "setup"),
        ("pyproject.toml", "setup"),
        ("crates/grep/LICENSE-MIT", "setup"),
        ("kgtool/raw/languages/go.scm", "data"),
        ("media/logo.svg", "asset"),
    ],
)
def test_file_roles(path: str, role: str) -> None:
    assert file_role(path) == role


# --- edge phrases ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("types", "phrase"),
    [
        ({"calls": {"EXTRACTED": 20}, "imports": {"EXTRACTED": 6}}, "calls into"),
        ({"imports": {"EXTRACTED": 5}, "inherits": {"EXTRACTED": 5}}, "extends classes of"),
        (
            {"calls": {"EXTRACTED": 10}, "imports": {"EXTRACTED": 4}, "inherits": {"EXTRACTED": 4}},
            "calls into and extends classes of",
        ),
        ({"calls": {"EXTRACTED": 3}, "imports": {"EXTRACTED": 9}}, "imports from and calls into"),
        ({"imports": {"EXTRACTED": 4}}, "imports from"),
        ({"calls": {"EXTRACTED": 2, "INFERRED": 30}}, "probably calls into"),
        ({"calls": {"AMBIGUOUS": 7}}, "may call into"),
        ({"imports": {"EXTRACTED": 5}, "inherits": {"EXTRACTED": 1}}, "imports from"),
    ],
)
def test_edge_phrases_follow_the_types_and_tiers(types: dict, phrase: str) -> None:
    assert edge_phrase(types) == phrase


def test_every_edge_gets_a_phrase() -> None:
    edge = EdgeItem("c1", "c2", "A", "B", {"inherits": {"EXTRACTED": 2}})
    batch = OfflineLabeler().label([LANGUAGES], [edge], set())
    assert batch.edges == {("c1", "c2"): "extends classes of"}
    assert batch.problems == []


# --- first doc lines ---------------------------------------------------------------------------

LICENCE_C = "/*\n * Copyright 2026 Acme. Licensed under the Apache License.\n */\n"


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("a.py", '#!/usr/bin/env python\n"""Reads the store.\n\nMore."""\n', "Reads the store."),
        (
            "a.py",
            "# Copyright 2026 Acme\n\n# Caches parsed facts.\nimport os\n",
            "Caches parsed facts.",
        ),
        ("a.py", "import os\n", ""),
        (
            "a.ts",
            LICENCE_C
            + "\n/**\n * HTTP client for the API.\n * @module client\n */\nimport x from 'y';\n",
            "HTTP client for the API.",
        ),
        (
            "a.js",
            "'use strict';\n// Retries failed requests, e.g. timeouts.\n",
            "Retries failed requests, e.g. timeouts.",
        ),
        (
            "a.ts",
            "import { a } from './a';\n\n/** Renders a button. */\nexport function b() {}\n",
            "Renders a button.",
        ),
        (
            "s.go",
            "// Copyright 2026 Acme.\n\n//go:build linux\n\n"
            "// Package storage keeps orders.\npackage storage\n",
            "Package storage keeps orders.",
        ),
        ("s.go", "package storage\n\n// Get returns one.\nfunc Get() {}\n", ""),
        (
            "A.java",
            LICENCE_C + "package com.acme;\n\nimport java.util.List;\n\n"
            "/**\n * An invoice: lines and a total.\n *\n * @author x\n */\n"
            "@Deprecated\npublic class A {}\n",
            "An invoice: lines and a total.",
        ),
        ("lib.rs", "//! Fast line search.\n//!\n//! More.\nuse std::io;\n", "Fast line search."),
        (
            "README.md",
            "---\ntitle: x\n---\n<!-- badge -->\n[![ci](x)](y)\n\n# The *shop* guide\n",
            "The shop guide",
        ),
        ("index.rst", "=====\nTitle\n=====\n", "Title"),
        (".gitignore", "*.egg-info/\n", ""),
        ("ci.yml", "# Runs the tests on every push.\nname: CI\n", "Runs the tests on every push."),
    ],
)
def test_first_doc_line(path: str, text: str, line: str) -> None:
    assert first_doc_line(path, text) == line


# --- known answers -----------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_known_answers(make_repo: Callable[..., Repo], fixture: Fixture) -> None:
    repo = make_repo(fixture.files)
    result = repo.kg("update")
    assert result.code == 0, result.err
    labelled = label_repository(repo.root)
    found = score(fixture, labelled)
    assert found.failed == [], found.failed
    assert_valid(labelled.batch)
    # The same input twice gives the same labels, byte for byte.
    assert label_repository(repo.root).batch == labelled.batch


def test_a_main_file_named_with_brackets_is_labelled_in_plain_text(
    make_repo: Callable[..., Repo],
) -> None:
    # Route files of web frameworks are named so: pages/api/[id].ts, app/[...slug]/page.tsx.
    repo = make_repo(
        {
            "site/pages/api/[trpc].ts": "/** Serves every call of the API router. */\n"
            "export default function handler(req: any) {\n  return req;\n}\n",
            "site/pages/index.ts": "import handler from './api/[trpc]';\n"
            "export const page = () => handler(1);\n",
        }
    )
    assert repo.kg("update").code == 0
    result = repo.kg("label", "--offline")
    assert result.code == 0, result.err + result.out
    labels = (repo.root / ".kg" / "ontology.yaml").read_text().splitlines()
    said = [line for line in labels if line.strip().startswith(("name:", "summary:"))]
    assert said and not any("[" in line for line in said), said


def test_a_whole_package_is_named_from_its_manifest_description(
    make_repo: Callable[..., Repo],
) -> None:
    # Its paths say only "Clai: code": a small package of a monorepo, nothing named by its
    # files; the description its pyproject.toml gives says what it is.
    repo = make_repo(
        {
            "pyproject.toml": '[project]\nname = "suite"\ndescription = "The whole suite"\n',
            "suite/__init__.py": "def run():\n    return 1\n",
            "suite/engine.py": "from suite import run\n\ndef start():\n    return run()\n",
            "clai/pyproject.toml": (
                '[project]\nname = "clai"\n'
                'description = "Suite CLI: command line interface to chat to models"\n'
            ),
            "clai/clai/__init__.py": "def cli():\n    return 0\n",
            "clai/clai/__main__.py": "from clai import cli\n\ncli()\n",
        }
    )
    assert repo.kg("update").code == 0
    assert repo.kg("label", "--offline").code == 0
    ontology = yaml.safe_load((repo.root / ".kg" / "ontology.yaml").read_text())
    names = {label["name"] for label in ontology["communities"].values()}
    assert "Clai: command line interface" in names, names
    # A manifest committed as a link is not followed (out of the tree, to a device).
    outside = repo.root.parent / "outside.toml"
    outside.write_text('[project]\nname = "clai"\ndescription = "secret token abc"\n')
    (repo.root / "clai/pyproject.toml").unlink()
    (repo.root / "clai/pyproject.toml").symlink_to(outside)
    repo.git("add", "-A")
    repo.commit("the manifest as a link")
    assert repo.kg("update").code == 0
    assert repo.kg("label", "--offline", "--relabel").code == 0
    assert "secret" not in (repo.root / ".kg" / "ontology.yaml").read_text()
    assert "secret" not in (repo.root / ".kg" / "MAP.md").read_text()


@pytest.mark.parametrize(
    ("description", "phrase"),
    [
        ("Pydantic AI CLI: command line interface to chat to LLMs", "command line interface"),
        ("AI Agent Framework, the Pydantic way, slim package", "AI Agent Framework"),
        ("A fast tokenizer.", "fast tokenizer"),
        ("Clai", ""),  # says only the name
        ("Framework for evaluating stochastic code", "framework"),
        ("A very long description of many words that never stops", ""),  # cut, never a stub
    ],
)
def test_a_package_description_is_cut_to_what_the_package_is(description: str, phrase: str) -> None:
    from kgtool.ontology.offline import package_phrase

    found = item("c1", ["clai/clai/__init__.py"], docstrings={"clai/package.json": description})
    assert package_phrase(found._replace(manifest="clai/package.json"), "Clai") == phrase
    # Only the manifest of the package the community is most of speaks for it.
    assert package_phrase(found, "Clai") == ""


@pytest.mark.parametrize(
    "description",
    ["Suite CLI: `rm` **command** line", "a [link](https://x.example) tool", "an \u202e tool"],
)
def test_a_manifest_description_holding_markup_names_nothing(description: str) -> None:
    from kgtool.ontology.offline import package_phrase

    found = item("c1", ["clai/clai/__init__.py"], docstrings={"clai/package.json": description})
    assert package_phrase(found._replace(manifest="clai/package.json"), "Clai") == ""


@pytest.mark.parametrize(
    ("path", "text", "description"),
    [
        (
            "p/package.json",
            '{"name": "x", "description": "Caf\\u00e9 \\"tools\\""}',
            'Café "tools"',
        ),
        # A description nested deeper (a config's) is not the package's.
        ("p/package.json", '{"config": {"description": "nested"}}', ""),
        ("p/pyproject.toml", '[project]\ndescription = "A fast parser"\n', "A fast parser"),
        ("p/pyproject.toml", '[tool.poetry]\ndescription = "Poetry\'s own"\n', "Poetry's own"),
        # Another tool's table is not the package's.
        (
            "p/pyproject.toml",
            '[project]\ndynamic = ["description"]\n[tool.poe.tasks.lint]\n'
            'description = "Run the linters"\n',
            "",
        ),
        ("p/Cargo.toml", '[package]\nname = "x"\ndescription = """Multi\nline"""\n', "Multi line"),
        ("p/package.json", '{"description": "cut', ""),  # not parsed: nothing
    ],
)
def test_a_manifest_says_its_package_s_own_description(
    path: str, text: str, description: str
) -> None:
    assert first_doc_line(path, text) == description


def test_a_name_every_package_has_gives_way_to_a_specific_one() -> None:
    core = item(
        "c3",
        [f"app/agent/{n}.py" for n in ("utils", "capabilities", "loop", "graph", "exceptions")],
        main=["app/agent/utils.py", "app/agent/exceptions.py", "app/agent/capabilities.py"],
    )
    name = base_name(core)
    assert "utils" not in name.casefold() and "exceptions" not in name.casefold(), name
    # A community that is mostly its utilities folder is named for it.
    helpers = item(
        "c4",
        [f"src/util/{n}.ts" for n in ("strings", "nodes", "scope", "types")] + ["src/rules/a.ts"],
        main=["src/util/strings.ts", "src/rules/a.ts"],
    )
    assert "util" in base_name(helpers).casefold(), base_name(helpers)


def test_a_generic_file_that_defines_the_familys_base_is_named() -> None:
    # common.py defines InfoExtractor, which every extractor of the community derives from:
    # it is what ties them together, whatever its name says.
    extractors = CommunityItem(
        id="c5",
        size=6,
        paths=tuple(f"ydl/extractor/{n}.py" for n in ("abc", "common", "dplay", "nbc", "tv2")),
        main_files=("ydl/extractor/common.py", "ydl/extractor/dplay.py"),
        top_symbols=("ydl/extractor/common.py::InfoExtractor", "ydl/extractor/dplay.py::DPlayIE"),
        docstrings={},
        edges_out={},
        edges_in={"inherits": {"EXTRACTED": 5}},
        neighbours={},
        family="InfoExtractor",
    )
    assert "common" in base_name(extractors), base_name(extractors)
    assert "common" not in base_name(extractors._replace(family="")), base_name(extractors)


def test_a_label_the_ontology_would_refuse_is_never_written(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whatever slips past a labeler: what `label` writes, every later command must read.
    from kgtool.ontology import offline

    repo = make_repo({"app/main.py": "def run():\n    return 1\n"})
    assert repo.kg("update").code == 0
    monkeypatch.setattr(offline, "summary", lambda found: "Files around [run] and more things.")
    result = repo.kg("label", "--offline")
    assert result.code == 2 and "has markdown" in result.err, result.err
    assert not (repo.root / ".kg" / "ontology.yaml").exists()
    assert repo.kg("update").code == 0


# --- names from a family's base class ----------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "stems", "base", "name"),
    [
        # What the files are, beside where they live.
        (
            "app/plugins",
            ("chime", "dot", "slack"),
            "NotifyBase",
            "Plugins (NotifyBase): dot, slack",
        ),
        # A folder that names the base already does not tell it twice.
        ("app/lexers", ("python", "css", "html"), "RegexLexer", "Lexers: CSS, HTML"),
        # "Base" in a folder's name says nothing of which base.
        ("app/base", ("sms", "http", "smtp"), "HandlerBase", "Base (HandlerBase): HTTP, SMTP"),
    ],
)
def test_a_community_of_one_family_is_named_for_its_base_class_too(
    folder: str, stems: tuple[str, ...], base: str, name: str
) -> None:
    paths = [f"{folder}/{stem}.py" for stem in stems]
    family = item("c3", paths, main=paths[:0:-1])._replace(family=base)
    assert label(family)["c3"][0] == name


def test_the_family_of_a_community_is_the_one_half_its_files_belong_to() -> None:
    from kgtool.ontology.facts import family_bases

    document = {
        "communities": {
            "c1": {"members": ["p/a.py", "p/b.py", "tests/test_a.py", "core.py"]},
            "c2": {"members": ["p/c.py", "core.py", "util.py"]},
        },
        "families": [
            {
                "base": "p/base.py::NotifyBase",
                "members": ["p/a.py", "p/b.py", "p/c.py"],
                "tests": ["tests/test_a.py"],
                "communities": ["c1", "c2"],
            }
        ],
    }
    assert family_bases(document) == {"c1": "NotifyBase"}
    # A private base would read as markdown emphasis, and names nothing a reader uses.
    document["families"][0]["base"] = "p/base.py::_NotifyBase"
    assert family_bases(document) == {}


def test_a_community_of_tests_beside_a_module_or_two_is_named_as_tests() -> None:
    """Nine plugin tests beside the tag module they all import are tests of the plugins, not
    the tag module (a module with a few tests of its own stays named for the module)."""
    plugin_tests = item(
        "c9",
        ["app/tag.py", *(f"tests/test_plugin_{n}.py" for n in "abcdefghi")],
        main=["app/tag.py"],
    )
    name, _ = label(plugin_tests)["c9"]
    assert name.startswith("Tests"), name


def test_a_community_mostly_of_examples_is_named_as_examples() -> None:
    """Example extensions beside the three agent modules they call are examples, not the
    agent's core (a module and the two examples that show it stay named for the module)."""
    extensions = item(
        "c10",
        [
            "agent/src/core/session.ts",
            "agent/src/core/modes.ts",
            *(f"agent/examples/extensions/{n}.ts" for n in ("doom", "todo", "plan", "git")),
        ],
        main=["agent/src/core/session.ts"],
    )
    name, _ = label(extensions)["c10"]
    assert name.startswith("Examples"), name
    small = item(
        "c11",
        ["agent/src/core/session.ts", *(f"agent/examples/{n}.ts" for n in ("one", "two"))],
        main=["agent/src/core/session.ts"],
    )
    assert not label(small)["c11"][0].startswith("Examples")
