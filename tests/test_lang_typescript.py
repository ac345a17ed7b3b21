"""TypeScript and TSX in layer 1: interfaces, abstract classes, enums, declared receiver types,
default exports, re-exports through .mts, .cts, TSX components, decorators, tiers."""

from __future__ import annotations

import shutil

from conftest import Repo

PROGRAM = {
    "src/base.ts": """\
        export interface Greeter {
          greet(name: string): string;
        }

        export abstract class Base implements Greeter {
          abstract greet(name: string): string;

          hello(): string {
            return this.greet("world");
          }
        }

        export enum Mood {
          Happy,
          Sad,
        }
        """,
    "src/polite.ts": """\
        import { Base } from "./base.js";
        import * as text from "./text";

        export default class Polite extends Base {
          greet(name: string): string {
            return text.shout(`hello ${name}`);
          }

          hello(): string {
            return super.hello() + this.greet("again");
          }
        }
        """,
    "src/text.ts": """\
        export function shout(s: string): string {
          return s.toUpperCase();
        }

        export const whisper = (s: string): string => s.toLowerCase();
        """,
    "src/service.ts": """\
        import Polite from "./polite";
        import { Greeter, Mood } from "./base";
        import { whisper as quiet } from "./text";
        import fs = require("fs");

        function trace() {
          return (target: object, key: string): void => {};
        }

        export class Service {
          private greeter = new Polite();

          constructor(private readonly fallback: Greeter) {}

          @trace()
          run(mood: Mood): string {
            const line = mood === Mood.Happy ? this.greeter.hello() : this.fallback.greet("x");
            fs.writeFileSync("out.txt", quiet(line));
            return line;
          }
        }
        """,
    "src/widget.tsx": """\
        import { Service } from "./service";

        export function Widget({ svc }: { svc: Service }) {
          return <span>{svc.run(0)}</span>;
        }

        export const App = () => <Widget svc={build()} />;

        function build(): Service {
          return new Service(new Polite());
        }
        """,
    "src/esm.mts": """\
        export { default as Polite } from "./polite.js";
        export * from "./text.js";
        """,
    "src/cjs.cts": """\
        import { Polite, shout } from "./esm.mjs";

        export function main(): string {
          return shout(new Polite().hello());
        }

        export function pick(handlers: Record<string, () => void>, name: string): void {
          handlers[name]();
        }
        """,
    "src/broken.ts": """\
        export class Fine {
          ok(): number {
            return 1;
          }
        }

        export function broken(: {
        """,
}


def test_typescript_symbols_and_languages(repo: Repo) -> None:
    nodes = repo.build(PROGRAM).nodes()
    symbols = {i: (n["kind"], tuple(n["span"])) for i, n in nodes.items() if "span" in n}
    assert symbols == {
        # Declared members (interface and abstract methods) are symbols: calls bind to them.
        "src/base.ts::Greeter": ("interface", (1, 3)),
        "src/base.ts::Greeter.greet": ("method", (2, 2)),
        "src/base.ts::Base": ("class", (5, 11)),
        "src/base.ts::Base.greet": ("method", (6, 6)),
        "src/base.ts::Base.hello": ("method", (8, 10)),
        "src/base.ts::Mood": ("enum", (13, 16)),
        "src/polite.ts::Polite": ("class", (4, 12)),
        "src/polite.ts::Polite.greet": ("method", (5, 7)),
        "src/polite.ts::Polite.hello": ("method", (9, 11)),
        "src/text.ts::shout": ("function", (1, 3)),
        "src/text.ts::whisper": ("function", (5, 5)),
        "src/service.ts::trace": ("function", (6, 8)),
        "src/service.ts::Service": ("class", (10, 21)),
        "src/service.ts::Service.constructor": ("method", (13, 13)),
        "src/service.ts::Service.run": ("method", (16, 20)),
        "src/widget.tsx::Widget": ("function", (3, 5)),
        "src/widget.tsx::App": ("function", (7, 7)),
        "src/widget.tsx::build": ("function", (9, 11)),
        "src/cjs.cts::main": ("function", (3, 5)),
        "src/cjs.cts::pick": ("function", (7, 9)),
        "src/broken.ts::Fine": ("class", (1, 5)),
        "src/broken.ts::Fine.ok": ("method", (2, 4)),
    }
    languages = {i: n["lang"] for i, n in nodes.items() if n.get("kind") == "file"}
    assert languages == {
        "src/base.ts": "typescript",
        "src/polite.ts": "typescript",
        "src/text.ts": "typescript",
        "src/service.ts": "typescript",
        "src/widget.tsx": "tsx",
        "src/esm.mts": "typescript",
        "src/cjs.cts": "typescript",
        "src/broken.ts": "typescript",
    }
    assert nodes["src/broken.ts"]["status"] == "partial"
    assert nodes["src/widget.tsx"]["status"] == "ok"


