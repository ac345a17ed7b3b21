"""Layer 2 keeps to the repository's own packages and keeps code apart from docs and data."""

from __future__ import annotations

import copy
import itertools
import json
import shutil
from collections.abc import Callable

import pytest
from communities_helpers import clique, communities, community_of, members, update
from conftest import Repo

from kgtool.communities.cluster import cluster, package_of
from kgtool.communities.graph import FileGraph
from kgtool.config import DEFAULTS, load_config
from kgtool.errors import ManyErrors


def detected(repo: Repo) -> list[str]:
    return communities(repo)["settings"]["boundaries"]


def package_json(name: str, **fields: object) -> str:
    return json.dumps({"name": name, **fields})


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "package.json": package_json("root", workspaces=["packages/*"]),
                "packages/a/package.json": package_json("a"),
                "packages/a/index.js": "export const a = 1;\n",
                "packages/b/package.json": package_json("b"),
                "packages/b/index.js": "export const b = 1;\n",
                "packages/notes/README.md": "# no manifest, no package\n",
            },
            ["packages/a", "packages/b"],
            id="npm-workspaces-array",
        ),
        pytest.param(
            {
                # yarn's object form, with a member inside a folder named like test data:
                # declared, so it counts.
                "package.json": package_json("root", workspaces={"packages": ["testdata/**"]}),
                "testdata/tool/package.json": package_json("tool"),
                "testdata/tool/index.js": "export const t = 1;\n",
                "test/fixtures/app/package.json": package_json("fixture-app"),
            },
            ["testdata/tool"],
            id="yarn-workspaces-object",
        ),
        pytest.param(
            {
                # Folders named like test data: only the workspace file makes fixtures/tool
                # a package, and its '!' keeps fixtures/skip out.
                "package.json": package_json("root"),
                "pnpm-workspace.yaml": "packages:\n  - 'apps/*'\n  - 'fixtures/*'\n"
                "  - '!fixtures/skip'\n",
                "apps/web/package.json": package_json("web"),
                "apps/web/main.ts": "export const w = 1;\n",
                "fixtures/tool/package.json": package_json("tool"),
                "fixtures/tool/index.js": "export const t = 1;\n",
                "fixtures/skip/package.json": package_json("skip"),
            },
            ["apps/web", "fixtures/tool"],
            id="pnpm-workspace",
        ),
        pytest.param(
            {
                "go.work": "go 1.22\n\nuse (\n\t./svc/api // the service\n\t./testdata/mod\n)\n",
                "go.mod": "module example.com/root\n",
                "svc/api/go.mod": "module example.com/api\n",
                "svc/api/main.go": "package main\n\nfunc main() {}\n",
                "lib/go.mod": "module example.com/lib\n",
                "lib/lib.go": "package lib\n",
                "testdata/mod/go.mod": "module example.com/mod\n",
                "testdata/other/go.mod": "module example.com/other\n",
            },
            ["lib", "svc/api", "testdata/mod"],
            id="go-work-and-nested-go-mod",
        ),
        pytest.param(
            {
                "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/old"]\n',
                "crates/core/Cargo.toml": '[package]\nname = "core"\n',
                "crates/core/src/lib.rs": "pub fn core() {}\n",
                "crates/cli/Cargo.toml": '[package]\nname = "cli"\n',
                "crates/cli/src/main.rs": "fn main() {}\n",
            },
            ["crates/cli", "crates/core"],
            id="cargo-workspace",
        ),
        pytest.param(
            {
                "pyproject.toml": "[project]\nname = 'root'\n",
                "root/__init__.py": "",
                "plugins/one/pyproject.toml": "[project]\nname = 'one'\n",
                "plugins/one/one.py": "def one():\n    return 1\n",
                "tools/two/setup.py": "from setuptools import setup\nsetup(name='two')\n",
                "tests/fixtures/sample/pyproject.toml": "[project]\nname = 'sample'\n",
            },
            ["plugins/one", "tools/two"],
            id="nested-python-projects",
        ),
    ],
)
def test_packages_are_detected_per_ecosystem(
    make_repo: Callable[..., Repo], files: dict[str, str], expected: list[str]
) -> None:
    repo = make_repo(files)
    update(repo)
    assert detected(repo) == expected
    for path, cid in communities(repo)["files"].items():
        home = package_of(path, expected)
        others = [p for p, c in communities(repo)["files"].items() if c == cid]
        assert {package_of(p, expected) for p in others} == {home}, (path, others)


