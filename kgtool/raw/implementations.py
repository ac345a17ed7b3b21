"""Declared members and the methods implementing them: a call bound to an interface's method
(or an abstract one) may reach what each class below the receiver's defines under its name.

Functions of the repository index (``kgtool.raw.index.RepoIndex``), kept apart as
``index_tables`` is: they read the index, and the resolver calls them.
"""

from __future__ import annotations

from collections.abc import Iterable

from kgtool.raw.index import RepoIndex
from kgtool.raw.index_tables import subclasses
from kgtool.raw.languages.base import ABSTRACT
from kgtool.raw.model import symbol_parts


def declared_only(index: RepoIndex, member_id: str) -> bool:
    """Whether a method is declared without a body: an interface's, or an abstract one."""
    symbol = index.symbol(member_id)
    if symbol is None or symbol.kind != "method":
        return False
    path = symbol_parts(member_id)[0]
    owner = index.symbols[path].get(symbol.parent)
    if owner is not None and owner.kind == "interface":
        return True
    return f"{ABSTRACT}{symbol.qualname}" in index.facts[path].extra


def implementations(index: RepoIndex, classes: Iterable[str], name: str) -> list[str]:
    """The methods a call of a declared-only member on a value of one of ``classes`` may
    reach: what each class below them defines or inherits under ``name``, unless it is
    declared-only as well."""
    below = index.memo("subclasses", subclasses)
    found: set[str] = set()
    queue = sorted(classes)
    seen = set(queue)
    while queue:
        for class_id in below.get(queue.pop(), ()):
            if class_id in seen:
                continue
            seen.add(class_id)
            queue.append(class_id)
            method = index.find_method(class_id, name)
            if method is not None and not declared_only(index, method.symbol):
                found.add(method.symbol)
    return sorted(found)
