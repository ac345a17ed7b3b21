"""Paths as settings name them: gitignore-style globs (``exclude``, package ``boundaries``),
and whether a path git hands over can be written as an ID at all. A leaf module."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A gitignore-style glob: ``**`` spans folders, ``*`` and ``?`` stay inside one."""
    body = glob_body(pattern).rstrip("/")
    # A pattern without a slash matches at any depth, as in .gitignore; a folder covers its files.
    prefix = "" if "/" in pattern.rstrip("/") else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$")


def glob_body(pattern: str) -> str:
    """The regular expression of a glob, unanchored: ``**/`` is any number of folders, ``**``
    anything, ``*`` and ``?`` stay inside one folder."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def excluded(path: str, patterns: list[str]) -> bool:
    return exclusion(patterns)(path)


def exclusion(patterns: list[str]) -> Callable[[str], bool]:
    """Whether a path is one the ``exclude`` globs leave out: one regular expression for them
    all, made once (a run asks it of every tracked file)."""
    return _exclusion(tuple(patterns))


@functools.cache
def _exclusion(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    if not patterns:
        return lambda path: False
    either = re.compile("|".join(glob_regex(pattern).pattern for pattern in patterns))
    return lambda path: either.match(path) is not None


def valid_name(path: str) -> bool:
    """Whether a path (decoded from git with surrogateescape) is UTF-8, as every ID must be:
    .kg/ is UTF-8 JSON and a name that is not cannot be written there."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable_name(path: str) -> str:
    """A path whose bytes are not UTF-8, with those bytes shown as \\xNN."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
