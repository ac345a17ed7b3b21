"""``kgtool impact``: dependents as a lower bound, with tiers, confidences and communities."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import Repo, assert_one_line_error
from read_helpers import build_read_repo


def test_impact_of_a_method_counts_inferred_and_unresolved_and_walks_to_depth(repo: Repo) -> None:
    build_read_repo(repo)
    result = repo.kg("impact", "app/store.py::Store.save")
    assert result.code == 0, result.err
    assert result.err == ""
    assert result.out == (
        "impact of app/store.py::Store.save (depth 3): at least 3 dependents in 1 community "
        "(3 callers), 2 inferred; 1 unresolved call site named `save` could also reach it\n"
        "\n"
        "c2 · Store: API (unlabelled): 3\n"
        "  1  caller    app/store.py::Store.flush  app/store.py:14  EXTRACTED 1.00\n"
        "  1  caller    app/api.py::handler  app/api.py:6  INFERRED 0.95\n"
        "  2  caller    app/cli.py::main  app/cli.py:5  INFERRED 0.95  (via app/api.py::handler)\n"
        "\n"
        "could also reach it (unresolved call sites with a matching name):\n"
        "  app/api.py::sync  `save`×1\n"
    )


def test_depth_limits_the_walk(repo: Repo) -> None:
    build_read_repo(repo)
    result = repo.kg("impact", "app/store.py::Store.save", "--depth", "1", "--format", "json")
    document = json.loads(result.out)
    nodes = [d["node"] for d in document["dependents"]]
    assert nodes == ["app/api.py::handler", "app/store.py::Store.flush"]
    # The JSON states the depth walked and the same lower bound the text opens with.
    text = repo.kg("impact", "app/store.py::Store.save", "--depth", "1").out
    assert document["depth"] == 1
    assert text.startswith(f"impact of app/store.py::Store.save (depth 1): {document['summary']}\n")
    assert document["summary"].startswith("at least 2 dependents")
    assert_one_line_error(repo.kg("impact", "app/store.py", "--depth", "0"), says="--depth")


def test_a_class_groups_callers_and_subclasses_by_community_and_lists_ambiguous_sites(
    repo: Repo,
) -> None:
    build_read_repo(repo)
    result = repo.kg("impact", "app/store.py::Store", "--depth", "1")
    assert result.out == (
        "impact of app/store.py::Store (depth 1): at least 2 dependents in 2 communities "
        "(1 caller, 1 subclass), 0 inferred; 1 ambiguous call site could also reach it; "
        "1 unresolved call site named `save` could also reach it\n"
        "\n"
        "c2 · Store: API (unlabelled): 1\n"
        "  1  caller    app/api.py::handler  app/api.py:5  EXTRACTED 1.00\n"
        "\n"
        "c3 · Report: format (unlabelled): 1\n"
        "  1  subclass  report/render.py::Page  report/render.py:5  EXTRACTED 1.00\n"
        "\n"
        "could also reach it (ambiguous: one of several candidates, not followed):\n"
        "  app/api.py::sync  app/api.py:10  one of 2 candidates, app/store.py::Store.load\n"
        "\n"
        "could also reach it (unresolved call sites with a matching name):\n"
        "  app/api.py::sync  `save`×1\n"
    )


def test_a_file_reaches_its_importers_transitively(repo: Repo) -> None:
    build_read_repo(repo)
    document = json.loads(repo.kg("impact", "app/store.py", "--format", "json").out)
    assert document["files"] == ["app/api.py", "app/cli.py", "report/render.py"]
    by_node = {d["node"]: d for d in document["dependents"]}
    assert by_node["app/cli.py"] == {
        "community": "c2",
        "confidence": 1.0,
        "depth": 2,
        "node": "app/cli.py",
        "reaches": "app/api.py",
        "role": "importer",
        "site": "app/cli.py:1",
        "tier": "EXTRACTED",
        "type": "imports",
    }
    assert document["lower_bound"] is True and document["stale"] is None


def test_cycles_end_and_the_output_is_deterministic(repo: Repo) -> None:
    build_read_repo(repo)
    first = repo.kg("impact", "app/cli.py::ping", "--depth", "50")
    assert first.out.splitlines()[0] == (
        "impact of app/cli.py::ping (depth 50): at least 1 dependent in 1 community "
        "(1 caller), 0 inferred"
    )
    assert "app/cli.py::pong  app/cli.py:13" in first.out
    assert repo.kg("impact", "app/cli.py::ping", "--depth", "50").out == first.out
    # Store.save and Store.flush call each other: the walk from flush reaches save once and
    # goes on to save's callers, never back to flush.
    nodes = [
        (d["node"], d["depth"])
        for d in json.loads(repo.kg("impact", "app/store.py::Store.flush", "--format", "json").out)[
            "dependents"
        ]
    ]
    assert nodes == [
        ("app/store.py::Store.save", 1),
        ("app/api.py::handler", 2),
        ("app/cli.py::main", 3),
    ]


def test_diff_takes_the_changed_files_as_targets_and_warns_only_of_files_outside_it(
    repo: Repo,
) -> None:
    build_read_repo(repo)
    repo.write("report/format.py", "def cell(value):\n    return repr(value)\n")
    repo.write("report/new.py", "X = 1\n")
    repo.git("add", "report/new.py")
    result = repo.kg("impact", "--diff", "--format", "json")
    document = json.loads(result.out)
    assert document["targets"] == ["report/format.py"]
    assert document["files"] == ["report/render.py"]
    assert document["notes"] == [
        "1 changed file(s) not in .kg/raw/ (new, deleted or excluded), left out: report/new.py"
    ]
    # The change set differs from .kg/ by definition: it is read as the graph before it.
    assert result.err == ""
    assert_one_line_error(repo.kg("impact", "--diff", "nosuchrev"), says="nosuchrev")
    # A change committed without `kgtool update` is outside the diff against HEAD: said.
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "format as repr")
    repo.write("report/render.py", "def render(rows):\n    return rows\n")
    result = repo.kg("impact", "--diff")
    assert result.err == (
        "kgtool: warning: .kg/ is out of date: 2 files changed since the last `kgtool update` "
        "(report/format.py, report/new.py); answers describe the code as it was then, line "
        "numbers may be off: run `kgtool update`\n"
    )
    assert result.out.splitlines()[0].startswith("impact of report/render.py")


def test_unknown_target_and_missing_kg_are_one_line_errors(repo: Repo) -> None:
    build_read_repo(repo)
    assert_one_line_error(
        repo.kg("impact", "app/store.py::Stor"), says="did you mean app/store.py::Store"
    )
    assert_one_line_error(repo.kg("impact"), says="--diff")
    assert repo.kg("impact").err == (
        "kgtool: error: name a path or path::Symbol, or use --diff [BASE]\n"
    )
    shutil.rmtree(repo.root / ".kg" / "raw")
    assert_one_line_error(
        repo.kg("impact", "app/store.py"),
        says=".kg/ is missing (.kg/raw/ not found): run `kgtool update`",
    )


def test_ids_with_escaped_characters_are_read_too(repo: Repo) -> None:
    build_read_repo(repo)
    repo.write('app/odd"name.py', "def helper():\n    return 1\n")
    repo.write("app/user.py", "from app.store import Store\n\n\ndef use():\n    return Store()\n")
    repo.commit("a quote in a file name")
    assert repo.kg("update").code == 0
    assert b"\\" in repo.layer1()  # the line-by-line reading
    document = json.loads(repo.kg("impact", "app/store.py::Store", "--format", "json").out)
    assert [d["node"] for d in document["dependents"]] == [
        "app/api.py::handler",
        "app/user.py::use",
        "report/render.py::Page",
        "app/cli.py::main",
    ]
    assert repo.kg("explain", 'app/odd"name.py').out.splitlines()[:2] == [
        'app/odd"name.py  (file, python, 2 lines)',
        "in c2 · Store: API (unlabelled)",
    ]


def test_unresolved_names_are_counted_most_first_and_listed_per_caller(repo: Repo) -> None:
    """Two names of the target's methods called on receivers nothing types: the summary
    names the more frequent first, the caller's line lists both."""
    repo.write(".kgtool.yaml", "max_candidates: 1\n")
    repo.write("app/__init__.py", "")
    for name in ("a", "b"):
        repo.write(
            f"app/{name}.py",
            f"class {name.upper()}:\n    def put(self):\n        return 1\n\n"
            "    def get(self):\n        return 2\n",
        )
    repo.write("app/use.py", "def use(x):\n    x.put()\n    x.put()\n    return x.get()\n")
    repo.build({})
    result = repo.kg("impact", "app/a.py::A")
    assert result.code == 0, result.err
    first = result.out.splitlines()[0]
    assert "3 unresolved call sites named `put`, `get` could also reach it" in first, first
    assert "  app/use.py::use  `get`×1, `put`×2" in result.out.splitlines(), result.out


