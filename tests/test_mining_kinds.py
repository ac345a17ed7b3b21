"""What is a task to propose: changes titled alike in words or adding files of one kind, done
the way the tree still allows, recently; not a busy file's history, one plugin's test data, a
layout that is gone, or a run of version bumps whatever their titles say."""

from __future__ import annotations

import math
from collections import Counter
from typing import cast

import pytest
from conftest import Repo
from mining_helpers import commit_at
from test_mining_tasks import DAY, edit, layout

from kgtool.config import load_config
from kgtool.mining.history import ChangeSet, FileChange
from kgtool.mining.instances import instances_alike
from kgtool.mining.miner import Options, mine, mine_history
from kgtool.mining.paths import Abstractor, same_kind
from kgtool.mining.patterns import (
    CROWDED_FILES,
    CROWDED_FOLDERS,
    Pattern,
    Task,
    _crowded,
    _inside_a_member,
    _joined,
    _one_component,
    _one_member,
    _specificity,
    names_its_kind,
    object_of,
)
from kgtool.playbook.layer1 import Layer1
from kgtool.repo import changed_text
from kgtool.store import Store

PLUGINS = [f"plugin{letter}" for letter in "abcdefghijklmnopqrstuvwx"]


def commit_edits(repo: Repo, changes: list[tuple[str, list[str]]]) -> None:
    """One commit per (title, paths), each path edited, ten days apart: none a quick
    follow-up of the one before."""
    for number, (title, paths) in enumerate(changes):
        for path in paths:
            edit(repo, path, f"# {number}")
        commit_at(repo, title, DAY * 10 * (number + 1))


def assert_no_task(repo: Repo) -> None:
    """The history of ``repo`` holds no pattern (its candidates said when one is found)."""
    patterns = mine_history(repo.root, Options()).patterns
    assert patterns == [], [(p.template, [i for i, _ in p.items]) for p in patterns]


def mined_titles(repo: Repo, **options: object) -> tuple[list[str], list[str]]:
    """The proposals' titles of a dry run, and its summary."""
    result = mine(repo.root, load_config(repo.root), Store(repo.root),
                  Options(dry_run=True, llm=False, **options))  # type: ignore[arg-type]  # fmt: skip
    return [p.title for p, _, _ in result.proposals], result.summary()


def test_a_busy_files_history_is_not_a_task_however_its_titles_agree(repo: Repo) -> None:
    layout(repo)
    repo.write_files({"tests/test_attach_http.py": "# tests\n"})
    commit_at(repo, "Add attachment tests", DAY)
    # Every title says "add" and "attachment", no three of them alike: the history of one
    # test file, not a task (and not upkeep: "add" is no "change" or "fix").
    titles = ("Add attachment naming", "Add attachment limits", "Add lazy attachment",
              "Add bigger attachment", "Add quiet attachment errors",
              "Add lazy attachment downloads")  # fmt: skip
    for number, title in enumerate(titles):
        edit(repo, "tests/test_attach_http.py", f"# case {number}")
        edit(repo, "core/dispatch.py", f"# case {number}")
        commit_at(repo, title, DAY * (number + 2))
    assert_no_task(repo)


def test_test_data_added_inside_one_plugin_of_many_is_not_a_task(repo: Repo) -> None:
    layout(repo)
    plugin_files = [f"plugins/inputs/{name}/{name}{end}" for name in PLUGINS
                    for end in (".go", "_test.go")]  # fmt: skip
    repo.write_files(dict.fromkeys(plugin_files, "package x\n"))
    repo.write_files({"plugins/inputs/kibana/kibana_client.go": "package x\n"})
    commit_at(repo, "Add the input plugins", DAY)
    # The family is busy: each plugin a small share of what changes in it.
    for round in range(6):
        for path in plugin_files:
            edit(repo, path, f"// round {round}")
        commit_at(repo, f"Tune the plugins, round {round}", DAY * (round + 1) + 12)
    for number in range(5):
        repo.write_files(
            {
                f"plugins/inputs/kibana/cases/reply_{100 + number}.out": "ok\n",
                f"plugins/inputs/kibana/cases_{number}.go": "package x\n",
            }
        )
        edit(repo, "plugins/inputs/kibana/kibana_client.go", f"// {number}")
        commit_at(repo, f"Handle odd reply {number} of kibana", DAY * (number + 10))
    patterns = mine_history(repo.root, Options()).patterns
    kibana = [p for p in patterns if any("kibana" in item for item, _ in p.items)]
    assert kibana == [], [(p.anchor, [i for i, _ in p.items]) for p in kibana]


