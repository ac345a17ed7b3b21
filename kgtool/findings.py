"""Findings: every problem, warning and note kgtool reports, in one shape.

A finding prints as ``path:line: level: CODE message`` (the line is left out when the finding
is about a file as a whole, the path when it is about no file), as compilers and linters do,
so that editors, CI annotations and ``grep`` read every command's output alike. Each kind of
finding has a short stable code, numbered by layer (R1xx the raw graph, C2xx communities, L3xx
labels, P4xx playbooks, K0xx settings), which the setting ``ignore`` silences.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeVar

from kgtool.escape import printable

ERROR = "error"  # fails the command (exit 1)
WARNING = "warning"  # worth fixing; fails nothing
NOTE = "note"  # expected, said so nobody wonders (a skipped binary file)

# The JSON documents' format; raised only when a field changes meaning or goes away.
JSON_VERSION = 1

# Every code, with what it means in one line: docs/findings.md's table is this one.
CODES: dict[str, str] = {
    "K001": "the settings file cannot be read (invalid YAML, TOML or UTF-8, not a mapping)",
    "K002": "unknown setting",
    "K003": "a setting has the wrong type",
    "K004": "a setting is out of its range",
    "K005": "'ignore' names a code kgtool does not have, or one that cannot be silenced",
    "R100": "the raw graph check could not read its input",
    "R101": ".kg/raw/ is out of date",
    "R102": "broken import: it names this repository's own code, which has no such module",
    "R103": "partially parsed: syntax errors",
    "R104": "partially parsed: a limitation of the bundled grammar, not a syntax error",
    "R105": "partially parsed: nested deeper than the parser follows",
    "R106": "file skipped (binary, too large, ...): a file node with no symbols",
    "R107": "file left out: its name is not UTF-8",
    "R108": "files under .kg/cache/ are tracked by git: never read (the cache is local)",
    "C200": "the communities check could not read its input",
    "C201": "layer 2 (.kg/communities.json or the map) is out of date",
    "C202": "a workspace manifest cannot be read: the packages it declares are not used",
    "L300": "the labels check could not read its input (.kg/ontology.yaml, communities.json)",
    "L301": "a community's label drifted",
    "L302": "an edge's phrase drifted",
    "L303": "a label has no evidence, so its drift cannot be checked",
    "L304": "no .kg/communities.json to check the labels against",
    "P400": "the playbook check could not run (setting 'playbooks.dir')",
    "P401": "a playbook file is not read (too large, unreadable, not UTF-8, out of the repository)",
    "P402": "a playbook's front matter cannot be read (missing, invalid YAML, duplicate field)",
    "P403": "a playbook field is unknown, missing or of the wrong type",
    "P404": "two playbooks have the same slug",
    "P405": "a playbook's slug is left out of `kgtool ci`'s step outputs: unsafe in a script",
    "P411": "a key file does not resolve: missing",
    "P412": "a key file does not resolve: ambiguous",
    "P413": "a key file does not resolve: invalid (outside the repository, not a file, ...)",
    "P421": "a concept names no layer-3 name or community ID",
    "P422": "a concept's layer-3 label is stale",
    "P423": "a concept is not plain text (markup, a link, an @mention, a control character)",
    "P431": "a field still holds a TODO from the skeleton",
    "P441": "pointers were checked without .kg/raw/ (missing or damaged)",
    "P442": "concepts were checked without layer 2 or 3, or not at all",
    "P443": "missing key files past the run's search budget got no nearest path or symbol",
}

# Settings errors stop every command: there is nothing to silence them for.
UNSILENCEABLE_PREFIX = "K"
# Nor can the verdict that .kg/ is not what `kgtool update` would write now: the settings
# are a file a pull request can change, and an ignored R101 would let it pass a stale map.
FRESHNESS_CODES = frozenset({"R101", "R108", "C201"})


class _FindingFields(NamedTuple):
    path: str  # repository-relative; "" when the finding is about no one file
    line: int  # 1-based; 0 when it is about the file as a whole
    level: str  # ERROR, WARNING or NOTE
    code: str  # a key of CODES
    message: str


class Finding(_FindingFields):
    # A tuple, not a dataclass, as every record a hook run makes (see FileFacts in
    # kgtool/raw/model.py); the check of the code stays.
    __slots__ = ()

    def __new__(cls, path: str, line: int, level: str, code: str, message: str) -> Finding:
        if code not in CODES:
            raise ValueError(f"unknown finding code {code!r}")
        return super().__new__(cls, path, line, level, code, message)

    def format(self) -> str:
        """One line, whatever the repository named its files or wrote in them: a newline or
        a terminal's escape sequence in a path or a quoted pointer is spelled out."""
        path = printable(self.path)
        where = f"{path}:{self.line}: " if path and self.line else ""
        if path and not self.line:
            where = f"{path}: "
        return f"{where}{self.level}: {self.code} {printable(self.message)}"

    def __str__(self) -> str:
        return self.format()

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path or None,
            "line": self.line or None,
            "level": self.level,
            "code": self.code,
            "message": self.message,
        }

    @property
    def is_error(self) -> bool:
        return self.level == ERROR


T = TypeVar("T")


def _itself(item: Any) -> Any:
    return item


def kept(findings: Iterable[Finding], ignore: Iterable[str]) -> list[Finding]:
    """``findings`` without those whose code the setting ``ignore`` silences."""
    # The settings refuse to name FRESHNESS_CODES (K005); this holds for any other caller.
    silenced = frozenset(ignore) - FRESHNESS_CODES
    return [f for f in findings if f.code not in silenced]


def unique(items: Iterable[T], finding_of: Callable[[T], Finding] = _itself) -> list[T]:
    """``items`` in order, each finding once: a broken file fails every check that reads it
    (each under its own code), and is said once, by the first."""
    said: set[tuple[str, int, str]] = set()
    found = []
    for item in items:
        finding = finding_of(item)
        key = (finding.path, finding.line, finding.message)
        if key not in said:
            said.add(key)
            found.append(item)
    return found


def json_document(command: str, ok: bool, findings: list[Finding], **summary: Any) -> str:
    """The one JSON document ``--format json`` prints: keys in a fixed order, no timings."""
    document = {
        "version": JSON_VERSION,
        "command": command,
        "ok": ok,
        "summary": summary,
        "findings": [f.as_json() for f in findings],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
