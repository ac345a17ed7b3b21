"""``kgtool explain``: a community, a layer-3 name, a file or a symbol, and what is not one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from communities_helpers import clique, community_of, update
from conftest import Repo, assert_one_line_error
from read_helpers import build_read_repo
from test_communities import three_packages

from kgtool.config import load_config
from kgtool.ontology.drift import DRIFTED, FRESH, RETIRED, CommunityState, DriftReport, EdgeState
from kgtool.ontology.model import CommunityLabel, EdgeLabel
from kgtool.query.explain import explain_answer
from kgtool.query.kg import READ_CACHE, MapState
from kgtool.query.labels import UNLABELLED, CommunityText, Labels
from kgtool.store import PAGES_DIR, Store

COMMUNITY_C2 = """\
c2 · Store: API (unlabelled)  (community)
Unlabelled: kgtool made this name and summary from paths, identifiers and docstrings; `kgtool label` writes a label.
6 files in app/, around Store and handler; store.py says 'Where records are kept'.

where it lives: 6 files (all in .kg/communities/c2.md)
  app/store.py  (5 edges in)
  app/api.py  (2 edges in)
  app/__init__.py
  app/cache.py
  app/cli.py
  app/disk.py

main symbols (edges in):
  app/store.py::Store  app/store.py:9  (2)
  app/api.py::handler  app/api.py:4  (1)
  app/store.py::Store.save  app/store.py:10  (1)

what it touches (layer-1 edges to and from other communities, layer 2):
  <- c3 · Report: format (unlabelled): imports×1 / inherits×1 (EXTRACTED 2)

playbooks pointing at it:
  playbooks/old-cache.md (refused, active): change the thing [key file app/cache.py::Cache.evict]
  playbooks/save-records.md (executable, active): change the thing [concept c2; key file app/store.py::Store.save; key file app/api.py]
"""  # noqa: E501


def test_a_community_by_id_and_by_its_name_in_any_case(repo: Repo) -> None:
    build_read_repo(repo)
    result = repo.kg("explain", "c2")
    assert result.code == 0 and result.err == ""
    assert result.out == COMMUNITY_C2
    assert repo.kg("explain", "store: api").out == COMMUNITY_C2


def test_a_file_lists_its_symbols_edges_by_community_and_playbooks(repo: Repo) -> None:
    build_read_repo(repo)
    result = repo.kg("explain", "app/api.py")
    assert result.out == (
        "app/api.py  (file, python, 11 lines)\n"
        "in c2 · Store: API (unlabelled)\n"
        "\n"
        "symbols:\n"
        "  app/api.py::handler  function  app/api.py:4\n"
        "  app/api.py::sync  function  app/api.py:9\n"
        "unresolved call sites inside it: 1 (what they reach is not in the graph)\n"
        "\n"
        "what it touches (layer-1 edges to and from other files, by community):\n"
        "  -> c2 · Store: API (unlabelled): calls×3 / imports×1 "
        "(AMBIGUOUS 1, EXTRACTED 2, INFERRED 1)\n"
        "  <- c2 · Store: API (unlabelled): calls×1 / imports×1 (EXTRACTED 2)\n"
        "\n"
        "playbooks pointing at it:\n"
        "  playbooks/save-records.md (executable, active): change the thing "
        "[key file app/api.py]\n"
    )


def test_the_file_layer_1_holds_last_lists_its_edges_out(repo: Repo) -> None:
    """report/render.py's records end layer 1: its stretch runs to the end of the data, and
    its edges out are read as the others' are."""
    build_read_repo(repo)
    result = repo.kg("explain", "report/render.py")
    assert result.code == 0, result.err
    assert (
        "what it touches (layer-1 edges to and from other files, by community):\n"
        "  -> c3 · Report: format (unlabelled): calls×6 / imports×1 (EXTRACTED 7)\n"
        "  -> c2 · Store: API (unlabelled): imports×1 / inherits×1 (EXTRACTED 2)\n"
    ) in result.out


