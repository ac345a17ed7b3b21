"""Layer 1 for Python: calls bound through values, construct by construct, exact edges and tiers.

A call on a value is INFERRED at 0.95 when the value's type follows from a stated type
(parameter, attribute, return annotation), an attribute set through ``self``, a constructor or
a function's result, or an alias (``f = g``); it stays unresolved, or a guess by name alone,
when nothing states it (an untyped parameter, ``getattr``).
"""

from __future__ import annotations

from conftest import Repo

STORE = """\
    class Store:
        def save(self, key):
            return key

        def keys(self):
            return []


    class DiskStore(Store):
        def flush(self):
            pass
    """


def calls_of(repo: Repo, src: str) -> set[tuple]:
    """(callee, tier, line) of each call edge out of ``src``; AMBIGUOUS ones list candidates."""
    return {
        (edge.get("dst") or tuple(edge["candidates"]), edge["tier"], edge["line"])
        for edge in repo.edges("calls")
        if edge["src"] == src
    }


def test_attributes_set_in_init_and_stated_in_the_class_body(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE,
            "service.py": """\
                from store import DiskStore, Store


                class Service:
                    backup: Store

                    def __init__(self, store: Store) -> None:
                        self.store = store
                        self.disk = DiskStore()
                        self.data: dict[str, str] = {}

                    def run(self) -> None:
                        self.store.save("k")
                        self.disk.flush()
                        self.backup.keys()
                        self.data.keys()
                """,
        }
    )
    assert calls_of(repo, "service.py::Service.run") == {
        ("store.py::Store.save", "INFERRED", 13),  # annotated __init__ parameter, aliased
        ("store.py::DiskStore.flush", "INFERRED", 14),  # set from a constructor
        ("store.py::Store.keys", "INFERRED", 15),  # stated in the class body
        # line 16: a builtin-typed attribute never binds to the repository's own `keys`
    }
    run = repo.nodes()["service.py::Service.run"]
    assert run["external_calls"] == 1 and "unresolved_calls" not in run
    edge = next(e for e in repo.edges("calls") if e["src"] == "service.py::Service.run")
    assert edge["confidence"] == 0.95


def test_annotated_parameters_and_optional_types(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE,
            "report.py": """\
                from typing import Optional

                from store import DiskStore, Store


                def summary(store: Store, disk: "DiskStore", other: Optional[DiskStore]) -> int:
                    store.keys()
                    disk.flush()
                    other.flush()
                    return 0


                def maybe(store: Store | None = None) -> None:
                    store.save(1)
                """,
        }
    )
    assert calls_of(repo, "report.py::summary") == {
        ("store.py::Store.keys", "INFERRED", 7),
        ("store.py::DiskStore.flush", "INFERRED", 8),
        ("store.py::DiskStore.flush", "INFERRED", 9),
    }
    assert calls_of(repo, "report.py::maybe") == {("store.py::Store.save", "INFERRED", 14)}


def test_locals_from_constructors_and_functions_in_functions_modules_and_class_bodies(
    repo: Repo,
) -> None:
    repo.build(
        {
            "store.py": STORE,
            "app.py": """\
                from store import DiskStore, Store


                def helper():
                    pass


                def work():
                    disk = DiskStore()
                    disk.flush()
                    run = helper
                    run()


                shared = DiskStore()
                shared.flush()
                alias = helper
                alias()


                class Registry:
                    default = Store()
                    default.keys()

                    def method(self):
                        default.keys()
                """,
        }
    )
    rows = set(repo.edge_rows("calls"))
    assert ("app.py::work", "store.py::DiskStore.flush", "INFERRED", 10) in rows
    assert ("app.py::work", "app.py::helper", "INFERRED", 12) in rows
    assert ("app.py", "store.py::DiskStore.flush", "INFERRED", 16) in rows
    assert ("app.py", "app.py::helper", "INFERRED", 18) in rows
    assert ("app.py::Registry", "store.py::Store.keys", "INFERRED", 23) in rows
    # A class body's names are not in scope inside its methods: a guess by name at most, and
    # not even that for `keys`, which every dict answers to.
    assert [r for r in rows if r[0] == "app.py::Registry.method"] == []
    node = next(r for r in repo.raw() if r.get("id") == "app.py::Registry.method")
    assert node["unresolved_calls"] == {"keys": 1}


