"""Layer 1's summary (the counts `kgtool update` prints: files, symbols, edges by type and
tier, unresolved calls) and the digest of every file's folded edges, patched from the files an
update changed instead of recounted over every file."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

from kgtool.raw.cache import CachedFiles
from kgtool.raw.model import PARSE_PARTIAL

# The digest of every file's folded edges is a sum of one term per file, modulo this: an
# update takes the terms of the files it changed out and puts their new ones in.
EDGES_DIGEST_MODULUS = 1 << 256


# The summary's digest of the list of files (see ``paths_digest``).
PATHS_DIGEST = "paths_digest"


def summarize(files: CachedFiles) -> dict[str, Any]:
    """The numbers ``kgtool update`` prints, kept in the manifest for the no-change path."""
    summary = patched_summary(
        summary_of(0, Counter(), 0, [], [], 0, [], 0),
        len(files),
        {},
        {path: contribution(files, path) for path in sorted(files)},
    )
    summary[PATHS_DIGEST] = paths_digest(files.keys())
    return summary


def paths_digest(paths: Iterable[str]) -> str:
    """The sha256 of the files' paths, sorted, each after a NUL but the first: what layer 2
    knows the list of files by. Made again only when an update adds or removes a file."""
    joined = "\0".join(sorted(paths))
    return hashlib.sha256(joined.encode("utf-8", "surrogateescape")).hexdigest()


class Contribution(NamedTuple):
    """What one file adds to the summary."""

    edges: Counter[tuple[str, str]]
    symbols: int
    unresolved_calls: int
    skipped: tuple[tuple[str, str], ...]  # (path, reason), none or one
    partial: tuple[tuple[str, tuple[int, ...], str], ...]  # none or one
    broken_imports: tuple[tuple[str, int, str], ...]
    edges_term: int  # see ``edges_term``


def edges_term(path: str, file_edges_digest: bytes) -> int:
    """A file's term of the digest of every file's folded edges: a hash of its path and of
    its edges' digest (``cache.edges_digest``)."""
    term = hashlib.blake2b(path.encode("utf-8", "surrogateescape") + b"\0", digest_size=32)
    term.update(file_edges_digest)
    return int.from_bytes(term.digest(), "big")


def contribution(files: CachedFiles, path: str) -> Contribution:
    entry = files[path]
    facts = entry.facts
    status = facts.status
    return Contribution(
        Counter(entry.edge_counts),
        len(facts.symbols),
        entry.unresolved_calls,
        ((path, status.removeprefix("skipped:")),) if status.startswith("skipped:") else (),
        ((path, tuple(facts.error_lines), facts.partial),) if status == PARSE_PARTIAL else (),
        tuple((path, line, module) for line, module in entry.broken_imports),
        edges_term(path, files.head(path).file_edges_digest),
    )


def patched_summary(
    summary: dict[str, Any],
    files: int,
    before: dict[str, Contribution],
    after: dict[str, Contribution],
) -> dict[str, Any]:
    """``summary`` with what the files of ``before`` counted taken out and what those of
    ``after`` count put in: what ``summarize`` would give, from those files alone."""
    gone = before.keys() | after.keys()
    edges = Counter({(kind, tier): n for kind, tier, n in summary["edges"]})
    for part in before.values():
        edges.subtract(part.edges)
    for part in after.values():
        edges.update(part.edges)

    def merged(name: str) -> list[Any]:
        kept = [item for item in summary[name] if item[0] not in gone]
        new = [item for part in after.values() for item in getattr(part, name)]
        # By path, each file's own in its order: the order of a summary of every file.
        return sorted(kept + new, key=lambda item: item[0])

    return summary_of(
        files,
        +edges,
        summary["symbols"]
        - sum(p.symbols for p in before.values())
        + sum(p.symbols for p in after.values()),
        merged("skipped"),
        merged("partial"),
        summary["unresolved_calls"]
        - sum(p.unresolved_calls for p in before.values())
        + sum(p.unresolved_calls for p in after.values()),
        merged("broken_imports"),
        (
            int(summary["edges_digest"], 16)
            - sum(p.edges_term for p in before.values())
            + sum(p.edges_term for p in after.values())
        )
        % EDGES_DIGEST_MODULUS,
    )


def summary_of(
    files: int,
    edges: Counter[tuple[str, str]],
    symbols: int,
    skipped: list[Any],
    partial: list[Any],
    unresolved_calls: int,
    broken_imports: list[Any],
    edges_digest: int,
) -> dict[str, Any]:
    return {
        "files": files,
        "symbols": symbols,
        "edges": tuple((kind, tier, n) for (kind, tier), n in sorted(edges.items())),
        "skipped": tuple(tuple(item) for item in skipped),
        "partial": tuple(tuple(item) for item in partial),
        "unresolved_calls": unresolved_calls,
        "broken_imports": tuple(tuple(item) for item in broken_imports),
        "edges_digest": f"{edges_digest:064x}",
    }
