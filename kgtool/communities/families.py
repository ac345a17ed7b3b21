"""Families: files of one folder that all derive from the same base.

Plugins, providers, handlers, commands: a folder of files that each subclass (or implement,
or extend) one base class defined in another file. Leiden sees a family poorly: its members
barely touch each other, each reaches the base and the base's helpers, so a large family is
scattered one member (and its test) at a time. Found here from layer 1's ``inherits`` edges
alone, families are named beside the communities (``families`` in communities.json, a
section of MAP.md), never moving a file: made one community each, they cut communities that
change together (bench/results/families.md).

Only inheritance defines the shape. Imports and calls were measured as a signal and fire on
ordinary folders: most test folders import the same helpers, most modules of a package call
the same utility (a translation function, a logger), which is coupling, not a shape.

A file derives from a base when it inherits it, or inherits a symbol whose file derives from
it (layer 2 sees edges per file, so a file's classes share their bases). A family is a folder
and the file defining its bases, with at least ``family_min_size`` derived files directly in
the folder, and those at least half the folder's code; files under the folder that derive
from the same file's bases join it (a plugin that is a package), and so does that file when
it lies under the folder. The family is named after the base most members derive from, in the
most specific file that still covers most of them (``NotifyBase``, not the ``URLBase`` it
derives from). Tests join the member they target (see ``_with_tests``). A file is in at most
one family, tests never found one, and a family never crosses a package boundary.
Everything is sorted: the same graph, the same families.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any, NamedTuple

from kgtool.communities.graph import FileGraph
from kgtool.communities.identity import id_number
from kgtool.communities.packages import is_code
from kgtool.file_kinds import is_test
from kgtool.raw.model import symbol_parts

# A more specific base names the family when it covers this share of the broader base's files.
SPECIFIC_SHARE = 0.8
# A family's files directly in its folder are at least this share of the folder's own files.
MAJORITY = 0.5


class Family(NamedTuple):
    folder: str
    base: str  # the base symbol's layer-1 ID, "path::Name"
    members: tuple[str, ...]  # sorted: the derived files, and the base's file if under folder
    tests: tuple[str, ...]  # sorted: tests that each target one member (see ``_with_tests``)

    @property
    def name(self) -> str:
        return f"{self.folder or '.'}: {self.base.split('::', 1)[1]}"

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(sorted((*self.members, *self.tests)))


def families_enabled(settings: dict[str, Any]) -> bool:
    enabled: bool = settings.get("families", "off") == "auto"
    return enabled


def find_families(graph: FileGraph, settings: dict[str, Any], package_of: Any) -> list[Family]:
    """The families of ``graph`` (see the module's docstring), sorted by folder then base.

    ``package_of`` maps a path to its package root, so no family spans two packages.
    """
    if not families_enabled(settings):
        return []
    minimum = int(settings["family_min_size"])
    code = [path for path in graph.files if is_code(path)]
    tests = {path for path in code if is_test(path)}
    shaped = [path for path in code if path not in tests]
    parents = _parents(graph.inherits)
    derived = {path: _ancestors(path, parents) for path in shaped}
    # (folder, file defining bases) -> files under folder deriving from one of its bases
    candidates: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in shaped:
        for home in sorted({base_file(base) for base in derived[path]}):
            for folder in _folders_up_to(path, package_of(path)):
                candidates[(folder, home)].add(path)

    in_folder = Counter(posixpath.dirname(path) for path in shaped)

    def direct(key: tuple[str, str], claimed: set[str]) -> int:
        """Members directly in the folder; 0 unless they are most of its files (the shape of
        the folder, not a few exceptions defined among its utilities)."""
        count = sum(posixpath.dirname(p) == key[0] for p in candidates[key] - claimed)
        return count if count >= MAJORITY * in_folder[key[0]] else 0

    def covered(key: tuple[str, str], claimed: set[str]) -> set[str]:
        folder, home = key
        files = candidates[key] - claimed
        # The base's own file belongs with its family when it lies under the family's folder.
        own = _under(home, folder) and home in derived and home not in claimed and files
        if own and package_of(home) == package_of(min(files)):
            files.add(home)
        return files

    def narrower(key: tuple[str, str], claimed: set[str]) -> tuple[str, str]:
        """The base file deepest in ``key``'s lineage that still covers most of its files."""
        seen = {key}
        while True:
            size = len(covered(key, claimed))
            found = [
                other
                for other in candidates
                if other[0] == key[0]
                and other not in seen  # bases that derive from each other: a cycle
                and key[1] in {base_file(b) for b in derived.get(other[1], ())}
                and len(covered(other, claimed)) >= SPECIFIC_SHARE * size
            ]
            if not found:
                return key
            key = min(found, key=lambda o: (-len(covered(o, claimed)), o[1]))
            seen.add(key)

    def rank(key: tuple[str, str]) -> tuple[int, int, str, str]:
        folder, home = key
        return (-len(covered(key, set())), -folder.count("/") - bool(folder), folder, home)

    found: list[Family] = []
    claimed: set[str] = set()
    for key in sorted((k for k in candidates if direct(k, set()) >= minimum), key=rank):
        if direct(key, claimed) < minimum:
            continue
        key = narrower(key, claimed)
        if direct(key, claimed) < minimum:
            continue
        members = covered(key, claimed)
        claimed |= members
        base = _named_base(key[1], members, derived)
        found.append(Family(key[0], base, tuple(sorted(members)), ()))
    return _with_tests(found, graph, tests, package_of)


def base_file(symbol: str) -> str:
    return symbol_parts(symbol)[0]


def _named_base(home: str, members: set[str], derived: dict[str, set[str]]) -> str:
    """The symbol of ``home`` most members derive from (the family's name)."""
    counts: Counter[str] = Counter(
        base for path in members for base in derived[path] if base_file(base) == home
    )
    return min(counts, key=lambda base: (-counts[base], base))


def _parents(inherits: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    parents: dict[str, set[str]] = defaultdict(set)
    for path, base in inherits:
        parents[path].add(base)
    return parents


def _ancestors(path: str, parents: dict[str, set[str]]) -> set[str]:
    """Every base ``path`` derives from, through the files that define its bases."""
    seen: set[str] = set()
    stack = sorted(parents.get(path, ()))
    while stack:
        base = stack.pop()
        if base in seen:
            continue
        seen.add(base)
        home = base_file(base)
        if home != path:
            stack.extend(sorted(parents.get(home, set()) - seen))
    return {base for base in seen if base_file(base) != path}


def _folders_up_to(path: str, package: str) -> list[str]:
    """The folders holding ``path``, innermost first, up to its package root."""
    folders = []
    folder = posixpath.dirname(path)
    while True:
        folders.append(folder)
        if folder in ("", package):
            return folders
        folder = posixpath.dirname(folder)


def _under(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")


def _with_tests(
    found: list[Family], graph: FileGraph, tests: set[str], package_of: Any
) -> list[Family]:
    """``found`` with the tests that target one member added to its family.

    A test targets the member it reaches whose name it bears (``test_plugin_discord.py``,
    ``input.test.ts``), the longest such name when several fit; failing that, the one member
    of any family it reaches, when that member is also the file it reaches most: a test of
    the executor that touches one repository class is the executor's test. The bases are
    left out of the count, since every member's test reaches them.
    """
    family_of = {path: number for number, f in enumerate(found) for path in f.members}
    bases = {base_file(f.base) for f in found}
    reached: dict[str, Counter[str]] = defaultdict(Counter)
    for (src, dst, _kind, _tier), count in graph.typed.items():
        if src in tests and dst not in tests and dst not in bases and src not in family_of:
            reached[src][dst] += count
    joined: dict[int, list[str]] = defaultdict(list)
    for test, counts in sorted(reached.items()):
        member = _target(test, counts, family_of)
        if member is not None and package_of(test) == package_of(member):
            joined[family_of[member]].append(test)
    result = [
        Family(f.folder, f.base, f.members, tuple(sorted(joined.get(number, ()))))
        for number, f in enumerate(found)
    ]
    return sorted(result, key=lambda f: (f.folder, f.base))


def _target(test: str, counts: Counter[str], family_of: dict[str, int]) -> str | None:
    """The member ``test`` targets (see ``_with_tests``), or None."""
    members = sorted(path for path in counts if path in family_of)
    words = _words(posixpath.splitext(posixpath.basename(test))[0])
    named = [(len(_words(_stem(m))), m) for m in members if _contains(words, _words(_stem(m)))]
    if named:
        longest = max(length for length, _ in named)
        best = [member for length, member in named if length == longest]
        return best[0] if len(best) == 1 else None
    if len(members) != 1:
        return None
    runner_up = max((n for path, n in counts.items() if path != members[0]), default=0)
    return members[0] if counts[members[0]] > runner_up else None


GENERIC_STEMS = frozenset({"__init__", "index", "base", "main", "mod", "lib"})


def _stem(path: str) -> str:
    """A file's name as its tests would spell it: a package's generic file by its folder."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    return posixpath.basename(posixpath.dirname(path)) if stem in GENERIC_STEMS else stem


def _words(name: str) -> list[str]:
    """``name`` in lower-case words: snake_case, kebab-case, dots and camelCase all split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [word for word in re.split(r"[^a-z0-9]+", spaced.lower()) if word]


def _contains(words: list[str], part: list[str]) -> bool:
    return bool(part) and any(
        words[start : start + len(part)] == part for start in range(len(words) - len(part) + 1)
    )


def family_records(found: list[Family], files: dict[str, str]) -> list[dict[str, Any]]:
    """``families`` of communities.json: each family with the communities its files are in."""
    return [
        {
            "name": family.name,
            "base": family.base,
            "folder": family.folder,
            "members": list(family.members),
            "tests": list(family.tests),
            "communities": sorted({files[path] for path in family.files}, key=id_number),
        }
        for family in found
    ]
