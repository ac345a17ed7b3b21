"""Playbooks as the read path shows them: each with its verdict, and what its pointers reach.

The verdict is the check's own (``kgtool playbooks check``), taken against the graph as
layer 1 records it: a reader parses nothing, so a key file edited since ``kgtool update`` is
judged by what it was then (the read commands say ``.kg/`` is out of date). A refused
playbook is marked as such wherever it appears, never offered as a recipe to follow.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.playbook.check import CheckReport, PlaybookReport, check_against, playbooks_dir
from kgtool.playbook.layer1 import Layer1
from kgtool.playbook.model import Playbook
from kgtool.playbook.parse import load_playbooks
from kgtool.query.kg import MapState, load_map, missing_notice
from kgtool.raw.graph import WHERE as RAW_WHERE
from kgtool.store import Store

EXECUTABLE = "executable"
REFUSED = "refused"
NOT_EXECUTABLE = "not executable"


class PlaybookStatus(NamedTuple):
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


def check_with_map(state: MapState, playbooks: list[Playbook]) -> CheckReport | None:
    """The verdict of ``kgtool playbooks check`` on ``playbooks``, against the graph as
    layer 1 records it (nothing is parsed); None when there is no graph to check against."""
    if not state.raw_present or not playbooks:
        return None
    # A file recorded with no blob id (a skipped file) is taken as recorded, never re-read.
    hashes = {p: h or "recorded" for p, h in state.raw_hashes.items()}
    symbols = {p: {s.qualname: s.kind for s in found} for p, found in state.symbols.items()}
    view = Layer1(
        dict(hashes), {}, symbols, hashes, True, state.root, state.config["max_file_bytes"]
    )
    return check_against(playbooks, view, state.root, state.store, state.config)


def read_playbooks(state: MapState) -> list[Playbook]:
    settings = state.config.section("playbooks")
    return load_playbooks(state.root, playbooks_dir(state.config), settings["max_bytes"])


def playbook_statuses(
    root: Path, config: Config, store: Store, state: MapState | None = None
) -> list[PlaybookStatus]:
    """Every playbook with its verdict; a one-line error when there is no ``.kg/`` to check
    them against."""
    state = state if state is not None else load_map(root, config, store)
    playbooks = read_playbooks(state)
    if not playbooks:
        return []
    report = check_with_map(state, playbooks)
    if report is None:
        raise KgError(missing_notice(state.missing or [RAW_WHERE]))
    return [PlaybookStatus(r) for r in report.playbooks]


def find_playbook(statuses: list[PlaybookStatus], name: str) -> PlaybookStatus:
    """The playbook a slug or path names; a one-line error naming the ones there are."""
    wanted = name.strip().removesuffix(".md").rsplit("/", 1)[-1]
    for status in statuses:
        if status.slug == wanted or status.path == name.strip():
            return status
    known = ", ".join(s.slug for s in statuses) or "none"
    raise KgError(f"no playbook named {name!r} (playbooks: {known})")
