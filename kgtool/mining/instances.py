"""Whether the files a pattern adds are instances of one kind, read from their symbols.

A kind of file a project keeps adding to is made to a shape: each pygments lexer defines a
``<Name>Lexer``, each yt-dlp extractor an ``<Name>IE`` with ``_real_extract``, each telegraf
input a type with ``Gather`` and ``SampleConfig``. Modules added one by one for their own
sake (apprise's ``attachment.py``, ``emojis.py``, ``manager.py``; a project's helper scripts)
share no such shape. Layer 1 knows each file's symbols: a symbol's name with the file's own
name taken out of it (``ZoomLexer`` in ``zoom.py`` is ``<>lexer``) is its part of the shape.
"""

from __future__ import annotations

from collections import Counter

from kgtool.file_kinds import is_test
from kgtool.mining.paths import words
from kgtool.mining.patterns import Pattern
from kgtool.playbook.layer1 import Layer1

SHAPE_SAMPLE = 6  # the newest changes whose added files are read
MIN_OWN_WORD = 3  # a shorter word of a file's name is not taken out of its symbols' names
# Names every module may have, whatever it is: no part of a shape (nor is a dunder method).
GENERIC = frozenset({"main", "__init__", "init", "run", "setup", "default", "<>"})


def instances_alike(pattern: Pattern, layer1: Layer1) -> bool | None:
    """Whether the files of the main kind it adds share a symbol beyond their own names, in
    the newest changes that added them (at least half of those whose files define
    something, and two); None when fewer than two define anything (a docs page, a config
    file, code layer 1 does not parse). A change's files are read together: a telegraf
    plugin is its folder."""
    kinds = [kind for kind in pattern.new_kinds if not is_test(kind)]
    if not kinds:
        return None
    shapes: list[set[str]] = []
    # Enough changes to find a few with symbols, not every one of a pattern of hundreds.
    for task in list(reversed(pattern.tasks))[: 2 * SHAPE_SAMPLE]:
        shape: set[str] = set()
        for path in task.items.get(kinds[0], []):
            shape |= _shape(layer1, path)
        if shape:
            shapes.append(shape)
        if len(shapes) == SHAPE_SAMPLE:
            break
    if len(shapes) < 2:
        return None
    shared = Counter(name for shape in shapes for name in shape)
    most = max(shared.values())
    return most >= 2 and 2 * most >= len(shapes)


def _shape(layer1: Layer1, path: str) -> set[str]:
    """What the file defines, by the last part of each symbol's name, lower-cased, the
    file's own name and its words taken out (``ZoomLexer`` of zoom.py is ``<>lexer``,
    ``NiconicoLiveFD.real_download`` is ``real_download``); names any module may have are
    left out."""
    if path not in layer1.files:
        return set()
    stem = words(path.rpartition("/")[2])
    own = sorted({"".join(stem), *(w for w in stem if len(w) >= MIN_OWN_WORD)}, key=len)[::-1]
    shape = set()
    for qualname in layer1.symbols(path):
        name = qualname.lower().rpartition(".")[2]
        for word in own:
            if word:
                name = name.replace(word, "<>")
        if name not in GENERIC and not (name.startswith("__") and name.endswith("__")):
            shape.add(name)
    return shape
