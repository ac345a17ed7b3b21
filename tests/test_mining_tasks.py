"""The miner groups changes by task (titles alike, files alike), not around one busy file:
a task done three times over files many other changes touch is found, and forty changes that
share a verb and a few busy files are not one task."""

from __future__ import annotations

from collections.abc import Callable

from conftest import Repo
from mining_helpers import add_provider, base_files, commit_at, task_of

from kgtool.mining.miner import Options, mine_history
from kgtool.mining.patterns import MIN_SUPPORT, Pattern

TARGETS = ("slack", "discord", "teams")
BUSY = ("core/registry.py", "core/dispatch.py", "docs/targets.md")


def edit(repo: Repo, path: str, line: str) -> None:
    full = repo.root / path
    full.write_text(full.read_text() + line + "\n")


DAY = 24  # hours: changes a day apart are never one change and its quick follow-up


def layout(repo: Repo) -> None:
    repo.write_files({path: "# start\n" for path in BUSY})
    repo.write_files({f"features/part_{n}.py": f"VALUE = {n}\n" for n in range(40)})
    commit_at(repo, "Initial layout", 0)


def test_a_task_done_three_times_over_busy_files_is_found(repo: Repo) -> None:
    layout(repo)
    hour = 1
    # Each busy file is also touched by four other additions, each with a file of its own:
    # around any one of them, "add" gathers seven changes that share only that file.
    for number, path in enumerate(BUSY * 4):
        edit(repo, path, f"# feature {number}")
        edit(repo, f"features/part_{number}.py", "# more")
        commit_at(repo, f"Add {['caching', 'paging', 'sorting', 'retry'][number % 4]} "
                  f"knob {number}", hour)  # fmt: skip
        hour += DAY
    for name in TARGETS:
        for path in BUSY:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add a webhook target for {name}", hour)
        hour += DAY
    patterns = mine_history(repo.root, Options()).patterns
    found = [p for p in patterns if {t.change.title for t in p.tasks} >= {
        f"Add a webhook target for {name}" for name in TARGETS}]  # fmt: skip
    assert found, [(p.anchor, [t.change.title for t in p.tasks]) for p in patterns]
    assert sorted(item for item, _ in found[0].items) == sorted(BUSY)
    assert found[0].template == ("add", "webhook", "target", "<name>")
    assert patterns.index(found[0]) == 0  # the most specific task comes first


def test_forty_changes_sharing_a_verb_and_busy_files_are_not_one_task(repo: Repo) -> None:
    layout(repo)
    words = ("payload", "header", "cache", "retry", "timeout", "proxy", "stream", "token")
    for number in range(40):
        for path in BUSY[:2]:
            edit(repo, path, f"# change {number}")
        edit(repo, f"features/part_{number}.py", "# more")
        commit_at(repo, f"feat: add {words[number % 8]} option {number}", DAY * (number + 1))
    patterns = mine_history(repo.root, Options()).patterns
    assert not [p for p in patterns if len(p.tasks) > 10], [
        (p.anchor, p.support, p.specificity) for p in patterns
    ]


def test_changes_titled_alike_and_grown_around_a_file_are_one_proposal(repo: Repo) -> None:
    layout(repo)
    for number, name in enumerate(TARGETS, 1):
        for path in BUSY:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add a webhook target for {name}", DAY * number)
    patterns = mine_history(repo.root, Options()).patterns
    assert len(patterns) == 1, [(p.anchor, p.template) for p in patterns]


def test_titles_become_templates_with_names_as_slots() -> None:
    from kgtool.mining.patterns import title_templates

    titles = [
        "Add Zoom (Incoming Webhook) Support",
        "Added Pingram (formerly NotificationApi, `napi://`)",
        "feat(ai): add `cacheRetention` stream option",
        "feat(ai): add `maxTokens` stream option",
        "feat(ai): add `topP` stream option",
        "fix(tui): preserve ./ prefix in tab completion, closes #2087",
    ] + [f"Fix the {w} parser" for w in ("json", "yaml", "toml")] * 3
    templates = title_templates(titles)
    assert templates[0][0] == "add" and "<name>" in templates[0]
    assert templates[2] == ("add", "<name>", "stream", "option")
    assert templates[2] == templates[3] == templates[4]
    assert "<name>" in templates[5] and "2087" not in " ".join(templates[5])
    # A word three titles say is a word, not a name; one only one says is.
    assert templates[6] == ("fix", "json", "parser")
    assert templates[1] == ("add", "<name>")
    # Markup is never a word a proposal's title could say.
    marked = title_templates(["Add <b>bold</b> thing", "Add a|b thing"] * 3)
    assert marked[0] == marked[1] == ("add", "<name>", "thing")


