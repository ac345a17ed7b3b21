"""The words the read path matches a task with: stems, identifier splits, prefixes."""

from __future__ import annotations

import pytest

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
