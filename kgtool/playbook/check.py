"""Checking every playbook: read it, resolve each pointer and concept, refuse what fails.

A playbook is refused when it has an error: a front-matter problem, or a key file that is
ambiguous, missing or invalid (and, when configured, an unresolved or stale concept). It is
executable (an agent may act on it alone) only when it is active and nothing refuses it.
Retired playbooks are still read, but their pointers only warn: nobody should follow them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.findings import ERROR, WARNING, Finding, kept
from kgtool.ontology.validate import validate_concept
from kgtool.playbook.concepts import ConceptIndex, load_concepts
from kgtool.playbook.layer1 import Layer1, load_layer1
from kgtool.playbook.model import ACTIVE, RETIRED, Playbook, Scalar
from kgtool.playbook.parse import load_playbooks
from kgtool.playbook.resolve import (
    AMBIGUOUS,
    INVALID,
    MISSING,
    Resolution,
    Resolver,
    invalid_reason,
)
from kgtool.playbook.suggest import Suggester, Suggestion
from kgtool.store import Store

TODO = "TODO"  # what ``kgtool playbooks new`` leaves for a person to fill in

POINTER_CODES = {MISSING: "P411", AMBIGUOUS: "P412", INVALID: "P413"}
CANNOT_RUN = "P400"
UNRESOLVED_CONCEPT = "P421"
STALE_CONCEPT = "P422"
NOT_PLAIN_CONCEPT = "P423"
TODO_LEFT = "P431"


class PointerResult(NamedTuple):
    scalar: Scalar
    resolution: Resolution
    suggestion: Suggestion | None = None


class ConceptResult(NamedTuple):
    scalar: Scalar
    community: str  # "" when unresolved
    stale: str = ""  # why its label is stale


class PlaybookReport:
    __slots__ = ("concepts", "playbook", "pointers", "problems")

    playbook: Playbook
    pointers: list[PointerResult]
    concepts: list[ConceptResult]
    problems: list[Finding]

    def __init__(
        self,
        playbook: Playbook,
        pointers: list[PointerResult] | None = None,
        concepts: list[ConceptResult] | None = None,
        problems: list[Finding] | None = None,
    ) -> None:
        self.playbook = playbook
        self.pointers = [] if pointers is None else pointers
        self.concepts = [] if concepts is None else concepts
        self.problems = [] if problems is None else problems

    @property
    def errors(self) -> list[Finding]:
        return [p for p in self.problems if p.level == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [p for p in self.problems if p.level == WARNING]

    @property
    def refused(self) -> bool:
        return bool(self.errors)

    @property
    def executable(self) -> bool:
        return (
            self.playbook.status == ACTIVE
            and not self.refused
            and all(p.resolution.resolved for p in self.pointers)
        )


class CheckReport:
    __slots__ = ("notes", "playbooks")

    playbooks: list[PlaybookReport]
    notes: list[Finding]  # run-wide warnings, said once

    def __init__(self, playbooks: list[PlaybookReport], notes: list[Finding] | None = None) -> None:
        self.playbooks = playbooks
        self.notes = [] if notes is None else notes

    @property
    def ok(self) -> bool:
        return not any(r.refused for r in self.playbooks)

    def findings(self) -> list[Finding]:
        """Every problem, playbook by playbook (each in line order), then the run's notes."""
        return [p for r in self.playbooks for p in r.problems] + self.notes

    def summary(self) -> str:
        total = len(self.playbooks)
        refused = sum(r.refused for r in self.playbooks)
        executable = sum(r.executable for r in self.playbooks)
        return f"{total} playbook{'s' * (total != 1)}: {executable} executable, {refused} refused"


def playbooks_dir(config: Config) -> str:
    directory: str = config.section("playbooks")["dir"].strip().rstrip("/")
    reason = invalid_reason(directory)
    if reason:
        raise KgError(
            f"setting 'playbooks.dir' ({directory!r}) is not usable: {reason}",
            config.source,
            code=CANNOT_RUN,
        )
    return directory


def check_playbooks(root: Path, config: Config, store: Store) -> CheckReport:
    settings = config.section("playbooks")
    playbooks = load_playbooks(root, playbooks_dir(config), settings["max_bytes"])
    report = CheckReport([])
    if not playbooks:
        return report
    return check_against(playbooks, load_layer1(root, config, store), root, store, config)


