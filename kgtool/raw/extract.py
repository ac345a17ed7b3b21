"""Reading and parsing files into facts, on every core when there are many."""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from sys import intern
from typing import Any, NamedTuple

from kgtool import progress
from kgtool.raw.languages import language_for_path
from kgtool.raw.languages.base import CALL_RESULT, RAISED
from kgtool.raw.model import (
    ARGUMENT,
    MODULE_SEPARATORS,
    PARAMETER,
    PARSE_PARTIAL,
    PARSE_TEXT,
    PARTIAL_TOO_DEEP,
    SKIP_BINARY,
    SKIP_TOO_LARGE,
    SKIP_UNDECODABLE,
    SKIP_UNREADABLE,
    FileFacts,
    called_name,
    line_count,
    packed_body,
)

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 64
# Parsing chunks per worker: enough that the last ones are small (see balanced_chunks).
CHUNKS_PER_WORKER = 16
# What opening, sniffing and setting up a file's parse costs, as bytes parsed would.
FILE_COST_BYTES = 1024
BINARY_SNIFF_BYTES = 8192


class Parsed(NamedTuple):
    """What parsing files gives, by path: their facts, the names each mentions, and the
    calls and assignments of files parsed by workers, held back as the cache stores them
    (``CachedFile.body``): a full build's were half of its memory, and a file's are read
    only while it, or a file passing values to it, is resolved."""

    facts: dict[str, FileFacts]
    mentions: dict[str, tuple[str, ...]]
    bodies: dict[str, bytes]


def extract_file(root: Path, path: str, max_bytes: int) -> FileFacts:
    """The facts of one file; never raises for what the file contains."""
    full = root / path
    try:
        if full.is_symlink() or not full.is_file():
            return FileFacts(path, "", SKIP_UNREADABLE)
        size = full.stat().st_size
        if size > max_bytes:
            return FileFacts(path, "", SKIP_TOO_LARGE)
        source = full.read_bytes()
    except OSError:
        return FileFacts(path, "", SKIP_UNREADABLE)
    if b"\0" in source[:BINARY_SNIFF_BYTES]:
        return FileFacts(path, "", SKIP_BINARY)
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return FileFacts(path, "", SKIP_UNDECODABLE)
    language = language_for_path(path)
    if language is None:
        return FileFacts(path, "", PARSE_TEXT, line_count=line_count(source))
    try:
        return language.extract(path, source)
    except RecursionError:
        # A construct nested past Python's stack in a language's own rules (a type of types of
        # types...): the file keeps its node, marked partial for the same reason as the depth
        # guard in ``Language.extract``.
        facts = FileFacts(path, language.name, PARSE_PARTIAL, line_count=line_count(source))
        facts.partial = PARTIAL_TOO_DEEP
        return facts


def _cost(path: str, max_bytes: int) -> int:
    """What a file costs to read and parse, about, in bytes: its size and a fixed part (a
    file too large to parse, or no file, only the fixed part)."""
    try:
        size = os.lstat(path).st_size
    except OSError:
        size = 0
    return FILE_COST_BYTES + (size if size <= max_bytes else 0)


def mentions(facts: FileFacts) -> tuple[str, ...]:
    """Every name a file's resolution depends on, sorted."""
    names: set[str] = set()
    for imp in facts.imports:
        names.update(filter(None, MODULE_SEPARATORS.split(imp.module)))
        names.add(imp.name)
    for call in facts.calls:
        names.add(call.name)
        # ``raise A`` mentions A; ``make()()`` make (``a.make()()``: a and make).
        names.update(call.name.removesuffix(RAISED).replace(CALL_RESULT, "").split("."))
        names.update(call.receiver.replace(CALL_RESULT, "").split("."))
    for base in facts.bases:
        names.update(base.base.split("."))
    for assign in facts.assigns:
        names.update(assign.callee.split("."))
        if assign.kind == ARGUMENT:
            # Read when the called function's parameters are: see RepoIndex._arguments.
            names.add(called_name(assign))
        elif assign.kind == PARAMETER:
            # What a parameter holds is what the function's callers pass (``__init__``'s: the
            # class's callers).
            names.update(assign.scope.split("."))
    return tuple(sorted(names))


def _extract_chunk(args: tuple[str, list[str], int]) -> bytes:
    # Plain tuples through marshal: pickling named tuples cost more than parsing them. The
    # names a file mentions are gathered here too, on every core, and interned as its facts'.
    root, paths, max_bytes = args
    records = []
    for path in paths:
        facts = extract_file(Path(root), path, max_bytes)
        record = _shared_strings(facts.to_json())
        record["mentions"] = tuple(map(intern, mentions(facts)))
        record["body"] = packed_body(record["calls"], record["assigns"])
        record["calls"] = record["assigns"] = ()
        records.append(record)
    return marshal.dumps(records)


def _shared_strings(facts: dict[str, Any]) -> dict[str, Any]:
    """The facts with their names interned: marshal carries that over, so the main process
    holds one "this", "string" or "log" for the whole repository, not one per call (a
    quarter of a full build's memory at 10k files)."""
    # Field by field as each fact lays them out (a line, then strings; a call's flag last):
    # a generator testing the type of every value cost half of what parsing to facts did.
    facts["imports"] = [
        (line, intern(module), intern(name), intern(alias), reexport)
        for line, module, name, alias, reexport in facts["imports"]
    ]
    facts["calls"] = [
        (line, intern(caller), intern(name), intern(receiver), is_new)
        for line, caller, name, receiver, is_new in facts["calls"]
    ]
    facts["bases"] = [(line, intern(owner), intern(base)) for line, owner, base in facts["bases"]]
    facts["assigns"] = [
        (line, intern(scope), intern(var), intern(callee), intern(kind))
        for line, scope, var, callee, kind in facts["assigns"]
    ]
    return facts


def extract_files(root: Path, paths: list[str], max_bytes: int, jobs: int) -> Parsed:
    """Facts and mentions per path, in path order; the result does not depend on ``jobs`` or
    on the order of ``paths``."""
    workers = jobs or os.cpu_count() or 1
    results: dict[str, FileFacts] = {}
    mentioned: dict[str, tuple[str, ...]] = {}
    bodies: dict[str, bytes] = {}
    with progress.counting("parsing", len(paths)) as counter:
        if workers <= 1 or len(paths) < PARALLEL_THRESHOLD:
            for path in sorted(paths):
                results[path] = extract_file(root, path, max_bytes)
                mentioned[path] = mentions(results[path])
                counter.advance()
            return Parsed(results, mentioned, bodies)
        # Imported here: multiprocessing is 13 ms of imports an edit of a few files never uses.
        from concurrent.futures import as_completed

        from kgtool.raw.pool import balanced_chunks, worker_pool

        folder = os.fspath(root)
        sizes = {path: _cost(os.path.join(folder, path), max_bytes) for path in paths}
        chunks = balanced_chunks(paths, sizes.__getitem__, workers * CHUNKS_PER_WORKER)
        with worker_pool(workers) as pool:
            futures = [pool.submit(_extract_chunk, (str(root), c, max_bytes)) for c in chunks]
            for future in as_completed(futures):  # decoded as they come, not in order
                records = marshal.loads(future.result())
                for record in records:
                    results[record["path"]] = FileFacts.from_json(record)
                    mentioned[record["path"]] = record["mentions"]
                    bodies[record["path"]] = record["body"]
                counter.advance(len(records))
    ordered = sorted(results)  # not in the order they came
    return Parsed({p: results[p] for p in ordered}, {p: mentioned[p] for p in ordered}, bodies)