def test_a_stale_map_is_said_in_the_json_and_many_targets_are_counted(repo: Repo) -> None:
    build_read_repo(repo)
    repo.write("app/store.py", (repo.root / "app/store.py").read_text() + "\n# edited\n")
    document = json.loads(repo.kg("impact", "app/store.py::Store.save", "--format", "json").out)
    assert document["stale"] and "app/store.py" in document["stale"], document["stale"]
    repo.write("app/api.py", (repo.root / "app/api.py").read_text() + "\n# edited too\n")
    both = repo.kg("impact", "--diff")  # every changed file is a target
    assert both.out.startswith("impact of 2 changed files (depth 3):"), both.out


def test_one_answer_per_dependent_the_most_confident_then_the_firmest_then_the_first_site() -> None:
    from kgtool.query.impact import Dependent, _better

    def step(confidence: float, tier: str, site: str) -> Dependent:
        return Dependent("a.py::f", 1, "calls", tier, confidence, site, "b.py::g", "c1")

    sure, guess = step(1.0, "EXTRACTED", "a.py:9"), step(0.9, "INFERRED", "a.py:1")
    assert _better(sure, guess) and not _better(guess, sure)
    firm, soft = step(0.9, "EXTRACTED", "a.py:9"), step(0.9, "INFERRED", "a.py:1")
    assert _better(firm, soft) and not _better(soft, firm)
    # A tier the ranks do not know is weaker than both.
    odd = step(0.9, "OTHER", "a.py:1")
    assert _better(soft, odd) and not _better(odd, soft)
    odd_later = step(0.9, "OTHER", "a.py:2")  # both unknown: the first site still decides
    assert _better(odd, odd_later) and not _better(odd_later, odd)
    first, later = step(0.9, "INFERRED", "a.py:1"), step(0.9, "INFERRED", "a.py:2")
    assert _better(first, later) and not _better(later, first)
    assert not _better(first, first)  # the same step is not better than itself