def test_a_symbol_says_where_it_is_and_which_playbook_holds_it(repo: Repo) -> None:
    build_read_repo(repo)
    document = json.loads(repo.kg("explain", "app/store.py::Store", "--format", "json").out)
    assert document["kind"] == "symbol" and document["symbol_kind"] == "class"
    assert document["at"] == "app/store.py:9-17"
    assert document["community"] == {
        "id": "c2",
        "title": "c2 · Store: API (unlabelled)",
        "mark": "unlabelled",
    }
    assert [m["id"] for m in document["members"]] == [
        "app/store.py::Store.flush",
        "app/store.py::Store.load",
        "app/store.py::Store.save",
    ]
    assert document["incoming_by_tier"] == {"AMBIGUOUS": 1, "EXTRACTED": 2, "INFERRED": 1}
    assert [(e["id"], e["counts"]) for e in document["touches"]["in"]] == [
        ("c2", "calls×3 (AMBIGUOUS 1, EXTRACTED 1, INFERRED 1)"),
        ("c3", "inherits×1 (EXTRACTED 1)"),
    ]
    assert [(p["path"], p["verdict"], p["through"]) for p in document["playbooks"]] == [
        ("playbooks/save-records.md", "executable", ["key file app/store.py::Store.save"])
    ]
    flush = repo.kg("explain", "app/store.py::Store.flush").out
    assert flush.splitlines()[-1] == "  none"
    assert "at app/store.py:13-14\n" in flush
    text = repo.kg("explain", "app/store.py::Store").out
    assert "edges in from outside it: AMBIGUOUS 1, EXTRACTED 2, INFERRED 1\n" in text


def test_a_file_of_many_symbols_lists_the_first_and_counts_the_rest(repo: Repo) -> None:
    from kgtool.query.explain import SHOWN_SYMBOLS

    build_read_repo(repo)
    many = SHOWN_SYMBOLS + 3
    repo.write("app/many.py", "".join(f"def f{n}():\n    return {n}\n\n" for n in range(many)))
    repo.git("add", "app/many.py")
    assert repo.kg("update").code == 0
    text = repo.kg("explain", "app/many.py").out
    assert "\nsymbols:\n  app/many.py::f0  function  app/many.py:1" in text
    assert "  ... 3 more\n" in text


LABEL_SUMMARY = "6 files in app/, around Store and handler; store.py says 'Where records are kept'."


def test_a_drifted_label_is_marked_and_says_why(repo: Repo) -> None:
    """A current label is shown as fact: its name unmarked, its summary, no note; once its
    community changes it is marked drifted with why, and still shows the summary written."""
    build_read_repo(repo)
    assert repo.kg("label").code == 0
    repo.commit("labels")
    fresh = json.loads(repo.kg("explain", "c2", "--format", "json").out)
    assert (fresh["title"], fresh["name"], fresh["mark"], fresh["why"], fresh["summary"]) == (
        "c2 · Store: API",
        "Store: API",
        None,
        None,
        LABEL_SUMMARY,
    )
    for number in range(4):
        repo.write(
            f"app/use{number}.py",
            f"from app.store import Store\n\n\ndef use{number}():\n    return Store().load()\n",
        )
    repo.commit("more users")
    assert repo.kg("update").code == 0
    lines = repo.kg("explain", "c2").out.splitlines()
    assert lines[0] == "c2 · Store: API (drifted)  (community)"
    assert lines[1].startswith("Drifted: this label was written for a community that has changed")
    assert lines[2] == LABEL_SUMMARY


