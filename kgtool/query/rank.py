"""One ranking of a repository's files for a task, from every piece of evidence the layers
hold, each kept so that the answer can cite it.

- **Names**: the task's words in a file's path and its symbols' names (layer 1).
- **Content**: BM25 over each file's identifiers, comments and docstrings
  (:mod:`kgtool.query.content_index`).
- **History**: past change sets whose messages match the task, their files weighted by how
  well and how recently they matched (:mod:`kgtool.query.history_index`); a task done several
  times before brings the files those changes had in common.
- **The graph**: a personalized PageRank from the files the evidence above found, over
  layer-1 edges, so that a match's registration point, test and re-export rise with it.
- **Scope**: a task naming a folder (a package, an area) scores inside it first.
- **Kind**: code before docs, data and manifests; a lock file or an ignore list is never an
  answer unless the task names it.

Each signal is scaled to its best file (1.0) before they are summed, so that none drowns the
others by its units. Ties are broken by path: the same question gives the same order.
"""

from __future__ import annotations

import math
import posixpath
from collections.abc import Mapping
from typing import NamedTuple

from kgtool.communities.packages import MANIFESTS
from kgtool.file_kinds import in_data_folder, is_lock_file, is_test
from kgtool.query.history_index import HistoryIndex
from kgtool.query.lexical import Lexicon, Searcher
from kgtool.query.words import identifier_words, meets_any

NAMES_WEIGHT = 1.0
CONTENT_WEIGHT = 1.0
HISTORY_WEIGHT = 0.8
GRAPH_WEIGHT = 0.5
# History: the best-matching change sets read, those within this share of the best one's
# score, a change set of more files than this being a sweep (a rename, a reformat) that says
# nothing about a task's files; recency halves a change's weight every HALF_LIFE seconds.
HISTORY_CHANGES = 30
HISTORY_FLOOR = 0.35
SWEEP_FILES = 40
HALF_LIFE = 2 * 365 * 24 * 3600
# The walk: restarts at the evidence this often, steps this many times, from this many files.
RESTART = 0.5
STEPS = 10
SEEDS = 20
# Kinds of file, by how likely a task's change lies in one.
CODE, TEST, DOCS, DATA, NOISE = 1.0, 0.85, 0.35, 0.25, 0.02
SCOPE_BOOST = 1.6
HISTORY_KIND_FLOOR = 0.6
DOC_SUFFIXES = (".md", ".mdx", ".rst", ".txt", ".adoc")
# Besides lock files (file_kinds.LOCK_FILES): ignore lists and the legal and ownership files.
NOISE_NAMES = frozenset(
    {
        ".gitignore", ".gitattributes", ".npmignore", ".dockerignore", ".prettierignore",
        ".eslintignore", "license", "license.md", "license.txt", "codeowners", ".mailmap",
    }
)  # fmt: skip
# Folder names that say where code sits, not what it is: never a task's scope.
GENERIC_FOLDERS = frozenset(
    {
        "src", "lib", "libs", "test", "tests", "spec", "docs", "doc", "packages", "package",
        "internal", "pkg", "util", "utils", "common", "app", "apps", "examples", "example",
        "scripts", "script", "bin", "cmd", "source", "sources", "main", "java", "python",
        "testing", "fixtures", "types", "dist", "build", "modules", "crates", "plugins",
    }
)  # fmt: skip
MIN_SCOPE_FILES = 2
MAX_SCOPE_SHARE = 0.8


class Ranked(NamedTuple):
    """A file and why it ranks where it does."""

    path: str
    score: float
    names: list[str]  # task terms in its path or symbol names
    content: list[str]  # task terms inside it
    history: list[str]  # ids of matching past changes, best first
    via: list[tuple[str, int]]  # (evidence file, edges) it joins
    scope: str = ""  # the folder named by the task it lies in
    walked: bool = False  # found by the walk alone (via: the evidence files next to it)


