"""Where layer 2 puts files, called on ``cluster`` directly with real Leiden.

Loose files (no edges) placed beside their folder's code, or near their folder on an update;
``boundaries`` that name top-level folders; an update under ``boundaries`` placing every
package; and the neighbours of a file that moved following it. Each test names the change it
guards against where that is not obvious.
"""

from __future__ import annotations

import copy
import itertools

from kgtool.communities.cluster import cluster
from kgtool.communities.graph import FileGraph
from kgtool.config import DEFAULTS

SETTINGS = {**copy.deepcopy(DEFAULTS["communities"]), "boundaries": [], "versions": {}}


def weighted_clique(paths: list[str], weight: float = 1.0) -> dict[tuple[str, str], float]:
    return {pair: weight for pair in itertools.combinations(sorted(paths), 2)}


def group_of(groups: list[list[str]], path: str) -> list[str]:
    (found,) = [group for group in groups if path in group]
    return found


def assert_each_file_once(groups: list[list[str]], files: list[str]) -> None:
    placed = [path for group in groups for path in group]
    assert sorted(placed) == sorted(files)


def test_a_data_file_beside_code_stays_out_of_the_code_community() -> None:
    """Code first (docs/layer2-communities.md): a data file in a code folder is grouped with
    the data of its folder, never with the code beside it, and a folder of data alone is a
    group of its own. Guards the split of code from docs and data before clustering."""
    app = [f"app/{name}.py" for name in "abcd"]
    lib = [f"lib/{name}.py" for name in "wxyz"]
    files = sorted([*app, *lib, "app/schema.json", "notes/todo.md"])
    graph = FileGraph(files, weighted_clique(app) | weighted_clique(lib))
    groups = cluster(graph, SETTINGS)
    assert_each_file_once(groups, files)
    assert group_of(groups, "app/a.py") == app
    assert "app/schema.json" not in group_of(groups, "app/a.py")
    assert "notes/todo.md" not in group_of(groups, "app/a.py")


def _docs_and_code(new_files: list[str]) -> tuple[FileGraph, dict[str, str]]:
    """A clique under src/, a docs group of two loose files, and ``new_files`` (no edges)."""
    code = [f"src/{name}.py" for name in "abcd"]
    docs = ["docs/index.md", "docs/usage.md"]
    graph = FileGraph(sorted([*code, *docs, *new_files]), weighted_clique(code))
    previous = {path: "c1" for path in code} | {path: "c2" for path in docs}
    return graph, previous


def test_a_new_loose_file_in_a_new_subfolder_joins_the_group_of_its_nearest_placed_folder() -> None:
    """On an update, a new file with no edges in a folder where nothing is placed walks up to
    the nearest folder that holds a community: docs/howto/new.md joins the docs group rather
    than standing alone. Guards the walk up (``walk_up=True``) in ``_place_loose_locally``
    and the new file reaching it at all."""
    new = "docs/howto/new.md"
    graph, previous = _docs_and_code([new])
    groups = cluster(graph, SETTINGS, previous, {new})
    assert_each_file_once(groups, graph.files)
    assert group_of(groups, new) == ["docs/howto/new.md", "docs/index.md", "docs/usage.md"]
    # Nothing placed up its folder tree: a group of its own, the others untouched.
    graph, previous = _docs_and_code(["assets/logo.svg"])
    groups = cluster(graph, SETTINGS, previous, {"assets/logo.svg"})
    assert group_of(groups, "assets/logo.svg") == ["assets/logo.svg"]
    assert group_of(groups, "docs/index.md") == ["docs/index.md", "docs/usage.md"]


def _two_packages_tied_across() -> tuple[FileGraph, list[str], list[str]]:
    """api/ and web/, each a clique, tied to each other as strongly as inside themselves."""
    api = [f"api/{name}.py" for name in "abc"]
    web = [f"web/{name}.py" for name in "abc"]
    weights = weighted_clique([*api, *web])
    return FileGraph(sorted([*api, *web]), weights), api, web


def test_boundaries_naming_top_level_folders_split_what_leiden_would_join() -> None:
    """``boundaries: ["api", "web"]`` makes each top-level folder a package of its own.
    Guards ``package_of`` trying the first path component as a package root."""
    graph, api, web = _two_packages_tied_across()
    assert cluster(graph, SETTINGS) == [sorted([*api, *web])]
    settings = {**SETTINGS, "boundaries": ["api", "web"]}
    assert cluster(graph, settings) == [api, web]


def test_an_update_under_boundaries_places_the_files_of_every_package() -> None:
    """An update (``changed`` given) clusters each package in turn; guards the loop over
    packages going on after the first one (``continue``, not ``break``)."""
    graph, api, web = _two_packages_tied_across()
    graph = FileGraph(sorted([*graph.files, "web/readme.md"]), graph.weights)
    settings = {**SETTINGS, "boundaries": ["api", "web"]}
    previous = {path: "c1" for path in api} | {path: "c2" for path in web}
    previous["web/readme.md"] = "c2"
    groups = cluster(graph, settings, previous, {"web/readme.md"})
    # A package of a few files is one community, its readme with its code.
    assert groups == [api, sorted([*web, "web/readme.md"])]