def test_a_task_titled_alike_is_named_by_its_words_and_a_deleted_file_is_said(
    repo: Repo,
) -> None:
    layout(repo)
    repo.write("core/legacy.py", "# old\n")
    commit_at(repo, "Add the legacy shim", DAY)
    for number, name in enumerate(TARGETS, 2):
        for path in (*BUSY, "core/legacy.py"):
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add a webhook target for {name}", DAY * number)
    (repo.root / "core/legacy.py").unlink()
    commit_at(repo, "Drop the legacy shim", DAY * 9)
    assert repo.kg("update").code == 0
    result = repo.kg("mine-playbooks")
    assert result.code == 0, result.err
    path = repo.root / "playbooks/proposed/add-a-webhook-target.md"
    assert path.is_file(), result.out
    text = path.read_text()
    assert 'title: "Add a webhook target"' in text or "title: Add a webhook target" in text
    keys = [line.split("#")[0].strip(' -"') for line in text.splitlines() if "# 3 of 3" in line]
    assert sorted(keys) == sorted(BUSY), text
    assert "core/legacy.py (3 of 3 changes) is no longer in the repository" in text
    assert "titled alike" in text


def webhook_targets_mined(
    repo: Repo,
    files: dict[str, tuple[str, str]],
    also: Callable[[str], None] = lambda name: None,
) -> str:
    """Each file written from its template with one line per target so far, committed as
    "Add a webhook target for <name>" three times, mined: the proposal's text."""
    for path, (template, _) in files.items():
        repo.write(path, template.format(""))
    commit_at(repo, "Initial layout", 0)
    for number in range(1, len(TARGETS) + 1):
        for path, (template, line) in files.items():
            repo.write(path, template.format("".join(line.format(n) for n in TARGETS[:number])))
        also(TARGETS[number - 1])
        commit_at(repo, f"Add a webhook target for {TARGETS[number - 1]}", DAY * number)
    assert repo.kg("update").code == 0
    result = repo.kg("mine-playbooks")
    assert result.code == 0, result.err
    return (repo.root / "playbooks/proposed/add-a-webhook-target.md").read_text()


def test_steps_name_the_symbols_each_change_touched(repo: Repo) -> None:
    dispatch = (
        "def unrelated():\n    return 0\n\n\n"
        "def route(key):\n    targets = []\n{}    return targets\n"
    )
    registry = (
        "class Registry:\n    def drop(self):\n        return None\n\n"
        "    def enrol(self):\n        known = []\n{}        return known\n"
    )
    repo.write("core/dispatch.py", dispatch.format(""))
    repo.write("core/registry.py", registry.format(""))
    repo.write("tests/test_targets.py", "def test_nothing():\n    assert True\n")

    def also(name: str) -> None:
        edit(repo, "tests/test_targets.py", f"\n\ndef test_{name}():\n    assert 1")
        if name == TARGETS[-1]:  # one change of the three also touched unrelated(): no step
            dispatch_py = repo.root / "core/dispatch.py"
            dispatch_py.write_text(dispatch_py.read_text().replace("return 0", "return None"))

    text = webhook_targets_mined(
        repo,
        {
            "core/dispatch.py": (dispatch, "    targets.append('{}')\n"),
            "core/registry.py": (registry, "        known.append('{}')\n"),
            # What a generator writes is regenerated, not edited: no symbol named.
            "core/table.py": (
                "# Code generated by make table. DO NOT EDIT.\nTABLE = [\n{}]\n",
                "    '{}',\n",
            ),
        },
        also,
    )
    steps = [line for line in text.splitlines() if line[:3] in ("1. ", "2. ", "3. ", "4. ")]
    assert steps == [
        "1. Edit `core/dispatch.py` (3 of 3): `core/dispatch.py::route` (3 of the 3 newest).",
        "2. Edit `core/registry.py` (3 of 3): `core/registry.py::Registry.enrol` (3 of the 3 "
        "newest).",
        # Each change added a test of its own: the step is the kind, with the newest one.
        "3. Edit `tests/test_targets.py` (3 of 3): add a function (3 of the 3 newest; as "
        "`tests/test_targets.py::test_teams`).",
        # What a generator writes last, once the rest is written.
        "4. Regenerate `core/table.py` (generated: not edited by hand) (3 of 3).",
    ], text