def test_a_community_split_off_a_labelled_one_shows_its_label_as_drifted(
    make_repo: Callable[..., Repo],
) -> None:
    """The part split off inherits its parent's label until it has its own: shown marked,
    never as fact, with the split as the reason."""
    names = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]
    repo = make_repo({**clique("big", names), **three_packages()})
    update(repo)
    assert repo.kg("label").code == 0
    repo.commit("labels")
    parent = community_of(repo, "big/s0.py")
    label = json.loads(repo.kg("explain", parent, "--format", "json").out)["name"]
    repo.write_files({**clique("big", names[:5]), **clique("big", names[5:])})
    repo.commit("split big")
    update(repo)
    part = community_of(repo, "big/s5.py")
    assert part != parent
    lines = repo.kg("explain", part).out.splitlines()
    assert lines[0] == f"{part} · {label} (drifted)  (community)"
    assert lines[1].startswith(
        "Drifted: this label was written for a community that has changed "
        f"(split (split off {parent}, whose label this was))."
    )


def test_an_unknown_subject_is_a_one_line_error_with_guesses(repo: Repo) -> None:
    build_read_repo(repo)
    assert_one_line_error(
        repo.kg("explain", "app/store.py::Stor"), says="did you mean app/store.py::Store"
    )
    assert_one_line_error(repo.kg("explain", "c99"), says="names no community")
    # A symbol of another file is not one of this file's, though layer 1 holds it further on.
    assert_one_line_error(
        repo.kg("explain", "app/cache.py::Store"), says="did you mean app/store.py::Store"
    )
    assert_one_line_error(repo.kg("explain", "Store: APl"), says="did you mean Store: API")


def test_the_read_commands_share_one_read_cache_built_only_when_needed(repo: Repo) -> None:
    build_read_repo(repo)
    cache = repo.cache_dir / "read.marshal"
    cache.unlink(missing_ok=True)
    # impact follows edges in place: it needs no word index, so it builds none; the edges
    # by target and the unbound call sites it does read are kept for the next question.
    edges = repo.cache_dir / "read-edges.marshal"
    edges.unlink(missing_ok=True)
    first = repo.kg("impact", "app/store.py", "--depth", "3")  # many nodes: the edge index
    assert not cache.exists()
    unresolved = repo.cache_dir / "read-unresolved.marshal"
    assert edges.exists() and unresolved.exists()
    kept_indexes = [(f.stat().st_ino, f.stat().st_mtime_ns) for f in (edges, unresolved)]
    assert repo.kg("impact", "app/store.py", "--depth", "3").out == first.out
    # ...and read from there by the next question, not built and written again.
    assert [(f.stat().st_ino, f.stat().st_mtime_ns) for f in (edges, unresolved)] == kept_indexes
    # explain's playbook verdicts need layer 1's symbols: the index is built once, kept...
    assert "playbooks/old-cache.md (refused" in repo.kg("explain", "app/cache.py").out
    kept = cache.read_bytes()
    # ...and context reads it as it is, without rebuilding it.
    assert repo.kg("context", "evict the cache").code == 0
    assert cache.read_bytes() == kept
    # A rewritten shard makes it stale: the next reader that needs it builds it again.
    repo.write("app/extra.py", "def extra():\n    return 1\n")
    repo.commit("extra")
    assert repo.kg("update").code == 0
    assert repo.kg("context", "evict the cache").code == 0
    assert cache.read_bytes() != kept


def test_a_layer_1_with_an_escape_is_decoded_once_and_kept_for_the_next_reader(
    repo: Repo,
) -> None:
    """An escaped character makes a reader decode layer 1 record by record, even one that
    needs no index (impact): it keeps what it decoded in the read cache, and a reader that
    needs the index (context) reads it from there rather than decoding layer 1 again."""
    build_read_repo(repo)
    repo.write('app/odd"name.py', "def helper():\n    return 1\n")
    repo.commit("a quote in a file name")
    assert repo.kg("update").code == 0
    cache = repo.cache_dir / READ_CACHE
    cache.unlink(missing_ok=True)
    assert repo.kg("impact", "app/store.py::Store.save").code == 0
    assert cache.is_file()
    kept = cache.stat()
    assert repo.kg("context", "save records").code == 0
    assert (cache.stat().st_ino, cache.stat().st_mtime_ns) == (kept.st_ino, kept.st_mtime_ns)


