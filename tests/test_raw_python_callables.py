"""Layer 1 for Python: calls of functions held in values, construct by construct, exact edges.

A function passed as an argument and called from the parameter, applied as a decorator and
called from its wrapper, iterated over in a literal collection, unpacked from a tuple, stored
under a key, or returned: the call binds to what the statements show the value can be. One
candidate is INFERRED; several are AMBIGUOUS, all listed; a value nothing states (an argument
that is itself unknown) leaves the call unresolved rather than guessed.
"""

from __future__ import annotations

from conftest import Repo
from test_raw_python_values import calls_of

STEPS = """\
    def fetch():
        pass


    def parse():
        pass
    """


def test_a_function_passed_as_an_argument_binds_where_the_parameter_is_called(
    repo: Repo,
) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "apply.py": """\
                def apply(f):
                    f()


                def each(first, then=None):
                    first()
                    then()


                def apply_all(f):
                    f()
                """,
            "main.py": """\
                from apply import apply, apply_all, each
                from steps import fetch, parse

                apply(fetch)
                each(parse, then=fetch)
                apply_all(fetch)
                apply_all(parse)
                """,
        }
    )
    assert calls_of(repo, "apply.py::apply") == {("steps.py::fetch", "INFERRED", 2)}
    assert calls_of(repo, "apply.py::each") == {
        ("steps.py::parse", "INFERRED", 6),  # positional
        ("steps.py::fetch", "INFERRED", 7),  # keyword
    }
    # Two call sites pass two functions: both listed, none chosen.
    assert calls_of(repo, "apply.py::apply_all") == {
        (("steps.py::fetch", "steps.py::parse"), "AMBIGUOUS", 11)
    }
    edge = next(e for e in repo.edges("calls") if e["src"] == "apply.py::apply")
    assert 0 < edge["confidence"] < 1


def test_defaults_aliases_methods_and_constructors_pass_functions_too(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "jobs.py": """\
                from steps import fetch, parse


                def later(callback=parse):
                    callback()


                class Job:
                    def __init__(self, action):
                        self.action = action

                    def each(self, fn):
                        fn()

                    def start(self):
                        self.each(self.finish)

                    def finish(self):
                        pass


                def main():
                    step = fetch
                    Job(step)
                    later()
                """,
        }
    )
    assert calls_of(repo, "jobs.py::later") == {("steps.py::parse", "INFERRED", 5)}
    assert calls_of(repo, "jobs.py::Job.each") == {("jobs.py::Job.finish", "INFERRED", 13)}


def test_parameters_shadow_module_names_and_unknown_arguments_stay_unresolved(
    repo: Repo,
) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "run.py": """\
                from steps import fetch, parse


                def apply(fetch):
                    fetch()


                def relay(g):
                    g()


                def forward(h):
                    relay(h)


                def never_called(parse):
                    parse()


                apply(parse)
                forward(fetch)


                def outer(anything):
                    relay(anything)
                """,
        }
    )
    # The parameter named `fetch` holds parse: the module's fetch is not what it calls.
    assert calls_of(repo, "run.py::apply") == {("steps.py::parse", "INFERRED", 5)}
    # relay's parameter receives fetch (through forward) and whatever outer's caller passes,
    # which nothing states: the call stays unresolved rather than half listed.
    assert calls_of(repo, "run.py::relay") == set()
    assert repo.nodes()["run.py::relay"]["unresolved_calls"] == {"g": 1}
    # No call site passes anything: the parameter is not the module's parse.
    assert calls_of(repo, "run.py::never_called") == set()
    assert repo.nodes()["run.py::never_called"]["unresolved_calls"] == {"parse": 1}


def test_a_parameter_passed_on_binds_through_the_chain(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "run.py": """\
                from steps import fetch


                def relay(g):
                    g()


                def forward(h):
                    relay(h)


                forward(fetch)
                """,
        }
    )
    assert calls_of(repo, "run.py::relay") == {("steps.py::fetch", "INFERRED", 5)}


