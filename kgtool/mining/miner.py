"""One mining run: history, filters, patterns, proposals, and what was written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from kgtool.config import Config
from kgtool.file_kinds import LOCK_FILES
from kgtool.mining.filters import (
    MAX_FILES,
    REASONS,
    Filtered,
    VersionRewrites,
    filter_change_sets,
    version_rewrites,
)
from kgtool.mining.history import DIRECT, MERGE, SQUASH, History, read_history
from kgtool.mining.instances import instances_alike
from kgtool.mining.paths import Abstractor
from kgtool.mining.patterns import MIN_SUPPORT, Pattern, Task, find_patterns, make_tasks
from kgtool.mining.proposals import (
    MARK,
    Proposal,
    build_proposal,
    check_readable,
    distinct_titles,
    place,
    project_checks,
)
from kgtool.mining.prs import enrich, load_prs
from kgtool.playbook.check import playbooks_dir
from kgtool.playbook.concepts import load_concepts
from kgtool.playbook.layer1 import load_layer1
from kgtool.playbook.model import PROPOSED_DIR, Playbook
from kgtool.playbook.parse import discover, read_playbook
from kgtool.playbook.resolve import Resolver
from kgtool.repo import changed_text
from kgtool.store import Store, atomic_write

MAX_PROPOSALS = 10
BUMP_SAMPLE = 5  # the newest changes of a pattern whose diffs say whether it bumps versions
EXAMINED = 3  # patterns looked at for each proposal asked for, at most
MAX_DIFF_BYTES = 1_000_000  # a longer diff is no version bump, and is not read to its end
# Left out of the diffs read: a bump rewrites them by the megabyte, and they hold versions only.
LEAVE_OUT = (*sorted(LOCK_FILES), "*.lock")
Progress = Callable[[str], None]


class Options(NamedTuple):
    since: str | None = None
    max_changes: int = 0
    out: str | None = None  # folder for proposals (default: <playbooks dir>/proposed)
    prs: Path | None = None
    min_support: int = MIN_SUPPORT
    max_files: int = MAX_FILES
    max_proposals: int = MAX_PROPOSALS
    revision: str | None = None
    dry_run: bool = False
    llm: bool | None = None  # reword intent and pitfalls with Claude; None: mining.llm_prose


class Mined:
    """What the history gave, before anything is written."""

    __slots__ = ("filtered", "history", "patterns", "prs_matched", "sweeps")

    history: History
    filtered: Filtered
    prs_matched: int
    patterns: list[Pattern]
    sweeps: int  # candidate patterns set aside as sweeps (the same edit across siblings)

    def __init__(
        self,
        history: History,
        filtered: Filtered,
        prs_matched: int = 0,
        patterns: list[Pattern] | None = None,
        sweeps: int = 0,
    ) -> None:
        self.history = history
        self.filtered = filtered
        self.prs_matched = prs_matched
        self.patterns = [] if patterns is None else patterns
        self.sweeps = sweeps

    def tasks(self) -> list[Task]:
        """The kept change sets as tasks, oldest first, their added files abstracted."""
        # Which words are rare is a property of the repository's paths, so every path the
        # history read counts, filtered change sets included.
        changes = self.history.change_sets
        abstractor = Abstractor(
            sorted({p for c in changes for p in c.paths}),
            [[f.path for f in c.files if f.status == "A"] for c in changes],
        )
        return make_tasks(self.filtered.kept, abstractor)


class MineResult:
    __slots__ = (
        "dry_run",
        "mined",
        "outdated",
        "proposals",
        "prose",
        "skipped",
        "unchanged",
        "unlike",
        "updated",
        "version_bumps",
        "written",
    )

    mined: Mined
    proposals: list[tuple[Proposal, str, str]]  # (p, path, skip)
    written: list[str]
    updated: list[str]
    unchanged: list[str]
    skipped: list[str]
    prose: list[str]  # what the prose pass did, when it ran
    dry_run: bool
    version_bumps: int  # patterns passed over: their diffs rewrite only versions
    outdated: int  # patterns passed over: what makes them a task is gone from the tree
    unlike: int  # patterns passed over: the files they add share no shape

    def __init__(
        self,
        mined: Mined,
        proposals: list[tuple[Proposal, str, str]] | None = None,
        written: list[str] | None = None,
        updated: list[str] | None = None,
        unchanged: list[str] | None = None,
        skipped: list[str] | None = None,
        prose: list[str] | None = None,
        dry_run: bool = False,
        version_bumps: int = 0,
        outdated: int = 0,
        unlike: int = 0,
    ) -> None:
        self.mined = mined
        self.proposals = [] if proposals is None else proposals
        self.written = [] if written is None else written
        self.updated = [] if updated is None else updated
        self.unchanged = [] if unchanged is None else unchanged
        self.skipped = [] if skipped is None else skipped
        self.prose = [] if prose is None else prose
        self.dry_run = dry_run
        self.version_bumps = version_bumps
        self.outdated = outdated
        self.unlike = unlike

    def summary(self) -> list[str]:
        history = self.mined.history
        kinds = {kind: 0 for kind in (MERGE, SQUASH, DIRECT)}
        for change in history.change_sets:
            kinds[change.kind] += 1
        filtered = self.mined.filtered
        lines = [
            f"read {len(history.change_sets)} change sets on {history.branch} "
            f"({kinds[MERGE]} merges, {kinds[SQUASH]} squashed pull requests, "
            f"{kinds[DIRECT]} direct commits)",
        ]
        if self.mined.prs_matched:
            lines.append(f"  {self.mined.prs_matched} matched a saved pull request")
        aside = [(r, len(filtered.set_aside.get(r, []))) for r in REASONS]
        lines.append(
            f"set aside {sum(n for _, n in aside)}: "
            + ", ".join(f"{reason} {count}" for reason, count in aside)
        )
        lines.append(
            f"{len(filtered.kept)} tasks ({filtered.follow_ups} follow-ups grouped with the "
            f"change they complete); {len(self.mined.patterns)} patterns found, "
            f"{self.mined.sweeps} candidates set aside as sweeps"
        )
        passed = self.version_bumps + self.outdated + self.unlike
        if passed:
            lines.append(
                f"passed over {passed} patterns: {self.version_bumps} whose diffs rewrite "
                f"only versions, {self.outdated} whose files (or the kind of file they add) "
                f"are gone from the tree, {self.unlike} whose new files share no symbol "
                "beyond their own names"
            )
        lines.append(
            f"proposals: {len(self.written)} written, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.skipped)} skipped"
            + ("; a dry run: nothing was written" if self.dry_run else "")
        )
        lines += [f"  skipped: {s}" for s in self.skipped]
        return lines + self.prose


def read_changes(root: Path, options: Options, progress: Progress | None = None) -> Mined:
    """The history's change sets, enriched by the saved pull requests and filtered."""
    say = progress or (lambda _text: None)
    # A bad pull-request list is reported before the history is read, not after it.
    prs = load_prs(options.prs) if options.prs is not None else None
    say("reading history")
    history = read_history(root, options.revision, options.since, options.max_changes)
    say(f"read {len(history.change_sets)} change sets")
    matched = enrich(history.change_sets, prs) if prs is not None else 0
    filtered = filter_change_sets(history.change_sets, history.branch, options.max_files)
    return Mined(history, filtered, matched)


