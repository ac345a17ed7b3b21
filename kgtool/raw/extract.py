"""Reading and parsing files into facts, on every core when there are many."""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from sys import intern
from typing import Any

from kgtool import progress
from kgtool.raw.languages import language_for_path
from kgtool.raw.model import (
    PARSE_PARTIAL,
    PARSE_TEXT,
    PARTIAL_TOO_DEEP,
    SKIP_BINARY,
    SKIP_TOO_LARGE,
    SKIP_UNDECODABLE,
    SKIP_UNREADABLE,
    FileFacts,
    line_count,
)

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 64
BINARY_SNIFF_BYTES = 8192
SHARED_FIELDS = ("imports", "calls", "bases", "assigns")


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


def _extract_chunk(args: tuple[str, list[str], int]) -> bytes:
    # Plain tuples through marshal: pickling named tuples cost more than parsing them.
    root, paths, max_bytes = args
    return marshal.dumps(
        [_shared_strings(extract_file(Path(root), path, max_bytes).to_json()) for path in paths]
    )


def _shared_strings(facts: dict[str, Any]) -> dict[str, Any]:
    """The facts with their names interned: marshal carries that over, so the main process
    holds one "this", "string" or "log" for the whole repository, not one per call (a
    quarter of a full build's memory at 10k files)."""
    for key in SHARED_FIELDS:
        facts[key] = [
            tuple(intern(v) if type(v) is str else v for v in item) for item in facts[key]
        ]
    return facts


def extract_files(root: Path, paths: list[str], max_bytes: int, jobs: int) -> dict[str, FileFacts]:
    """Facts per path; the result does not depend on ``jobs`` or on the order of ``paths``."""
    workers = jobs or os.cpu_count() or 1
    results: dict[str, FileFacts] = {}
    with progress.counting("parsing", len(paths)) as counter:
        if workers <= 1 or len(paths) < PARALLEL_THRESHOLD:
            for path in paths:
                results[path] = extract_file(root, path, max_bytes)
                counter.advance()
            return results
        ordered = sorted(paths)
        # Interleave so that each chunk gets a fair share of large and small files.
        chunk_count = workers * 4
        chunks = [ordered[i::chunk_count] for i in range(chunk_count)]
        # Imported here: multiprocessing is 13 ms of imports an edit of a few files never uses.
        from kgtool.raw.pool import worker_pool

        with worker_pool(workers) as pool:
            for data in pool.map(_extract_chunk, [(str(root), c, max_bytes) for c in chunks]):
                records = marshal.loads(data)
                for record in records:
                    results[record["path"]] = FileFacts.from_json(record)
                counter.advance(len(records))
    return results
