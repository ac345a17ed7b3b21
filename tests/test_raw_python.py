"""Layer 1 for Python: the exact nodes and edges of a small program, tiers included."""

from __future__ import annotations

import json

from conftest import Repo

from kgtool.raw.languages.python import Python

PROGRAM = {
    "pkg/__init__.py": "from .core import Engine as Engine\n",
    "pkg/core.py": """\
        import os
        from . import helpers
        from .helpers import tidy as clean


        class Base:
            def start(self):
                return self.prepare()

            def prepare(self):
                return 1


        class Engine(Base):
            limit = clean(3)

            def prepare(self):
                super().prepare()
                helpers.tidy(2)
                return os.getcwd()

            def run(self, task):
                task.execute()
                getattr(self, "x")()
                return render(self)


        def render(engine):
            return engine
        """,
    "pkg/helpers.py": """\
        def tidy(value):
            return value


        def render(value):
            return value
        """,
    "main.py": """\
        from pkg import Engine

        engine = Engine()
        engine.run(None)
        """,
    "README.md": "# demo\n",
}


def test_python_program_gives_exact_nodes_and_edges(repo: Repo) -> None:
    repo.write_files(PROGRAM)
    repo.commit()
    assert repo.kg("update").code == 0
    nodes = repo.nodes()
    symbols = {i: (n["kind"], tuple(n["span"])) for i, n in nodes.items() if "span" in n}
    assert symbols == {
        "pkg/core.py::Base": ("class", (6, 11)),
        "pkg/core.py::Base.start": ("method", (7, 8)),
        "pkg/core.py::Base.prepare": ("method", (10, 11)),
        "pkg/core.py::Engine": ("class", (14, 25)),
        "pkg/core.py::Engine.prepare": ("method", (17, 20)),
        "pkg/core.py::Engine.run": ("method", (22, 25)),
        "pkg/core.py::render": ("function", (28, 29)),
        "pkg/helpers.py::tidy": ("function", (1, 2)),
        "pkg/helpers.py::render": ("function", (5, 6)),
    }
    assert nodes["README.md"]["status"] == "text"
    assert nodes["ext:py:os"]["kind"] == "package"

    calls = {(e["src"], e.get("dst"), e["line"], e["tier"]) for e in repo.edges("calls")}
    assert calls == {
        ("pkg/core.py::Base.start", "pkg/core.py::Base.prepare", 8, "EXTRACTED"),
        # Module and class-body calls belong to the file and the class.
        ("pkg/core.py::Engine", "pkg/helpers.py::tidy", 15, "EXTRACTED"),
        ("pkg/core.py::Engine.prepare", "pkg/core.py::Base.prepare", 18, "EXTRACTED"),
        ("pkg/core.py::Engine.prepare", "pkg/helpers.py::tidy", 19, "EXTRACTED"),
        # The local render, not the same-named one in helpers.
        ("pkg/core.py::Engine.run", "pkg/core.py::render", 25, "EXTRACTED"),
        ("main.py", "pkg/core.py::Engine", 3, "EXTRACTED"),
        ("main.py", "pkg/core.py::Engine.run", 4, "INFERRED"),
    }
    inferred = next(e for e in repo.edges("calls") if e["tier"] == "INFERRED")
    assert inferred["confidence"] == 0.95  # engine = Engine(); engine.run(): an assigned type
    # Stated by the syntax: EXTRACTED, never a guess.
    assert {(e["src"], e["dst"], e["tier"], e["confidence"]) for e in repo.edges("inherits")} == {
        ("pkg/core.py::Engine", "pkg/core.py::Base", "EXTRACTED", 1.0)
    }
    imports = {(e["src"], e["dst"]) for e in repo.edges("imports")}
    assert imports == {
        ("pkg/__init__.py", "pkg/core.py"),
        ("pkg/core.py", "ext:py:os"),
        ("pkg/core.py", "pkg/helpers.py"),
        ("main.py", "pkg/__init__.py"),
    }
    contains = {(e["src"], e["dst"]) for e in repo.edges("contains")}
    assert ("pkg/core.py", "pkg/core.py::Engine") in contains
    assert ("pkg/core.py::Engine", "pkg/core.py::Engine.run") in contains
    assert len(contains) == 9
    # task.execute() binds to nothing in the repository; getattr(...)() to nothing at all.
    assert nodes["pkg/core.py::Engine.run"]["unresolved_calls"] == {"?": 1, "execute": 1}
    # os.getcwd() and the builtin super().
    assert nodes["pkg/core.py::Engine.prepare"]["external_calls"] == 2