def routes_and_enrolments_mined(repo: Repo) -> None:
    """The webhook-target task mined from changes that each add a line to ``route`` (beside
    an ``unrelated`` function) and to ``enrol``."""
    dispatch = (
        "def unrelated():\n    return 0\n\n\n"
        "def route(key):\n    targets = []\n{}    return targets\n"
    )
    registry = "def enrol():\n    known = []\n{}    return known\n"
    webhook_targets_mined(
        repo,
        {
            "core/dispatch.py": (dispatch, "    targets.append('{}')\n"),
            "core/registry.py": (registry, "    known.append('{}')\n"),
        },
    )


def test_a_step_follows_a_symbol_that_moved_and_leaves_out_one_gone(repo: Repo) -> None:
    routes_and_enrolments_mined(repo)
    # Since: route moved to a module of its own, and enrol is gone.
    moved = (repo.root / "core/dispatch.py").read_text().split("\n\n\n")
    repo.write("core/dispatch.py", moved[0] + "\n")
    repo.write("core/routing.py", moved[1])
    repo.write("core/registry.py", "KNOWN = []\n")
    # A method of that bare name elsewhere is not where the function went.
    repo.write("web/app.py", "class App:\n    def enrol(self):\n        return 1\n")
    commit_at(repo, "Split the dispatcher", DAY * 10)
    assert repo.kg("update").code == 0
    assert repo.kg("mine-playbooks").code == 0
    text = (repo.root / "playbooks/proposed/add-a-webhook-target.md").read_text()
    steps = [line for line in text.splitlines() if line[:3] in ("1. ", "2. ")]
    assert steps == [
        "1. Edit `core/dispatch.py` (3 of 3): `core/routing.py::route` (moved) (3 of the 3 "
        "newest).",
        "2. Edit `core/registry.py` (3 of 3).",
    ], text


def test_edits_of_a_busy_page_under_unrelated_titles_are_not_a_task(repo: Repo) -> None:
    layout(repo)
    titles = ("Clarify the intro", "Regendoc", "Explain fixtures better", "Fix a broken link",
              "Reword the tutorial", "Document the cache")  # fmt: skip
    for number, title in enumerate(titles, 1):
        for path in BUSY[1:]:
            edit(repo, path, f"# {number}")
        commit_at(repo, title, DAY * number)
    for number in range(3):  # bare merge subjects say no word of a task
        for path in BUSY[1:]:
            edit(repo, path, f"# merge {number}")
        commit_at(repo, f"Merge pull request #{number + 10} from someone/branch-{number}",
                  DAY * (10 + number))  # fmt: skip
    assert mine_history(repo.root, Options()).patterns == []


def test_release_notes_carried_to_another_line_are_set_aside(repo: Repo) -> None:
    from kgtool.mining.filters import BOT, RELEASE, filter_change_sets
    from kgtool.mining.history import read_history

    layout(repo)
    for number, title in enumerate(
        ("Cherry pick 9.0.2 release notes", "Backport the 9.1 fixes", "Add release notes for 9.2")
    ):
        edit(repo, "docs/targets.md", f"# {number}")
        commit_at(repo, title, DAY * (number + 1))
    # A dependency bump a person merged, under a conventional type, is a bot's work too.
    edit(repo, "core/registry.py", "# deps")
    commit_at(repo, "build(deps): bump golang.org/x/tools from 0.1.0 to 0.2.0", DAY * 9)
    filtered = filter_change_sets(read_history(repo.root).change_sets, "main")
    assert len(filtered.set_aside[RELEASE]) == 3
    assert [c.title for c in filtered.set_aside[BOT]] == [
        "build(deps): bump golang.org/x/tools from 0.1.0 to 0.2.0"
    ]


