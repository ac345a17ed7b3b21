"""JavaScript in layer 1: ES modules, require, re-exports, classes, this/super, JSX, tiers."""

from __future__ import annotations

from conftest import Repo

PROGRAM = {
    "lib/util.js": """\
        export function helper(x) {
          return x;
        }

        export function render(v) {
          return v;
        }

        export default function main() {
          return helper(1);
        }
        """,
    "lib/shapes.mjs": """\
        import { helper as assist } from "./util.js";

        export class Shape {
          constructor(name) {
            this.name = name;
          }

          area() {
            return 0;
          }

          describe() {
            return `${this.name}: ${this.area()}`;
          }
        }

        export class Square extends Shape {
          static unit = assist(1);

          constructor(side) {
            super("square");
            this.side = side;
          }

          area() {
            return this.side * this.side;
          }

          describe() {
            return super.describe();
          }

          dynamic(name) {
            return this[name]();
          }
        }
        """,
    "lib/index.js": """\
        export * from "./shapes.mjs";
        export { render as draw } from "./util.js";
        """,
    "legacy.cjs": """\
        const util = require("./lib/util.js");
        const { render, helper: aid } = require("./lib/util.js");

        function run() {
          util.helper(1);
          render(2);
          aid(3);
        }

        module.exports = { run };
        run();
        """,
    "app.jsx": """\
        import main, * as utils from "./lib/util.js";
        import { Square, draw } from "./lib";
        import React from "react";

        const makeSquare = (n) => new Square(n);

        function Panel({ side }) {
          const sq = makeSquare(side);
          return <div>{draw(sq.describe())}<Badge /></div>;
        }

        function Badge() {
          return utils.render(main());
        }

        export default Panel;
        """,
    "other.js": """\
        export function render(v) {
          return v;
        }

        export function go() {
          render(1);
        }
        """,
    "orphan.js": """\
        function orphan() {
          render();
          helper();
          console.log("x");
        }
        """,
    "broken.js": """\
        function ok() {
          return 1;
        }

        function bad( {
        """,
}


def test_javascript_symbols_and_languages(repo: Repo) -> None:
    nodes = repo.build(PROGRAM).nodes()
    symbols = {i: (n["kind"], tuple(n["span"])) for i, n in nodes.items() if "span" in n}
    assert symbols == {
        "lib/util.js::helper": ("function", (1, 3)),
        "lib/util.js::render": ("function", (5, 7)),
        "lib/util.js::main": ("function", (9, 11)),
        "lib/shapes.mjs::Shape": ("class", (3, 15)),
        "lib/shapes.mjs::Shape.constructor": ("method", (4, 6)),
        "lib/shapes.mjs::Shape.area": ("method", (8, 10)),
        "lib/shapes.mjs::Shape.describe": ("method", (12, 14)),
        "lib/shapes.mjs::Square": ("class", (17, 36)),
        "lib/shapes.mjs::Square.constructor": ("method", (20, 23)),
        "lib/shapes.mjs::Square.area": ("method", (25, 27)),
        "lib/shapes.mjs::Square.describe": ("method", (29, 31)),
        "lib/shapes.mjs::Square.dynamic": ("method", (33, 35)),
        "legacy.cjs::run": ("function", (4, 8)),
        "app.jsx::makeSquare": ("function", (5, 5)),
        "app.jsx::Panel": ("function", (7, 10)),
        "app.jsx::Badge": ("function", (12, 14)),
        "other.js::render": ("function", (1, 3)),
        "other.js::go": ("function", (5, 7)),
        "orphan.js::orphan": ("function", (1, 5)),
        # What tree-sitter recovers before the syntax error is kept.
        "broken.js::ok": ("function", (1, 3)),
    }
    languages = {n["lang"] for i, n in nodes.items() if n.get("kind") == "file"}
    assert languages == {"javascript"}
    assert nodes["broken.js"]["status"] == "partial"
    assert nodes["broken.js"]["error_lines"]
    assert nodes["app.jsx"]["status"] == "ok"
    assert nodes["ext:npm:react"]["kind"] == "package"


