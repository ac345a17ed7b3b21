"""Leiden over the file graph: deterministic, warm-started, iterated to a fixpoint.

Determinism needs three things: the same vertex order (files sorted), the same edge order
(pairs sorted), and a fixed seed. Stability needs one more: the committed partition as the
starting point, so Leiden only moves what the change gave it a reason to move. leidenalg's
``find_partition`` always starts from singletons, so the ``Optimiser`` is driven directly.

When the previous document records which files' edges changed (``changed_files``), only
files near the change may move: Leiden runs with every other file's membership fixed, the
free region growing from the changed files along actual moves (``_optimise_locally``). The
result depends on the previous document and the graph alone, never on a local cache.

Each package (see ``package_of``) is clustered on its own, with the edges that cross
packages removed, so no community can span two; its resolution is scaled by its share of the
repository's edge weight, so that a package is cut at the same scale as the whole repository.
Docs and data (not ``is_code``) are not clustered: they are grouped apart from code, one group
per package and kind (``data_kind``: its test data, each docs root, its setup files, other
pages, the rest), or by folder within their package (``data_groups: folder``). Files with no
edges at all are not clustered: a file joins the community most of its connected directory
siblings are in, or else a group of files along its directory tree (see ``_group_loose``),
instead of becoming hundreds of singletons.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from kgtool.communities.graph import FileGraph
from kgtool.communities.packages import is_code
from kgtool.file_kinds import DOC_FOLDERS, in_data_folder, is_test, is_tool_config
from kgtool.globs import exclusion

GLOB_CHARS = re.compile(r"[*?\[]")
MIN_LOOSE_GROUP = 10
MIN_COMPONENT = 3  # smaller connected components are grouped by directory, not clustered
MAX_ROUNDS = 50  # a fixpoint comes in a handful; this only bounds a pathological oscillation
# How far from a changed file Leiden may move files; everything farther keeps its community.
LOCALITY_HOPS = 1
# Fixing most files can leave the partition behind what Leiden would find: when letting every
# file move would gain more than this much modularity, the best of those moves are taken, up
# to RELAX_SHARE of the files per update, so quality is recovered a few files at a time.
DRIFT = 0.005
RELAX_SHARE = 0.03
# A community over its package's cap is cut by Leiden at up to 2**MAX_CUT_DOUBLINGS times
# the resolution; what is still too large after that is placed like a cut's leftovers
# (``_attach``).
MAX_CUT_DOUBLINGS = 4
# In a package held to a cap, a community this small joins its folder (``_absorb_fragments``).
FRAGMENT = 2
# Shared files (``_shared``) are a part of their own when there are at least this many: a
# part of two would be a fragment, folded back into its folder.
MIN_SHARED = FRAGMENT + 1
# A package of at most this many files is one community, code and setup together: an
# example's index.ts, package.json and .gitignore are one thing to a reader, not three
# communities of one or two files (see ``_whole_package``).
SMALL_PACKAGE = 10

Groups = list[list[str]]  # each group sorted; the list in order of first member


def package_of(path: str, boundaries: list[str]) -> str:
    """The package root a path belongs to ("" outside every boundary).

    A root named literally (as detected packages are) holds its files unless a deeper literal
    root does: a nested package is a package of its own. A glob matches at its shallowest,
    because it also matches everything under the root it names.
    """
    parts = path.split("/")
    prefixes = ["/".join(parts[:depth]) for depth in range(1, len(parts))]  # shallowest first
    literal, globbed = _literal_and_globs(tuple(boundaries))
    deepest_literal = next((p for p in reversed(prefixes) if p in literal), "")
    shallowest_glob = next((p for p in prefixes if globbed(p)), "")
    return max(deepest_literal, shallowest_glob, key=lambda root: root.count("/") + bool(root))


@functools.lru_cache(maxsize=8)
def _literal_and_globs(
    boundaries: tuple[str, ...],
) -> tuple[frozenset[str], Callable[[str], bool]]:
    """The package roots named literally, and whether a folder matches one of the globs (the
    ``exclude`` setting's matcher: one expression for them all): sorted once for every file
    of a run, where each file sorted them again (a monorepo of a hundred packages: a million
    regular-expression searches, a tenth of its full build)."""
    literal = frozenset(root for root in boundaries if not GLOB_CHARS.search(root))
    return literal, exclusion([pattern for pattern in boundaries if pattern not in literal])


def changed_files(
    graph: FileGraph,
    adjacency: dict[str, str],
    old_adjacency: dict[str, str],
    old_files: dict[str, str],
) -> set[str]:
    """New files and those whose weighted edges changed (``FileGraph.adjacency`` differs).

    A removed file or edge changes the digests of the files it touched, so they count too.
    """
    return {
        path
        for path in graph.files
        if path not in old_files or adjacency.get(path) != old_adjacency.get(path)
    }


def cluster(
    graph: FileGraph,
    settings: dict[str, Any],
    previous: dict[str, str] | None = None,
    changed: set[str] | None = None,
    cuts: dict[str, str] | None = None,
    parted: frozenset[str] = frozenset(),
) -> Groups:
    """Partition every file; ``previous`` (file -> old community ID) warm-starts Leiden.

    With ``changed`` (see ``changed_files``) only files near a change may move (see
    ``_optimise_locally``); files without edges that did not change stay where they were.
    ``cuts``, when given, receives the communities cut this run (see ``_cut``): each file of
    a part -> the first file of the community it was cut from. ``parted`` names the packages
    whose communities an earlier run cut: an update moves their files by the rules of a cut
    package (see ``_leiden``).

    Long because it is the one loop over packages that places each kind of file in turn
    (docs and data, clustered code, loose files, fragments, a small package whole), with the
    cold and the local path side by side so that they cannot drift apart; each step is a
    function of its own.
    """
    boundaries = settings["boundaries"]
    if not isinstance(boundaries, list):  # "auto" is made concrete by ``with_packages``
        raise ValueError(f"boundaries must be a list of package roots, not {boundaries!r}")
    package = {path: package_of(path, boundaries) for path in graph.files}
    neighbours = graph.neighbours()
    # Loose files are grouped up to a share of the repository, but never in tiny groups.
    limit = max(MIN_LOOSE_GROUP, int(len(graph.files) * float(settings["loose_group_share"])))
    groups: Groups = []
    by_package: dict[str, list[str]] = defaultdict(list)
    for path in graph.files:
        by_package[package[path]].append(path)
    local = changed is not None and bool(previous)
    code = {path for path in graph.files if is_code(path)}
    inside: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
    for pair, weight in graph.weights.items():
        if pair[0] in code and pair[1] in code and package[pair[0]] == package[pair[1]]:
            inside[package[pair[0]]][pair] = weight
    kept: dict[str, dict[tuple[str, str], float]] = {}
    for name in sorted(by_package):
        edges = inside.get(name, {})
        small = _small_components(edges, MIN_COMPONENT)
        kept[name] = {pair: w for pair, w in edges.items() if pair[0] not in small}
    total = sum(sum(edges.values()) for edges in kept.values())
    for name in sorted(by_package):
        # Docs and data are grouped apart from code (by kind, or by folder): they are never
        # a code community's member, so never its main file either.
        members = [path for path in by_package[name] if path in code]
        data = [path for path in by_package[name] if path not in code]
        by_kind = settings.get("data_groups", "kind") == "kind"
        if local:
            assert previous is not None and changed is not None
            free_data = {path for path in data if path in changed}
            if by_kind:
                ours = _place_data_locally(data, previous, free_data, limit, name)
            else:
                ours = _place_loose_locally(data, [], previous, free_data, limit, name)
        elif by_kind:
            ours = _data_groups(data, name)
        else:
            ours = _split_tree(data, name, limit)
        edges = kept[name]
        # Each package is clustered at the scale of the whole repository: the configuration
        # model's expected weight is over the total, not the package's own (which would
        # cut small packages into pairs). With one package the ratio is exactly 1.
        share = sum(edges.values()) / total if total else 1.0
        scaled = {**settings, "resolution": float(settings["resolution"]) * share}
        # A pair of example files linked only to each other is placed like a loose file.
        connected = sorted({path for pair in edges for path in pair})
        cap = size_cap(len(members), settings)
        clustered, free = _leiden(
            connected,
            edges,
            scaled,
            previous or {},
            neighbours,
            changed if local else None,
            len(graph.files),
            cap,
            cuts,
            name in parted and cap > 0,  # a package back under the threshold is not held
        )
        placed = set(connected)
        loose = [path for path in members if path not in placed]
        if changed is not None and previous:
            free |= {path for path in loose if path in changed}
            placed_groups = _place_loose_locally(loose, clustered, previous, free, limit, name, cap)
        else:
            # Loose files join ``clustered`` in place, or come back as directory groups.
            placed_groups = clustered + _group_loose(loose, clustered, limit, name, cap)
        movable = free if changed is not None and previous else None
        ours.extend(_absorb_fragments(placed_groups, cap, movable) if cap else placed_groups)
        groups.extend(_whole_package(ours) if is_small_package(name, by_package[name]) else ours)
    return sorted((sorted(g) for g in groups if g), key=lambda g: g[0])


def is_small_package(name: str, paths: list[str]) -> bool:
    """Whether a package is small enough to be one community (``SMALL_PACKAGE``): never the
    repository's root, whose setup is its own community however small the repository, and
    only one with a file besides code and tool configs (its manifest, as detected packages
    have), which tells such a community from one an older kgtool formed with a tool's config
    read as code (see ``current_rules``)."""
    return (
        bool(name)
        and len(paths) <= SMALL_PACKAGE
        and any(not is_code(path) and not is_tool_config(path) for path in paths)
    )


def _whole_package(groups: Groups) -> Groups:
    """A small package's groups as one."""
    merged = sorted(path for group in groups for path in group)
    return [merged] if merged else []


def _absorb_fragments(groups: Groups, cap: int, free: set[str] | None = None) -> Groups:
    """In a package held to a cap, a community of one or two files (a plugin and its test)
    in a folder whose files larger communities hold at least as many of joins the one holding
    most of them, while it has room; the fragments of a folder that find no room, or whose
    folder no larger community holds, are packed together per folder, each whole
    (``_pack_whole``), when there are two or more: a hundred plugins make a few communities,
    not one per plugin and its test. On an update (``free``: the files that may move) only
    a fragment holding a free file is placed; the others stay as they are."""
    large = [list(group) for group in groups if len(group) > FRAGMENT]
    small = sorted((sorted(g) for g in groups if 0 < len(g) <= FRAGMENT), key=_lead)
    kept = [g for g in small if free is not None and not free.intersection(g)]
    fragments = [g for g in small if free is None or free.intersection(g)]
    if not fragments:
        return groups  # an update that touched none: nothing to place
    home = _folder_votes(large)
    in_folder: Counter[str] = Counter()
    for fragment in fragments:
        in_folder[posixpath.dirname(_lead(fragment))] += len(fragment)
    waiting: dict[str, Groups] = defaultdict(list)
    for fragment in fragments:
        folder = posixpath.dirname(_lead(fragment))
        votes = home.get(folder, Counter())
        room = [n for n in votes if len(large[n]) + len(fragment) <= cap]
        if room and sum(votes.values()) >= in_folder[folder]:
            large[min(room, key=lambda n: (-votes[n], n))].extend(fragment)
        else:
            waiting[folder].append(fragment)
    for folder in sorted(waiting):
        units = waiting[folder]
        kept.extend(_pack_whole(units, cap) if len(units) >= 2 else units)
    return [*large, *kept]


def _pack_whole(units: Groups, cap: int) -> Groups:
    """``units`` (in order) in slices of about even size, none split (a plugin stays with its
    test): at most ``cap`` files each unless a unit alone is larger, and no last slice of a
    fragment's size when the one before has room for it."""
    total = sum(map(len, units))
    if not total:
        return []
    target = -(-total // -(-total // cap))
    packed: Groups = [[]]
    for unit in units:
        if packed[-1] and len(packed[-1]) + len(unit) > target:
            packed.append([])
        packed[-1].extend(unit)
    if len(packed) > 1 and len(packed[-1]) <= FRAGMENT and len(packed[-2]) + len(packed[-1]) <= cap:
        packed[-2].extend(packed.pop())
    return packed


def _folder_votes(groups: Groups) -> dict[str, Counter[int]]:
    """Folder -> how many of its files each group holds (groups by their index): where a file
    with no say of its own goes is where its folder's files are."""
    votes: dict[str, Counter[int]] = defaultdict(Counter)
    for number, group in enumerate(groups):
        for path in group:
            votes[posixpath.dirname(path)][number] += 1
    return votes


def _lead(group: list[str]) -> str:
    """The file a small group is about: its first file that is not a test."""
    return next((path for path in group if not is_test(path)), group[0])


def size_cap(code_files: int, settings: dict[str, Any]) -> int:
    """The most code files one community of a package of ``code_files`` may hold; 0 when the
    package is small enough to be clustered as it comes (``max_share_above``)."""
    if code_files <= int(settings.get("max_share_above", 0)) or "max_share" not in settings:
        return 0
    return max(2, int(code_files * float(settings["max_share"])))


def _leiden(
    files: list[str],
    weights: dict[tuple[str, str], float],
    settings: dict[str, Any],
    previous: dict[str, str],
    neighbours: dict[str, dict[str, float]],
    changed: set[str] | None = None,
    total: int = 0,
    cap: int = 0,
    cuts: dict[str, str] | None = None,
    parted: bool = False,
) -> tuple[Groups, set[str]]:
    """Leiden's groups, and the files it was allowed to move (of ``total`` in the repository);
    with ``cap``, a group over it is cut again (see ``_cut``, which records in ``cuts``).

    An update of a ``parted`` package (one whose communities were cut) moves only the changed
    files, at twice the resolution (the scale of a first cut), with no catch-up moves:
    at the package's own scale the parts would merge again, and cutting that again would part
    them another way on every update."""
    if not files:
        return [], set()
    # Imported here: they cost a tenth of a second, and most updates never re-cluster.
    import leidenalg

    graph = _igraph(files, weights)
    resolution = float(settings["resolution"])
    seed = int(settings["seed"])
    membership = initial_membership(files, previous, neighbours, cap)
    local = changed is not None and membership is not None
    parted = parted and local
    partition = leidenalg.RBConfigurationVertexPartition(
        graph,
        weights="weight",
        initial_membership=membership,
        resolution_parameter=resolution * 2 if parted else resolution,
    )
    optimiser = leidenalg.Optimiser()
    optimiser.set_rng_seed(seed)
    free = set(files)
    if not local:
        _optimise(optimiser, partition, None)
    else:
        assert changed is not None and membership is not None
        hops = 0 if parted else LOCALITY_HOPS
        free = _optimise_locally(optimiser, partition, files, membership, changed, neighbours, hops)
        if not parted:
            free |= _catch_up(optimiser, partition, graph, files, resolution, total)
    now = list(partition.membership)
    if cap and local:
        assert membership is not None
        now = _hold(files, membership, now, free, cap)
    groups = _groups(files, now)
    if cap:
        # An update tolerates a community a little over its cap (a file or two joined it):
        # cutting it again would move every file in it.
        tolerated = cap + cap // 4 if local else cap
        groups = _cut(groups, weights, tolerated, cap, resolution, seed, cuts)
    return groups, free


def _catch_up(
    optimiser: Any, partition: Any, graph: Any, files: list[str], resolution: float, total: int
) -> set[str]:
    """The files moved towards what Leiden finds with every file free, when that is clearly
    better (``DRIFT``): the best moves, up to ``RELAX_SHARE`` of the files (see ``_relax``)."""
    import leidenalg

    relaxed = leidenalg.RBConfigurationVertexPartition(
        graph,
        weights="weight",
        initial_membership=partition.membership,
        resolution_parameter=resolution,
    )
    _optimise(optimiser, relaxed, None)
    scale = 2 * sum(graph.es["weight"])
    if (relaxed.quality() - partition.quality()) / scale <= DRIFT:
        return set()
    return _relax(partition, relaxed, files, max(1, int(RELAX_SHARE * total)))


def _igraph(files: list[str], weights: dict[tuple[str, str], float]) -> Any:
    """The weighted graph of ``files`` (in their order) over the pairs of ``weights`` among
    them, in sorted order: the same input, the same graph."""
    import igraph  # imported here, as leidenalg is: most updates never re-cluster

    index = {path: i for i, path in enumerate(files)}
    pairs = [pair for pair in sorted(weights) if pair[0] in index and pair[1] in index]
    graph = igraph.Graph(n=len(files), edges=[(index[a], index[b]) for a, b in pairs])
    graph.es["weight"] = [weights[pair] for pair in pairs]
    return graph


def _groups(files: list[str], membership: list[int]) -> Groups:
    """The files by community, in the order communities first appear."""
    found: dict[int, list[str]] = defaultdict(list)
    for path, community in zip(files, membership, strict=True):
        found[community].append(path)
    return list(found.values())


def _cut(
    groups: Groups,
    weights: dict[tuple[str, str], float],
    limit: int,
    cap: int,
    resolution: float,
    seed: int,
    cuts: dict[str, str] | None = None,
) -> Groups:
    """``groups`` with each group over ``limit`` files cut to at most ``cap`` per part:
    Leiden restricted to the group at twice the resolution, each part still too large again
    at twice that, up to ``2**MAX_CUT_DOUBLINGS`` times (a large package is read at the scale
    of its parts, as a large repository is read at the scale of its packages). Files a cut
    leaves in parts of one or two (the spokes of a hub: six hundred extractors that each
    import only the base class) are placed by ``_attach``: a reader holds a folder's slice,
    not six hundred singletons. ``cuts`` receives each file of a part -> the first file of
    the group it was cut from."""
    kept: Groups = []
    for group in groups:
        if len(group) <= limit:
            kept.append(group)
            continue
        members = set(group)
        inside = {pair: w for pair, w in weights.items() if members.issuperset(pair)}
        shared = _shared(group, inside)
        # A dense group, where most files are tied to most others, has no hub to set apart.
        apart = MIN_SHARED <= len(shared) <= len(group) // 2
        parts: Groups = _pack(shared, cap) if apart else []
        rest = members.difference(*parts)
        inside = {pair: w for pair, w in inside.items() if rest.issuperset(pair)}
        leftover: list[str] = []
        pending = [(sorted(rest), resolution)] if rest else []
        while pending:
            files, at = pending.pop()
            if len(files) <= cap:
                parts.append(files)
                continue
            if at * 2 > resolution * 2**MAX_CUT_DOUBLINGS:
                leftover.extend(files)
                continue
            for part in sorted(_cold_leiden(files, inside, at * 2, seed), key=lambda g: g[0]):
                if len(part) < MIN_COMPONENT:
                    leftover.extend(part)
                else:
                    pending.append((part, at * 2))
        pieces = [*parts, *_attach(sorted(leftover), parts, inside, cap)]
        if cuts is not None:
            whole = min(group)
            cuts.update((path, whole) for piece in pieces for path in piece)
        kept.extend(pieces)
    return kept


def _shared(group: list[str], inside: dict[tuple[str, str], float]) -> list[str]:
    """The files of ``group`` tied to at least half of it: what its files share (a base
    class, the URL and locale helpers every plugin imports), which a cut keeps apart from
    any one part of what uses it, and whose ties would otherwise hold every part together."""
    degree: Counter[str] = Counter()
    for a, b in inside:
        degree[a] += 1
        degree[b] += 1
    return sorted(path for path, count in degree.items() if 2 * count >= len(group))


def _cold_leiden(
    files: list[str], weights: dict[tuple[str, str], float], resolution: float, seed: int
) -> Groups:
    """Leiden from singletons over the edges among ``files`` alone (sorted, seeded)."""
    import leidenalg

    graph = _igraph(files, weights)
    partition = leidenalg.RBConfigurationVertexPartition(
        graph, weights="weight", resolution_parameter=resolution
    )
    optimiser = leidenalg.Optimiser()
    optimiser.set_rng_seed(seed)
    _optimise(optimiser, partition, None)
    return [sorted(group) for group in _groups(files, partition.membership)]


def _attach(
    leftover: list[str], parts: Groups, weights: dict[tuple[str, str], float], cap: int
) -> Groups:
    """Place a cut's leftover files (in path order) in a part with room: the one each has the
    most edge weight to, else the one holding most of its folder; the rest are packed
    (``_pack``)."""
    part_of = {path: n for n, part in enumerate(parts) for path in part}
    ties: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    waiting = set(leftover)
    for (a, b), weight in weights.items():
        if a in waiting and b in part_of:
            ties[a][part_of[b]] += weight
        elif b in waiting and a in part_of:
            ties[b][part_of[a]] += weight
    in_folder = _folder_votes(parts)
    sizes = [len(part) for part in parts]
    rest: list[str] = []
    for path in leftover:
        for votes in (ties[path], in_folder.get(posixpath.dirname(path), Counter())):
            room = [n for n in votes if sizes[n] < cap]
            if room:
                best = min(room, key=lambda n: (-votes[n], n))
                parts[best].append(path)
                sizes[best] += 1
                break
        else:
            rest.append(path)
    return _pack(rest, cap)


def _pack(paths: list[str], cap: int) -> Groups:
    """``paths`` in path order, in slices of even size of at most ``cap``: a large folder in
    runs of its names, small folders with their neighbours rather than a group each."""
    paths = sorted(paths)
    if not paths:
        return []
    slices = -(-len(paths) // cap)
    size = -(-len(paths) // slices)
    return [paths[start : start + size] for start in range(0, len(paths), size)]


def _optimise(optimiser: Any, partition: Any, is_fixed: list[bool] | None) -> None:
    for _ in range(MAX_ROUNDS):
        if optimiser.optimise_partition(partition, -1, is_fixed) <= 0:
            break


def _optimise_locally(
    optimiser: Any,
    partition: Any,
    files: list[str],
    initial: list[int],
    changed: set[str],
    neighbours: dict[str, dict[str, float]],
    hops: int = LOCALITY_HOPS,
) -> set[str]:
    """Leiden with every file fixed but the changed ones, then the neighbours of what moved.

    A file whose own edges did not change only has a reason to move when a neighbour moved,
    so the free region grows from the changed files along actual moves, up to
    ``LOCALITY_HOPS`` steps: what a change can disturb is bounded by where it is, not by
    how many neighbours a hub it touched has. Fixed files keep sharing a community exactly
    with those they shared it with before; Leiden's own numbering is never read as an ID.
    """
    index = {path: i for i, path in enumerate(files)}
    free = {path for path in files if path in changed}
    for step in range(hops + 1):
        _optimise(optimiser, partition, [path not in free for path in files])
        if step == hops:
            break
        moved = _moved(files, initial, partition.membership, free)
        grow = {other for path in moved for other in neighbours.get(path, ()) if other in index}
        grow -= free
        if not grow:
            break
        free |= grow
    return free


def _relax(partition: Any, relaxed: Any, files: list[str], budget: int) -> set[str]:
    """Apply the moves that take ``partition`` towards ``relaxed`` with the best gain per file.

    Moves come in groups (files leaving one community for the same other one), because a
    community that should move together gains nothing file by file. Groups are taken in order
    of gain per file while they fit ``budget``; the files moved are returned.
    """
    local = list(partition.membership)
    members: dict[int, list[int]] = defaultdict(list)
    for vertex, community in enumerate(relaxed.membership):
        members[community].append(vertex)
    # Each relaxed community continues the local one most of its files are in, the larger
    # first; a part that finds its origin taken is a new community.
    target: dict[int, int] = {}
    claimed: set[int] = set()
    fresh = max(local) + 1
    for community in sorted(members, key=lambda c: (-len(members[c]), members[c][0])):
        origins = Counter(local[v] for v in members[community])
        origin = min(origins, key=lambda c: (-origins[c], c))
        if origin in claimed:
            target[community], fresh = fresh, fresh + 1
        else:
            target[community] = origin
            claimed.add(origin)
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for vertex, community in enumerate(relaxed.membership):
        if target[community] != local[vertex]:
            groups[(local[vertex], target[community])].append(vertex)

    def move(vertices: list[int], to: int | None) -> float:
        before: float = partition.quality()
        for vertex in vertices:
            partition.move_node(vertex, local[vertex] if to is None else to)
        after: float = partition.quality()
        return after - before

    ranked = []
    for (_, to), vertices in groups.items():
        gain = move(vertices, to)
        move(vertices, None)
        ranked.append((-gain / len(vertices), vertices[0], to, vertices))
    ranked.sort()
    moved: set[str] = set()
    for _, _, to, vertices in ranked:
        if len(moved) + len(vertices) > budget:
            continue
        if move(vertices, to) <= 0:
            move(vertices, None)  # an earlier group took what this one would have gained
            continue
        moved.update(files[v] for v in vertices)
    partition._update_internal_membership()
    return moved


def _hold(
    files: list[str], initial: list[int], now: list[int], free: set[str], cap: int
) -> list[int]:
    """``now`` with the files that moved into a community over ``cap`` sent back where they
    came from (when that has room), in path order until it is within the cap: a hub that
    changed draws its spokes after it, and a community swollen by them would be cut again,
    every file of it moving."""
    origin = _origins(files, initial, now, free)
    anchored = {after for path, after in zip(files, now, strict=True) if path not in free}
    # A community's continuation is the one its fixed files are in; one known only from
    # the files that moved to it is a continuation only when there is no other.
    home = {before: after for after, before in origin.items() if after in anchored}
    for after, before in sorted(origin.items()):
        home.setdefault(before, after)
    sizes = Counter(now)
    held = list(now)
    for vertex, path in enumerate(files):
        after = held[vertex]
        back = home.get(initial[vertex])
        if (
            path in free
            and sizes[after] > cap
            and origin[after] != initial[vertex]
            and back is not None
            and sizes[back] < cap
        ):
            held[vertex] = back
            sizes[after] -= 1
            sizes[back] += 1
    return held


def _origins(
    files: list[str], initial: list[int], now: list[int], free: set[str]
) -> dict[int, int]:
    """Each community of ``now`` -> the one of ``initial`` it continues: the one its fixed
    files were in (they cannot have left), else the one most of its files started in."""
    origin: dict[int, int] = {}
    votes: dict[int, Counter[int]] = defaultdict(Counter)
    for path, before, after in zip(files, initial, now, strict=True):
        if path in free:
            votes[after][before] += 1
        else:
            origin[after] = before
    for after, counts in votes.items():
        if after not in origin:
            origin[after] = min(counts, key=lambda before: (-counts[before], before))
    return origin


def _moved(files: list[str], initial: list[int], now: list[int], free: set[str]) -> list[str]:
    """Free files whose community is no longer the one they started in.

    A community is the one it started as (``_origins``).
    """
    origin = _origins(files, initial, now, free)
    return [
        path
        for path, before, after in zip(files, initial, now, strict=True)
        if path in free and origin[after] != before
    ]


def initial_membership(
    files: list[str],
    previous: dict[str, str],
    neighbours: dict[str, dict[str, float]],
    cap: int = 0,
) -> list[int] | None:
    """Old community per file; a new file starts with its neighbours, or its directory, where
    there is room (``cap``)."""
    if not any(path in previous for path in files):
        return None  # a cold start: Leiden's own singletons
    labels: dict[str, str] = {path: previous[path] for path in files if path in previous}
    sizes = Counter(labels.values())
    in_directory: dict[str, Counter[str]] = defaultdict(Counter)
    for path, label in labels.items():
        in_directory[posixpath.dirname(path)][label] += 1
    # New files in path order, each seeing the ones placed before it: deterministic.
    for path in files:
        if path in labels:
            continue
        tally: dict[str, float] = defaultdict(float)
        for other, weight in neighbours.get(path, {}).items():
            if other in labels:
                tally[labels[other]] += weight
        votes: Mapping[str, float] = tally
        if not votes:
            votes = in_directory.get(posixpath.dirname(path), Counter())
        room = [label for label in votes if not cap or sizes[label] < cap]
        if room:
            labels[path] = min(room, key=lambda label: (-votes[label], _id_key(label)))
        else:
            labels[path] = f"new:{path}"
        sizes[labels[path]] += 1
        in_directory[posixpath.dirname(path)][labels[path]] += 1
    numbering: dict[str, int] = {}
    for label in sorted(set(labels.values()), key=_id_key):
        numbering[label] = len(numbering)
    return [numbering[labels[path]] for path in files]


def _id_key(label: str) -> tuple[int, str]:
    digits = label[1:]
    return (int(digits), "") if label.startswith("c") and digits.isdigit() else (1 << 62, label)


def _group_loose(
    loose: list[str], clustered: Groups, limit: int, package: str, cap: int = 0
) -> Groups:
    """Place files with no edges: beside their connected siblings, or in directory groups.

    A loose file joins the community most of its directory's connected files are in, when
    those are at least as many as the loose ones (a data file in a code folder), and while it
    has room (``cap``, see ``size_cap``). The rest are
    grouped along the directory tree: a folder whose loose files number at most ``limit``
    becomes one group with everything under it; a larger one keeps its own files as a group
    and hands its subfolders on. Documentation trees become a few groups, not one blob and
    not hundreds of singletons.
    """
    home = _folder_votes(clustered)
    loose_count = Counter(posixpath.dirname(path) for path in loose)
    rest: list[str] = []
    for path in loose:
        directory = posixpath.dirname(path)
        votes = home.get(directory)
        room = [n for n in votes or () if not cap or len(clustered[n]) < cap]
        if votes and room and sum(votes.values()) >= loose_count[directory]:
            best = min(room, key=lambda number: (-votes[number], number))
            clustered[best].append(path)
        else:
            rest.append(path)
    return _within(_split_tree(rest, package, limit), cap)


def _place_loose_locally(
    loose: list[str],
    clustered: Groups,
    previous: dict[str, str],
    free: set[str],
    limit: int,
    package: str,
    cap: int = 0,
) -> Groups:
    """Files with no edges, when only ``free`` files may move.

    A fixed loose file goes where its old community's fixed files are (they cannot have
    moved), else where most of its old community went, else stays a group of its own. A free
    one (new, or its edges just went) joins what is placed in its folder, else its nearest
    placed ancestor folder when it would be a small group, else forms directory groups; with
    ``cap`` (see ``size_cap``), only a group with room takes it, and its directory groups are
    no larger (``_pack``).
    """
    groups: Groups = [list(group) for group in clustered]
    anchored: dict[str, int] = {}
    spread: dict[str, Counter[int]] = defaultdict(Counter)
    for number, group in enumerate(groups):
        for path in group:
            label = previous.get(path)
            if label is not None:
                spread[label][number] += 1
                if path not in free:
                    anchored[label] = number
    own: dict[str, list[str]] = defaultdict(list)
    rest: list[str] = []
    for path in loose:
        label = previous.get(path)
        if label is None or path in free:
            rest.append(path)
        elif label in anchored:
            groups[anchored[label]].append(path)
        elif spread.get(label):
            votes = spread[label]
            groups[min(votes, key=lambda number: (-votes[number], number))].append(path)
        else:
            own[label].append(path)
    for label in sorted(own, key=_id_key):
        groups.append(own[label])
    home = _folder_votes(groups)

    def placed_near(directory: str, walk_up: bool, size: int = 1) -> int | None:
        while True:
            votes = home.get(directory, Counter())
            room = [n for n in votes if not cap or len(groups[n]) + size <= cap]
            if room:
                return min(room, key=lambda number: (-votes[number], number))
            if not walk_up or directory in ("", package):
                return None
            directory = posixpath.dirname(directory)

    unplaced: list[str] = []
    for path in rest:
        placed = placed_near(posixpath.dirname(path), walk_up=False)
        if placed is None:
            unplaced.append(path)
        else:
            groups[placed].append(path)
    for group in _within(_split_tree(unplaced, package, limit), cap):
        placed = None
        if len(group) < MIN_LOOSE_GROUP:
            common = posixpath.commonpath([posixpath.dirname(p) for p in group])
            placed = placed_near(common, walk_up=True, size=len(group))
        if placed is None:
            groups.append(group)
        else:
            groups[placed].extend(group)
    return groups


def _within(groups: Groups, cap: int) -> Groups:
    """``groups`` with any group over ``cap`` packed in slices (``_pack``); all when 0."""
    return [part for group in groups for part in (_pack(group, cap) if cap else [group])]


def _small_components(edges: dict[tuple[str, str], float], minimum: int) -> set[str]:
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in edges:
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)
    sizes = Counter(find(node) for node in parent)
    return {node for node in parent if sizes[find(node)] < minimum}


DOC_EXTENSIONS = (".md", ".mdx", ".rst", ".txt", ".adoc")


def _data_groups(paths: list[str], package: str) -> Groups:
    """A package's docs and data, one group per kind (see ``data_kind``): one community of
    its test fixtures, not one per fixture folder; the kinds of a few files, one group."""
    kinds: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        kinds[data_kind(path, package)].append(path)
    # Kinds of a few files each are one group: a small package's README, config and two
    # pages are its data, not four communities.
    few = sorted(p for kind in kinds if len(kinds[kind]) < MIN_LOOSE_GROUP for p in kinds[kind])
    groups = [kinds[kind] for kind in sorted(kinds) if len(kinds[kind]) >= MIN_LOOSE_GROUP]
    return [*groups, few] if few else groups


def _place_data_locally(
    data: list[str], previous: dict[str, str], free: set[str], limit: int, package: str
) -> Groups:
    """Docs and data when only ``free`` files may move: the others stay in their groups; a
    free one joins the group holding most files of its kind, as a cold run would put it,
    else the free files of a kind found nowhere form their kind's groups."""
    fixed = [path for path in data if path not in free]
    groups = _place_loose_locally(fixed, [], previous, set(), limit, package)
    holder: dict[str, Counter[int]] = defaultdict(Counter)
    for number, group in enumerate(groups):
        for path in group:
            holder[data_kind(path, package)][number] += 1
    homeless: list[str] = []
    for path in sorted(free):
        votes = holder.get(data_kind(path, package))
        if votes:
            groups[min(votes, key=lambda number: (-votes[number], number))].append(path)
        else:
            homeless.append(path)
    new = _data_groups(homeless, package)
    # A few files of a kind new to the package join its group of few-file kinds, as a cold
    # run would put them (not a group of their own).
    mixed = [n for n, group in enumerate(groups) if len({data_kind(p, package) for p in group}) > 1]
    if new and mixed and len(new[-1]) < MIN_LOOSE_GROUP:
        groups[mixed[0]].extend(new.pop())
    return [*groups, *new]


def data_kind(path: str, package: str) -> str:
    """What a non-code file of ``package`` is there for: "test data" (under a test or data
    folder), "docs <root>" (under a docs folder at the package's top), "setup" (at its top:
    manifests, configs, its README), "docs" (a page elsewhere), or "data"."""
    inner = path[len(package) + 1 :] if package else path
    folders = inner.split("/")[:-1]
    if is_test(inner) or in_data_folder(inner):  # a package at packages/e2e is no test data
        return "test data"
    if folders and folders[0].lower() in DOC_FOLDERS:
        return f"docs {folders[0]}"
    if not folders:
        return "setup"
    return "docs" if path.lower().endswith(DOC_EXTENSIONS) else "data"


def _split_tree(paths: list[str], directory: str, limit: int) -> Groups:
    if not paths:
        return []
    if len(paths) <= limit:
        return [paths]
    prefix = f"{directory}/" if directory else ""
    own = [p for p in paths if posixpath.dirname(p) == directory]
    children: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if path not in own:
            children[prefix + path[len(prefix) :].split("/", 1)[0]].append(path)
    groups: Groups = []
    for child in sorted(children):
        # A small subfolder stays with its parent's files rather than standing alone.
        if len(children[child]) < MIN_LOOSE_GROUP:
            own.extend(children[child])
        else:
            groups.extend(_split_tree(children[child], child, limit))
    return [own, *groups] if own else groups
