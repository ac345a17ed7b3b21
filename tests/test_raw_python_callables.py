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
