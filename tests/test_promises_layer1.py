"""Layer-1 promises of docs/layer1-raw-graph.md that no other test pinned down.

Confidences of by-name binding (for the only method of a name 0.9 in Python, 0.94 in
TypeScript, 0.7 in Java; 0.95 for the only definition) in the edges of more than one
language, ``max_candidates`` at and past its limit, ``.pyi`` stubs as Python source, and
"cross-file resolution is redone only for the files whose names the edit touched" through
``UpdateResult.resolved``.
"""

from __future__ import annotations

from conftest import Repo

from kgtool.config import load_config
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.store import Store


def calls_of(repo: Repo) -> dict[str, dict]:
    return {e["src"]: e for e in repo.edges("calls")}


# --- confidences of by-name binding --------------------------------------------------------


def test_python_by_name_calls_carry_the_documented_confidences(repo: Repo) -> None:
    """Guards CONFIDENCE_UNIQUE_METHOD (0.9 in Python) and CONFIDENCE_UNIQUE_NAME (0.95)."""
    repo.build(
        {
            "jobs.py": "class Job:\n    def frobnicate(self):\n        pass\n",
            "util.py": "def tidy():\n    pass\n",
            "run.py": "def go(job):\n    job.frobnicate()\n\n\ndef clean():\n    tidy()\n",
        }
    )
    calls = calls_of(repo)
    method, name = calls["run.py::go"], calls["run.py::clean"]
    assert (method["dst"], method["tier"], method["confidence"]) == (
        "jobs.py::Job.frobnicate",
        "INFERRED",
        0.9,
    )
    assert (name["dst"], name["tier"], name["confidence"]) == ("util.py::tidy", "INFERRED", 0.95)


def test_typescript_and_java_unique_method_calls_have_their_ecosystems_confidence(
    repo: Repo,
) -> None:
    """Guards CONFIDENCE_UNIQUE_METHOD (0.94 in TypeScript, 0.7 unmeasured in Java)."""
    repo.build(
        {
            "src/job.ts": "export class Job {\n  frobnicate(): void {}\n}\n",
            "src/run.ts": "export function go(job: any) {\n  job.frobnicate();\n}\n",
            "Job.java": "class Job {\n  void frobnicate() {}\n}\n",
            # A parameter of a type the repository does not define: the receiver is unknown.
            "Run.java": "class Run {\n  void go(Thing job) {\n    job.frobnicate();\n  }\n}\n",
        }
    )
    calls = calls_of(repo)
    assert {src: (e["dst"], e["tier"], e["confidence"]) for src, e in calls.items()} == {
        "src/run.ts::go": ("src/job.ts::Job.frobnicate", "INFERRED", 0.94),
        "Run.java::Run.go": ("Job.java::Job.frobnicate", "INFERRED", 0.7),
    }


# --- max_candidates ------------------------------------------------------------------------

THREE_LOADS = {
    "a.py": "def load():\n    pass\n",
    "b.py": "def load():\n    pass\n",
    "c.py": "def load():\n    pass\n",
    "use.py": "def go():\n    load()\n",
}


def test_max_candidates_is_the_most_a_by_name_call_may_list(repo: Repo) -> None:
    """Guards ``max_candidates`` reaching resolution and its bound (at most, not fewer)."""
    repo.write_files(THREE_LOADS)
    repo.write(".kgtool.yaml", "max_candidates: 3\n")
    repo.build({})
    edge = calls_of(repo)["use.py::go"]
    assert (edge["tier"], edge["candidates"]) == (
        "AMBIGUOUS",
        ["a.py::load", "b.py::load", "c.py::load"],
    )
    assert "unresolved_calls" not in repo.nodes()["use.py::go"]


def test_a_call_matching_more_than_max_candidates_counts_as_unresolved(repo: Repo) -> None:
    repo.write_files(THREE_LOADS)
    repo.write(".kgtool.yaml", "max_candidates: 2\n")
    repo.build({})
    assert repo.edges("calls") == []
    assert repo.nodes()["use.py::go"]["unresolved_calls"] == {"load": 1}