def test_decorators_that_return_the_function_they_wrap(repo: Repo) -> None:
    repo.build(
        {
            "deco.py": """\
                import functools


                def logged(fn):
                    @functools.wraps(fn)
                    def wrapper(*args, **kwargs):
                        return fn(*args, **kwargs)

                    return wrapper


                def register(fn):
                    return fn


                @logged
                def work():
                    pass


                @register
                def rest():
                    pass


                def main():
                    work()
                    rest()
                    checked = logged(rest)
                    checked()
                """,
        }
    )
    # Calls of a decorated name still bind to the function, as the syntax says.
    assert calls_of(repo, "deco.py::main") == {
        ("deco.py::work", "EXTRACTED", 27),
        ("deco.py::rest", "EXTRACTED", 28),
        ("deco.py::logged", "EXTRACTED", 29),
        # logged returns a wraps-style wrapper of its argument: the call reaches rest.
        ("deco.py::rest", "INFERRED", 30),
    }
    # The wrapper calls what the decorator was applied to: work (as a decorator) and rest.
    assert calls_of(repo, "deco.py::logged.wrapper") == {
        (("deco.py::rest", "deco.py::work"), "AMBIGUOUS", 7)
    }
    assert calls_of(repo, "deco.py") >= {
        ("deco.py::logged", "EXTRACTED", 16),
        ("deco.py::register", "EXTRACTED", 21),
    }


def test_a_decorator_that_replaces_the_function_binds_its_calls_to_the_replacement(
    repo: Repo,
) -> None:
    repo.build(
        {
            "deco.py": """\
                def swap(fn):
                    def other():
                        fn()

                    return other


                @swap
                def work():
                    pass


                def main():
                    work()
                """,
        }
    )
    # `work` names what swap returns, a function that is not a wrapper of work.
    assert calls_of(repo, "deco.py::main") == {("deco.py::swap.other", "INFERRED", 14)}
    assert calls_of(repo, "deco.py::swap.other") == {("deco.py::work", "INFERRED", 3)}


def test_loop_variables_over_literal_collections(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "run.py": """\
                from steps import fetch, parse

                PIPELINE = [fetch, parse]


                def run(items):
                    for step in (fetch, parse):
                        step()
                    for stage in PIPELINE:
                        stage()
                    for item in items:
                        item()
                """,
        }
    )
    both = ("steps.py::fetch", "steps.py::parse")
    assert calls_of(repo, "run.py::run") == {
        (both, "AMBIGUOUS", 8),
        (both, "AMBIGUOUS", 10),
    }
    assert repo.nodes()["run.py::run"]["unresolved_calls"] == {"item": 1}


def test_tuple_unpacking_element_stores_and_returned_functions(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "run.py": """\
                from steps import fetch, parse

                HANDLERS = {}
                HANDLERS["fetch"] = fetch


                def pick():
                    return parse


                def run():
                    first, second = fetch, parse
                    first()
                    second()
                    HANDLERS["fetch"]()
                    chosen = pick()
                    chosen()
                """,
        }
    )
    assert calls_of(repo, "run.py::run") == {
        ("steps.py::fetch", "INFERRED", 13),
        ("steps.py::parse", "INFERRED", 14),
        ("steps.py::fetch", "INFERRED", 15),
        ("run.py::pick", "EXTRACTED", 16),
        ("steps.py::parse", "INFERRED", 17),
    }


def test_an_edit_of_an_argument_rebinds_the_called_parameter_incrementally(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "apply.py": "def apply(f):\n    f()\n",
            "main.py": "from apply import apply\nfrom steps import fetch, parse\n\napply(fetch)\n",
        }
    )
    assert calls_of(repo, "apply.py::apply") == {("steps.py::fetch", "INFERRED", 2)}
    imports = "from apply import apply\nfrom steps import fetch, parse\n\n"
    repo.write("main.py", f"{imports}apply(parse)\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "apply.py::apply") == {("steps.py::parse", "INFERRED", 2)}
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_of_the_called_function_alone_keeps_what_its_callers_pass(repo: Repo) -> None:
    # The update resolves apply.py again and reads main.py's arguments, which the cache holds
    # undecoded: they must be read all the same, as a build from nothing reads them.
    repo.build(
        {
            "steps.py": STEPS,
            "apply.py": "def apply(f):\n    f()\n",
            "main.py": "from apply import apply\nfrom steps import fetch\n\napply(fetch)\n",
        }
    )
    repo.write("apply.py", "# applies what it is given\ndef apply(f):\n    f()\n")
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "apply.py::apply") == {("steps.py::fetch", "INFERRED", 3)}
    assert repo.layer1() == repo.fresh_build()


