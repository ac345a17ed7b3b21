"""How many of a real change's files and symbols `kgtool context` surfaces, against a keyword
search and aider's repository map.

    python bench/context_eval.py [--tasks-per-repo N] [--out DIR] [--repos a,b] [--json FILE]
                                 [--context-only] [--aider-python PATH] [NAME=SOURCE ...]
    python bench/context_eval.py --task "plain words" --repo NAME [--budget B] [--out DIR]

SOURCE is a git repository (a bare mirror will do) with a long history; the defaults are six
public repositories mirrored on this machine, two of them held out (HELD_OUT: named before
the ranking was tuned on the other four, and reported apart). Each is cloned (bare) into DIR.
The tasks are chosen by a fixed rule, never by hand:

    walking the first-parent history of HEAD from the newest commit, take the first N commits
    (20 by default) that are not merges, whose subject (without a trailing "(#123)") has at
    least 4 words and is not a release, version bump, revert, merge, dependency, typo,
    formatting, lint or changelog-only change, and that modify 2 to 10 code files (a suffix
    layer 1 parses) which exist at the parent commit (added files cannot be found in a map of
    the parent).

The task text is the commit's subject; the answer is that set of modified code files. Each
task gets its own worktree of the clone, at the parent, under DIR/NAME/<commit>, mapped there
(`kgtool update`, then `kgtool label --offline`, as a user with no API key would have it; when
labelling fails the task is measured on the unlabelled map, and the summary says so), and is
asked:

    kgtool context "<subject>" --budget B     for B in 4,000, 12,000 and 32,000 characters

An answer file counts as surfaced when its path appears in the output. Two baselines get the
same tree and budget:

- a keyword search: the subject's words (3 letters or more, common words dropped as
  `context` drops them), `git grep -n -i -F` each, files ranked by distinct words found then
  by matching lines, each file printed as its path and its matching lines ("  12:text")
  until the budget is spent;
- aider's repository map (aider-chat 0.86.2, run by bench/aider_map.py in its own virtual
  environment, offline): the subject's words as mentioned identifiers, files named by one of
  them as mentioned files, every tracked code file as a file outside the chat; its text cut
  at the budget. Left out, and said so, without `--aider-python`.

Recall is macro-averaged over tasks (each task's share of its answer files surfaced), and also
given as all answer files pooled. Symbols, at 12,000 characters: the layer-1 symbols of the
answer files (at the parent) whose line range overlaps an old-side hunk of
`git diff -U0 parent commit` are the ones the commit changed; `context` names one when its
`path:line` (the definition's first line) is in the output, the keyword search when it printed
that line. The summary gives each repository, then the tuning set, the held-out set and all.

A later run with the same DIR reuses everything the ranking does not decide: the clones, the
worktrees (only `kgtool update` runs again, cheap when nothing changed; labelling is not
redone) and the baselines' answers (DIR/baselines.json). Tasks run two at a time.
`--context-only` computes no baseline that is not in that cache.

`--task "plain words" --repo NAME` instead prints what `context` and the keyword search answer
for a task written by hand, at the repository's newest commit, for a person to judge.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sources import source_of  # noqa: E402
from kgtool.query.words import STOP_WORDS  # noqa: E402
from kgtool.raw.graph import load, records  # noqa: E402
from kgtool.store import Store  # noqa: E402

BUDGETS = (4_000, 12_000, 32_000)
SYMBOL_BUDGET = 12_000
DEFAULT_REPOS = {
    "pytest": "pytest-dev/pytest",  # Python
    "apprise": "caronc/apprise",  # Python, plugins
    "pi-mono": "badlogic/pi-mono",  # TypeScript monorepo
    "cobra": "spf13/cobra",  # Go
    "httpx": "encode/httpx",  # Python
    "trpc": "trpc/trpc",  # TypeScript monorepo
}
# Named before the ranking was tuned on the others, and reported apart: figures on these two
# say how the ranking does on repositories it was not fitted to.
HELD_OUT = ("httpx", "trpc")
# The python of a virtual environment with aider-chat installed, for its repository map.
AIDER_PYTHON_ENV = "KGTOOL_BENCH_AIDER_PYTHON"
AIDER_MAP = Path(__file__).resolve().parent / "aider_map.py"
CODE_SUFFIXES = (
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".go", ".java",
    ".rs",
)  # fmt: skip
MIN_FILES, MAX_FILES = 2, 10
MIN_WORDS = 4
SKIP_SUBJECT = re.compile(
    r"^(merge|revert|release|bump|prepare|preparing)\b|\bversion\b|\bdependenc|\btypos?\b|"
    r"\bformat(ting)?\b|\blint|\bpre-commit\b|\bchangelog\b|\bchanges\.rst\b|\bdeps?\b",
    re.IGNORECASE,
)
PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
MATCHING_LINES = 5  # lines the baseline prints per file
PRINTED_LINE = re.compile(r"  (\d+):")  # how the keyword baseline prints a matching line
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? ", re.MULTILINE)
# The baselines' answers do not depend on kgtool: kept across runs, keyed by this format (a
# change to a baseline's rule must change it) and by task and budget.
BASELINE_CACHE = "baselines.json"
BASELINE_FORMAT = 2
LABELLED = ".labelled"  # beside a task's worktree: `kgtool label --offline` ran there
JOBS = 2  # the machine has two cores
SLOW_STEP = 3600  # seconds: a kgtool or aider run that takes longer is stuck


class Task(NamedTuple):
    repo: str
    commit: str
    parent: str
    subject: str
    answer: list[str]


class Symbol(NamedTuple):
    """A layer-1 symbol of an answer file, at the parent: where it is defined, to what line."""

    path: str
    qualname: str
    line: int
    end: int


class Hits(NamedTuple):
    """What the keyword search found: per path, the words it matched and its matching lines
    (line number, text) in file order."""

    words: dict[str, set[str]]
    lines: dict[str, list[tuple[int, str]]]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def kgtool(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = str(ROOT)  # the kgtool of this checkout, wherever the bench runs from
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", "-C", str(repo), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=SLOW_STEP,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"kgtool {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def choose_tasks(repo: Path, name: str, count: int, tip: str) -> list[Task]:
    """The rule of the module docstring, applied to the first-parent history of ``tip``."""
    log = git(
        repo, "log", "--first-parent", "--no-merges", "--format=%H%x00%P%x00%s", "-n5000", tip
    )
    tasks: list[Task] = []
    for line in log.splitlines():
        commit, parents, subject = line.split("\0", 2)
        subject = PR_SUFFIX.sub("", subject).strip()
        if len(parents.split()) != 1 or len(subject.split()) < MIN_WORDS:
            continue
        if SKIP_SUBJECT.search(subject):
            continue
        parent = parents.split()[0]
        status = git(repo, "diff", "--name-status", "--no-renames", parent, commit)
        modified = [
            entry.split("\t", 1)[1]
            for entry in status.splitlines()
            if entry.startswith(("M\t", "D\t")) and entry.endswith(CODE_SUFFIXES)
        ]
        if not MIN_FILES <= len(modified) <= MAX_FILES:
            continue
        tasks.append(Task(name, commit, parent, subject, sorted(modified)))
        if len(tasks) == count:
            break
    return tasks


def keyword_hits(repo: Path, task: str) -> Hits:
    """Every tracked line that holds one of the task's words, by path (each line once)."""
    words = sorted(
        {w.lower() for w in re.findall(r"[A-Za-z0-9_]+", task)} - STOP_WORDS,
        key=lambda w: (-len(w), w),
    )
    words = [w for w in words if len(w) >= 3 and not w.isdigit()]
    hits = Hits({}, {})
    seen: dict[str, set[int]] = {}
    # Lines go in the order found: the longest word's first, each file's in its order.
    for word in words:
        done = subprocess.run(
            ["git", "-C", str(repo), "grep", "-z", "-n", "-I", "-i", "-F", "-e", word],
            capture_output=True,
            text=True,
            errors="replace",
        )
        # -z: path NUL line NUL text, so a path may hold ':' and still be read back.
        for hit in done.stdout.splitlines():
            path, number, text = [*hit.split("\0", 2), "", ""][:3]
            if path.startswith(".kg/") or not number.isdigit():
                continue
            hits.words.setdefault(path, set()).add(word)
            if int(number) not in seen.setdefault(path, set()):
                seen[path].add(int(number))
                hits.lines.setdefault(path, []).append((int(number), text))
    return hits