def test_additions_of_one_kind_of_file_under_two_verbs_are_one_proposal(repo: Repo) -> None:
    layout(repo)
    repo.write("README.md", "# Notifiers\n")
    commit_at(repo, "Describe the notifiers", DAY)
    for number, (title, name) in enumerate(
        [("Add the slack notifier", "slack"), ("Add the teams notifier", "teams"),
         ("Add the zulip notifier", "zulip"), ("Port the matrix notifier", "matrix"),
         ("Port the gitter notifier", "gitter"), ("Port the irc notifier", "irc")], 2
    ):  # fmt: skip
        repo.write(f"notifiers/{name}.py", f"NAME = '{name}'\n")
        repo.write(f"tests/test_{name}.py", f"from notifiers.{name} import NAME\n")
        if number % 2:
            edit(repo, "README.md", f"- {name}")
        commit_at(repo, title, DAY * number)
    patterns = mine_history(repo.root, Options()).patterns
    adding = [p for p in patterns if p.additive]
    assert len(adding) == 1, [(p.verb, p.template, p.items) for p in adding]
    # The one kept holds the fuller file set of the two (the README the additions touched).
    assert "README.md" in {item for item, _ in adding[0].items}
    assert adding[0].support == 6 and adding[0].confidence <= 1.0


def test_a_task_done_a_new_way_is_proposed_the_way_it_is_done_now(repo: Repo) -> None:
    layout(repo)
    repo.write("core/old_registry.py", "# old\n")
    commit_at(repo, "Start the old registry", DAY)
    names = [f"n{number:02d}" for number in range(24)]
    for number, name in enumerate(names):
        repo.write(f"notifiers/{name}.py", f"NAME = '{name}'\n")
        # The first twelve registered in the old file, the newest twelve in the new one.
        edit(repo, "core/old_registry.py" if number < 12 else "core/registry.py", name)
        commit_at(repo, f"Add the {name} notifier", DAY * (number + 2))
    [pattern] = [p for p in mine_history(repo.root, Options()).patterns if p.additive]
    files = {item for item, _ in pattern.items}
    assert "core/registry.py" in files and "core/old_registry.py" not in files, files
    # Its counts say what it was chosen by: 12 of all 24, and all of the newest 10.
    assert repo.kg("update").code == 0
    assert repo.kg("mine-playbooks").code == 0
    [proposal] = (repo.root / "playbooks/proposed").glob("*.md")
    text = proposal.read_text()
    assert '"core/registry.py"  # 12 of 24, 10 of the newest 10' in text
    # So does its step: a file in every newest change is no optional one.
    assert "Edit `core/registry.py` (10 of the newest 10; 12 of 24 in all)" in text


def test_typo_fixes_across_folders_are_not_a_task(repo: Repo) -> None:
    layout(repo)
    for number, title in enumerate(
        ("Fix typos in the guide", "Fix a typo", "docs: fix spelling", "Fix typo in targets")
    ):
        for path in ("docs/targets.md", "core/registry.py"):
            edit(repo, path, f"# {number}")
        # Weeks apart: a fix days after a change is read as completing it, not as a task.
        commit_at(repo, title, 10 * DAY * (number + 1))
    mined = mine_history(repo.root, Options())
    assert mined.patterns == [] and mined.sweeps >= 1


def test_two_kinds_of_addition_sharing_only_a_test_file_kind_stay_two(repo: Repo) -> None:
    layout(repo)
    # Folders with many files: their names are words of the repository, not new names.
    repo.write_files({f"{kind}s/base_{n}.py": "X = 1\n" for kind in ("lexer", "formatter")
                      for n in range(12)})  # fmt: skip
    commit_at(repo, "Lay out the lexers and formatters", DAY / 2)
    for number, (kind, name) in enumerate(
        [("lexer", n) for n in ("lua", "nim", "zig", "odin", "hare")]
        + [("formatter", n) for n in ("html", "latex", "rtf", "svg", "bbcode", "irc")]
    ):
        repo.write(f"{kind}s/{name}.py", f"NAME = '{name}'\n")
        repo.write(f"tests/test_{name}.py", f"from {kind}s.{name} import NAME\n")
        commit_at(repo, f"Add {name} {kind}", DAY * (number + 1))
    patterns = [p for p in mine_history(repo.root, Options()).patterns if p.additive]
    assert len(patterns) == 2, [(p.template, p.items, p.support) for p in patterns]
    assert sorted(p.support for p in patterns) == [5, 6]


