from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from communities_helpers import broken_links, clique, communities, community_of, members, update
from conftest import Repo

from kgtool.communities.build import clustering_settings, compute, with_packages
from kgtool.communities.cluster import LOCALITY_HOPS
from kgtool.communities.graph import FileGraph, build_file_graph, file_graph
from kgtool.config import load_config
from kgtool.raw.build import update_raw
from kgtool.raw.graph import read_raw
from kgtool.store import Store


def three_packages() -> dict:
    return {
        **clique("alpha", ["a0", "a1", "a2", "a3"], {"a0": ["beta.b0.beta_b0"]}),
        **clique("beta", ["b0", "b1", "b2", "b3"]),
        **clique("gamma", ["g0", "g1", "g2", "g3"], {"g1": ["beta.b2.beta_b2"]}),
        "docs/one.md": "# one\n",
        "docs/two.md": "# two\n",
    }


def test_clusters_packages_and_groups_loose_files_by_directory(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(three_packages())
    update(repo)
    groups = sorted(sorted(m) for m in members(repo).values())
    assert groups == [
        ["alpha/a0.py", "alpha/a1.py", "alpha/a2.py", "alpha/a3.py"],
        ["beta/b0.py", "beta/b1.py", "beta/b2.py", "beta/b3.py"],
        ["docs/one.md", "docs/two.md"],
        ["gamma/g0.py", "gamma/g1.py", "gamma/g2.py", "gamma/g3.py"],
    ]
    document = communities(repo)
    alpha, beta = community_of(repo, "alpha/a0.py"), community_of(repo, "beta/b0.py")
    edge = next(e for e in document["edges"] if e["src"] == alpha and e["dst"] == beta)
    assert edge["types"] == {"calls": {"EXTRACTED": 1}, "imports": {"EXTRACTED": 1}}
    assert not any(e["src"] == beta for e in document["edges"])  # nothing calls back
    assert document["next_id"] == 5
    assert set(document["settings"]["versions"]) == {"leidenalg", "igraph"}


def test_same_input_gives_byte_identical_output(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    update(repo)
    kg = repo.root / ".kg"
    first = {p.relative_to(kg): p.read_bytes() for p in kg.rglob("*.md")}
    first_json = (kg / "communities.json").read_bytes()
    shutil.rmtree(kg)
    update(repo)
    assert (kg / "communities.json").read_bytes() == first_json
    assert {p.relative_to(kg): p.read_bytes() for p in kg.rglob("*.md")} == first


def test_shuffled_raw_order_gives_the_same_document(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    update(repo)
    text = repo.layer1().decode()
    settings = clustering_settings(load_config(repo.root))
    settings = with_packages(settings, repo.root, read_raw(text).files)
    expected, _ = compute(build_file_graph(read_raw(text), settings), settings, {})
    # A file's records follow its node (its edges' sources are in it): shuffle the files and,
    # inside each, the edges.
    blocks: list[list[str]] = []
    for line in text.splitlines()[1:]:
        if '"kind":"file"' in line:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    for seed in range(3):
        rng = random.Random(seed)
        rng.shuffle(blocks)
        for block in blocks:
            rest = block[1:]
            rng.shuffle(rest)
            block[1:] = rest
        lines = [text.splitlines()[0], *(line for block in blocks for line in block)]
        shuffled, _ = compute(build_file_graph(read_raw("\n".join(lines)), settings), settings, {})
        assert json.dumps(shuffled, sort_keys=True) == json.dumps(expected, sort_keys=True)


def test_no_change_keeps_files_untouched_and_check_passes(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    update(repo)
    path = repo.root / ".kg" / "communities.json"
    before = path.stat().st_mtime_ns
    out = update(repo)
    assert "partition kept" in out
    assert path.stat().st_mtime_ns == before
    assert repo.kg("update", "--check").code == 0
    assert repo.kg("check").code == 0
    # A hand-edited document is stale: the check names it and update --check writes nothing.
    document = json.loads(path.read_text())
    document["next_id"] = 99
    path.write_text(json.dumps(document))
    stale = repo.kg("update", "--check")
    assert stale.code == 1 and ".kg/communities.json" in stale.out
    assert json.loads(path.read_text())["next_id"] == 99
    failed = repo.kg("check")
    assert failed.code == 1 and "FAILED: communities" in failed.out


def test_one_file_change_keeps_every_unrelated_id(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    update(repo)
    before = communities(repo)
    files = clique("gamma", ["g0", "g1", "g2", "g3"], {"g1": ["beta.b2.beta_b2"]})
    files["gamma/g3.py"] = files["gamma/g3.py"].replace(
        "    return 1", "    alpha_a1()\n    return 1"
    )
    files["gamma/g3.py"] = "from alpha.a1 import alpha_a1\n" + files["gamma/g3.py"]
    repo.write_files(files)
    repo.commit("gamma calls alpha")
    out = update(repo)
    after = communities(repo)
    assert "re-clustered" in out and after["graph_hash"] != before["graph_hash"]
    assert after["files"] == before["files"]
    assert after["communities"].keys() == before["communities"].keys()


def test_new_file_joins_its_neighbours(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    update(repo)
    before = communities(repo)
    repo.write_files(clique("beta", ["b0", "b1", "b2", "b3", "b4"]))
    repo.commit("beta grows")
    update(repo)
    after = communities(repo)
    assert after["files"]["beta/b4.py"] == before["files"]["beta/b0.py"]
    assert {p: c for p, c in after["files"].items() if p != "beta/b4.py"} == before["files"]


def test_split_records_lineage_and_keeps_the_id_on_the_largest_part(
    make_repo: Callable[..., Repo],
) -> None:
    names = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]
    repo = make_repo({**clique("big", names), **three_packages()})
    update(repo)
    old = community_of(repo, "big/s0.py")
    assert {community_of(repo, f"big/{n}.py") for n in names} == {old}
    # The package falls apart into two groups that no longer talk to each other.
    part = {**clique("big", names[:5]), **clique("big", names[5:])}
    repo.write_files(part)
    repo.commit("split big")
    update(repo)
    document = communities(repo)
    assert {community_of(repo, f"big/{n}.py") for n in names[:5]} == {old}
    new = community_of(repo, "big/s5.py")
    assert new != old and {community_of(repo, f"big/{n}.py") for n in names[5:]} == {new}
    assert document["communities"][new]["split_from"] == old
    assert document["next_id"] == int(new[1:]) + 1


def test_merge_retires_an_id_that_is_never_reissued(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(
        {
            **clique("left", ["l0", "l1", "l2", "l3", "l4"]),
            **clique("right", ["r0", "r1", "r2"], {"r0": ["left.l0.left_l0"]}),
            **clique("other", ["o0", "o1", "o2", "o3"]),
        }
    )
    update(repo)
    left, right = community_of(repo, "left/l0.py"), community_of(repo, "right/r0.py")
    assert left != right
    # Every right file now calls every left function: one community.
    calls = {f"r{i}": [f"left.l{j}.left_l{j}" for j in range(5)] for i in range(3)}
    repo.write_files(clique("right", ["r0", "r1", "r2"], calls))
    repo.commit("merge right into left")
    update(repo)
    document = communities(repo)
    assert right not in document["communities"]
    assert {community_of(repo, f"right/r{i}.py") for i in range(3)} == {left}
    assert document["retired"][right] == {"merged_into": left}
    assert (
        "Absorbed retired communities: " + right
        in (repo.root / ".kg" / "communities" / f"{left}.md").read_text()
    )
    # A brand-new package must get a fresh ID, never the retired one.
    repo.write_files(clique("fresh", ["f0", "f1", "f2"]))
    repo.commit("fresh package")
    update(repo)
    after = communities(repo)
    fresh = community_of(repo, "fresh/f0.py")
    assert fresh != right and int(fresh[1:]) >= document["next_id"]
    assert right not in after["communities"]


def test_rebaseline_reclusters_cold_but_maps_ids(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    update(repo)
    before = communities(repo)
    out = update(repo, "--rebaseline")
    assert "re-clustered" in out
    assert communities(repo)["files"] == before["files"]


def test_boundaries_are_never_crossed(make_repo: Callable[..., Repo]) -> None:
    # x/ and y/ are one tight clique by their code, but they live in two packages.
    names = [f"x{i}" for i in range(3)]
    files = {}
    for i, name in enumerate(names):
        calls = [f"pkg.y{j}.pkg_y{j}" for j in range(3)]
        files.update(
            {
                f"packages/x/{k}": v
                for k, v in _in_folder(clique("pkg", [name], {name: calls}), "pkg").items()
            }
        )
        files.update(
            {f"packages/y/{k}": v for k, v in _in_folder(clique("pkg", [f"y{i}"]), "pkg").items()}
        )
    repo = make_repo(files)
    update(repo)
    assert len(members(repo)) == 1  # without boundaries: one community
    repo.write(".kgtool.yaml", "communities:\n  boundaries: ['packages/*']\n")
    repo.commit("declare packages")
    update(repo)
    for group in members(repo).values():
        roots = {"/".join(path.split("/")[:2]) for path in group if path.startswith("packages/")}
        assert len(roots) <= 1, group
    assert len(members(repo)) >= 2


def _in_folder(files: dict, package: str) -> dict:
    return {key.removeprefix(f"{package}/"): value for key, value in files.items()}


def test_map_links_resolve_and_name_communities(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(three_packages())
    beta = None
    update(repo)
    beta = community_of(repo, "beta/b0.py")
    repo.write(".kg/ontology.yaml", f"communities:\n  {beta}:\n    name: Beta core\n")
    update(repo)
    kg = repo.root / ".kg"
    assert broken_links(kg) == []
    text = (kg / "MAP.md").read_text()
    assert f"[{beta} · Beta core](communities/{beta}.md)" in text
    page = (kg / "communities" / f"{beta}.md").read_text()
    assert "## Used by" in page and "calls×1 / imports×1 (EXTRACTED 2)" in page
    assert "`beta/b0.py::beta_b0`" in page


def ring_of_cliques(count: int, size: int) -> FileGraph:
    """``count`` cliques of ``size`` files, each joined to the next by one light edge."""
    files = [f"m{c:02d}/f{i}.py" for c in range(count) for i in range(size)]
    weights: dict[tuple[str, str], float] = {}
    for c in range(count):
        group = [f"m{c:02d}/f{i}.py" for i in range(size)]
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                weights[(a, b)] = 1.0
        a, b = sorted((group[0], f"m{(c + 1) % count:02d}/f1.py"))
        weights[(a, b)] = 0.5
    return FileGraph(sorted(files), dict(sorted(weights.items())))


def hops_from(graph: FileGraph, sources: set[str]) -> dict[str, int]:
    neighbours = graph.neighbours()
    distance = dict.fromkeys(sources, 0)
    frontier = sorted(sources)
    while frontier:
        nxt = []
        for path in frontier:
            for other in neighbours.get(path, {}):
                if other not in distance:
                    distance[other] = distance[path] + 1
                    nxt.append(other)
        frontier = nxt
    return distance


def test_a_change_in_one_corner_never_moves_a_file_far_from_it(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo({"a.txt": "a\n"})
    before = ring_of_cliques(12, 6)
    settings = with_packages(clustering_settings(load_config(repo.root)), repo.root, before.files)
    first, _ = compute(before, settings, {})
    # A new file pulls hard on two files of one clique, and that clique gains an inner edge.
    weights = dict(before.weights)
    for target in ("m03/f2.py", "m03/f3.py", "m04/f2.py"):
        weights[tuple(sorted(("m03/new.py", target)))] = 3.0
    after = FileGraph(sorted([*before.files, "m03/new.py"]), dict(sorted(weights.items())))
    second, reclustered = compute(after, settings, first)
    assert reclustered
    changed = {p for p in after.files if second["adjacency"].get(p) != first["adjacency"].get(p)}
    assert changed == {"m03/new.py", "m03/f2.py", "m03/f3.py", "m04/f2.py"}
    distance = hops_from(after, changed)
    far = [p for p in before.files if distance.get(p, 99) > LOCALITY_HOPS + 1]
    assert len(far) > len(before.files) / 2
    assert all(second["files"][p] == first["files"][p] for p in far)
    assert set(first["communities"]) <= set(second["communities"])


def test_locality_is_read_from_the_committed_document_not_the_local_cache(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(three_packages())
    update(repo)
    kg = repo.root / ".kg"
    previous = (kg / "communities.json").read_bytes()
    files = clique("gamma", ["g0", "g1", "g2", "g3", "g4"], {"g1": ["beta.b2.beta_b2"]})
    repo.write_files(files)
    repo.commit("gamma grows")
    update(repo)
    with_cache = {
        p.relative_to(kg): p.read_bytes()
        for p in kg.rglob("*")
        if "cache" not in p.parts and p.is_file()
    }
    # A fresh clone: the same previous document, no local cache at all.
    shutil.rmtree(repo.cache_dir)
    (kg / "communities.json").write_bytes(previous)
    update(repo)
    without = {
        p.relative_to(kg): p.read_bytes()
        for p in kg.rglob("*")
        if "cache" not in p.parts and p.is_file()
    }
    assert without == with_cache
    shutil.rmtree(repo.cache_dir)
    assert repo.kg("update", "--check").code == 0


def test_layer_one_folded_edges_make_the_graph_its_shards_make(
    make_repo: Callable[..., Repo],
) -> None:
    files = three_packages()
    files["gamma/g4.py"] = "from beta.b1 import beta_b1\nclass G(beta_b1):\n    pass\n"
    repo = make_repo(files)
    config = load_config(repo.root)
    store = Store(repo.root)
    result = update_raw(repo.root, config, store)
    settings = clustering_settings(config)
    folded = result.file_edges()
    assert folded is not None
    from_cache = file_graph(list(folded), folded, settings)
    parsed = build_file_graph(read_raw(result.content.decode()), settings)
    assert from_cache == parsed
    # After the no-change path the edges come back from the cache, and still agree.
    again = update_raw(repo.root, config, store)
    assert not again.parsed and again.file_edges() == folded


def test_a_merge_conflict_in_kg_is_resolved_by_update(make_repo) -> None:
    """Two branches both refreshed .kg/: git leaves conflict markers, kgtool update mends them."""
    repo = make_repo(
        {
            "core/a.py": "def a():\n    pass\n",
            "core/b.py": "from core.a import a\n\ndef b():\n    a()\n",
            "web/v.py": "def v():\n    pass\n",
            "web/w.py": "from web.v import v\n\ndef w():\n    v()\n",
        }
    )
    assert repo.kg("update").code == 0
    repo.commit("map")
    before = json.loads((repo.root / ".kg" / "communities.json").read_text())
    repo.git("checkout", "-q", "-b", "side")
    repo.write("core/c.py", "from core.b import b\n\ndef c():\n    b()\n")
    repo.git("add", "-A")  # kgtool maps tracked files
    repo.kg("update")
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("core/d.py", "from core.b import b\n\ndef d():\n    b()\n")
    repo.git("add", "-A")
    repo.kg("update")
    repo.commit("main")
    merge = repo.merge("side")
    assert merge.returncode != 0  # .kg/ conflicts, the code does not
    assert "<<<<<<<" in (repo.root / ".kg" / "communities.json").read_text()
    result = repo.kg("update")
    assert result.code == 0, result.err
    after = json.loads((repo.root / ".kg" / "communities.json").read_text())
    assert set(after["files"]) == set(before["files"]) | {"core/c.py", "core/d.py"}
    for path, community in before["files"].items():
        assert after["files"][path] == community  # IDs kept from our side
    repo.git("add", "-A")
    assert repo.kg("update", "--check").code == 0


def test_check_judges_communities_as_the_next_update_would_write_them(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(three_packages())
    update(repo)
    repo.write("gamma/g4.py", "from beta.b1 import beta_b1\n\ndef gamma_g4():\n    beta_b1()\n")
    repo.git("add", "-A")  # the raw graph on disk is stale now, and so is layer 2
    stale = repo.kg("update", "--check")
    assert stale.code == 1 and ".kg/communities.json" in stale.out
    check = repo.kg("check")
    assert check.code == 1
    assert "FAILED: raw graph" in check.out and "FAILED: communities" in check.out
    update(repo)
    assert repo.kg("check").code == 0


def test_an_edit_that_leaves_the_file_graph_keeps_the_document_and_redraws_what_it_reads(
    make_repo: Callable[..., Repo],
) -> None:
    """Layer 2 and the map remember what they were made from: an edit that changes
    neither the files' edges nor a doc line the map shows writes nothing; one that changes
    a main file's doc line redraws its page; both leave what a clean build writes."""
    repo = make_repo(
        {
            "pay/jobs.py": '"""Runs the payroll jobs every night."""\n\n'
            "def run():\n    helper()\n\ndef helper():\n    pass\n",
            "pay/main.py": "from pay.jobs import run\n\ndef main():\n    run()\n",
        }
    )
    assert repo.kg("update").code == 0
    before = repo.kg_bytes()
    repo.write("pay/main.py", "from pay.jobs import run\n\ndef main():\n    run()  # now\n")
    result = repo.kg("update")
    assert result.code == 0 and "unchanged .kg/communities.json" in result.out
    after = repo.kg_bytes()
    assert {n for n in after if after[n] != before[n]} == {n for n in after if n.startswith("raw/")}
    assert after == repo.clean_build()
    repo.write(
        "pay/jobs.py",
        '"""Pays the staff on the last day."""\n\ndef run():\n    helper()\n\n'
        "def helper():\n    pass\n",
    )
    assert repo.kg("update").code == 0
    redrawn = repo.kg_bytes()
    page = next(n for n in redrawn if n.startswith("communities/c"))
    assert b"Pays the staff" in redrawn[page] and b"payroll" not in redrawn[page]
    assert redrawn["communities.json"] == after["communities.json"]
    assert redrawn == repo.clean_build()


def test_an_edit_of_no_file_the_map_reads_keeps_it_without_reading_or_remembering(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files whose doc lines the map reads, named by their blob ids, are what it was
    last drawn from: an edit of another file (most edits) keeps the map without a doc line
    looked up or its record written again. An edit of a file it reads still redraws."""
    from kgtool.ontology.map import LabelledMap

    repo = make_repo(PAYROLL_AND_WEB)
    assert repo.kg("update").code == 0
    calls: list[str] = []
    for name in ("_doc_lines", "_remember"):
        original = getattr(LabelledMap, name)

        def counting(self: LabelledMap, *args: Any, _name: str = name, _f: Any = original) -> Any:
            calls.append(_name)
            return _f(self, *args)

        monkeypatch.setattr(LabelledMap, name, counting)
    repo.write("web/views.py", "def index():\n    return 3\n")
    assert repo.kg("update", "-q").code == 0
    assert calls == []
    repo.write("pay/jobs.py", '"""Pays the staff."""\n\ndef run():\n    return 1\n')
    assert repo.kg("update", "-q").code == 0
    assert "_doc_lines" in calls
    assert repo.kg_bytes() == repo.clean_build()


def test_an_edit_below_a_main_files_doc_line_keeps_the_map(
    make_repo: Callable[..., Repo],
) -> None:
    """The map reads of a file's content only its doc line: a main file edited below it, its
    edges the same, is neither read for labels nor drawn again, with or without the map's
    cache of doc lines; an edit of the doc line is."""
    from kgtool.ontology.map import DOC_LINES_FILE
    from kgtool.pipeline.context import Context
    from kgtool.pipeline.refresh import refresh

    def jobs(doc: str, body: str) -> str:
        return f'"""{doc}"""\n\ndef run():\n    helper()\n\ndef helper():\n    {body}\n'

    repo = make_repo(
        {
            "pay/jobs.py": jobs("Runs the payroll jobs every night.", "pass"),
            "pay/main.py": "from pay.jobs import run\n\ndef main():\n    run()\n",
        }
    )
    assert repo.kg("update").code == 0
    ctx = Context(repo.root, load_config(repo.root), Store(repo.root))
    assert (ctx.store.cache_dir / DOC_LINES_FILE).is_file()

    def layer2_after(doc: str, body: str) -> bool:
        repo.write("pay/jobs.py", jobs(doc, body))
        return refresh(ctx, write=True, rebaseline=False)[1].drawn.redrawn

    assert not layer2_after("Runs the payroll jobs every night.", "return 1")
    (ctx.store.cache_dir / DOC_LINES_FILE).unlink()
    assert not layer2_after("Runs the payroll jobs every night.", "return 2")
    assert repo.kg_bytes() == repo.clean_build()
    assert layer2_after("Pays the staff on the last day.", "return 2")
    page = next(n for n, data in repo.kg_bytes().items() if n.startswith("communities/c"))
    assert b"Pays the staff" in repo.kg_bytes()[page]
    assert repo.kg_bytes() == repo.clean_build()


def test_the_clustering_libraries_versions_are_those_importlib_metadata_reads() -> None:
    from importlib.metadata import version

    from kgtool.communities.build import library_versions

    assert library_versions() == {"leidenalg": version("leidenalg"), "igraph": version("igraph")}


def test_the_map_is_drawn_again_when_only_the_document_or_a_setting_changed(
    make_repo: Callable[..., Repo],
) -> None:
    """The map's quick key names layer 1, the document, the labels and the settings: a
    document rewritten over the same layer 1 (as --rebaseline may) or a setting changed
    alone (layer 2's weights, which drift reads for the map's flags) must each draw it
    again, not keep the pages on disk."""
    from kgtool.ontology.map import LabelledMap

    repo = make_repo(
        {
            "pay/jobs.py": '"""Runs the payroll jobs."""\n\ndef run():\n    return 1\n',
            "pay/main.py": "from pay.jobs import run\n\ndef main():\n    run()\n",
        }
    )
    assert repo.kg("update").code == 0
    store = Store(repo.root)
    drawn = LabelledMap(repo.root, load_config(repo.root), store)
    data = store.read_bytes("communities.json")
    assert data is not None
    document = json.loads(data)
    digest = "layer 1 as it is"
    named = hashlib.sha256(data).digest()
    drawn.update(lambda: document, named, digest, None, write=True)
    assert not drawn.update(lambda: document, named, digest, None, write=True).redrawn  # kept
    moved = json.loads(data)
    for community in moved["communities"].values():
        community["members"] = sorted(community["members"], reverse=True)
    other = json.dumps(moved).encode()
    other_named = hashlib.sha256(other).digest()
    assert drawn.update(lambda: moved, other_named, digest, None, write=False).redrawn
    repo.write(".kgtool.yaml", "communities:\n  default_weight: 0.75\n")  # read by drift
    reconfigured = LabelledMap(repo.root, load_config(repo.root), store)
    assert reconfigured.update(lambda: document, named, digest, None, write=False).redrawn


# A package with a main file and its caller, and a file apart: an edit of the last changes
# layer 1 and nothing the map reads.
PAYROLL_AND_WEB = {
    "pay/jobs.py": '"""Runs the payroll jobs."""\n\ndef run():\n    return 1\n',
    "pay/main.py": "from pay.jobs import run\n\ndef main():\n    run()\n",
    "web/views.py": "def index():\n    return 2\n",
}


def names_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The .kg/ names read through the store from now on, in order."""
    read: list[str] = []
    original = Store.read_bytes

    def reading(self: Store, name: str) -> bytes | None:
        read.append(name)
        return original(self, name)

    monkeypatch.setattr(Store, "read_bytes", reading)
    return read


def test_an_edit_reads_no_map_page_whose_stat_is_as_the_map_left_it(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update trusts a page whose (size, mtime, inode, ctime) is what the map took when
    it drew it, and reads it otherwise: a hand edit of a page, even one of the same size
    whose mtime was set back, is drawn over; a check (``--check``) reads every page."""
    repo = make_repo(PAYROLL_AND_WEB)
    assert repo.kg("update").code == 0
    read = names_read(monkeypatch)
    repo.write("web/views.py", "def index():\n    return 3\n")  # another layer 1, same map
    assert repo.kg("update").code == 0
    pages = [name for name in repo.kg_bytes() if name.startswith("communities/c")]
    assert pages and not [name for name in read if name.startswith("communities/c")]
    page = repo.root / ".kg" / pages[0]
    drawn, info = page.read_bytes(), page.stat()
    page.write_bytes(drawn.replace(b"#", b"!", 1))  # same size, mtime set back
    os.utime(page, ns=(info.st_atime_ns, info.st_mtime_ns))
    repo.write("web/views.py", "def index():\n    return 4\n")
    assert repo.kg("update").code == 0
    assert page.read_bytes() == drawn
    read.clear()
    assert repo.kg("update", "--check").code == 0
    assert pages[0] in read


def test_an_edit_reads_no_communities_json_whose_stamp_is_as_layer_2_left_it(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """communities.json (30 MB at 100k files) is read and hashed only when its (size, mtime,
    inode, ctime) is not what the last run took: an edit elsewhere reads none of it; a hand
    edit of the same size whose mtime was set back is read, and written over; a check reads
    it, as its verdict rests on bytes."""
    from kgtool.communities import build

    repo = make_repo(PAYROLL_AND_WEB)
    assert repo.kg("update").code == 0
    read = names_read(monkeypatch)
    on_disk = build.read_document_bytes

    def reading(store: Store) -> bytes | None:  # layer 2 reads it within its bound
        read.append("communities.json")
        return on_disk(store)

    monkeypatch.setattr(build, "read_document_bytes", reading)
    repo.write("web/views.py", "def index():\n    return 3\n")
    assert repo.kg("update", "-q").code == 0
    assert "communities.json" not in read
    document = repo.root / ".kg" / "communities.json"
    written, info = document.read_bytes(), document.stat()
    document.write_bytes(written.replace(b"jobs.py", b"jobz.py", 1))  # same size
    os.utime(document, ns=(info.st_atime_ns, info.st_mtime_ns))
    repo.write("web/views.py", "def index():\n    return 4\n")
    assert repo.kg("update", "-q").code == 0
    assert "communities.json" in read and document.read_bytes() == written
    read.clear()
    assert repo.kg("update", "--check").code == 0
    assert "communities.json" in read
    assert repo.kg_bytes() == repo.clean_build()


def test_an_edit_that_keeps_the_document_never_parses_it(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """communities.json is read back only to be changed, labelled, drawn or counted: an
    edit that leaves the file graph as it was, and a run with no change, parse none of it in
    a quiet update (at 100k files it is tens of megabytes); labels are checked for drift
    against it."""
    from kgtool.communities import build

    repo = make_repo(
        {
            "pay/jobs.py": '"""Runs the payroll jobs."""\n\ndef run():\n    return 1\n',
            "pay/main.py": "from pay.jobs import run\n\ndef main():\n    run()\n",
        }
    )
    assert repo.kg("update").code == 0
    parsed: list[int] = []
    parse = build.parse_document

    def counting(data: bytes | None, *args: object, **kwargs: bool) -> dict:
        parsed.append(len(data or b""))
        return parse(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "parse_document", counting)
    repo.write("pay/jobs.py", '"""Runs the payroll jobs."""\n\ndef run():\n    return 2\n')
    assert repo.kg("update", "-q").code == 0  # as the hooks run it: it prints no counts
    assert repo.kg("update", "-q").code == 0
    assert parsed == []
    assert repo.kg_bytes() == repo.clean_build()
    repo.write("pay/jobs.py", '"""Runs the payroll jobs."""\n\ndef run():\n    return 3\n')
    assert repo.kg("label", "--offline").code == 0  # labels now: drift reads the document
    parsed.clear()
    repo.write("pay/jobs.py", '"""Runs the payroll jobs."""\n\ndef run():\n    return 4\n')
    assert repo.kg("update", "-q").code == 0
    assert parsed


def test_the_maps_list_of_described_files_of_another_kgtool_is_not_used(
    make_repo: Callable[..., Repo],
) -> None:
    """The files whose doc lines the map reads are kept by the document's digest and
    kgtool's version: a list another release kept (which may choose other files) is made
    again, so a changed doc line still redraws its page."""
    from kgtool.ontology.map import DESCRIBED_FILE

    repo = make_repo(
        {
            "pay/jobs.py": '"""Runs the payroll jobs."""\n\ndef run():\n    return 1\n',
            "pay/main.py": "from pay.jobs import run\n\ndef main():\n    run()\n",
        }
    )
    assert repo.kg("update", "-q").code == 0
    store = Store(repo.root)
    record = store.cached_record(DESCRIBED_FILE)
    assert "pay/jobs.py" in record["paths"]
    digest = record["document"].rpartition(" ")[2]
    # As a kgtool that keyed the list by the document alone kept it, choosing no file.
    store.keep_record(DESCRIBED_FILE, {"document": digest, "paths": []})
    repo.write("pay/jobs.py", '"""Runs the payroll jobs."""\n\ndef run():\n    return 2\n')
    assert repo.kg("update", "-q").code == 0  # the map's key now made of the kept list
    repo.write("pay/jobs.py", '"""Pays the staff on the last day."""\n\ndef run():\n    return 2\n')
    assert repo.kg("update", "-q").code == 0
    assert repo.kg_bytes() == repo.clean_build()


def test_an_edit_that_adds_or_removes_no_file_never_lists_them_all(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Layer 2 knows the list of files by layer 1's digest of it, which an update makes again
    only when it adds or removes a file: an edit neither copies, sorts nor hashes every path
    (tens of milliseconds at 100k files) to learn the packages are as they were. A file
    added still moves them."""
    from kgtool.communities import build

    repo = make_repo(
        {
            "package.json": '{"name": "root", "workspaces": ["packages/*"]}\n',
            "packages/a/package.json": '{"name": "a"}\n',
            "packages/a/index.js": "export function run() { return 1 }\n",
        }
    )
    assert repo.kg("update").code == 0
    copied: list[int] = []
    detect = build.with_packages

    class Listed(Mapping[str, str]):
        """Layer 1's blob ids, telling when they are gone through one by one."""

        def __init__(self, blobs: Mapping[str, str]) -> None:
            self.blobs = blobs

        def __getitem__(self, path: str) -> str:
            return self.blobs[path]

        def __contains__(self, path: object) -> bool:
            return path in self.blobs

        def __iter__(self) -> Iterator[str]:
            copied.append(1)
            return iter(self.blobs)

        def __len__(self) -> int:
            return len(self.blobs)

    def listing_files(settings: Any, root: Any, files: Any, *args: Any) -> Any:
        return detect(settings, root, Listed(files), *args)

    monkeypatch.setattr(build, "with_packages", listing_files)
    repo.write("packages/a/index.js", "export function run() { return 2 }\n")
    assert repo.kg("update", "-q").code == 0
    assert copied == []
    repo.write("packages/b/package.json", '{"name": "b"}\n')
    repo.write("packages/b/index.js", "export function go() { return 3 }\n")
    repo.git("add", "packages/b")
    assert repo.kg("update", "-q").code == 0
    assert copied
    assert repo.kg_bytes() == repo.clean_build()
    assert "packages/b" in json.loads(repo.kg_bytes()["communities.json"])["settings"]["boundaries"]


def test_communities_json_replaced_while_layer_2_computes_is_mended_by_the_next_update(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stamp kept with the document's digest is the one taken when those bytes were read
    or written, never one taken later: a file a checkout put there mid-run is read next
    time, and written over."""
    from kgtool.communities import build

    repo = make_repo(PAYROLL_AND_WEB)
    assert repo.kg("update").code == 0
    document = repo.root / ".kg" / "communities.json"
    compute = build.compute

    def replacing(*args: Any, **kwargs: Any) -> Any:
        other = document.with_name("other.json")
        other.write_bytes(document.read_bytes().replace(b"jobs.py", b"jobz.py", 1))
        os.replace(other, document)  # as a checkout writes it: a new file
        return compute(*args, **kwargs)

    monkeypatch.setattr(build, "compute", replacing)
    repo.write("pay/main.py", "from pay.jobs import run\n\ndef main():\n    return run()\n")
    assert repo.kg("update", "--rebaseline").code == 0
    monkeypatch.setattr(build, "compute", compute)
    assert repo.kg("update").code == 0
    assert repo.kg_bytes() == repo.clean_build()


def test_a_communities_json_past_the_document_bound_is_refused_unread(
    make_repo: Callable[..., Repo],
) -> None:
    """A checkout can hold a communities.json of any size: it is read only to just past the
    bound a document may have (64 MB), and refused in one line that names it; nothing of
    .kg/ is lost."""
    repo = make_repo(PAYROLL_AND_WEB)
    assert repo.kg("update").code == 0
    document = repo.root / ".kg" / "communities.json"
    with open(document, "r+b") as handle:
        handle.truncate(1 << 40)  # a terabyte, sparse: read whole, no machine holds it
    result = repo.kg("update")
    assert result.code != 0
    assert ".kg/communities.json" in result.err and "over the limit" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert document.stat().st_size == 1 << 40


@pytest.mark.parametrize(
    "command", [["check"], ["impact", "pay/jobs.py"], ["explain", "pay/jobs.py"]]
)
def test_every_reader_of_communities_json_reads_it_bounded(
    make_repo: Callable[..., Repo], command: list[str]
) -> None:
    """Not layer 2 alone: the check, the queries (impact, explain, context, the MCP server),
    the playbooks' concepts, the labels and the pull request's check read communities.json
    up to its bound too. A terabyte there (sparse) is a line that names it, not a
    MemoryError."""
    repo = make_repo(PAYROLL_AND_WEB)
    assert repo.kg("update").code == 0
    with open(repo.root / ".kg" / "communities.json", "r+b") as handle:
        handle.truncate(1 << 40)
    result = repo.kg(*command)
    assert result.code != 0
    assert ".kg/communities.json" in result.out + result.err
