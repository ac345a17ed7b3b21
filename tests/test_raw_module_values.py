"""Top-level values read from other files: an imported instance is typed by what its file
assigns it, and an object literal's members call the functions it names for them."""

from __future__ import annotations

from conftest import Repo

OPS = {
    # The interface a renderer's options implement, with a method of the same name: what a
    # guess by the method's name alone would bind to.
    "src/renderer.ts": """\
        export interface RendererOptions {
          createElement(tag: string): object
          remove(node: object): void
        }
        """,
    "src/ops.ts": """\
        function createElement(tag: string): object {
          return { tag }
        }
        const removeNode = (node: object): void => {}
        export const nodeOps = {
          createElement,
          remove: removeNode,
          insert(node: object): void {},
        }
        """,
    "src/index.ts": "export * from './ops'\n",
    "test/render.spec.ts": """\
        import { nodeOps } from '../src'
        export function mount(): void {
          const root = nodeOps.createElement('div')
          nodeOps.remove(root)
          nodeOps.insert(root)
        }
        """,
}


def test_a_call_of_an_object_literals_member_binds_the_function_it_names(repo: Repo) -> None:
    repo.build(OPS)
    calls = [row for row in repo.edge_rows("calls") if row[0].startswith("test/")]
    assert calls == [
        ("test/render.spec.ts::mount", "src/ops.ts::createElement", "INFERRED", 3),
        ("test/render.spec.ts::mount", "src/ops.ts::removeNode", "INFERRED", 4),
        # A member written as a function in the literal is no symbol: nothing to bind, and
        # no same-named method guessed either.
    ]
    confidences = {e["dst"]: e["confidence"] for e in repo.edges("calls") if "dst" in e}
    assert confidences["src/ops.ts::createElement"] == 0.95


def test_the_same_files_object_literal_binds_too_and_follows_its_edits(repo: Repo) -> None:
    repo.build(
        {
            "ops.js": (
                "function one() { return 1 }\n"
                "function two() { return 2 }\n"
                "const table = { pick: one }\n"
                "export function run() {\n"
                "  return table.pick()\n"
                "}\n"
            ),
            "main.js": (
                "import { run } from './ops'\n"
                "import { table } from './ops'\n"
                "export const main = () => run() + table.pick()\n"
            ),
        }
    )
    picks = {
        (r[0], r[1]) for r in repo.edge_rows("calls") if r[1] in ("ops.js::one", "ops.js::two")
    }
    assert picks == {("main.js::main", "ops.js::one"), ("ops.js::run", "ops.js::one")}
    repo.write("ops.js", (repo.root / "ops.js").read_text().replace("pick: one", "pick: two"))
    assert repo.kg("update").code == 0
    incremental = repo.layer1()
    assert ("main.js::main", "ops.js::two", "INFERRED", 3) in repo.edge_rows("calls")
    assert repo.fresh_build() == incremental


def test_an_imported_instance_is_typed_by_what_its_file_assigns_it(repo: Repo) -> None:
    repo.build(
        {
            "store.ts": (
                "export class Store {\n  save(): void {}\n}\n"
                "export class Draft {\n  save(): void {}\n}\n"
                "export const store = new Store()\n"
            ),
            "index.ts": "export { store } from './store'\n",
            "main.ts": "import { store } from './index'\nexport const main = () => store.save()\n",
            "app/__init__.py": "",
            "app/settings.py": (
                "class Settings:\n    def load(self):\n        return 1\n\n\n"
                "class Other:\n    def load(self):\n        return 2\n\n\n"
                "settings = Settings()\n"
            ),
            "app/main.py": (
                "from .settings import settings\n\n\ndef main():\n    return settings.load()\n"
            ),
        }
    )
    calls = {(r[0], r[1], r[2]) for r in repo.edge_rows("calls") if r[0].endswith("::main")}
    # By the method's name alone both classes would be listed (AMBIGUOUS).
    assert calls == {
        ("main.ts::main", "store.ts::Store.save", "INFERRED"),
        ("app/main.py::main", "app/settings.py::Settings.load", "INFERRED"),
    }