def keyword_text(hits: Hits, budget: int) -> str:
    """The keyword search as printed, until ``budget`` characters."""
    ranked = sorted(hits.words, key=lambda p: (-len(hits.words[p]), -len(hits.lines[p]), p))
    out = ""
    for path in ranked:
        shown = hits.lines[path][:MATCHING_LINES]
        block = path + "\n" + "".join(f"  {f'{number}:{text}'[:200]}\n" for number, text in shown)
        if len(out) + len(block) > budget:
            # A path alone may still fit: a search tool lists files before their lines.
            block = path + "\n"
            if len(out) + len(block) > budget:
                break
        out += block
    return out


def keyword_baseline(repo: Path, task: str, budget: int) -> str:
    """Keyword search over the checked-out tree, printed until ``budget`` characters."""
    return keyword_text(keyword_hits(repo, task), budget)


def printed_lines(text: str) -> dict[str, set[int]]:
    """The keyword search's output read back: per path, the numbers of the lines it printed."""
    lines: dict[str, set[int]] = {}
    path = ""
    for line in text.splitlines():
        printed = PRINTED_LINE.match(line)
        if printed and path:
            lines[path].add(int(printed.group(1)))
        elif not line.startswith(" "):
            path = line
            lines.setdefault(path, set())
    return lines