def test_a_graph_with_escaped_names_lists_its_files_without_asking_itself(
    make_repo,
) -> None:
    """Layer 1 with a backslash is searched record by record; its files' hashes, when no map
    handed them over, are read from the file records alone (a symbol's node asks which file
    it is in, which asks for these hashes: a RecursionError before)."""
    from kgtool.query.kg import load_map

    repo = make_repo({'a"b.py': "def f():\n    return 1\n", "c.py": "def g():\n    pass\n"})
    assert repo.kg("update").code == 0
    state = load_map(repo.root)
    graph = state.graph
    assert graph._slow
    graph._file_hashes, graph._nodes = None, {}
    assert sorted(graph.file_hashes()) == ['a"b.py', "c.py"]
    graph._file_hashes, graph._nodes = None, {}
    assert graph.node('a"b.py::f')["kind"] == "function"


def test_community_ids_sort_by_number_and_a_hand_written_one_last() -> None:
    # IDs of a hand-edited file may be anything; "c²" is digits to str.isdigit, not to int().
    from kgtool.query.kg import cid_order

    assert sorted(["c10", "c²", "x", "c2"], key=cid_order) == ["c2", "c10", "c²", "x"]


def labels_with_pages(root: Path, pages: dict[str, str], report: DriftReport) -> Labels:
    folder = root / ".kg" / PAGES_DIR
    folder.mkdir(parents=True)
    for cid, text in pages.items():
        (folder / f"{cid}.md").write_text(text)
    labels = Labels(MapState(root, load_config(root), Store(root)))
    labels._report = report  # the drift report, as computed once from the map
    return labels


def test_an_unlabelled_community_is_named_and_summed_up_from_its_page(tmp_path: Path) -> None:
    page = (
        "# c1 · Payments: cards\n"
        "\n"
        "Charges cards and\n"
        "refunds them.\n"
        "\n"
        "Unlabelled: kgtool made this name.\n"
        "\n"
        "Drifted: left from when a label had drifted.\n"
        "\n"
        "3 files · [back to the map](../MAP.md)\n"
        "\n"
        "Not the summary.\n"
    )
    pages = {"c1": page, "c2": "Summed up on its first line\n\n", "c3": "# c1 · Not c3's\n"}
    pages["c5"] = ""  # a page with nothing in it
    labels = labels_with_pages(tmp_path, pages, DriftReport({}, {}))
    c1 = labels.text("c1")
    assert (c1.name, c1.mark, c1.summary) == (
        "Payments: cards",
        UNLABELLED,
        "Charges cards and refunds them.",
    )
    assert c1.title == "c1 · Payments: cards (unlabelled)"
    # A page that does not open with its own heading names nothing: the ID stands alone.
    for cid in ("c2", "c3", "c4", "c5"):
        assert labels.text(cid).name == "" and labels.text(cid).title == cid


def test_a_long_page_cut_inside_a_character_still_names_its_community(tmp_path: Path) -> None:
    """Only a page's head is read; the cut may fall inside a character ("·" is two bytes in
    UTF-8), which is read as a replacement character, not an error."""
    from kgtool.query.labels import PAGE_HEAD_BYTES

    head = "# c4 · Long: page\n\nMany files.\n\n900 files · [back to the map](../MAP.md)\n\n"
    pad = "x" if (PAGE_HEAD_BYTES - len(head.encode())) % 2 == 0 else ""  # the cut splits a "·"
    page = head + pad + "·" * PAGE_HEAD_BYTES
    assert page.encode()[PAGE_HEAD_BYTES - 1 : PAGE_HEAD_BYTES] == b"\xc2"
    labels = labels_with_pages(tmp_path, {"c4": page}, DriftReport({}, {}))
    assert (labels.text("c4").name, labels.text("c4").summary) == ("Long: page", "Many files.")