def test_the_json_names_each_community_by_its_title_or_its_id() -> None:
    from kgtool.query.impact import Dependent, ImpactReport, as_json

    report = ImpactReport(["b.py::g"], ["b.py::g"], 1)
    report.dependents = [
        Dependent("a.py::f", 1, "calls", "EXTRACTED", 1.0, "a.py:3", "b.py::g", "c1"),
        Dependent("d.py::h", 1, "calls", "EXTRACTED", 1.0, "d.py:4", "b.py::g", "c2"),
    ]
    document = as_json(report, {"c1": "c1 · Store: API"})
    assert document["communities"] == [
        {"id": "c1", "title": "c1 · Store: API"},
        {"id": "c2", "title": "c2"},
    ]


def test_impact_judges_freshness_by_the_settings_it_is_given(repo: Repo) -> None:
    """The settings handed in (the server's, read once when it started) say which new files
    the map leaves out: a new file they exclude does not make .kg/ out of date."""
    from kgtool.config import Config, load_config
    from kgtool.query.impact import impact_answer
    from kgtool.store import Store

    build_read_repo(repo)
    repo.write("scratch/notes.py", "def jot():\n    return 1\n")
    repo.git("add", "scratch/notes.py")
    on_disk = load_config(repo.root)
    _, stale = impact_answer(repo.root, on_disk, Store(repo.root), "app/store.py", 1)
    assert "1 file changed" in stale and "scratch/notes.py" in stale
    given = Config({**on_disk.values, "exclude": ["scratch/**"]}, "the server's")
    _, stale = impact_answer(repo.root, given, Store(repo.root), "app/store.py", 1)
    assert stale == ""


def test_json_lists_each_ambiguous_site_s_candidates_and_each_caller_s_unresolved_names(
    repo: Repo,
) -> None:
    build_read_repo(repo)
    document = json.loads(
        repo.kg("impact", "app/store.py::Store", "--depth", "1", "--format", "json").out
    )
    assert document["ambiguous"] == [
        {
            "src": "app/api.py::sync",
            "site": "app/api.py:10",
            "reaches": "app/store.py::Store.load",
            "candidates": 2,
            "community": "c2",
        }
    ]
    assert document["unresolved"] == [{"caller": "app/api.py::sync", "names": {"save": 1}}]