def surfaced(answer: list[str], text: str) -> list[str]:
    return [path for path in answer if path in text]


def code_files(worktree: Path) -> list[str]:
    return [
        path
        for path in git(worktree, "ls-files", "-z").split("\0")
        if path.endswith(CODE_SUFFIXES) and not path.startswith(".kg/")
    ]


def aider_maps(aider_python: Path, worktree: Path, task: str) -> dict[int, str]:
    """aider's repository map of ``worktree`` for ``task`` at each budget."""
    request = {
        "budgets": list(BUDGETS),
        "files": code_files(worktree),
        "root": str(worktree),
        "task": task,
    }
    # aider ranks by walking sets of strings: its map changes with the hash seed.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [str(aider_python), str(AIDER_MAP)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=SLOW_STEP,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"aider's map failed: {done.stderr.strip()[-500:]}")
    return {int(budget): text for budget, text in json.loads(done.stdout).items()}


def layer1_symbols(worktree: Path, paths: Iterable[str]) -> list[Symbol]:
    """The symbols layer 1 holds for ``paths`` (functions, methods, classes... with a span)."""
    wanted = set(paths)
    layer1 = load(Store(worktree))
    if layer1 is None or layer1.data is None:
        raise RuntimeError(f"{worktree}: no readable layer 1 under .kg/raw/")
    symbols = []
    for record in records(layer1.data):
        span = record.get("span")
        if record.get("kind") in ("file", "package") or record.get("external") or not span:
            continue
        if record.get("file") in wanted:
            qualname = str(record["id"])[len(record["file"]) + 2 :]
            symbols.append(Symbol(record["file"], qualname, int(span[0]), int(span[-1])))
    return sorted(symbols)


