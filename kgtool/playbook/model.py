"""What a playbook is once read: its fields, each value with the line it was written on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgtool.findings import ERROR, WARNING, Finding

__all__ = ["ERROR", "WARNING", "Finding"]  # the severities, as the playbook modules import them

REQUIRED_FIELDS = ("intent", "concepts", "key_files", "validation", "pitfalls", "rollback")
OPTIONAL_FIELDS = ("title", "status", "evidence")
KNOWN_FIELDS = REQUIRED_FIELDS + OPTIONAL_FIELDS

ACTIVE = "active"
PROPOSED = "proposed"
RETIRED = "retired"
STATUSES = (ACTIVE, PROPOSED, RETIRED)

PROPOSED_DIR = "proposed"  # under the playbooks folder: where the miner writes proposals


@dataclass(frozen=True)
class Scalar:
    """One string value of the front matter and where its source text sits in the file.

    ``start``/``end`` are character offsets into the decoded file, covering the value as
    written (quotes included), so that ``fix`` can replace exactly those characters.
    """

    value: str
    line: int
    start: int = -1
    end: int = -1
    style: str = ""  # "" plain, "'" or '"' quoted, "|" or ">" block


@dataclass
class Playbook:
    path: str  # repository-relative, e.g. "playbooks/add-a-language.md"
    slug: str
    status: str = ACTIVE
    title: str = ""
    intent: str = ""
    concepts: list[Scalar] = field(default_factory=list)
    key_files: list[Scalar] = field(default_factory=list)
    validation: list[str] = field(default_factory=list)
    pitfalls: list[str] = field(default_factory=list)
    rollback: list[str] = field(default_factory=list)
    evidence: Any = None
    field_lines: dict[str, int] = field(default_factory=dict)  # field name -> line of its key
    problems: list[Finding] = field(default_factory=list)  # from reading the file

    @property
    def readable(self) -> bool:
        """The front matter could be read at all (pointers can then be checked)."""
        return bool(self.field_lines)

    def line_of(self, name: str) -> int:
        return self.field_lines.get(name, 1)