def test_a_kind_of_file_named_in_common_words_is_one_kind(repo: Repo) -> None:
    layout(repo)
    # Rule names made of words many paths share: no word of them is rare, yet each is one
    # more lib/rules/<name>.js, added with its test and its docs page.
    words = ("useless", "unused", "extra", "empty", "duplicate", "dangling")
    names = [f"no-{a}-{b}" for a in words for b in ("call", "assign", "value")]
    for number, name in enumerate(names):
        repo.write_files({f"lib/rules/{name}.js": "module.exports = {};\n",
                          f"tests/lib/rules/{name}.js": "// test\n",
                          f"docs/rules/{name}.md": f"# {name}\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"feat: add {name} rule", DAY * (number + 1))
    patterns = mine_history(repo.root, Options()).patterns
    assert patterns, "no task found"
    items = {item for item, _ in patterns[0].items}
    assert {"lib/rules/<name>.js", "tests/lib/rules/<name>.js", "docs/rules/<name>.md"} <= items
    assert patterns[0].support == len(names)


def test_kinds_read_by_their_slots() -> None:
    assert same_kind("apprise/plugins/<name>.py", "apprise/plugins/<name><n>.py")
    assert same_kind("lib/rules/no-<name>.js", "lib/rules/<name>.js")
    assert not same_kind("apprise/plugins/<name>.py", "apprise/plugins/fcm/<name>.py")
    assert not same_kind("lib/rules/<name>.js", "lib/rules/<name>.ts")
    added = [f"lib/rules/rule{n}.js" for n in range(10)]
    abstractor = Abstractor([*added, "lib/rules/index.js"], [[path] for path in added])
    assert abstractor.abstract("lib/rules/rules.js") == "lib/rules/<name>.js"
    fewer = Abstractor([*added, "lib/rules/index.js"], [[path] for path in added[:9]])
    assert fewer.abstract("lib/rules/rules.js") == "lib/rules/rules.js"
    at_once = Abstractor([*added, "lib/rules/index.js"], [added])  # ten files, one change
    assert at_once.abstract("lib/rules/rules.js") == "lib/rules/rules.js"


def test_a_run_of_version_bumps_is_set_aside_by_its_diffs(repo: Repo) -> None:
    layout(repo)
    pinned = {"Makefile": "GO_VERSION := 1.20.1\n", "scripts/install_go.sh": "V=1.20.1\n",
              "docker/ci.docker": "FROM golang:1.20.1\n"}  # fmt: skip
    repo.write_files(pinned)
    commit_at(repo, "Build with Go", DAY)
    for number, version in enumerate(("1.20.2", "1.21.0", "1.21.3", "1.22.0", "1.22.4")):
        repo.write_files({path: text.replace("1.20.1", version) for path, text in pinned.items()})
        # Titled as a task would be, and found as one from the titles and files alone.
        commit_at(repo, f"Add support for toolchain {version}", DAY * 10 * (number + 1))
    assert mine_history(repo.root, Options()).patterns, "the titles and files make a pattern"
    titles, summary = mined_titles(repo)
    assert titles == [], titles
    assert any("1 whose diffs rewrite only versions" in line for line in summary), summary


def test_a_task_whose_kind_of_file_is_gone_is_not_proposed(repo: Repo) -> None:
    layout(repo)
    for number, name in enumerate(("alpha", "beta", "gamma", "delta")):
        repo.write_files({f"old_pkg/extractor/{name}.py": "X = 1\n"})
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"[{name}] Add extractor", DAY * (number + 1))
    repo.git("rm", "-q", "-r", "old_pkg")
    commit_at(repo, "Drop the old package", DAY * 10)
    assert mine_history(repo.root, Options()).patterns, "the additions make a pattern"
    titles, summary = mined_titles(repo)
    assert titles == [], titles
    assert any("1 whose files (or the kind of file they add) are gone" in s for s in summary)


def test_a_task_last_done_long_ago_ranks_below_a_recent_one(repo: Repo) -> None:
    layout(repo)
    year = 365 * DAY
    for kind, start in (("exporter", 0), ("importer", 4 * year)):
        for number in range(4):
            name = f"{kind}{'abcd'[number]}x"
            repo.write_files({f"{kind}s/{name}.py": "X = 1\n", f"tests/{kind}s/test_{name}.py":
                              "def test(): pass\n"})  # fmt: skip
            commit_at(repo, f"Add the {name} {kind}", start + DAY * (number + 1))
    patterns = mine_history(repo.root, Options()).patterns
    anchors = [p.anchor for p in patterns]
    assert anchors[:2] == ["importers/<name>.py", "exporters/<name>.py"], anchors


def test_changes_adding_only_tests_and_their_data_are_not_a_task(repo: Repo) -> None:
    layout(repo)
    # Under a plugin's testcases/ folder: test data, though no folder says "test".
    for number in range(5):
        case = f"plugins/gnmi/testcases/issue_{200 + number}"
        repo.write_files({f"{case}/expected.out": "ok\n", f"{case}/input.json": "{}\n",
                          f"{case}/telegraf.conf": ""})  # fmt: skip
        commit_at(repo, f"Add a regression case for issue {200 + number}", DAY * (number + 1))
    assert_no_task(repo)


def test_fixes_titled_alike_that_add_nothing_are_upkeep(repo: Repo) -> None:
    layout(repo)
    busy = ["core/registry.py", "core/dispatch.py"]
    commit_edits(repo, [(f"Fix a false positive in check{letter}", busy) for letter in "abcde"])
    assert_no_task(repo)


def test_titles_naming_the_folder_of_what_is_added_rank_first(repo: Repo) -> None:
    layout(repo)
    for number in range(4):
        letter = "abcd"[number]
        # The same shape twice; only the first is called by its folder's name.
        repo.write_files({f"app/widgets/w{letter}x.py": "X = 1\n",
                          f"tests/widgets/test_w{letter}x.py": "def test(): pass\n"})  # fmt: skip
        commit_at(repo, f"Add the w{letter}x widget", DAY * (2 * number + 1))
        repo.write_files({f"app/helpers/h{letter}x.py": "X = 1\n",
                          f"tests/helpers/test_h{letter}x.py": "def test(): pass\n"})  # fmt: skip
        commit_at(repo, f"Add h{letter}x for the views", DAY * (2 * number + 2))
    anchors = [p.anchor for p in mine_history(repo.root, Options()).patterns]
    assert anchors[:2] == ["app/widgets/<name>.py", "app/helpers/<name>.py"], anchors


def test_one_task_in_two_layouts_is_one_proposal_and_two_families_stay_two(repo: Repo) -> None:
    layout(repo)
    hour = DAY
    old, new = ("alpha", "bravo", "charlie", "delta"), ("echo", "foxtrot", "golf", "hotel")
    for name in old:  # the old layout: a file each
        repo.write_files({f"linters/{name}x.py": "X = 1\n"})
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"Add the {name}x linter", hour)
        hour += DAY
    for name in new:  # the new: a folder each, titled another way
        repo.write_files({f"linters/{name}x/{name}x.py": "X = 1\n",
                          f"linters/{name}x/README.md": f"# {name}\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"Add linter {name}x with its docs", hour)
        hour += DAY
    names = [f"{a}{b}" for a in ("india", "juliet", "kilo", "lima") for b in ("x", "y")]
    repo.write_files({"plugins/inputs/all.py": "# in\n", "plugins/outputs/all.py": "# out\n"})
    commit_at(repo, "Lay out the plugins", hour)
    for family in ("inputs", "outputs"):  # "Add a plugin" twice, in two families
        for name in names:
            hour += DAY
            repo.write_files({f"plugins/{family}/{name}{family[0]}.py": "X = 1\n"})
            edit(repo, f"plugins/{family}/all.py", f"# {name}")
            commit_at(repo, f"Add the {name}{family[0]} plugin", hour)
    patterns = mine_history(repo.root, Options()).patterns
    kinds = [p.new_kinds for p in patterns]
    linters = [k for k in kinds if any(kind.startswith("linters/") for kind in k)]
    # One proposal, the way it is done now.
    assert len(linters) == 1 and "linters/<name>/<name>.py" in linters[0], kinds
    plugins = sorted(k[0] for k in kinds if k and k[0].startswith("plugins/"))
    assert plugins == ["plugins/inputs/<name>.py", "plugins/outputs/<name>.py"], kinds
    # Titled in plain words, each by the folder its plugins go in.
    titles, _ = mined_titles(repo)
    assert {"Add a linter", "Add an input plugin", "Add an output plugin"} <= set(titles), titles


def test_two_tasks_that_would_be_titled_alike_say_what_each_adds(repo: Repo) -> None:
    layout(repo)
    hour = DAY
    for top in ("server", "client"):
        repo.write_files({f"{top}/widgets/base_{n}.py": "X = 1\n" for n in range(3)})
        for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"):
            repo.write_files({f"{top}/widgets/{name}{top[0]}.py": f"class {name.title()}Widget:\n"
                              "    def draw(self):\n        return 1\n"})  # fmt: skip
            edit(repo, "core/registry.py", f"# {top} {name}")
            commit_at(repo, f"Add the {name}{top[0]} widget", hour)
            hour += DAY
    titles, _ = mined_titles(repo)
    assert sorted(titles) == [
        "Add a widget with a new client/widgets/<name>.py",
        "Add a widget with a new server/widgets/<name>.py",
    ], titles


def test_added_files_of_no_common_shape_are_not_a_kind(repo: Repo) -> None:
    layout(repo)
    modules = {  # each helper its own thing: nothing defined in two of them
        "paging": "def next_page(cursor):\n    return cursor\n",
        "retrying": "class Backoff:\n    def wait(self):\n        pass\n",
        "caching": "def remember(key, value):\n    return value\n",
        "sorting": "ORDER = 1\n\ndef by_name(items):\n    return sorted(items)\n",
    }
    widgets = ("table", "chart", "badge", "panel")  # each a <Name>Widget with render()
    # The folders in enough paths that their names are no rare words of the history.
    repo.write_files({f"app/{folder}/base_{n}.py": "X = 1\n"
                      for folder in ("helpers", "widgets") for n in range(4)})  # fmt: skip
    commit_at(repo, "Lay out the app", 1)
    hour = DAY
    for (name, text), widget in zip(modules.items(), widgets, strict=True):
        repo.write_files({f"app/helpers/{name}x.py": text})
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"Add the {name}x helper", hour)
        repo.write_files({f"app/widgets/{widget}x.py": f"class {widget.title()}xWidget:\n"
                          "    def render(self):\n        return ''\n"})  # fmt: skip
        edit(repo, "core/dispatch.py", f"# {widget}")
        commit_at(repo, f"Add the {widget}x widget", hour + DAY / 2)
        hour += DAY
    assert len(mine_history(repo.root, Options()).patterns) == 2, "both look like kinds"
    titles, summary = mined_titles(repo)
    assert titles == ["Add a widget"], titles
    assert (
        "passed over 1 patterns: 0 whose diffs rewrite only versions, 0 whose files (or the kind"
        " of file they add) are gone from the tree, 1 whose new files share no symbol beyond"
        " their own names" in summary
    ), summary


def test_adding_ci_workflows_is_upkeep(repo: Repo) -> None:
    layout(repo)
    repo.write_files({f".github/workflows/test_{n}.yml": "on: push\n" for n in range(5)})
    commit_at(repo, "Set up CI", 1)
    for number, name in enumerate(("lint", "docs", "release", "nightly")):
        repo.write_files({f".github/workflows/{name}x.yml": "on: push\n"})
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"Add the {name}x workflow", DAY * (number + 1))
    assert_no_task(repo)


