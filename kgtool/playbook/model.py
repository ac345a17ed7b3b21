"""What a playbook is once read: its fields, each value with the line it was written on."""

from __future__ import annotations

from typing import Any, NamedTuple

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


class Scalar(NamedTuple):
    """One string value of the front matter and where its source text sits in the file.

    ``start``/``end`` are character offsets into the decoded file, covering the value as
    written (quotes included), so that ``fix`` can replace exactly those characters.
    """

    value: str
    line: int
    start: int = -1
    end: int = -1
    style: str = ""  # "" plain, "'" or '"' quoted, "|" or ">" block


class Playbook:
    __slots__ = (
        "concepts",
        "evidence",
        "field_lines",
        "intent",
        "key_files",
        "path",
        "pitfalls",
        "problems",
        "rollback",
        "slug",
        "status",
        "title",
        "validation",
    )

    path: str  # repository-relative, e.g. "playbooks/add-a-language.md"
    slug: str
    status: str
    title: str
    intent: str
    concepts: list[Scalar]
    key_files: list[Scalar]
    validation: list[str]
    pitfalls: list[str]
    rollback: list[str]
    evidence: Any
    field_lines: dict[str, int]  # field name -> line of its key
    problems: list[Finding]  # from reading the file

    def __init__(
        self,
        path: str,
        slug: str,
        status: str = ACTIVE,
        title: str = "",
        intent: str = "",
        concepts: list[Scalar] | None = None,
        key_files: list[Scalar] | None = None,
        validation: list[str] | None = None,
        pitfalls: list[str] | None = None,
        rollback: list[str] | None = None,
        evidence: Any = None,
        field_lines: dict[str, int] | None = None,
        problems: list[Finding] | None = None,
    ) -> None:
        self.path = path
        self.slug = slug
        self.status = status
        self.title = title
        self.intent = intent
        self.concepts = [] if concepts is None else concepts
        self.key_files = [] if key_files is None else key_files
        self.validation = [] if validation is None else validation
        self.pitfalls = [] if pitfalls is None else pitfalls
        self.rollback = [] if rollback is None else rollback
        self.evidence = evidence
        self.field_lines = {} if field_lines is None else field_lines
        self.problems = [] if problems is None else problems

    @property
    def readable(self) -> bool:
        """The front matter could be read at all (pointers can then be checked)."""
        return bool(self.field_lines)

    def line_of(self, name: str) -> int:
        return self.field_lines.get(name, 1)