# --- .pyi ----------------------------------------------------------------------------------


def test_pyi_stubs_are_python_source_with_symbols(repo: Repo) -> None:
    """Guards ``.pyi`` among Python's extensions."""
    repo.build(
        {
            "fast.pyi": "class Engine:\n    def run(self) -> None: ...\n\n"
            "def speed() -> int: ...\n",
            "app.py": "from fast import speed\n\n\ndef main():\n    return speed()\n",
            # A relative import finds a stub module and a stub package.
            "pkg/__init__.py": "",
            "pkg/typed.pyi": "def check() -> bool: ...\n",
            "pkg/shapes/__init__.pyi": "class Shape: ...\n",
            "pkg/use.py": "from .typed import check\nfrom .shapes import Shape\n\n"
            "check()\nShape()\n",
        }
    )
    nodes = repo.nodes()
    assert nodes["fast.pyi"]["lang"] == "python"
    assert {i: n["kind"] for i, n in nodes.items() if i.startswith("fast.pyi::")} == {
        "fast.pyi::Engine": "class",
        "fast.pyi::Engine.run": "method",
        "fast.pyi::speed": "function",
    }
    assert repo.edge_rows("calls") == [
        ("app.py::main", "fast.pyi::speed", "EXTRACTED", 5),
        ("pkg/use.py", "pkg/shapes/__init__.pyi::Shape", "EXTRACTED", 5),
        ("pkg/use.py", "pkg/typed.pyi::check", "EXTRACTED", 4),
    ]
    assert repo.edge_rows("imports") == [
        ("app.py", "fast.pyi", "EXTRACTED", 1),
        ("pkg/use.py", "pkg/shapes/__init__.pyi", "EXTRACTED", 2),
        ("pkg/use.py", "pkg/typed.pyi", "EXTRACTED", 1),
    ]


# --- only the files whose names an edit touched are resolved again -------------------------

FILES = {
    "lib/store.py": "def load():\n    return 1\n\n\ndef save():\n    return 1\n",
    "app/a.py": "from lib.store import load\n\n\ndef a():\n    return load()\n",
    "app/b.py": "from lib.store import save\n\n\ndef b():\n    return save()\n",
    "web/c.py": "def render():\n    return 1\n",
    "web/d.py": "from web.c import render\n\n\ndef d():\n    return render()\n",
}


def run_update(repo: Repo) -> UpdateResult:
    return update_raw(repo.root, load_config(repo.root), Store(repo.root))


def test_an_edit_resolves_again_only_the_files_whose_names_it_touched(repo: Repo) -> None:
    """Guards ``_affected``: neither every file (all 5) nor only the edited one (1)."""
    repo.write_files(FILES)
    repo.commit()
    first = run_update(repo)
    assert first.resolved == 5
    # A body edit changes no name: the file itself is parsed and resolved, nothing else.
    repo.write("lib/store.py", FILES["lib/store.py"].replace("return 1", "return 2", 1))
    repo.commit("body")
    body = run_update(repo)
    assert (body.parsed, body.resolved) == (["lib/store.py"], 1)
    # Renaming save touches the one file that calls it by that name.
    repo.write("lib/store.py", "def load():\n    return 2\n\n\ndef persist():\n    return 1\n")
    repo.commit("rename save")
    renamed = run_update(repo)
    assert (renamed.parsed, renamed.resolved) == (["lib/store.py"], 2)
    assert [(e["src"], e["dst"]) for e in repo.edges("calls")] == [
        ("app/a.py::a", "lib/store.py::load"),  # app/b.py's call to save bound nothing now
        ("web/d.py::d", "web/c.py::render"),
    ]
    # Nothing changed: nothing parsed, nothing resolved.
    quiet = run_update(repo)
    assert (quiet.parsed, quiet.resolved, quiet.changed) == ([], 0, False)
    # What was resolved again is all that needed it: the result is a fresh build's.
    assert repo.layer1() == repo.fresh_build()