def test_a_destructured_result_holds_what_the_functions_returned_literal_names(
    repo: Repo,
) -> None:
    repo.build(
        {
            "utils.ts": """\
                export function setupBrowser() {
                  async function click(selector: string): Promise<void> {}
                  function page(): string {
                    return 'p'
                  }
                  const helpers = [1].map(() => {
                    return { click: page }  // a callback's return: not setupBrowser's
                  })
                  return { page, click, timeout: 5 }
                }
                export class Session {
                  prompt(): void {}
                }
                export class Draft {
                  prompt(): void {}
                }
                export async function create() {
                  const session = new Session()
                  return { session }
                }
                """,
            # Same-named functions elsewhere: what a guess by the bare name would list.
            "other.ts": "export function click(): void {}\nexport function page(): void {}\n",
            "spec.ts": """\
                import { setupBrowser, create } from './utils'
                export async function run(): Promise<void> {
                  const { click, page: getPage } = setupBrowser()
                  await click('#a')
                  getPage()
                  const { session } = await create()
                  session.prompt()
                }
                """,
        }
    )
    calls = [r for r in repo.edge_rows("calls") if r[0] == "spec.ts::run"]
    assert calls == [
        ("spec.ts::run", "utils.ts::Session.prompt", "INFERRED", 7),
        ("spec.ts::run", "utils.ts::create", "EXTRACTED", 6),
        ("spec.ts::run", "utils.ts::setupBrowser", "EXTRACTED", 3),
        ("spec.ts::run", "utils.ts::setupBrowser.click", "INFERRED", 4),
        ("spec.ts::run", "utils.ts::setupBrowser.page", "INFERRED", 5),
    ]


def test_a_declared_result_type_outranks_the_returned_literal(repo: Repo) -> None:
    repo.build(
        {
            "utils.ts": """\
                export interface Browser {
                  click(selector: string): void
                }
                export function setupBrowser(): Browser {
                  function click(selector: string): void {}
                  return { click }
                }
                """,
            "spec.ts": """\
                import { setupBrowser } from './utils'
                export function run(): void {
                  const { click } = setupBrowser()
                  click('#a')
                }
                """,
        }
    )
    calls = [r for r in repo.edge_rows("calls") if r[0] == "spec.ts::run"]
    # As a type checker reads it: the member the declared type gives.
    assert ("spec.ts::run", "utils.ts::Browser.click", "INFERRED", 4) in calls
    assert not any(r[1] == "utils.ts::setupBrowser.click" for r in calls)


def test_an_imported_alias_calls_the_function_it_names(repo: Repo) -> None:
    repo.build(
        {
            "vnode.ts": """\
                function _createVNode(type: string): object {
                  return { type }
                }
                function withArgs(type: string): object {
                  return _createVNode(type)
                }
                declare const DEV: boolean
                export const createVNode = (DEV ? withArgs : _createVNode) as typeof _createVNode
                export const h = _createVNode
                """,
            "index.ts": "export { createVNode, h } from './vnode'\n",
            "spec.ts": """\
                import { createVNode, h } from './index'
                export function mount(): void {
                  createVNode('div')
                  h('p')
                }
                """,
        }
    )
    assert [r for r in repo.edge_rows("calls") if r[0] == "spec.ts::mount"] == [
        ("spec.ts::mount", "vnode.ts::_createVNode", "INFERRED", 3),
        ("spec.ts::mount", "vnode.ts::_createVNode", "INFERRED", 4),
    ]


def test_a_destructured_parameter_holds_the_members_of_its_declared_type(repo: Repo) -> None:
    repo.build(
        {
            "codegen.ts": """\
                export interface Context {
                  helper(key: string): string
                  push(code: string): void
                }
                export class Other {
                  helper(key: string): string {
                    return key
                  }
                  push(code: string): void {}
                }
                export function genAssets(assets: string[], { helper, push: add }: Context): void {
                  add(helper('x'))
                }
                export function genText(context: Context): void {
                  const { push } = context
                  push('y')
                }
                """,
        }
    )
    calls = {(r[0], r[1], r[2]) for r in repo.edge_rows("calls")}
    assert calls == {
        ("codegen.ts::genAssets", "codegen.ts::Context.helper", "INFERRED"),
        ("codegen.ts::genAssets", "codegen.ts::Context.push", "INFERRED"),
        ("codegen.ts::genText", "codegen.ts::Context.push", "INFERRED"),
    }


def test_a_generic_file_keeps_its_destructured_parameters(repo: Repo) -> None:
    """A file declaring a type parameter drops the stated types that name it, and keeps
    every other fact its values give (the destructured parameter's members)."""
    repo.build(
        {
            "codegen.ts": """\
                export interface Context {
                  helper(key: string): string
                }
                export function wrap<T>(value: T): T {
                  return value
                }
                export function gen({ helper }: Context): void {
                  helper('x')
                }
                """,
        }
    )
    calls = {(r[0], r[1], r[2]) for r in repo.edge_rows("calls")}
    assert ("codegen.ts::gen", "codegen.ts::Context.helper", "INFERRED") in calls