def test_same_name_in_two_modules_without_import_is_ambiguous(repo: Repo) -> None:
    repo.write_files(
        {
            "a.py": "def load():\n    pass\n",
            "b.py": "def load():\n    pass\n",
            "c.py": "def go(fn):\n    load()\n",
            "d.py": "def save():\n    pass\n",
            "e.py": "def go():\n    save()\n",
        }
    )
    repo.commit()
    repo.kg("update")
    by_src = {e["src"]: e for e in repo.edges("calls")}
    assert by_src["c.py::go"]["tier"] == "AMBIGUOUS"
    assert by_src["c.py::go"]["candidates"] == ["a.py::load", "b.py::load"]
    assert "dst" not in by_src["c.py::go"]
    # One candidate by name alone is never EXTRACTED.
    assert by_src["e.py::go"]["tier"] == "INFERRED"
    assert by_src["e.py::go"]["dst"] == "d.py::save"


def test_every_record_is_in_canonical_json(repo: Repo) -> None:
    """Edge lines are spelled out by hand for speed: they must equal canonical_json."""
    from kgtool.store import canonical_json

    repo.write_files(PROGRAM)
    repo.write_files({"x.py": "def load():\n    pass\n", "y.py": "def load():\n    pass\n"})
    repo.write("caf\u00e9.py", 'def go():\n    load()\n    "\\u00e9\\""\n')
    repo.commit()
    repo.kg("update")
    text = repo.layer1().decode()
    tiers = set()
    for line in text.splitlines():
        record = json.loads(line)
        if "type" in record:  # an edge
            tiers.add(record.get("tier", "EXTRACTED (left out)"))
        assert canonical_json(record) == line
    assert tiers == {"EXTRACTED (left out)", "INFERRED", "AMBIGUOUS"}


