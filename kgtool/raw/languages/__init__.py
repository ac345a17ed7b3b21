"""The languages kgtool parses: one module and one query file each.

To add a language, write ``<name>.py`` with a ``Language`` subclass and ``<name>.scm`` with its
query, then list the class in ``LANGUAGES`` (see playbooks/add-a-language.md).
"""

from __future__ import annotations

import functools
import posixpath

from kgtool.raw.languages.base import Language
from kgtool.raw.languages.go import Go, GoMod
from kgtool.raw.languages.java import Java
from kgtool.raw.languages.javascript import JavaScript
from kgtool.raw.languages.npm import NpmManifest
from kgtool.raw.languages.python import Python
from kgtool.raw.languages.rust import Rust
from kgtool.raw.languages.typescript import Tsx, TypeScript

LANGUAGES: tuple[type[Language], ...] = (
    Python,
    Go,
    GoMod,
    Java,
    Rust,
    JavaScript,
    TypeScript,
    Tsx,
    NpmManifest,
)


@functools.cache
def _by_name() -> dict[str, Language]:
    return {cls.name: cls() for cls in LANGUAGES}


@functools.cache
def _by_extension() -> dict[str, Language]:
    table: dict[str, Language] = {}
    for language in _by_name().values():
        for extension in language.extensions:
            table[extension] = language
    return table


def language_named(name: str) -> Language:
    return _by_name()[name]


def language_for_path(path: str) -> Language | None:
    """The language of a file by its extension; None for files kgtool keeps as text only."""
    name = posixpath.basename(path)
    for dot in range(len(name)):
        if name[dot] == "." and dot > 0:
            found = _by_extension().get(name[dot:].lower())
            if found is not None:
                return found
    return None
