"""Words, as the read path matches them: a task's words against those of paths and names.

Identifiers are split where their case or punctuation changes (``parse_document``,
``MapState``, ``a/b-c.py``), lower-cased and crudely stemmed, so that "parsing", "parser's"
and "parse" meet at "pars". Two words meet when they are equal or, both being 4 letters or
more, one starts the other ("config" and "configuration").
"""

from __future__ import annotations

import re

# Words that say what kind of change a task is, or nothing at all, not where it happens.
_COMMON = """
a an the and or but not no nor of to in on at by for from with without into onto over under
about as is are be been being was were it its this that these those there here when where
which who what why how than then so such via per all any each every some more most less least
other also only just even still yet again new old now can could should would will may might
must do does did done don doesn didn isn aren wasn make makes made use uses used using add adds
added adding fix fixes fixed fixing support supports supported allow allows allowed update
updates updated change changes changed remove removes removed improve improves improved ensure
ensures correct correctly properly better instead issue issues bug bugs case cases work works
working way ways get gets set sets like one two
"""
STOP_WORDS = frozenset(_COMMON.split())
MEET_LENGTH = 4  # words this long meet by prefix; shorter ones only when equal
_WORDS = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def stem(word: str) -> str:
    # Not "es": "s" then the final "e" below stem "classes" and "boxes" as well, and "es"
    # took "agrees" to "agr" while "agree" is "agre".
    for suffix in ("ing", "ies", "ed", "s"):
        if suffix == "s" and word.endswith(("ss", "us")):  # "class", "status": no plurals
            break
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            # "logging" and "mapped" are "log" and "map" again, not "logg" and "mapp".
            double = len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls"
            if suffix in ("ing", "ed") and double:
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def split_words(text: str) -> list[str]:
    return [part.lower() for raw in _WORDS.findall(text) for part in _CAMEL.split(raw)]


def task_terms(text: str) -> dict[str, str]:
    """The task's words that can point somewhere: stem -> the word as the task first wrote
    it (lower-cased, for showing), in first-seen order."""
    seen: dict[str, str] = {}
    for word in split_words(text):
        if len(word) >= 3 and word not in STOP_WORDS and not word.isdigit():
            seen.setdefault(stem(word), word)
    return seen


def identifier_words(text: str) -> set[str]:
    """The stemmed words of a path or an identifier (3 letters or more)."""
    return {stem(word) for word in split_words(text) if len(word) >= 3}


def meet(term: str, word: str) -> bool:
    if term == word:
        return True
    if min(len(term), len(word)) < MEET_LENGTH:
        return False
    return word.startswith(term) or term.startswith(word)


def meets_any(term: str, words: set[str]) -> bool:
    return term in words or any(meet(term, word) for word in words)
