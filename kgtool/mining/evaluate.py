"""``--evaluate``: how well the history before a cut predicts the changes after it.

Tasks (kept change sets with their follow-ups, oldest first) are cut at a share: the miner
learns from those before the cut and is scored on those after it, never the other way.

(a) Proposals: a later task matches a proposal when it changes the proposal's anchor and its
title says the same verb; the proposal's file set is scored against the task's (precision,
recall), and coverage is the share of later tasks that match one.

(b) Co-change prediction, the protocol of ROSE (Zimmermann et al., 2004): for each later task
of 2 to 30 files, each of its files in turn is the query and the rest is what should be
predicted. The miner ranks files by the confidence of the rule query -> file in the earlier
tasks (then support), filling up with the query's folder when the query is new; baselines
rank the most frequently changed files, and the most frequently changed files of the query's
folder. Precision@k and recall@k, hit@3 (a right file in the top 3) and MAP (average
precision over the top 10), each with a 95% bootstrap interval over later tasks (1,000
resamples, fixed seed).
"""

from __future__ import annotations

import posixpath
import random
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from kgtool.errors import KgError
from kgtool.mining.miner import Options, Progress, read_changes
from kgtool.mining.patterns import Task, find_patterns

K = 5
DEPTH = 10
MAX_QUERY_FILES = 30
RESAMPLES = 1000
SEED = 20040523  # ROSE's publication month: any fixed seed makes the intervals reproducible
METRICS = (f"precision@{K}", f"recall@{K}", "hit@3", "MAP")


class Interval(NamedTuple):
    mean: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.mean:.3f} [{self.low:.3f}, {self.high:.3f}]"


class Report(NamedTuple):
    train: int
    test: int
    proposals: int
    matched: int
    proposal_precision: Interval | None
    proposal_recall: Interval | None
    queries: int
    predictors: dict[str, dict[str, Interval]]

    def lines(self) -> list[str]:
        coverage = self.matched / self.test if self.test else 0.0
        lines = [
            f"mined {self.train} tasks before the cut, scored on {self.test} after it",
            f"(a) {self.proposals} proposals; {self.matched} later tasks matched one "
            f"(coverage {coverage:.3f})",
        ]
        if self.proposal_precision and self.proposal_recall:
            lines.append(f"    key-file precision {self.proposal_precision}")
            lines.append(f"    key-file recall    {self.proposal_recall}")
        lines.append(f"(b) co-change prediction, {self.queries} queries (mean [95% interval])")
        width = max(len(name) for name in self.predictors) if self.predictors else 0
        lines.append("    " + " " * width + "  " + "  ".join(f"{m:<22}" for m in METRICS))
        for name, values in self.predictors.items():
            cells = "  ".join(f"{values[m]!s:<22}" for m in METRICS)
            lines.append(f"    {name:<{width}}  {cells}")
        return lines


def evaluate(root: Path, options: Options, cut: float, progress: Progress | None = None) -> Report:
    if not 0.0 < cut < 1.0:
        raise KgError(f"--cut must be between 0 and 1, not {cut}")
    # The patterns are learnt from the tasks before the cut alone: none over the whole history.
    tasks = read_changes(root, options, progress).tasks()
    split = int(len(tasks) * cut)
    train, test = tasks[:split], tasks[split:]
    if len(train) < options.min_support or not test:
        raise KgError(
            f"{len(tasks)} tasks are too few to cut at {cut}: the history needs more changes"
        )
    patterns = find_patterns(train, options.min_support)[: options.max_proposals]
    rng = random.Random(SEED)
    samples = [rng.choices(range(len(test)), k=len(test)) for _ in range(RESAMPLES)]

    precision: list[float | None] = []
    recall: list[float | None] = []
    for task in test:
        match = next((p for p in patterns if p.anchor in task.items and p.verb == task.verb), None)
        if match is None:
            precision.append(None)
            recall.append(None)
            continue
        predicted = {item for item, _ in match.items}
        hit = len(predicted & set(task.items))
        precision.append(hit / len(predicted))
        recall.append(hit / len(task.items))
    matched = sum(p is not None for p in precision)

    model = CoChange(train)
    predictors: dict[str, Callable[[str], list[str]]] = {
        "miner (rules)": model.rules,
        "most frequent": model.popular,
        "same folder": model.folder,
    }
    scores: dict[str, list[list[tuple[float, ...]]]] = {name: [] for name in predictors}
    queries = 0
    for task in test:
        files = task.files
        per: dict[str, list[tuple[float, ...]]] = {name: [] for name in predictors}
        if 2 <= len(files) <= MAX_QUERY_FILES:
            for query in files:
                expected = set(files) - {query}
                queries += 1
                for name, predict in predictors.items():
                    per[name].append(_score(predict(query), expected))
        for name in predictors:
            scores[name].append(per[name])
    return Report(
        train=len(train),
        test=len(test),
        proposals=len(patterns),
        matched=matched,
        proposal_precision=_interval(precision, samples) if matched else None,
        proposal_recall=_interval(recall, samples) if matched else None,
        queries=queries,
        predictors={
            name: {
                metric: _interval_of_queries(scores[name], index, samples)
                for index, metric in enumerate(METRICS)
            }
            for name in predictors
        },
    )