def test_a_member_of_a_family_of_folders_is_a_name_in_every_path_of_it() -> None:
    # Twelve linters, each a folder made by one change, with test data named after it;
    # twelve lexers' example files, each named as its author liked, with its own extension.
    linters = [[f"pkg/golinters/l{n}x/l{n}x.go", f"pkg/golinters/l{n}x/testdata/l{n}x.go",
                f"pkg/golinters/l{n}x/testdata/l{n}x_custom.go"] for n in range(12)]  # fmt: skip
    lexers = [[f"tests/examplefiles/e{n}/{stem}.e{n}x", f"tests/examplefiles/e{n}/{stem}.e{n}x.out"]
              for n, stem in enumerate(["example", "test", "Sample"] * 4)]  # fmt: skip
    # ...and a folder many changes add to: one plugin's test cases, five changes over time.
    cases = [[f"plugins/kibana/cases/reply_{n}.out"] for n in range(5)]
    added = [*linters, *lexers, *cases]
    abstractor = Abstractor([path for files in added for path in files] * 3, added)
    assert abstractor.abstract("pkg/golinters/l3x/l3x.go") == "pkg/golinters/<name>/<name>.go"
    assert (abstractor.abstract("pkg/golinters/l3x/testdata/l3x_custom.go")
            == "pkg/golinters/<name>/testdata/<name>_custom.go")  # fmt: skip
    examples = "tests/examplefiles/<name>/<name>"
    assert abstractor.abstract("tests/examplefiles/e4/test.e4x") == examples
    assert abstractor.abstract("tests/examplefiles/e4/test.e4x.out") == f"{examples}.out"
    assert (abstractor.abstract("plugins/kibana/cases/reply_3.out")
            == "plugins/kibana/cases/reply_<n>.out")  # fmt: skip


