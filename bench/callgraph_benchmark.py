"""Layer 1's Python call edges scored against PyCG's micro-benchmark (hand-made ground truth).

PyCG (https://github.com/vitsalis/PyCG) ships ``micro-benchmark/snippets/<category>/<case>/``:
a small program (``main.py`` and the modules it imports) and ``callgraph.json``, the expected
call graph as ``{"caller": ["callee", ...]}`` in dotted names (``main.Class.method``; ``main``
itself for calls made at module level). This script takes the path to a checkout of that
benchmark, commits each case to its own git repository, runs ``kgtool update`` on it (in this
process, with this checkout's kgtool first on ``sys.path``, as bench/accuracy.py does) and
scores kgtool's ``calls`` edges against the expected graph.

How the two graphs are made comparable (PyCG's edges carry no line numbers, so an edge is a
(caller, callee) pair):

- Names: kgtool's ``pkg/mod.py::Class.method`` is PyCG's ``pkg.mod.Class.method``; a file node
  (``pkg/mod.py``, ``pkg/__init__.py``) is the module ``pkg.mod`` (``pkg``), the caller of
  module-level calls in both graphs. A call kgtool makes from a class body (caller: the class)
  is made from the enclosing function or module, as PyCG has it: the class part is dropped.
- Constructors: PyCG draws ``Foo()`` as an edge to ``Foo.__init__`` (the one the class runs,
  possibly a base's); kgtool draws it to the class ``Foo``. A kgtool edge to a class stands for
  the ``__init__`` found in the class or, depth first, its bases (kgtool's ``inherits`` edges);
  a class with no ``__init__`` of the program has no counterpart in PyCG's graph, so such an
  edge is not scored (counted as "ctor").
- Builtins and external names: an expected callee that is not a function of the snippet (not in
  one of its modules: ``<builtin>.len``, ``<**PyStr**>.join``, ``ext.function``) has no
  node in kgtool's graph, which counts such calls on the caller instead. These edges are left
  out of recall (counted as "external").
- Lambdas: kgtool has no nodes for them. Expected edges to a lambda are left out (counted as
  "lambda"); calls made inside a lambda belong to its enclosing function or module, which is
  where kgtool puts them.

Scores, per category and overall: precision of the EXTRACTED and INFERRED edges (an edge is
right when its pair is in the expected graph); AMBIGUOUS edges are "listed", right when one of
their candidates is the expected callee; recall is the share of expected edges (to functions of
the snippet) that an EXTRACTED or INFERRED edge binds, and "listed" adds AMBIGUOUS candidates.
Edge counts are per call site (kgtool's edges), recall per expected pair.

Usage: python bench/callgraph_benchmark.py PYCG_CHECKOUT [--out FILE.md] [--details]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
TRUTH_FILE = "callgraph.json"
NOT_PROGRAM = ("callgraph.json", "README.md")
TIERS = ("EXTRACTED", "INFERRED", "AMBIGUOUS")

if str(CHECKOUT) not in sys.path[:1]:
    sys.path.insert(0, str(CHECKOUT))

import kgtool  # noqa: E402  (after the checkout is put first on the path)
from kgtool.cli import main as kgtool_main  # noqa: E402
from kgtool.raw import graph as raw_graph  # noqa: E402
from kgtool.store import Store  # noqa: E402


def scored_kgtool() -> Path:
    """The kgtool package being scored, refused unless it is this checkout's."""
    package = Path(kgtool.__file__).resolve().parent
    if package != CHECKOUT / "kgtool":
        raise RuntimeError(f"scoring {package}, not this checkout's kgtool ({CHECKOUT})")
    return package


@dataclass
class Score:
    """Counts for one case, or summed over several."""

    cases: int = 0
    expected: int = 0
    bound: int = 0
    listed: int = 0
    right: Counter[str] = field(default_factory=Counter)  # tier -> right edges
    edges: Counter[str] = field(default_factory=Counter)  # tier -> scored edges
    left_out: Counter[str] = field(default_factory=Counter)  # why -> expected or kgtool edges
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.cases += other.cases
        self.expected += other.expected
        self.bound += other.bound
        self.listed += other.listed
        self.right.update(other.right)
        self.edges.update(other.edges)
        self.left_out.update(other.left_out)
        self.wrong.extend(other.wrong)
        self.missed.extend(other.missed)


