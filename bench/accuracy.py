"""Call-edge accuracy of layer 1 against hand-checked ground truth.

Each folder under tests/fixtures/accuracy/<language>/ (tuning fixtures: the resolver was
developed against them) and tests/fixtures/accuracy_held_out/<language>/ (held-out fixtures:
their truth was written before kgtool first ran on them, and the resolver is never tuned on
them; once it is, the fixture moves to the tuning set) is a small program plus
``expected_calls.json``: every call site that targets a symbol of the program, as
``{"src": caller ID, "dst": callee ID, "line": N}`` (a ``tier`` key, when present, records the
tier the writer expects, for the reader; it is not scored). The program is committed to a fresh git
repository, ``kgtool update`` runs on it, and its ``calls`` edges are scored:

- precision per tier: an EXTRACTED or INFERRED edge is right when (src, dst, line) is in the
  truth; an AMBIGUOUS edge is right when the true callee is among its candidates;
- recall: the share of true call sites bound to the right callee (EXTRACTED or INFERRED), and
  the share that are at least listed (adding AMBIGUOUS candidates).

kgtool runs in this process, imported from this checkout (put first on ``sys.path``, and
checked): a subprocess would score whichever kgtool its interpreter imports, an installed copy
rather than the code under test.

``--write`` scores every fixture and records the results in bench/results/accuracy.json, the
figures tests/test_accuracy.py holds the code to. Nothing else writes that file: a figure that
moves fails the test until this script records it again.

Usage: python bench/accuracy.py [--write | FIXTURE_DIR ...]
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
FIXTURES = CHECKOUT / "tests" / "fixtures" / "accuracy"
HELD_OUT = CHECKOUT / "tests" / "fixtures" / "accuracy_held_out"
SETS = {"tuning": FIXTURES, "held-out": HELD_OUT}
TRUTH_FILE = "expected_calls.json"
RESULTS = CHECKOUT / "bench" / "results" / "accuracy.json"

if str(CHECKOUT) not in sys.path[:1]:
    sys.path.insert(0, str(CHECKOUT))

import kgtool  # noqa: E402  (after the checkout is put first on the path)
from kgtool.cli import main as kgtool_main  # noqa: E402
from kgtool.raw.graph import load  # noqa: E402
from kgtool.raw.graph import records as raw_records  # noqa: E402
from kgtool.store import Store  # noqa: E402


def scored_kgtool() -> Path:
    """The kgtool package being scored, refused unless it is this checkout's."""
    package = Path(kgtool.__file__).resolve().parent
    if package != CHECKOUT / "kgtool":
        raise RuntimeError(f"scoring {package}, not this checkout's kgtool ({CHECKOUT})")
    return package


def score(fixture: Path) -> dict:
    truth = {
        (c["src"], c["dst"], c["line"]) for c in json.loads((fixture / TRUTH_FILE).read_text())
    }
    sites: dict[tuple[str, int], set[str]] = {}
    for src, dst, line in truth:
        sites.setdefault((src, line), set()).add(dst)
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "repo"
        shutil.copytree(fixture, root, ignore=shutil.ignore_patterns(TRUTH_FILE))
        env_git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run([*env_git, "commit", "-qm", "fixture"], cwd=root, check=True)
        scored_kgtool()
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = kgtool_main(["-C", str(root), "update", "-q"])
        if code != 0:
            raise RuntimeError(f"kgtool update failed on {fixture.name}: {err.getvalue()}")
        loaded = load(Store(root))
        assert loaded is not None and loaded.data is not None
        records = list(raw_records(loaded.data))
    calls = [r for r in records if r["rec"] == "edge" and r["type"] == "calls"]
    tiers: dict[str, list[int]] = {}
    bound, listed = set(), set()
    wrong: list[str] = []
    for edge in calls:
        key = (edge["src"], edge["line"])
        if edge["tier"] == "AMBIGUOUS":
            hits = sites.get(key, set()) & set(edge["candidates"])
            right = bool(hits)
            listed.update((edge["src"], dst, edge["line"]) for dst in hits)
        else:
            triple = (edge["src"], edge["dst"], edge["line"])
            right = triple in truth
            if right:
                bound.add(triple)
                listed.add(triple)
        if not right:
            target = edge.get("dst") or edge.get("candidates")
            wrong.append(f"{edge['tier']}: {edge['src']} -> {target} line {edge['line']}")
        counts = tiers.setdefault(edge["tier"], [0, 0])
        counts[0] += right
        counts[1] += 1
    missed = sorted(f"{s} -> {d} line {n}" for s, d, n in truth if (s, d, n) not in listed)
    return {
        "fixture": fixture.name,
        "truth": len(truth),
        "precision": {tier: round(c[0] / c[1], 3) for tier, c in sorted(tiers.items())},
        "edges": {tier: c[1] for tier, c in sorted(tiers.items())},
        "recall_bound": round(len(bound) / len(truth), 3),
        "recall_listed": round(len(listed) / len(truth), 3),
        "wrong": wrong,
        "missed": missed,
    }


def fixtures_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if (p / TRUTH_FILE).exists())


def set_of(fixture: Path) -> str:
    parent = fixture.resolve().parent
    return next((name for name, folder in SETS.items() if folder == parent), "other")


def key_of(fixture: Path) -> str:
    """The fixture's name in the record: ``held-out/go``."""
    return f"{set_of(fixture)}/{fixture.name}"


def all_fixtures() -> list[Path]:
    return [fixture for folder in SETS.values() for fixture in fixtures_of(folder)]


def render(record: dict[str, dict]) -> str:
    """The record as --write writes it, so that a hand-edited file reads as one."""
    return json.dumps(record, indent=1) + "\n"


def recorded() -> dict[str, dict]:
    return json.loads(RESULTS.read_text())


def main(argv: list[str]) -> int:
    write = "--write" in argv
    paths = [a for a in argv if a != "--write"]
    if write and paths:
        # The record holds every fixture: a partial run would drop the others.
        print("--write scores every fixture; name none", file=sys.stderr)
        return 2
    fixtures = [Path(a) for a in paths] or all_fixtures()
    print(f"scoring {scored_kgtool()}", file=sys.stderr)
    record = {}
    for fixture in fixtures:
        result = score(fixture)
        record[key_of(fixture)] = result
        print(json.dumps({"set": set_of(fixture), **result}, indent=2))
    if write:
        RESULTS.write_text(render(record))
        print(f"wrote {RESULTS.relative_to(CHECKOUT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