def _score(ranked: list[str], expected: set[str]) -> tuple[float, ...]:
    top = ranked[:K]
    hits = sum(f in expected for f in top)
    found, precisions = 0, []
    for rank, path in enumerate(ranked[:DEPTH], 1):
        if path in expected:
            found += 1
            precisions.append(found / rank)
    average = sum(precisions) / min(len(expected), DEPTH) if expected else 0.0
    return (
        hits / K,
        hits / len(expected),
        1.0 if any(f in expected for f in ranked[:3]) else 0.0,
        average,
    )


def _interval(values: list[float | None], samples: list[list[int]]) -> Interval:
    """Mean of the defined values, and its 95% interval over resampled later tasks."""

    def mean(indices: range | list[int]) -> float:
        chosen = [value for value in (values[i] for i in indices) if value is not None]
        return sum(chosen) / len(chosen) if chosen else 0.0

    return _bounds(mean(range(len(values))), sorted(mean(s) for s in samples))


def _interval_of_queries(
    per_task: list[list[tuple[float, ...]]], metric: int, samples: list[list[int]]
) -> Interval:
    def mean(indices: range | list[int]) -> float:
        chosen = [q[metric] for i in indices for q in per_task[i]]
        return sum(chosen) / len(chosen) if chosen else 0.0

    return _bounds(mean(range(len(per_task))), sorted(mean(s) for s in samples))


def _bounds(value: float, resampled: list[float]) -> Interval:
    low = resampled[int(0.025 * len(resampled))]
    high = resampled[min(len(resampled) - 1, int(0.975 * len(resampled)))]
    return Interval(value, low, high)


class CoChange:
    """What the earlier tasks say about which files change together."""

    def __init__(self, tasks: list[Task]) -> None:
        self.count: Counter[str] = Counter()
        self.pairs: dict[str, Counter[str]] = defaultdict(Counter)
        self.by_folder: dict[str, list[str]] = defaultdict(list)
        for task in tasks:
            files = task.files
            self.count.update(files)
            if len(files) > MAX_QUERY_FILES:  # a sweep says little about any one pair
                continue
            for a in files:
                row = self.pairs[a]
                for b in files:
                    if a != b:
                        row[b] += 1
        ranked = sorted(self.count, key=lambda p: (-self.count[p], p))
        self.ranked = ranked
        for path in ranked:
            self.by_folder[posixpath.dirname(path)].append(path)

    def popular(self, query: str) -> list[str]:
        return [p for p in self.ranked[: DEPTH + 1] if p != query][:DEPTH]

    def folder(self, query: str) -> list[str]:
        same = self.by_folder.get(posixpath.dirname(query), [])
        return [p for p in same[: DEPTH + 1] if p != query][:DEPTH]

    def rules(self, query: str) -> list[str]:
        row = self.pairs.get(query)
        ranked: list[str] = []
        if row:
            ranked = sorted(row, key=lambda p: (-row[p], -self.count[p], p))[:DEPTH]
        # A file the history has not seen changing with others: its folder is the best guess.
        for path in self.folder(query):
            if len(ranked) >= DEPTH:
                break
            if path not in ranked:
                ranked.append(path)
        return ranked
