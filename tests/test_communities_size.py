"""A size a reader can hold: in a large package no code community holds more than
``max_share`` of its code files (``max_share_above``); what Leiden forms larger is cut again,
along the graph where it separates, by folder and name where it does not."""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable

from communities_helpers import communities, members, update
from conftest import Repo
from test_communities_guards import ring_of_triangles, weighted_clique

from kgtool.communities.cluster import cluster, size_cap
from kgtool.communities.graph import FileGraph
from kgtool.config import DEFAULTS

SETTINGS = {**copy.deepcopy(DEFAULTS["communities"]), "boundaries": [], "versions": {}}
# Twenty-four files in eight triangles: at resolution 0.2 Leiden merges them into groups of
# 6, 9 and 9 (test_communities_guards); a cap of 7 (30% of 24) must cut the nines.
COARSE_AND_CAPPED = "communities:\n  resolution: 0.2\n  max_share: 0.3\n  max_share_above: 20\n"


def lib_chain(count: int) -> tuple[list[str], dict[tuple[str, str], float]]:
    """``count`` files each tied to the next: the bulk of a package, so that the files a
    test is about are a package over ``max_share_above``."""
    files = [f"lib/l{n:03}.py" for n in range(count)]
    return files, dict.fromkeys(itertools.pairwise(files), 1.0)


def code_groups(repo: Repo) -> list[list[str]]:
    return [[p for p in group if p.endswith(".py")] for group in members(repo).values()]


def triangles_whole(groups: list[list[str]]) -> bool:
    """Each triangle ``m<i>/`` lies in one group: the cut followed the graph."""
    home = {path.split("/")[0]: n for n, group in enumerate(groups) for path in group}
    return all(home[path.split("/")[0]] == n for n, group in enumerate(groups) for path in group)


def test_the_cap_is_a_share_of_a_large_package_only() -> None:
    assert size_cap(150, SETTINGS) == 0  # 150 code files is not over max_share_above
    assert size_cap(151, SETTINGS) == 22
    assert size_cap(1000, {**SETTINGS, "max_share": 0.1}) == 100