def test_subclasses_are_counted_in_the_plural(repo: Repo) -> None:
    build_read_repo(repo)
    repo.write("app/kinds.py", "from app.store import Base\n\n\nclass Disk(Base):\n    pass\n")
    repo.git("add", "app/kinds.py")
    assert repo.kg("update").code == 0
    first = repo.kg("impact", "app/store.py::Base", "--depth", "1").out.splitlines()[0]
    assert "(2 subclasses)" in first, first


def test_past_five_unresolved_names_the_summary_names_five_and_others(repo: Repo) -> None:
    repo.write(".kgtool.yaml", "max_candidates: 1\n")
    repo.write("app/__init__.py", "")
    names = ["m1", "m2", "m3", "m4", "m5", "m6"]
    methods = "".join(f"    def {n}(self):\n        return 1\n\n" for n in names)
    for cls in ("a", "b"):
        repo.write(f"app/{cls}.py", f"class {cls.upper()}:\n{methods}")
    repo.write("app/use.py", "def use(x):\n" + "".join(f"    x.{n}()\n" for n in names))
    repo.build({})
    first = repo.kg("impact", "app/a.py::A").out.splitlines()[0]
    assert (
        "6 unresolved call sites named `m1`, `m2`, `m3`, `m4`, `m5` and others could also reach it"
    ) in first, first


def test_an_ambiguous_call_site_leaves_the_other_callers_of_the_symbol_counted(
    repo: Repo,
) -> None:
    """Store.load is one of two candidates of sync's call, and called plainly by use: the
    ambiguous site is set apart, and the walk goes on to the callers after it."""
    build_read_repo(repo)
    user = "from app.store import Store\n\n\ndef use():\n    return Store().load()\n"
    repo.write("app/user.py", user)
    repo.git("add", "app/user.py")
    assert repo.kg("update").code == 0
    document = json.loads(repo.kg("impact", "app/store.py::Store.load", "--format", "json").out)
    assert [d["node"] for d in document["dependents"]] == ["app/user.py::use"]
    assert [a["src"] for a in document["ambiguous"]] == ["app/api.py::sync"]


def test_a_path_holding_colons_still_names_its_symbols_for_unresolved_sites(repo: Repo) -> None:
    """A file name may hold '::': the symbol's name is what follows the last one, so a call
    to ``put`` on a receiver nothing types is still counted as what could reach A.put."""
    repo.write(".kgtool.yaml", "max_candidates: 1\n")
    repo.write("lib/odd::a.py", "class A:\n    def put(self):\n        return 1\n")
    repo.write("lib/b.py", "class B:\n    def put(self):\n        return 1\n")
    repo.write("app/use.py", "def use(x):\n    return x.put()\n")
    repo.build({})
    document = json.loads(repo.kg("impact", "lib/odd::a.py::A", "--format", "json").out)
    assert document["unresolved"] == [{"caller": "app/use.py::use", "names": {"put": 1}}]
    # Asked for under a path of its own, A is still guessed by its name.
    assert_one_line_error(
        repo.kg("impact", "somewhere/else/entirely/moved::z.py::A"),
        says="did you mean lib/odd::a.py::A",
    )


def test_impact_reads_the_map_through_the_store_it_is_given(repo: Repo, tmp_path: Path) -> None:
    """The store handed in (the server's, made once) is the one read through: the edges by
    target and the unbound call sites impact reads are kept in that store's cache folder."""
    from kgtool.config import load_config
    from kgtool.query.impact import impact_answer
    from kgtool.query.kg import EDGE_CACHE, UNRESOLVED_CACHE
    from kgtool.store import Store

    build_read_repo(repo)
    cache = tmp_path / "given-cache"
    store = Store(repo.root, cache_dir=cache)
    output, stale = impact_answer(repo.root, load_config(repo.root), store, "app/store.py", 3)
    assert output == repo.kg("impact", "app/store.py").out and stale == ""
    assert (cache / EDGE_CACHE).is_file() and (cache / UNRESOLVED_CACHE).is_file()