def old_side_hunks(worktree: Path, task: Task, path: str) -> list[tuple[int, int]]:
    """The parent's lines the task's commit changed in ``path``, as (first, last) ranges; a
    hunk that only inserts after line n is (n, n - 1)."""
    diff = git(worktree, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
               task.parent, task.commit, "--", path)  # fmt: skip
    ranges = []
    for hunk in HUNK.finditer(diff):
        first, count = int(hunk.group(1)), int(hunk.group(2) or 1)
        ranges.append((first, first + count - 1))
    return ranges


def changed(symbol: Symbol, hunks: list[tuple[int, int]]) -> bool:
    for first, last in hunks:
        if last < first:  # lines inserted after ``first``: inside a symbol that holds both sides
            if symbol.line <= first < symbol.end:
                return True
        elif symbol.line <= last and first <= symbol.end:
            return True
    return False


def changed_symbols(worktree: Path, task: Task) -> list[Symbol]:
    symbols = layer1_symbols(worktree, task.answer)
    found = []
    for path in task.answer:
        hunks = old_side_hunks(worktree, task, path)
        found += [s for s in symbols if s.path == path and changed(s, hunks)]
    return found


def named_by_context(symbol: Symbol, text: str) -> bool:
    where = re.escape(f"{symbol.path}:{symbol.line}")
    return re.search(rf"(?<![\w./-]){where}(?!\d)", text) is not None


def symbol_id(symbol: Symbol) -> str:
    return f"{symbol.path}::{symbol.qualname}"


