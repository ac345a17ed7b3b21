"""--evaluate on a scripted history: the cut, the matched proposal, and the baselines."""

from __future__ import annotations

import re

import pytest
from conftest import Repo
from mining_helpers import add_provider, base_files, commit_at, task_of

from kgtool.errors import KgError
from kgtool.mining.evaluate import (
    DEPTH,
    METRICS,
    CoChange,
    Interval,
    Report,
    _bounds,
    _score,
    evaluate,
)
from kgtool.mining.miner import Options


def test_later_additions_are_predicted_by_the_pattern_before_the_cut(repo: Repo) -> None:
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    for hour, name in enumerate(["alpha", "beta", "gamma", "delta", "omega"]):
        add_provider(repo, name)
        commit_at(repo, f"Add {name} provider", 10 * (hour + 1))
        repo.write("app/cli.py", f"def main():\n    return {hour}\n")
        commit_at(repo, f"Tune the exit code to {hour}", 10 * (hour + 1) + 5)
    report = evaluate(repo.root, Options(), 0.8)
    assert (report.train, report.test) == (8, 2)
    # The one later addition ("omega") matches the proposal learnt from the first four.
    assert report.matched == 1
    assert report.proposal_precision is not None and report.proposal_precision.mean == 1.0
    lines = "\n".join(report.lines())
    assert "coverage 0.500" in lines
    assert "miner (rules)" in lines and "most frequent" in lines and "same folder" in lines
    # Run twice, same numbers: the bootstrap has a fixed seed.
    assert evaluate(repo.root, Options(), 0.8).lines() == report.lines()
    assert repo.kg("mine-playbooks", "--evaluate").out.splitlines() == report.lines()
    assert repo.kg("mine-playbooks", "--evaluate", "--cut", "1.5").code == 2


def test_rules_rank_what_changed_with_the_query_before_frequent_files(repo: Repo) -> None:
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    from kgtool.mining.filters import filter_change_sets
    from kgtool.mining.history import read_history
    from kgtool.mining.paths import Abstractor
    from kgtool.mining.patterns import make_tasks

    for hour in range(4):
        repo.write("app/cli.py", f"x = {hour}\n")
        repo.write("tests/test_cli.py", f"y = {hour}\n")
        commit_at(repo, f"cli {hour}", 10 * hour + 10)
    for hour in range(6):
        repo.write("app/providers/base.py", f"z = {hour}\n")
        commit_at(repo, f"base {hour}", 10 * hour + 100)
    history = read_history(repo.root)
    tasks = make_tasks(filter_change_sets(history.change_sets).kept, Abstractor([]))
    model = CoChange(tasks)
    assert model.rules("app/cli.py")[0] == "tests/test_cli.py"
    assert model.popular("app/cli.py")[0] == "app/providers/base.py"
    # Its folder's other files, most changed first (each once, in the first commit), never
    # the query itself.
    assert model.folder("tests/test_cli.py") == ["tests/test_base.py", "tests/test_config.py"]


def test_rules_break_a_tie_in_confidence_by_the_more_often_changed_file() -> None:
    model = CoChange(
        [
            task_of(1, "Edit", ["app/query.py", "lib/rare.py"]),
            task_of(2, "Edit", ["app/query.py", "lib/busy.py"]),
            task_of(3, "Edit", ["lib/busy.py", "docs/busy.md"]),
        ]
    )
    assert model.rules("app/query.py") == ["lib/busy.py", "lib/rare.py"]


def test_an_interval_runs_from_the_2_5th_to_the_97_5th_percentile_of_the_resamples() -> None:
    resampled = [n / 1000 for n in range(1000)]
    assert _bounds(0.5, resampled) == Interval(0.5, 0.025, 0.975)
    assert _bounds(0.5, [0.25, 0.75]) == Interval(0.5, 0.25, 0.75)


def test_the_tables_header_names_each_column_over_its_values() -> None:
    cell = Interval(0.5, 0.25, 0.75)
    report = Report(
        train=8,
        test=2,
        proposals=1,
        matched=1,
        proposal_precision=None,
        proposal_recall=None,
        queries=4,
        predictors={name: dict.fromkeys(METRICS, cell) for name in ("rules", "same folder")},
    )
    header, *rows = report.lines()[-3:]
    assert [row.split()[0] for row in rows] == ["rules", "same"]
    starts = [header.index(metric) for metric in METRICS]
    for row in rows:
        assert [m.start() for m in re.finditer(re.escape(str(cell)), row)] == starts, (header, row)


def test_a_later_task_of_the_proposals_verb_away_from_its_anchor_matches_nothing(
    repo: Repo,
) -> None:
    """A proposal matches a later task by its anchor and its verb together: "Add a page to
    the docs" says "add" as the providers' proposal does, but touches none of its files."""
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    for hour, name in enumerate(["alpha", "beta", "gamma", "delta", "omega"]):
        add_provider(repo, name)
        commit_at(repo, f"Add {name} provider", 10 * (hour + 1))
    repo.write_files({"docs/usage.md": "# Usage\n", "docs/index.md": "- usage\n"})
    commit_at(repo, "Add a usage page to the docs", 100)
    report = evaluate(repo.root, Options(), 0.6)
    assert (report.train, report.test, report.proposals) == (4, 3, 1)
    # delta and omega match, all their files predicted; the docs page is left out of
    # coverage and of the scores.
    assert report.matched == 2
    assert report.proposal_precision is not None and report.proposal_precision.mean == 1.0
    assert report.proposal_recall is not None and report.proposal_recall.mean == 1.0
    # Each file of a later task of two files or more is a query: 3 + 3 + 2.
    assert report.queries == 8