def test_return_values_annotated_or_constructed(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE
            + """\


    def open_store() -> Store:
        return DiskStore()


    def make_disk():
        return DiskStore()
    """,
            "main.py": """\
                import store as st
                from store import make_disk, open_store


                def main():
                    open_store().keys()
                    make_disk().flush()
                    st.make_disk().flush()
                    disk = make_disk()
                    disk.flush()
                    st.Store().save(1)
                """,
        }
    )
    assert calls_of(repo, "main.py::main") == {
        ("store.py::open_store", "EXTRACTED", 6),
        ("store.py::Store.keys", "INFERRED", 6),  # the annotation outranks `return DiskStore()`
        ("store.py::make_disk", "EXTRACTED", 7),
        ("store.py::DiskStore.flush", "INFERRED", 7),
        ("store.py::make_disk", "EXTRACTED", 8),
        ("store.py::DiskStore.flush", "INFERRED", 8),
        ("store.py::make_disk", "EXTRACTED", 9),
        ("store.py::DiskStore.flush", "INFERRED", 10),
        ("store.py::Store", "EXTRACTED", 11),
        ("store.py::Store.save", "INFERRED", 11),
    }


def test_inherited_methods_through_the_bases(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE,
            "use.py": """\
                from store import DiskStore


                class Audited(DiskStore):
                    def save(self, key):
                        super().save(key)
                        self.flush()
                        return self.keys()


                def go(disk: DiskStore, audited: Audited):
                    disk.save(1)
                    audited.flush()
                """,
        }
    )
    assert calls_of(repo, "use.py::Audited.save") == {
        ("store.py::Store.save", "EXTRACTED", 6),
        ("store.py::DiskStore.flush", "EXTRACTED", 7),
        ("store.py::Store.keys", "EXTRACTED", 8),
    }
    assert calls_of(repo, "use.py::go") == {
        ("store.py::Store.save", "INFERRED", 12),
        ("store.py::DiskStore.flush", "INFERRED", 13),
    }


def test_values_nothing_states_stay_unresolved(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE,
            "dyn.py": """\
                def handle(handler, name):
                    handler.process(name)
                    getattr(handler, "save")(name)
                    make(name).process()


                class Holder:
                    def go(self):
                        self.build().flush()

                    def build(self):
                        return None


                def make(name):
                    return name
                """,
        }
    )
    assert calls_of(repo, "dyn.py::handle") == {("dyn.py::make", "EXTRACTED", 4)}
    # self.build() returns nothing typed: its flush() is not DiskStore.flush by name alone.
    assert calls_of(repo, "dyn.py::Holder.go") == {("dyn.py::Holder.build", "EXTRACTED", 9)}
    assert repo.nodes()["dyn.py::Holder.go"]["unresolved_calls"] == {"flush": 1}
    node = repo.nodes()["dyn.py::handle"]
    # An untyped parameter, getattr's result, and the result of a function returning no
    # constructed class are bound to nothing, not even by the method's name.
    assert node["unresolved_calls"] == {"?": 1, "process": 2}


def test_several_possible_types_list_their_methods_as_ambiguous(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE
            + """\


    class MemoryStore(Store):
        def flush(self):
            pass
    """,
            "pick.py": """\
                from store import DiskStore, MemoryStore


                class Holder:
                    def __init__(self, fast):
                        if fast:
                            self.store = MemoryStore()
                        else:
                            self.store = DiskStore()

                    def sync(self):
                        self.store.flush()
                        self.store.save(1)
                """,
        }
    )
    assert calls_of(repo, "pick.py::Holder.sync") == {
        (("store.py::DiskStore.flush", "store.py::MemoryStore.flush"), "AMBIGUOUS", 12),
        ("store.py::Store.save", "INFERRED", 13),  # both inherit the one save
    }


