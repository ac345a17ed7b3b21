"""Layer 2: ``.kg/communities.json`` from layer 1 and the committed partition (the map drawn
over it is layer 3's, ``kgtool.ontology.map``).

The no-change path is cheap: the file graph's digest (with the settings and library versions
it was clustered under) is stored as ``graph_hash``; when it matches, Leiden does not run and
the committed partition is kept as it is. Only the aggregates are recounted then, because
edges that do not move the file graph (an extra call between two already-linked files) still
change the typed counts.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kgtool import bounded, progress
from kgtool.communities.document import (  # re-exported: commands read them from here
    COMMUNITIES_FILE,
    Document,
    parse_document,
    read_document_bytes,
)
from kgtool.communities.identity import Identity, assign_ids, format_id, id_number
from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.file_kinds import is_tool_config
from kgtool.raw import graph as raw_graph
from kgtool.raw.model import AMBIGUOUS, FileEdge, symbol_parts
from kgtool.raw.summary import paths_digest
from kgtool.repo import show_file
from kgtool.store import (
    KG_DIR,
    Store,
    atomic_write,
    canonical_json,
    file_stamp,
    pretty_json,
)

# What forms a document is imported where it runs: a run that finds layer 2 up to date (every
# hook run without an edit) reads a cache key and returns.
if TYPE_CHECKING:
    from kgtool.communities.graph import FileGraph

# 2: per-file ``adjacency`` digests, for the locality rule; 3: ``areas`` above communities.
# A format-2 document is read as it is and gains its areas on the next update, IDs kept.
FORMAT_VERSION = 3
# A map formed before code was kept apart from docs and data has no ``kind`` on its
# communities (the shape is otherwise the same, so readers of format 2 still read it): it is
# re-formed once, warm-started, IDs matched.
RULES = "code-first"
TOP = 5  # main files and top symbols kept per community
CODE, DATA = "code", "data"  # a community's ``kind``: data covers docs, data and assets
CACHE_KEY_FILE = "communities.key"  # in the local cache: what the files on disk were made from
# Keys of the ``communities`` config section that only ``kgtool diff`` reads.
DIFF_KEYS = ("diff_change", "diff_min_edges")
# Keys that only name families beside the communities: they never move a file, so a change
# to them leaves the partition (and its digest) as it is.
FAMILY_KEYS = ("families", "family_min_size")


class Layer1(Protocol):
    """Layer 1 as layer 2 is handed it: what ``kgtool.raw.build.update_raw`` returns (its
    ``UpdateResult``), read only as far as a run needs."""

    digest: str  # names the content, for the cache's key

    @property
    def content(self) -> bytes: ...  # the joined shards, as a reader of .kg/raw/ reads them

    def file_edges(self) -> dict[str, tuple[FileEdge, ...]] | None: ...

    def file_edges_digest(self) -> bytes: ...

    def paths_digest(self) -> str: ...  # names the list of files (``blob_ids``' keys)

    def blob_ids(self) -> Mapping[str, str]: ...  # each file's blob id, to read


class CommunitiesResult:
    __slots__ = (
        "_digest",
        "_document",
        "_outputs",
        "changed",
        "note",
        "reclustered",
        "seconds",
        "unread",
    )

    # .kg-relative name -> content (communities.json); see ``outputs``.
    _outputs: dict[str, bytes] | Callable[[], dict[str, bytes]]
    changed: list[str]  # names that differ from disk (written when asked)
    reclustered: bool  # Leiden ran (the graph changed, or --rebaseline)
    seconds: float
    note: str  # what changed in the rules the map is formed under (see ``what_changed``)
    # Workspace manifests that could not be read (path, line, why): their packages are not.
    unread: list[tuple[str, int, str]]

    def __init__(
        self,
        document: Document | None,
        outputs: dict[str, bytes] | Callable[[], dict[str, bytes]],
        changed: list[str] | None = None,
        reclustered: bool = False,
        seconds: float = 0.0,
        note: str = "",
        digest: bytes | None = None,
    ) -> None:
        """``document`` None: it is the one ``outputs`` holds, as kgtool wrote it. ``outputs``
        a callable: read when first asked for (a document kept as it was, on disk). ``digest``:
        the sha256 of communities.json's bytes, when the update knows it."""
        self._document = document
        self._digest = digest
        self._outputs = outputs
        self.changed = [] if changed is None else changed
        self.reclustered = reclustered
        self.seconds = seconds
        self.note = note
        self.unread: list[tuple[str, int, str]] = []

    @property
    def outputs(self) -> dict[str, bytes]:
        if callable(self._outputs):
            self._outputs = self._outputs()
        return self._outputs

    @property
    def digest(self) -> bytes:
        """The sha256 of communities.json as this run left it: what the map keys on."""
        if self._digest is None:
            self._digest = hashlib.sha256(self.outputs[COMMUNITIES_FILE]).digest()
        return self._digest

    @property
    def document(self) -> Document:
        """The document, parsed when first read when it was kept as kgtool wrote it: an
        update whose document did not change reads it only if a label or the map asks (a
        30 MB parse at 100k files, on every commit)."""
        if self._document is None:
            self._document = parse_document(self.outputs[COMMUNITIES_FILE], shape_known=True)
        return self._document


