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
from pathlib import Path
from typing import NamedTuple

from kgtool.playbook.layer1 import Layer1
from kgtool.playbook.parse import outside_repository

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


class Resolver:
    def __init__(self, view: Layer1, root: Path) -> None:
        self.view = view
        self.root = root
        self._by_name: dict[str, list[str]] | None = None
        self._folders: set[str] | None = None

    def _candidates(self, path: str) -> list[str]:
        if self._by_name is None:
            self._by_name = {}
            for file in sorted(self.view.files):
                self._by_name.setdefault(posixpath.basename(file), []).append(file)
        tail = "/" + path
        return [f for f in self._by_name.get(posixpath.basename(path), []) if f.endswith(tail)]

    def _is_folder(self, path: str) -> bool:
        if self._folders is None:
            self._folders = set()
            for file in self.view.files:
                parent = posixpath.dirname(file)
                while parent and parent not in self._folders:
                    self._folders.add(parent)
                    parent = posixpath.dirname(parent)
        return path in self._folders

    def resolve(self, pointer: str) -> Resolution:
        path, symbol = split_pointer(pointer.strip())
        if "::" in pointer and not symbol:
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
        if outside_repository(self.root, path):
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
            if outside_repository(self.root, path):
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
        return Resolution(pointer, MISSING, symbol=symbol)
