"""Paths as patterns: placeholders for the part that varies, and bookkeeping files apart.

"Add a new provider" is invisible in raw paths: the new file's name never repeats. So an
added file's path is abstracted: a word of its path that is rare in the repository's whole
history (found in few paths: the provider's own name) becomes ``<name>``, and a run of digits
``<n>``, while the words every path of its kind shares stay (``tests/test_<name>.py``,
``docs/libcurl/opts/CURLOPT_<name>.md``). A file that is edited, not added, keeps its path:
it is the same file every time (a registry, a shared test), which is what recurs.

Bookkeeping files (changelogs, lock files, version files, release notes, kgtool's own
``.kg/``) change with everything; they are listed as bookkeeping steps, never as the pattern.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable

from kgtool.file_kinds import LOCK_FILES, is_lock_file

NAME = "<name>"
NUMBER = "<n>"

# A rare word is in at most this many distinct paths of the history (and this share of them).
RARE_PATHS = 6
RARE_SHARE = 0.002
SIBLINGS = 3
KIND_FOLDER_ADDITIONS = 10  # changes that added files to a folder (or made a family's members)
INSTANCE_CHANGES = 2  # a folder made by this many changes at most is one instance of a kind

_BOOKKEEPING_STEMS = (
    "changelog",
    "changes",
    "history",
    "news",
    "release-notes",
    "release_notes",
    "releasenotes",
    "whatsnew",
    "authors",
    "contributors",
    "thanks",
)
_BOOKKEEPING_NAMES = LOCK_FILES | {
    "version",
    "version.txt",
    "version.py",
    "_version.py",
    "__version__.py",
}
# Folders of changelog fragments (towncrier, changesets, scriv): one new file per change.
_BOOKKEEPING_DIRS = (
    "changes", "changelog.d", "newsfragments", "changelog", ".changeset", "announce",
    "release-notes", "releasenotes",
)  # fmt: skip
# A release's own page: release-2.9.1.rst, release_v3.md, relnotes-1.2.txt.
_RELEASE_PAGE = re.compile(r"^(release|relnotes)[-_]?v?\d+(\.\d+)*\.[a-z]+$")
VERSION_FILES = {"version", "version.txt", "version.py", "_version.py", "__version__.py"}
_MANIFESTS = {"package.json", "pyproject.toml", "setup.py", "setup.cfg", "cargo.toml"}

_PIECES = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def is_bookkeeping(path: str) -> bool:
    lower = path.lower()
    if lower.startswith(".kg/"):
        return True
    name = posixpath.basename(lower)
    if name in _BOOKKEEPING_NAMES or is_lock_file(name):
        return True
    stem = name.split(".", 1)[0]
    if stem in _BOOKKEEPING_STEMS or _RELEASE_PAGE.match(name):
        return True
    return any(part in _BOOKKEEPING_DIRS for part in lower.split("/")[:-1])


def is_version_file(path: str) -> bool:
    name = posixpath.basename(path.lower())
    return name in VERSION_FILES or name in _MANIFESTS


def words(path: str) -> list[str]:
    """The lowercase words of a path, extension left out: ``src/OpenAIProvider.ts`` gives
    src, open, ai, provider."""
    parts = path.split("/")
    stem = parts[-1].split(".", 1)[0] if not parts[-1].startswith(".") else parts[-1]
    found: list[str] = []
    for part in [*parts[:-1], stem]:
        found.extend(w.lower() for w in _CAMEL.findall(part) if not w.isdigit())
    return found


class Abstractor:
    """Knows which words are rare in the history's paths; abstracts added files with that."""

    def __init__(self, paths: Iterable[str], added: Iterable[Iterable[str]] = ()) -> None:
        """``paths``: every path of the history read; ``added``: the files each change
        added, a list per change."""
        by_change = [set(files) for files in added]
        makers: dict[str, set[int]] = {}  # folder -> the changes that added files to it
        for number, files in enumerate(by_change):
            for path in files:
                makers.setdefault(posixpath.dirname(path), set()).add(number)
        # Folders where files keep being added, by many changes: a new file there is one
        # more of the folder's kind, whatever words its name is made of (eslint's
        # lib/rules/no-useless-assignment.js is a lib/rules/<name>.js though each of its
        # words is in many paths). Not the top folder, where any file may go.
        self.kind_folders = {
            f for f, found in makers.items() if f and len(found) >= KIND_FOLDER_ADDITIONS
        }
        # Folders whose new files keep coming in new folders of their own, one per
        # instance, each made by a change or two (tests/examplefiles/<lexer>/), and the
        # instances made by many changes (not one import of twelve folders): the file
        # names that recur across those folders are the convention (README.md,
        # sample.conf); any other is the instance's own (example.bb, test.purs), whatever
        # its words and extension. A folder that many changes add to (lib/rules/, one
        # plugin's growing test cases) is no instance.
        self.instances = {f for f, found in makers.items() if len(found) <= INSTANCE_CHANGES}
        members: dict[str, set[str]] = {}
        made_by: dict[str, set[int]] = {}
        names: dict[str, dict[str, set[str]]] = {}
        suffixes: dict[str, dict[str, set[str]]] = {}
        for folder in sorted(self.instances):
            family, _, member = folder.rpartition("/")
            if not member:
                continue
            members.setdefault(family, set()).add(member)
            made_by.setdefault(family, set()).update(makers[folder])
        for files in by_change:
            for path in files:
                folder, _, name = path.rpartition("/")
                family, _, member = folder.rpartition("/")
                if not member or folder not in self.instances:
                    continue
                names.setdefault(family, {}).setdefault(name, set()).add(member)
                for suffix in name.split(".")[1:]:
                    suffixes.setdefault(family, {}).setdefault(suffix, set()).add(member)
        families = {
            family
            for family, found in members.items()
            if len(found) >= KIND_FOLDER_ADDITIONS and len(made_by[family]) >= KIND_FOLDER_ADDITIONS
        }
        # Each family's members by name: a file named after one, in a folder beside them, is
        # that member's entry in a registry (telegraf's plugins/parsers/all/avro.go beside
        # plugins/parsers/avro/), one more of the registry's kind.
        self.members = {family: members[family] for family in families}
        self.own_names = {
            (family, name)
            for family in families
            for name, holders in names[family].items()
            if len(holders) < SIBLINGS
        }
        # The extensions many members' files have (.go, .output); any other is a name.
        self.member_suffixes = {
            family: {w for w, held in suffixes.get(family, {}).items() if len(held) >= SIBLINGS}
            for family in families
        }
        frequency: Counter[str] = Counter()
        siblings: Counter[tuple[str, str]] = Counter()
        count = 0
        for path in paths:
            count += 1
            frequency.update(set(words(path)))
            folder, _, name = path.rpartition("/")
            siblings.update((folder, w) for w in set(words(name)))
        # A word that several files of one folder share is that folder's naming convention
        # (test_*, CURLOPT_*), never the varying name, however few paths have it.
        self.conventions = {word for (_, word), n in siblings.items() if n >= SIBLINGS}
        self.frequency = frequency
        self.rare_limit = max(RARE_PATHS, int(count * RARE_SHARE))

    def rare(self, word: str) -> bool:
        word = word.lower()
        return self.frequency.get(word, 0) <= self.rare_limit and word not in self.conventions

    def abstract(self, path: str) -> str:
        """``providers/openai.ts`` -> ``providers/<name>.ts`` when "openai" is rare."""
        parts = path.split("/")
        folder, last = "/".join(parts[:-1]), parts[-1]
        if last.startswith("."):
            stem, ext = last, ""
        else:
            stem, dot, rest = last.partition(".")
            ext = dot + rest
        depth, member = self._member(parts)
        name = self._component(stem, member)
        family = "/".join(parts[:-2])
        # A member's entry in a registry beside the members (plugins/parsers/all/avro.go),
        # not a file inside another member that happens to share a member's name.
        entry = depth == -1 and stem in self.members.get(family, ())
        if not is_abstract(name) and (folder in self.kind_folders or entry):
            name = NAME
        folders = [
            NAME if at == depth else self._component(part, member if at > depth else "")
            for at, part in enumerate(parts[:-1])
        ]
        # A file of the member's own (not README.md, sample.conf), named in no words of a
        # convention (not <name>_test), is a name, with an extension few members' files
        # have (.purs, .bbclass; not .go, .output).
        own = member and folder in self.instances and (family, last) in self.own_names
        if own and (name == NAME or not is_abstract(name)):
            common = self.member_suffixes[family]
            name, ext = NAME, "".join(f".{w}" for w in ext.split(".")[1:] if w in common)
        return "/".join([*folders, name + ext])

    def _member(self, parts: list[str]) -> tuple[int, str]:
        """Where in ``parts`` a folder is one member of a family of folders, each made by a
        change or two (pkg/golinters/<linter>/, tests/examplefiles/<lexer>/), and its name;
        (-1, "") when none is."""
        for depth in range(1, len(parts) - 1):
            family, holder = "/".join(parts[:depth]), "/".join(parts[: depth + 1])
            if family in self.member_suffixes and holder in self.instances:
                return depth, parts[depth]
        return -1, ""

    def _component(self, text: str, member: str = "") -> str:
        """``text`` with its rare words, its numbers and the ``member`` it belongs to
        (pkg/golinters/iotamixing/testdata/iotamixing_custom.go) as placeholders."""
        if member:
            # The member's name as a word of its own (not the "c" inside "example.c").
            apart = re.split(rf"(?<![A-Za-z0-9]){re.escape(member)}(?![A-Za-z0-9])", text)
            if len(apart) > 1:
                return NAME.join(self._component(rest) for rest in apart)
        out: list[str] = []
        for piece in _PIECES.findall(text):
            if piece.isdigit():
                out.append(NUMBER)
            elif piece[0].isalpha():
                for word in _CAMEL.findall(piece):
                    out.append(NAME if self.rare(word) else word)
            else:
                out.append(piece)
        # "open_ai" and "OpenAI" are one name: a run of placeholders joined by separators
        # collapses into one.
        merged: list[str] = []
        for token in out:
            if token == NAME and merged:
                joined = merged[-1] == NAME or (
                    len(merged) >= 2 and merged[-2] == NAME and merged[-1] in ("_", "-", ".")
                )
                if joined:
                    if merged[-1] != NAME:
                        merged.pop()
                    continue
            merged.append(token)
        return "".join(merged)


def is_abstract(item: str) -> bool:
    return NAME in item or NUMBER in item


_SLOTS = re.compile(f"(?:{re.escape(NAME)}|{re.escape(NUMBER)})+")


def same_kind(first: str, second: str) -> bool:
    """Whether two abstract paths are one kind of file: one of them, its slots read as any
    name within a folder, matches the other (``plugins/<name><n>.py``, a plugin whose name
    ends in digits, is a ``plugins/<name>.py``)."""
    if first == second:
        return True

    def matches(general: str, special: str) -> bool:
        # A slot is a name, not a name and an extension (<name>.ts is no <name>.d.ts).
        pattern = "[^/.]+".join(re.escape(part) for part in _SLOTS.split(general))
        return re.fullmatch(pattern, _SLOTS.sub("x", special)) is not None

    return matches(first, second) or matches(second, first)