def library_versions() -> dict[str, str]:
    """The clustering libraries' versions, part of layer 2's cache key: from the names of
    their metadata folders on sys.path (``leidenalg-0.12.0.dist-info``), as importlib.metadata
    finds them, without its 25 ms of imports on every run."""
    wanted = {"leidenalg": "leidenalg", "igraph": "igraph", "python_igraph": "igraph"}
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            project, _, rest = name.partition("-")
            library = wanted.get(project.lower())
            if library and library not in found and rest.endswith(".dist-info"):
                found[library] = rest.removesuffix(".dist-info")
    if len(found) < 2:  # installed otherwise (an egg, a zip): ask the slow way
        from importlib.metadata import PackageNotFoundError, version

        for library in ("leidenalg", "igraph"):
            try:
                found.setdefault(library, version(library))
            except PackageNotFoundError:  # pragma: no cover - igraph ships as python-igraph
                found.setdefault(library, version(f"python-{library}"))
    return {library: found[library] for library in ("leidenalg", "igraph")}


def clustering_settings(config: Config) -> dict[str, Any]:
    section = config.section("communities")
    settings = {k: v for k, v in sorted(section.items()) if k not in (*DIFF_KEYS, *FAMILY_KEYS)}
    settings["versions"] = library_versions()
    return settings


def family_settings(config: Config) -> dict[str, Any]:
    section = config.section("communities")
    return {key: section[key] for key in FAMILY_KEYS}


def with_packages(
    settings: dict[str, Any],
    root: Path,
    files: list[str] | Mapping[str, str],
    remembered: dict[str, Any] | None = None,
    unread: list[tuple[str, int, str]] | None = None,
    listing: str = "",
) -> dict[str, Any]:
    """``settings`` with ``boundaries`` made concrete for this tree: "auto" becomes the package
    roots detected among ``files`` (read from ``root``), so the document records them and a
    package added or removed re-forms the partition like any other settings change.

    ``remembered`` (layer 2's record) keeps what the last detection found, with the files it
    was given and the digest of each file it read: while those are the same, so are the
    roots, and the workspace files are not parsed again (a pnpm workspace's YAML cost a tenth
    of an edit on a 6,700-file monorepo). It is updated in place, and keeps the workspace
    manifests that could not be read, which are added to ``unread`` either way.

    ``files``: the files, or layer 1's blob id of each by path with ``listing``, its
    ``paths_digest``: then the files are listed only when the roots are detected anew (at
    100k files, sorting and hashing them cost each edit tens of milliseconds)."""
    from kgtool.communities.packages import package_roots

    listed = functools.cache(lambda: sorted(files))
    known = functools.cache(lambda: files if isinstance(files, Mapping) else set(files))
    digests: dict[str, str] = {}

    def read(path: str) -> bytes | None:
        # A commit can track a manifest that is a link to /dev/zero or out of the tree.
        data = bounded.read_tracked(root, path) if path in known() else None
        digests[path] = hashlib.sha256(data).hexdigest() if data is not None else ""
        return data

    found: list[tuple[str, int, str]] = []
    if unread is None:
        unread = []
    if settings["boundaries"] != "auto" or remembered is None:
        roots = package_roots(settings["boundaries"], listed(), read, unread)
        return {**settings, "boundaries": roots}
    listing = listing or paths_digest(listed())
    last = remembered.get("packages")
    if (
        isinstance(last, dict)
        and last.get("files") == listing
        and isinstance(last.get("read"), dict)
        and isinstance(last.get("roots"), list)
    ):
        for path in last["read"]:
            read(path)
        if digests == last["read"]:
            unread += remembered_unread(last)
            return {**settings, "boundaries": list(last["roots"])}
        digests.clear()
    roots = package_roots("auto", listed(), read, found)
    remembered["packages"] = {"files": listing, "read": digests, "roots": roots}
    if found:
        remembered["packages"]["unread"] = [list(item) for item in found]
    unread += found
    return {**settings, "boundaries": roots}