def check_against(
    playbooks: list[Playbook], view: Layer1, root: Path, store: Store, config: Config
) -> CheckReport:
    """The check of ``playbooks`` against a given layer-1 view (a reader that must not parse
    passes the graph as committed in .kg/raw/)."""
    settings = config.section("playbooks")
    report = CheckReport([])
    concepts = load_concepts(store)
    resolver = Resolver(view, root)
    suggester = Suggester(view, root, settings["history_commits"])
    for playbook in playbooks:
        report.playbooks.append(_check_one(playbook, resolver, suggester, concepts, settings))
    report.notes.extend(view.notes)
    unsearched = suggester.note(playbooks_dir(config))
    if unsearched is not None:
        report.notes.append(unsearched)
    if any(r.playbook.concepts for r in report.playbooks):
        report.notes.extend(concepts.notes)
    # Silenced here, not where they are printed: a silenced error refuses no playbook.
    for entry in report.playbooks:
        entry.problems = kept(entry.problems, config["ignore"])
    report.notes = kept(report.notes, config["ignore"])
    return report


def _check_one(
    playbook: Playbook,
    resolver: Resolver,
    suggester: Suggester,
    concepts: ConceptIndex,
    settings: dict[str, Any],
) -> PlaybookReport:
    report = PlaybookReport(playbook, problems=list(playbook.problems))
    # A retired playbook's rot matters to nobody following it; say so, refuse nothing.
    pointer_severity = WARNING if playbook.status == RETIRED else ERROR
    for scalar in playbook.key_files:
        resolution = resolver.resolve(scalar.value)
        suggestion = suggester.suggest(resolution) if resolution.outcome == MISSING else None
        report.pointers.append(PointerResult(scalar, resolution, suggestion))
        if not resolution.resolved:
            report.problems.append(
                Finding(
                    playbook.path,
                    scalar.line,
                    pointer_severity,
                    POINTER_CODES[resolution.outcome],
                    describe(scalar.value, resolution, suggestion),
                )
            )
    for scalar in playbook.concepts:
        try:
            validate_concept(scalar.value)
        except ValueError as exc:
            # Never shown as a concept (in a skill, an agent's context): it is refused here.
            report.problems.append(
                Finding(playbook.path, scalar.line, pointer_severity, NOT_PLAIN_CONCEPT, str(exc))
            )
            continue
        community = concepts.resolve(scalar.value) if concepts.available else ""
        stale = concepts.stale.get(community, "") if community else ""
        report.concepts.append(ConceptResult(scalar, community, stale))
        if not concepts.available:
            continue
        if not community:
            severity = ERROR if settings["fail_on_unresolved_concepts"] else WARNING
            report.problems.append(
                Finding(
                    playbook.path,
                    scalar.line,
                    min(severity, pointer_severity, key=_rank),
                    UNRESOLVED_CONCEPT,
                    f"concept '{scalar.value}' is unresolved: no layer-3 name or community ID "
                    "matches it",
                )
            )
        elif stale:
            severity = ERROR if settings["fail_on_stale_concepts"] else WARNING
            report.problems.append(
                Finding(
                    playbook.path,
                    scalar.line,
                    min(severity, pointer_severity, key=_rank),
                    STALE_CONCEPT,
                    f"concept '{scalar.value}' ({community}) is stale: {stale}",
                )
            )
    for name in ("validation", "pitfalls", "rollback"):
        if any(step.lstrip().startswith(TODO) for step in getattr(playbook, name)):
            report.problems.append(
                Finding(
                    playbook.path,
                    playbook.line_of(name),
                    WARNING,
                    TODO_LEFT,
                    f"field '{name}' still holds a {TODO} from the skeleton",
                )
            )
    report.problems.sort(key=lambda p: (p.line, _rank(p.level)))
    return report


def _rank(severity: str) -> int:
    """Warnings rank lower than errors: ``min`` keeps the milder of two severities."""
    return 0 if severity == WARNING else 1


def describe(pointer: str, resolution: Resolution, suggestion: Suggestion | None) -> str:
    head = f"key file '{pointer}' does not resolve ({resolution.outcome})"
    if resolution.outcome == INVALID:
        return f"{head}: {resolution.reason}"
    if resolution.outcome == MISSING:
        detail = f": {resolution.reason}" if resolution.reason else ""
        hint = f"; {suggestion.text}" if suggestion and suggestion.text else ""
        return f"{head}{detail}{hint}"
    shown = ", ".join(resolution.candidates[:8])
    more = len(resolution.candidates) - 8
    return f"{head}: it matches {shown}" + (f" and {more} more" if more > 0 else "")
