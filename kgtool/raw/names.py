"""The repository's symbols by bare name: every top-level symbol and every method by
(ecosystem, name), the candidates of a name bound by the name alone. Built once over every
file, kept between runs by the cache (as stored strings, split when first looked up), and
patched from the files an edit parsed again."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from kgtool.raw.languages import language_named
from kgtool.raw.model import MACHINE_MADE, TYPE_ALIAS, FileFacts, symbol_id

# Every top-level symbol and every method of the repository by (ecosystem, bare name): the
# candidates of a name bound by the name alone; IDs sorted. Kept between runs by the cache.
NameTable = dict[tuple[str, str], tuple[str, ...]]


# The same as the cache stores it: "ecosystem\0name" -> the IDs joined by "\0" (neither a
# name nor a path holds a NUL). A string per name loads in a third of the time a tuple of
# strings per name takes, and an edit looks up a few dozen names of the thousands.
StoredNameTable = dict[str, str]


class NameLookup:
    """A ``StoredNameTable`` read as a ``NameTable`` is (``get``) and patched: a name's IDs
    are split when it is first looked up. ``part_of`` gives the part of the table that holds
    a stored name (the cache keeps it in parts, read as they are asked for), ``changed`` is
    told of a part changed."""

    def __init__(
        self,
        part_of: Callable[[str], StoredNameTable],
        changed: Callable[[str], None] = lambda name: None,
    ) -> None:
        self._part_of = part_of
        self._changed = changed
        self._split: dict[str, tuple[str, ...]] = {}

    def get(self, key: tuple[str, str], default: Any = ()) -> Any:
        name = f"{key[0]}\0{key[1]}"
        ids = self._split.get(name)
        if ids is None:
            joined = self._part_of(name).get(name)
            if joined is None:
                return default
            ids = self._split[name] = tuple(joined.split("\0"))
        return ids

    def set_ids(self, key: tuple[str, str], ids: tuple[str, ...]) -> None:
        """The IDs of a name; none takes the name out."""
        name = f"{key[0]}\0{key[1]}"
        self._split.pop(name, None)
        part = self._part_of(name)
        if ids:
            part[name] = "\0".join(ids)
        else:
            part.pop(name, None)
        self._changed(name)


NameTables = tuple[NameTable, NameTable] | tuple[NameLookup, NameLookup]  # (top level, methods)


def stored_name_tables(
    tables: tuple[NameTable, NameTable],
) -> tuple[StoredNameTable, StoredNameTable]:
    """``tables`` as the cache stores them."""
    top_level, methods = (
        {f"{key[0]}\0{key[1]}": "\0".join(ids) for key, ids in table.items()} for table in tables
    )
    return top_level, methods


def _named_symbols(path: str, facts: FileFacts) -> Iterator[tuple[int, tuple[str, str], str]]:
    """(0 for top level or 1 for methods, key, symbol ID) of what a file adds to NameTables."""
    if not facts.symbols or MACHINE_MADE in facts.extra:
        # Minified, generated and vendored code defines names people's code only reaches
        # through imports: by the name alone, ``done()`` is a callback, not doom.js's done.
        return
    ecosystem = language_named(facts.language).ecosystem
    for symbol in facts.symbols:
        if symbol.kind == TYPE_ALIAS:  # named by imports and types only, never called
            continue
        if symbol.kind == "method":
            yield 1, (ecosystem, symbol.name), symbol_id(path, symbol.qualname)
        elif not symbol.parent:
            yield 0, (ecosystem, symbol.name), symbol_id(path, symbol.qualname)


def name_tables(facts: Mapping[str, FileFacts]) -> tuple[NameTable, NameTable]:
    gathered: tuple[dict[tuple[str, str], list[str]], ...] = ({}, {})
    for path in facts:
        for table, key, node_id in _named_symbols(path, facts[path]):
            gathered[table].setdefault(key, []).append(node_id)
    top_level, methods = ({key: tuple(sorted(ids)) for key, ids in t.items()} for t in gathered)
    return top_level, methods


def patch_name_tables(
    tables: tuple[NameLookup, NameLookup],
    before: Mapping[str, FileFacts | None],
    after: Mapping[str, FileFacts | None],
) -> None:
    """Take out of ``tables`` what the files of ``before`` added to them and put in what those
    of ``after`` add, in place: a name whose IDs did not change is not touched (nor is the
    part of the cache that holds it written again)."""
    before_items, after_items = (
        Counter(item for path, f in files.items() if f for item in _named_symbols(path, f))
        for files in (before, after)
    )
    # Only the names whose IDs change: an edit that adds one function reads and writes the
    # part of the tables that holds that name, not those of every name the file defines.
    removed, added = before_items - after_items, after_items - before_items
    touched: dict[tuple[int, tuple[str, str]], list[str]] = {}
    for table, key, _ in sorted(removed.keys() | added.keys()):
        if (table, key) not in touched:
            touched[(table, key)] = list(tables[table].get(key))
    for (table, key, node_id), count in removed.items():
        for _ in range(count):
            touched[(table, key)].remove(node_id)
    for (table, key, node_id), count in added.items():
        touched[(table, key)].extend([node_id] * count)
    for (table, key), ids in touched.items():
        tables[table].set_ids(key, tuple(sorted(ids)))


def files_by_language(languages: Mapping[str, str]) -> dict[str, list[str]]:
    """language -> its files, sorted, of path -> language."""
    grouped: dict[str, list[str]] = {}
    for path in sorted(languages):
        grouped.setdefault(languages[path], []).append(path)
    return grouped


def patched_by_language(
    grouped: dict[str, list[str]], before: dict[str, str], after: dict[str, str]
) -> dict[str, list[str]]:
    """``grouped`` (language -> its files, sorted) with the files of ``before`` (path ->
    language) taken out and those of ``after`` put in."""
    patched = {language: list(paths) for language, paths in grouped.items()}
    for path, language in before.items():
        paths = patched[language]
        del paths[bisect.bisect_left(paths, path)]
    for path, language in after.items():
        bisect.insort(patched.setdefault(language, []), path)
    return {language: paths for language, paths in sorted(patched.items()) if paths}
