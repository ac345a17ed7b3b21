"""Families: files of one folder deriving from one base, named beside the communities."""

from __future__ import annotations

import shutil
from collections.abc import Callable

from communities_helpers import communities, plugin_folder, plugin_source, update
from conftest import Repo

PLUGINS = ["discord", "email", "slack", "teams", "telegram"]


def families(repo: Repo) -> list[dict]:
    return communities(repo).get("families", [])


def test_a_plugin_folder_with_a_shared_base_is_one_family(make_repo: Callable[..., Repo]) -> None:
    files = plugin_folder(PLUGINS)
    # The core's test touches one plugin, but reaches the core most: it is the core's test.
    files["tests/test_core.py"] = (
        "from app.core import notify_all\nfrom app.plugins.slack import NotifySlack\n\n"
        "def test_core():\n    notify_all([], 'x')\n    notify_all([], 'y')\n"
        "    notify_all([NotifySlack()], 'z')\n"
    )
    repo = make_repo(files)
    update(repo)
    document = communities(repo)
    [family] = families(repo)
    assert family["name"] == "app/plugins: NotifyBase"
    assert family["base"] == "app/plugins/base.py::NotifyBase"  # not URLBase, which it derives
    assert family["folder"] == "app/plugins"
    assert family["members"] == ["app/plugins/base.py", *(f"app/plugins/{n}.py" for n in PLUGINS)]
    assert family["tests"] == [f"tests/test_{n}.py" for n in PLUGINS]  # not tests/test_core.py
    held = {document["files"][p] for p in (*family["members"], *family["tests"])}
    assert family["communities"] == sorted(held, key=lambda cid: int(cid[1:]))
    # Named on the map, and on the page of every community that holds one of its files.
    kg = repo.root / ".kg"
    map_text = (kg / "MAP.md").read_text()
    assert "## Families" in map_text
    assert (
        "| app/plugins: NotifyBase | `app/plugins/base.py::NotifyBase` | 6 + 5 tests |" in map_text
    )
    for cid in family["communities"]:
        assert "app/plugins: NotifyBase (base `" in (kg / "communities" / f"{cid}.md").read_text()


def test_a_subclass_of_a_subclass_and_a_plugin_package_join_the_family(
    make_repo: Callable[..., Repo],
) -> None:
    files = plugin_folder(PLUGINS[:3], with_tests=False)
    files["app/plugins/http.py"] = (
        "from app.plugins.base import NotifyBase\n\nclass HttpBase(NotifyBase):\n    pass\n"
    )
    files["app/plugins/webhook.py"] = (
        "from app.plugins.http import HttpBase\n\nclass NotifyWebhook(HttpBase):\n    pass\n"
    )
    files["app/plugins/matrix/__init__.py"] = ""
    files["app/plugins/matrix/base.py"] = plugin_source("matrix")
    files["app/plugins/matrix/common.py"] = "def room(name):\n    return name\n"
    repo = make_repo(files)
    update(repo)
    [family] = families(repo)
    assert family["name"] == "app/plugins: NotifyBase"
    assert family["members"] == sorted(
        [
            "app/plugins/base.py",
            *(f"app/plugins/{n}.py" for n in PLUGINS[:3]),
            "app/plugins/http.py",
            "app/plugins/matrix/base.py",
            "app/plugins/webhook.py",
        ]
    )


def test_ordinary_folders_are_no_family(make_repo: Callable[..., Repo]) -> None:
    files: dict[str, str] = {
        "app/errors.py": "class AppError(Exception):\n    pass\n",
        "app/log.py": "def log(text):\n    return text\n",
    }
    # Modules that all import and call the same helper: coupling, not a shape.
    for name in ["parse", "render", "store", "fetch", "clean"]:
        files[f"app/utils/{name}.py"] = (
            f"from app.log import log\n\ndef {name}(x):\n    return log(x)\n"
        )
    # Five of twelve define an exception on the same base: not the folder's shape.
    for name in ["parse", "render", "store", "fetch", "clean"]:
        files[f"app/utils/{name}.py"] += (
            f"\nfrom app.errors import AppError\n\nclass {name.title()}Error(AppError):\n    pass\n"
        )
    for number in range(7):
        files[f"app/utils/plain{number}.py"] = f"def plain{number}():\n    return {number}\n"
    # Four plugins are below the minimum of five this repository sets.
    files.update(plugin_folder(PLUGINS[:4]))
    files[".kgtool.yaml"] = "communities:\n  family_min_size: 5\n"
    repo = make_repo(files)
    update(repo)
    assert families(repo) == []
    assert "## Families" not in (repo.root / ".kg" / "MAP.md").read_text()