def test_an_edge_phrase_is_marked_when_it_has_drifted(tmp_path: Path) -> None:
    """A current phrase is given as it is; one written for edges that have changed since
    comes with its mark, so that no reader shows it as fact."""
    phrases = {
        "c1->c2": EdgeState(
            "c1->c2", "c1", "c2", FRESH, EdgeLabel("c1", "c2", "stores in", line=7)
        ),
        "c2->c3": EdgeState(
            "c2->c3", "c2", "c3", DRIFTED, EdgeLabel("c2", "c3", "logs to", line=9)
        ),
    }
    labels = labels_with_pages(tmp_path, {}, DriftReport({}, phrases))
    assert labels.phrase("c1->c2") == ("stores in", "", 7)
    assert labels.phrase("c2->c3") == ("logs to", "drifted", 9)
    assert labels.phrase("c3->c1") == ("", "", 0)


def test_a_retired_label_names_nothing(tmp_path: Path) -> None:
    retired = CommunityState("c1", RETIRED, CommunityLabel("c1", "Old payments", "Gone."))
    labels = labels_with_pages(tmp_path, {}, DriftReport({"c1": retired}, {}))
    assert labels.mark("c1") == UNLABELLED
    assert labels.name("c1") == ""
    assert labels.text("c1") == CommunityText("c1", "", "", labels.text("c1").why, "")


def test_a_symbol_asked_for_under_another_path_is_guessed_by_its_name(repo: Repo) -> None:
    build_read_repo(repo)
    assert_one_line_error(
        repo.kg("explain", "somewhere/else/entirely/moved.py::Cache"),
        says="did you mean app/cache.py::Cache?",
    )


def test_explain_reads_the_map_through_the_store_it_is_given(repo: Repo, tmp_path: Path) -> None:
    """The store handed in (the server's, made once) is the one read through: what it
    decodes of layer 1 is kept in that store's cache folder, not in a store of its own."""
    build_read_repo(repo)
    cache = tmp_path / "given-cache"
    store = Store(repo.root, cache_dir=cache)
    output, stale = explain_answer(repo.root, load_config(repo.root), store, "c2")
    assert output == COMMUNITY_C2 and stale == ""
    assert (cache / READ_CACHE).is_file()


def test_a_file_in_json_says_how_it_was_parsed(repo: Repo) -> None:
    build_read_repo(repo)
    repo.write("app/broken.py", "def ok():\n    return 1\n\ndef bad(:\n")
    repo.git("add", "app/broken.py")
    assert repo.kg("update").code == 0
    clean = json.loads(repo.kg("explain", "app/store.py", "--format", "json").out)
    broken = json.loads(repo.kg("explain", "app/broken.py", "--format", "json").out)
    assert (clean["kind"], clean["parsed"]) == ("file", "ok")
    assert (broken["kind"], broken["parsed"]) == ("file", "partial")


def test_a_file_with_no_edge_across_says_it_touches_nothing(repo: Repo) -> None:
    build_read_repo(repo)
    out = repo.kg("explain", "app/disk.py").out
    assert (
        "what it touches (layer-1 edges to and from other files, by community):\n"
        "  nothing\n\nplaybooks pointing at it:\n  none\n"
    ) in out


def test_a_file_layer_2_does_not_place_is_in_no_community(repo: Repo) -> None:
    """A layer 2 that lost a file (edited by hand, or older than layer 1) places it nowhere:
    JSON says so with no ID rather than an empty one."""
    build_read_repo(repo)
    layer2 = repo.root / ".kg" / "communities.json"
    older = layer2.read_bytes()
    repo.write("app/extra.py", "def spare():\n    return 0\n")
    repo.git("add", "app/extra.py")
    assert repo.kg("update").code == 0
    layer2.write_bytes(older)  # layer 2 from before app/extra.py
    result = repo.kg("explain", "app/extra.py", "--format", "json")
    assert json.loads(result.out)["community"] == {"id": None, "title": "(no community)"}


def test_a_community_in_json_says_its_id_and_whether_it_is_labelled(repo: Repo) -> None:
    build_read_repo(repo)
    document = json.loads(repo.kg("explain", "c2", "--format", "json").out)
    assert (document["kind"], document["id"], document["mark"]) == (
        "community",
        "c2",
        "unlabelled",
    )
