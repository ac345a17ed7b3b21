"""Committed ``.kg/`` files that parse but hold values of the wrong type, against every reader.

Builds the repository of ``hostile_probe.py`` (its map and offline labels committed), lists
every value in the committed ``.kg/`` files (each field of each layer-1 shard record, every
node of communities.json and ontology.yaml, the backquoted names and counts of the MAP
pages), then per seeded trial replaces one value with a value of another type (string,
integer, list, object, null, boolean, float, a huge integer, a long string) or leaves it
out, commits it and runs the commands that read ``.kg/``. A run fails the trial when it raises
out of kgtool (what a user sees as a traceback) or exits with a code the command does not
document; the original bytes are put back before the next trial.

Commands run in this process (``kgtool.cli.main``): a trial costs a tenth of what a process
per command would, and an exception is caught with its type and the kgtool line it left.

Usage: python bench/hostile_shapes.py [--trials N] [--seed S] [--keep]
Prints trials and failures per file kind, then each distinct failure with one case for it.

Measured (seeds 27 and 1 to 5, 400 trials each, 13 commands a trial): on the code before the
read path checked shapes, 378 of 2,400 trials failed (communities.json 219 of 627, shards 137
of 609, ontology.yaml 22 of 614, MAP pages 0 of 550), from 43 places in kgtool (TypeError,
ValueError, KeyError, IndexError); after, 0 of 2,400.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hostile_probe import COMMANDS as PROBE_COMMANDS
from hostile_probe import FILES, GIT_ENV, git

from kgtool.cli import main

MISSING = object()  # not a value: the key (or list item) is left out
HUGE = 10**40  # past 64 bits: what marshal, struct and C-level code refuse
REPLACEMENTS: list[Any] = ["x", 7, -1, [], [1], ["a", "b", "c"], {}, {"a": 1}, None, True]
REPLACEMENTS += [1.5, HUGE, "x" * 10_000, MISSING]
# hostile_probe.py's commands (the writing run apart: each trial's damage must stay to be
# read) and those that read what a wrong type can reach besides.
COMMANDS: list[tuple[list[str], set[int]]] = [
    *((argv, codes) for argv, codes in PROBE_COMMANDS if argv != ["update"]),
    (["explain", "app/store.py::Store.save"], {0, 2}),
    (["explain", "c1"], {0, 2}),
    (["playbooks", "check"], {0, 1, 2}),
    (["label", "--offline"], {0, 1, 2}),
]


class Site(NamedTuple):
    file: str  # under .kg/
    line: int  # the shard line (0: the whole file)
    path: tuple[Any, ...]  # keys and indexes down to the value


class Failure(NamedTuple):
    command: str
    what: str  # the exception and the kgtool line it left, or the exit code


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every node's path in a JSON-like value, containers included (not the root)."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from leaves(item, (*path, number))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if len(path) == 1 and new is MISSING:
        del value[path[0]]
    elif len(path) == 1:
        value[path[0]] = new
    else:
        replaced(value[path[0]], path[1:], new)
    return value


MAP_VALUE = re.compile(r"`[^`\n]+`|\(\d+\)|\| \d+ \|")


def sites(kg: Path) -> list[Site]:
    found = []
    for path in sorted(kg.rglob("*")):
        name = path.relative_to(kg).as_posix()
        if name.endswith(".jsonl"):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                found += [Site(name, number, p) for p in leaves(json.loads(line))]
        elif name.endswith(".json"):
            found += [Site(name, 0, p) for p in leaves(json.loads(path.read_text()))]
        elif name.endswith(".yaml"):
            found += [Site(name, 0, p) for p in leaves(yaml.safe_load(path.read_text()))]
        elif name.endswith(".md"):
            found += [Site(name, 0, (m.start(),)) for m in MAP_VALUE.finditer(path.read_text())]
    return found


def mutate(kg: Path, site: Site, new: Any) -> None:
    path = kg / site.file
    text = path.read_text()
    if site.file.endswith(".jsonl"):
        lines = text.split("\n")
        record = replaced(json.loads(lines[site.line - 1]), site.path, new)
        lines[site.line - 1] = json.dumps(record, sort_keys=True, separators=(",", ":"))
        text = "\n".join(lines)
    elif site.file.endswith(".json"):
        text = json.dumps(replaced(json.loads(text), site.path, new), indent=2) + "\n"
    elif site.file.endswith(".yaml"):
        text = yaml.safe_dump(replaced(yaml.safe_load(text), site.path, new), sort_keys=False)
    else:
        at = site.path[0]
        end = MAP_VALUE.match(text, at)
        assert end is not None
        shown = "" if new is MISSING else new if isinstance(new, str) else json.dumps(new)
        text = text[:at] + (f"`{shown}`" if shown else "") + text[end.end() :]
    path.write_text(text)


def run(root: Path, argv: list[str], codes: set[int]) -> str:
    """Empty when the command ended as documented, else what went wrong."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["-C", str(root), "-q", *argv])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    except BaseException as exc:  # every escape is what the probe counts
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/kgtool/" in f.filename]
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        return f"{type(exc).__name__} at {where}"
    if "Traceback" in err.getvalue():
        return "a traceback on stderr"
    return "" if code in codes else f"exit {code}"


