"""What a layer-3 label may say, whoever wrote it: the LLM labeler's replies and people's edits
go through the same checks.

Labels end up in ``ontology.yaml``, in MAP.md tables and in prompts that agents read, so they
are plain one-line text: no markdown that would break a table or smuggle a link, no @mention
that would notify someone, no control characters that could hide text, and names unique on
the map so that a name (in a playbook's ``concepts``, say) points at exactly one community.
The same rules hold wherever a label is read: ``ontology.yaml`` as a person edited it, and
the names playbooks give as concepts.
"""

from __future__ import annotations

import re
import unicodedata

from kgtool.escape import MENTION

MIN_NAME_WORDS, MAX_NAME_WORDS, MAX_NAME_CHARS = 2, 5, 48
MIN_SUMMARY_WORDS, MAX_SUMMARY_WORDS, MAX_SUMMARY_CHARS = 2, 40, 200
MIN_PHRASE_WORDS, MAX_PHRASE_WORDS, MAX_PHRASE_CHARS = 1, 8, 64

# Characters that are markup in MAP.md (a table cell) or in the markdown agents read.
_MARKDOWN = "*`#[]<>|"
_LINE_BREAKS = "\n\r\v\f\x85\u2028\u2029"
# An underscore that starts or ends a word is emphasis; inside one (snake_case) it is a name.
_EMPHASIS = re.compile(r"(?<!\w)_+|_+(?!\w)|~~")  # runs: "__init__" is stripped whole
_ADDRESS = r"\b[a-z][a-z0-9+.-]*://|\bwww\.|\bmailto:"
_LINK = re.compile(_ADDRESS + r"|\]\(", re.I)
_ENTITY = re.compile(r"&#?\w+;")
_INVISIBLE = ("Cc", "Cf", "Co", "Cs")  # control, format (zero-width), private use, surrogates


def validate_name(text: object) -> str:
    """A community name: 2-5 plain words, at most 48 characters. Returns it normalised."""
    name = _plain(text, "the name", end_ok=")+")
    _count(name, "the name", MIN_NAME_WORDS, MAX_NAME_WORDS, MAX_NAME_CHARS)
    return name


def validate_summary(text: object) -> str:
    """A community summary: one plain sentence of at most 200 characters."""
    summary = _plain(text, "the summary", end_ok=").!?")
    _count(summary, "the summary", MIN_SUMMARY_WORDS, MAX_SUMMARY_WORDS, MAX_SUMMARY_CHARS)
    return summary


def validate_phrase(text: object) -> str:
    """An edge phrase: a short verb phrase (1-8 words) read as "<src> <phrase> <dst>"."""
    phrase = _plain(text, "the phrase", end_ok=")")
    _count(phrase, "the phrase", MIN_PHRASE_WORDS, MAX_PHRASE_WORDS, MAX_PHRASE_CHARS)
    return phrase


def validate_concept(text: str) -> str:
    """A playbook's concept: a community ID or a community's name, so plain text as a name
    is; any number of words (one that no name matches is unresolved, not malformed)."""
    return _plain(text, "the concept", end_ok="", ends=False)


def validate_read_label(text: str, what: str) -> str:
    """A name, summary or phrase as a person wrote it into ``ontology.yaml``: held to the rules
    that keep it plain text on one line (no markup, link or control character), as every
    label is. The word and length limits are the labelers' and ``label --set``'s, so a
    person's "CLI" stands; and so does "@" ("the @retry decorator"), which every writer of
    GitHub markdown breaks (``escape.md_text``): a commit must not fail over a summary."""
    return _plain(text, what, end_ok="", allow="@", ends=False)


def validate_line(text: object, what: str, max_chars: int, allow: str = "") -> str:
    """One plain line of prose of at most ``max_chars`` characters, ending as a sentence
    does; ``allow`` lists markup characters it may hold all the same (the miner's text names
    placeholder paths such as ``app/<name>.py`` and pull requests as ``#12``)."""
    # "@" too: prose names decorators ("@property"), and a committed file notifies nobody.
    line = _plain(text, what, end_ok=").!?”\"'", allow=allow + "@")
    if len(line) > max_chars:
        raise ValueError(f"{what} {quote(line)} has {len(line)} characters; at most {max_chars}")
    return line


def name_key(name: str) -> str:
    """What two names are compared by: case and spacing do not make a name different."""
    return " ".join(name.split()).casefold()


def strip_markup(text: str) -> str:
    """``text`` as one plain line: what these checks refuse as markup, a link (with its
    address), an @mention's "@" or an invisible character, taken out. For text quoted from
    the repository."""
    text = re.sub(f"(?:{_ADDRESS})\\S*", "", text, flags=re.I)
    text = "".join(
        char
        for char in MENTION.sub("", _ENTITY.sub("", text))
        if char not in _MARKDOWN and not _invisible(char)
    )
    return " ".join(_EMPHASIS.sub("", text).split())


def quote(value: object, limit: int = 60) -> str:
    """A value shown in a message: one line, with invisible characters spelled ``\\uXXXX``."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    shown = "".join(char if char.isprintable() else f"\\u{ord(char):04x}" for char in text)
    return '"' + shown.replace('"', '\\"') + '"'


def _plain(text: object, what: str, end_ok: str, allow: str = "", ends: bool = True) -> str:
    if not isinstance(text, str):
        raise ValueError(f"{what} must be text, not {type(text).__name__}")
    if any(char in _LINE_BREAKS for char in text):
        raise ValueError(f"{what} {quote(text)} has a line break; it must be one line")
    for char in text:
        if _invisible(char):
            raise ValueError(
                f"{what} {quote(text)} has a control or invisible character (U+{ord(char):04X})"
            )
    clean = " ".join(text.split())
    if not clean:
        raise ValueError(f"{what} is empty")
    if _LINK.search(clean):
        raise ValueError(f"{what} {quote(clean)} has a link or URL; labels are plain text")
    for char in _MARKDOWN:
        if char in clean and char not in allow:
            raise ValueError(f"{what} {quote(clean)} has markdown ({char!r}); use plain text")
    # Allowing "_" lets paths such as pkg/__init__.py through, emphasis markers with them.
    emphasis = _EMPHASIS.search(clean) if "_" not in allow else None
    if emphasis:
        raise ValueError(
            f"{what} {quote(clean)} has markdown emphasis ({emphasis.group()!r}); use plain text"
        )
    if _ENTITY.search(clean):
        raise ValueError(f"{what} {quote(clean)} has an HTML entity; use plain text")
    if "@" not in allow and MENTION.search(clean):
        raise ValueError(f"{what} {quote(clean)} has an @mention; use plain text")
    if not ends:
        return clean
    if not clean[0].isalnum():
        raise ValueError(f"{what} {quote(clean)} starts with {clean[0]!r}; start with a word")
    if not (clean[-1].isalnum() or clean[-1] in end_ok):
        raise ValueError(f"{what} {quote(clean)} ends with {clean[-1]!r}; end with a word")
    return clean


def _invisible(char: str) -> bool:
    return char != "\t" and unicodedata.category(char) in _INVISIBLE


def _count(text: str, what: str, least: int, most: int, chars: int) -> None:
    words = len(text.split())
    if not least <= words <= most:
        plural = "word" if words == 1 else "words"
        raise ValueError(
            f"{what} {quote(text)} has {words} {plural}; it must have {least} to {most}"
        )
    if len(text) > chars:
        raise ValueError(f"{what} {quote(text)} has {len(text)} characters; at most {chars}")
