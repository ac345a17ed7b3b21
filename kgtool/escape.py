"""Text from a repository, escaped for the format it is written into.

File names, playbooks, labels and commit messages are written by whoever commits them, a pull
request included; kgtool shows them in plain text (a terminal, a log), in markdown GitHub
renders (the job summary, the pull-request comment) and in markdown agents read (MAP.md and
the community pages), Mermaid pictures included. Each format has one function here, and each
shows the text as text: never a second line, a link, an image, an HTML tag, a table cell or
a notification.
Ordinary names come out as they went in, so the map of an ordinary repository is unchanged.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that move, hide or reorder text where they are printed: controls (newlines
# included), format characters (zero-width, bidirectional overrides), private use, lone
# surrogates, and the Unicode line and paragraph separators.
_UNPRINTABLE = ("Cc", "Cf", "Co", "Cs", "Zl", "Zp")
_SPELLED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

# Markdown as GitHub renders it: inline markup, tables, HTML, autolinked addresses and
# @mentions. Every item is written on one source line after "- " (or in a table cell), so
# block syntax (headings, lists, quotes) cannot start inside it.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
# A zero-width space (as an entity, so the file stays plain ASCII there) breaks what GitHub
# would otherwise turn into a link or a notification, and shows nothing.
_BREAK = "&#8203;"
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=\bwww)(?=\.)", re.I)
# "@name" notifies a person where GitHub renders it (a pull-request comment, a job summary);
# the label rules (kgtool/ontology/validate.py) refuse it by the same pattern.
MENTION = re.compile(r"(?<![\w.+-])@(?=\w)")
# In the map an agent reads: what would make a link, an image, HTML, emphasis of a whole
# cell or a new table cell. Underscores stay (snake_case names are names there).
_MD_CELL = re.compile(r"([\\`*\[\]<>|])")


def printable(text: str) -> str:
    """``text`` on one line as a terminal shows it: a newline is ``\\n``, a tab ``\\t``, any
    other control or invisible character ``\\xNN`` or ``\\uXXXX``; the rest as it is."""
    if text.isprintable():  # the common case, at C speed
        return text
    return "".join(_spelled(char) for char in text)


def md_text(text: str) -> str:
    """``text`` shown as it is in markdown GitHub renders (the job summary, a comment):
    markup, HTML, addresses and @mentions in it are escaped, line breaks kept as ``<br>``."""
    escaped = _MD_SPECIAL.sub(r"\\\1", text)
    # "<" starts every tag and autolink; a ">" alone, never at the start of a line here, is text.
    escaped = escaped.replace("&", "&amp;").replace("<", "&lt;")
    escaped = MENTION.sub("@" + _BREAK, _AUTOLINK.sub(_BREAK, escaped))
    return "<br>".join(printable(line) for line in _LINE_BREAK.split(escaped))


def md_code(text: str) -> str:
    """An inline code span holding ``text`` exactly, whatever backticks it has; one line."""
    text = re.sub(r"[\r\n]+", " ", text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_path(path: str) -> str:
    """A file name as a code span on one line: a newline in it is shown as ``\\n``."""
    return md_code(printable(path))


def md_cell(text: str) -> str:
    """A name or sentence in MAP.md or a community page (a table cell, a heading, a list
    item): one line, no link, image, HTML or new cell; an ordinary name is unchanged."""
    return _MD_CELL.sub(r"\\\1", printable(text))


def md_cell_text(cell: str) -> str:
    """What ``md_cell`` escaped, as it was (read back from a page kgtool wrote)."""
    return re.sub(r"\\([\\`*\[\]<>|])", r"\1", cell)


def _spelled(char: str) -> str:
    if char in _SPELLED:
        return _SPELLED[char]
    if unicodedata.category(char) not in _UNPRINTABLE:
        return char  # printable after all for these purposes (a no-break space, say)
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# A Mermaid label keeps only letters, digits, spaces and a few marks: nothing in it can close
# its quotes, the code fence, start a tag or an entity (#quot;). Mermaid's flowchart lexer
# also takes "direction TB" (and the like) anywhere on a line as a directive and drops the
# box or arrow on it.
_MERMAID_DROPPED = re.compile(r"[^\w .,:;()/'+·×-]", re.UNICODE)
_MERMAID_DIRECTIVE = re.compile(r"direction(?=\s+(?:TB|BT|RL|LR|TD))")


def mermaid_label(text: str, limit: int) -> str:
    """``text`` as a Mermaid label: only plain characters, one line, at most ``limit``."""
    plain = " ".join(_MERMAID_DROPPED.sub(" ", unicodedata.normalize("NFC", text)).split())
    plain = _MERMAID_DIRECTIVE.sub("direction:", plain)
    return plain if len(plain) <= limit else plain[: limit - 1].rstrip() + "…"