def remembered_unread(packages: Any) -> list[tuple[str, int, str]]:
    """The workspace manifests the last detection could not read, as it remembered them."""
    found = packages.get("unread") if isinstance(packages, dict) else None
    if not isinstance(found, list):
        return []
    return [
        (item[0], item[1], item[2])
        for item in found
        if isinstance(item, list) and len(item) == 3 and isinstance(item[1], int)
    ]


def current_rules(document: Document) -> bool:
    """Whether ``document`` was formed under today's rules: every community has a ``kind``,
    and no code community holds a tool's settings written as code (vitest.config.ts was
    code to an older kgtool; it is its package's setup now). A small package is one
    community with its manifest (see ``cluster.SMALL_PACKAGE``), so a tool config beside
    other setup files is today's. A name check, not a parse: it runs on every update."""
    communities = document.get("communities", {})
    return bool(communities) and all(
        "kind" in c and (c["kind"] != CODE or not _config_read_as_code(c.get("members", [])))
        for c in communities.values()
    )


def _config_read_as_code(members: list[str]) -> bool:
    """Whether a code community's members hold a tool config with nothing else but code:
    what an older kgtool formed when it read vitest.config.ts as code."""
    from kgtool.communities.packages import is_code

    configs = [path for path in members if is_tool_config(path)]
    return bool(configs) and all(is_code(path) or is_tool_config(path) for path in members)


def what_changed(previous: Document, document: Document) -> str:
    """One line when the rules the map was formed under changed (an older kgtool's document,
    packages detected or changed, no areas yet), saying how much of it that re-formed; ""
    otherwise."""
    from kgtool.communities.areas import areas_note

    if document is previous or not previous.get("communities"):
        return ""  # the document kept as it was: nothing re-formed
    reasons = []
    before = previous.get("settings", {}).get("boundaries", [])
    after = document["settings"]["boundaries"]
    if before != after:
        count = len(after)
        reasons.append(
            f"package boundaries {'detected' if not before else 'changed'} ({count} packages)"
            if count
            else "package boundaries removed"
        )
    if not current_rules(previous):
        reasons.append("code kept apart from docs and data")
    joined = _small_packages_joined(previous, document)
    if joined:
        reasons.append(f"{joined} small package{'s' if joined > 1 else ''} made one community each")
    if "max_share" not in previous.get("settings", {}) and _over_cap(previous, document):
        share = float(document["settings"]["max_share"])
        reasons.append(f"no community over {share:.0%} of a large package")
    lines = [areas_note(previous, document)]
    if reasons:
        old = {cid: c.get("members") for cid, c in previous["communities"].items()}
        reformed = sum(old.get(cid) != c["members"] for cid, c in document["communities"].items())
        retired = len(set(old) - set(document["communities"]))
        lines.insert(
            0,
            f"communities: {', '.join(reasons)}: {reformed} communities re-formed, "
            f"{retired} retired",
        )
    return "; ".join(line for line in lines if line)


def _small_packages_joined(previous: Document, document: Document) -> int:
    """How many small packages (``cluster.SMALL_PACKAGE``) were in several communities of
    ``previous`` and are one of ``document``: a map formed before that rule, re-formed under
    it at its next update (an example's index.ts apart from its package.json)."""
    from kgtool.communities.cluster import is_small_package, package_of

    before: dict[str, str] = previous.get("files", {})
    if before == document["files"]:
        return 0  # no file moved: the cost of the packages below is only paid when one did
    boundaries = document["settings"]["boundaries"]
    by_package: dict[str, list[str]] = defaultdict(list)
    for path in document["files"]:
        by_package[package_of(path, boundaries)].append(path)
    joined = 0
    for name, paths in by_package.items():
        if not is_small_package(name, paths):
            continue
        now = {document["files"][path] for path in paths}
        then = {before[path] for path in paths if path in before}
        joined += len(now) == 1 and len(then) > 1
    return joined


