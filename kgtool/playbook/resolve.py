"""One pointer, one outcome: ``exact``, ``unique-suffix``, ``ambiguous``, ``missing``, ``invalid``.

A pointer is a layer-1 ID (``path`` or ``path::Symbol``) whose path may be shortened to a bare
file name or a path suffix, as long as exactly one file in the graph ends with it at a folder
boundary. ``invalid`` is for pointers that could never resolve as written (absolute, ``..``,
outside the repository, a folder, a file git does not track); ``missing`` is for pointers that
could, but name nothing that exists now: those get suggestions.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from kgtool.playbook.layer1 import Layer1, SymbolIndex
from kgtool.playbook.parse import outside_repository
from kgtool.raw.graph import split_node_id

EXACT = "exact"
UNIQUE_SUFFIX = "unique-suffix"
AMBIGUOUS = "ambiguous"
MISSING = "missing"
INVALID = "invalid"
RESOLVED = (EXACT, UNIQUE_SUFFIX)

MAX_CANDIDATES_SHOWN = 8
OUTSIDE_BY_SYMLINK = "it leads outside the repository (a symlink)"
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_PATTERN_CHARS = set("*?[]<>{}")


class Resolution(NamedTuple):
    pointer: str
    outcome: str
    target: str = ""  # the layer-1 node ID it resolves to
    candidates: tuple[str, ...] = ()  # for ambiguous
    reason: str = ""  # why it is invalid or what exactly is missing
    path: str = ""  # the file the path part resolved to, even when its symbol is missing
    symbol: str = ""
    written_path: str = ""  # for a missing file, its path as the pointer was read

    @property
    def resolved(self) -> bool:
        return self.outcome in RESOLVED


def split_pointer(pointer: str) -> tuple[str, str]:
    path, _, symbol = pointer.partition("::")
    return path, symbol


def invalid_reason(path: str) -> str:
    """Why ``path`` can never name a repository file as written; "" when it could."""
    if not path:
        return "it has no path"
    if path.startswith(("/", "~")) or _DRIVE.match(path):
        return "it is an absolute path; write it relative to the repository root"
    if "\\" in path:
        return "it uses '\\'; repository paths use '/'"
    if any(char in _PATTERN_CHARS for char in path):
        return "it is a pattern; a pointer names one file"
    parts = path.split("/")
    if ".." in parts:
        depth = 0
        for part in parts:
            depth += -1 if part == ".." else 1
            if depth < 0:
                return "it points outside the repository ('..')"
        normal = posixpath.normpath(path)
        return f"it contains '..'; write it as {normal!r}"
    if path.endswith("/"):  # said before the spelling: 'write pkg/x' would lead to 'a folder'
        return "it names a folder (it ends with '/'); a pointer names one file"
    if any(part in ("", ".") for part in parts):
        normal = posixpath.normpath(path)
        return f"it is not written as git lists it; write {normal!r}"
    return ""


class SuffixIndex:
    """Paths by each of their suffixes that starts at a folder boundary: ``a/b/c.py`` is found
    by ``c.py``, ``b/c.py`` and ``a/b/c.py``.

    Filtering every path of the same name per lookup costs a pass over them per pointer (5,000
    ``__init__.py`` times 60,000 pointers); here a file name's suffixes are laid out once, on
    its first lookup, and each lookup after is one dict access.
    """

    __slots__ = ("_by_name", "_by_suffix")

    def __init__(self, paths: Iterable[str]) -> None:
        self._by_name: dict[str, list[str]] = {}
        for path in sorted(paths):
            self._by_name.setdefault(posixpath.basename(path), []).append(path)
        self._by_suffix: dict[str, dict[str, list[str]]] = {}

    @property
    def names(self) -> dict[str, list[str]]:
        """File name -> every path of that name, in order."""
        return self._by_name

    def ending_with(self, suffix: str) -> list[str]:
        """Every path equal to ``suffix`` or ending with ``/`` + ``suffix``, in order."""
        name = posixpath.basename(suffix)
        table = self._by_suffix.get(name)
        if table is None:
            table = {}
            for path in self._by_name.get(name, ()):
                parts = path.split("/")
                for start in range(len(parts)):
                    table.setdefault("/".join(parts[start:]), []).append(path)
            self._by_suffix[name] = table
        return table.get(suffix, [])


class Resolver:
    def __init__(self, view: Layer1, root: Path) -> None:
        self.view = view
        self.root = root
        self._suffixes: SuffixIndex | None = None
        self._folders: set[str] | None = None
        self._leads_out: dict[str, bool] = {}  # a few path lookups on disk, once a file
        self._longest = -1  # the longest tracked path, once a pointer holds '::'
        self._symbols: SymbolIndex | None = None

    def symbol_index(self) -> SymbolIndex:
        """Every symbol of the tree by qualname and bare name, built once per resolver."""
        if self._symbols is None:
            self._symbols = self.view.symbol_index()
        return self._symbols

    def _outside(self, path: str) -> bool:
        outside = self._leads_out.get(path)
        if outside is None:
            outside = self._leads_out[path] = outside_repository(self.root, path)
        return outside

    def _candidates(self, path: str) -> list[str]:
        if self._suffixes is None:
            self._suffixes = SuffixIndex(self.view.files)
        return [f for f in self._suffixes.ending_with(path) if f != path]

    def _is_folder(self, path: str) -> bool:
        if self._folders is None:
            self._folders = set()
            for file in self.view.files:
                parent = posixpath.dirname(file)
                while parent and parent not in self._folders:
                    self._folders.add(parent)
                    parent = posixpath.dirname(parent)
        return path in self._folders

    def split(self, pointer: str) -> tuple[str, str]:
        """The pointer's path and symbol. A file name may hold '::' (``a::b.py``): the path is
        the longest prefix before a '::' that is a tracked file, else the longest that ends
        one at a folder boundary, else the text up to the first '::'."""
        if "::" not in pointer:
            return pointer, ""
        if self._longest < 0:
            known = [*self.view.files, *self.view.tracked_elsewhere]
            self._longest = max(map(len, known), default=0)
        path, symbol = split_node_id(pointer, self._tracked, self._longest)
        if self._tracked(path):
            return path, symbol
        path, symbol = split_node_id(pointer, lambda p: bool(self._candidates(p)), self._longest)
        return path, symbol

    def _tracked(self, path: str) -> bool:
        return path in self.view.files or path in self.view.tracked_elsewhere

    def resolve(self, pointer: str) -> Resolution:
        written = pointer.strip()
        path, symbol = self.split(written)
        if path != written and not symbol:
            return Resolution(pointer, INVALID, reason="it has '::' but no symbol after it")
        reason = invalid_reason(path)
        if reason:
            return Resolution(pointer, INVALID, reason=reason, symbol=symbol)
        if path in self.view.files:
            return self._with_symbol(pointer, EXACT, path, symbol)
        if path in self.view.tracked_elsewhere:
            return Resolution(pointer, INVALID, reason=self.view.tracked_elsewhere[path])
        candidates = self._candidates(path)
        if len(candidates) == 1:
            return self._with_symbol(pointer, UNIQUE_SUFFIX, candidates[0], symbol)
        if len(candidates) > 1:
            if symbol:
                # "build.py::update_raw" is unambiguous when one build.py defines it.
                defining = [c for c in candidates if symbol in self.view.symbols(c)]
                if len(defining) == 1:
                    return self._with_symbol(pointer, UNIQUE_SUFFIX, defining[0], symbol)
                if defining:
                    candidates = defining
            return Resolution(
                pointer,
                AMBIGUOUS,
                candidates=tuple(f"{c}::{symbol}" if symbol else c for c in candidates),
                symbol=symbol,
            )
        return self._absent(pointer, path, symbol)

    def _with_symbol(self, pointer: str, outcome: str, path: str, symbol: str) -> Resolution:
        # Tracked files can be symlinks: one that leads out must never read as a repository file.
        if self._outside(path):
            return Resolution(pointer, INVALID, reason=OUTSIDE_BY_SYMLINK)
        if not symbol:
            return Resolution(pointer, outcome, target=path, path=path)
        if symbol in self.view.symbols(path):
            return Resolution(pointer, outcome, f"{path}::{symbol}", path=path, symbol=symbol)
        return Resolution(
            pointer, MISSING, reason=f"{path} defines no '{symbol}'", path=path, symbol=symbol
        )

    def _absent(self, pointer: str, path: str, symbol: str) -> Resolution:
        """No tracked file matches: is it a folder, untracked, outside, or simply gone?"""
        if self._is_folder(path):
            return Resolution(pointer, INVALID, reason="it is a folder; a pointer names one file")
        full = self.root / path
        if os.path.lexists(full):
            if self._outside(path):
                return Resolution(pointer, INVALID, reason=OUTSIDE_BY_SYMLINK)
            if full.is_dir():
                return Resolution(
                    pointer, INVALID, reason="it is a folder; a pointer names one file"
                )
            return Resolution(
                pointer,
                INVALID,
                reason="it is not tracked by git (`git add` it, or it is ignored)",
            )
        return Resolution(pointer, MISSING, symbol=symbol, written_path=path)