def test_typescript_calls_with_tiers(repo: Repo) -> None:
    built = repo.build(PROGRAM)
    calls = {(e["src"], e.get("dst"), e["line"], e["tier"]) for e in built.edges("calls")}
    base, polite, service = "src/base.ts", "src/polite.ts", "src/service.ts"
    assert calls == {
        # this.m() binds to the declared abstract method of the class itself, and reaches its
        # only implementation.
        (f"{base}::Base.hello", f"{base}::Base.greet", 9, "EXTRACTED"),
        (f"{base}::Base.hello", f"{polite}::Polite.greet", 9, "INFERRED"),
        (f"{polite}::Polite.greet", "src/text.ts::shout", 6, "EXTRACTED"),
        (f"{polite}::Polite.hello", f"{base}::Base.hello", 10, "EXTRACTED"),
        (f"{polite}::Polite.hello", f"{polite}::Polite.greet", 10, "EXTRACTED"),
        # A field initialiser and a method decorator run in the class body.
        (f"{service}::Service", f"{polite}::Polite", 11, "EXTRACTED"),
        (f"{service}::Service", f"{service}::trace", 15, "EXTRACTED"),
        # Receivers typed by a field's constructor and by a parameter property's type.
        (f"{service}::Service.run", f"{polite}::Polite.hello", 17, "INFERRED"),
        (f"{service}::Service.run", f"{base}::Greeter.greet", 17, "INFERRED"),
        # An interface member's implementations: Base's greet is abstract, Polite's is the one.
        (f"{service}::Service.run", f"{polite}::Polite.greet", 17, "INFERRED"),
        (f"{service}::Service.run", "src/text.ts::whisper", 18, "EXTRACTED"),
        # TSX: by name across .tsx and .ts, a JSX component call, and constructors.
        ("src/widget.tsx::Widget", f"{service}::Service.run", 4, "INFERRED"),
        ("src/widget.tsx::App", "src/widget.tsx::Widget", 7, "EXTRACTED"),
        ("src/widget.tsx::App", "src/widget.tsx::build", 7, "EXTRACTED"),
        ("src/widget.tsx::build", f"{service}::Service", 10, "EXTRACTED"),
        ("src/widget.tsx::build", f"{polite}::Polite", 10, "INFERRED"),
        # .cts importing "./esm.mjs" (esm.mts), which re-exports a default and a wildcard.
        ("src/cjs.cts::main", "src/text.ts::shout", 4, "EXTRACTED"),
        ("src/cjs.cts::main", f"{polite}::Polite", 4, "EXTRACTED"),
        ("src/cjs.cts::main", f"{polite}::Polite.hello", 4, "EXTRACTED"),  # new Polite().hello()
    }
    confidences = {
        (e["src"], e["dst"]): e["confidence"]
        for e in built.edges("calls")
        if e["tier"] == "INFERRED"
    }
    assert confidences[(f"{service}::Service.run", f"{base}::Greeter.greet")] == 0.95
    # The only implementation: 0.8, times the confidence of the member's own binding.
    assert confidences[(f"{service}::Service.run", f"{polite}::Polite.greet")] == 0.76
    assert confidences[(f"{base}::Base.hello", f"{polite}::Polite.greet")] == 0.8
    assert all(0 < c < 1 for c in confidences.values())
    nodes = built.nodes()
    # fs.writeFileSync: an external package; new Polite().hello() is bound above.
    assert nodes[f"{service}::Service.run"]["external_calls"] == 1
    assert "unresolved_calls" not in nodes["src/cjs.cts::main"]
    assert nodes["src/cjs.cts::pick"]["unresolved_calls"] == {"?": 1}


