"""Which symbols a recurring task's changes touched, file by file: what its steps name.

For the newest changes of a pattern, each key file is read as the change left it and parsed
as layer 1 parses it; a symbol counts as touched by the change when a line the change wrote
lies in it (the innermost such symbol: a method, not its class). What most changes touched
is what a step names, as ``file::Qualname`` when the symbol still exists at HEAD.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import NamedTuple

from kgtool.raw.languages import language_for_path
from kgtool.repo import changed_lines, show_file

SAMPLED_CHANGES = 6  # the newest changes of a pattern read (each costs a diff and a parse)
MAX_BYTES = 1_000_000


class Touched(NamedTuple):
    qualname: str
    changes: int  # of the changes read, how many wrote lines in it


def touched_symbols(
    root: Path, changes: list[tuple[str, str]], most: int = 3
) -> list[Touched]:
    """The symbols of a file that ``changes`` (commit, the file's path in it) wrote lines
    in, most often first (then by name); at most ``most``."""
    counts: Counter[str] = Counter()
    for commit, path in changes[:SAMPLED_CHANGES]:
        counts.update(set(_touched(root, commit, path)))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [Touched(name, count) for name, count in ranked[:most]]


def _touched(root: Path, commit: str, path: str) -> list[str]:
    language = language_for_path(path)
    if language is None or hasattr(language, "manifest_name"):
        return []
    ranges = changed_lines(root, commit, [path]).get(path, [])
    if not ranges:
        return []
    source = show_file(root, commit, path)
    if source is None or len(source) > MAX_BYTES or b"\0" in source[:8000]:
        return []
    try:
        facts = language.extract(path, source)
    except (RecursionError, ValueError, UnicodeDecodeError):
        return []
    found = []
    for first, last in ranges:
        holding = [s for s in facts.symbols if s.start_line <= last and first <= s.end_line]
        # The innermost: a method rather than its class, each function a hunk spans.
        found += [
            s.qualname
            for s in holding
            if not any(
                o is not s and s.start_line <= o.start_line and o.end_line <= s.end_line
                for o in holding
            )
        ]
    return found
