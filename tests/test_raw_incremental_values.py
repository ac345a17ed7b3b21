"""An incremental update equals a fresh build when what changed is read through values in
other files (an alias, an object literal's member, an imported instance, a returned literal)
or through a TypeScript config's chain; and an edit reaches no further than it must."""

from __future__ import annotations

import pytest
from conftest import Repo

from kgtool.config import load_config
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.store import Store

LIB = {
    "lib/n.ts": "export function k(): number {\n  return 0\n}\n"
    "export function g(): number {\n  return 1\n}\n"
    "export function create(): number {\n  return 1\n}\n",
    "lib2/o.ts": "export function g(): number {\n  return 2\n}\n"
    "export function create(): number {\n  return 2\n}\n",
    "lib/s.ts": "export class Store {\n  save(): number {\n    return 1\n  }\n}\n"
    "export class Other {\n  save(): number {\n    return 2\n  }\n}\n"
    "export const make = () => new Store()\n",
}

# Each case: the files, then an edit of a file the reader does not name.
CASES = {
    "an alias two files away": (
        {
            "m/m.ts": "import { g } from '../lib/n'\nexport const f = g\n",
            "app/a.ts": "import { f } from '../m/m'\nexport const main = (): number => f()\n",
        },
        {"m/m.ts": "import { g } from '../lib2/o'\nexport const f = g\n"},
    ),
    "an object literal's member two files away": (
        {
            "m/m.ts": "import { create } from '../lib/n'\nexport const ops = { create }\n",
            "app/a.ts": "import { ops } from '../m/m'\nexport const main = () => ops.create()\n",
        },
        {"m/m.ts": "import { create } from '../lib2/o'\nexport const ops = { create }\n"},
    ),
    "an instance built by a function two files away": (
        {
            "m/m.ts": "import { make } from '../lib/s'\nexport const store = make()\n",
            "app/a.ts": "import { store } from '../m/m'\nexport const main = () => store.save()\n",
        },
        {"lib/s.ts": LIB["lib/s.ts"].replace("new Store()", "new Other()")},
    ),
    "a function that becomes an alias": (
        {
            "m/m.ts": "import { g } from '../lib/n'\nexport const f = g\n",
            "app/a.ts": "import { f } from '../m/m'\nexport const main = (): number => f()\n",
        },
        {
            "lib/n.ts": LIB["lib/n.ts"].replace(
                "export function g(): number {\n  return 1\n}\n", "export const g = k\n"
            )
        },
    ),
    "a returned literal's member": (
        {
            "m/m.ts": "import { g, k } from '../lib/n'\n"
            "export function setup() {\n  return { run: g }\n}\n",
            "app/a.ts": "import { setup } from '../m/m'\nconst { run } = setup()\n"
            "export const main = (): number => run()\n",
        },
        {
            "m/m.ts": "import { g, k } from '../lib/n'\n"
            "export function setup() {\n  return { run: k }\n}\n"
        },
    ),
    "an extended config removed": (
        {
            "config/tsconfig.base.json": '{"compilerOptions": {"paths": {"~/*": ["../lib/*"]}}}\n',
            "web/tsconfig.json": '{"extends": "../config/tsconfig.base.json"}\n',
            "web/page.ts": "import { g } from '~/n'\nexport const page = (): number => g()\n",
        },
        {"config/tsconfig.base.json": None},
    ),
    "a package an extends names renamed": (
        {
            "tools/tsc/package.json": '{"name": "@acme/tsconfig"}\n',
            "tools/tsc/tsconfig.base.json": (
                '{"compilerOptions": {"paths": {"~/*": ["../../lib/*"]}}}\n'
            ),
            "web/tsconfig.json": '{"extends": "@acme/tsconfig/tsconfig.base.json"}\n',
            "web/page.ts": "import { g } from '~/n'\nexport const page = (): number => g()\n",
        },
        {"tools/tsc/package.json": '{"name": "@acme/other"}\n'},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_edit_read_through_values_or_configs_equals_a_fresh_build(repo: Repo, case: str) -> None:
    files, edit = CASES[case]
    repo.build({**LIB, **files})
    before = repo.layer1()
    for path, text in edit.items():
        if text is None:
            (repo.root / path).unlink()
        else:
            repo.write(path, text)
    repo.commit()
    assert repo.kg("update").code == 0
    incremental = repo.layer1()
    assert incremental != before  # the edit changed what the reader binds
    assert repo.fresh_build() == incremental


def update(repo: Repo) -> UpdateResult:
    return update_raw(repo.root, load_config(repo.root), Store(repo.root))


def test_a_new_relative_import_resolves_its_file_and_no_other(repo: Repo) -> None:
    """``./h`` names nothing by its head: an edit adding such an import touched the name "",
    which every file with a call mentions, and resolved them all again."""
    files = {
        f"src/f{n}.ts": f"function g{n}(): number {{\n  return {n}\n}}\n"
        f"export function f{n}(): number {{\n  return g{n}()\n}}\n"
        for n in range(20)
    }
    files["src/h.ts"] = "export function h(): number {\n  return 1\n}\n"
    files["src/use.ts"] = "export const use = (): number => 1\n"
    repo.write_files(files)
    repo.commit()
    update(repo)
    update(repo)
    repo.write("src/use.ts", "import { h } from './h'\nexport const use = (): number => h()\n")
    result = update(repo)
    assert result.parsed == ["src/use.ts"] and result.resolved == 1
    assert repo.fresh_build() == repo.layer1()