def test_a_class_raised_by_its_name_is_constructed(repo: Repo) -> None:
    repo.build(
        {
            "errors.py": """\
                class NotFound(Exception):
                    pass


                class Api:
                    class Denied(Exception):
                        pass


                class error(Exception):
                    pass


                def check():
                    pass
                """,
            "run.py": """\
                import errors
                from errors import NotFound, check

                Missing = NotFound


                def find(key):
                    if key:
                        raise NotFound
                    raise errors.Api.Denied


                def lookup():
                    raise Missing


                def rethrow(failure):
                    raise failure


                def wrap():
                    try:
                        find(1)
                    except NotFound as error:
                        raise error
                    raise check


                def fail():
                    raise NotFound("gone") from None


                rethrow(NotFound())
                """,
        }
    )
    # `raise A` constructs A: bound as the call `A()` would be, EXTRACTED by name.
    assert calls_of(repo, "run.py::find") == {
        ("errors.py::NotFound", "EXTRACTED", 9),
        ("errors.py::Api.Denied", "EXTRACTED", 10),
    }
    # A variable given the class: INFERRED, as calling it would be.
    assert calls_of(repo, "run.py::lookup") == {("errors.py::NotFound", "INFERRED", 14)}
    # A parameter (passed an instance), a caught exception (not errors.error, whatever its
    # name), a function raised: none constructs a class, and none is an unresolved call.
    assert calls_of(repo, "run.py::rethrow") == set()
    assert calls_of(repo, "run.py::wrap") == {("run.py::find", "EXTRACTED", 23)}
    nodes = repo.nodes()
    assert "unresolved_calls" not in nodes["run.py::rethrow"]
    assert "unresolved_calls" not in nodes["run.py::wrap"]
    # `raise A(...)` is the call it writes, once.
    assert calls_of(repo, "run.py::fail") == {("errors.py::NotFound", "EXTRACTED", 30)}


MAKERS = """\
    from steps import fetch, parse


    def pick():
        return fetch


    def either(flag):
        if flag:
            return fetch
        return parse


    def same(f):
        return f


    def later():
        return pick()


    def outer():
        return pick


    class Runner:
        def handler(self):
            return self.done

        def done(self):
            pass


    def factory():
        def decorate(f):
            return f

        return decorate
    """


def test_calling_what_a_call_returns(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "make.py": MAKERS,
            "run.py": """\
                import functools

                from make import Runner, either, factory, later, outer, pick, same
                from steps import parse


                def run(callback):
                    pick()()
                    either(1)()
                    same(parse)()
                    later()()
                    outer()()()
                    runner = Runner()
                    runner.handler()()
                    alias = pick
                    alias()()
                    callback()()


                @factory()
                def task():
                    pass


                @functools.lru_cache(maxsize=None)
                def cached():
                    pass
                """,
        }
    )
    fetch, parse = "steps.py::fetch", "steps.py::parse"
    assert calls_of(repo, "run.py::run") == {
        ("make.py::pick", "EXTRACTED", 8),
        (fetch, "INFERRED", 8),  # pick returns fetch
        ("make.py::either", "EXTRACTED", 9),
        ((fetch, parse), "AMBIGUOUS", 9),  # either returns one of two
        ("make.py::same", "EXTRACTED", 10),
        (parse, "INFERRED", 10),  # same returns its argument
        ("make.py::later", "EXTRACTED", 11),
        (fetch, "INFERRED", 11),  # later returns what pick() returns
        ("make.py::outer", "EXTRACTED", 12),
        ("make.py::pick", "INFERRED", 12),  # outer()() calls pick
        (fetch, "INFERRED", 12),  # outer()()() calls what pick returns
        ("make.py::Runner", "EXTRACTED", 13),
        ("make.py::Runner.handler", "INFERRED", 14),
        ("make.py::Runner.done", "INFERRED", 14),  # handler returns self.done
        ("make.py::pick", "INFERRED", 16),  # alias holds pick
        (fetch, "INFERRED", 16),  # so alias()() calls what pick returns
    }
    confidence = {
        (e.get("dst"), e["line"]): e["confidence"]
        for e in repo.edges("calls")
        if e["src"] == "run.py::run"
    }
    assert confidence[(fetch, 8)] == 0.8
    # callback() and what it returns: no call site passes a callback, nothing is guessed.
    assert repo.nodes()["run.py::run"]["unresolved_calls"] == {"callback": 1, "?": 1}
    # `@factory()` applies what factory returns; `@functools.lru_cache(...)` applies what
    # a function from outside returns: a call of code outside, as the inner call is.
    assert calls_of(repo, "run.py") == {
        ("make.py::factory", "EXTRACTED", 20),
        ("make.py::factory.decorate", "INFERRED", 20),
    }
    assert repo.nodes()["run.py"]["external_calls"] == 2