def mine_history(root: Path, options: Options, progress: Progress | None = None) -> Mined:
    """:func:`read_changes`, and the patterns found in its tasks."""
    mined = read_changes(root, options, progress)
    sweeps: list[Pattern] = []
    mined.patterns = find_patterns(mined.tasks(), options.min_support, sweeps=sweeps)
    mined.sweeps = len(sweeps)
    if progress is not None:
        progress(f"found {len(mined.patterns)} patterns")
    return mined


def mine(
    root: Path, config: Config, store: Store, options: Options, progress: Progress | None = None
) -> MineResult:
    llm = options.llm if options.llm is not None else config.section("mining")["llm_prose"]
    if llm:  # a missing SDK is said before the history is read, not after
        import kgtool.mining.prose  # noqa: F401
    mined = mine_history(root, options, progress)
    result = MineResult(mined, dry_run=options.dry_run)
    directory = playbooks_dir(config)
    out_dir = (options.out or f"{directory}/{PROPOSED_DIR}").strip().rstrip("/")
    resolver = Resolver(load_layer1(root, config, store), root)
    concepts = load_concepts(store)
    checks = project_checks(root)
    proposals: list[Proposal] = []
    diffs: dict[str, VersionRewrites | None] = {}  # by commit: patterns share changes
    # Each pattern passed over costs a few diffs: a bounded number are looked at.
    for pattern in mined.patterns[: EXAMINED * options.max_proposals]:
        if len(proposals) >= options.max_proposals:
            break
        # A task that adds a kind of file adds files made to one shape.
        if instances_alike(pattern, resolver.view) is False:
            result.unlike += 1
            continue
        if _bumps_versions(root, pattern, diffs):
            result.version_bumps += 1
            continue
        proposal = build_proposal(pattern, resolver, concepts, checks, mined.filtered.reverts)
        if proposal is None:
            result.outdated += 1
            continue
        proposals.append(proposal)
    existing = _existing(root, directory, out_dir, config.section("playbooks")["max_bytes"])
    result.proposals = place(distinct_titles(proposals), existing, out_dir)
    if llm:
        result.prose = _reword(
            [p for p, _, skip in result.proposals if not skip], config, options.dry_run
        )
    rendered: list[tuple[str, bytes]] = []
    for proposal, path, skip in result.proposals:
        if skip:
            result.skipped.append(f"“{proposal.title}”: {skip}")
            continue
        text = proposal.render()
        check_readable(path, text)
        rendered.append((path, text.encode("utf-8")))
    # Every proposal reads back before any is written: a run that fails writes nothing.
    for path, data in rendered:
        full = root / path
        before = full.read_bytes() if full.is_file() else None
        if before == data:
            result.unchanged.append(path)
            continue
        (result.updated if before is not None else result.written).append(path)
        if not options.dry_run:
            atomic_write(full, data)
    return result