class Bench:
    """One run: the clones and task worktrees under ``out``, and the baselines' cache."""

    def __init__(self, out: Path, aider_python: Path | None, context_only: bool) -> None:
        self.out = out
        self.aider_python = aider_python
        self.context_only = context_only
        self.cache_path = out / BASELINE_CACHE
        self.cache: dict[str, Any] = {}
        try:
            document = json.loads(self.cache_path.read_text())
            if document.get("format") == BASELINE_FORMAT:
                self.cache = document["answers"]
        except (OSError, ValueError, KeyError, AttributeError):
            pass
        self.lock = threading.Lock()  # the cache, and worktrees added to one clone

    def clone(self, name: str, source: str) -> Path:
        clone = self.out / "clones" / f"{name}.git"
        if not clone.exists():
            clone.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "clone", "-q", "--bare", source, str(clone)], check=True)
        return clone

    def worktree(self, clone: Path, name: str, label: str, commit: str) -> tuple[Path, str]:
        """A worktree of ``clone`` at ``commit``, mapped: added and labelled once, updated on
        every run (the read indexes are built by `kgtool update`); and why labelling failed
        ("" when it did not). Then the ontology it wrote is removed (`update` would refuse
        it) and the map is measured unlabelled; labelling is tried again on the next run."""
        worktree = self.out / name / label
        if not (worktree / ".git").exists():
            with self.lock:
                shutil.rmtree(worktree, ignore_errors=True)  # a run killed while adding it
                git(clone, "worktree", "prune")
                git(clone, "worktree", "add", "-q", "--detach", str(worktree), commit)
        labelled = worktree.parent / f"{label}{LABELLED}"
        ontology = worktree / ".kg" / "ontology.yaml"
        if not labelled.exists():
            # What a failed label run left: `kgtool update` refuses to run beside it.
            ontology.unlink(missing_ok=True)
        kgtool(worktree, "update", "-q")
        if not labelled.exists():
            try:
                kgtool(worktree, "label", "--offline", "-q")
            except RuntimeError as error:
                ontology.unlink(missing_ok=True)
                kgtool(worktree, "update", "-q")
                return worktree, str(error)
            labelled.touch()
        return worktree, ""

    def cached(self, task: Task, budget: int) -> dict[str, Any]:
        """The baselines' answers at ``budget`` that an earlier run kept."""
        with self.lock:
            return dict(self.cache.get(f"{task.commit}:{budget}", {}))

    def remember(self, task: Task, answers: dict[int, dict[str, Any]]) -> None:
        with self.lock:
            for budget, answer in answers.items():
                self.cache.setdefault(f"{task.commit}:{budget}", {}).update(answer)
            document = {"answers": self.cache, "format": BASELINE_FORMAT}
            temporary = self.cache_path.with_suffix(".tmp")
            temporary.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
            temporary.replace(self.cache_path)

    def evaluate(self, clone: Path, task: Task) -> dict[str, Any]:
        worktree, label_error = self.worktree(clone, task.repo, task.commit[:12], task.parent)
        symbols = changed_symbols(worktree, task)
        row: dict[str, Any] = {
            "repo": task.repo,
            "held_out": task.repo in HELD_OUT,
            "commit": task.commit[:12],
            "task": task.subject,
            "answer": task.answer,
            "symbols": [symbol_id(s) for s in symbols],
            "context": {},
            "keyword": {},
            "aider": {},
            "symbols_named": {},
            "seconds": [],
        }
        if label_error:
            row["label_error"] = label_error
        cached = {budget: self.cached(task, budget) for budget in BUDGETS}
        computed: dict[int, dict[str, Any]] = {}
        if not self.context_only and any("keyword" not in cached[b] for b in BUDGETS):
            hits = keyword_hits(worktree, task.subject)
            for budget in BUDGETS:
                text = keyword_text(hits, budget)
                lines = printed_lines(text)
                computed.setdefault(budget, {})["keyword"] = {
                    "files": surfaced(task.answer, text),
                    "lines": {p: sorted(lines[p]) for p in task.answer if p in lines},
                }
        wants_aider = any("aider" not in cached[b] for b in BUDGETS)
        if not self.context_only and self.aider_python and wants_aider:
            for budget, text in aider_maps(self.aider_python, worktree, task.subject).items():
                computed.setdefault(budget, {})["aider"] = {"files": surfaced(task.answer, text)}
        if computed:
            self.remember(task, computed)
            for budget, answer in computed.items():
                cached[budget].update(answer)
        for budget in BUDGETS:
            started = time.perf_counter()
            text = kgtool(worktree, "context", task.subject, "--budget", str(budget))
            row["seconds"].append(round(time.perf_counter() - started, 3))
            if len(text) > budget:
                row.setdefault("over_budget", []).append(budget)
            row["context"][budget] = surfaced(task.answer, text)
            if budget == SYMBOL_BUDGET:
                row["symbols_named"]["context"] = [
                    symbol_id(s) for s in symbols if named_by_context(s, text)
                ]
            for side in ("keyword", "aider"):
                if side in cached[budget]:
                    row[side][budget] = cached[budget][side]["files"]
            keyword = cached[SYMBOL_BUDGET].get("keyword")
            if budget == SYMBOL_BUDGET and keyword is not None:
                row["symbols_named"]["keyword"] = [
                    symbol_id(s) for s in symbols if s.line in keyword["lines"].get(s.path, ())
                ]
        return row


def run_tasks(
    bench: Bench, work: list[tuple[Path, Task]], report: Callable[[dict[str, Any]], None]
) -> list[dict[str, Any]]:
    """Every task's row, in the order given, the tasks run ``JOBS`` at a time."""

    def one(item: tuple[Path, Task]) -> dict[str, Any]:
        clone, task = item
        try:
            row = bench.evaluate(clone, task)
        except (RuntimeError, subprocess.SubprocessError, OSError, ValueError) as error:
            row = {"repo": task.repo, "commit": task.commit[:12], "task": task.subject,
                   "answer": task.answer, "error": str(error)}  # fmt: skip
        report(row)
        return row

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        return list(pool.map(one, work))


def progress_line(row: dict[str, Any]) -> str:
    head = f"{row['repo']} {row['commit'][:8]}"
    if "error" in row:
        return f"{head} FAILED: {row['error']}"
    if "label_error" in row:
        head += " (unlabelled)"
    shown = " ".join(
        f"{b // 1000}k {len(row['context'][b])}"
        f"/{len(row['keyword'].get(b, ())) if b in row['keyword'] else '-'}"
        f"/{len(row['aider'].get(b, ())) if b in row['aider'] else '-'}"
        for b in BUDGETS
    )
    named = row["symbols_named"]
    symbols = f"symbols {len(named.get('context', ()))}/{len(named.get('keyword', ()))}"
    return (f"{head} [{shown} of {len(row['answer'])}; {symbols} of {len(row['symbols'])}] "
            f"{row['task'][:60]}")  # fmt: skip