def test_javascript_calls_with_tiers(repo: Repo) -> None:
    built = repo.build(PROGRAM)
    calls = {(e["src"], e.get("dst"), e["line"], e["tier"]) for e in built.edges("calls")}
    shapes, util = "lib/shapes.mjs", "lib/util.js"
    assert calls == {
        (f"{util}::main", f"{util}::helper", 10, "EXTRACTED"),
        (f"{shapes}::Shape.describe", f"{shapes}::Shape.area", 13, "EXTRACTED"),
        # A static field's initialiser runs in the class, through an aliased import.
        (f"{shapes}::Square", f"{util}::helper", 18, "EXTRACTED"),
        # super(...) constructs the base class.
        (f"{shapes}::Square.constructor", f"{shapes}::Shape", 21, "EXTRACTED"),
        (f"{shapes}::Square.describe", f"{shapes}::Shape.describe", 30, "EXTRACTED"),
        # require: the whole module, and destructured names (one renamed).
        ("legacy.cjs::run", f"{util}::helper", 5, "EXTRACTED"),
        ("legacy.cjs::run", f"{util}::render", 6, "EXTRACTED"),
        ("legacy.cjs::run", f"{util}::helper", 7, "EXTRACTED"),
        ("legacy.cjs", "legacy.cjs::run", 11, "EXTRACTED"),
        # Through the barrel: export * and a renamed re-export.
        ("app.jsx::makeSquare", f"{shapes}::Square", 5, "EXTRACTED"),
        ("app.jsx::Panel", "app.jsx::makeSquare", 8, "EXTRACTED"),
        ("app.jsx::Panel", f"{util}::render", 9, "EXTRACTED"),
        # sq.describe(): sq is what makeSquare returns, `new Square(n)`.
        ("app.jsx::Panel", f"{shapes}::Square.describe", 9, "INFERRED"),
        ("app.jsx::Panel", "app.jsx::Badge", 9, "EXTRACTED"),  # <Badge />
        # A namespace import, and the default import of a named default export.
        ("app.jsx::Badge", f"{util}::render", 13, "EXTRACTED"),
        ("app.jsx::Badge", f"{util}::main", 13, "EXTRACTED"),
        # The local render, not the same-named one in lib/util.js.
        ("other.js::go", "other.js::render", 6, "EXTRACTED"),
        # No import: by name only.
        ("orphan.js::orphan", None, 2, "AMBIGUOUS"),
        ("orphan.js::orphan", f"{util}::helper", 3, "INFERRED"),
    }
    ambiguous = {
        (e["src"], e["line"]): e["candidates"]
        for e in built.edges("calls")
        if e["tier"] == "AMBIGUOUS"
    }
    assert ambiguous == {
        ("orphan.js::orphan", 2): [f"{util}::render", "other.js::render"],
    }
    nodes = built.nodes()
    assert nodes[f"{shapes}::Square.dynamic"]["unresolved_calls"] == {"?": 1}
    assert nodes["orphan.js::orphan"]["external_calls"] == 1  # console.log


def test_javascript_imports_and_inheritance(repo: Repo) -> None:
    built = repo.build(PROGRAM)
    imports = {(e["src"], e["dst"], e["line"]) for e in built.edges("imports")}
    assert imports == {
        ("lib/shapes.mjs", "lib/util.js", 1),
        ("lib/index.js", "lib/shapes.mjs", 1),
        ("lib/index.js", "lib/util.js", 2),
        ("legacy.cjs", "lib/util.js", 1),
        ("legacy.cjs", "lib/util.js", 2),
        ("app.jsx", "lib/util.js", 1),
        ("app.jsx", "lib/index.js", 2),
        ("app.jsx", "ext:npm:react", 3),
    }
    inherits = {(e["src"], e["dst"], e["tier"]) for e in built.edges("inherits")}
    assert inherits == {("lib/shapes.mjs::Square", "lib/shapes.mjs::Shape", "EXTRACTED")}


def test_a_relative_import_of_no_file_is_broken(repo: Repo) -> None:
    repo.write_files(
        {
            "src/main.js": "import { a } from './gone';\nimport b from 'lodash';\na(); b();\n",
        }
    )
    repo.commit()
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert repo.nodes()["src/main.js"]["broken_imports"] == [{"line": 1, "module": "./gone"}]
    assert "src/main.js:1: warning: R102 broken import './gone'" in result.out


def test_require_and_import_calls_are_imports_and_never_calls() -> None:
    """``require("m")`` and ``import("m")`` import; with no module named they do neither; a
    method named ``require`` is a call like any other."""
    from kgtool.raw.languages import language_for_path

    source = b"""\
require("./a");
const b = require("./b");
async function load(name) {
  await import("./c");
  require(name);
  import(name);
  loader.require("./d");
}
"""
    facts = language_for_path("x.js").extract("x.js", source)
    assert [(i.line, i.module, i.alias) for i in facts.imports] == [
        (1, "./a", ""),
        (2, "./b", "b"),
        (4, "./c", ""),
    ]
    assert [(c.line, c.receiver, c.name) for c in facts.calls] == [(7, "loader", "require")]
    assert not facts.assigns  # b holds the module, not what a function called require returns