def _over_cap(previous: Document, document: Document) -> bool:
    """Whether a code community of ``previous`` holds more of its package than ``document``'s
    settings allow (``size_cap``): a map formed before the cap, re-formed under it."""
    from kgtool.communities.cluster import package_of, size_cap
    from kgtool.communities.packages import is_code

    settings = document["settings"]
    boundaries = settings.get("boundaries") or []
    sizes: dict[str, list[int]] = defaultdict(list)
    for community in previous["communities"].values():
        code = [path for path in community["members"] if is_code(path)]
        if code:
            sizes[package_of(code[0], boundaries)].append(len(code))
    return any(
        max(counts) > (size_cap(sum(counts), settings) or sum(counts)) for counts in sizes.values()
    )


CONFLICT_MARKER = re.compile(rb"^<<<<<<< ", re.MULTILINE)


def _previous_document(root: Path, on_disk: bytes | None, ours: bool = False) -> Document:
    """The partition to start from: the file on disk, or, while a merge left conflict markers
    in it, our side as committed (HEAD) — the update then reconciles it with the merged code.
    ``ours``: the file is the one the last run wrote, whose shape is known."""
    if on_disk is not None and ours:
        return parse_document(on_disk, shape_known=True)  # no conflict in what kgtool wrote
    if on_disk is not None and CONFLICT_MARKER.search(on_disk):
        where = f"HEAD:{KG_DIR}/{COMMUNITIES_FILE}"
        return parse_document(show_file(root, "HEAD", f"{KG_DIR}/{COMMUNITIES_FILE}"), where)
    return parse_document(on_disk)


def compute(
    graph: FileGraph,
    settings: dict[str, Any],
    previous: Document,
    rebaseline: bool = False,
    families: dict[str, Any] | None = None,
) -> tuple[Document, bool]:
    """The new document, and whether Leiden ran; ``families`` (see ``family_settings``) names
    the families beside the communities.

    A pure function of the file graph, the settings and the previous document: the locality
    rule reads which files changed from the previous document's ``adjacency``, never from a
    local cache, so a fresh clone and a developer's hook write the same bytes.
    """
    from kgtool.communities.areas import form_areas
    from kgtool.communities.cluster import changed_files, cluster, package_of

    graph_hash = graph.digest(settings)
    adjacency = graph.adjacency()
    old = {cid: list(c["members"]) for cid, c in previous.get("communities", {}).items()}
    retired: dict[str, dict[str, str]] = dict(previous.get("retired", {}))
    known = [*old, *retired]
    next_id = max([int(previous.get("next_id", 1)), *(id_number(c) + 1 for c in known)])
    same_rules = current_rules(previous)
    unchanged = (
        not rebaseline
        and same_rules
        and previous.get("graph_hash") == graph_hash
        and sorted(previous.get("files", {})) == graph.files
    )
    cuts: dict[str, str] = {}  # each file of a part -> the first file of what it was cut from
    parted = [str(root) for root in previous.get("parted", []) if isinstance(root, str)]
    if unchanged:
        identity = Identity({cid: sorted(m) for cid, m in old.items()}, next_id)
    else:
        old_files = {path: cid for cid, members in old.items() for path in members}
        changed = None
        old_adjacency = previous.get("adjacency")
        same_settings = canonical_json(previous.get("settings")) == canonical_json(settings)
        if not rebaseline and same_rules and isinstance(old_adjacency, dict) and same_settings:
            changed = changed_files(graph, adjacency, old_adjacency, old_files)
        # Without the previous adjacency (an older document, new settings or packages) every
        # file may move: a warm start from the old partition.
        # Packages an earlier run cut keep the update rules of a cut package while only the
        # changed files may move; a run where every file may move cuts afresh.
        before = frozenset(parted) if changed is not None else frozenset()
        with progress.status(f"clustering {len(graph.files)} files"):
            groups = cluster(
                graph, settings, None if rebaseline else old_files, changed, cuts, before
            )
        identity = assign_ids(groups, old, next_id, float(settings["min_overlap"]))
        boundaries = settings["boundaries"]
        present = {package_of(path, boundaries) for path in graph.files}
        parted = sorted({package_of(path, boundaries) for path in cuts} | (before & present))
    for cid in identity.retired:
        heir = identity.merged_into.get(cid)
        retired[cid] = {"merged_into": heir} if heir else {}
    lineage = {cid: c.get("split_from") for cid, c in previous.get("communities", {}).items()}
    lineage.update(identity.split_from)
    document = assemble(graph, identity, lineage, retired, graph_hash, settings)
    document["adjacency"] = adjacency
    if parted:
        document["parted"] = parted
    # Parts cut from one community this run are one unit to the areas formed above them.
    origins = {
        cid: next(cuts[path] for path in members if path in cuts)
        for cid, members in identity.ids.items()
        if any(path in cuts for path in members)
    }
    form_areas(document, previous, rebaseline, origins)
    _add_families(document, graph, settings["boundaries"], families or {})
    return document, not unchanged