def test_functions_passed_to_builtins_that_call_them(repo: Repo) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "run.py": """\
                from steps import fetch, parse


                def key_of(item):
                    return item


                class Table:
                    def order(self, rows):
                        return sorted(rows, key=self.rank)

                    def rank(self, row):
                        return row


                def run(items, score):
                    list(map(fetch, items))
                    filter(parse, items)
                    max(items, key=key_of)
                    min(items, key=score)
                    map(items, fetch)
                    sorted(items, key=len)
                """,
            "tools.py": """\
                def sorted(items, key=None):
                    return items
                """,
            "shadow.py": """\
                from steps import fetch, parse
                from tools import sorted


                def map(f, items):
                    return items


                def run(items, filter):
                    map(fetch, items)
                    sorted(items, key=parse)
                    filter(fetch, items)
                    max = min
                    max(items, key=fetch)
                """,
        }
    )
    # The builtin calls the function from the scope that passes it: INFERRED.
    assert calls_of(repo, "run.py::run") == {
        ("steps.py::fetch", "INFERRED", 17),
        ("steps.py::parse", "INFERRED", 18),
        ("run.py::key_of", "INFERRED", 19),
        # score: nothing passes it; map's second argument is an iterable, never called.
    }
    assert calls_of(repo, "run.py::Table.order") == {("run.py::Table.rank", "INFERRED", 10)}
    confidence = {
        e["line"]: e["confidence"] for e in repo.edges("calls") if e["src"] == "run.py::run"
    }
    assert confidence == {17: 0.8, 18: 0.8, 19: 0.8}
    # The file's own map, an imported sorted, a parameter and a variable of a builtin's name:
    # not the builtins, so nothing passed to them is called from here.
    assert calls_of(repo, "shadow.py::run") == {
        ("shadow.py::map", "EXTRACTED", 10),
        ("tools.py::sorted", "EXTRACTED", 11),
    }


def test_an_edit_of_what_a_function_returns_rebinds_its_callers_incrementally(
    repo: Repo,
) -> None:
    repo.build(
        {
            "steps.py": STEPS,
            "make.py": MAKERS,
            "errors.py": "class NotFound(Exception):\n    pass\n",
            "run.py": """\
                import errors
                from make import pick


                def run():
                    pick()()
                    raise errors.NotFound
                """,
        }
    )
    assert calls_of(repo, "run.py::run") == {
        ("make.py::pick", "EXTRACTED", 6),
        ("steps.py::fetch", "INFERRED", 6),
        ("errors.py::NotFound", "EXTRACTED", 7),
    }
    # Each edit alone, with the cache of the last update (a fresh build drops it): the
    # callers are resolved again for the names they mention.
    repo.write("errors.py", "NotFound = LookupError\n")
    repo.commit()
    assert repo.kg("update").code == 0
    # NotFound is a builtin class now: no edge, no unresolved call.
    assert calls_of(repo, "run.py::run") == {
        ("make.py::pick", "EXTRACTED", 6),
        ("steps.py::fetch", "INFERRED", 6),
    }
    repo.write(
        "make.py",
        MAKERS.replace("return fetch\n\n\n    def either", "return parse\n\n\n    def either"),
    )
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "run.py::run") == {
        ("make.py::pick", "EXTRACTED", 6),
        ("steps.py::parse", "INFERRED", 6),  # pick returns parse now
    }
    assert repo.layer1() == repo.fresh_build()