def test_nothing_binds_by_name_alone_to_minified_generated_or_vendored_code(repo: Repo) -> None:
    long_line = "var table = [" + ",".join(["1"] * 600) + "];"
    built = repo.build(
        {
            "web/doom.min.js": "function done(x){return x}function tick(){return done(1)}\n",
            "web/emscripten.js": f"{long_line}\nfunction finish() {{\n  return 1;\n}}\n",
            "web/api.js": "// Code generated by a tool. DO NOT EDIT.\nfunction fetchAll() {}\n",
            "vendor/lib/util.js": "function pad(s) {\n  return s;\n}\n",
            "src/helpers.js": "function helper() {\n  return 2;\n}\n",
            "src/app.js": """\
                export function run() {
                  done(1);
                  finish();
                  fetchAll();
                  pad("x");
                  helper();
                }
                """,
        }
    )
    calls = {(e["src"], e.get("dst")) for e in built.edges("calls")}
    # The code people wrote is still found by its name, and a machine's file by its own calls.
    assert ("src/app.js::run", "src/helpers.js::helper") in calls
    assert ("web/doom.min.js::tick", "web/doom.min.js::done") in calls
    assert not [c for c in calls if c[0] == "src/app.js::run" and c[1] != "src/helpers.js::helper"]
    assert built.nodes()["src/app.js::run"]["unresolved_calls"] == {
        "done": 1,
        "fetchAll": 1,
        "finish": 1,
        "pad": 1,
    }


def test_a_platform_method_on_a_value_of_no_known_type_is_not_guessed(repo: Repo) -> None:
    built = repo.build(
        {
            "src/stream.js": """\
                export class EventStream {
                  end() {}
                  setHeader(name) {}
                }
                """,
            "src/server.js": """\
                import { EventStream } from "./stream.js";

                export function reply(res) {
                  res.setHeader("a", "b");
                  res.end("ok");
                }

                export function close() {
                  const stream = new EventStream();
                  stream.end();
                }
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    # Node's res.end() is no guess of EventStream.end; a value known to be one still binds.
    assert calls == {
        ("src/server.js::close", "src/stream.js::EventStream", "EXTRACTED"),
        ("src/server.js::close", "src/stream.js::EventStream.end", "INFERRED"),
    }
    assert built.nodes()["src/server.js::reply"]["unresolved_calls"] == {"end": 1, "setHeader": 1}


def test_a_callback_s_parameter_shadows_only_inside_the_callback(repo: Repo) -> None:
    built = repo.build(
        {
            "src/util.js": "export function done(x) {\n  return x;\n}\n",
            "src/app.js": """\
                import { done } from "./util.js";

                export function run(items) {
                  items.forEach((done) => {
                    done();
                  });
                  done();
                }
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["line"]) for e in built.edges("calls")}
    # The import is called on line 7; the callback's done (line 5) is not known here.
    assert ("src/app.js::run", "src/util.js::done", 7) in calls


def test_a_bare_name_is_guessed_only_inside_the_caller_s_package(repo: Repo) -> None:
    built = repo.build(
        {
            "packages/app/package.json": '{"name": "@acme/app"}\n',
            "packages/app/src/selector.js": "export function scroll(n) {\n  return n;\n}\n",
            "packages/tui/package.json": '{"name": "@acme/tui"}\n',
            "packages/tui/src/pad.js": "export function pad(s) {\n  return s;\n}\n",
            "packages/tui/src/input.js": """\
                export function check(cases) {
                  for (const { scroll } of cases) {
                    scroll(1);
                  }
                  pad("x");
                }
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    # An unbound bare name may be a function of its own package the statements do not show
    # imported; another package's is reached only through an import, which would have bound it.
    assert calls == {
        ("packages/tui/src/input.js::check", "packages/tui/src/pad.js::pad", "INFERRED")
    }
    assert built.nodes()["packages/tui/src/input.js::check"]["unresolved_calls"] == {"scroll": 1}


def test_a_function_declared_in_a_callback_is_not_seen_outside_it(repo: Repo) -> None:
    built = repo.build(
        {
            "src/utils.js": "export function click(selector) {\n  return selector;\n}\n",
            "src/ui.test.js": """\
                import { click } from "./utils.js";

                describe("buttons", () => {
                  it("counts", () => {
                    const click = () => 1;
                    click();
                  });
                  it("presses", () => {
                    click("#b");
                  });
                  it("counts again", () => {
                    function click() {}
                    click();
                  });
                });
                click("#top");
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["line"]) for e in built.edges("calls")}
    # kgtool names each callback's click at the file's top level, one symbol for both; only
    # the callbacks declaring it see it.
    assert calls == {
        ("src/ui.test.js", "src/ui.test.js::click", 6),
        ("src/ui.test.js", "src/utils.js::click", 9),
        ("src/ui.test.js", "src/ui.test.js::click", 13),
        ("src/ui.test.js", "src/utils.js::click", 16),
    }
