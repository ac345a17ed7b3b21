"""What the miner reads in a change's title: its verb, and its content words in singular."""

from __future__ import annotations

from kgtool.mining.patterns import title_words, verb_of
from kgtool.mining.titles import SLOT, singular, title_templates


def test_title_words_are_lowercase_singular_and_once_each() -> None:
    title = "Add Providers, libraries and class access for the gas bus; providers again"
    # -ies -> -y, -s dropped but not -ss or from a three-letter word; verbs and stop words out.
    assert title_words(title) == ["provider", "library", "class", "access", "gas", "bus", "again"]
    # Words that say how much, not what: "[cleanup] Misc fixes for various extractors".
    assert title_words("[cleanup] Misc fixes for various extractors") == ["extractor"]
    # -es after s, x, z, ch, sh goes whole ("matches", not "matche"); -us and -is stay.
    assert title_words("Boxes, matches, wishes and the status of the corpus and axis") == [
        "box", "match", "wish", "status", "corpus", "axis",
    ]  # fmt: skip
    assert title_words("Caches, sizes and menus") == ["cache", "size", "menu"]
    # A name in a title is no word of it: "tmpdir.rst" is not "rst".
    assert title_words("Rename tmpdir.rst to tmp_path.rst") == ["rename"]


def test_a_title_with_no_known_verb_is_a_change_unless_its_type_says_more() -> None:
    assert verb_of("Tidy the parser") == "change"
    assert verb_of("docs: tidy the parser") == "document"
    assert verb_of("feat(api): support tokens") == "add"
    # The type before its scope: "docs(api):" is documentation whatever the title says next.
    assert verb_of("docs(api): tidy the parser") == "document"
    assert verb_of("fix(parser)!: the crash on empty input") == "fix"


def test_release_pages_and_announcements_are_bookkeeping() -> None:
    from kgtool.mining.paths import is_bookkeeping

    for path in ("doc/en/announce/release-2.9.1.rst", "docs/release-3.0.md", "relnotes-1.2.txt",
                 "CHANGES.rst", "changelog.d/123.feature.md", ".kg/layer1/raw.json"):  # fmt: skip
        assert is_bookkeeping(path), path
    for path in ("src/releaser.py", "docs/releases.md", "src/announcer.py", "docs/guide.md"):
        assert not is_bookkeeping(path), path


def test_a_titles_prefix_punctuation_and_short_words() -> None:
    # A conventional prefix is no word of the title, punctuation around a word no name.
    assert title_words("feat(api): support tokens") == ["token"]
    assert title_words("Fix the parser.") == ["parser"]
    # A word of two letters is a word ("ui", "db"); one letter is not.
    assert title_words("Fix the ui of a db x") == ["ui", "db"]
    # -ies of five letters is -y too; of four it is a plural in -s ("ties").
    assert [singular(w) for w in ("spies", "ties")] == ["spy", "tie"]


def test_a_word_said_by_two_titles_is_a_name_and_by_three_a_word() -> None:
    titles = ["Add Zoom widget", "Add Zoom panel", "Add Ping widget", "Add Mail widget"]
    assert title_templates(titles) == [
        ("add", SLOT, "widget"),
        ("add", SLOT),  # "Zoom panel": two names in a row are one
        ("add", SLOT, "widget"),
        ("add", SLOT, "widget"),
    ]


def test_short_words_in_s_keep_their_last_letters() -> None:
    # A three-letter word in -s is no plural the miner can undo ("ids", "ops", "yes"), and a
    # four-letter one in -xes drops its -s only ("exes" are Windows executables, not "ex").
    assert title_words("Fix ids and ops of the yes prompt") == ["ids", "ops", "yes", "prompt"]
    assert [singular(w) for w in ("exes", "boxes", "axis")] == ["exe", "box", "axis"]


def test_a_conventional_prefix_in_capitals_says_the_kind_of_change() -> None:
    # "FIX:" is "fix:" shouted; the title's own first word ("the") is no verb.
    assert verb_of("FIX: the parser crash") == "fix"
    assert verb_of("DOCS: the parser") == "document"


def test_a_quoted_letter_is_a_name_however_many_titles_say_it() -> None:
    # `q` is a key, an option, a name: quoted, it is no word of the template though three
    # titles say it (an unquoted word that many titles say would be one).
    titles = ["Add the `q` shortcut", "Fix the `q` shortcut", "Document the `q` shortcut"]
    assert title_templates(titles) == [
        ("add", SLOT, "shortcut"),
        ("fix", SLOT, "shortcut"),
        ("document", SLOT, "shortcut"),
    ]


def test_every_word_of_a_title_is_read_past_symbols_and_punctuation() -> None:
    # "parser+printer" after "lexer+parser": a word said before, or a stop word, is left
    # out, not the words that follow it in the same token.
    assert title_words("Fix the lexer+parser and the parser+printer") == [
        "lexer", "parser", "printer",
    ]  # fmt: skip
    assert title_words("Fix typos in the+lexer") == ["typo", "lexer"]
    # A token of punctuation alone ends nothing: the words after it are read.
    assert title_words("Fix the parser ... and the lexer") == ["parser", "lexer"]