def test_on_an_update_a_file_tied_to_one_that_moved_may_follow_it() -> None:
    """x.py gains strong ties to b/ and moves there; y.py, unchanged but tied to x.py more
    than to anything else, follows it in the same update (the free region grows one hop
    along actual moves). A heavy third clique keeps the gain of moving y.py below the
    catch-up guard, so only that growth can move it. Guards the neighbours of moved files
    being freed (``_optimise_locally``)."""
    a = [f"a/{i}.py" for i in range(6)]
    b = [f"b/{i}.py" for i in range(6)]
    heavy = [f"c/{i:02}.py" for i in range(10)]
    weights = weighted_clique(a) | weighted_clique(b) | weighted_clique(heavy, 100.0)
    weights |= {("a/x.py", "a/y.py"): 4.0, ("a/0.py", "a/y.py"): 0.5}
    weights |= {("a/x.py", path): 2.0 for path in b[:4]}
    graph = FileGraph(sorted([*a, *b, *heavy, "a/x.py", "a/y.py"]), weights)
    previous = {path: "c1" for path in [*a, "a/x.py", "a/y.py"]}
    previous |= {path: "c2" for path in b} | {path: "c3" for path in heavy}
    groups = cluster(graph, SETTINGS, previous, {"a/x.py", *b[:4]})
    assert groups == [a, sorted([*b, "a/x.py", "a/y.py"]), heavy]


def test_a_file_follows_a_neighbour_that_left_with_files_from_another_community() -> None:
    """Three changed files of b/ and one of a/ (u.py) become a module of their own. The new
    group continues the community most of its files came from (b's), so u.py is the one that
    moved, and v.py, unchanged and tied to u.py more than to a/, follows it. Guards how
    ``_moved`` picks a new group's origin: by most files, not by the lowest community number
    (which would take the b/ files as the movers and leave v.py behind)."""
    a = [f"a/{i}.py" for i in range(6)]
    b = [f"b/{i}.py" for i in range(6)]
    heavy = [f"c/{i:02}.py" for i in range(10)]
    split = ["b/t1.py", "b/t2.py", "b/t3.py"]
    weights = weighted_clique(a) | weighted_clique(b) | weighted_clique(heavy, 5.0)
    weights |= weighted_clique([*split, "a/u.py"], 3.0)
    weights |= {(path, "b/0.py"): 0.3 for path in split}
    weights |= {("a/0.py", "a/u.py"): 0.3, ("a/u.py", "a/v.py"): 1.2, ("a/0.py", "a/v.py"): 0.5}
    graph = FileGraph(sorted([*a, *b, *heavy, *split, "a/u.py", "a/v.py"]), weights)
    previous = {path: "c1" for path in [*a, "a/u.py", "a/v.py"]}
    previous |= {path: "c2" for path in [*b, *split]} | {path: "c3" for path in heavy}
    groups = cluster(graph, SETTINGS, previous, {*split, "a/u.py"})
    assert groups == [a, sorted(["a/u.py", "a/v.py", *split]), b, heavy]


def test_a_loose_code_file_joins_the_community_most_of_its_folder_is_in() -> None:
    """A code file with no edges joins the community that holds most of its folder's
    connected files, not the one that holds fewest. Guards the count in ``_group_loose``
    (``home[...] += 1`` turned into ``-= 1`` picks the minority)."""
    majority = [f"app/{name}.py" for name in "abc"]
    minority = ["app/d.py", "lib/w.py", "lib/x.py", "lib/y.py"]
    files = sorted([*majority, *minority, "app/loose.py"])
    graph = FileGraph(files, weighted_clique(majority) | weighted_clique(minority))
    groups = cluster(graph, SETTINGS)
    assert_each_file_once(groups, files)
    assert group_of(groups, "app/loose.py") == sorted([*majority, "app/loose.py"])


def test_a_new_file_starts_in_the_community_most_of_its_neighbours_are_in() -> None:
    """Warm start: a new file's first community is the one with the most weight among its
    neighbours, ties to the lower ID; never the ID that sorts first as text (c10 < c2).
    Guards the vote in ``initial_membership``."""
    from kgtool.communities.cluster import initial_membership

    files = ["a.py", "b.py", "c.py", "new.py"]
    previous = {"a.py": "c2", "b.py": "c2", "c.py": "c10"}
    neighbours = {"new.py": {"a.py": 1.0, "b.py": 1.0, "c.py": 1.0}}
    membership = initial_membership(files, previous, neighbours)
    assert membership is not None
    assert membership[files.index("new.py")] == membership[files.index("a.py")]
    assert membership[files.index("a.py")] != membership[files.index("c.py")]