def test_a_file_name_cannot_write_lines_into_a_proposal(repo: Repo) -> None:
    layout(repo)
    hostile = 'docs/<n>\n  - "README.md"\n  #x.md'
    for number, name in enumerate(TARGETS):
        repo.write(f"plugins/{name}.py", f"NAME = '{name}'\n")
        repo.write(f'docs/{name}\n  - "README.md"\n  #x.md', "# doc\n")
        commit_at(repo, f"Add the {name} plugin", DAY * (number + 1))
    assert hostile  # the shape of the name every addition carries
    assert repo.kg("update").code == 0
    result = repo.kg("mine-playbooks")
    assert result.code == 0, result.out + result.err
    for proposal in (repo.root / "playbooks/proposed").glob("*.md"):
        front = proposal.read_text().split("---")[1]
        assert '\n  - "README.md"' not in front, front


def test_symbols_read_from_odd_names_and_a_deletion_adds_nothing(repo: Repo) -> None:
    from kgtool.mining.symbols import touched_symbols

    source = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    for name in ("odd name.py", ":(glob)star.py"):
        repo.write(name, source)
    commit_at(repo, "Initial layout", 0)
    for name in ("odd name.py", ":(glob)star.py"):
        repo.write(name, source.replace("def b():\n    return 2\n\n\n", ""))
    deleted = commit_at(repo, "Drop b", DAY)
    without_b = source.replace("def b():\n    return 2\n\n\n", "")
    for name in ("odd name.py", ":(glob)star.py"):
        repo.write(name, without_b.replace("return 1", "return 10"))
    edited = commit_at(repo, "Change a", 2 * DAY)
    for name in ("odd name.py", ":(glob)star.py"):
        reading = touched_symbols(repo.root, [(edited, name), (deleted, name)])
        assert reading.read == 2, name
        # The deletion wrote no line of any symbol; the edit wrote one of a's.
        assert [(t.qualname, t.changes, t.added) for t in reading.touched] == [("a", 1, "")], (
            name,
            reading,
        )


def test_steps_say_what_the_changes_wrote_in_a_symbol(repo: Repo) -> None:
    resolver = "def resolve(kind):\n    match kind:\n{}        case _: return None\n"
    settings = "class Settings:\n    def defaults(self):\n        return dict(\n{}        )\n"
    text = webhook_targets_mined(
        repo,
        {
            "core/resolve.py": (resolver, "        case '{0}': return '{0}'\n"),
            "core/settings.py": (settings, "            {}=True,\n"),
        },
    )
    assert "add a case to `core/resolve.py::resolve` (3 of the 3 newest)" in text, text
    assert "add an entry to `core/settings.py::Settings.defaults` (3 of the 3 newest)" in text


def test_work_on_one_component_is_not_a_task(repo: Repo) -> None:
    layout(repo)
    repo.write_files({"plugins/procstat/procstat.go": "package procstat\n",
                      "plugins/procstat/procstat_test.go": "package procstat\n"})  # fmt: skip
    commit_at(repo, "Add the process statistics plugin", DAY)
    titles = ("Add cgroup tags to procstat", "Add pid lookup to procstat",
              "Add the user metric to procstat", "Add Windows paths to procstat")  # fmt: skip
    for number, title in enumerate(titles):
        for path in ("plugins/procstat/procstat.go", "plugins/procstat/procstat_test.go"):
            edit(repo, path, f"// {number}")
        commit_at(repo, title, DAY * 10 * (number + 1))
    assert mine_history(repo.root, Options()).patterns == []


def test_upkeep_of_the_projects_ci_is_not_a_task(repo: Repo) -> None:
    layout(repo)
    repo.write_files({".github/workflows/test.yml": "on: push\n", ".circleci/config.yml": "v: 2\n",
                      ".github/ISSUE_TEMPLATE/bug.md": "# Bug\n"})  # fmt: skip
    commit_at(repo, "Set up CI", DAY)
    for number, version in enumerate(("1.20", "1.21", "1.22", "1.23")):
        for path in (".github/workflows/test.yml", ".circleci/config.yml"):
            edit(repo, path, f"# go {version}")
        commit_at(repo, f"Update the Go toolchain to {version}", DAY * 10 * (number + 1))
    assert mine_history(repo.root, Options()).patterns == []