def test_typescript_imports_and_inheritance(repo: Repo) -> None:
    built = repo.build(PROGRAM)
    imports = {(e["src"], e["dst"], e["line"]) for e in built.edges("imports")}
    assert imports == {
        ("src/polite.ts", "src/base.ts", 1),  # "./base.js" is base.ts
        ("src/polite.ts", "src/text.ts", 2),
        ("src/service.ts", "src/polite.ts", 1),
        ("src/service.ts", "src/base.ts", 2),
        ("src/service.ts", "src/text.ts", 3),
        ("src/service.ts", "ext:npm:fs", 4),
        ("src/widget.tsx", "src/service.ts", 1),
        ("src/esm.mts", "src/polite.ts", 1),
        ("src/esm.mts", "src/text.ts", 2),
        ("src/cjs.cts", "src/esm.mts", 1),
    }
    inherits = {(e["src"], e["dst"], e["tier"], e["confidence"]) for e in built.edges("inherits")}
    assert inherits == {  # stated by the syntax (implements, extends an import): EXTRACTED
        ("src/base.ts::Base", "src/base.ts::Greeter", "EXTRACTED", 1.0),
        ("src/polite.ts::Polite", "src/base.ts::Base", "EXTRACTED", 1.0),
    }


def test_changing_what_a_module_exports_as_default_rebinds_its_importers(repo: Repo) -> None:
    repo.write_files(
        {
            "a.ts": "export default function first() {}\nexport function second() {}\n",
            "b.ts": 'import pick from "./a";\n\nexport function go() {\n  pick();\n}\n',
        }
    )
    repo.commit()
    assert repo.kg("update").code == 0
    assert [e["dst"] for e in repo.edges("calls")] == ["a.ts::first"]
    # Only a.ts changes: b.ts must be resolved again, as a fresh build would.
    repo.write("a.ts", "export function first() {}\nexport default function second() {}\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert [e["dst"] for e in repo.edges("calls")] == ["a.ts::second"]
    fresh = repo.layer1()
    shutil.rmtree(repo.root / ".kg" / "raw")
    assert repo.kg("update").code == 0
    assert repo.layer1() == fresh


def test_wrapped_components_are_functions_and_own_their_calls(repo: Repo) -> None:
    repo.write_files(
        {
            "ui.tsx": """\
                import { memo, forwardRef } from "react";

                function label(): string {
                  return "x";
                }

                export const Row = memo(() => <b>{label()}</b>);
                const Field = memo(forwardRef(function (props, ref) {
                  return <Row />;
                }));
                const total = [1, 2].map((n) => n * 2);
                """,
        }
    )
    repo.commit()
    assert repo.kg("update").code == 0
    symbols = {i: n["kind"] for i, n in repo.nodes().items() if "span" in n}
    assert symbols == {
        "ui.tsx::label": "function",
        "ui.tsx::Row": "function",
        "ui.tsx::Field": "function",
    }
    calls = {(e["src"], e["dst"], e["line"]) for e in repo.edges("calls")}
    assert calls == {("ui.tsx::Row", "ui.tsx::label", 7), ("ui.tsx::Field", "ui.tsx::Row", 9)}


WORKSPACE = {
    "package.json": '{"name": "acme-root", "private": true, "workspaces": ["packages/*"]}\n',
    "packages/ui/package.json": '{"name": "@acme/ui", "main": "dist/index.js"}\n',
    "packages/ui/src/index.ts": "export { button } from './button';\n",
    "packages/ui/src/button.ts": "export function button(): string {\n  return 'b';\n}\n",
    "packages/ui/src/theme.ts": "export function theme(): string {\n  return 't';\n}\n",
    "packages/app/package.json": '{"name": "@acme/app", "source": "src/main.ts"}\n',
    "packages/app/src/main.ts": (
        "import { button } from '@acme/ui';\n"
        "import { theme } from '@acme/ui/theme';\n"
        "import { render } from 'react-dom';\n"
        "export function main(): void {\n"
        "  render(button() + theme());\n"
        "}\n"
    ),
    "examples/copy/package.json": '{"name": "@acme/dup"}\n',
    "examples/copy2/package.json": '{"name": "@acme/dup"}\n',
    "examples/copy/index.ts": "import { x } from '@acme/dup';\nexport const y = x;\n",
}


def test_imports_of_workspace_packages_bind_to_their_files(repo: Repo) -> None:
    repo.build(WORKSPACE)
    assert repo.edge_rows("imports") == [
        ("examples/copy/index.ts", "ext:npm:@acme/dup", "EXTRACTED", 1),  # two claim the name
        ("packages/app/src/main.ts", "ext:npm:react-dom", "EXTRACTED", 3),
        ("packages/app/src/main.ts", "packages/ui/src/index.ts", "EXTRACTED", 1),
        ("packages/app/src/main.ts", "packages/ui/src/theme.ts", "EXTRACTED", 2),
        ("packages/ui/src/index.ts", "packages/ui/src/button.ts", "EXTRACTED", 1),
    ]
    calls = [row for row in repo.edge_rows("calls") if row[0].startswith("packages/app")]
    assert calls == [
        ("packages/app/src/main.ts::main", "packages/ui/src/button.ts::button", "EXTRACTED", 5),
        ("packages/app/src/main.ts::main", "packages/ui/src/theme.ts::theme", "EXTRACTED", 5),
    ]


def test_renaming_a_workspace_package_rebinds_its_importers(repo: Repo) -> None:
    repo.build(WORKSPACE)
    repo.write("packages/ui/package.json", '{"name": "@acme/widgets"}\n')
    assert repo.kg("update").code == 0
    incremental = repo.layer1()
    assert ("packages/app/src/main.ts", "ext:npm:@acme/ui", "EXTRACTED", 1) in repo.edge_rows(
        "imports"
    )
    assert repo.fresh_build() == incremental


def test_a_call_on_a_new_expression_binds_to_the_created_class(repo: Repo) -> None:
    repo.build(
        {
            "store.ts": "export class Store {\n  save(): void {}\n}\n",
            "main.ts": (
                "import { Store } from './store';\n"
                "export function main(): void {\n"
                "  new Store().save();\n"
                "  new Map().get('x');\n"
                "}\n"
            ),
        }
    )
    assert repo.edge_rows("calls") == [
        ("main.ts::main", "store.ts::Store", "EXTRACTED", 3),
        ("main.ts::main", "store.ts::Store.save", "EXTRACTED", 3),
    ]
    assert repo.nodes()["main.ts::main"]["external_calls"] == 2  # new Map(), and its get


def test_valid_import_types_the_grammar_cannot_parse_are_a_parser_limitation(
    repo: Repo,
) -> None:
    repo.write_files(
        {
            "src/x.ts": "export interface B<T> { v: T }\nexport const x = 1;\n",
            # Valid TypeScript: these parse, and stay ok.
            "src/fine.ts": (
                'type Q = typeof import("./x");\n'
                'let y: typeof import("./x").x;\n'
                'type K = keyof typeof import("./x");\n'
            ),
            # Valid TypeScript the bundled grammar fails on: type arguments after import(...).
            "src/limited.ts": (
                'let a: import("./x").B<string>;\n'
                "export function run(): number {\n"
                "  return 1;\n"
                "}\n"
                'function f(m: import("./x").B<number>) {}\n'
            ),
            # A real syntax error stays one, even next to the limitation.
            "src/both.ts": 'let a: import("./x").B<string>;\nlet = ;\n',
        }
    )
    repo.commit()
    result = repo.kg("update")
    assert result.code == 0, result.err
    nodes = repo.nodes()
    assert nodes["src/fine.ts"]["status"] == "ok"
    limited = nodes["src/limited.ts"]
    assert limited["status"] == "partial" and limited["partial"] == "parser-limitation"
    assert "src/limited.ts::run" in nodes  # what follows is still read
    limited_line = next(x for x in result.out.splitlines() if x.startswith("src/limited.ts:"))
    assert limited_line.startswith(
        "src/limited.ts:1: warning: R104 partially parsed: parser limitation at line 1, 5, "
        "not a syntax error"
    )
    both = nodes["src/both.ts"]
    assert both["status"] == "partial" and "partial" not in both
    assert "warning: R103 partially parsed: syntax errors at line" in result.out


def test_a_type_alias_is_a_symbol_that_no_call_binds_to_by_name(repo: Repo) -> None:
    built = repo.build(
        {
            "src/kinds.ts": 'export type Known =\n  | "a"\n  | "b";\n\n'
            "export type Pair<T> = [T, T];\n",
            "src/use.ts": 'import { Known } from "./kinds";\n\n'
            "export function run(kind: Known): void {\n  Pair(kind);\n}\n",
        }
    )
    nodes = built.nodes()
    symbols = {i: (n["kind"], tuple(n["span"])) for i, n in nodes.items() if "span" in n}
    assert symbols == {
        # A change that adds a union member edits Known: the miner's steps can say so.
        "src/kinds.ts::Known": ("type", (1, 3)),
        "src/kinds.ts::Pair": ("type", (5, 5)),
        "src/use.ts::run": ("function", (3, 5)),
    }
    # Pair() is no call of the type: a type is never called, so its name binds nothing.
    assert [e for e in built.edges("calls") if e.get("dst", "").startswith("src/kinds.ts")] == []


def test_an_awaited_call_with_type_arguments_binds_as_the_same_call_without_await(
    repo: Repo,
) -> None:
    # The grammar reads `await c.fetch<T>(...)` as a call of `await c.fetch`: the callee is
    # still c.fetch, and the awaited result still gives `got` its type.
    built = repo.build(
        {
            "src/client.ts": """\
                export class Page {
                  render(): string { return ""; }
                }

                export class Client {
                  async fetch<T>(url: string): Promise<T> { return null as T; }
                  async page(): Promise<Page> { return new Page(); }
                }

                export async function run(c: Client): Promise<void> {
                  await c.fetch<string>("x");
                  c.fetch<string>("y");
                  const got = await c.page<Page>();
                  got.render();
                }
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["line"]) for e in built.edges("calls")}
    run, client = "src/client.ts::run", "src/client.ts::Client"
    assert calls == {
        (run, f"{client}.fetch", 11),
        (run, f"{client}.fetch", 12),
        (run, f"{client}.page", 13),
        (run, "src/client.ts::Page.render", 14),
        (f"{client}.page", "src/client.ts::Page", 7),
    }
    assert "unresolved_calls" not in built.nodes()[run]


def test_a_function_held_in_a_parameter_or_a_member_is_no_same_named_function(
    repo: Repo,
) -> None:
    built = repo.build(
        {
            "src/other.ts": """\
                export function done(x: number): number { return x; }
                export class PackageManager {
                  resolve(name: string): string { return name; }
                }
                export class Fancy {
                  bold(s: string): string { return s; }
                  shout(s: string): string { return s; }
                  tint(s: string): string { return s; }
                }
                """,
            "src/app.ts": """\
                interface Theme {
                  bold: (s: string) => string;
                  shout: (s: string) => string;
                }
                interface Palette {
                  tint: (s: string) => string;
                }
                class Loud implements Theme {
                  bold = (s: string): string => s;
                  shout(s: string): string { return s; }
                }
                export function run(done: (e?: Error) => void, ...rest: Array<() => void>): void {
                  done();
                  rest[0]();
                }
                export function wait(): Promise<number> {
                  return new Promise((resolve) => {
                    resolve(1);
                  });
                }
                export class View {
                  theme: Theme;
                  palette: Palette;
                  constructor(theme: Theme, palette: Palette) {
                    this.theme = theme;
                    this.palette = palette;
                  }
                  paint(): string { return this.theme.bold("x") + this.theme.shout("y"); }
                  tint(): string { return this.palette.tint("z"); }
                }
                """,
            "src/plain.js": "export function later(done = null) {\n  done();\n}\n",
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    assert calls == {
        # Loud is the one class implementing Theme: its members are what the calls reach,
        # Fancy's methods of the same names are not.
        ("src/app.ts::View.paint", "src/app.ts::Loud.bold", "INFERRED"),
        ("src/app.ts::View.paint", "src/app.ts::Loud.shout", "INFERRED"),
    }
    nodes = built.nodes()
    assert nodes["src/app.ts::run"]["unresolved_calls"] == {"done": 1, "?": 1}
    assert nodes["src/app.ts::wait"]["unresolved_calls"] == {"resolve": 1}
    assert nodes["src/app.ts::View.tint"]["unresolved_calls"] == {"tint": 1}  # no Fancy.tint
    assert nodes["src/plain.js::later"]["unresolved_calls"] == {"done": 1}


def test_super_of_a_base_from_outside_is_an_external_call(repo: Repo) -> None:
    built = repo.build(
        {
            "src/stream.ts": "export class EventStream {\n  close(): void {}\n}\n",
            "src/sink.ts": """\
                import { Writable } from "stream";
                import { EventStream } from "./stream";

                export class Sink extends Writable {
                  close(): void {
                    super.close();
                  }
                }

                export class Tap extends EventStream {
                  close(): void {
                    super.close();
                  }
                }
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    # Not an AMBIGUOUS edge listing Sink.close itself and EventStream.close.
    assert calls == {("src/sink.ts::Tap.close", "src/stream.ts::EventStream.close", "EXTRACTED")}
    assert built.nodes()["src/sink.ts::Sink.close"]["external_calls"] == 1


def test_a_name_exported_by_name_outranks_the_same_name_a_star_export_brings(
    repo: Repo,
) -> None:
    repo.build(
        {
            "core/client.ts": "export class Client {\n  fetch(): void {}\n}\n",
            "core/index.ts": "export * from './client'\n",
            "react/client.ts": (
                "import { Client as Base } from '../core'\n"
                "export class Client extends Base {\n  mount(): void {}\n}\n"
            ),
            # The star export first: the module's own export of the name still wins.
            "react/index.ts": "export * from '../core'\nexport { Client } from './client'\n",
            "app.ts": "import { Client } from './react'\nexport const app = () => new Client()\n",
        }
    )
    assert ("app.ts::app", "react/client.ts::Client", "EXTRACTED", 2) in repo.edge_rows("calls")
    assert ("app.ts::app", "core/client.ts::Client", "EXTRACTED", 2) not in repo.edge_rows("calls")


EXTERNAL_RECEIVERS = {
    "bus.ts": """\
        export class Bus {
          emit(event: string): void {}
          remove(): void {}
          transaction(): void {}
          run(): void {}
        }
        export class Queue {
          emit(event: string): void {}
          remove(): void {}
          transaction(): void {}
          run(): void {}
        }
        """,
    "stdin.ts": """\
        import { EventEmitter } from "events";
        type Events = { data: [string] };
        export class StdinBuffer extends EventEmitter<Events> {
          private frame?: HTMLIFrameElement;
          flush(): void {
            this.emit("data", "x");
            this.frame?.remove();
          }
          private async open(): Promise<IDBDatabase> {
            return null as unknown as IDBDatabase;
          }
          async save(): Promise<void> {
            const db = await this.open();
            db.transaction();
          }
          start(): void {
            this.run();  // defined below, in a subclass: not surely the base's
          }
        }
        export class Lines extends StdinBuffer {
          run(): void {}
        }
        export function each<T>(item: T): void {
          (item as T).toString();
          pick(item);
        }
        function pick<Bus>(value: Bus): void {
          value.transaction();  // a type parameter named as a class is no class
        }
        """,
}


def test_a_receiver_of_a_platform_type_or_an_outside_base_makes_an_external_call(
    repo: Repo,
) -> None:
    repo.build(EXTERNAL_RECEIVERS)
    calls = {(r[0], r[1], r[2]) for r in repo.edge_rows("calls") if r[0].startswith("stdin.ts")}
    assert calls == {
        ("stdin.ts::StdinBuffer.save", "stdin.ts::StdinBuffer.open", "EXTRACTED"),
        # A subclass defines it: guessed by the name, as ever.
        (
            "stdin.ts::StdinBuffer.start",
            ("bus.ts::Bus.run", "bus.ts::Queue.run", "stdin.ts::Lines.run"),
            "AMBIGUOUS",
        ),
        ("stdin.ts::each", "stdin.ts::pick", "EXTRACTED"),
        # By the method's name alone, as before a type parameter was told from a class.
        ("stdin.ts::pick", ("bus.ts::Bus.transaction", "bus.ts::Queue.transaction"), "AMBIGUOUS"),
    }
    nodes = repo.nodes()
    assert nodes["stdin.ts::StdinBuffer.flush"]["external_calls"] == 2  # emit, remove
    assert nodes["stdin.ts::StdinBuffer.save"]["external_calls"] == 1  # transaction