def test_a_short_walk_searches_layer_1_in_place_and_a_longer_one_builds_the_edge_index(
    make_repo: Callable[..., Repo],
) -> None:
    """Each node walked asks for its incoming edges: the first few are searched for in
    layer 1 itself (cheaper than indexing every edge); past them the index is built, and
    kept for the next reader."""
    from kgtool.query.kg import EDGE_CACHE, SEARCHES_BEFORE_INDEX

    chain = "def f0():\n    return 0\n"
    chain += "".join(f"\n\ndef f{n}():\n    return f{n - 1}()\n" for n in range(1, 8))
    repo = make_repo({"chain.py": chain})
    assert repo.kg("update").code == 0
    index = repo.cache_dir / EDGE_CACHE
    index.unlink(missing_ok=True)
    # One node a level: a walk to depth N asks for the incoming edges of N nodes.
    depth = str(SEARCHES_BEFORE_INDEX)
    short = json.loads(repo.kg("impact", "chain.py::f0", "--depth", depth, "--format", "json").out)
    assert [d["node"] for d in short["dependents"]] == [
        f"chain.py::f{n}" for n in range(1, SEARCHES_BEFORE_INDEX + 1)
    ]
    assert not index.exists()
    longer = repo.kg("impact", "chain.py::f0", "--depth", str(SEARCHES_BEFORE_INDEX + 1))
    assert f"chain.py::f{SEARCHES_BEFORE_INDEX + 1}" in longer.out
    assert index.is_file()


def test_a_target_written_from_the_current_folder_is_the_same_path(repo: Repo) -> None:
    """``./app/store.py::Store.save``, as a shell completes a path, names what
    ``app/store.py::Store.save`` names."""
    build_read_repo(repo)
    plain = repo.kg("impact", "app/store.py::Store.save")
    dotted = repo.kg("impact", "./app/store.py::Store.save")
    assert plain.code == 0 and dotted.code == 0, dotted.err
    assert dotted.out == plain.out


def added_after_layer_2(repo: Repo, path: str, text: str) -> None:
    """The read repository with ``path`` added to layer 1 while layer 2 stays as it was before
    (edited by hand, or not rebuilt): a file no community places."""
    build_read_repo(repo)
    layer2 = repo.root / ".kg" / "communities.json"
    older = layer2.read_bytes()
    repo.write(path, text)
    repo.git("add", path)
    assert repo.kg("update").code == 0
    layer2.write_bytes(older)


def test_a_dependent_layer_2_does_not_place_is_grouped_under_no_community(repo: Repo) -> None:
    """A layer 2 older than layer 1 (edited by hand, or not rebuilt) does not place a new
    caller: it is counted, under "(no community)", not left out or titled by nothing."""
    added_after_layer_2(
        repo, "app/extra.py", "from app.cli import ping\n\n\ndef spare():\n    return ping()\n"
    )
    text = repo.kg("impact", "app/cli.py::ping", "--depth", "1").out
    assert "\n(no community): 1\n  1  caller    app/extra.py::spare  app/extra.py:5  " in text


def test_ambiguous_sites_are_listed_by_community_first(repo: Repo) -> None:
    """Two call sites of ``load`` are ambiguous (Store.load or Cache.load): sync's, in c2, and
    late's, in a file layer 2 does not place yet. The one in no community is listed first,
    as the text groups it, though the walk and the callers' names put it last."""
    added_after_layer_2(repo, "zz/late.py", "def late(thing):\n    return thing.load()\n")
    document = json.loads(repo.kg("impact", "app/store.py::Store.load", "--format", "json").out)
    assert [(a["src"], a["community"]) for a in document["ambiguous"]] == [
        ("zz/late.py::late", None),
        ("app/api.py::sync", "c2"),
    ]


def test_an_ambiguous_site_between_two_symbols_of_the_target_is_counted_once(
    repo: Repo,
) -> None:
    """z's call of ``go`` could be T.go or U.go, both in lib/t.py: asked about the file, it
    is one call site that could also reach it, reached from each."""
    repo.write(".kgtool.yaml", "max_candidates: 2\n")
    repo.write("lib/__init__.py", "")
    two = "class T:\n    def go(self):\n        return 1\n\n\nclass U:\n    def go(self):\n"
    repo.write("lib/t.py", two + "        return 2\n")
    repo.write("lib/z.py", "def z(x):\n    return x.go()\n")
    repo.build({})
    document = json.loads(repo.kg("impact", "lib/t.py", "--format", "json").out)
    assert [(a["src"], a["site"]) for a in document["ambiguous"]] == [("lib/z.py::z", "lib/z.py:2")]
    assert document["summary"].endswith("; 1 ambiguous call site could also reach it")
