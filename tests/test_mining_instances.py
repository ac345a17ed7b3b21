"""Whether the files a pattern adds are instances of one kind: what a file's own name is, which
names are no part of a shape, and which of a pattern's changes are read."""

from __future__ import annotations

from typing import cast

import pytest
from test_mining_kinds import _Defined

from kgtool.mining.history import ChangeSet, FileChange
from kgtool.mining.instances import SHAPE_SAMPLE, instances_alike
from kgtool.mining.patterns import Pattern, Task
from kgtool.playbook.layer1 import Layer1

KIND = "app/lexers/<name>.py"
REGISTRY = "app/registry.py"

# A file's symbols as layer 1 knows them; None: a file layer 1 does not parse (a page, a
# config file), which defines nothing.
Added = dict[str, list[str] | None]


def _pattern_adding(changes: list[Added]) -> tuple[Pattern, Layer1]:
    """A pattern of ``changes``, oldest first, each adding its files as files of one kind
    (none: a change that only edits the registry), and the layer 1 that knows them."""
    tasks = []
    for number, added in enumerate(changes):
        files = (*(FileChange("A", path) for path in added), FileChange("M", REGISTRY))
        change = ChangeSet(f"{number:040x}", "direct", None, "a", "a@x", number, "Add", "Add",
                           files)  # fmt: skip
        items = ({KIND: list(added)} if added else {}) | {REGISTRY: [REGISTRY]}
        tasks.append(Task(change, items, {KIND} if added else set(), set(), "add"))
    adding = sum(bool(added) for added in changes)
    pattern = Pattern(KIND, "add", tasks, [(KIND, adding), (REGISTRY, len(tasks))], len(tasks))
    known = {path: symbols for added in changes for path, symbols in added.items()}
    defined = _Defined({path: symbols for path, symbols in known.items() if symbols is not None})
    return pattern, cast(Layer1, defined)


@pytest.mark.parametrize(
    "changes",
    [
        # A class named as its file, zoom.py's Zoom, is the file's own name...
        [
            {"app/lexers/zoom.py": ["Zoom", "ZoomReader"]},
            {"app/lexers/ping.py": ["Ping", "PingWriter"]},
        ],
        # ...and a dunder method any class may have is no part of a shape.
        [
            {"app/lexers/zoom.py": ["ZoomReader", "ZoomReader.__repr__"]},
            {"app/lexers/ping.py": ["PingWriter", "PingWriter.__repr__"]},
        ],
    ],
)
def test_files_sharing_only_their_own_names_and_dunders_are_no_kind(changes: list[Added]) -> None:
    assert instances_alike(*_pattern_adding(changes)) is False


def test_a_shape_two_of_five_files_share_is_less_than_half_of_them() -> None:
    """Two lexers of five define a <>lexer: fewer than half, no kind (two of four would be)."""
    alike: list[Added] = [{f"app/lexers/{n}.py": [f"{n.title()}Lexer"]} for n in ("zoom", "ping")]
    apart: list[Added] = [
        {f"app/lexers/{name}.py": [symbol]}
        for name, symbol in (("mail", "send"), ("chat", "post"), ("news", "fetch"))
    ]
    assert instances_alike(*_pattern_adding(alike + apart[:2])) is True
    assert instances_alike(*_pattern_adding(alike + apart)) is False


@pytest.mark.parametrize(
    "changes",
    [
        # Each word of three letters or more is taken out alone: ZoomReader in zoom_api.py
        # is <>reader, as PingReader in ping_web.py...
        [{"app/lexers/zoom_api.py": ["ZoomReader"]}, {"app/lexers/ping_web.py": ["PingReader"]}],
        # ...and the whole name before its words, whatever their letters: ApiZoomLexer in
        # api_zoom.py is <>lexer, not api<>lexer.
        [
            {"app/lexers/api_zoom.py": ["ApiZoomLexer"]},
            {"app/lexers/web_mail.py": ["WebMailLexer"]},
        ],
    ],
)
def test_a_file_names_words_are_taken_out_the_longest_first(changes: list[Added]) -> None:
    assert instances_alike(*_pattern_adding(changes)) is True


def test_a_file_name_of_short_words_is_taken_out_whole() -> None:
    """my_db.py's MyDbLexer is <>lexer, as go_db.py's GoDbLexer: the words of two letters
    are too short to take out alone, but the name they make together is the file's own."""
    changes: list[Added] = [
        {"app/lexers/my_db.py": ["MyDbLexer"]},
        {"app/lexers/go_db.py": ["GoDbLexer"]},
    ]
    assert instances_alike(*_pattern_adding(changes)) is True


def test_a_folders_name_in_the_symbols_is_part_of_the_shape() -> None:
    """Each module of app/command/ defines a Command: only the file's own name is taken out
    of its symbols' names, not its folders'."""
    changes: list[Added] = [
        {f"app/command/{name}.py": ["Command", "Command.run"]} for name in ("zoom", "ping")
    ]
    assert instances_alike(*_pattern_adding(changes)) is True


def test_the_files_one_change_adds_are_read_together() -> None:
    """A plugin is its folder: its code defines the shape, its sample configuration (which
    layer 1 does not parse) adds nothing and takes nothing away."""
    changes: list[Added] = [
        {
            f"app/lexers/{name}/{name}.py": [f"{name.title()}Lexer"],
            f"app/lexers/{name}/sample.conf": None,
        }
        for name in ("zoom", "ping", "mail")
    ]
    assert instances_alike(*_pattern_adding(changes)) is True


def test_a_change_of_the_pattern_that_adds_no_file_of_its_kind_is_passed_over() -> None:
    """Most of the pattern's changes add a lexer; one only edits the registry, and the
    lexers' shape is read from the others."""
    changes: list[Added] = [
        {"app/lexers/zoom.py": ["ZoomLexer"]},
        {},
        {"app/lexers/ping.py": ["PingLexer"]},
    ]
    assert instances_alike(*_pattern_adding(changes)) is True


def test_only_the_newest_changes_of_a_long_pattern_are_read() -> None:
    """Twice SHAPE_SAMPLE changes are read, newest first, to find files that define
    something: when none of those do (files layer 1 could not parse), older changes are not
    read, however alike their files, and the shape is unknown."""
    older: list[Added] = [
        {f"app/lexers/{name}.py": [f"{name.title()}Lexer"]} for name in ("zoom", "ping")
    ]
    unparsed: list[Added] = [{f"app/lexers/broken{n}.py": None} for n in range(2 * SHAPE_SAMPLE)]
    assert instances_alike(*_pattern_adding(older)) is True
    assert instances_alike(*_pattern_adding(older + unparsed)) is None


def test_the_shape_is_read_from_the_newest_files_that_define_something() -> None:
    """SHAPE_SAMPLE files are enough: three of the newest six lexers share <>lexer (half of
    them, a kind), however many older modules share nothing."""
    names = [f"m{letter}x" for letter in "abcdefghij"]
    own = dict(zip(names, ("send", "post", "fetch", "parse", "load", "dump", "read", "write",
                           "open", "close"), strict=True))  # fmt: skip
    older: list[Added] = [{f"app/lexers/{n}.py": [own[n]]} for n in names[:4]]
    newest: list[Added] = [
        {f"app/lexers/{n}.py": [f"{n.title()}Lexer" if number % 2 else own[n]]}
        for number, n in enumerate(names[4:])
    ]
    assert len(newest) == SHAPE_SAMPLE
    assert instances_alike(*_pattern_adding(older + newest)) is True