class Evidence:
    """The scores of each signal, per file, before they are combined, and what each found:
    the task's terms in a file's names or inside it, the past changes that touched it."""

    __slots__ = (
        "content",
        "content_terms",
        "history",
        "history_changes",
        "name_terms",
        "names",
    )

    names: dict[str, float]
    name_terms: dict[str, list[str]]
    content: dict[str, float]
    content_terms: dict[str, list[str]]
    history: dict[str, float]
    history_changes: dict[str, list[str]]

    def __init__(self) -> None:
        self.names = {}
        self.name_terms = {}
        self.content = {}
        self.content_terms = {}
        self.history = {}
        self.history_changes = {}


def content_evidence(evidence: Evidence, lexicon: Lexicon, terms: list[str]) -> None:
    for path, hit in Searcher(lexicon).search(terms).items():
        evidence.content[path] = hit.score
        evidence.content_terms[path] = hit.terms


def history_evidence(
    evidence: Evidence, history: HistoryIndex, terms: list[str], known: Mapping[str, object]
) -> None:
    """Files of the past change sets that match the task best, each change weighted by its
    match, its recency, and shared among its files (known to the map)."""
    hits = Searcher(history.lexicon).search(terms)
    if not hits or not history.changes:
        return
    changes = history.changes
    # Equal matches: the newer first (it is how the task is done now).
    best = sorted(
        hits.items(),
        key=lambda item: (
            -round(item[1].score, 9),
            -(changes[item[0]].time if item[0] in changes else 0),
            item[0],
        ),
    )
    newest = max(change.time for change in changes.values())
    top = best[0][1].score
    for change_id, hit in best[:HISTORY_CHANGES]:
        if hit.score < HISTORY_FLOOR * top:
            break
        change = history.changes.get(change_id)
        if change is None or len(change.files) > SWEEP_FILES:
            continue
        files = [path for path in change.files if path in known]
        if not files:
            continue
        recency = 0.5 ** (max(newest - change.time, 0) / HALF_LIFE)
        weight = hit.score * (0.5 + 0.5 * recency) / math.sqrt(len(files))
        for path in files:
            evidence.history[path] = evidence.history.get(path, 0.0) + weight
            evidence.history_changes.setdefault(path, []).append(change_id)


def _scaled(scores: Mapping[str, float]) -> dict[str, float]:
    best = max(scores.values(), default=0.0)
    return {path: score / best for path, score in scores.items()} if best > 0 else {}


def personalized_pagerank(
    neighbours: Mapping[str, tuple[tuple[str, int], ...]], seeds: Mapping[str, float]
) -> dict[str, float]:
    """Where a walk that keeps restarting at ``seeds`` (in proportion to their weight) and
    follows layer-1 edges (in proportion to their counts) spends its time."""
    total = sum(seeds.values())
    if total <= 0:
        return {}
    restart = {path: weight / total for path, weight in seeds.items()}
    rank = dict(restart)
    for _ in range(STEPS):
        step = {path: RESTART * weight for path, weight in restart.items()}
        for path in sorted(rank):
            mass = (1 - RESTART) * rank[path]
            joined = neighbours.get(path, ())
            edges = sum(count for _, count in joined)
            if not edges:
                step[path] = step.get(path, 0.0) + mass
                continue
            for other, count in joined:
                step[other] = step.get(other, 0.0) + mass * count / edges
        rank = step
    return rank


def kind_weight(path: str, terms: list[str], code: bool) -> float:
    """How likely a task's change lies in a file of this kind."""
    name = posixpath.basename(path).lower()
    if name in NOISE_NAMES or is_lock_file(name):
        # Unless the task is about it: "ignore build output" meets .gitignore.
        named = identifier_words(name)
        return CODE if any(meets_any(t, named) for t in terms) else NOISE
    if code:
        return TEST if is_test(path) else CODE
    if in_data_folder(path):
        return DATA
    if name.endswith(DOC_SUFFIXES) or "/docs/" in f"/{path}":
        return DOCS
    return DATA