def share(rows: list[dict[str, Any]], found: Callable[[dict[str, Any]], list[str] | None],
          total: Callable[[dict[str, Any]], list[str]]) -> str:  # fmt: skip
    """'macro / pooled' of ``found`` over ``total`` across the rows that have ``found``."""
    counted = [(len(f), len(total(r))) for r in rows if (f := found(r)) is not None and total(r)]
    if not counted:
        return "—"
    macro = sum(hit / whole for hit, whole in counted) / len(counted)
    pooled = sum(hit for hit, _ in counted) / sum(whole for _, whole in counted)
    note = "" if len(counted) == len([r for r in rows if total(r)]) else f" ({len(counted)})"
    return f"{macro:.2f} / {pooled:.2f}{note}"


def summary(results: list[dict[str, Any]], names: list[str]) -> str:
    done = [r for r in results if "error" not in r]
    tuning = [n for n in names if n not in HELD_OUT]
    held_out = [n for n in names if n in HELD_OUT]
    groups: list[tuple[str, list[str]]] = [(n, [n]) for n in names]
    if tuning and held_out:
        groups += [(f"tuning ({', '.join(tuning)})", tuning),
                   (f"held-out ({', '.join(held_out)})", held_out)]  # fmt: skip
    if len(names) > 1:
        groups.append(("all", names))
    lines = [
        "Recall of the answer files, macro / pooled (a count in brackets: tasks that have "
        "that column, when not all do).",
        "",
        "| repository | tasks | answer files | budget | context | keyword search | aider map |",
        "|---|---|---|---|---|---|---|",
    ]
    for group, members in groups:
        rows = [r for r in done if r["repo"] in members]
        if not rows:
            continue
        files = sum(len(r["answer"]) for r in rows)
        for budget in BUDGETS:
            cells = [
                share(rows, lambda r, s=side, b=budget: r[s].get(b), lambda r: r["answer"])
                for side in ("context", "keyword", "aider")
            ]
            lines.append(f"| {group} | {len(rows)} | {files} | {budget // 1000}k | "
                         + " | ".join(cells) + " |")  # fmt: skip
    lines += [
        "",
        f"Changed symbols named within {SYMBOL_BUDGET // 1000}k, macro (over tasks that changed "
        "a symbol) / pooled.",
        "",
        "| repository | tasks | changed symbols | context | keyword search |",
        "|---|---|---|---|---|",
    ]
    for group, members in groups:
        rows = [r for r in done if r["repo"] in members and r["symbols"]]
        if not rows:
            continue
        cells = [
            share(rows, lambda r, s=side: r["symbols_named"].get(s), lambda r: r["symbols"])
            for side in ("context", "keyword")
        ]
        count = sum(len(r["symbols"]) for r in rows)
        lines.append(f"| {group} | {len(rows)} | {count} | " + " | ".join(cells) + " |")
    failed = [r for r in results if "error" in r]
    if failed:
        lines += ["", f"{len(failed)} tasks failed and are left out:"]
        lines += [f"- {r['repo']} {r['commit']}: {r['error']}" for r in failed]
    unlabelled = [r for r in done if r.get("label_error")]
    if unlabelled:
        lines += ["", f"{len(unlabelled)} tasks are measured on a map `kgtool label --offline` "
                  "failed to label (as a user would have it), first:",
                  f"- {unlabelled[0]['repo']} {unlabelled[0]['commit']}: "
                  f"{unlabelled[0]['label_error']}"]  # fmt: skip
    over = [r for r in done if r.get("over_budget")]
    if over:
        lines += ["", "`context` answered over its budget:"]
        lines += [f"- {r['repo']} {r['commit']} at {r['over_budget']}" for r in over]
    return "\n".join(lines)


