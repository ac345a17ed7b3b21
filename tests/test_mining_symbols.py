"""Which symbols a task's changes touched in a file: the ones most changes edited first, with
what most of them wrote there, and files read whatever their bytes."""

from __future__ import annotations

from conftest import Repo
from mining_helpers import commit_at
from test_mining_tasks import DAY

from kgtool.mining.symbols import Touched, touched_symbols


def functions(bodies: dict[str, str]) -> str:
    return "".join(f"def {name}():\n    return {body}\n\n\n" for name, body in bodies.items())


def test_the_symbols_most_changes_edited_come_first(repo: Repo) -> None:
    bodies = {"alpha": "1", "beta": "2", "gamma": "3"}
    repo.write("core/steps.py", functions(bodies))
    commit_at(repo, "Initial layout", 0)
    # Every change edits gamma; one of them beta too, another alpha too.
    commits = []
    for number, other in enumerate(("beta", "alpha", None), start=1):
        bodies["gamma"] = f"3 + {number}"
        if other:
            bodies[other] += " + 1"
        repo.write("core/steps.py", functions(bodies))
        commits.append(commit_at(repo, f"Step {number}", DAY * number))
    reading = touched_symbols(repo.root, [(c, "core/steps.py") for c in reversed(commits)])
    assert reading.read == 3
    assert [(t.qualname, t.changes) for t in reading.touched] == [
        ("gamma", 3),
        ("alpha", 1),
        ("beta", 1),
    ]


def test_a_file_with_bytes_that_are_not_utf8_is_still_read(repo: Repo) -> None:
    # A comment written in Latin-1 long ago ("café" as one byte é): the file is no less code.
    source = b"# caf\xe9\n\n\ndef price():\n    return 1\n"
    repo.write("core/menu.py", source)
    commit_at(repo, "Initial layout", 0)
    repo.write("core/menu.py", source.replace(b"return 1", b"return 2"))
    commit = commit_at(repo, "Raise the price", DAY)
    reading = touched_symbols(repo.root, [(commit, "core/menu.py")])
    assert reading.read == 1
    assert [(t.qualname, t.changes) for t in reading.touched] == [("price", 1)]


HANDLER = """def handle(kind):
    names = {
        "a": 1,
    }
    match kind:
        case "a": return names["a"]
    return 0
"""


def test_what_most_changes_wrote_in_a_symbol_is_what_they_add(repo: Repo) -> None:
    # Two changes add a case, one an entry: most of them add a case. Each writes its line
    # first, below a line that is no case (what a change wrote is read, not its neighbours).
    repo.write("core/handler.py", HANDLER)
    commit_at(repo, "Initial layout", 0)
    edits = [
        ("    match kind:\n", '        case "b": return 2\n'),
        ("    names = {\n", '        "c": 3,\n'),
        ("    match kind:\n", '        case "d": return 4\n'),
    ]
    commits = []
    for number, (after, line) in enumerate(edits, start=1):
        text = (repo.root / "core/handler.py").read_text()
        repo.write("core/handler.py", text.replace(after, after + line))
        commits.append(commit_at(repo, f"Handle more {number}", DAY * number))
    reading = touched_symbols(repo.root, [(c, "core/handler.py") for c in reversed(commits)])
    assert reading.touched == [Touched("handle", 3, "", "a case")]
