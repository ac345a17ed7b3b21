"""What the miner reads in a change's title: the verb (what the change does), the content
words in singular, and the title as a template, names as ``<name>``."""

from __future__ import annotations

import re
from collections import Counter

SLOT = "<name>"
# A title word said by at most this many titles (or this share of them) is a name.
RARE_TITLE_WORD = 2
RARE_TITLE_SHARE = 0.002

# Words in -s that are no plurals.
_SINGULAR_IN_S = frozenset(
    {"status", "corpus", "bus", "gas", "focus", "census", "virus", "bonus", "campus", "plus",
     "minus", "thus", "alias", "canvas", "atlas", "lens", "news", "series", "species"}
)  # fmt: skip

VERBS = {
    "add": "add",
    "adds": "add",
    "added": "add",
    "adding": "add",
    "new": "add",
    "support": "add",
    "supports": "add",
    "implement": "add",
    "implements": "add",
    "implemented": "add",
    "introduce": "add",
    "introduces": "add",
    "introduced": "add",
    "allow": "add",
    "allows": "add",
    "enable": "add",
    "create": "add",
    "feat": "add",
    "feature": "add",
    "fix": "fix",
    "fixes": "fix",
    "fixed": "fix",
    "fixing": "fix",
    "correct": "fix",
    "repair": "fix",
    "resolve": "fix",
    "bugfix": "fix",
    "handle": "fix",
    "avoid": "fix",
    "prevent": "fix",
    "remove": "remove",
    "removes": "remove",
    "removed": "remove",
    "delete": "remove",
    "drop": "remove",
    "drops": "remove",
    "deprecate": "remove",
    "doc": "document",
    "docs": "document",
    "document": "document",
    "documentation": "document",
    "readme": "document",
    "test": "test",
    "tests": "test",
    # Words that say a change was made, not what it is about: never the object of a task.
    "update": "change",
    "updates": "change",
    "updated": "change",
    "improve": "change",
    "improves": "change",
    "improved": "change",
    "tweak": "change",
    "tweaks": "change",
    "refactor": "change",
    "refactored": "change",
    "change": "change",
    "changes": "change",
    "changed": "change",
    "modify": "change",
    "rework": "change",
    "move": "change",
    "fixup": "fix",
    "cleanup": "change",
}
_STOP = {
    "a", "an", "the", "to", "of", "in", "for", "and", "or", "on", "with", "from", "by", "as",
    "at", "is", "be", "it", "its", "this", "that", "when", "not", "no", "into", "new", "some",
    "more", "all", "can", "now", "also", "use", "using", "instead", "via", "if", "so", "are",
    "was", "do", "does", "dont", "don't", "make", "same", "other", "only", "than", "up", "out",
    "should", "any", "one", "two", "we", "pr", "issue", "fixes", "closes", "see",
    "misc", "miscellaneous", "various", "minor", "small", "several", "few", "many", "bit",
}  # fmt: skip
_SCOPE = re.compile(r"^(\[[^\]]*\]\s*)+|^[\w./*,{} -]{1,40}?(\([^)]*\))?!?:\s+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
_PLAIN_WORD = re.compile(r"[a-z][a-z'-]*")
_TITLE_TOKEN = re.compile(r"`[^`]+`|\"[^\"]+\"|'[^']+'|[^\s]+")
_NAMED = re.compile(r"[0-9._/]|[a-z][A-Z]|^[A-Z]{2,}[a-z]*$|^[A-Z][a-z]+[A-Z]")
CONVENTIONAL = {
    "feat": "add",
    "fix": "fix",
    "docs": "document",
    "doc": "document",
    "test": "test",
    "tests": "test",
    "revert": "remove",
}


def verb_of(title: str) -> str:
    """What a title says the change does: add, fix, remove, document, test, or change."""
    scope = _SCOPE.match(title)
    rest = title[scope.end() :] if scope else title
    found = _WORD.findall(rest)
    if found and found[0].lower() in VERBS:
        return VERBS[found[0].lower()]
    if scope:
        kind = scope.group(0).strip().rstrip(":!").split("(")[0].strip().lower()
        if kind in CONVENTIONAL:
            return CONVENTIONAL[kind]
    return "change"


def title_words(title: str) -> list[str]:
    """The content words of a title, lowercase, singular, once each, in order; a name
    (``tmpdir.rst``, ``cacheRetention``, a quoted identifier) is no word of it."""
    seen: list[str] = []
    for token, named in _template_words(title):
        if named:
            continue
        for raw in _WORD.findall(token):
            word = singular(raw.lower().strip("'-"))
            if word in _STOP or word in VERBS or len(word) < 2 or word in seen:
                continue
            seen.append(word)
    return seen


def title_templates(titles: list[str]) -> list[tuple[str, ...]]:
    """Each title as a template: its verb, then its words, a name as ``<name>``.

    A name is what only a few titles of the history say (``zoom`` in "Add Zoom support"), or
    written as one: quoted, with digits, dots, slashes or underscores, or capitals inside
    (``cacheRetention``). "Add Zoom support" and "Add Pingram support" are one template.
    """
    split = [_template_words(title) for title in titles]
    frequency: Counter[str] = Counter()
    for words in split:
        frequency.update({w.lower() for w, _ in words})
    rare = max(RARE_TITLE_WORD, int(RARE_TITLE_SHARE * len(titles)))
    templates = []
    for title, words in zip(titles, split, strict=True):
        found: list[str] = [verb_of(title)]
        for word, named in words:
            lower = word.lower()
            if lower in _STOP or lower in VERBS:
                continue
            # Only a plain word can be said in a proposal's title; anything else is a name.
            slot = named or frequency[lower] <= rare or not _PLAIN_WORD.fullmatch(lower)
            token = SLOT if slot else singular(lower)
            if not (token == SLOT and found[-1] == SLOT):  # "<name> <name>" is one name
                found.append(token)
        templates.append(tuple(found))
    return templates


def _template_words(title: str) -> list[tuple[str, bool]]:
    """The words of a title after its conventional prefix, each with whether it is written
    as a name (quoted, or holding digits, dots, slashes, underscores or inner capitals)."""
    scope = _SCOPE.match(title)
    rest = title[scope.end() :] if scope else title
    found = []
    for raw in _TITLE_TOKEN.findall(rest):
        quoted = raw[0] in "`'\"" and raw[-1] == raw[0] and len(raw) > 2
        word = raw.strip("`'\".,:;()[]!?")
        if not word:
            continue
        named = quoted or bool(_NAMED.search(word))
        found.append((word, named))
    return found


def singular(word: str) -> str:
    """A plural as its singular, crudely: plugins, entries, boxes, matches, wishes (but
    caches, sizes); words that end in -s as they are (status, axis, class)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if re.search(r"(ss|x|zz|sh|[^aeiou]ch)es$", word) and len(word) > 4:
        return word[:-2]
    if word in _SINGULAR_IN_S or word.endswith(("ss", "is", "ous")) or len(word) <= 3:
        return word
    return word[:-1] if word.endswith("s") else word
