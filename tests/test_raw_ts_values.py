"""Layer 1 for TypeScript and JavaScript: calls bound through values, construct by construct,
exact edges and tiers.

A call on a value is INFERRED at 0.95 when the value's type follows from a declared type (a
parameter's, a field's, an interface property's, a function's return type), a constructor, a
function's result, or another name holding it. A call of an interface's or an abstract member
also reaches the methods implementing it: the only one INFERRED (0.8 times the member's own
confidence), several AMBIGUOUS. A value nothing types (an untyped parameter, `any`, a computed
member) binds through no type: a guess by the method's name at most.
"""

from __future__ import annotations

from conftest import Repo

STORE = """\
    export interface Store {
      save(key: string): void;
      keys(): string[];
    }

    export class DiskStore implements Store {
      save(key: string): void {}
      keys(): string[] {
        return [];
      }
      flush(): void {}
    }
    """

OPEN_STORE = "\nexport function openStore(): {type} {{\n  return new DiskStore();\n}}\n"


def calls_of(repo: Repo, src: str) -> set[tuple]:
    """(callee, tier, line) of each call edge out of ``src``; AMBIGUOUS ones list candidates."""
    return {
        (edge.get("dst") or tuple(edge["candidates"]), edge["tier"], edge["line"])
        for edge in repo.edges("calls")
        if edge["src"] == src
    }


def confidences_of(repo: Repo, src: str) -> dict[tuple[str, int], float]:
    return {
        (edge["dst"], edge["line"]): edge["confidence"]
        for edge in repo.edges("calls")
        if edge["src"] == src and edge["tier"] == "INFERRED"
    }