def module_name(path: str) -> str:
    """``pkg/mod.py`` -> ``pkg.mod``; ``pkg/__init__.py`` -> ``pkg``."""
    parts = path.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def dotted_name(node_id: str) -> str:
    path, _, qualname = node_id.partition("::")
    module = module_name(path)
    return f"{module}.{qualname}" if qualname and module else qualname or module


def kg_records(root: Path) -> list[dict]:
    """Layer 1's records with their defaults spelled out, read by kgtool's own reader (the
    shards leave out what a default says: an edge's source, its tier, a node's ``rec``)."""
    loaded = raw_graph.load(Store(root))
    if loaded is None or loaded.data is None:
        raise RuntimeError(f"no readable layer 1 under {root}")
    return list(raw_graph.records(loaded.data))


def build_graph(case: Path) -> list[dict]:
    """kgtool's layer 1 for one case, committed to a fresh git repository."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        shutil.copytree(case, root, ignore=shutil.ignore_patterns(*NOT_PROGRAM))
        env_git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run([*env_git, "commit", "-qm", "case", "--allow-empty"], cwd=root, check=True)
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = kgtool_main(["-C", str(root), "update", "-q"])
        if code != 0:
            raise RuntimeError(f"kgtool update failed on {case}: {err.getvalue()}")
        return kg_records(root)


class KgGraph:
    """kgtool's call edges of one case, with names as PyCG writes them."""

    def __init__(self, records: list[dict]) -> None:
        self.kinds = {r["id"]: r["kind"] for r in records if r["rec"] == "node"}
        self.bases: dict[str, list[str]] = {}
        for r in sorted(
            (r for r in records if r["rec"] == "edge" and r["type"] == "inherits"),
            key=lambda r: (r["src"], r["line"]),
        ):
            if r.get("dst"):
                self.bases.setdefault(r["src"], []).append(r["dst"])
        self.calls = [r for r in records if r["rec"] == "edge" and r["type"] == "calls"]

    def caller(self, node_id: str) -> str:
        """The function or module a call is made from: a class body's calls are its scope's."""
        while self.kinds.get(node_id) == "class":
            path, _, qualname = node_id.partition("::")
            parent = qualname.rpartition(".")[0]
            node_id = f"{path}::{parent}" if parent else path
        return dotted_name(node_id)

    def callee(self, node_id: str) -> str:
        """PyCG's name for what an edge to ``node_id`` runs; "" for a class with no __init__."""
        if self.kinds.get(node_id) != "class":
            return dotted_name(node_id)
        found = self._init_of(node_id, 0)
        return dotted_name(found) if found else ""

    def _init_of(self, class_id: str, depth: int) -> str:
        if f"{class_id}.__init__" in self.kinds:
            return f"{class_id}.__init__"
        for base in self.bases.get(class_id, []) if depth < 8 else []:
            found = self._init_of(base, depth + 1)
            if found:
                return found
        return ""


def strip_lambdas(name: str) -> str:
    """``main.func.<lambda1>`` -> ``main.func``: the named scope a lambda's calls belong to."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.startswith("<lambda"):
            return ".".join(parts[:i])
    return name


def modules_of(case: Path) -> set[str]:
    """The dotted names of the snippet's own modules."""
    return {module_name(path.relative_to(case).as_posix()) for path in case.rglob("*.py")} - {""}


def of_the_snippet(name: str, modules: set[str]) -> bool:
    """Whether ``name`` lies in one of the snippet's modules (not a builtin, not ``ext.f``)."""
    parts = name.split(".")
    return any(".".join(parts[:n]) in modules for n in range(1, len(parts) + 1))


def expected_edges(
    truth: dict[str, list[str]], modules: set[str], left_out: Counter[str]
) -> set[tuple[str, str]]:
    expected = set()
    for caller, callees in truth.items():
        for callee in callees:
            if callee not in truth or not of_the_snippet(callee, modules):
                left_out["external"] += 1
            elif "<lambda" in callee:
                left_out["lambda"] += 1
            else:
                expected.add((strip_lambdas(caller), callee))
    return expected


