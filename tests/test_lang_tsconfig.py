"""TypeScript's configs in layer 1: an import binds through a tsconfig's ``paths`` and
``baseUrl`` (through its ``extends`` chain) as the compiler binds it."""

from __future__ import annotations

from conftest import Repo

from kgtool.raw.languages.tsconfig import read_config, strip_comments

# A monorepo as vuejs/core lays one out: the packages' package.json name a build shim as
# "main" (dist/ is not tracked), and the root config maps the packages to their sources.
MONOREPO = {
    "package.json": '{"name": "root", "private": true}\n',
    "tsconfig.json": """\
        {
          // the packages, as the editor and the tests see them
          "compilerOptions": {
            "strict": true,
            "paths": {
              "@acme/*": ["./packages/*/src"], /* every package */
              "@acme/special": ["./packages/special-case/lib"],
            },
          },
        }
        """,
    "packages/core/package.json": '{"name": "@acme/core", "main": "index.js"}\n',
    "packages/core/index.js": "module.exports = require('./dist/core.cjs.js')\n",
    "packages/core/src/index.ts": "export { make } from './make'\n",
    "packages/core/src/make.ts": "export function make(): number {\n  return 1\n}\n",
    "packages/special-case/lib/index.ts": "export function special(): number {\n  return 2\n}\n",
    "packages/app/src/main.ts": (
        "import { make } from '@acme/core'\n"
        "import { special } from '@acme/special'\n"
        "export function main(): number {\n"
        "  return make() + special()\n"
        "}\n"
    ),
}


def test_an_import_binds_through_the_configs_paths_before_a_packages_build_shim(
    repo: Repo,
) -> None:
    repo.build(MONOREPO)
    imports = [row for row in repo.edge_rows("imports") if row[0] == "packages/app/src/main.ts"]
    assert imports == [
        ("packages/app/src/main.ts", "packages/core/src/index.ts", "EXTRACTED", 1),
        ("packages/app/src/main.ts", "packages/special-case/lib/index.ts", "EXTRACTED", 2),
    ]
    calls = [row for row in repo.edge_rows("calls") if row[0].startswith("packages/app")]
    assert calls == [
        ("packages/app/src/main.ts::main", "packages/core/src/make.ts::make", "EXTRACTED", 4),
        (
            "packages/app/src/main.ts::main",
            "packages/special-case/lib/index.ts::special",
            "EXTRACTED",
            4,
        ),
    ]


def test_a_config_extending_another_reads_paths_from_where_they_are_stated(repo: Repo) -> None:
    repo.build(
        {
            "tsconfig.base.json": (
                '{"compilerOptions": {"baseUrl": "./shared", "paths": {"~/*": ["lib/*"]}}}\n'
            ),
            "shared/lib/text.ts": "export function shout(): string {\n  return 'A'\n}\n",
            "shared/util.ts": "export function util(): string {\n  return 'u'\n}\n",
            "web/tsconfig.json": '{"extends": "../tsconfig.base", "compilerOptions": {}}\n',
            "web/src/page.ts": (
                "import { shout } from '~/text'\n"
                "import { util } from 'util'\n"  # baseUrl: shared/util.ts, before node's
                "export const page = (): string => shout() + util()\n"
            ),
            # Its nearest config maps nothing: the root's base is not its config.
            "cli/tsconfig.json": '{"compilerOptions": {"strict": true}}\n',
            "cli/main.ts": "import { shout } from '~/text'\nexport const run = () => shout()\n",
        }
    )
    assert repo.edge_rows("imports") == [  # cli's "~/text" binds nowhere
        ("web/src/page.ts", "shared/lib/text.ts", "EXTRACTED", 1),
        ("web/src/page.ts", "shared/util.ts", "EXTRACTED", 2),
    ]


def test_editing_a_configs_paths_rebinds_the_files_below_it(repo: Repo) -> None:
    repo.build(MONOREPO)
    repo.write(
        "tsconfig.json",
        '{"compilerOptions": {"paths": {"@acme/special": ["./packages/core/src/make"]}}}\n',
    )
    assert repo.kg("update").code == 0
    incremental = repo.layer1()
    imports = [row for row in repo.edge_rows("imports") if row[0] == "packages/app/src/main.ts"]
    assert imports == [
        ("packages/app/src/main.ts", "packages/core/index.js", "EXTRACTED", 1),  # the shim now
        ("packages/app/src/main.ts", "packages/core/src/make.ts", "EXTRACTED", 2),
    ]
    assert repo.fresh_build() == incremental
    # And removing it: the package's own entry again.
    (repo.root / "tsconfig.json").unlink()
    assert repo.kg("update").code == 0
    assert repo.fresh_build() == repo.layer1()


def test_editing_an_extended_config_rebinds_the_files_of_those_extending_it(repo: Repo) -> None:
    repo.build(
        {
            "configs/tsconfig.base.json": '{"compilerOptions": {"paths": {"#/*": ["../a/*"]}}}\n',
            "a/one.ts": "export function one(): number {\n  return 1\n}\n",
            "b/one.ts": "export function one(): number {\n  return 2\n}\n",
            "app/tsconfig.json": '{"extends": "../configs/tsconfig.base.json"}\n',
            "app/main.ts": "import { one } from '#/one'\nexport const main = () => one()\n",
        }
    )
    assert ("app/main.ts", "a/one.ts", "EXTRACTED", 1) in repo.edge_rows("imports")
    repo.write(
        "configs/tsconfig.base.json", '{"compilerOptions": {"paths": {"#/*": ["../b/*"]}}}\n'
    )
    assert repo.kg("update").code == 0
    assert ("app/main.ts", "b/one.ts", "EXTRACTED", 1) in repo.edge_rows("imports")
    assert repo.fresh_build() == repo.layer1()


def test_a_config_is_read_as_tsc_reads_it_comments_and_trailing_commas_included() -> None:
    text = '{\n  "a": "//x", /* b */ "c": ["@/*",],\n  // d\n}\n'
    assert strip_comments(text) == '{\n  "a": "//x",  "c": ["@/*"]\n  \n}\n'
    assert read_config(
        b'{"extends": ["./a", "./b"], "compilerOptions": {"baseUrl": "."}}', "t"
    ) == {
        "ts_config": "1",
        "ts_extends": '["./a", "./b"]',
        "ts_base_url": ".",
    }
    # What no config states: read as text, no facts and no error.
    assert read_config(b"[1, 2]", "t") is None
    assert read_config(b'{"compilerOptions": ', "t") is None
    assert read_config(b"\xff\xfe\x00", "t") is None
    # A pattern with two stars is one tsc refuses: left out, the others kept.
    assert read_config(b'{"compilerOptions": {"paths": {"a/*/*": ["x"], "b": ["y", 3]}}}', "t") == {
        "ts_config": "1",
        "ts_paths": '{"b": ["y"]}',
    }
