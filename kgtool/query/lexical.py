"""A lexical index (BM25) over documents of words: files by their contents, past changes by
their messages.

Words are those of :mod:`kgtool.query.words` (split where identifiers split, lower-cased,
crudely stemmed), so a task's terms meet a document's words as they meet paths and names:
equal, or one starting the other. A term's frequency in a document is that of every word it
meets there, and its rarity is counted over the documents holding any of them.

The index is plain lists and dicts (``Lexicon``), so that the read cache can keep it with
``marshal`` and a question loads it in milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from kgtool.query.words import MEET_LENGTH, STOP_WORDS, meet, split_words, stem

# BM25's usual constants: a word's tenth occurrence in a document says little more than its
# third, and a long document's matches count for less than a short one's.
K1 = 1.2
B = 0.75
MIN_WORD = 3


class Lexicon(NamedTuple):
    documents: list[str]  # names, sorted
    lengths: list[int]  # words per document
    postings: dict[str, tuple[list[int], list[int]]]  # word -> (document numbers, counts)


class Hit(NamedTuple):
    score: float
    terms: list[str]  # the task's terms it holds, in the task's order


EMPTY = Lexicon([], [], {})


def words_of(text: str, memo: dict[str, str] | None = None) -> dict[str, int]:
    """The stemmed words of ``text`` (3 letters or more, common words and numbers left out),
    with how often each occurs. ``memo`` keeps stems across calls (most words recur)."""
    stems = memo if memo is not None else {}
    counts: dict[str, int] = {}
    for word in split_words(text):
        if len(word) < MIN_WORD:
            continue
        found = stems.get(word)
        if found is None:
            found = "" if word in STOP_WORDS or word.isdigit() else stem(word)
            stems[word] = found
        if found:
            counts[found] = counts.get(found, 0) + 1
    return counts


def build(counts: Mapping[str, Mapping[str, int]]) -> Lexicon:
    """The index of documents named by ``counts``' keys, each with its words' counts."""
    documents = sorted(counts)
    postings: dict[str, tuple[list[int], list[int]]] = {}
    lengths = []
    for number, name in enumerate(documents):
        words = counts[name]
        lengths.append(sum(words.values()))
        for word in sorted(words):
            numbers, tallies = postings.setdefault(word, ([], []))
            numbers.append(number)
            tallies.append(words[word])
    return Lexicon(documents, lengths, postings)


def is_lexicon(value: object) -> bool:
    """Whether ``value`` (read back from the cache, which anything may have damaged) is a
    lexicon every search can use: names, lengths, and postings within them."""
    try:
        return _lexicon_shaped(value)
    except TypeError:  # a comparison or a length of something that is no number or list
        return False


def _lexicon_shaped(value: object) -> bool:
    if not (isinstance(value, tuple) and len(value) == 3):
        return False
    documents, lengths, postings = value
    if not (isinstance(documents, list) and isinstance(lengths, list)):
        return False
    if len(documents) != len(lengths) or not isinstance(postings, dict):
        return False
    if not all(isinstance(d, str) for d in documents):
        return False
    if not all(type(n) is int for n in lengths):
        return False
    count = len(documents)
    for word, posting in postings.items():
        if not (isinstance(word, str) and isinstance(posting, tuple) and len(posting) == 2):
            return False
        numbers, tallies = posting
        if not (isinstance(numbers, list) and isinstance(tallies, list)):
            return False
        if len(numbers) != len(tallies) or not numbers:
            return False
        if min(numbers) < 0 or max(numbers) >= count or min(tallies) < 1:
            return False
    return True


class Searcher:
    """Scores documents of a lexicon against a task's terms."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self._buckets: dict[str, list[str]] = {}
        for word in lexicon.postings:
            self._buckets.setdefault(word[:MEET_LENGTH], []).append(word)
        count = len(lexicon.lengths)
        self._average = (sum(lexicon.lengths) / count) if count else 0.0

    def words_meeting(self, term: str) -> list[str]:
        if len(term) < MEET_LENGTH:
            return [term] if term in self.lexicon.postings else []
        return sorted(w for w in self._buckets.get(term[:MEET_LENGTH], ()) if meet(term, w))

    def counts(self, term: str) -> dict[int, int]:
        """Document number -> how often the term (any word it meets) occurs there."""
        found: dict[int, int] = {}
        for word in self.words_meeting(term):
            numbers, tallies = self.lexicon.postings[word]
            for number, tally in zip(numbers, tallies, strict=False):
                found[number] = found.get(number, 0) + tally
        return found

    def idf(self, frequency: int) -> float:
        total = len(self.lexicon.lengths)
        return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))

    def search(
        self, terms: Iterable[str], weights: Mapping[str, float] | None = None
    ) -> dict[str, Hit]:
        """Document name -> its BM25 score (each term's part times its weight, 1 unless
        given) and the terms it holds; documents holding none are left out."""
        scores: dict[int, float] = {}
        held: dict[int, list[str]] = {}
        average = self._average or 1.0
        lengths = self.lexicon.lengths
        for term in terms:
            found = self.counts(term)
            if not found:
                continue
            idf = self.idf(len(found))
            for number, tally in found.items():
                norm = K1 * (1 - B + B * lengths[number] / average)
                scores[number] = scores.get(number, 0.0) + idf * tally * (K1 + 1) / (tally + norm)
                held.setdefault(number, []).append(term)
        names = self.lexicon.documents
        return {names[n]: Hit(score, held[n]) for n, score in scores.items()}
