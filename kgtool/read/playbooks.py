"""Playbooks as the read path shows them: each with its verdict, and what its pointers reach.

The verdict is the check's own (``kgtool playbooks check``): a refused playbook is marked as
such wherever it appears, never offered as a recipe to follow.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.playbook.check import PlaybookReport, check_playbooks
from kgtool.store import Store

EXECUTABLE = "executable"
REFUSED = "refused"
NOT_EXECUTABLE = "not executable"


@dataclass(frozen=True)
class PlaybookStatus:
    report: PlaybookReport

    @property
    def verdict(self) -> str:
        if self.report.executable:
            return EXECUTABLE
        return REFUSED if self.report.refused else NOT_EXECUTABLE

    @property
    def slug(self) -> str:
        return self.report.playbook.slug

    @property
    def path(self) -> str:
        return self.report.playbook.path

    @property
    def about(self) -> str:
        playbook = self.report.playbook
        return playbook.title or playbook.intent or playbook.path

    @property
    def pointers(self) -> list[tuple[str, str]]:
        """(pointer as written, the layer-1 node it reaches) for each key file; a pointer that
        does not resolve reaches its file when that part resolved (the symbol is missing)."""
        found = []
        for pointer in self.report.pointers:
            reached = pointer.resolution.target or pointer.resolution.path
            if reached:
                found.append((pointer.scalar.value, reached))
        return found

    @property
    def communities(self) -> list[str]:
        """The community IDs its concepts resolve to."""
        return [c.community for c in self.report.concepts if c.community]

    def line(self) -> str:
        """``slug (verdict, status): about``: one line, the verdict never left out."""
        status = self.report.playbook.status
        return f"{self.path} ({self.verdict}, {status}): {self.about}"


def playbook_statuses(root: Path, config: Config, store: Store) -> list[PlaybookStatus]:
    return [PlaybookStatus(r) for r in check_playbooks(root, config, store).playbooks]


def find_playbook(statuses: list[PlaybookStatus], name: str) -> PlaybookStatus:
    """The playbook a slug or path names; a one-line error naming the ones there are."""
    wanted = name.strip().removesuffix(".md").rsplit("/", 1)[-1]
    for status in statuses:
        if status.slug == wanted or status.path == name.strip():
            return status
    known = ", ".join(s.slug for s in statuses) or "none"
    raise KgError(f"no playbook named {name!r} (playbooks: {known})")