def test_an_import_of_the_repository_s_own_package_that_does_not_resolve_is_broken(
    repo: Repo,
) -> None:
    repo.write_files(
        {
            "mypkg/__init__.py": "",
            "mypkg/plugins/__init__.py": "",
            "mypkg/plugins/new.py": "class X:\n    pass\n",
            "mypkg/app.py": (
                "from mypkg.plugins.old import X\n"  # renamed to new.py: broken
                "from .gone import helper\n"  # a relative import of nothing: broken
                "from mypkg.plugins.new import X as Y\n"
                "import requests\n"  # a real external package
                "\n"
                "def run():\n"
                "    X()\n"
                "    helper()\n"
            ),
        }
    )
    repo.commit()
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert "broken imports: 2" in result.out
    assert (
        "mypkg/app.py:1: warning: R102 broken import 'mypkg.plugins.old': it names this "
        "repository's own code, which has no such module"
    ) in result.out.splitlines()
    assert "mypkg/app.py:2: warning: R102 broken import '.gone'" in result.out
    node = repo.nodes()["mypkg/app.py"]
    assert node["broken_imports"] == [
        {"line": 1, "module": "mypkg.plugins.old"},
        {"line": 2, "module": ".gone"},
    ]
    assert "ext:py:mypkg" not in repo.nodes()  # never an external fact
    assert "ext:py:requests" in repo.nodes()
    # A call through a broken name is never external: unresolved, or a guess by name alone.
    run = repo.nodes()["mypkg/app.py::run"]
    assert run["unresolved_calls"] == {"helper": 1} and "external_calls" not in run
    assert [e["tier"] for e in repo.edges("calls") if e["src"] == run["id"]] == ["INFERRED"]
    # Fixing the import clears it on the next (incremental) update.
    repo.write("mypkg/plugins/old.py", "class X:\n    pass\n")
    repo.write("mypkg/gone.py", "def helper():\n    pass\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert "broken_imports" not in repo.nodes()["mypkg/app.py"]
    assert repo.layer1() == repo.fresh_build()


def test_a_package_module_does_not_import_from_folders_inside_its_package(
    repo: Repo,
) -> None:
    """A package's module importing ``collections`` or ``yaml`` gets the library's, though its
    package has a subpackage of that name (ansible's lib/ansible/collections and
    lib/ansible/parsing/yaml); a script still finds a module beside it, as running it would."""
    repo.write_files(
        {
            "lib/app/__init__.py": "",
            "lib/app/collections/__init__.py": "def local():\n    pass\n",
            "lib/app/cli.py": (
                "import collections.abc\n"
                "import collections\n"
                "from app.collections import local\n"
                "\n"
                "def run():\n"
                "    collections.OrderedDict()\n"
                "    local()\n"
            ),
            # A third-party name too: inside a package, folders of the package are not roots.
            "lib/app/parsing/__init__.py": "",
            "lib/app/parsing/yaml/__init__.py": "def load():\n    pass\n",
            "lib/app/parsing/reader.py": "import yaml\n\ndef read():\n    yaml.load()\n",
            "scripts/helpers.py": "def helper():\n    pass\n",
            "scripts/run.py": "import helpers\n\ndef main():\n    helpers.helper()\n",
            # A script beside a folder named like a standard-library module still gets the
            # library's: the folder is far likelier its own code than a shadowing.
            "tools/json/__init__.py": "def dumps():\n    pass\n",
            "tools/dump.py": "import json\n\ndef dump():\n    json.dumps()\n",
        }
    )
    repo.commit()
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert "R102" not in result.out and "broken imports" not in result.out
    nodes = repo.nodes()
    assert "ext:py:collections" in nodes
    assert nodes["lib/app/cli.py::run"]["external_calls"] == 1
    calls = {(e["src"], e["dst"]) for e in repo.edges("calls")}
    assert ("lib/app/cli.py::run", "lib/app/collections/__init__.py::local") in calls
    assert ("scripts/run.py::main", "scripts/helpers.py::helper") in calls
    assert "ext:py:yaml" in nodes and "ext:py:json" in nodes
    assert nodes["tools/dump.py::dump"]["external_calls"] == 1
    assert nodes["lib/app/parsing/reader.py::read"]["external_calls"] == 1
    assert not [dst for src, dst in calls if src == "lib/app/parsing/reader.py::read"]


def test_production_code_never_binds_by_name_to_what_only_tests_define(repo: Repo) -> None:
    built = repo.build(
        {
            "app/__init__.py": "",
            "app/log.py": "class Sink:\n    def flush(self):\n        return 1\n",
            "app/run.py": """\
                def report(logger):
                    logger.error("x")


                def drain(sink):
                    sink.flush()
                """,
            "tests/fakes.py": """\
                class _Logger:
                    def error(self, message):
                        return message


                class FakeSink:
                    def flush(self):
                        return 0
                """,
            "tests/test_run.py": "def test_report(fake):\n    fake.error('y')\n",
        }
    )
    calls = {
        (e["src"], e.get("dst"), e["tier"], tuple(e.get("candidates", ())))
        for e in built.edges("calls")
    }
    assert calls == {
        # The production method is the only candidate left: no AMBIGUOUS with the fake's.
        ("app/run.py::drain", "app/log.py::Sink.flush", "INFERRED", ()),
        # A test still reaches a test double by its name.
        ("tests/test_run.py::test_report", "tests/fakes.py::_Logger.error", "INFERRED", ()),
    }
    assert built.nodes()["app/run.py::report"]["unresolved_calls"] == {"error": 1}


def test_cls_a_property_and_a_module_reached_through_its_package_bind_as_python_runs_them(
    repo: Repo,
) -> None:
    built = repo.build(
        {
            "pkg/__init__.py": "",
            "pkg/utils/__init__.py": "",
            "pkg/utils/parse.py": "def parse_list(value):\n    return [value]\n",
            "pkg/base.py": """\
                from pkg import utils


                class URLBase:
                    def __init__(self, value):
                        self.value = value

                    def parse_list(self, x):
                        return x

                    @classmethod
                    def build(cls, value):
                        return cls(value)

                    def each(self, registry):
                        for cls in registry:  # a loop variable: what it holds is not known
                            cls()

                    @property
                    def store(self):
                        return Store()

                    def save(self):
                        self.store.flush()
                        return utils.parse.parse_list(self.value)


                class Store:
                    def flush(self):
                        return 1


                class Other:
                    def flush(self):
                        return 2
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    base = "pkg/base.py"
    assert calls == {
        (f"{base}::URLBase.build", f"{base}::URLBase", "EXTRACTED"),  # cls(...)
        (f"{base}::URLBase.store", f"{base}::Store", "EXTRACTED"),
        # What the property returns, not every flush by its name.
        (f"{base}::URLBase.save", f"{base}::Store.flush", "INFERRED"),
        # The function of the module utils.parse, not the method of the same name.
        (f"{base}::URLBase.save", "pkg/utils/parse.py::parse_list", "EXTRACTED"),
    }


def test_a_with_statement_names_what_its_call_gives(repo: Repo) -> None:
    built = repo.build(
        {
            "a.py": """\
                class Store:
                    def read(self):
                        return 1

                    def __enter__(self):
                        return self

                    def __exit__(self, *exc):
                        return False


                class Other:
                    def read(self):
                        return 2


                def load(path):
                    with open(path) as fd:
                        return fd.read()


                def use():
                    with Store() as store:
                        return store.read()


                class Conn:
                    def commit(self):
                        return 1


                class Transaction:
                    def __init__(self, conn: Conn):
                        self.conn = conn

                    def __enter__(self) -> Conn:
                        return self.conn

                    def commit(self):
                        return 2


                def run(conn: Conn):
                    with Transaction(conn) as entered:
                        entered.commit()  # what __enter__ returns: the Conn
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    # open() gives a file: its read() is Python's, not an AMBIGUOUS of Store's and Other's.
    assert calls == {
        ("a.py::use", "a.py::Store", "EXTRACTED"),
        ("a.py::use", "a.py::Store.read", "INFERRED"),
        ("a.py::run", "a.py::Transaction", "EXTRACTED"),
        ("a.py::run", "a.py::Conn.commit", "INFERRED"),
    }
    assert built.nodes()["a.py::load"]["external_calls"] == 2


def test_a_metaclass_cls_and_super_of_an_object_base_are_not_guessed(repo: Repo) -> None:
    built = repo.build(
        {
            "a.py": """\
                class Meta(type):
                    def build(cls):
                        return cls()


                class Mixin(object):
                    def save(self):
                        return super().save()


                class Model:
                    def save(self):
                        return 1


                class Thing(Mixin, Model):
                    pass
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in built.edges("calls")}
    # A metaclass's cls is the class being made, not the metaclass: nothing is bound.
    assert not [c for c in calls if c[0] == "a.py::Meta.build"]
    # object is every class's root, not a base from outside: super() goes on to Model.save,
    # one of the candidates, not an external call.
    assert ("a.py::Mixin.save", None, "AMBIGUOUS") in calls
    assert built.nodes()["a.py::Mixin.save"]["external_calls"] == 1  # super() itself


def test_an_import_inside_a_function_outranks_the_file_s_own_definition_there(repo: Repo) -> None:
    repo.build(
        {
            "pkg/__init__.py": "",
            "pkg/_impl.py": "def get_pager_file(color):\n    return color\n",
            "pkg/termui.py": """\
                def get_pager_file(color=None):
                    from ._impl import get_pager_file

                    return get_pager_file(color=color)


                def echo_via_pager():
                    return get_pager_file()
                """,
        }
    )
    calls = {(e["src"], e.get("dst"), e["line"]) for e in repo.edges("calls")}
    # Inside the function the import binds the name; elsewhere the file's own function does.
    assert calls == {
        ("pkg/termui.py::get_pager_file", "pkg/_impl.py::get_pager_file", 4),
        ("pkg/termui.py::echo_via_pager", "pkg/termui.py::get_pager_file", 8),
    }


def test_a_package_s_modules_are_its_attributes_at_any_depth() -> None:
    python = Python()
    assert python.attribute_modules("pkg/utils/__init__.py", "parse") == (
        "pkg/utils/parse.py",
        "pkg/utils/parse/__init__.py",
    )
    # A package at the repository's top: its folder is "", no path starts with "/".
    assert python.attribute_modules("__init__.py", "parse") == ("parse.py", "parse/__init__.py")
    assert python.attribute_modules("pkg/utils.py", "parse") == ()  # a module has none


def test_importing_a_submodule_binds_its_package_too(repo: Repo) -> None:
    repo.build(
        {
            "pkg/__init__.py": "from .utils import echo\n",
            "pkg/utils.py": "def echo(x):\n    return x\n\n\ndef other():\n    return 1\n",
            "tests/test_a.py": (
                "import pkg.utils\n\n\ndef test_it():\n    pkg.echo(1)\n    pkg.utils.other()\n"
            ),
            "tests/test_b.py": (  # ``import x.y as z`` binds z alone
                "import pkg.utils as u\n\n\ndef test_it():\n    pkg.echo(1)\n    u.other()\n"
            ),
        }
    )
    assert [r for r in repo.edge_rows("calls") if r[0].startswith("tests/")] == [
        ("tests/test_a.py::test_it", "pkg/utils.py::echo", "EXTRACTED", 5),
        ("tests/test_a.py::test_it", "pkg/utils.py::other", "EXTRACTED", 6),
        ("tests/test_b.py::test_it", "pkg/utils.py::other", "EXTRACTED", 6),
    ]


def test_a_template_method_defined_in_a_subclass_keeps_its_guess(repo: Repo) -> None:
    """``self.process()`` in a class whose base is from outside, defined only in a subclass
    (the template method): still bound by the name, not taken for the base's."""
    repo.build(
        {
            "server.py": (
                "from socketserver import BaseRequestHandler\n\n\n"
                "class Handler(BaseRequestHandler):\n"
                "    def handle(self):\n"
                "        self.process()\n"
            ),
            "echo.py": (
                "from server import Handler\n\n\n"
                "class Echo(Handler):\n"
                "    def process(self):\n"
                "        return 1\n"
            ),
        }
    )
    assert ("server.py::Handler.handle", "echo.py::Echo.process", "INFERRED", 6) in (
        repo.edge_rows("calls")
    )