def test_a_task_done_a_few_times_is_one_only_when_done_alike_each_time(repo: Repo) -> None:
    layout(repo)
    repo.write_files({"app/knobs.py": "# k\n", "app/cli.py": "# c\n", "docs/knobs.md": "# d\n"})
    commit_at(repo, "Lay out the knobs", 1)
    # Three changes titled alike: two of them also touch the docs, one does not.
    for number, name in enumerate(("Verbosity", "Colour", "Paging")):
        paths = ["app/knobs.py", "app/cli.py"] + (["docs/knobs.md"] if number else [])
        for path in paths:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Add the {name} knob", DAY * (number + 1))
    assert mine_history(repo.root, Options()).patterns == []
    # A fourth, with every file again, is still a task done a few times, not alike each time.
    for path in ("app/knobs.py", "app/cli.py", "docs/knobs.md"):
        edit(repo, path, "# Width")
    commit_at(repo, "Add the Width knob", DAY * 5)
    assert mine_history(repo.root, Options()).patterns == []
    # A fifth: done often enough that the docs, in most of them, are part of it.
    for path in ("app/knobs.py", "app/cli.py", "docs/knobs.md"):
        edit(repo, path, "# Height")
    commit_at(repo, "Add the Height knob", DAY * 6)
    [pattern] = mine_history(repo.root, Options()).patterns
    assert pattern.template == ("add", "<name>", "knob") and pattern.support == 5


def test_changes_titled_alike_with_no_file_most_of_them_touch_are_no_task(repo: Repo) -> None:
    layout(repo)
    repo.write_files({"core/sites.py": "# start\n"})
    commit_at(repo, "Lay out the sites", 1)
    # Six changes titled alike, linked by the files they share: three over one site and the
    # registry, three over another folder's files; no file is in more than half of them.
    changes = {
        "Courses": ["features/part_2.py", "features/part_5.py"],
        "Festival": ["features/part_1.py", "core/sites.py", "features/part_5.py"],
        "Congress": ["features/part_2.py", "features/part_12.py"],
        "Reels": ["features/part_1.py", "core/sites.py"],
        "Shorts": ["features/part_2.py", "features/part_14.py"],
        "Live": ["features/part_1.py", "core/sites.py"],
    }
    for number, (name, paths) in enumerate(changes.items()):
        for path in paths:
            edit(repo, path, f"# {name}")
        commit_at(repo, f"Support {name} videos", DAY * (number + 1))
    found = mine_history(repo.root, Options()).patterns
    assert found == [], [(p.template, [(i, n) for i, n in p.items]) for p in found]


def test_a_verb_group_needs_min_support_changes_not_one_fewer(repo: Repo) -> None:
    """Grown around an added kind of file, each verb's changes are a candidate only when
    there are ``min_support`` of them: one fewer is no task, however often the file recurs."""
    layout(repo)
    # A folder of many files: "notifiers" is a word of the repository, the kind's name.
    repo.write_files({f"notifiers/base_{n}.py": "X = 1\n" for n in range(12)})
    commit_at(repo, "Lay out the notifiers", DAY / 2)
    names = iter(["slack", "teams", "zulip", "matrix", "gitter", "irc", "xmpp", "email"])

    def add(verb: str, number: int) -> None:
        name = next(names)
        repo.write(f"notifiers/{name}.py", f"NAME = '{name}'\n")
        repo.write(f"tests/test_{name}.py", f"from notifiers.{name} import NAME\n")
        commit_at(repo, f"{verb} the {name} notifier", DAY * 10 * number)

    for number in range(1, MIN_SUPPORT):  # MIN_SUPPORT - 1 of each verb
        add("Add", 2 * number - 1)
        add("Port", 2 * number)
    found = mine_history(repo.root, Options()).patterns
    assert found == [], [(p.verb, p.support) for p in found]
    add("Add", 2 * MIN_SUPPORT)
    [pattern] = mine_history(repo.root, Options()).patterns
    assert (pattern.verb, pattern.support) == ("add", MIN_SUPPORT)
    assert all(task.change.title.startswith("Add ") for task in pattern.tasks)