def test_declared_parameter_types(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/report.ts": """\
                import { DiskStore } from "./store";
                import * as stores from "./store";

                export function summary(
                  disk: DiskStore,
                  maybe?: DiskStore,
                  either: DiskStore | undefined = undefined,
                  named: stores.DiskStore | null = null,
                  frozen: Readonly<DiskStore> = disk,
                ): void {
                  disk.flush();
                  maybe?.flush();
                  either!.flush();
                  named?.flush();
                  frozen.keys();
                }
                """,
        }
    )
    disk = "src/store.ts::DiskStore"
    assert calls_of(repo, "src/report.ts::summary") == {
        (f"{disk}.flush", "INFERRED", 11),
        (f"{disk}.flush", "INFERRED", 12),  # an optional parameter
        (f"{disk}.flush", "INFERRED", 13),  # T | undefined, and a non-null assertion
        (f"{disk}.flush", "INFERRED", 14),  # a type named through a namespace import
        (f"{disk}.keys", "INFERRED", 15),  # Readonly<T> is a T
    }
    assert set(confidences_of(repo, "src/report.ts::summary").values()) == {0.95}


def test_return_types_and_calls_on_results(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE
            + """\

    export function openDisk(): DiskStore {
      return new DiskStore();
    }

    export async function loadDisk(): Promise<DiskStore> {
      return openDisk();
    }

    export const makeDisk = () => new DiskStore();

    export class Registry {
      static shared(): Registry {
        return new Registry();
      }

      disk(): DiskStore {
        return openDisk();
      }

      get current(): DiskStore {
        return openDisk();
      }
    }
    """,
            "src/main.ts": """\
                import { loadDisk, makeDisk, openDisk, Registry } from "./store";

                export async function main(): Promise<void> {
                  openDisk().flush();
                  (await loadDisk()).flush();
                  const loaded = await loadDisk();
                  loaded.flush();
                  makeDisk().flush();
                  Registry.shared().disk().flush();
                  const disk = openDisk();
                  disk.keys();
                }
                """,
        }
    )
    store = "src/store.ts"
    assert calls_of(repo, "src/main.ts::main") == {
        (f"{store}::openDisk", "EXTRACTED", 4),
        (f"{store}::DiskStore.flush", "INFERRED", 4),  # openDisk(): DiskStore
        (f"{store}::loadDisk", "EXTRACTED", 5),
        (f"{store}::DiskStore.flush", "INFERRED", 5),  # await of a Promise<DiskStore>
        (f"{store}::loadDisk", "EXTRACTED", 6),
        (f"{store}::DiskStore.flush", "INFERRED", 7),
        (f"{store}::makeDisk", "EXTRACTED", 8),
        (f"{store}::DiskStore.flush", "INFERRED", 8),  # an arrow returning `new DiskStore()`
        (f"{store}::Registry.shared", "EXTRACTED", 9),
        (f"{store}::Registry.disk", "INFERRED", 9),  # a chain of results
        (f"{store}::DiskStore.flush", "INFERRED", 9),
        (f"{store}::openDisk", "EXTRACTED", 10),
        (f"{store}::DiskStore.keys", "INFERRED", 11),
    }


def test_locals_from_constructors(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/use.ts": """\
                import { DiskStore } from "./store";

                const shared = new DiskStore();
                shared.flush();

                export function work(): void {
                  const disk = new DiskStore();
                  disk.flush();
                  let other: DiskStore;
                  other = new DiskStore();
                  other.keys();
                }
                """,
            "src/plain.js": """\
                import { DiskStore } from "./store";

                export function make() {
                  return new DiskStore();
                }

                export function go() {
                  const disk = new DiskStore();
                  disk.flush();
                  const made = make();
                  made.keys();
                }
                """,
        }
    )
    disk = "src/store.ts::DiskStore"
    assert calls_of(repo, "src/use.ts") == {
        (disk, "EXTRACTED", 3),
        (f"{disk}.flush", "INFERRED", 4),
    }
    assert calls_of(repo, "src/use.ts::work") == {
        (disk, "EXTRACTED", 7),
        (f"{disk}.flush", "INFERRED", 8),
        (disk, "EXTRACTED", 10),
        (f"{disk}.keys", "INFERRED", 11),
    }
    # JavaScript: constructors, and a function's result when it returns a constructed class.
    assert calls_of(repo, "src/plain.js::go") == {
        (disk, "EXTRACTED", 8),
        (f"{disk}.flush", "INFERRED", 9),
        ("src/plain.js::make", "EXTRACTED", 10),
        (f"{disk}.keys", "INFERRED", 11),
    }


def test_typed_fields_parameter_properties_and_interface_properties(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/service.ts": """\
                import { DiskStore } from "./store";

                function openDisk(): DiskStore {
                  return new DiskStore();
                }

                export interface Deps {
                  disk: DiskStore;
                }

                export class Service {
                  private backup: DiskStore;
                  private cached = openDisk();
                  #spare = new DiskStore();
                  private mirror;

                  constructor(private readonly primary: DiskStore, mirror: DiskStore) {
                    this.backup = new DiskStore();
                    this.mirror = mirror;
                  }

                  run(deps: Deps): void {
                    this.primary.flush();
                    this.backup.flush();
                    this.cached.flush();
                    this.#spare.flush();
                    this.mirror.flush();
                    deps.disk.flush();
                  }
                }

                export function drive(service: Service): void {
                  service.cached.keys();
                }
                """,
        }
    )
    flush = "src/store.ts::DiskStore.flush"
    assert calls_of(repo, "src/service.ts::Service.run") == {
        (flush, "INFERRED", 23),  # a constructor's parameter property
        (flush, "INFERRED", 24),  # a declared field
        (flush, "INFERRED", 25),  # a field set from a function's result
        (flush, "INFERRED", 26),  # a private field set from a constructor
        (flush, "INFERRED", 27),  # a field set from a declared parameter
        (flush, "INFERRED", 28),  # an interface's property
    }
    assert calls_of(repo, "src/service.ts::drive") == {
        ("src/store.ts::DiskStore.keys", "INFERRED", 33),
    }


def test_elements_of_declared_arrays_and_getters(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/fleet.ts": """\
                import { DiskStore } from "./store";

                export class Fleet {
                  private disks: DiskStore[] = [];

                  get primary(): DiskStore {
                    return this.disks[0];
                  }

                  flushAll(extra: DiskStore[], names: string[]): void {
                    for (const disk of this.disks) {
                      disk.flush();
                    }
                    for (const disk of extra) disk.keys();
                    for (const name of names) name.flush();
                    for (const index in extra) index.flush();
                    this.primary.flush();
                  }
                }
                """,
        }
    )
    disk = "src/store.ts::DiskStore"
    assert calls_of(repo, "src/fleet.ts::Fleet.flushAll") == {
        (f"{disk}.flush", "INFERRED", 12),  # an element of a declared field's array
        (f"{disk}.keys", "INFERRED", 14),  # of a declared parameter's array
        # A string's own calls are outside (line 15); for..in gives keys, not elements: a
        # guess by name only (line 16).
        (f"{disk}.flush", "INFERRED", 16),
        (f"{disk}.flush", "INFERRED", 17),  # a getter's declared type
    }
    confidences = confidences_of(repo, "src/fleet.ts::Fleet.flushAll")
    assert confidences[(f"{disk}.flush", 16)] == 0.94
    assert confidences[(f"{disk}.flush", 17)] == 0.95
    assert repo.nodes()["src/fleet.ts::Fleet.flushAll"]["external_calls"] == 1


def test_interface_members_reach_their_implementations(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/clock.ts": """\
                export interface Clock {
                  now(): number;
                }

                export interface Named {
                  name(): string;
                }

                export interface Timer extends Clock {
                  stop(): void;
                }

                export class SystemClock implements Timer, Named {
                  now(): number {
                    return Date.now();
                  }
                  stop(): void {}
                  name(): string {
                    return "system";
                  }
                }

                export class FixedClock implements Clock {
                  now(): number {
                    return 0;
                  }
                }

                export class SlowClock extends FixedClock {}
                """,
            "src/use.ts": """\
                import type { Store } from "./store";
                import type { Clock, Named, Timer } from "./clock";

                export function use(store: Store, clock: Clock, timer: Timer, named: Named): void {
                  store.save("k");
                  clock.now();
                  timer.now();
                  timer.stop();
                  named.name();
                }
                """,
        }
    )
    clock = "src/clock.ts"
    assert calls_of(repo, "src/use.ts::use") == {
        ("src/store.ts::Store.save", "INFERRED", 5),
        ("src/store.ts::DiskStore.save", "INFERRED", 5),  # the only implementation
        (f"{clock}::Clock.now", "INFERRED", 6),
        # Two classes implement now(); SlowClock inherits FixedClock's.
        ((f"{clock}::FixedClock.now", f"{clock}::SystemClock.now"), "AMBIGUOUS", 6),
        (f"{clock}::Clock.now", "INFERRED", 7),  # inherited by the interface Timer
        (f"{clock}::SystemClock.now", "INFERRED", 7),  # the only class implementing Timer
        (f"{clock}::Timer.stop", "INFERRED", 8),
        (f"{clock}::SystemClock.stop", "INFERRED", 8),
        (f"{clock}::Named.name", "INFERRED", 9),
        (f"{clock}::SystemClock.name", "INFERRED", 9),
    }
    confidences = confidences_of(repo, "src/use.ts::use")
    assert confidences[("src/store.ts::Store.save", 5)] == 0.95
    assert confidences[("src/store.ts::DiskStore.save", 5)] == 0.76


def test_abstract_members_reach_their_implementations(repo: Repo) -> None:
    repo.build(
        {
            "src/job.ts": """\
                export abstract class Job {
                  protected abstract step(): void;
                  describe(): string { return "abstract work, in a concrete method"; }

                  run(): void {
                    this.step();
                    this.describe();
                  }
                }

                export abstract class Middle extends Job {}

                export class Print extends Middle {
                  protected step(): void {}
                }

                export class Special extends Job {
                  describe(): string {
                    return "overridden";
                  }
                  protected step(): void {}
                }
                """,
        }
    )
    job = "src/job.ts"
    assert calls_of(repo, f"{job}::Job.run") == {
        (f"{job}::Job.step", "EXTRACTED", 6),
        ((f"{job}::Print.step", f"{job}::Special.step"), "AMBIGUOUS", 6),
        # A concrete method with an override: bound to itself only.
        (f"{job}::Job.describe", "EXTRACTED", 7),
    }


def test_barrel_re_exports_bind_types_and_calls(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/model/user.ts": """\
                export class User {
                  rename(name: string): User {
                    return this;
                  }
                }
                export function makeUser(): User {
                  return new User();
                }
                """,
            "src/model/index.ts": 'export * from "./user";\n',
            "src/index.ts": """\
                export * from "./model";
                export { DiskStore as Disk } from "./store";
                """,
            "app/main.ts": """\
                import { Disk, makeUser, User } from "../src";

                export function main(user: User, disk: Disk): void {
                  makeUser().rename("a").rename("b");
                  user.rename("c");
                  disk.flush();
                }
                """,
        }
    )
    user = "src/model/user.ts"
    assert calls_of(repo, "app/main.ts::main") == {
        (f"{user}::makeUser", "EXTRACTED", 4),  # through two barrels
        (f"{user}::User.rename", "INFERRED", 4),  # rename(): User, twice on one line
        (f"{user}::User.rename", "INFERRED", 5),
        ("src/store.ts::DiskStore.flush", "INFERRED", 6),  # a type renamed by a re-export
    }


def test_values_nothing_types_stay_unbound(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/dyn.ts": """\
                import { DiskStore } from "./store";

                export function handle(
                  handler,
                  loose: any,
                  vague: unknown,
                  name: string,
                  table: Map<string, DiskStore>,
                  list: DiskStore[],
                  disk: DiskStore,
                ): void {
                  handler.process(name);
                  loose.process(name);
                  (vague as DiskStore).process();
                  disk[name]();
                  name.process();
                  table.process();
                  list.process();
                  const first = list.find(Boolean);
                  first.other();
                }

                export class Other {
                  process(): void {}
                  other(): void {}
                }
                """,
        }
    )
    node = repo.nodes()["src/dyn.ts::handle"]
    # Untyped and `any` bind through no type: Other.process, the only method of that name,
    # is a guess by name (0.94), never a typed binding; a call on a cast and a computed
    # member are unresolved.
    assert calls_of(repo, "src/dyn.ts::handle") == {
        ("src/dyn.ts::Other.process", "INFERRED", 12),
        ("src/dyn.ts::Other.process", "INFERRED", 13),
        # What an array's method gives back may be one of the repository's objects: not
        # typed (the element type is not followed), so a guess by name, not an external call.
        ("src/dyn.ts::Other.other", "INFERRED", 20),
    }
    assert set(confidences_of(repo, "src/dyn.ts::handle").values()) == {0.94}
    assert node["unresolved_calls"] == {"?": 1, "process": 1}
    # A string, a Map and an array are typed outside the repository: their calls are
    # external, never the repository's `process`.
    assert node["external_calls"] == 4  # list.find too


def test_a_changed_return_type_or_field_type_rebinds_callers_in_other_files(
    repo: Repo,
) -> None:
    repo.build(
        {
            "src/store.ts": STORE + OPEN_STORE.format(type="Store"),
            "src/holder.ts": """\
                import { Store } from "./store";

                export class Holder {
                  store: Store;
                }
                """,
            "src/main.ts": """\
                import { openStore } from "./store";
                import { Holder } from "./holder";

                export function main(holder: Holder): void {
                  openStore().save("a");
                  holder.store.save("b");
                }
                """,
        }
    )
    store = "src/store.ts"
    assert calls_of(repo, "src/main.ts::main") == {
        (f"{store}::openStore", "EXTRACTED", 5),
        (f"{store}::Store.save", "INFERRED", 5),
        (f"{store}::DiskStore.save", "INFERRED", 5),
        (f"{store}::Store.save", "INFERRED", 6),
        (f"{store}::DiskStore.save", "INFERRED", 6),
    }
    repo.write("src/store.ts", STORE + OPEN_STORE.format(type="DiskStore"))
    repo.write(
        "src/holder.ts",
        'import { DiskStore } from "./store";\n\nexport class Holder {\n  store: DiskStore;\n}\n',
    )
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "src/main.ts::main") == {
        (f"{store}::openStore", "EXTRACTED", 5),
        (f"{store}::DiskStore.save", "INFERRED", 5),
        (f"{store}::DiskStore.save", "INFERRED", 6),
    }
    assert set(confidences_of(repo, "src/main.ts::main").values()) == {0.95}
    assert repo.layer1() == repo.fresh_build()


def test_a_new_implementation_rebinds_callers_of_the_interface(repo: Repo) -> None:
    repo.build(
        {
            "src/store.ts": STORE,
            "src/use.ts": """\
                import type { Store } from "./store";

                export function use(store: Store): void {
                  store.keys();
                }
                """,
        }
    )
    assert calls_of(repo, "src/use.ts::use") == {
        ("src/store.ts::Store.keys", "INFERRED", 4),
        ("src/store.ts::DiskStore.keys", "INFERRED", 4),
    }
    repo.write(
        "src/memory.ts",
        """\
        import type { Store } from "./store";

        export class MemoryStore implements Store {
          save(key: string): void {}
          keys(): string[] {
            return [];
          }
        }
        """,
    )
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "src/use.ts::use") == {
        ("src/store.ts::Store.keys", "INFERRED", 4),
        (("src/memory.ts::MemoryStore.keys", "src/store.ts::DiskStore.keys"), "AMBIGUOUS", 4),
    }
    assert repo.layer1() == repo.fresh_build()


def test_a_method_named_as_a_builtin_objects_is_not_guessed_for_an_untyped_value(
    repo: Repo,
) -> None:
    """`items.push(x)` on an untyped value is an array's far more often than the one `push`
    the repository defines; a typed value still binds, a name no builtin has is still guessed."""
    repo.build(
        {
            "src/queue.ts": """\
                export class Queue {
                  push(item: string): void {}
                  drain(): void {}
                }
                """,
            "src/app.ts": """\
                import { Queue } from "./queue";

                export function fill(items, other, queue: Queue) {
                  items.push("a");
                  other.drain();
                  queue.push("b");
                }
                """,
        }
    )
    rows = {r for r in repo.edge_rows("calls") if r[0] == "src/app.ts::fill"}
    assert rows == {
        ("src/app.ts::fill", "src/queue.ts::Queue.drain", "INFERRED", 5),
        ("src/app.ts::fill", "src/queue.ts::Queue.push", "INFERRED", 6),
    }
    node = next(r for r in repo.raw() if r.get("id") == "src/app.ts::fill")
    assert node["unresolved_calls"] == {"push": 1}


def test_a_files_facts_are_the_same_in_every_process() -> None:
    """A declared type and a constructor give one variable two facts on one line: their order
    in the cache must not follow the process's string hashing (PYTHONHASHSEED)."""
    import json
    import os
    import subprocess
    import sys

    source = "".join(
        f"const store{n}: Store = new DiskStore();\nlet other{n}: Store = openStore();\n"
        for n in range(8)
    )
    program = (
        "import json, sys\n"
        "from kgtool.raw.languages import language_for_path\n"
        "facts = language_for_path('a.ts').extract('a.ts', sys.stdin.buffer.read())\n"
        "print(json.dumps(facts.to_json(), sort_keys=True))\n"
    )
    seen = set()
    for seed in ("1", "2", "3", "4"):
        done = subprocess.run(
            [sys.executable, "-c", program],
            input=source.encode(),
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        seen.add(done.stdout)
    assert len(seen) == 1
    assigns = json.loads(seen.pop())["assigns"]
    assert len(assigns) == 32  # each variable: its stated type and its constructor or call


def test_return_types_are_those_of_functions_never_of_a_callable_type() -> None:
    """Every node with a return type is matched by one pattern (see typescript.scm): an
    interface's call signature inside a function states no return type of that function."""
    from kgtool.raw.languages import language_for_path
    from kgtool.raw.model import RETURNS, STATED

    source = b"""\
function outer() {
  interface Callable { (x: number): Widget; }
  return 1;
}
function made(): Widget { return new Widget(); }
class Shop { open(): Store { return openStore(); } get store(): Store { return this.s; } }
const arrow = (): Widget => null;
"""
    facts = language_for_path("a.ts").extract("a.ts", source)
    stated = {(a.scope, a.callee) for a in facts.assigns if a.var == RETURNS and a.kind == STATED}
    assert stated == {
        ("made", "Widget"),
        ("Shop.open", "Store"),
        ("Shop.store", "Store"),
        ("arrow", "Widget"),
    }
