"""--evaluate on a scripted history: the cut, the matched proposal, and the baselines."""

from __future__ import annotations

import re

from conftest import Repo
from mining_helpers import add_provider, base_files, commit_at, task_of

from kgtool.mining.evaluate import METRICS, CoChange, Interval, Report, _bounds, evaluate
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