def test_a_nested_package_is_a_package_of_its_own() -> None:
    roots = ["packages/a", "packages/a/examples/e"]
    assert package_of("packages/a/examples/e/x.ts", roots) == "packages/a/examples/e"
    assert package_of("packages/a/src/x.ts", roots) == "packages/a"
    assert package_of("README.md", roots) == ""
    # A glob still holds at the root it names, as before.
    assert package_of("packages/a/examples/e/x.ts", ["packages/*"]) == "packages/a"


def two_tangled_packages() -> dict[str, str]:
    """packages/x and packages/y: one tight clique by their code, two packages by manifest."""
    files: dict[str, str] = {
        "package.json": package_json("root", workspaces=["packages/*"]),
        "packages/x/package.json": package_json("x"),
        "packages/y/package.json": package_json("y"),
    }
    calls = [f"pkg.y{j}.pkg_y{j}" for j in range(3)]
    for i in range(3):
        for path, text in clique("pkg", [f"x{i}"], {f"x{i}": calls}).items():
            files[f"packages/x/{path}"] = text
        for path, text in clique("pkg", [f"y{i}"]).items():
            files[f"packages/y/{path}"] = text
    files.update(clique("core", ["k0", "k1", "k2", "k3"]))
    return files


def code_groups(repo: Repo) -> list[list[str]]:
    document = communities(repo)
    return sorted(
        [p for p in c["members"] if p.endswith(".py")]
        for c in document["communities"].values()
        if c["kind"] == "code"
    )


