"""Top-level variables read from other files: ``import { store } from './store'`` reads the
``store`` that file assigns at its top level (through imports and re-exports), so that
``store.save()`` is typed by what ``store`` holds and ``ops.create()`` binds the function an
object literal names for ``create``.

Functions of the repository index (``kgtool.raw.index.RepoIndex``), kept apart as
``index_tables`` is: they read the index, and the index calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from kgtool.raw.languages import language_named
from kgtool.raw.languages.base import CALL_RESULT, UNBINDABLE, Language, ModuleTarget
from kgtool.raw.model import (
    MAX_LOOKUP_DEPTH,
    RETURNS,
    STATED,
    AssignFact,
    FileFacts,
    imports_binding,
    symbol_parts,
)

T = TypeVar("T")


class Bound(Protocol):
    """What ``kgtool.raw.index.Bound`` tells these functions."""

    @property
    def kind(self) -> str: ...

    @property
    def symbol(self) -> str: ...


class RepoIndex(Protocol):
    """What these functions read of ``kgtool.raw.index.RepoIndex``."""

    @property
    def facts(self) -> Mapping[str, FileFacts]: ...

    def assigns_of(self, path: str) -> dict[str, list[AssignFact]]: ...

    def module(self, language: Language, module: str, importer: str) -> ModuleTarget: ...

    def memo(self, key: str, build: Callable[[Any], T]) -> T: ...

    def callable_of(self, path: str, scope: str, dotted: str, depth: int = 0) -> Bound | None: ...


def top_level_assigns(index: RepoIndex, path: str, var: str) -> list[AssignFact]:
    """The assignments to ``var`` at the top level of ``path``."""
    return [a for a in index.assigns_of(path).get(var, ()) if not a.scope]


def defining_value(
    index: RepoIndex, path: str, name: str, depth: int = 0
) -> tuple[str, str] | None:
    """(file, its name there) of the top-level variable that ``name`` reads at the top level
    of ``path``: assigned there, else imported (through re-exports); None when it is not one
    (a function, a class, a module, a package's value)."""
    if depth > MAX_LOOKUP_DEPTH:
        return None
    table: dict[tuple[str, str], tuple[str, str] | None]
    table = index.memo("values:defining", lambda _: {})
    key = (path, name)
    if key not in table:
        table[key] = None  # an import cycle reads nothing
        table[key] = _defining(index, path, name, depth)
    return table[key]


def _top_level_heads(index: RepoIndex, path: str) -> frozenset[str]:
    """The variables a file assigns at its top level, or whose members it assigns there
    (``ops`` of ``const ops = { create }``)."""
    table: dict[str, frozenset[str]] = index.memo("values:heads", lambda _: {})
    if path not in table:
        table[path] = frozenset(
            var.partition(".")[0]
            for var, assigns in index.assigns_of(path).items()
            if any(not a.scope for a in assigns)
        )
    return table[path]


def _defining(index: RepoIndex, path: str, name: str, depth: int) -> tuple[str, str] | None:
    facts = index.facts.get(path)
    if facts is None or not facts.language:
        return None
    if name in _top_level_heads(index, path):
        return path, name
    language = language_named(facts.language)
    named, stars = imports_binding(facts.imports, name)
    for imp in named:
        if imp.name:  # a member imported or exported by name; a whole module holds no value
            for file in index.module(language, imp.module, path).files:
                found = defining_value(index, file, imp.name, depth + 1)
                if found is not None:
                    return found
            return None
    for imp in stars:  # ``export * from './ops'``: what that module defines, if not here
        for file in index.module(language, imp.module, path).files:
            if file != path:
                found = defining_value(index, file, name, depth + 1)
                if found is not None:
                    return found
    return None


def returned_member(
    index: RepoIndex, path: str, scope: str, call: str, member: str, depth: int
) -> tuple[str, list[AssignFact]] | None:
    """What the result of ``call`` (``create()``) holds under ``member``, when the function
    returns an object literal naming it (``return { session }``) and declares no type of its
    result: (the function's file, the assignments stating it); None when no such literal is
    known, or a declared type says what the members are (as a type checker reads them)."""
    if not call.endswith(CALL_RESULT):
        return None
    function = index.callable_of(path, scope, call[: -len(CALL_RESULT)], depth + 1)
    if function is None or function.kind != "symbol":
        return None
    where, qualname = symbol_parts(function.symbol)
    if where not in index.facts:
        return None
    table = index.assigns_of(where)
    if any(
        a.scope == qualname and a.kind == STATED and a.callee != UNBINDABLE
        for a in table.get(RETURNS, ())
    ):
        return None  # a declared return type is what the compiler reads members from
    assigns = [a for a in table.get(f"{RETURNS}.{member}", ()) if a.scope == qualname]
    return (where, assigns) if assigns else None