def test_a_task_whose_layout_changed_keeps_its_core_in_its_newest_changes() -> None:
    """Twenty widgets titled alike, the first ten added the old way and the newest ten the
    new way, one change touching a file of both: its files are chosen from the newest, and
    its core is counted there too (over all twenty, no file is in more than half)."""
    from kgtool.mining.history import ChangeSet
    from kgtool.mining.patterns import Task, find_patterns

    names = [f"w{letter}x" for letter in "abcdefghijklmnopqrst"]
    tasks = []
    for number, name in enumerate(names):
        change = ChangeSet(f"{number:040x}", "direct", None, "a", "a@x",
                           1_700_000_000 + number * 86_400, f"Add {name} widget",
                           f"Add {name} widget", ())  # fmt: skip
        where = "old" if number < 10 else "new"
        items = {f"{where}/<name>.py": [f"{where}/{name}.py"],
                 f"{where}/registry.py": [f"{where}/registry.py"]}  # fmt: skip
        if number in (9, 10):  # one file in both layouts joins the two halves
            items["bridge.py"] = ["bridge.py"]
            del items[f"{where}/registry.py"]
        tasks.append(Task(change, items, {f"{where}/<name>.py"}, set(), "add"))
    found = [p for p in find_patterns(tasks) if p.template]
    assert found, "the task is found"
    assert "new/registry.py" in dict(found[0].items) and "old/registry.py" not in dict(
        found[0].items
    ), found[0].items


def test_an_edit_of_a_functions_first_line_touches_it_and_three_symbols_at_most(
    repo: Repo,
) -> None:
    from kgtool.mining.symbols import touched_symbols

    source = "".join(f"def {name}():\n    return {n}\n\n\n" for n, name in enumerate("abcd"))
    repo.write("core/steps.py", source)
    commit_at(repo, "Initial layout", 0)
    # a's signature only (its first line), and the bodies of b, c and d.
    edited = source.replace("def a():", "def a(key=None):")
    for n in (1, 2, 3):
        edited = edited.replace(f"return {n}\n", f"return {10 * n}\n")
    repo.write("core/steps.py", edited)
    commit = commit_at(repo, "Edit the steps", DAY)
    reading = touched_symbols(repo.root, [(commit, "core/steps.py")])
    assert reading.read == 1
    assert [t.qualname for t in reading.touched] == ["a", "b", "c"]


def test_a_file_too_large_to_read_is_not_counted(repo: Repo) -> None:
    """A file past the size bound is not read, let alone parsed: no change of it counts."""
    from kgtool.mining.symbols import MAX_BYTES, touched_symbols

    lines = MAX_BYTES // len("VALUE_0000000 = 0\n") + 1
    repo.write("core/table.py", "".join(f"VALUE_{n:07} = 0\n" for n in range(lines)))
    commit_at(repo, "Initial layout", 0)
    text = (repo.root / "core/table.py").read_text()
    repo.write("core/table.py", text.replace("VALUE_0000001 = 0", "VALUE_0000001 = 1"))
    commit = commit_at(repo, "Change a value", DAY)
    assert touched_symbols(repo.root, [(commit, "core/table.py")]).read == 0


def test_each_group_of_changes_titled_alike_is_a_candidate_of_its_own() -> None:
    """One template, two groups of overlapping changes: the older shares a single file (no
    task), and the newer still is one."""
    from kgtool.mining.patterns import _titled_alike

    names = ("zoom", "ping", "mail", "chat", "blog", "wiki")
    files = [["app/common.py", f"app/own_{n}.py"] for n in range(3)]
    files += [["app/widgets.py", "app/render.py"]] * 3
    tasks = [task_of(n, f"Add the {names[n].title()} widget", files[n], "add") for n in range(6)]
    by_item: dict[str, list[int]] = {}
    for index, task in enumerate(tasks):
        for item in task.items:
            by_item.setdefault(item, []).append(index)
    found = _titled_alike(tasks, by_item, MIN_SUPPORT, 0.5)
    assert [(p.template, [i for i, _ in p.items], p.support) for p in found] == [
        (("add", "<name>", "widget"), ["app/render.py", "app/widgets.py"], 3)
    ]


