"""Tables the repository index builds once per resolution pass and keeps in its memo
(``RepoIndex.memo``): the arguments passed to each called name, the subclasses of each class,
a file's parameters and its arguments by call site."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from kgtool.raw.languages import language_named
from kgtool.raw.model import (
    ARGUMENT,
    DECORATED,
    PARAMETER,
    AssignFact,
    FileFacts,
    Symbol,
    called_name,
    symbol_id,
)


class RepoIndex(Protocol):
    """What these tables read of ``kgtool.raw.index.RepoIndex`` (which imports them)."""

    @property
    def facts(self) -> Mapping[str, FileFacts]: ...

    @property
    def symbols(self) -> Mapping[str, dict[str, Symbol]]: ...

    def full_facts(self, path: str) -> FileFacts: ...

    def bases_of(self, class_id: str) -> list[str]: ...


def all_arguments(index: RepoIndex) -> dict[str, list[tuple[str, AssignFact]]]:
    return arguments_in(index, sorted(index.facts))


def arguments_in(index: RepoIndex, paths: Iterable[str]) -> dict[str, list[tuple[str, AssignFact]]]:
    """The arguments passed and decorators applied in ``paths``, by the called name."""
    table: dict[str, list[tuple[str, AssignFact]]] = {}
    for path in paths:
        for assign in index.full_facts(path).assigns:
            if assign.kind == ARGUMENT:
                name = called_name(assign)
            elif assign.kind == DECORATED:
                name = assign.callee.rpartition(".")[2]
            else:
                continue
            table.setdefault(name, []).append((path, assign))
    return table


def subclasses(index: RepoIndex) -> dict[str, list[str]]:
    """Class ID -> the classes (and interfaces) that extend or implement it, directly; for the
    languages that list the implementations of declared members (``dispatch_declared``)."""
    table: dict[str, list[str]] = {}
    for path in sorted(index.facts):
        facts = index.facts[path]
        if not facts.bases or not language_named(facts.language).dispatch_declared:
            continue
        for owner in sorted({base.owner for base in facts.bases}):
            if owner in index.symbols[path]:
                class_id = symbol_id(path, owner)
                for base in index.bases_of(class_id):
                    table.setdefault(base, []).append(class_id)
    return table


def parameters_of(index: RepoIndex, path: str) -> frozenset[tuple[str, str]]:
    """(function, parameter) of a file's parameters that its facts state."""
    assigns = index.full_facts(path).assigns
    return frozenset((a.scope, a.var) for a in assigns if a.kind == PARAMETER)


def arguments_at(index: RepoIndex, path: str) -> dict[tuple[int, str], list[AssignFact]]:
    """A file's arguments passed by name, by the line and scope of their call."""
    table: dict[tuple[int, str], list[AssignFact]] = {}
    for assign in index.full_facts(path).assigns:
        if assign.kind == ARGUMENT:
            table.setdefault((assign.line, assign.scope), []).append(assign)
    return table