def test_a_plugin_added_joins_the_family_and_moves_no_other_file(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(plugin_folder(PLUGINS))
    update(repo)
    before = communities(repo)
    pages = repo.root / ".kg" / "communities"
    held = before["families"][0]["communities"]
    assert len(held) >= 2  # the family lies across communities
    old_pages = {cid: (pages / f"{cid}.md").read_text() for cid in held}
    repo.write_files(plugin_folder(["zulip"]))
    repo.commit("a plugin")
    update(repo)
    after = communities(repo)
    [family] = after["families"]
    assert "app/plugins/zulip.py" in family["members"]
    assert "tests/test_zulip.py" in family["tests"]
    assert [p for p in before["files"] if before["files"][p] != after["files"][p]] == []
    # A page says how many of the family's files its community holds, not the family's
    # total nor its other communities: the pages of the communities the plugin neither
    # joined nor is tied to by an edge (the base's) are as they were.
    joined = {after["files"]["app/plugins/zulip.py"], after["files"]["tests/test_zulip.py"]}
    tied = {e["src"] for e in after["edges"] if e["dst"] in joined}
    tied |= {e["dst"] for e in after["edges"] if e["src"] in joined}
    untouched = [cid for cid in held if cid not in joined | tied]
    assert untouched
    for cid in untouched:
        assert (pages / f"{cid}.md").read_text() == old_pages[cid], cid


def test_families_off_and_two_runs_byte_identical(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(plugin_folder(PLUGINS))
    update(repo)
    kg = repo.root / ".kg"
    first = {
        p.relative_to(kg): p.read_bytes() for p in kg.rglob("*") if p.suffix in (".md", ".json")
    }
    shutil.rmtree(kg)
    update(repo)
    again = {
        p.relative_to(kg): p.read_bytes() for p in kg.rglob("*") if p.suffix in (".md", ".json")
    }
    assert again == first
    # Off: the same partition, no families anywhere.
    partition = communities(repo)["files"]
    repo.write(".kgtool.yaml", "communities:\n  families: off\n")
    update(repo)
    assert "families" not in communities(repo)
    assert communities(repo)["files"] == partition
    assert "## Families" not in (kg / "MAP.md").read_text()


def test_bad_family_settings_are_errors_at_their_line(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(plugin_folder(PLUGINS))
    repo.write(".kgtool.yaml", "communities:\n  seed: 1\n  families: atuo\n  family_min_size: 1\n")
    result = repo.kg("update")
    assert result.code == 2
    assert ".kgtool.yaml:3:" in result.err
    assert "'communities.families' must be auto or off, not 'atuo': did you mean 'auto'?" in (
        result.err
    )
    assert ".kgtool.yaml:4:" in result.err and "family_min_size" in result.err
    repo.write(".kgtool.yaml", "communities:\n  familes: off\n")
    result = repo.kg("update")
    assert result.code == 2
    assert "did you mean 'families'?" in result.err


def test_typescript_providers_implementing_one_interface_are_a_family(
    make_repo: Callable[..., Repo],
) -> None:
    files = {
        "src/types.ts": "export interface Provider {\n  stream(prompt: string): string;\n}\n",
        "src/providers/index.ts": "export const names: string[] = [];\n",
    }
    for name in ["anthropic", "google", "mistral", "openai"]:
        files[f"src/providers/{name}.ts"] = (
            'import { Provider } from "../types";\n\n'
            f"export class {name.title()}Provider implements Provider {{\n"
            "  stream(prompt: string): string {\n    return prompt;\n  }\n}\n"
        )
    files["test/anthropic.test.ts"] = (
        'import { AnthropicProvider } from "../src/providers/anthropic";\n\n'
        'new AnthropicProvider().stream("x");\n'
    )
    # A test of two providers targets no single member: it stays out, unless it bears the
    # name of one of them.
    for test in ["both", "google"]:
        files[f"test/{test}.test.ts"] = (
            'import { GoogleProvider } from "../src/providers/google";\n'
            'import { OpenaiProvider } from "../src/providers/openai";\n\n'
            'new GoogleProvider().stream("x");\nnew OpenaiProvider().stream("y");\n'
        )
    repo = make_repo(files)
    update(repo)
    [family] = families(repo)
    assert family["name"] == "src/providers: Provider"
    assert family["base"] == "src/types.ts::Provider"
    assert family["members"] == [
        f"src/providers/{n}.ts" for n in ["anthropic", "google", "mistral", "openai"]
    ]
    assert family["tests"] == ["test/anthropic.test.ts", "test/google.test.ts"]


def test_bases_that_derive_from_each_other_still_name_one_family(
    make_repo: Callable[..., Repo],
) -> None:
    files = {
        "app/bases/__init__.py": "",
        "app/bases/one.py": (
            "from app.bases.two import Two\n\n"
            "class One(Two):\n    pass\n\nclass OneMore:\n    pass\n"
        ),
        "app/bases/two.py": "from app.bases.one import OneMore\n\nclass Two(OneMore):\n    pass\n",
    }
    for name in PLUGINS[:4]:
        files[f"app/plugins/{name}.py"] = (
            f"from app.bases.one import One\n\nclass {name.title()}(One):\n    pass\n"
        )
    repo = make_repo(files)
    update(repo)
    [family] = families(repo)
    assert family["folder"] == "app/plugins"
    assert family["members"] == [f"app/plugins/{n}.py" for n in sorted(PLUGINS[:4])]