def test_changes_titled_alike_are_joined_by_the_share_of_all_their_files() -> None:
    """Jaccard: one file shared of nine is too little overlap, however the sets compare."""
    from kgtool.mining.patterns import _overlapping

    tasks = [
        task_of(0, "Add x", [f"app/{name}.py" for name in "abcde"]),
        task_of(1, "Add y", [f"app/{name}.py" for name in "avwxy"]),
        task_of(2, "Add z", [f"app/{name}.py" for name in "abcdz"]),
    ]
    assert _overlapping([0, 1, 2], tasks, 0.25) == [[0, 2], [1]]


def test_changes_titled_only_by_a_verb_and_a_name_need_half_their_files_in_common() -> None:
    """Titles such as "Add Zoom" and "Add Ping" say nothing of the task: a third of their
    files in common, enough for titles that say words, is not enough for them."""
    from kgtool.mining.patterns import _titled_alike

    def titled(template: str) -> list[Pattern]:
        names = ("Zoom", "Ping", "Mail")
        files = [["app/a.py", "app/b.py", f"app/{name}.py", f"docs/{name}.md"] for name in names]
        tasks = [task_of(n, template.format(names[n]), files[n], "add") for n in range(3)]
        by_item: dict[str, list[int]] = {}
        for index, task in enumerate(tasks):
            for item in task.items:
                by_item.setdefault(item, []).append(index)
        return _titled_alike(tasks, by_item, MIN_SUPPORT, 0.5)

    assert titled("Add {}") == []
    [widget] = titled("Add the {} widget")
    assert widget.template == ("add", "<name>", "widget")


def test_changes_titled_only_update_and_a_name_are_no_task_whatever_their_files() -> None:
    """Titles such as "Update Zoom" and "Update Ping", a verb that says only that something
    changed and a name, say nothing the changes share, however alike their files are."""
    from kgtool.mining.patterns import _titled_alike

    def titled(template: str) -> list[Pattern]:
        names = ("Zoom", "Ping", "Mail")
        tasks = [task_of(n, template.format(names[n]), ["app/a.py", "app/b.py"]) for n in range(3)]
        by_item = {"app/a.py": [0, 1, 2], "app/b.py": [0, 1, 2]}
        return _titled_alike(tasks, by_item, MIN_SUPPORT, 0.5)

    assert titled("Update {}") == []
    # A word beside the name is something they share.
    [widget] = titled("Update the {} widget")
    assert widget.template == ("change", "<name>", "widget")


def test_a_candidate_sharing_half_its_changes_with_a_better_one_is_that_one() -> None:
    from kgtool.mining.patterns import distinct

    tasks = [task_of(n, "Add x", ["app/a.py", "app/b.py", "app/c.py"], "add") for n in range(4)]
    better = Pattern("app/a.py", "add", tasks[:3], [("app/a.py", 3), ("app/b.py", 3),
                     ("app/c.py", 3)], 3)  # fmt: skip
    other = Pattern("docs/x.md", "document", tasks[1:], [("docs/x.md", 3), ("docs/y.md", 3)], 3)
    # Two of four changes in common: half of them, one task.
    assert distinct([other, better]) == [better]
    other.tasks = [*tasks[2:], task_of(5, "Add y", ["docs/x.md"], "add")]
    assert distinct([other, better]) == [better, other]


def test_a_file_a_change_deletes_is_no_file_of_its_task(repo: Repo) -> None:
    """Dropping a provider removes its file and edits the registry: the task is the edit
    (and the changelog its bookkeeping), never the file that is gone."""
    from kgtool.mining.history import read_history
    from kgtool.mining.paths import Abstractor
    from kgtool.mining.patterns import make_tasks

    repo.write_files(base_files())
    add_provider(repo, "zoom")
    commit_at(repo, "Add the Zoom provider", 0)
    (repo.root / "app/providers/zoom.py").unlink()
    edit(repo, "app/providers/__init__.py", "# zoom dropped")
    edit(repo, "CHANGES.md", "- zoom dropped")
    commit_at(repo, "Drop the Zoom provider", DAY)
    changes = read_history(repo.root).change_sets
    task = make_tasks(changes, Abstractor([]))[-1]
    assert task.change.title == "Drop the Zoom provider"
    assert task.items == {"app/providers/__init__.py": ["app/providers/__init__.py"]}
    assert (task.added, task.bookkeeping) == (set(), {"CHANGES.md"})