def build(root: Path) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    for argv in (["update"], ["label", "--offline"]):
        assert not run(root, argv, {0}), argv
    git(root, "add", "-A")
    git(root, "commit", "-qm", "map")


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=150)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--keep", action="store_true", help="keep the repository, say where")
    args = parser.parse_args(argv)
    os.environ.update(GIT_ENV)
    work = Path(tempfile.mkdtemp(prefix="hostile-shapes-"))
    os.environ.update(
        {
            "GITHUB_ACTIONS": "true",
            "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
            "GITHUB_OUTPUT": str(work / "output.txt"),
            "GITHUB_REPOSITORY": "acme/app",
        }
    )
    os.environ.pop("ANTHROPIC_API_KEY", None)
    root = work / "repo"
    build(root)
    kg = root / ".kg"
    by_kind: dict[str, list[Site]] = {}
    for site in sites(kg):
        by_kind.setdefault(site.file.rsplit(".", 1)[-1], []).append(site)
    chosen = random.Random(args.seed)
    trials: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    kinds: dict[Failure, tuple[int, str]] = {}
    for _ in range(args.trials):
        # A kind of file first, then a value in it: shards hold most values, not most readers.
        site = chosen.choice(by_kind[chosen.choice(sorted(by_kind))])
        new = chosen.choice(REPLACEMENTS)
        kind = site.file.rsplit(".", 1)[-1]
        trials[kind] += 1
        mutate(kg, site, new)
        git(root, "commit", "-q", "--allow-empty", "-am", "shape")
        shown = repr(new) if not isinstance(new, str) or len(new) < 20 else "a long string"
        shown = "a huge integer" if new is HUGE else "left out" if new is MISSING else shown
        case = f".kg/{site.file}{f':{site.line}' if site.line else ''} {list(site.path)} = {shown}"
        bad = False
        for command, codes in COMMANDS:
            what = run(root, command, codes)
            if what:
                bad = True
                failure = Failure(" ".join(command), what)
                count, first = kinds.get(failure, (0, case))
                kinds[failure] = (count + 1, first)
        failed[kind] += bad
        git(root, "reset", "-q", "--hard", "HEAD~1")
    print("| .kg/ file kind | trials | failed trials |\n|---|---:|---:|")
    for kind in sorted(trials):
        print(f"| {kind} | {trials[kind]} | {failed[kind]} |")
    print(f"| all | {sum(trials.values())} | {sum(failed.values())} |\n")
    for failure, (count, case) in sorted(kinds.items(), key=lambda item: -item[1][0]):
        print(f"{count:4} x {failure.command}: {failure.what}\n       e.g. {case}")
    if args.keep:
        print(f"\nrepository: {root}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if sum(failed.values()) else 0


if __name__ == "__main__":
    sys.exit(main_())
