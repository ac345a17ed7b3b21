"""The words the read path matches a task with: stems, identifier splits, prefixes."""

from __future__ import annotations

import math

import pytest

from kgtool.query.lexical import K1, B, Searcher, build, is_lexicon, words_of
from kgtool.query.words import (
    identifier_words,
    meet,
    meets_any,
    split_words,
    stem,
    task_terms,
)


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("logging", "log"),  # the doubled consonant undone
        ("mapped", "map"),
        ("calling", "call"),  # but not an l: "call", not "cal"
        ("passed", "pass"),  # nor an s
        ("parsing", "pars"),  # then the final e of "parse" goes too
        ("parse", "pars"),
        ("policies", "policy"),
        ("classes", "class"),
        ("records", "record"),
        ("sing", "sing"),  # too short a stem left: kept whole
        ("bus", "bus"),
        ("tree", "tre"),  # a final e goes from four letters up
        ("the", "the"),
    ],
)
def test_stems(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_identifiers_split_at_humps_and_acronyms_and_short_words_go() -> None:
    assert split_words("parseURLQuery v2Api x_y") == [
        "parse",
        "url",
        "query",
        "v2",
        "api",
        "x",
        "y",
    ]
    assert identifier_words("app/HTTPServer.py::go") == {"app", "http", "server"}
    # OAuth splits at its hump: "o" is too short a word, "auth" stays.
    assert task_terms("Add the OAuth token refresh to 42 clients, then add it again") == {
        "auth": "auth",
        "token": "token",
        "refresh": "refresh",
        "client": "clients",
    }


def test_words_meet_by_prefix_from_four_letters() -> None:
    assert meet("pars", "parser") and meet("parser", "pars")
    assert meet("log", "log") and not meet("log", "login")  # three letters: only equal
    assert not meet("pars", "spar")
    assert meets_any("pay", {"pay", "x"}) and meets_any("paym", {"payment"})
    assert not meets_any("pay", {"payment"})


def test_the_words_of_a_text_are_counted_through_the_stems_a_memo_keeps() -> None:
    memo = {"parsing": "kept"}  # a stem an earlier call kept, used as it is
    assert words_of("parsing the Parser, parsing 2024 x", memo) == {"kept": 2, "parser": 1}
    # Every word read is kept for the next call; common words and numbers as no stem.
    assert memo == {"parsing": "kept", "the": "", "parser": "parser", "2024": ""}


def test_a_lexicon_read_back_is_used_only_when_every_part_is_whole() -> None:
    lexicon = build({"a.py": {"pars": 2}, "b.py": {"pars": 1, "tre": 3}})
    documents, lengths, postings = lexicon
    assert is_lexicon(tuple(lexicon))  # as the read cache hands it back
    assert is_lexicon(tuple(build({})))
    damaged: list[object] = [
        [documents, lengths, postings],
        (documents, lengths),
        (documents, lengths[:1], postings),
        ([1, "b.py"], lengths, postings),
        (documents, [3, 3.0], postings),
        (documents, [3, True], postings),
        (documents, lengths, {**postings, "tre": [[1], [3]]}),
        (documents, lengths, {**postings, "tre": ([1], [3], [0])}),
        (documents, lengths, {**postings, 7: ([1], [3])}),
        (documents, lengths, {**postings, "tre": ((1,), [3])}),
        (documents, lengths, {**postings, "tre": ([0, 1], [3])}),
        (documents, lengths, {**postings, "tre": ([], [])}),
        (documents, lengths, {**postings, "tre": ([2], [3])}),
        (documents, lengths, {**postings, "tre": ([-1], [3])}),
        (documents, lengths, {**postings, "tre": ([1], [0])}),
        (documents, lengths, {**postings, "tre": (["1"], [3])}),
    ]
    for value in damaged:
        assert not is_lexicon(value), value


def test_a_word_and_its_plural_or_third_person_meet() -> None:
    from kgtool.query.words import stem

    for one, other in [
        ("agree", "agrees"),
        ("employee", "employees"),
        ("class", "classes"),
        ("box", "boxes"),
        ("process", "processes"),
        ("status", "statuses"),
        ("index", "indexes"),
        ("policy", "policies"),
        ("log", "logging"),
    ]:
        assert stem(one) == stem(other), (one, other)


def test_a_term_counts_every_word_it_meets_in_a_document() -> None:
    """The term "pars" meets "parse" and "parser": a document holding both holds it as often
    as the two together."""
    searcher = Searcher(build({"a.py": {"parse": 1, "parser": 2}, "b.py": {"parser": 1}}))
    assert searcher.counts("pars") == {0: 3, 1: 1}
    assert searcher.counts("tre") == {}
    assert Searcher(build({})).search(["pars"]) == {}  # no documents: nothing found


def test_a_document_is_weighed_against_the_average_length_of_the_documents() -> None:
    """BM25: a document of the average length (here 2 words) scores one occurrence of a
    term by the term's rarity alone, and a shorter one scores higher."""
    lexicon = build({"a.py": {"pars": 1}, "b.py": {"pars": 1, "tre": 1}, "c.py": {"tre": 3}})
    hits = Searcher(lexicon).search(["pars"])
    rarity = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # in 2 of 3 documents
    assert hits["b.py"].score == pytest.approx(rarity)
    assert hits["a.py"].score == pytest.approx(rarity * (K1 + 1) / (1 + K1 * (1 - B + B * 1 / 2)))
    assert set(hits) == {"a.py", "b.py"} and hits["a.py"].terms == ["pars"]