def _add_families(
    document: Document, graph: FileGraph, boundaries: list[str], families: dict[str, Any]
) -> None:
    """``families`` of communities.json, when the graph has any: named groups beside the
    communities, which they leave as Leiden formed them (bench/results/families.md measures
    why: made one community each, they cut communities that change together)."""
    from kgtool.communities.cluster import package_of
    from kgtool.communities.families import family_records, find_families

    found = find_families(graph, families, lambda path: package_of(path, boundaries))
    if found:
        document["families"] = family_records(found, document["files"])


def assemble(
    graph: FileGraph,
    identity: Identity,
    lineage: dict[str, str | None],
    retired: dict[str, dict[str, str]],
    graph_hash: str,
    settings: dict[str, Any],
) -> Document:
    from kgtool.communities.packages import is_code

    community_of = {path: cid for cid, members in identity.ids.items() for path in members}
    pair_counts: dict[tuple[str, str], dict[str, Counter[str]]] = defaultdict(
        lambda: defaultdict(Counter)
    )
    file_in: Counter[str] = Counter()
    for (src, dst, kind, tier), count in graph.typed.items():
        file_in[dst] += count
        a, b = community_of[src], community_of[dst]
        if a != b:
            pair_counts[(a, b)][kind][tier] += count
    for src, kind, targets in graph.ambiguous:
        homes = {community_of[t] for t in targets}
        a = community_of[src]
        if len(homes) == 1 and a not in homes:
            pair_counts[(a, homes.pop())][kind][AMBIGUOUS] += 1
    symbols_by_file: dict[str, list[tuple[str, int]]] = defaultdict(list)
    files = set(graph.files)
    for symbol, count in graph.in_degree.items():
        if "::" in symbol and symbol not in files:  # a file's name may hold '::'
            symbols_by_file[symbol_parts(symbol)[0]].append((symbol, count))

    communities: dict[str, Any] = {}
    for cid, members in identity.ids.items():
        entry: dict[str, Any] = {
            "members": members,
            "size": len(members),
            "members_hash": members_hash(members),
            "kind": CODE if any(is_code(path) for path in members) else DATA,
            "main_files": _top([(p, file_in[p]) for p in members]),
            "top_symbols": _top([s for p in members for s in symbols_by_file.get(p, [])]),
        }
        if lineage.get(cid):
            entry["split_from"] = lineage[cid]
        communities[cid] = entry
    edges = []
    for (a, b), types in sorted(
        pair_counts.items(), key=lambda item: (id_number(item[0][0]), id_number(item[0][1]))
    ):
        counts = {kind: dict(sorted(tiers.items())) for kind, tiers in sorted(types.items())}
        total = sum(sum(tiers.values()) for tiers in counts.values())
        edges.append({"src": a, "dst": b, "types": counts, "total": total})
    return {
        "format": FORMAT_VERSION,
        "graph_hash": graph_hash,
        "settings": settings,
        "next_id": identity.next_id,
        "communities": communities,
        "edges": edges,
        "files": {path: community_of[path] for path in graph.files},
        "retired": retired,
    }