def test_a_members_entry_in_a_registry_beside_the_members_is_one_kind() -> None:
    # Twelve parsers, each a folder made by one change; a registry folder beside them holds a
    # file per parser. "json" is a common word of the repository (a dozen other paths say
    # it), yet parsers/all/json.go is the json parser's entry, one more of the registry's.
    names = ["json", *(f"p{n}x" for n in range(11))]
    parsers = [[f"plugins/parsers/{name}/parser.go"] for name in names]
    # A chore gave nine parsers their entry at once; three later parsers added their own.
    registry = [[f"plugins/parsers/all/{name}.go" for name in names[3:]]]
    registry += [[f"plugins/parsers/all/{name}.go"] for name in names[:3]]
    common = [f"plugins/inputs/json_{n}/reader.go" for n in range(12)]
    paths = [path for files in [*parsers, *registry] for path in files] + common
    abstractor = Abstractor(paths, [*parsers, *registry])
    assert abstractor.abstract("plugins/parsers/all/json.go") == "plugins/parsers/all/<name>.go"
    assert abstractor.abstract("plugins/parsers/all/all.go") == "plugins/parsers/all/all.go"
    # Inside a member, a file named after another member is that member's own file.
    inside = abstractor.abstract("plugins/parsers/p1x/json.go")
    assert inside == "plugins/parsers/<name>/json.go", inside


def test_a_word_amid_names_is_no_title_alike_unless_the_files_agree(repo: Repo) -> None:
    layout(repo)
    # "Add <name> format <name>": every title says "format" amid words no other title has,
    # over files that overlap by a third (two busy files of six); four changes, no task.
    titles = ("Add frobbed format selectors", "Add quux format notes", "Add zany format sorting",
              "Add wibble format fallbacks")  # fmt: skip
    busy = ["core/registry.py", "core/dispatch.py"]
    commit_edits(repo, [(title, [*busy, f"features/part_{n}.py", f"features/part_{n + 10}.py"])
                        for n, title in enumerate(titles)])  # fmt: skip
    assert_no_task(repo)