def _bumps_versions(root: Path, pattern: Pattern, diffs: dict[str, VersionRewrites | None]) -> bool:
    """Whether its newest changes are version bumps, read from their diffs ("Update Go to
    1.25.4" over CI, Makefile and go.mod, however it is titled): most of them rewrite a
    version, and one at least does nothing else (a release's bump may come with its notes
    and a few touches; a task that also moves a dependency never is only that)."""
    newest = pattern.tasks[-BUMP_SAMPLE:]
    for task in newest:
        if task.change.id not in diffs:
            diff = changed_text(root, task.change.id, MAX_DIFF_BYTES, LEAVE_OUT)
            diffs[task.change.id] = version_rewrites(*diff) if diff is not None else None
    found = [diffs[task.change.id] for task in newest]
    rewrites = [r for r in found if r is not None and r.rewrites_a_version]
    return any(r.rewrites_only_versions for r in rewrites) and 2 * len(rewrites) > len(newest)


def _reword(proposals: list[Proposal], config: Config, dry_run: bool) -> list[str]:
    """The optional prose pass, in place; its summary lines. It never fails the run."""
    from kgtool.mining.prose import ProseWriter  # the SDK loads only when it is used

    writer = ProseWriter(config.section("ontology"))
    report = writer.plan(proposals) if dry_run else writer.rewrite(proposals)
    return report.lines()


def _existing(
    root: Path, directory: str, out_dir: str, max_bytes: int
) -> list[tuple[Playbook, bool]]:
    """Every playbook already there, and whether the miner wrote it (a proposal of its own)."""
    paths = set(discover(root, directory))
    folder = root / out_dir
    if folder.is_dir():
        paths |= {
            f"{out_dir}/{p.name}"
            for p in folder.iterdir()
            if p.suffix == ".md" and p.name.lower() != "readme.md"
        }
    found = []
    for path in sorted(paths):
        playbook = read_playbook(root, path, max_bytes)
        try:
            head = (root / path).read_text(encoding="utf-8", errors="replace")[:400]
        except OSError:
            head = ""
        found.append((playbook, MARK in head))
    return found