def test_a_community_over_the_share_is_cut_along_the_graph(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo({**ring_of_triangles(), ".kgtool.yaml": "communities:\n  resolution: 0.2\n"})
    update(repo)
    assert sorted(len(group) for group in code_groups(repo) if group) == [6, 9, 9]
    assert "parted" not in communities(repo)  # nothing was cut: updates move files as ever
    repo.write(".kgtool.yaml", COARSE_AND_CAPPED)
    repo.commit("hold communities to 30% of the package")
    update(repo)
    assert communities(repo)["parted"] == [""]  # the top-level package was cut
    groups = [group for group in code_groups(repo) if group]
    assert max(map(len, groups)) <= 7
    assert triangles_whole(groups)
    assert sum(map(len, groups)) == 24


def test_a_cut_package_keeps_its_ids_over_an_edit(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({**ring_of_triangles(), ".kgtool.yaml": COARSE_AND_CAPPED})
    update(repo)
    before = communities(repo)["files"]
    assert max(len(group) for group in code_groups(repo)) <= 7
    path = "m3/f2.py"
    repo.write(path, (repo.root / path).read_text() + "\ndef m3_more():\n    return m3_f0()\n")
    repo.commit("one more function in a triangle")
    update(repo)
    assert communities(repo)["files"] == before


def test_files_a_hub_alone_holds_together_are_packed_by_folder_and_name() -> None:
    """Spokes tied only to a hub (six hundred extractors importing one base class) cannot be
    cut along the graph: they come out in slices of their folder, not as singletons."""
    spokes = [f"app/plugins/p{n:02}.py" for n in range(40)]
    core = [f"app/core/c{n}.py" for n in range(4)]
    weights = weighted_clique(core, 2.0)
    weights |= {tuple(sorted((spoke, "app/core/c0.py"))): 1.0 for spoke in spokes}
    others = [f"lib/l{n:03}.py" for n in range(120)]
    for first, second in itertools.pairwise(others):
        weights[(first, second)] = 1.0
    graph = FileGraph(sorted([*spokes, *core, *others]), weights)
    groups = cluster(graph, {**SETTINGS, "max_share_above": 100, "max_share": 0.1})
    cap = size_cap(len(graph.files), {**SETTINGS, "max_share_above": 100, "max_share": 0.1})
    assert cap == 16
    assert max(map(len, groups)) <= cap
    assert min(map(len, groups)) >= 3
    plugin_groups = [g for g in groups if all(p.startswith("app/plugins/") for p in g)]
    assert len(plugin_groups) >= 2  # slices of the folder, beside what the hub holds
    assert cluster(graph, {**SETTINGS, "max_share_above": 100, "max_share": 0.1}) == groups


def clique_loose_and_chain(
    clique_size: int, loose_size: int, chain_size: int
) -> tuple[list[str], list[str], list[str], dict[tuple[str, str], float]]:
    """A clique of ``app/k/`` files, files with no edges beside it, and a package's bulk."""
    clique = [f"app/k/c{n:02}.py" for n in range(clique_size)]
    loose = [f"app/k/z{n:02}.py" for n in range(loose_size)]
    chain, chain_weights = lib_chain(chain_size)
    return clique, loose, chain, weighted_clique(clique) | chain_weights


def test_files_with_no_edges_join_a_community_only_while_it_has_room() -> None:
    clique, loose, chain, weights = clique_loose_and_chain(12, 10, 120)
    graph = FileGraph(sorted([*clique, *loose, *chain]), weights)
    settings = {**SETTINGS, "max_share_above": 100, "max_share": 0.12}
    cap = size_cap(len(graph.files), settings)
    groups = cluster(graph, settings)
    assert cap == 17
    assert max(map(len, groups)) <= cap
    assert sorted(path for group in groups for path in group) == graph.files


def test_an_older_map_is_cut_on_the_next_update_and_says_so(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo({**ring_of_triangles(), ".kgtool.yaml": "communities:\n  resolution: 0.2\n"})
    update(repo)
    # The map as a kgtool without the cap committed it.
    path = repo.root / ".kg" / "communities.json"
    old = json.loads(path.read_text())
    for key in ("max_share", "max_share_above"):
        del old["settings"][key]
    path.write_text(json.dumps(old, indent=2))
    repo.write(".kgtool.yaml", COARSE_AND_CAPPED)
    repo.commit("the older map, and a cap")
    out = update(repo)
    assert "communities: no community over 30% of a large package:" in out
    assert max(len(group) for group in code_groups(repo)) <= 7
    repo.write("m0/f0.py", (repo.root / "m0/f0.py").read_text() + "\n# a comment\n")
    repo.commit("a comment")
    assert "no community over" not in update(repo)


def test_a_file_sent_back_from_a_full_community_goes_to_its_old_one_not_a_fragment() -> None:
    from kgtool.communities.cluster import _hold

    files = ["a0", "a1", "b0", "b1", "b2", "x", "y"]
    # x moved into the full community of the b's, y split off alone: x goes back to the a's.
    held = _hold(files, [0, 0, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1, 2], {"x", "y"}, 3)
    assert held == [0, 0, 1, 1, 1, 0, 2]


def test_every_part_of_a_cut_is_traced_to_the_community_it_was_cut_from() -> None:
    """Parts are one unit to the areas; a loose file that sorts first (``a_loose.py``) and
    joins a part must not hide where the part came from."""
    files: list[str] = []
    weights: dict[tuple[str, str], float] = {}
    for k in range(4):
        members = [f"app/m{k}/f{n:02}.py" for n in range(15)]
        files += members
        weights |= weighted_clique(members)
    for k in range(3):
        weights[(f"app/m{k}/f00.py", f"app/m{k + 1}/f00.py")] = 3.0
    loose = [f"app/m{k}/a_loose.py" for k in range(4)]
    chain, chain_weights = lib_chain(120)
    weights |= chain_weights
    graph = FileGraph(sorted([*files, *loose, *chain]), weights)
    cuts: dict[str, str] = {}
    groups = cluster(graph, {**SETTINGS, "resolution": 0.05}, None, None, cuts)
    cut_groups = [group for group in groups if any(path in cuts for path in group)]
    assert len(cut_groups) > 2
    for group in cut_groups:
        assert len({cuts[path] for path in group if path in cuts}) == 1
        assert all(path in cuts for path in group if not path.endswith("a_loose.py"))


def test_files_with_no_edges_respect_the_cap_cold_and_on_an_update() -> None:
    clique, loose, chain, weights = clique_loose_and_chain(20, 30, 140)
    cap = size_cap(190, SETTINGS)
    assert cap == 28
    cold = cluster(FileGraph(sorted([*clique, *loose, *chain]), weights), SETTINGS)
    assert max(map(len, cold)) <= cap
    before = cluster(FileGraph(sorted([*clique, *chain]), weights), SETTINGS)
    previous = {path: f"c{n}" for n, group in enumerate(before) for path in group}
    graph = FileGraph(sorted([*clique, *loose, *chain]), weights)
    after = cluster(graph, SETTINGS, previous, set(loose))
    assert max(map(len, after)) <= cap


def test_what_every_part_of_a_cut_uses_is_a_part_of_its_own() -> None:
    """The URL, locale and common helpers every plugin imports are not folded into whichever
    part of the plugins calls them most."""
    plugins = [f"app/plugins/p{n:02}.py" for n in range(60)]
    helpers = ["app/common.py", "app/locale.py", "app/url.py"]
    weights: dict[tuple[str, str], float] = {}
    for start in range(0, 60, 10):
        weights |= weighted_clique(plugins[start : start + 10])
    for plugin in plugins:
        for helper in helpers:
            weights[(helper, plugin) if helper < plugin else (plugin, helper)] = 2.0
    chain, chain_weights = lib_chain(100)
    weights |= chain_weights
    graph = FileGraph(sorted([*plugins, *helpers, *chain]), weights)
    settings = {**SETTINGS, "resolution": 0.1}
    groups = cluster(graph, settings)
    assert max(map(len, groups)) <= size_cap(len(graph.files), settings)
    assert helpers in groups


def test_a_plugin_and_its_test_join_their_folder_in_a_large_package() -> None:
    """In a package held to a cap, a community of a plugin and its test among a folder of
    plugins held by larger communities joins one with room; the rest are packed together,
    each plugin with its test, not a community per plugin."""
    from kgtool.communities.cluster import _absorb_fragments

    slice_a = [f"app/plugins/a{n:02}.py" for n in range(8)]
    slice_b = [f"app/plugins/b{n:02}.py" for n in range(9)]
    pairs = [[f"app/plugins/p{n}.py", f"tests/test_p{n}.py"] for n in range(5)]
    alone = ["tests/test_solo.py", "tools/solo.py"]
    groups = _absorb_fragments([slice_a, slice_b, *pairs, alone], cap=10)
    assert max(map(len, groups)) <= 10
    assert alone in groups  # nothing of its folder elsewhere: it stays
    for plugin, test in pairs:
        (home,) = [group for group in groups if plugin in group]
        assert test in home
    assert len(groups) == 4  # two slices, the lone pair, and the other four pairs in one group


def test_a_large_package_of_plugins_is_not_a_community_per_plugin_and_its_test() -> None:
    plugins = [f"app/plugins/p{n:02}.py" for n in range(30)]
    tests = [f"tests/test_p{n:02}.py" for n in range(30)]
    weights: dict[tuple[str, str], float] = {}
    for plugin, test in zip(plugins, tests, strict=True):
        weights[(plugin, test)] = 5.0
        weights[("app/plugins/base.py", plugin)] = 1.0
    chain, chain_weights = lib_chain(130)
    weights |= chain_weights
    graph = FileGraph(sorted([*plugins, *tests, "app/plugins/base.py", *chain]), weights)
    groups = cluster(graph, SETTINGS)
    assert sum(len(group) <= 2 for group in groups) <= 1  # 27 such pairs before
    assert max(map(len, groups)) <= size_cap(len(graph.files), SETTINGS)
    for plugin, test in zip(plugins, tests, strict=True):
        assert any(plugin in group and test in group for group in groups)


def test_an_update_leaves_the_fragments_it_did_not_touch_where_they_are() -> None:
    from kgtool.communities.cluster import _absorb_fragments

    slice_a = [f"app/plugins/a{n:02}.py" for n in range(8)]
    pairs = [[f"app/plugins/p{n}.py", f"tests/test_p{n}.py"] for n in range(3)]
    groups = _absorb_fragments([slice_a, *pairs], cap=20, free={"app/plugins/p1.py"})
    assert pairs[0] in groups and pairs[2] in groups  # untouched: they stay
    assert [*slice_a, *pairs[1]] in groups  # the changed one joins its folder


def test_fragments_are_packed_whole_and_none_is_left_alone_at_the_end() -> None:
    from kgtool.communities.cluster import _absorb_fragments, _pack_whole

    pairs = [[f"app/p{n:02}.py", f"tests/test_p{n:02}.py"] for n in range(13)]
    packed = _pack_whole(pairs, 22)
    assert sorted(map(len, packed)) == [12, 14]  # not [12, 12, 2]
    assert _pack_whole([], 10) == []
    # A folder of nothing but fragments is packed too, each plugin with its test.
    only = _absorb_fragments([*pairs], cap=22)
    assert sorted(map(len, only)) == [12, 14]
    # One file of the folder in a larger community does not pull thirteen pairs after it.
    lib = ["app/base.py", *(f"lib/l{n}.py" for n in range(5))]
    mixed = _absorb_fragments([lib, *pairs], cap=22)
    assert lib in mixed


def test_a_dense_group_has_no_hub_to_set_apart_and_no_empty_part() -> None:
    from kgtool.communities.cluster import _cut

    clique = [f"app/k/c{n:02}.py" for n in range(30)]
    parts = _cut([clique], weighted_clique(clique), 10, 10, 1.0, 42)
    assert all(parts) and max(map(len, parts)) <= 10
    assert sorted(path for part in parts for path in part) == clique


def test_the_parts_of_a_cut_are_one_unit_to_the_areas(make_repo: Callable[..., Repo]) -> None:
    """Sixteen triangles Leiden joins in a few communities, cut back into triangles: the
    areas are formed over what was cut, a handful of units (one area), not over sixteen
    parts (which would be split into areas of their own)."""
    config = "communities:\n  resolution: 0.2\n  max_share: 0.1\n  max_share_above: 20\n"
    repo = make_repo({**ring_of_triangles(16), ".kgtool.yaml": config})
    update(repo)
    document = communities(repo)
    code = [c for c in document["communities"].values() if c["kind"] == "code"]
    assert len(code) > 12  # more parts than a package of one area may hold
    assert len(document["areas"]) == 1
