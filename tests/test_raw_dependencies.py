"""The packages a repository's manifests declare (kgtool.raw.dependencies): every kind of
manifest read, the repository's own packages told apart, and whatever a pull request commits
as a manifest read without a crash or a stall."""

from __future__ import annotations

from collections.abc import Callable

from conftest import Repo

from kgtool.raw.dependencies import declared, is_declared

MANIFESTS = {
    "pyproject.toml": (
        '[project]\nname = "my-app"\ndependencies = ["Requests>=2", "ag-ui-protocol"]\n'
        "[project.optional-dependencies]\nui = [\"starlette; python_version>'3.9'\"]\n"
        '[dependency-groups]\ndev = ["pytest", {include-group = "x"}]\n'
        '[tool.poetry.dependencies]\npython = "^3.10"\nrich = "*"\n'
        '[tool.hatch.metadata.hooks.custom]\ndependencies = ["httpx"]\n'
        '[build-system]\nrequires = ["hatchling"]\n'
    ),
    "libs/setup.cfg": (
        "[metadata]\nname = my-lib\n[options]\ninstall_requires =\n    attrs>=20\n"
        "    # a comment\n[options.extras_require]\nyaml = PyYAML\n"
    ),
    "requirements-dev.txt": "-r base.txt\nblack==24.1  # formatter\n\nmypy\n",
    "web/package.json": (
        '{"name": "@me/web", "dependencies": {"lodash": "^4"}, "devDependencies": {"vitest": "1"}}'
    ),
    "go.mod": "module github.com/me/tool\n\nrequire (\n\tgolang.org/x/sys v0.1.0\n)\n",
    "rs/Cargo.toml": '[package]\nname = "my_crate"\n[dependencies]\nserde = "1"\n',
}


def test_every_kind_of_manifest_is_read(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(MANIFESTS)
    names = declared(repo.root, list(MANIFESTS))
    assert {
        "requests", "ag_ui_protocol", "starlette", "pytest", "rich", "python", "httpx",
        "attrs", "pyyaml", "black", "mypy", "lodash", "vitest", "serde",
    } <= names.needed  # fmt: skip
    assert "hatchling" not in names.needed  # what builds the package is not imported by it
    assert {"my_app", "my_lib", "my_crate", "@me/web"} <= names.own
    assert names.paths == {"golang.org/x/sys"} and names.own_paths == {"github.com/me/tool"}
    assert is_declared("requests.adapters", names) and is_declared("ag_ui.core", names)
    assert is_declared("yaml", names) is False  # PyYAML's module is not named after it
    assert not is_declared("my_app.gone", names)  # the repository's own, whatever is declared
    assert is_declared("golang.org/x/sys/unix", names)
    assert not is_declared("github.com/me/tool/internal/gone", names)
    assert not is_declared("./local", names)


def test_what_a_pull_request_commits_as_a_manifest_declares_nothing_and_raises_nothing(
    make_repo: Callable[..., Repo],
) -> None:
    hostile = {
        "pyproject.toml": "[project\nname = ",  # not TOML
        "a/pyproject.toml": "x = " + "[" * 5000 + "]" * 5000 + "\n",  # nested past the bound
        "b/package.json": '["not", "an", "object"]',
        "c/package.json": '{"dependencies": ["a list", "not a table"]}',
        "d/setup.cfg": "[options\ninstall_requires = x\n",  # not INI
        "e/Cargo.toml": '[dependencies]\nserde = { version = "1" }\n[package]\nname = 7\n',
        "go.mod": "\n" * 200_000 + "module github.com/me/x\n",  # blank lines: read in a line
        "requirements.txt": "\x00\xff" * 1000,
    }
    repo = make_repo(hostile)
    names = declared(repo.root, list(hostile))
    assert names.needed == {"serde"}
    assert names.own_paths == {"github.com/me/x"}