def test_no_community_crosses_a_detected_package(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(
        {**two_tangled_packages(), ".kgtool.yaml": "communities:\n  boundaries: off\n"}
    )
    update(repo)
    tangled = [g for g in code_groups(repo) if any(p.startswith("packages/") for p in g)]
    assert len(tangled) == 1  # without boundaries the code is one community
    (repo.root / ".kgtool.yaml").unlink()
    repo.commit("boundaries by default")
    update(repo)
    assert detected(repo) == ["packages/x", "packages/y"]
    for group in members(repo).values():
        roots = {"/".join(p.split("/")[:2]) for p in group if p.startswith("packages/")}
        assert len(roots) <= 1, group
        assert not roots or all(p.startswith("packages/") for p in group), group
    assert [p for g in code_groups(repo) for p in g if p.startswith("packages/x/")] == [
        f"packages/x/pkg/x{i}.py" for i in range(3)
    ]


def test_boundaries_setting_is_validated(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo()
    assert load_config(repo.root)["communities"]["boundaries"] == "auto"
    for text, value in [("off", []), ("'off'", []), ("[]", []), ("['libs/*']", ["libs/*"])]:
        repo.write(".kgtool.yaml", f"communities:\n  boundaries: {text}\n")
        assert load_config(repo.root)["communities"]["boundaries"] == value, text
    repo.write(".kgtool.yaml", "communities:\n  boundaries: sometimes\n")
    with pytest.raises(ManyErrors) as raised:
        load_config(repo.root)
    assert "must be auto, off, or a list of package root globs" in str(raised.value)


def code_with_data() -> dict[str, str]:
    files = clique("app", ["a0", "a1", "a2", "a3"])
    # Code that imports a fixture module: by edges alone the fixture would be the hub.
    files["app/a0.py"] = "from tests.fixtures.sample import sample\n" + files["app/a0.py"]
    files["app/a1.py"] = "from tests.fixtures.sample import sample\n" + files["app/a1.py"]
    files["app/a2.py"] = "from tests.fixtures.sample import sample\n" + files["app/a2.py"]
    files.update(
        {
            "tests/fixtures/sample.py": "def sample():\n    return 1\n",
            "tests/fixtures/recorded.yaml": "status: 200\n",
            "app/schema.json": '{"type": "object"}\n',
            "app/README.md": "# app\n",
            "README.md": "# project\n",
            "uv.lock": "version = 1\n",
        }
    )
    return files


DATA_FILES = {
    "README.md",
    "app/README.md",
    "app/schema.json",
    "tests/fixtures/recorded.yaml",
    "tests/fixtures/sample.py",
    "uv.lock",
}


def test_docs_and_data_are_kept_apart_from_code(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(code_with_data())
    update(repo)
    document = communities(repo)
    for cid, community in document["communities"].items():
        data = set(community["members"]) & DATA_FILES
        if community["kind"] == "code":
            assert not data, (cid, community["members"])
            assert not {p for p, _ in community["main_files"]} & DATA_FILES
        else:
            assert data == set(community["members"]), (cid, community["members"])
    assert {
        p for c in document["communities"].values() if c["kind"] == "data" for p in c["members"]
    } == DATA_FILES
    code = community_of(repo, "app/a0.py")
    assert document["communities"][code]["members"] == [f"app/a{i}.py" for i in range(4)]

    # Files added later (the update that only moves what changed) keep to the same rule.
    repo.write("app/more.yaml", "more: true\n")
    repo.write("app/docs/notes.md", "# notes\n")
    repo.commit("more data beside the code")
    update(repo)
    document = communities(repo)
    for path in ("app/more.yaml", "app/docs/notes.md"):
        assert document["communities"][document["files"][path]]["kind"] == "data", path
    assert document["communities"][code]["members"] == [f"app/a{i}.py" for i in range(4)]

    text = (repo.root / ".kg" / "MAP.md").read_text()
    table, _, folded = text.partition("## Docs and data")
    assert f"[{code} · " in table
    for cid in {document["files"][p] for p in DATA_FILES}:
        assert f"[{cid} · " in folded and f"[{cid} · " not in table


def test_an_older_map_migrates_with_ids_carried(make_repo: Callable[..., Repo]) -> None:
    files = {**two_tangled_packages(), "docs/guide.md": "# guide\n"}
    repo = make_repo({**files, ".kgtool.yaml": "communities:\n  boundaries: []\n"})
    update(repo)
    # The map as an older kgtool committed it: no kinds, no boundaries.
    path = repo.root / ".kg" / "communities.json"
    old = json.loads(path.read_text())
    for community in old["communities"].values():
        del community["kind"]
    path.write_text(json.dumps(old, indent=2))
    (repo.root / ".kgtool.yaml").unlink()
    repo.commit("the older map")

    out = update(repo)
    assert (
        "communities: package boundaries detected (2 packages), code kept apart from docs "
        "and data, 2 small packages made one community each:" in out
    )
    new = communities(repo)
    assert all(c["kind"] in ("code", "data") for c in new["communities"].values())
    core = old["files"]["core/k0.py"]
    assert new["files"]["core/k0.py"] == core  # untouched by the new rules: same ID
    tangled = old["files"]["packages/x/pkg/x0.py"]
    x, y = new["files"]["packages/x/pkg/x0.py"], new["files"]["packages/y/pkg/y0.py"]
    assert x != y
    assert tangled in (x, y)  # the split keeps the old ID on one part...
    fresh = y if x == tangled else x
    assert new["communities"][fresh]["split_from"] == tangled  # ...and the other remembers it
    assert int(fresh[1:]) >= old["next_id"]  # new IDs are never reused ones
    assert "code kept apart" not in update(repo)  # said once, when it happened


def test_same_input_gives_the_same_bytes(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({**two_tangled_packages(), **code_with_data()})
    update(repo)
    first = repo.kg_bytes()
    shutil.rmtree(repo.root / ".kg")
    update(repo)
    assert repo.kg_bytes() == first


def test_a_one_package_repository_is_unchanged(make_repo: Callable[..., Repo]) -> None:
    files = {
        "pyproject.toml": "[project]\nname = 'one'\n",
        **clique("alpha", ["a0", "a1", "a2"], {"a0": ["beta.b0.beta_b0"]}),
        **clique("beta", ["b0", "b1", "b2"]),
    }
    auto = make_repo(files)
    # Turned off in pyproject.toml, so that both trees hold the same paths.
    setting = "\n[tool.kgtool.communities]\nboundaries = []\n"
    off = make_repo({**files, "pyproject.toml": files["pyproject.toml"] + setting})
    update(auto)
    update(off)
    assert detected(auto) == []
    assert (auto.root / ".kg/communities.json").read_bytes() == (
        off.root / ".kg/communities.json"
    ).read_bytes()


def test_a_package_is_clustered_at_the_scale_of_the_repository() -> None:
    """Boundaries only cut: where no edge crosses a package, they change nothing.

    Clustered alone, two triangles tied by one edge are two communities; beside a package
    with far more edges they are one (the configuration model's expected weight is over the
    whole repository), and so they must stay with the package boundary drawn between them.
    """
    big = [f"big/f{i:02}.py" for i in range(21)]
    small = [
        "small/a0.py",
        "small/a1.py",
        "small/a2.py",
        "small/b0.py",
        "small/b1.py",
        "small/b2.py",
    ]
    weights = {pair: 1.0 for pair in itertools.combinations(big, 2)}
    for triangle in (small[:3], small[3:]):
        weights |= {pair: 1.0 for pair in itertools.combinations(triangle, 2)}
    weights[("small/a0.py", "small/b0.py")] = 1.0
    graph = FileGraph(sorted([*big, *small]), dict(sorted(weights.items())))
    settings = {**copy.deepcopy(DEFAULTS["communities"]), "versions": {}}
    alone = FileGraph(small, {p: w for p, w in weights.items() if p[0].startswith("small/")})
    assert len(cluster(alone, {**settings, "boundaries": []})) == 2
    without = cluster(graph, {**settings, "boundaries": []})
    assert small in without
    assert cluster(graph, {**settings, "boundaries": ["big", "small"]}) == without


def test_a_second_update_with_detected_packages_reuses_layer_2(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``boundaries: auto`` the packages are found while clustering; the cache of layer 2
    must still be keyed by the settings as configured, or every update (every commit's hook)
    clusters and draws the map again. Guards the key written after ``with_packages``."""
    from kgtool.pipeline.context import Context
    from kgtool.pipeline.refresh import refresh
    from kgtool.store import Store

    repo = make_repo({**two_tangled_packages(), **code_with_data()})
    update(repo)
    assert detected(repo) == ["packages/x", "packages/y"]
    ctx = Context(repo.root, load_config(repo.root), Store(repo.root))
    import kgtool.communities.build as build

    def detected_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("layer 2 computed again: its cache key missed")

    monkeypatch.setattr(build, "with_packages", detected_again)
    _, layer2 = refresh(ctx, write=True, rebaseline=False)
    assert not layer2.changed and not layer2.drawn.redrawn  # answered from the caches


def test_detected_packages_are_remembered_while_the_files_read_are_the_same(
    make_repo: Callable[..., Repo],
) -> None:
    """An edit reuses the packages detected last (the workspace file is not parsed again),
    and an edit of a file the detection read detects them again."""
    repo = make_repo(
        {
            "package.json": package_json("root"),
            "pnpm-workspace.yaml": "packages:\n  - 'testdata/*'\n",
            "testdata/tool/package.json": package_json("tool"),
            "testdata/tool/index.js": "export function tool() {\n  return 1;\n}\n",
            "app/main.js": "import { tool } from '../testdata/tool/index.js';\ntool();\n",
        }
    )
    update(repo)
    assert detected(repo) == ["testdata/tool"]  # declared, though in a data-named folder
    record = json.loads((repo.cache_dir / "communities.key").read_text())
    assert record["packages"]["roots"] == ["testdata/tool"]
    assert set(record["packages"]["read"]) >= {"package.json", "pnpm-workspace.yaml"}
    repo.write("app/main.js", "import { tool } from '../testdata/tool/index.js';\ntool();\n\n")
    update(repo)
    assert detected(repo) == ["testdata/tool"]
    repo.write("pnpm-workspace.yaml", "packages: []\n")
    update(repo)
    assert detected(repo) == []


def test_a_tools_settings_are_source_to_context_and_setup_to_the_map() -> None:
    from kgtool.communities.packages import is_code, is_source

    for path in ("vitest.config.ts", "packages/web/playwright.config.ts", ".eslintrc.js"):
        assert is_source(path) and not is_code(path), path
    assert is_source("src/app.config.ts") and is_code("src/app.config.ts")  # an app's own
    assert not is_source("package.json") and not is_source("tests/fixtures/a.ts")


def small_packages_beside_a_large_one() -> dict[str, str]:
    """Two example packages of a few files each (code, a test, a manifest, a tool's config, a
    .gitignore) and a package of twelve code files with its setup beside them."""
    files = {"package.json": package_json("root", workspaces=["examples/*", "packages/*"])}
    for name in ("ext-a", "ext-b"):
        files |= {
            f"examples/{name}/package.json": package_json(name),
            f"examples/{name}/.gitignore": "node_modules/\n",
            f"examples/{name}/vitest.config.ts": "export default {};\n",
            f"examples/{name}/index.ts": "import { c0 } from '../../packages/core/src/c0';\n"
            "export function run(): number {\n  return c0();\n}\n",
            f"examples/{name}/index.test.ts": "import { run } from './index';\n"
            "export const checked = run() === 0;\n",
        }
    files |= {
        "packages/core/package.json": package_json("core"),
        "packages/core/README.md": "# core\n",
        "packages/core/vitest.config.ts": "export default {};\n",
    }
    for i in range(12):
        imports = "".join(
            f"import {{ c{j} }} from './c{j}';\n" for j in ((i + 1) % 12, (i + 2) % 12)
        )
        body = f"export function c{i}(): number {{\n  return c{(i + 1) % 12}() + 1;\n}}\n"
        files[f"packages/core/src/c{i}.ts"] = imports + body
    return files


def test_a_map_formed_before_the_small_package_rule_says_so_when_it_re_forms(
    make_repo: Callable[..., Repo],
) -> None:
    """A committed map of an older kgtool, with an example's setup apart from its code,
    re-forms at the next update that clusters again, and that update says why; the one
    after says nothing."""
    repo = make_repo(small_packages_beside_a_large_one())
    update(repo)
    path = repo.root / ".kg" / "communities.json"
    old = json.loads(path.read_text())
    cid = old["files"]["examples/ext-a/index.ts"]
    setup = ["examples/ext-a/.gitignore", "examples/ext-a/package.json"]
    number = int(old["next_id"])
    old["communities"][cid]["members"] = [
        p for p in old["communities"][cid]["members"] if p not in setup
    ]
    old["communities"][f"c{number}"] = {**old["communities"][cid], "members": setup}
    old["next_id"] = number + 1
    for member in setup:
        old["files"][member] = f"c{number}"
    path.write_text(json.dumps(old, indent=2))
    repo.commit("the map as an older kgtool formed it")
    repo.write("packages/core/src/c0.ts", (repo.root / "packages/core/src/c0.ts").read_text()
               + "export const more = 1;\n")  # fmt: skip
    repo.commit("an edit elsewhere")
    out = update(repo)
    assert "1 small package made one community each" in out, out
    document = communities(repo)
    assert (
        document["files"]["examples/ext-a/.gitignore"]
        == document["files"]["examples/ext-a/index.ts"]
    )
    repo.write("packages/core/src/c1.ts", (repo.root / "packages/core/src/c1.ts").read_text()
               + "export const more = 2;\n")  # fmt: skip
    repo.commit("another edit")
    assert "small package" not in update(repo)


def test_a_small_package_is_one_community_and_a_larger_one_keeps_its_setup_apart(
    make_repo: Callable[..., Repo],
) -> None:
    """An example's code, test, manifest, tool config and .gitignore are one community (the
    issue's fragments: one community for package.json and .gitignore, another for index.ts);
    a package of more files keeps its code apart from its setup. The rule holds over an edit,
    with the ID kept, and an update with nothing changed rewrites nothing."""
    repo = make_repo(small_packages_beside_a_large_one())
    update(repo)
    document = communities(repo)
    assert detected(repo) == ["examples/ext-a", "examples/ext-b", "packages/core"]
    for name in ("ext-a", "ext-b"):
        cid = document["files"][f"examples/{name}/index.ts"]
        package = sorted(p for p in document["files"] if p.startswith(f"examples/{name}/"))
        assert document["communities"][cid]["members"] == package, name
        assert document["communities"][cid]["kind"] == "code"
    # Two packages of a file or two under one folder still share one area.
    examples = {document["files"][f"examples/{name}/index.ts"] for name in ("ext-a", "ext-b")}
    assert [a for a in document["areas"].values() if examples <= set(a["communities"])]
    core = document["files"]["packages/core/src/c0.ts"]
    setup = document["files"]["packages/core/package.json"]
    assert setup != core and document["communities"][setup]["kind"] == "data"
    assert document["files"]["packages/core/vitest.config.ts"] == setup

    example = document["files"]["examples/ext-a/index.ts"]
    repo.write("examples/ext-a/index.ts", "import { c0 } from '../../packages/core/src/c0';\n"
               "export function run(): number {\n  return c0() + 1;\n}\n")  # fmt: skip
    repo.commit("an example's edit")
    out = update(repo)
    assert "code kept apart" not in out, out  # read as today's map, not an older kgtool's
    after = communities(repo)
    assert after["files"]["examples/ext-a/index.ts"] == example
    assert after["communities"][example]["members"] == document["communities"][example]["members"]
    before = repo.kg_bytes()
    update(repo)
    assert repo.kg_bytes() == before


def test_only_a_package_the_small_package_rule_covers_is_said_to_have_joined() -> None:
    from kgtool.communities.build import _small_packages_joined

    def document(files: dict[str, str]) -> dict:
        return {"files": files, "settings": {"boundaries": ["packages/x"]}}

    code = {"packages/x/a.py": "c1", "packages/x/b.py": "c2"}
    joined = {path: "c1" for path in code}
    # Code alone is no package the rule makes one community: its joining is the graph's.
    assert _small_packages_joined(document(code), document(joined)) == 0
    manifest = {"packages/x/package.json": "c2"}
    before, after = {**code, **manifest}, {**joined, "packages/x/package.json": "c1"}
    assert _small_packages_joined(document(before), document(after)) == 1
    assert _small_packages_joined(document(after), document(dict(after))) == 0