def members_hash(members: list[str]) -> str:
    return hashlib.sha256("\n".join(members).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _top(scored: list[tuple[str, int]]) -> list[list[Any]]:
    ranked = sorted((item for item in scored if item[1] > 0), key=lambda i: (-i[1], i[0]))
    return [[name, count] for name, count in ranked[:TOP]]


def update_communities(
    root: Path,
    config: Config,
    store: Store,
    layer1: Layer1 | None = None,
    write: bool = True,
    rebaseline: bool = False,
) -> CommunitiesResult:
    """Recompute layer 2 from ``layer1`` (default: layer 1 on disk, as
    ``kgtool.raw.graph.load`` joins it); write if asked.

    ``layer1`` is what ``kgtool.raw.build.update_raw`` returns: its per-file folded edges
    build the file graph instead of parsing layer 1 (which on a 700-file repository costs
    more than the rest of layer 2 together), its digest names its content for the cache (a
    run whose layer 1 changed nothing need not read it), its edges' digest names the edges,
    which are read only if the document must be computed again, and its blobs list the
    files. The map drawn over the document is layer 3's (``kgtool.ontology.map``).

    Long because its caches nest (the whole input, then the document), each a return or a
    skip on the way down, and what each level read is what the next one keys on; split, the
    levels would pass each other their keys and what they read.
    """
    started = time.perf_counter()
    content: bytes | None = None
    if layer1 is not None:
        raw_digest = layer1.digest
    else:
        content, raw_digest = _layer1_on_disk(store)
    settings = clustering_settings(config)
    families = family_settings(config)
    keyed = {**settings, **families}  # what the outputs depend on
    record = {} if rebaseline else _record(store)
    remembered = {"packages": record.get("packages")}  # what with_packages found last
    outputs_then = record.get("outputs")
    written_then = outputs_then.get(COMMUNITIES_FILE) if isinstance(outputs_then, dict) else None
    # communities.json as the last run left it, by its stamp, is not read (at 100k files it is
    # 30 MB, read and hashed on every commit); a check reads it, as a verdict rests on bytes.
    where = os.fspath(store.path(COMMUNITIES_FILE))
    stamp = file_stamp(where)  # taken before any read: the bytes read are the stamp's
    stamped = (
        write and isinstance(written_then, str) and bool(stamp) and record.get("stamp") == stamp
    )
    read_on_disk = functools.cache(lambda: read_document_bytes(store))

    def kept_on_disk() -> dict[str, bytes]:  # the outputs when the document is the one there
        return {COMMUNITIES_FILE: read_on_disk() or b""}

    if stamped:
        assert isinstance(written_then, str)
        on_disk_digest = bytes.fromhex(written_then)
    else:
        # Hashed once, and every key below made of the digest.
        on_disk_digest = _digest(read_on_disk())
        if file_stamp(where) != stamp:  # replaced while read: the stamp names other bytes
            stamp = []
    key = _input_key(raw_digest, keyed, on_disk_digest)
    # Whether communities.json is what the last run wrote.
    ours = stamped or (read_on_disk() is not None and written_then == on_disk_digest.hex())
    if record.get("key") == key and ours:
        # The last run saw this exact input and left its document there: it is the one
        # written, checked then (read this time, as a checkout put it back: its stamp now).
        if write and not stamped and stamp:
            store.keep_record(CACHE_KEY_FILE, {**record, "stamp": stamp})
        result = CommunitiesResult(
            None,
            kept_on_disk,
            seconds=time.perf_counter() - started,
            digest=on_disk_digest,
        )
        if settings["boundaries"] == "auto":
            result.unread = remembered_unread(record.get("packages"))
        return result
    # The document to start from, read only when one is computed.
    previous = functools.cache(lambda: _previous_document(root, read_on_disk(), ours))

    kept = False
    document: Document | None = None
    document_key = ""
    folded_digest = b""
    packaged: dict[str, Any] = {}
    unread: list[tuple[str, int, str]] = []
    if layer1 is not None:
        # The document follows from the files' folded edges, the settings (packages made
        # concrete) and the document before: when those are what the last run saw and its
        # document is still on disk, so is this run's, whatever else layer 1 says. The edges
        # are named by their digest and the files listed by their blobs: the edges themselves
        # are read only if the document must be computed again.
        packaged = with_packages(
            settings, root, layer1.blob_ids(), remembered, unread, layer1.paths_digest()
        )
        folded_digest = layer1.file_edges_digest()
        document_key = _document_key(folded_digest, {**keyed, **packaged}, on_disk_digest)
        if ours and record.get("document") == document_key:
            kept = True
    reclustered = False
    if not kept:
        from kgtool.communities.graph import build_file_graph, file_graph

        folded = layer1.file_edges() if layer1 is not None else None
        if folded is not None:
            graph = file_graph(list(folded), folded, settings)
        else:
            if content is None:
                content = layer1.content if layer1 is not None else None
            if not content:
                content, _ = _layer1_on_disk(store)
            graph = build_file_graph(raw_graph.read_raw(content), settings)
        # The cache key stays the settings as configured: the packages they resolve to are a
        # function of the raw graph, which the key holds already.
        if not packaged:
            packaged = with_packages(settings, root, graph.files, unread=unread)
        document, reclustered = compute(graph, packaged, previous(), rebaseline, families)
    outputs: dict[str, bytes] | Callable[[], dict[str, bytes]]
    if kept or document is None:
        outputs = kept_on_disk
        changed: list[str] = []
        data_digest = on_disk_digest
    else:
        data = pretty_json(document).encode("utf-8")
        outputs = {COMMUNITIES_FILE: data}
        data_digest = _digest(data)
        changed = [COMMUNITIES_FILE] if data_digest != on_disk_digest else []
        if write and changed:
            store.ensure()
            # Differs by its digest from what was there: no need to read that again.
            atomic_write(store.path(COMMUNITIES_FILE), data)
            stamp = file_stamp(where)  # the file this run wrote
    if write or not changed:
        # What is on disk now is exactly what this input makes: remember it for next time.
        new_key = _input_key(raw_digest, keyed, data_digest)
        if document_key:
            document_key = _document_key(folded_digest, {**keyed, **packaged}, data_digest)
        _remember(store, new_key, document_key, data_digest, remembered["packages"], stamp)
    result = CommunitiesResult(
        None if kept else document,
        outputs,
        changed,
        reclustered,
        time.perf_counter() - started,
        "" if kept or document is None else what_changed(previous(), document),
        data_digest,
    )
    result.unread = unread
    return result


def _layer1_on_disk(store: Store) -> tuple[bytes, str]:
    """Layer 1 as .kg/raw/ holds it, and a digest for the cache's key."""
    on_disk = raw_graph.load(store)
    if on_disk is None:
        raise KgError(f"{raw_graph.WHERE} does not exist yet: run `kgtool update`")
    if on_disk.data is None:
        raise on_disk.damaged()
    return on_disk.data, raw_graph.digest_on_disk(store)


def _digest(data: bytes | None) -> bytes:
    """The sha256 of communities.json's bytes (of none: of b"") that the keys are made of."""
    return hashlib.sha256(data or b"").digest()


def _input_key(raw_digest: str, settings: dict[str, Any], document: bytes) -> str:
    """``document``: the ``_digest`` of the document on disk."""
    hasher = hashlib.sha256(f"format {FORMAT_VERSION} {RULES}".encode())
    hasher.update(raw_digest.encode())
    hasher.update(hashlib.sha256(canonical_json(settings).encode()).digest())
    hasher.update(document)
    return hasher.hexdigest()


def _document_key(edges: bytes, settings: dict[str, Any], document: bytes) -> str:
    """What the document is a function of, when the file graph is built from folded edges
    (named by layer 1's digest of them): those edges, the settings, and the document it
    starts from (its ``_digest``)."""
    hasher = hashlib.sha256(f"document {FORMAT_VERSION} {RULES}".encode())
    for part in (edges, canonical_json(settings).encode()):
        hasher.update(hashlib.sha256(part).digest())
    hasher.update(document)
    return hasher.hexdigest()


def _record(store: Store) -> dict[str, Any]:
    """What the last run that wrote layer 2 remembered (see ``_remember``); {} when nothing."""
    return store.cached_record(CACHE_KEY_FILE)


def _remember(
    store: Store,
    key: str,
    document_key: str,
    written: bytes,
    packages: Any,
    stamp: list[int],
) -> None:
    """``written``: the ``_digest`` of communities.json as this run left it; ``stamp``: the
    file's stamp when it held those bytes (taken before reading it, or right after writing
    it; [] when it changed while read): the same stamp next time, and it is that file,
    unread. Not one taken now: a checkout may have replaced the file since."""
    digests = {COMMUNITIES_FILE: written.hex()}
    record = {"key": key, "document": document_key, "outputs": digests, "packages": packages}
    record["stamp"] = stamp
    store.keep_record(CACHE_KEY_FILE, record)


__all__ = [
    "COMMUNITIES_FILE",
    "CommunitiesResult",
    "Layer1",
    "compute",
    "format_id",
    "parse_document",
    "update_communities",
]