@pytest.mark.parametrize("cut", [0.0, 1.0])
def test_a_cut_that_leaves_either_side_empty_is_refused_as_such(repo: Repo, cut: float) -> None:
    """The cut is a share strictly between 0 and 1, and the error says so (not that the
    history is too short)."""
    with pytest.raises(KgError, match=f"--cut must be between 0 and 1, not {cut}"):
        evaluate(repo.root, Options(), cut)


def test_a_ranking_is_scored_by_precision_and_recall_at_5_hit_at_3_and_map() -> None:
    """Three files expected, found at ranks 1, 3 and 6: two in the top 5 (precision 2/5,
    recall 2/3), one in the top 3, and MAP the mean of the precisions where each was found
    (1/1, 2/3, 3/6) over the three."""
    ranked = ["a", "x", "b", "y", "z", "c", "w"]
    precision, recall, hit, average = _score(ranked, {"a", "b", "c"})
    assert precision == pytest.approx(2 / 5)
    assert recall == pytest.approx(2 / 3)
    assert hit == 1.0
    assert average == pytest.approx((1 + 2 / 3 + 3 / 6) / 3)
    assert _score(["x", "y", "z", "a"], {"a"}) == (0.2, 1.0, 0.0, 0.25)


def test_the_most_frequent_baseline_ranks_ten_files_the_query_left_out() -> None:
    """Files changed 12, 11, ... 1 times: the ten most changed, the query left out and the
    eleventh taken in its place."""
    paths = [f"lib/f{n:02}.py" for n in range(12)]
    tasks = [
        task_of(len(paths) * n + rank, "Edit", [path])
        for rank, path in enumerate(paths)
        for n in range(len(paths) - rank)
    ]
    model = CoChange(tasks)
    assert model.popular("docs/new.md") == paths[:DEPTH]
    assert model.popular(paths[0]) == paths[1 : DEPTH + 1]


def test_no_key_file_scores_are_given_when_no_later_task_matches(repo: Repo) -> None:
    """Later tasks that match no proposal leave its precision and recall unknown, not 0."""
    repo.write_files(base_files())
    commit_at(repo, "Initial layout", 0)
    for hour, name in enumerate(["alpha", "beta", "gamma"]):
        add_provider(repo, name)
        commit_at(repo, f"Add {name} provider", 10 * (hour + 1))
    repo.write("app/cli.py", "def main():\n    return 1\n")
    commit_at(repo, "Tune the exit code", 50)
    report = evaluate(repo.root, Options(), 0.8)
    assert (report.test, report.proposals, report.matched) == (1, 1, 0)
    assert report.proposal_precision is None and report.proposal_recall is None


def test_a_query_in_a_folder_the_history_never_saw_is_predicted_nothing() -> None:
    model = CoChange([task_of(1, "Edit", ["app/a.py", "app/b.py"])])
    assert model.folder("web/new.py") == []
    assert model.rules("web/new.py") == []


def test_files_always_changed_together_predict_each_other(repo: Repo) -> None:
    """app/a.py and app/b.py changed together five times before the cut, then once after
    it: each predicts the other first (hit@3, recall@5 and MAP 1), one right file in a top
    5 of at most five (precision@5 1/5)."""
    repo.write_files({"app/a.py": "A = 0\n", "app/b.py": "B = 0\n", "app/c.py": "C = 0\n"})
    commit_at(repo, "Initial layout", 0)
    for number in range(1, 6):
        repo.write_files({"app/a.py": f"A = {number}\n", "app/b.py": f"B = {number}\n"})
        commit_at(repo, f"Tune a and b to {number}", 240 * number)
    report = evaluate(repo.root, Options(), 0.85)
    assert (report.train, report.test, report.queries) == (5, 1, 2)
    means = {
        metric: interval.mean for metric, interval in report.predictors["miner (rules)"].items()
    }
    assert means == pytest.approx({"precision@5": 0.2, "recall@5": 1.0, "hit@3": 1.0, "MAP": 1.0})


def test_the_intervals_of_a_varied_history_are_the_same_run_after_run(repo: Repo) -> None:
    """Later tasks that each score differently make the resampled means spread out; the
    bootstrap's fixed seed gives the same intervals every run all the same."""
    files = [f"app/m{n}.py" for n in range(6)]
    repo.write_files({path: "X = 0\n" for path in files})
    commit_at(repo, "Initial layout", 0)
    for number in range(1, 25):
        # Pairs and triples in a changing order: a different neighbourhood each time.
        chosen = [files[(number * step) % len(files)] for step in (1, 2, 3)][: 2 + number % 2]
        repo.write_files({path: f"X = {number}\n" for path in chosen})
        commit_at(repo, f"Tune {number}", 240 * number)
    first, second = evaluate(repo.root, Options(), 0.5), evaluate(repo.root, Options(), 0.5)
    rules = first.predictors["miner (rules)"]
    assert any(interval.low < interval.high for interval in rules.values()), rules
    assert first.predictors == second.predictors
