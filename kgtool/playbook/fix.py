"""``playbooks fix``: rewrite the pointers whose new name is certain, and nothing else.

Certain means a single chain of git renames ending at a file in the graph (and, for
``path::Symbol``, a file that still defines the symbol). The edit replaces exactly the
characters of that YAML scalar; every other byte of the file is kept. The result is read back
before anything is written: if the new spelling would not parse to the new pointer (a plain
scalar that YAML reads differently), it is quoted; if that fails too, the file is left alone.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import NamedTuple

from kgtool.playbook.check import CheckReport, PlaybookReport
from kgtool.playbook.model import Playbook
from kgtool.playbook.parse import parse_playbook
from kgtool.store import atomic_write

BLOCK_STYLES = ("|", ">")


class FileFix(NamedTuple):
    path: str
    before: bytes
    after: bytes
    renames: list[tuple[int, str, str]]  # (line, old, new)

    def diff(self) -> str:
        old = self.before.decode("utf-8").splitlines(keepends=True)
        new = self.after.decode("utf-8").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class FixResult:
    __slots__ = ("fixes", "skipped")

    fixes: list[FileFix]
    skipped: list[str]  # "path:line: why it was not fixed"

    def __init__(
        self, fixes: list[FileFix] | None = None, skipped: list[str] | None = None
    ) -> None:
        self.fixes = [] if fixes is None else fixes
        self.skipped = [] if skipped is None else skipped


def plan_fixes(root: Path, report: CheckReport) -> FixResult:
    result = FixResult()
    for playbook_report in report.playbooks:
        fix = _plan_one(root, playbook_report, result.skipped)
        if fix is not None:
            result.fixes.append(fix)
    return result


def apply_fixes(root: Path, result: FixResult) -> None:
    for fix in result.fixes:
        atomic_write(root / fix.path, fix.after)


def _spell(value: str, style: str) -> str:
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style == '"':
        return json.dumps(value, ensure_ascii=False)
    return value


def _plan_one(root: Path, report: PlaybookReport, skipped: list[str]) -> FileFix | None:
    path = report.playbook.path
    edits = []
    for pointer in report.pointers:
        replacement = pointer.suggestion.replacement if pointer.suggestion else ""
        if not replacement:
            continue
        scalar = pointer.scalar
        if scalar.style in BLOCK_STYLES or scalar.start < 0:
            skipped.append(f"{path}:{scalar.line}: a block scalar; edit it by hand")
            continue
        edits.append((scalar, replacement))
    if not edits:
        return None
    before = (root / path).read_bytes()
    text = before.decode("utf-8")
    expected = {s.value: new for s, new in edits}
    for quoted in (False, True):
        pieces = []
        last = 0
        for scalar, new in sorted(edits, key=lambda e: e[0].start):
            style = '"' if quoted and scalar.style == "" else scalar.style
            pieces.append(text[last : scalar.start])
            pieces.append(_spell(new, style))
            last = scalar.end
        pieces.append(text[last:])
        after = "".join(pieces).encode("utf-8")
        if _reads_back(path, before, after, expected):
            renames = [(s.line, s.value, new) for s, new in edits]
            return FileFix(path, before, after, renames)
    skipped.append(f"{path}: the renamed pointers would not read back as written; edit by hand")
    return None


def _reads_back(path: str, before: bytes, after: bytes, expected: dict[str, str]) -> bool:
    """The rewritten file parses exactly as before, but for the renamed pointers."""
    old, new = parse_playbook(path, before), parse_playbook(path, after)
    if [str(p) for p in old.problems] != [str(p) for p in new.problems]:
        return False
    want = [expected.get(s.value, s.value) for s in old.key_files]
    if [s.value for s in new.key_files] != want:
        return False
    return _meaning(old) == _meaning(new)


def _meaning(playbook: Playbook) -> tuple[object, ...]:
    return (
        playbook.status,
        playbook.title,
        playbook.intent,
        [s.value for s in playbook.concepts],
        playbook.validation,
        playbook.pitfalls,
        playbook.rollback,
        repr(playbook.evidence),
        playbook.field_lines,
    )
