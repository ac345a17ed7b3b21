"""The first line of what a file says about itself: a module docstring or header comment.

Labelers get this one line per main file (never the file): it is often the best statement of
what a community is for. Licence headers and tool directives are skipped, not quoted.
"""

from __future__ import annotations

import re

HEAD_BYTES = 8192  # a file's description sits at its top
MAX_CHARS = 160
_SKIP = re.compile(r"copyright|licen[cs]e|spdx|generated|eslint|prettier|@ts-|noqa|pragma", re.I)
_DIRECTIVES = ('"use strict";', "'use strict';", '"use client";', "'use client';")
_PY_DOC = re.compile(r'^[ \t]*(?:[rRuU]|[bB][rR]?)?("""|\'\'\'|"|\')(.*?)(?:\1|$)', re.S)


def first_doc_line(path: str, text: str) -> str:
    """The first meaningful sentence at the top of ``text``; "" when there is none."""
    head = text[:HEAD_BYTES]
    if path.endswith((".py", ".pyi")):
        found = _python(head)
    elif path.endswith((".md", ".rst", ".txt")):
        found = _heading(head)
    else:
        found = _comment(head)
    return _clean(found)


def _python(head: str) -> str:
    lines = head.splitlines()
    body = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        body = lines[index:]
        break
    match = _PY_DOC.match("\n".join(body))
    if not match:
        return ""
    return _first_paragraph(match.group(2))


def _comment(head: str) -> str:
    lines = head.splitlines()
    block: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#!") or stripped in _DIRECTIVES:
            if block:
                text = _first_paragraph("\n".join(block))
                if text and not _SKIP.search(text):
                    return text
                block = []
            continue
        if stripped.startswith(("//", "/*", "*", "*/")):
            block.append(stripped.lstrip("/*!").strip())
            continue
        break
    text = _first_paragraph("\n".join(block))
    return "" if _SKIP.search(text) else text


def _heading(head: str) -> str:
    for line in head.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            return stripped.lstrip("#").strip()
        if stripped:
            return stripped
    return ""


def _first_paragraph(text: str) -> str:
    paragraph = []
    for line in text.strip().splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    return " ".join(paragraph)


def _clean(text: str) -> str:
    text = " ".join(text.split())
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    if len(sentence) > MAX_CHARS:
        sentence = sentence[: MAX_CHARS - 1].rstrip() + "…"
    return sentence
