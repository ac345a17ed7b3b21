"""Files with no edges, grouped along the folder tree: one group per folder that is big enough
to stand alone, small subfolders kept with their parent's files (docs/, loose_group_share)."""

from __future__ import annotations

from collections.abc import Callable

from communities_helpers import clique, members, update
from conftest import Repo


def test_a_docs_tree_becomes_one_group_per_big_folder(make_repo: Callable[..., Repo]) -> None:
    guide = {f"docs/guide/g{n:02}.md": f"# guide {n}\n" for n in range(12)}
    api = {f"docs/api/a{n:02}.md": f"# api {n}\n" for n in range(12)}
    small = {
        "docs/index.md": "# docs\n",
        "docs/faq.md": "# faq\n",
        "docs/tiny/t1.md": "# t1\n",
        "docs/tiny/t2.md": "# t2\n",
    }
    folder_mode = {".kgtool.yaml": "communities:\n  data_groups: folder\n"}
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2", "a3"]), **guide, **api, **small,
                      **folder_mode})  # fmt: skip
    update(repo)
    # With docs grouped by folder (data_groups: folder; by kind, docs/ is one group): 32
    # files, at most max(10, 5% of 32) loose files per group. docs/ has 28, so it keeps its
    # own two files plus docs/tiny/ (under 10 files) and hands docs/api/ and docs/guide/ on.
    assert sorted(sorted(m) for m in members(repo).values()) == [
        [".kgtool.yaml"],
        [f"alpha/a{n}.py" for n in range(4)],
        sorted(api),
        ["docs/faq.md", "docs/index.md", "docs/tiny/t1.md", "docs/tiny/t2.md"],
        sorted(guide),
    ]


def test_a_packages_data_is_one_group_per_kind(make_repo: Callable[..., Repo]) -> None:
    # Fixtures in six folders, a docs tree of three, setup files at the top, a page and a
    # data file elsewhere: by kind, three groups besides the code, not one per folder.
    fixtures = {f"tests/fixtures/case{c}/{n}.json": "{}\n" for c in range(6) for n in range(12)}
    docs = {f"docs/{part}/{n:02}.md": f"# {part}\n" for part in ("api", "guide", "faq")
            for n in range(12)}  # fmt: skip
    setup = {"package.json": "{}\n", "tsconfig.json": "{}\n", "README.md": "# app\n"}
    elsewhere = {"alpha/NOTES.md": "# notes\n", "alpha/table.csv": "a,b\n"}
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2", "a3"]), **fixtures, **docs,
                      **setup, **elsewhere})  # fmt: skip
    update(repo)
    groups = sorted(sorted(m) for m in members(repo).values())
    assert sorted(fixtures) in groups and sorted(docs) in groups, groups
    # The kinds of a few files (setup, a page, a table) are one group.
    assert sorted([*setup, *elsewhere]) in groups and len(groups) == 4, groups


def test_new_fixtures_join_their_packages_fixtures_as_a_cold_run_would(
    make_repo: Callable[..., Repo],
) -> None:
    fixtures = {f"tests/fixtures/case{c}/{n}.json": "{}\n" for c in range(3) for n in range(12)}
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2", "a3"]), **fixtures})
    update(repo)
    # A new folder of twelve fixtures: one more case of the package's test data, not a
    # community of its own (which a folder of its size would be, grouped by folder).
    added = {f"tests/fixtures/case9/{n}.json": "{}\n" for n in range(12)}
    repo.write_files(added)
    repo.commit("more cases")
    update(repo)
    groups = sorted(sorted(m) for m in members(repo).values())
    assert sorted([*fixtures, *added]) in groups, groups


def test_a_tools_config_joins_its_packages_setup(make_repo: Callable[..., Repo]) -> None:
    # vitest.config.ts is code to a parser, the package's setup to a reader: not a one-file
    # community of its own.
    setup = {"packages/web/package.json": '{"name": "web"}\n',
             "packages/web/vitest.config.ts": "export default {};\n",
             "packages/web/eslint.config.mjs": "export default [];\n"}  # fmt: skip
    code = {f"packages/web/src/{name}.ts": "export {};\n" for name in ("a", "b")}
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2", "a3"]), **setup, **code})
    update(repo)
    groups = sorted(sorted(m) for m in members(repo).values())
    assert any(set(setup) <= set(group) for group in groups), groups


def test_a_wrong_data_groups_value_is_an_error_at_its_line(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2"]),
                      ".kgtool.yaml": "communities:\n  data_groups: kinds\n"})  # fmt: skip
    result = repo.kg("update")
    assert result.code == 2, result.err
    assert ".kgtool.yaml:2:" in result.err
    assert "must be kind or folder, not 'kinds': did you mean 'kind'?" in result.err


def test_a_packages_data_is_its_own_whatever_folder_holds_the_package(
    make_repo: Callable[..., Repo],
) -> None:
    # A package at packages/e2e: its manifest and README are its setup, not test data.
    files = {"packages/e2e/package.json": '{"name": "e2e"}\n', "packages/e2e/README.md": "# e2e\n"}
    files.update({f"packages/e2e/cases/c{n}.json": "{}\n" for n in range(12)})
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2"]), **files})
    update(repo)
    from kgtool.communities.cluster import data_kind

    assert data_kind("packages/e2e/package.json", "packages/e2e") == "setup"
    assert data_kind("packages/e2e/tests/fixtures/a.json", "packages/e2e") == "test data"


def test_a_new_file_of_a_kind_new_to_its_package_joins_its_few_file_kinds(
    make_repo: Callable[..., Repo],
) -> None:
    setup = {"package.json": "{}\n", "README.md": "# app\n", "alpha/NOTES.md": "# notes\n"}
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2", "a3"]), **setup})
    update(repo)
    repo.write_files({"alpha/logo.svg": "<svg/>\n"})  # "data": a kind the package lacked
    repo.commit("a logo")
    update(repo)
    groups = sorted(sorted(m) for m in members(repo).values())
    assert sorted([*setup, "alpha/logo.svg"]) in groups, groups


def test_a_map_with_a_tools_settings_in_code_is_formed_again() -> None:
    from kgtool.communities.build import current_rules

    code = {"kind": "code", "members": ["web/a.ts", "web/b.ts"]}
    old = {"kind": "code", "members": ["web/a.ts", "web/vitest.config.ts"]}
    assert current_rules({"communities": {"c1": code}})
    assert not current_rules({"communities": {"c1": old}})