def score_case(case: Path, label: str) -> Score:
    result = Score(cases=1)
    truth = json.loads((case / TRUTH_FILE).read_text())
    expected = expected_edges(truth, modules_of(case), result.left_out)
    graph = KgGraph(build_graph(case))
    bound: set[tuple[str, str]] = set()
    listed: set[tuple[str, str]] = set()
    for edge in sorted(graph.calls, key=lambda e: (e["src"], e["line"], e.get("dst", ""))):
        caller = graph.caller(edge["src"])
        tier = edge["tier"]
        if tier == "AMBIGUOUS":
            callees = {graph.callee(c) for c in edge["candidates"]} - {""}
            hits = {(caller, c) for c in callees} & expected
            listed |= hits
            right = bool(hits)
            shown = "|".join(sorted(callees))
        else:
            callee = graph.callee(edge["dst"])
            if not callee:
                result.left_out["ctor"] += 1
                continue
            right = (caller, callee) in expected
            if right:
                bound.add((caller, callee))
            shown = callee
        result.edges[tier] += 1
        result.right[tier] += right
        if not right:
            result.wrong.append(f"{label}: {tier} {caller} -> {shown} (line {edge['line']})")
    listed |= bound
    result.expected = len(expected)
    result.bound = len(bound)
    result.listed = len(listed)
    result.missed = [f"{label}: {s} -> {d}" for s, d in sorted(expected - listed)]
    return result


def snippets_of(checkout: Path) -> Path:
    for candidate in (checkout / "micro-benchmark" / "snippets", checkout / "snippets", checkout):
        if candidate.is_dir() and any(candidate.glob(f"*/*/{TRUTH_FILE}")):
            return candidate
    raise SystemExit(f"no micro-benchmark snippets under {checkout}")


def commit_of(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def ratio(right: int, total: int) -> str:
    return f"{right / total:.3f} ({right}/{total})" if total else "–"


def table(scores: dict[str, Score], total: Score) -> list[str]:
    lines = [
        "| category | cases | expected | recall (bound) | recall (listed) | EXTRACTED precision "
        "| INFERRED precision | AMBIGUOUS listed right | left out: external / lambda / ctor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in [*scores.items(), ("**all**", total)]:
        lines.append(
            f"| {name} | {s.cases} | {s.expected} | {ratio(s.bound, s.expected)} "
            f"| {ratio(s.listed, s.expected)} | "
            + " | ".join(ratio(s.right[t], s.edges[t]) for t in TIERS)
            + f" | {s.left_out['external']} / {s.left_out['lambda']} / {s.left_out['ctor']} |"
        )
    return lines


def report(checkout: Path, scores: dict[str, Score], total: Score, details: bool) -> str:
    lines = [
        "# Python call edges against PyCG's micro-benchmark",
        "",
        f"Benchmark: PyCG micro-benchmark at commit `{commit_of(checkout)}` "
        f"({total.cases} cases, {total.expected} expected edges to functions of the snippets).",
        "",
        "Rerun: `git clone https://github.com/vitsalis/PyCG /tmp/pycg && "
        f"git -C /tmp/pycg checkout {commit_of(checkout)} && "
        "python bench/callgraph_benchmark.py /tmp/pycg --out bench/results/callgraph-benchmark.md`",
        "",
        "How the graphs are compared (see the script's docstring): an edge is a (caller, callee) "
        "pair; module-level calls have the module (`main`, kgtool's file node) as caller, a class "
        "body's calls its enclosing scope; kgtool's edge to a class stands for the `__init__` the "
        "class runs; expected edges to builtins and external names (not functions of the "
        "snippet) and to lambdas are left out, as kgtool has no nodes for them; calls inside a "
        "lambda belong to its enclosing scope. Precision is per kgtool edge (call site), recall "
        "per expected pair.",
        "",
        *table(scores, total),
        "",
        f"Wrong EXTRACTED/INFERRED edges and AMBIGUOUS edges without the right candidate "
        f"({len(total.wrong)}):",
        "",
        *(f"- {w}" for w in total.wrong),
    ]
    if details:
        lines += ["", f"Expected edges not bound nor listed ({len(total.missed)}):", ""]
        lines += [f"- {m}" for m in total.missed]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("checkout", type=Path, help="a checkout of PyCG (or its snippets folder)")
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    parser.add_argument("--details", action="store_true", help="list the missed edges too")
    parser.add_argument("--category", action="append", help="score only these categories")
    args = parser.parse_args(argv)
    print(f"scoring {scored_kgtool()}", file=sys.stderr)
    snippets = snippets_of(args.checkout)
    scores: dict[str, Score] = {}
    total = Score()
    for category in sorted(p for p in snippets.iterdir() if p.is_dir()):
        if args.category and category.name not in args.category:
            continue
        score = Score()
        for case in sorted(p for p in category.iterdir() if (p / TRUTH_FILE).exists()):
            score.add(score_case(case, f"{category.name}/{case.name}"))
        scores[category.name] = score
        total.add(score)
    text = report(args.checkout, scores, total, args.details)
    if args.out:
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