def test_a_kind_its_titles_never_name_is_a_task_when_added_often(repo: Repo) -> None:
    layout(repo)
    # Titled each by the service it supports, never "handler": twenty of one kind is how
    # the project grows; five adapters, never called so either, are not yet.
    services = [f"svc{a}{b}" for a in "abcde" for b in "pqrs"]
    for number, name in enumerate(services):
        repo.write_files({f"app/handlers/{name}.py": f"class {name.title()}Handler:\n"
                          "    def send(self):\n        pass\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"Support {name}", DAY * (number + 1))
    repo.write_files({f"app/adapters/base_{n}.py": "X = 1\n" for n in range(8)})
    commit_at(repo, "Lay out the adapters", DAY * 29)
    for number, name in enumerate(services[:5]):
        repo.write_files({f"app/adapters/{name}.py": f"class {name.title()}Adapter:\n"
                          "    def wrap(self):\n        pass\n"})  # fmt: skip
        edit(repo, "core/dispatch.py", f"# {name}")
        commit_at(repo, f"{name.upper()}", DAY * (number + 30))
    kinds = [p.new_kinds for p in mine_history(repo.root, Options()).patterns]
    assert kinds == [["app/handlers/<name>.py"]], kinds


def test_a_diffs_lines_that_look_like_headers_are_lines(repo: Repo) -> None:
    repo.write_files({"schema.sql": "-- v1.2.0\nSELECT 1;\n", "notes.md": "---\ntitle: x\n---\n"})
    commit_at(repo, "Start", 1)
    repo.write_files({"schema.sql": "-- v1.3.0\nSELECT 1;\n", "notes.md": "++ a\ntitle: x\n---\n"})
    head = commit_at(repo, "Move on", 2)
    removed, written = changed_text(repo.root, head, 10_000) or ([], [])
    assert removed == ["---", "-- v1.2.0"] and written == ["++ a", "-- v1.3.0"], (removed, written)


def test_a_short_member_name_stands_for_it_only_as_a_word_below_it() -> None:
    # pygments-like aliases: "t" is a member of tests/examplefiles/, not a letter of "tests".
    added = [[f"tests/examplefiles/{alias}/example.{alias}x"] for alias in "abcdefghijkt"]
    abstractor = Abstractor([p for files in added for p in files] * 3, added)
    found = abstractor.abstract("tests/examplefiles/t/t_example.tx")
    assert found == "tests/examplefiles/<name>/<name>_example.tx", found


def test_feature_work_on_one_member_of_a_crowded_folder_is_not_a_task(repo: Repo) -> None:
    layout(repo)
    plugin_files = [f"plugins/inputs/{name}/{name}{end}" for name in PLUGINS
                    for end in (".go", "_test.go")]  # fmt: skip
    repo.write_files(dict.fromkeys(plugin_files, "package x\n"))
    commit_at(repo, "Add the input plugins", DAY)
    # Titled alike ("add <name> tag"), over one plugin of 24 and its test: its own work.
    plugin = ["plugins/inputs/pluginc/pluginc.go", "plugins/inputs/pluginc/pluginc_test.go"]
    commit_edits(repo, [(f"Add {tag}x tag", plugin) for tag in ("serial", "model", "firm")])
    assert_no_task(repo)


def test_dropping_a_runtime_from_the_manifest_and_ci_is_upkeep(repo: Repo) -> None:
    layout(repo)
    repo.write_files({"package.json": '{"engines": {}}\n', ".github/workflows/ci.yml": "on: push\n",
                      ".github/workflows/lint.yml": "on: push\n"})  # fmt: skip
    commit_at(repo, "Set up the package", DAY)
    machinery = ["package.json", ".github/workflows/ci.yml"]
    commit_edits(repo, [(f"Remove support for Node v{v}", machinery) for v in (10, 12, 14, 16)])
    assert_no_task(repo)


def test_a_task_last_done_years_ago_a_few_times_is_history(repo: Repo) -> None:
    layout(repo)
    year = 365 * DAY
    # Widgets: four, five years before the newest change. Reports: twelve, as long ago.
    for kind, count in (("widget", 4), ("report", 12)):
        for number in range(count):
            name = f"{kind}{'abcdefghijkl'[number]}x"
            repo.write_files({f"app/{kind}s/{name}.py": f"class {name.title()}:\n    pass\n",
                              f"tests/{kind}s/test_{name}.py": "def test(): pass\n"})  # fmt: skip
            commit_at(repo, f"Add the {name} {kind}", DAY * (number + 1))
    repo.write_files({"core/later.py": "X = 1\n", "core/later_more.py": "X = 2\n"})
    commit_at(repo, "Unrelated work, five years on", 5 * year)
    anchors = [p.anchor for p in mine_history(repo.root, Options()).patterns]
    assert anchors == ["app/reports/<name>.py"], anchors


def test_an_addition_titled_without_a_verb_is_the_same_task(repo: Repo) -> None:
    layout(repo)
    repo.write_files({f"src/locale/base_{n}.ts": "export {}\n" for n in range(8)})
    commit_at(repo, "Lay out the locales", DAY)
    # "Add the ax locale" (add) and "Bx locale" (no verb: a change that adds files) are
    # one task, adding a locale, though the older ones added their formats alone.
    for number, letter in enumerate("abcdef"):
        repo.write_files({f"src/locale/{letter}x/index.ts": "export {}\n",
                          f"src/locale/{letter}x/match.ts": "export {}\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {letter}")
        commit_at(repo, f"Add the {letter}x locale", DAY * (number + 2))
    for number, letter in enumerate("ghij"):
        repo.write_files({f"src/locale/{letter}x/format/index.ts": "export {}\n",
                          f"src/locale/{letter}x/format/long.ts": "export {}\n"})  # fmt: skip
        edit(repo, "core/dispatch.py", f"# {letter}")
        commit_at(repo, f"{letter.upper()}x locale", DAY * (number + 20))
    kinds = [p.new_kinds for p in mine_history(repo.root, Options()).patterns]
    assert len([k for k in kinds if any(kind.startswith("src/locale/") for kind in k)]) == 1, kinds


def test_a_task_is_named_by_the_word_that_names_its_folder(repo: Repo) -> None:
    layout(repo)
    repo.write_files({f"messages/base_{n}.js": "module.exports = {};\n" for n in range(8)})
    commit_at(repo, "Lay out the messages", DAY)
    # "config" and "error" are said by every title, "message" by half: the folder's word.
    titles = ("Config error for bad plugins", "Config error message for bad rules",
              "Config error for bad globals", "Config error message for bad parsers")  # fmt: skip
    for number, (title, name) in enumerate(zip(titles, ("pa", "pb", "pc", "pd"), strict=True)):
        repo.write_files({f"messages/{name}x.js": "module.exports = () => 'x';\n"})
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, title, DAY * 10 * (number + 1))
    patterns = mine_history(repo.root, Options()).patterns
    assert [object_of(p) for p in patterns] == ["message"], [p.anchor for p in patterns]


def test_a_line_holding_a_form_feed_is_one_line_and_lock_files_are_left_out(repo: Repo) -> None:
    repo.write_files({"VERSION": "a 1.0.1\x0cdiff --git x\nb 2.0.0\n", "Cargo.lock": "v 1\n"})
    commit_at(repo, "Start", 1)
    repo.write_files({"VERSION": "a 1.0.2\x0cdiff --git x\nb 2.0.1\n", "Cargo.lock": "v 2\n"})
    head = commit_at(repo, "Bump", 2)
    removed, written = changed_text(repo.root, head, 10_000, ("cargo.lock",)) or ([], [])
    assert written == ["a 1.0.2\x0cdiff --git x", "b 2.0.1"], written
    assert removed == ["a 1.0.1\x0cdiff --git x", "b 2.0.0"], removed


def test_one_task_told_by_its_new_files_and_by_its_titles_is_the_titled_proposal(
    repo: Repo,
) -> None:
    layout(repo)
    repo.write_files({"app/models.py": "# models\n", "docs/providers.md": "# providers\n",
                      "tests/test_stream.py": "# stream\n"})  # fmt: skip
    commit_at(repo, "Lay out the providers", 1)
    hour = DAY
    # Some providers bring a module of their own, in changes titled each its own way...
    own = {"alphax": "Wire up alphax as a provider",
           "bravox": "Stream replies from bravox, a new provider",
           "charliex": "charliex provider: first cut",
           "deltax": "Support the deltax provider's tool calls",
           "echox": "Port echox to the provider interface",
           "kilox": "Kilox joins the providers", "limax": "Talk to limax",
           "mikex": "Provider for mikex, with retries", "novemberx": "November provider",
           "oscarx": "oscarx streaming"}  # fmt: skip
    for name, title in own.items():
        repo.write_files({f"app/providers/{name}.py": f"class {name.title()}Provider:\n"
                          "    def stream(self):\n        return []\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, title, hour)
        hour += DAY
    # ...most are a configuration of an existing one, each titled "Add <Name> provider".
    for name in ("Foxtrot", "Golfo", "Hotelo", "Indiana", "Julietta"):
        for path in ("app/models.py", "docs/providers.md", "tests/test_stream.py"):
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add {name} provider", hour)
        hour += DAY
    patterns = mine_history(repo.root, Options()).patterns
    providers = [p for p in patterns if object_of(p) == "provider"]
    # One proposal, the one whose titles say the task.
    assert [p.template for p in providers] == [("add", "<name>", "provider")], [
        (p.template, p.new_kinds) for p in providers
    ]


def test_the_example_of_a_new_file_is_the_one_named_after_the_new_thing(repo: Repo) -> None:
    layout(repo)
    names = ["kafkax", "lokix", "mqttx", "natsx", "redisx", "sqlx", "syslogx", "wavefrontx",
             "websocketx", "zerobusx"]  # fmt: skip
    helpers = ["batch", "client", "codec", "conn", "pool", "query", "frame", "point", "stream",
               "record"]  # fmt: skip
    for number, (name, helper) in enumerate(zip(names, helpers, strict=True)):
        # Each plugin's own helper sorts before its main file ("record.go" < "zerobusx.go").
        repo.write_files({f"plugins/outputs/{name}/{name}.go": "package x\n",
                          f"plugins/outputs/{name}/{helper}.go": "package x\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, f"Add the {name} output plugin", DAY * (number + 1))
    result = mine(repo.root, load_config(repo.root), Store(repo.root),
                  Options(dry_run=True, llm=False))  # fmt: skip
    [proposal] = [p for p, _, _ in result.proposals]
    examples = {k.item: k.pointer for k in proposal.key_files}
    assert examples["plugins/outputs/<name>/<name>.go"] == "plugins/outputs/zerobusx/zerobusx.go"


def test_a_task_told_by_its_added_files_is_not_lost_to_a_few_titled_changes(repo: Repo) -> None:
    """Ten changes add a provider each, titled each their own way; four more are titled
    "Add <name> provider" but not done alike (one leaves the docs out). The four, which the
    filters reject as a few changes not done alike, must not take the ten's place."""
    layout(repo)
    repo.write_files({"app/models.py": "# models\n", "docs/providers.md": "# providers\n",
                      "tests/test_stream.py": "# stream\n"})  # fmt: skip
    commit_at(repo, "Lay out the providers", 1)
    titles = ["Wire up alphax as a provider", "Stream replies from bravox, a new provider",
              "charliex provider: first cut", "Support the deltax provider's tool calls",
              "Port echox to the provider interface", "Kilox joins the providers",
              "Talk to limax", "Provider for mikex, with retries", "November provider",
              "oscarx streaming"]  # fmt: skip
    when = DAY
    for number, title in enumerate(titles):
        name = f"provider{number}"
        repo.write_files({f"app/providers/{name}.py": "class P:\n    def stream(self):\n"
                          "        return []\n"})  # fmt: skip
        edit(repo, "core/registry.py", f"# {name}")
        commit_at(repo, title, when)
        when += DAY
    for number, name in enumerate(("Foxtrot", "Golfo", "Hotelo", "Indiana")):
        docs = ["docs/providers.md"] if number else []  # the first leaves the docs out
        for path in ["app/models.py", "tests/test_stream.py", *docs]:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add {name} provider", when)
        when += DAY
    patterns = mine_history(repo.root, Options()).patterns
    added = [kind for p in patterns for kind in p.new_kinds]
    assert any(kind.startswith("app/providers/") for kind in added), [
        (p.template, p.new_kinds, p.support) for p in patterns
    ]


def test_a_file_each_of_the_newest_changes_added_is_part_of_the_task(repo: Repo) -> None:
    """Fourteen parsers added over the years, registered in one registry; since a chore gave
    each parser a file under parsers/all/, the four newest also add theirs (the way it is
    done now), though that is four changes of fourteen, and no longer edit the dispatcher."""
    layout(repo)
    repo.write_files({"parsers/registry.go": "package parsers\n"})
    commit_at(repo, "Lay out the parsers", 1)
    names = [f"fmt{letter}x" for letter in "abcdefghijklmn"]
    for number, name in enumerate(names):
        if number == len(names) - 4:
            repo.write_files({f"parsers/all/{old}.go": "package all\n" for old in names[:number]})
            commit_at(repo, "chore: select parsers by build tags", DAY * 10 * number + DAY)
        files = {f"parsers/{name}/parser.go": "package x\n"}
        if number >= len(names) - 4:
            files[f"parsers/all/{name}.go"] = "package all\n"
        repo.write_files(files)
        edit(repo, "parsers/registry.go", f"// {name}")
        if number < len(names) - 4:  # the way it was done: the config knew each parser
            edit(repo, "core/dispatch.py", f"# {name}")
        if number < len(names) - 2:  # the docs, in all but the two newest
            edit(repo, "docs/targets.md", f"# {name}")
        commit_at(repo, f"Add the {name} parser", DAY * 10 * (number + 1))
    [pattern] = [p for p in mine_history(repo.root, Options()).patterns if p.adds_a_kind]
    assert ("parsers/all/<name>.go", 4) in pattern.items, pattern.items
    # Six of the newest ten touched core/dispatch.py, none of the newest four: no longer done.
    assert "core/dispatch.py" not in dict(pattern.items), pattern.items
    # Listed the way it is done now: the registry file each of the newest four added comes
    # before the docs twelve of fourteen edited but only two of the newest four.
    assert [item for item, _ in pattern.newest_first()] == [
        "parsers/<name>/parser.go",
        "parsers/registry.go",
        "parsers/all/<name>.go",
        "docs/targets.md",
    ]
    # The proposal says so: the registration is a step of each of the newest, no pitfall.
    result = mine(repo.root, load_config(repo.root), Store(repo.root),
                  Options(dry_run=True, llm=False))  # fmt: skip
    [proposal] = [p for p, _, _ in result.proposals]
    text = proposal.render()
    assert (
        "Add `parsers/all/<name>.go`, as `parsers/all/fmtnx.go` did (each of the newest 4;" in text
    )
    assert "parsers/all/<name>.go changed in" not in text, text
    steps = text.split("\n# ", 1)[1]
    assert steps.index("`parsers/all/<name>.go`") < steps.index("`docs/targets.md`")


class _Defined:
    """What layer 1 knows of each file, for :func:`instances_alike`: its symbols."""

    def __init__(self, symbols: dict[str, list[str]]) -> None:
        self.files = dict.fromkeys(symbols, "blob")
        self._symbols = symbols

    def symbols(self, path: str) -> list[str]:
        return self._symbols[path]


def _adding(files: dict[str, list[str]]) -> tuple[Pattern, Layer1]:
    """A pattern whose changes each add one of ``files`` (app/lexers/<name>.py)."""
    kind = "app/lexers/<name>.py"
    tasks = []
    for number, path in enumerate(files):
        change = ChangeSet(f"{number:040x}", "direct", None, "a", "a@x", number, "Add", "Add",
                           (FileChange("A", path),))  # fmt: skip
        tasks.append(Task(change, {kind: [path]}, {kind}, set(), "add"))
    pattern = Pattern(kind, "add", tasks, [(kind, len(tasks)), ("app/registry.py", 2)], 4)
    return pattern, cast(Layer1, _Defined(files))


@pytest.mark.parametrize(
    ("files", "alike"),
    [
        # Two files sharing nothing but their own names are no kind...
        ({"app/lexers/zoom.py": ["ZoomReader"], "app/lexers/ping.py": ["PingWriter"]}, False),
        # ...two of four sharing a shape are half of them: a kind.
        (
            {
                "app/lexers/zoom.py": ["ZoomLexer"],
                "app/lexers/ping.py": ["PingLexer"],
                "app/lexers/mail.py": ["send"],
                "app/lexers/chat.py": ["post"],
            },
            True,
        ),
        # A word of three letters of the file's name is its own name too (ApiReader in
        # zoom_api.py is <>reader), and dunder methods are no part of a shape.
        (
            {
                "app/lexers/zoom_api.py": ["ZoomApi", "ZoomApi.__repr__", "ApiReader"],
                "app/lexers/ping_web.py": ["PingWeb", "PingWeb.__repr__", "WebReader"],
            },
            True,
        ),
    ],
)
def test_files_added_alike_share_a_symbol_beyond_their_own_names(
    files: dict[str, list[str]], alike: bool
) -> None:
    assert instances_alike(*_adding(files)) is alike


def _pattern(tasks: list[tuple[str, list[str], list[str]]], verb: str = "add") -> Pattern:
    """A pattern of changes (title, files added, files edited), oldest first, added files
    of app/<folder>/<name>.py standing for their kind."""
    made = []
    for number, (title, added, edited) in enumerate(tasks):
        files = tuple([FileChange("A", p) for p in added] + [FileChange("M", p) for p in edited])
        change = ChangeSet(f"{number:040x}", "direct", None, "a", "a@x", number, title, title,
                           files)  # fmt: skip
        kinds = {p: p.rpartition("/")[0] + "/<name>.py" for p in added}
        items = {kinds[p]: [p] for p in added} | {p: [p] for p in edited}
        made.append(Task(change, items, set(kinds.values()), set(), verb))
    counts = Counter(item for task in made for item in task.items)
    return Pattern(made[0].change.id, verb, made, sorted(counts.items()), len(made))


def test_a_short_title_word_ending_the_folders_name_names_its_kind() -> None:
    """Titles saying "Add a rule" over app/textrules/<name>.py: a word of four letters is
    long enough to be the end of a folder's name (a shorter one is any folder's letters)."""
    names = ("alpha", "beta", "gamma", "delta")
    pattern = _pattern([(f"Add a rule for {n}", [f"app/textrules/{n}.py"], []) for n in names])
    assert pattern.new_kinds == ["app/textrules/<name>.py"]
    assert names_its_kind(pattern) and object_of(pattern) == "rule"


def test_a_folder_of_as_many_folders_or_files_as_the_bounds_is_crowded() -> None:
    def tasks(paths: list[str]) -> list[Task]:
        return _pattern([("Edit", [], paths)]).tasks

    folders = [f"plugins/p{n}/main.py" for n in range(CROWDED_FOLDERS)]
    assert set(_crowded(tasks(folders))) == {"plugins"}
    assert _crowded(tasks(folders[1:])) == {}
    files = [f"rules/r{n}.py" for n in range(CROWDED_FILES)]
    assert set(_crowded(tasks(files))) == {"rules"}
    assert _crowded(tasks(files[1:])) == {}


def test_two_patterns_joined_are_anchored_on_a_file_of_the_joined_set() -> None:
    """The first's anchor, when the changes of both no longer hold it in most of them, gives
    way to the joined set's most frequent file."""
    first = _pattern([("Add x", [], ["app/a.py", "app/x.py"])] * 2)
    second = _pattern([("Add b", [], ["app/a.py", "app/b.py"])] * 4)
    for number, task in enumerate(second.tasks):  # later changes of their own
        task.change.id, task.change.time = f"{number + 2:040x}", number + 2
    first.anchor, first.anchor_support = "app/x.py", 9
    joined = _joined(first, second, 0.5)
    assert (joined.anchor, joined.support) == ("app/a.py", 6)
    # Its anchor's changes: as many as either had, and at least its own.
    assert joined.anchor_support == 9
    first.anchor_support = 2
    assert _joined(first, second, 0.5).anchor_support == 6
    assert joined.items == [("app/a.py", 6), ("app/b.py", 4)]


def test_two_patterns_adding_nothing_are_one_task_when_half_the_smaller_is_shared() -> None:
    """One verb and one object ("cache"), neither adding a kind of file: one task when half
    the smaller file set is in the other, two when they share less."""
    from kgtool.mining.patterns import _one_task

    titles = ("Fix the cache expiry", "Fix a stale cache entry", "Fix the cache size")

    def fixes(files: list[str]) -> Pattern:
        return _pattern([(title, [], files) for title in titles], "fix")

    small = fixes(["app/cache.py", "app/store.py"])
    assert _one_task(small, fixes(["app/cache.py", "app/keys.py", "app/ttl.py", "app/x.py"]))
    assert not _one_task(small, fixes(["app/keys.py", "app/ttl.py", "app/x.py"]))


def test_the_word_of_a_template_names_its_kind_though_few_titles_say_it() -> None:
    """Joined from changes titled two ways, a pattern keeps the words both say: the first
    of them names the folder even where its own titles do not."""
    names = ("alpha", "beta", "gamma", "delta")
    pattern = _pattern([(f"Add {n}", [f"app/lexers/{n}.py"], []) for n in names])
    assert not names_its_kind(pattern)
    pattern.template = ("add", "lexer", "<name>")
    assert names_its_kind(pattern) and object_of(pattern) == "lexer"


def test_changes_joined_share_a_title_only_when_it_is_half_the_words_of_each() -> None:
    from kgtool.mining.patterns import _shared_template

    notifier = ("port", "<name>", "notifier")
    assert _shared_template(("add", "<name>", "notifier"), notifier) == ("add", "notifier")
    # "Allow a custom format selector", "Add DASH format 272": one word of three in common.
    custom = ("add", "custom", "format", "selector")
    assert _shared_template(custom, ("add", "<name>", "format", "<name>")) == ()
    # Two words of three in common ("Add a custom format selector", "Add DASH format
    # selector"): half of each title, which both say.
    assert _shared_template(custom, ("add", "<name>", "format", "selector")) == (
        "add", "format", "selector",
    )  # fmt: skip
    # The first word of a title counts as any other ("Add notifier for Zoom", "Port notifier
    # for Ping").
    notifier = ("port", "notifier", "<name>")
    assert _shared_template(("add", "notifier", "<name>"), notifier) == ("add", "notifier")


def test_a_pattern_adding_a_kind_and_one_adding_none_are_one_task_by_their_files() -> None:
    """Which of the two adds files does not matter: "Add the Zoom provider" over the
    registry alone and over app/providers/<name>.py and the registry are one task."""
    from kgtool.mining.patterns import _one_task

    names = ("Zoom", "Ping", "Mail")
    titles = [f"Add the {name} provider" for name in names]
    registry = _pattern([(t, [], ["app/registry.py", "docs/providers.md"]) for t in titles])
    files = _pattern([(f"Add the {n} provider", [f"app/providers/{n.lower()}.py"],
                       ["app/registry.py"]) for n in names])  # fmt: skip
    assert files.new_kinds == ["app/providers/<name>.py"] and not registry.new_kinds
    # Half of the smaller file set shared (the registry).
    assert _one_task(registry, files) and _one_task(files, registry)
    # No file shared: one task only when the titles say, in words, what the folder holds.
    elsewhere = _pattern([(t, [], ["docs/a.md", "docs/b.md"]) for t in titles])
    assert not _one_task(elsewhere, files)
    elsewhere.template = ("add", "<name>", "provider")
    assert _one_task(elsewhere, files) and _one_task(files, elsewhere)


def test_files_added_inside_one_member_of_a_top_level_family_are_its_growth() -> None:
    """plugins/ holds a folder per plugin: kibana's own new files are kibana's growth, and
    a new plugins/<name>.py is one more of the family."""
    members = [f"plugins/p{n}/main.py" for n in range(CROWDED_FOLDERS)]
    crowded = _crowded(_pattern([("Edit the plugins", [], members)]).tasks)
    names = ("alpha", "beta", "gamma", "delta")
    kibana = _pattern([(f"Add {n} replies", [f"plugins/kibana/{n}.py"], []) for n in names])
    assert kibana.new_kinds == ["plugins/kibana/<name>.py"]
    assert _inside_a_member(kibana, crowded)
    plugins = _pattern([(f"Add the {n} plugin", [f"plugins/{n}.py"], []) for n in names])
    assert not _inside_a_member(plugins, crowded)
    # A folder of its own per new plugin (plugins/<name>/<name>.py): one more member, not a
    # member named "<name>".
    own = _pattern([(f"Add the {n} plugin", ["plugins/<name>/main.py"], []) for n in names])
    assert own.new_kinds == ["plugins/<name>/<name>.py"]
    assert not _inside_a_member(own, crowded)


def test_a_word_two_of_a_few_changes_say_is_what_they_are_about() -> None:
    titles = ("Fix the cache expiry", "Fix a stale cache entry", "Fix the size")
    fixes = _pattern([(title, [], ["app/cache.py", "app/store.py"]) for title in titles], "fix")
    assert object_of(fixes) == "cache"
    # One word each, none said twice: about nothing in common.
    others = ("Fix the expiry", "Fix a stale entry", "Fix the size")
    assert object_of(_pattern([(t, [], ["app/cache.py"]) for t in others], "fix")) == ""


def test_a_members_file_and_its_test_beside_it_are_that_members() -> None:
    """lib/rules/indent.js and lib/rules/indent.spec.js in a crowded folder of rules: two
    files of one member (indent), whatever their extensions and test affix."""
    rules = [f"lib/rules/r{n}.js" for n in range(CROWDED_FILES)]
    crowded = _crowded(_pattern([("Edit the rules", [], rules)]).tasks)
    files = ["lib/rules/indent.js", "lib/rules/indent.spec.js", "docs/rules.md"]
    indent = _pattern([(f"Fix indent case {n}", [], files) for n in range(3)], "fix")
    assert _one_member(indent, crowded)
    # ...and indent_test.js, the test named by a suffix.
    files = ["lib/rules/indent.js", "lib/rules/indent_test.js", "docs/rules.md"]
    assert _one_member(_pattern([("Fix indent", [], files)] * 3, "fix"), crowded)


def test_changes_saying_a_components_name_are_its_history_when_they_say_it_most() -> None:
    """Titles that agree on "procstat", the name of their anchor's folder, are that
    component's history when they are half of the titles saying it, not when the history
    says it far more often (then it is a task that happens to be done there)."""
    titles = ("Add pid tags to procstat", "Add cgroup filters to procstat", "Fix procstat pids")
    procstat = _pattern([(t, [], ["plugins/procstat/procstat.go"]) for t in titles])
    procstat.anchor = "plugins/procstat/procstat.go"
    assert _one_component(procstat, Counter(procstat=6))
    assert not _one_component(procstat, Counter(procstat=7))


def test_how_specific_a_patterns_files_are_is_read_from_its_best_five() -> None:
    """Five files only its three changes touch (a lift of 4 among twelve changes) and a
    sixth every change touches: the sixth is past the best five and counts for nothing."""
    files = [f"app/{name}.py" for name in "abcdef"]
    pattern = _pattern([("Add the widget", [], files)] * 3)
    by_item = {path: [0, 1, 2] for path in files[:5]} | {files[5]: list(range(12))}
    assert _specificity(pattern, by_item, 12) == pytest.approx(math.log2(5))