def test_a_changed_return_annotation_rebinds_its_callers_on_an_incremental_update(
    repo: Repo,
) -> None:
    repo.build(
        {
            "store.py": STORE + "\n\ndef open_store() -> Store:\n    return Store()\n",
            "main.py": "from store import open_store\n\nopen_store().flush()\n",
        }
    )
    assert calls_of(repo, "main.py") == {("store.py::open_store", "EXTRACTED", 3)}
    repo.write("store.py", STORE + "\n\ndef open_store() -> DiskStore:\n    return DiskStore()\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "main.py") == {
        ("store.py::open_store", "EXTRACTED", 3),
        ("store.py::DiskStore.flush", "INFERRED", 3),
    }
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_elsewhere_keeps_a_value_bound_through_an_unchanged_files_result(
    repo: Repo,
) -> None:
    # make() is in a file the edit neither changes nor resolves again: its result must still
    # type the value, as in a full build, not leave the call to a guess among two flushes.
    store = STORE + "\n\nclass MemoryStore(Store):\n    def flush(self):\n        pass\n"
    caller = "from factory import make\n\n\ndef go():\n    s = make()\n    s.flush()\n"
    repo.build(
        {
            "store.py": store,
            "factory.py": "from store import DiskStore\n\n\ndef make():\n    return DiskStore()\n",
            "main.py": caller,
        }
    )
    bound = {("factory.py::make", "EXTRACTED", 5), ("store.py::DiskStore.flush", "INFERRED", 6)}
    assert calls_of(repo, "main.py::go") == bound
    repo.write("main.py", caller + "\n\ndef other():\n    pass\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "main.py::go") == bound
    assert repo.layer1() == repo.fresh_build()


def test_functions_stored_in_containers_and_called_from_there(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": "def fetch():\n    pass\n\n\ndef parse():\n    pass\n",
            "run.py": """\
                from steps import fetch, parse

                STAGES = {"fetch": fetch, "parse": parse}
                ONLY = [parse]


                def run(name, registry):
                    STAGES[name]()
                    ONLY[0]()
                    registry[name]()
                    rebound = fetch
                    rebound = parse
                    rebound()
                """,
        }
    )
    assert calls_of(repo, "run.py::run") == {
        # Which one the key picks is not followed: every function the dict holds is listed.
        (("steps.py::fetch", "steps.py::parse"), "AMBIGUOUS", 8),
        ("steps.py::parse", "INFERRED", 9),
        (("steps.py::fetch", "steps.py::parse"), "AMBIGUOUS", 13),
    }
    # A parameter's subscript holds what nothing states.
    assert repo.nodes()["run.py::run"]["unresolved_calls"] == {"?": 1}


def test_an_attribute_set_in_a_base_class_types_the_subclass_s_calls(repo: Repo) -> None:
    repo.build(
        {
            "store.py": STORE,
            "base.py": """\
                from store import DiskStore


                class Base:
                    def __init__(self):
                        self.disk = DiskStore()


                class Child(Base):
                    def go(self):
                        self.disk.flush()


                def use(child: Child):
                    child.disk.save(1)
                """,
        }
    )
    assert calls_of(repo, "base.py::Child.go") == {("store.py::DiskStore.flush", "INFERRED", 11)}
    assert calls_of(repo, "base.py::use") == {("store.py::Store.save", "INFERRED", 15)}


