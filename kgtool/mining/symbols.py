"""Which symbols a recurring task's changes touched, file by file: what its steps name.

For the newest changes of a pattern, each key file is read as the change left it and parsed
as layer 1 parses it; a symbol counts as touched by the change when a line the change wrote
lies in it (the innermost such symbol: a method, not its class). What most changes touched
is what a step names, as ``file::Qualname`` when the symbol still exists at HEAD.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from kgtool.raw.languages import language_for_path
from kgtool.repo import changed_lines, show_file

SAMPLED_CHANGES = 6  # the newest changes of a pattern read (each costs a diff and a parse)
MAX_BYTES = 1_000_000


class Touched(NamedTuple):
    qualname: str  # the symbol edited; for symbols added, the newest one's
    changes: int  # of the changes read, how many edited it (or added one of the kind)
    added: str = ""  # for symbols added: their kind, and where ("method in Registry")
    what: str = ""  # for a symbol edited: what most of the changes wrote in it ("a case")


def _agreed(said: Counter[str], changes: int) -> str:
    """What more than half of the changes wrote in a symbol, when they agree."""
    best = sorted(((n, w) for w, n in said.items() if w), reverse=True)
    return best[0][1] if best and 2 * best[0][0] > changes else ""


class _Seen(NamedTuple):
    qualname: str
    kind: str
    parent: str
    new: bool  # every line of it was written by the change
    what: str = ""  # what the change wrote in it, when its lines say ("a case", "an entry")


# What lines a change wrote inside a symbol say it added, tried in order on each line.
_WHAT = (
    ("a case", re.compile(r"^\s*(case\b.*:|default\s*:|when\b)")),
    ("a union member", re.compile(r"^\s*\|\s*\S")),
    ("an entry", re.compile(r"""^\s*(["'][^"']+["']|[\w.$-]+)\s*[:=]\s*\S.*[,;]?\s*$""")),
)


class Reading(NamedTuple):
    touched: list[Touched]
    read: int  # how many of the changes could be read (the file there, parsed)


def touched_symbols(root: Path, changes: list[tuple[str, str]], most: int = 3) -> Reading:
    """What ``changes`` (commit, the file's path in it; newest first) did to a file's
    symbols, most often first: the symbols they edited, and the kinds of symbol they added
    ("a function", "a method in Registry"), each counted once per change; at most ``most``.
    A change that cannot be read (the file had another name then) is not counted."""
    edited: Counter[str] = Counter()
    wrote: dict[str, Counter[str]] = {}  # edited symbol -> what the changes wrote in it
    added: Counter[str] = Counter()
    example: dict[str, str] = {}
    read = 0
    for commit, path in changes[:SAMPLED_CHANGES]:
        seen = _touched(root, commit, path)
        if seen is None:
            continue
        read += 1
        edited.update({s.qualname for s in seen if not s.new})
        for symbol in seen:
            if not symbol.new:
                wrote.setdefault(symbol.qualname, Counter())[symbol.what] += 1
        new = [s for s in seen if s.new]
        for kind in {_kind_of(s) for s in new}:
            added[kind] += 1
            example.setdefault(kind, next(s.qualname for s in new if _kind_of(s) == kind))
    found = [
        Touched(name, count, "", _agreed(wrote.get(name, Counter()), count))
        for name, count in edited.items()
    ]
    found += [Touched(example[kind], count, kind) for kind, count in added.items()]
    found.sort(key=lambda t: (-t.changes, t.added, t.qualname))
    return Reading(found[:most], read)


def _what(lines: list[str], written: list[tuple[int, int]], start: int, end: int) -> str:
    """What the lines a change wrote between ``start`` and ``end`` add, when all of them say
    one thing (every written line a case, an entry...); "" otherwise."""
    said = [
        lines[number - 1]
        for first, last in written
        for number in range(max(first, start), min(last, end) + 1)
        if 0 < number <= len(lines) and lines[number - 1].strip()
    ]
    if not said:
        return ""
    for name, pattern in _WHAT:
        if all(pattern.match(line) for line in said):
            return name
    return ""


def _kind_of(seen: _Seen) -> str:
    return f"{seen.kind} in {seen.parent}" if seen.parent else seen.kind


def _touched(root: Path, commit: str, path: str) -> list[_Seen] | None:
    """The symbols the change wrote lines in; None when it cannot be read."""
    language = language_for_path(path)
    if language is None or hasattr(language, "manifest_name"):
        return None
    hunks = changed_lines(root, commit, path)
    if not hunks:
        return None
    source = show_file(root, commit, path, MAX_BYTES)
    if source is None or b"\0" in source[:8000]:
        return None
    try:
        facts = language.extract(path, source)
    except (RecursionError, ValueError, UnicodeDecodeError):
        return None
    found: dict[str, _Seen] = {}
    written = [(h.first, h.last) for h in hunks if h.wrote]
    lines = source.decode("utf-8", "replace").splitlines()
    for first, last, _ in hunks:
        holding = [s for s in facts.symbols if s.start_line <= last and first <= s.end_line]
        # The innermost: a method rather than its class, each function a hunk spans.
        for symbol in holding:
            if any(
                other is not symbol
                and symbol.start_line <= other.start_line
                and other.end_line <= symbol.end_line
                for other in holding
            ):
                continue
            # Written whole by the change (a deletion writes nothing: it adds no symbol).
            new = any(a <= symbol.start_line and symbol.end_line <= b for a, b in written)
            what = "" if new else _what(lines, written, symbol.start_line, symbol.end_line)
            found[symbol.qualname] = _Seen(symbol.qualname, symbol.kind, symbol.parent, new, what)
    return sorted(found.values())