def scopes(paths: list[str], terms: list[str]) -> list[str]:
    """The packages the task names: folders holding a package manifest (as layer 2 has
    them: package.json, go.mod, ...) every word of whose name is among the task's words, most
    files first. A folder that is not a package ("client", "extensions") is a word of the
    task like any other, matched by the names and contents of files, not a scope."""
    # A package as layer 2 knows one: a folder holding one of its manifests.
    roots = {posixpath.dirname(p) for p in paths if posixpath.basename(p) in MANIFESTS}
    roots.discard("")
    counts = dict.fromkeys(roots, 0)
    for path in paths:
        folder = posixpath.dirname(path)
        while folder:
            if folder in counts:
                counts[folder] += 1
            folder = posixpath.dirname(folder)
    total = max(len(paths), 1)
    found = []
    for folder, count in counts.items():
        name = posixpath.basename(folder).lower()
        if name in GENERIC_FOLDERS or len(name) < 3:
            continue
        if not MIN_SCOPE_FILES <= count <= MAX_SCOPE_SHARE * total:
            continue
        words = identifier_words(name)
        if words and all(any(t == w or meets_any(t, {w}) for t in terms) for w in words):
            found.append(folder)
    # A package inside another named one is the same scope said twice: keep the outer.
    outer = [f for f in found if not any(f.startswith(o + "/") for o in found)]
    return sorted(outer, key=lambda f: (-counts[f], f))


def combine(
    evidence: Evidence,
    paths: list[str],
    neighbours: Mapping[str, tuple[tuple[str, int], ...]],
    code: set[str],
    terms: list[str],
) -> list[Ranked]:
    """The files with any evidence, best first."""
    names = _scaled(evidence.names)
    content = _scaled(evidence.content)
    history = _scaled(evidence.history)
    known = set(paths)
    kinds: dict[str, float] = {}

    def kind(path: str) -> float:
        if path not in kinds:
            kinds[path] = kind_weight(path, terms, path in code)
        return kinds[path]

    # A lock file or an ignore list is never an answer unless the task names it.
    known = {path for path in known if kind(path) != NOISE}
    direct: dict[str, float] = {}
    for signal, weight in ((names, NAMES_WEIGHT), (content, CONTENT_WEIGHT)):
        for path, score in signal.items():
            if path in known:
                direct[path] = direct.get(path, 0.0) + weight * score * kind(path)
    # What similar past changes touched is evidence of its own: a registry, a changelog, a
    # spec file changed with every such change is part of the task, whatever its kind.
    for path, score in history.items():
        if path in known:
            shown = max(kind(path), HISTORY_KIND_FLOOR)
            direct[path] = direct.get(path, 0.0) + HISTORY_WEIGHT * score * shown
    seeds = dict(sorted(direct.items(), key=lambda i: (-round(i[1], 9), i[0]))[:SEEDS])
    walk = personalized_pagerank(neighbours, seeds)
    # The walk's own share: what it adds beyond restarting at the seeds.
    reached = {p: r - RESTART * seeds.get(p, 0.0) / max(sum(seeds.values()), 1e-12)
               for p, r in walk.items() if p in known}  # fmt: skip
    reached = _scaled({p: r for p, r in reached.items() if r > 1e-12})
    named_scopes = scopes(paths, terms)
    ranked = []
    for path in sorted(set(direct) | set(reached)):
        score = direct.get(path, 0.0)
        joined = reached.get(path, 0.0) * kind(path)
        score += GRAPH_WEIGHT * joined
        scope = next((f for f in named_scopes if path.startswith(f + "/")), "")
        if scope:
            score *= SCOPE_BOOST
        walked = path not in direct
        via = []
        if walked:
            via = [(other, count) for other, count in neighbours.get(path, ()) if other in seeds]
        ranked.append(
            Ranked(
                path,
                score,
                evidence.name_terms.get(path, []),
                evidence.content_terms.get(path, []),
                evidence.history_changes.get(path, []),
                via[:2],
                scope,
                walked,
            )
        )
    ranked.sort(key=lambda r: (-round(r.score, 9), r.path))
    return ranked