def test_aliased_imports_relative_imports_and_re_exports_bind(repo: Repo) -> None:
    repo.build(
        {
            "pkg/__init__.py": "from .core import Engine\nfrom . import helpers\n",
            "pkg/core.py": "class Engine:\n    def run(self):\n        pass\n",
            "pkg/helpers.py": "def tidy():\n    pass\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/deep.py": "def go():\n    pass\n",
            "pkg/user.py": """\
                import pkg.sub.deep as d
                from . import helpers
                from pkg import Engine
                import pkg


                def main():
                    d.go()
                    helpers.tidy()
                    Engine().run()
                    pkg.helpers.tidy()
                    engine = pkg.Engine()
                    engine.run()
                """,
        }
    )
    assert calls_of(repo, "pkg/user.py::main") == {
        ("pkg/sub/deep.py::go", "EXTRACTED", 8),  # import a.b as c
        ("pkg/helpers.py::tidy", "EXTRACTED", 9),  # from . import x
        ("pkg/core.py::Engine", "EXTRACTED", 10),  # re-exported by pkg/__init__.py
        ("pkg/core.py::Engine.run", "INFERRED", 10),
        ("pkg/helpers.py::tidy", "EXTRACTED", 11),
        ("pkg/core.py::Engine", "EXTRACTED", 12),
        ("pkg/core.py::Engine.run", "INFERRED", 13),
    }


def test_a_method_named_as_a_builtin_types_is_not_guessed_for_a_value_of_no_known_type(
    repo: Repo,
) -> None:
    """`path.split("/")` on an untyped parameter is far likelier str's than the one `split`
    the repository defines: the name alone binds nothing. A value of a known type still binds
    to its class's method, and a name no builtin type has is still guessed."""
    repo.build(
        {
            "text.py": """\
                class Splitter:
                    def split(self, value):
                        return [value]

                    def shred(self, value):
                        return [value]
                """,
            "app.py": """\
                from text import Splitter


                def parts(path, other):
                    path.split("/")
                    other.shred("/")
                    Splitter().split("/")
                """,
        }
    )
    rows = {r for r in repo.edge_rows("calls") if r[0] == "app.py::parts"}
    assert rows == {
        ("app.py::parts", "text.py::Splitter.shred", "INFERRED", 6),
        ("app.py::parts", "text.py::Splitter", "EXTRACTED", 7),
        ("app.py::parts", "text.py::Splitter.split", "INFERRED", 7),
    }
    node = next(r for r in repo.raw() if r.get("id") == "app.py::parts")
    assert node["unresolved_calls"] == {"split": 1}


def test_a_test_s_parameter_is_typed_by_the_pytest_fixture_of_its_name(repo: Repo) -> None:
    repo.build(
        {
            "app/runner.py": """\
                class CliRunner:
                    def invoke(self, command):
                        return command


                class Command:
                    def invoke(self, ctx):
                        return ctx
                """,
            "tests/conftest.py": """\
                import pytest

                from app.runner import CliRunner, Command


                @pytest.fixture(scope="function")
                def runner():
                    return CliRunner()


                @pytest.fixture
                def command():
                    return Command()
                """,
            "tests/unit/test_cli.py": """\
                from pytest import fixture

                from app.runner import Command


                @fixture()
                def runner():
                    return Command()


                def test_run(runner, command, other):
                    runner.invoke(1)
                    command.invoke(2)
                    other.invoke(3)


                def helper(command):
                    command.invoke(4)
                """,
        }
    )
    both = ("app/runner.py::CliRunner.invoke", "app/runner.py::Command.invoke")
    # pytest passes the nearest fixture of the parameter's name: the test's own file's runner
    # first, then conftest.py's command; a parameter no fixture names, or the parameter of a
    # function pytest does not call, is known by the method's name alone.
    assert calls_of(repo, "tests/unit/test_cli.py::test_run") == {
        ("app/runner.py::Command.invoke", "INFERRED", 12),
        ("app/runner.py::Command.invoke", "INFERRED", 13),
        (both, "AMBIGUOUS", 14),
    }
    assert calls_of(repo, "tests/unit/test_cli.py::helper") == {(both, "AMBIGUOUS", 18)}