def hand_task(bench: Bench, name: str, source: str, task: str, budget: int) -> str:
    """What `context` and the keyword search answer for ``task`` at the newest commit."""
    clone = bench.clone(name, source)
    tip = git(clone, "rev-parse", "HEAD").strip()
    worktree, label_error = bench.worktree(clone, name, f"tip-{tip[:12]}", tip)
    answer = kgtool(worktree, "context", task, "--budget", str(budget))
    keyword = keyword_baseline(worktree, task, budget)
    unlabelled = f"(left unlabelled: {label_error})\n\n" if label_error else ""
    return (f"# {name} at {tip[:12]}: {task!r}, {budget} characters\n\n{unlabelled}"
            f"## kgtool context ({len(answer)} characters)\n\n{answer}\n"
            f"## keyword search ({len(keyword)} characters)\n\n{keyword}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", metavar="NAME=SOURCE")
    parser.add_argument("--tasks-per-repo", type=int, default=20)
    parser.add_argument("--out", type=Path, help="clones, worktrees and the baselines' cache "
                        "(kept, and reused by the next run); default: a temp dir")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write every task's result here")
    parser.add_argument("--repos", help="only these repositories (names, comma-separated)")
    parser.add_argument("--context-only", action="store_true",
                        help="compute no baseline that is not cached under --out")  # fmt: skip
    aider = os.environ.get(AIDER_PYTHON_ENV)
    parser.add_argument("--aider-python", type=Path, default=Path(aider) if aider else None,
                        help="python of a virtual environment with aider-chat==0.86.2 "
                        f"(default: ${AIDER_PYTHON_ENV})")  # fmt: skip
    parser.add_argument("--task", help="a task in plain words: print the answers to it")
    parser.add_argument("--repo", help="with --task: the repository (a NAME of the sources)")
    parser.add_argument("--budget", type=int, default=SYMBOL_BUDGET, help="with --task")
    args = parser.parse_args()
    sources = (
        dict(s.split("=", 1) for s in args.sources)
        if args.sources
        else {name: source_of(repo) for name, repo in DEFAULT_REPOS.items()}
    )
    if args.repos:
        wanted = args.repos.split(",")
        unknown = [n for n in wanted if n not in sources]
        if unknown:
            parser.error(f"--repos: no repository named {', '.join(unknown)}")
        sources = {n: s for n, s in sources.items() if n in wanted}
    if args.task is not None and args.repo not in sources:
        parser.error(f"--task needs --repo, one of {', '.join(sources)}")
    work = args.out or Path(tempfile.mkdtemp(prefix="context-eval-"))
    work.mkdir(parents=True, exist_ok=True)
    bench = Bench(work.resolve(), args.aider_python, args.context_only)
    if args.task is not None:
        print(hand_task(bench, args.repo, sources[args.repo], args.task, args.budget))
        return 0
    if args.aider_python is None:
        print("no --aider-python (and none at the default): aider's map is left out",
              file=sys.stderr)  # fmt: skip
    work_list: list[tuple[Path, Task]] = []
    for name, source in sources.items():
        clone = bench.clone(name, source)
        tip = git(clone, "rev-parse", "HEAD").strip()
        tasks = choose_tasks(clone, name, args.tasks_per_repo, tip)
        print(f"{name}: {len(tasks)} tasks from the history of {tip[:12]}", file=sys.stderr)
        work_list += [(clone, task) for task in tasks]
    total = len(work_list)
    finished = [0]

    def report(row: dict[str, Any]) -> None:
        finished[0] += 1
        print(f"{finished[0]}/{total} {progress_line(row)}", file=sys.stderr, flush=True)

    results = run_tasks(bench, work_list, report)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(summary(results, list(sources)))
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
