"""Recurring change patterns: file sets that come back, one task at a time.

Each task (a kept change set with its follow-ups) becomes a transaction of items: an added
file's abstract path (``tests/test_<name>.py``), an edited file's own path; bookkeeping files
are counted apart. A pattern grows around an anchor item that recurs in at least
``min_support`` tasks: those tasks are grouped by what their titles say they do (the verb:
add, fix, remove, change, document, test), and a group with ``min_support`` tasks or more is
one candidate task, whose file set is every item present in at least ``min_share`` of its
newest ``RECENT_CHANGES`` (the way the task is done now).

Changes are also grouped by task directly: their titles as templates (the verb, the words,
names as ``<name>``: "Add Zoom support" and "Add Pingram support" are one), and within one
template, the changes whose file sets overlap. That finds a task done a few times over files
that many other changes touch too, which no anchor file singles out. Every candidate is
ranked by how specific its files are to it (their lift over the whole history) with its
support counted with diminishing returns and its age discounted (a task last done years ago
is likelier done another way now); in a history long enough to tell busy files by, a
candidate whose files most changes touch is not a task unless it adds files. Candidates
that add the same kind of file are one task, joined from the changes of both.

Only two shapes are tasks: changes titled alike, and changes that add files of a kind. One
grown around a busy file that adds nothing ("Change an attachment in tests/test_http.py")
is that file's history, however its titles agree; one that adds only tests and test data
("Add a new plugins/gnmi/testcases/issue_<n>/expected.out") is one component's test suite
growing, not a task handed to a newcomer.

Why not exact frequent closed itemsets: one task that skipped one file of the set splits a
closed itemset in two, and the many subsets of a 10-file change make thousands of itemsets
for one task. An item's share of the group is its confidence, reported with the pattern's
support (the group's size) and its confidence as a rule (the group's share of the anchor's
tasks). Candidates that share most of their tasks are one task: the better-supported,
larger and additive one is kept.

A sweep is not a task: the same edit made across sibling files (``lib/pop3.c``, ``imap.c``,
``smtp.c``, ``ftp.c``) by refactors, renames and clean-ups recurs as a file set, but nobody
sets out to "change lib/pop3.c with lib/imap.c". A candidate whose files all sit in one
folder, that does not add files, and most of whose change sets touch many files of that
folder (``SWEEP_SIBLINGS``) with a title that names no task (the verb "change"), or several
with a title that says sweep (refactor, rename, tidy, bump...), is set aside as a sweep; so
is one whose files are of one name in sibling folders (``lib/rules/*/index.mjs``), and one
most of whose titles say the edit is cosmetic (typo, spelling, whitespace).
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import NamedTuple

from kgtool.communities.packages import MANIFESTS
from kgtool.file_kinds import in_data_folder, is_ci, is_lock_file, is_test
from kgtool.mining.history import ChangeSet
from kgtool.mining.paths import Abstractor, is_abstract, is_bookkeeping, same_kind
from kgtool.mining.paths import words as path_words
from kgtool.mining.titles import SLOT, singular, title_templates, title_words, verb_of

MIN_SUPPORT = 3
FEW_CHANGES = 5  # a task done fewer times has every one of its files in each change
MIN_SHARE = 0.5
RECENT_CHANGES = 10  # a task's files are what its newest changes touched...
NEWEST_WAY = 4  # ...and what each of its very newest touched: the way it is done now
# Changes titled alike are one task when their file sets overlap this much (Jaccard)...
TITLED_OVERLAP = 0.25
# ...and their template says more than a verb and a name.
MIN_TEMPLATE_WORDS = 1
NAMED_ONLY_OVERLAP = 0.5  # ...or this much when it says only a verb and a name
COMMON_ITEM_MEMBERS = 200  # a file held by more changes of a template is left out of overlaps
# A pattern's files must be this specific to it (log2(1 + lift): 1.3 is a lift of 1.46, its
# files half again likelier in its changes than in any) unless it adds files.
MIN_SPECIFICITY = 1.3
MIN_TASKS_FOR_LIFT = 30
CROWDED_FOLDERS = 20  # a folder holding this many folders holds members (plugins)...
CROWDED_FILES = 100  # ...and so does one holding this many files (rules, extractors)
MEMBER_SHARE = 0.05  # ...each holding less than this share of the family's changed files
HALF_LIFE_YEARS = 2.0  # a task last done this long before the newest change counts half
YEAR_SECONDS = 365.25 * 24 * 3600
STALE_YEARS = 4.0  # a task last done this long before the newest change is history...
LASTING = 10  # ...unless it was done this many times
COMPONENT_SHARE = 0.5  # titles agreeing on their file's own name, said mostly by them
TITLED_ALIKE = 1.5  # a pattern whose changes are titled alike is likelier one task
UPKEEP_VERBS = frozenset({"change", "fix"})
NAMED_KIND = 2.0  # ...and one whose titles name the kind of file it adds, likelier still
COMMON_KIND = 20  # a kind of file added this often is a task, however its titles read
OVERLAP = 0.5  # candidates sharing this Jaccard share of their tasks are one task...
SAME_FILES = 0.7  # ...and so are those of one verb sharing this share of their files
# A change set touching this many files of one folder is a sweep unless its title says what
# it does (add, fix, remove...: a feature may well touch most modules of a small package)...
SWEEP_SIBLINGS = 4
# ...and one touching two or more whose title has one of these words (scope included:
# "tidy-up: ...", "clang-tidy: ..."). Words that name things in some domain (style,
# format, sync) are left out: "Add style helpers" is a feature.
SWEEP_WORDS = frozenset(
    {
        "refactor", "refactors", "refactoring", "refactored", "rename", "renames", "renamed",
        "renaming", "cleanup", "cleanups", "tidy", "tidy-up", "tidy-ups", "clang-tidy", "bump",
        "bumps", "reformat", "reformatted", "typo", "typos", "spelling", "codespell",
        "whitespace", "constify", "dedupe", "de-duplicate", "deduplicate", "simplify",
        "simplified", "modernize",
    }
)  # fmt: skip

COSMETIC_WORDS = frozenset(
    {"typo", "typos", "spelling", "misspelling", "codespell", "whitespace", "grammar", "wording"}
)

_BARE_MERGE = re.compile(r"^(Merge (pull request|branch|remote-tracking)|Merged in )", re.I)


class Task(NamedTuple):
    change: ChangeSet
    items: dict[str, list[str]]  # item -> the concrete paths it stands for here
    added: set[str]  # items that were new files in this task
    bookkeeping: set[str]
    verb: str

    @property
    def files(self) -> list[str]:
        """The task's own paths, sorted (bookkeeping left out)."""
        return sorted(p for paths in self.items.values() for p in paths)


class Pattern:
    __slots__ = (
        "age_years",
        "anchor",
        "anchor_support",
        "bookkeeping",
        "items",
        "specificity",
        "tasks",
        "template",
        "verb",
    )

    anchor: str
    verb: str
    tasks: list[Task]  # oldest first
    items: list[tuple[str, int]]  # item, tasks that have it; most frequent first
    anchor_support: int
    bookkeeping: list[tuple[str, int]]
    # The title its changes share, names as <name> ("add <name> notification"); empty for a
    # pattern grown around its anchor file.
    template: tuple[str, ...]
    # How specific its files are to it: their share of its changes over their share of all
    # (the mean of log2(1 + lift) over its items), set by find_patterns.
    specificity: float
    # Years from its newest change to the newest change of the history read (not the
    # clock: the same history ranks the same whenever it is mined), set by find_patterns.
    age_years: float

    def __init__(
        self,
        anchor: str,
        verb: str,
        tasks: list[Task],
        items: list[tuple[str, int]],
        anchor_support: int,
        bookkeeping: list[tuple[str, int]] | None = None,
        template: tuple[str, ...] = (),
        specificity: float = 1.0,
        age_years: float = 0.0,
    ) -> None:
        self.anchor = anchor
        self.verb = verb
        self.tasks = tasks
        self.items = items
        self.anchor_support = anchor_support
        self.bookkeeping = [] if bookkeeping is None else bookkeeping
        self.template = template
        self.specificity = specificity
        self.age_years = age_years

    @property
    def support(self) -> int:
        return len(self.tasks)

    @property
    def confidence(self) -> float:
        return self.support / self.anchor_support if self.anchor_support else 0.0

    @property
    def additive(self) -> bool:
        """Most of its tasks added files of the pattern (the "add a new X" kind)."""
        new = sum(1 for t in self.tasks if t.added & {i for i, _ in self.items})
        return 2 * new > len(self.tasks)

    def added_mostly(self, item: str) -> bool:
        """Whether most of its changes added ``item`` (a new file of its kind)."""
        return 2 * sum(item in task.added for task in self.tasks) > self.support

    @property
    def task_verb(self) -> str:
        """What it does, as its proposal says: a change that adds files adds ("Hungarian
        locale" with a new src/locale/hu/ is an addition)."""
        return "add" if self.verb == "change" and self.additive else self.verb

    @property
    def new_kinds(self) -> list[str]:
        """The kinds of file (abstract items) most of its changes added, most frequent first."""
        return [item for item, _ in self.items if is_abstract(item) and self.added_mostly(item)]

    @property
    def adds_a_kind(self) -> bool:
        """Most of its changes added a file of one of its kinds (``plugins/<name>.py``)."""
        return bool(self.new_kinds)

    @property
    def says_words(self) -> bool:
        """Its changes are titled alike in words, not only in a verb and names ("Add
        <name>" says nothing of what was added)."""
        return any(word != SLOT for word in self.template[1:])

    def recent_count(self, item: str) -> tuple[int, int]:
        """How many of its newest RECENT_CHANGES changes hold ``item``, and how many those
        are: what its file set was chosen by."""
        recent = self.tasks[-RECENT_CHANGES:]
        return sum(1 for task in recent if item in task.items), len(recent)

    def newest_count(self, item: str) -> tuple[int, int]:
        """How many of its NEWEST_WAY newest changes hold ``item``, and how many those are:
        the way it is done now (a file in each of them is one of its files, see _recipe)."""
        newest = self.tasks[-NEWEST_WAY:]
        return sum(1 for task in newest if item in task.items), len(newest)

    def newest_first(self) -> list[tuple[str, int]]:
        """Its items, those its NEWEST_WAY newest changes touched most first (the way it is
        done now), then by how many of all its changes have them."""
        return sorted(
            self.items, key=lambda pair: (-self.newest_count(pair[0])[0], -pair[1], pair[0])
        )

    @property
    def key(self) -> tuple[str, str]:
        return (self.verb, self.anchor)

    def score(self) -> float:
        # Support counts, with diminishing returns: forty changes that share a verb and one
        # busy file are weaker evidence of a task than five titled alike over the same files,
        # which is what specificity and the shared title say. An additive task is what a
        # playbook helps with most; one last done years ago is likelier done another way now.
        titled = TITLED_ALIKE if self.template else 1.0
        # Titles that call the new thing by its folder's name ("Add a lexer" over
        # pygments/lexers/<name>.py) say the task in the project's own words.
        named = NAMED_KIND if names_its_kind(self) else 1.0
        score: float = (
            named
            * self.support**0.5
            * min(len(self.items), 5)
            * self.specificity
            * titled
            * (1.5 if self.additive else 1)
            * 0.5 ** (self.age_years / HALF_LIFE_YEARS)
        )
        return score


def make_tasks(change_sets: list[ChangeSet], abstractor: Abstractor) -> list[Task]:
    tasks = []
    for change in change_sets:
        items: dict[str, list[str]] = {}
        item_of: dict[str, str] = {}  # path -> its item: one item per file in a task
        added: set[str] = set()
        bookkeeping: set[str] = set()
        for part in [change, *change.follow_ups]:
            for file in part.files:
                if file.status == "D":
                    continue
                if is_bookkeeping(file.path):
                    bookkeeping.add(file.path)
                    continue
                # A follow-up's edit of a file the change added is still that added file;
                # a file the change edited keeps its path, whatever a follow-up did.
                item = item_of.get(file.path)
                if item is None:
                    item = abstractor.abstract(file.path) if file.status == "A" else file.path
                    item_of[file.path] = item
                    items.setdefault(item, []).append(file.path)
                if file.status == "A":
                    added.add(item)
        tasks.append(Task(change, items, added, bookkeeping, verb_of(change.title)))
    return tasks


def find_patterns(
    tasks: list[Task],
    min_support: int = MIN_SUPPORT,
    min_share: float = MIN_SHARE,
    sweeps: list[Pattern] | None = None,
) -> list[Pattern]:
    """Every distinct recurring task, best first (see the module's docstring); the
    candidates set aside as sweeps are added to ``sweeps`` when it is given.

    Long because it is the miner's sequence of rules, each a line or two with the comment
    that says what it keeps out and which repository showed it: candidates grown around
    each file and titled alike, then dated, then held to being a task (not a busy file's
    history, upkeep, a test suite growing, one member's or component's work, the project's
    machinery); read in order, the rules are the miner's definition of a task."""
    by_item: dict[str, list[int]] = defaultdict(list)
    for index, task in enumerate(tasks):
        for item in task.items:
            by_item[item].append(index)
    candidates: list[Pattern] = []
    for anchor in sorted(by_item):
        members = by_item[anchor]
        if len(members) < min_support:
            continue
        groups: dict[str, list[int]] = defaultdict(list)
        for index in members:
            groups[tasks[index].verb].append(index)
        for verb in sorted(groups):
            group = groups[verb]
            if len(group) < min_support:
                continue
            items, bookkeeping = _recipe([tasks[i] for i in group], min_share)
            if len(items) < 2:
                continue
            candidate = Pattern(
                anchor, verb, [tasks[i] for i in group], items, len(members), bookkeeping
            )
            # Set aside before ``distinct``: a sweep must not hide a real task it overlaps.
            if is_sweep(candidate):
                if sweeps is not None:
                    sweeps.append(candidate)
                continue
            candidates.append(candidate)
    for candidate in _titled_alike(tasks, by_item, min_support, min_share):
        if is_sweep(candidate):
            if sweeps is not None:
                sweeps.append(candidate)
            continue
        candidates.append(candidate)
    newest = max((task.change.time for task in tasks), default=0)
    for candidate in candidates:
        candidate.specificity = _specificity(candidate, by_item, len(tasks))
        last = max(task.change.time for task in candidate.tasks)  # commit times may not rise
        candidate.age_years = max(newest - last, 0) / YEAR_SECONDS
    # A task last done years ago, a few times, is history, not one to hand a newcomer now
    # (the external downloaders yt-dlp stopped adding, telegraf's inputs registered the
    # old way); one done many times may still be, and ranks lower by its age.
    candidates = [c for c in candidates if c.age_years <= STALE_YEARS or c.support >= LASTING]
    # Files that most changes touch say nothing about what a group of them does: forty
    # changes over the same busy files are forty tasks, unless they add files of a kind. A
    # short history has no background to tell busy files by: there, every candidate stays.
    if len(tasks) >= MIN_TASKS_FOR_LIFT:
        candidates = [c for c in candidates if c.additive or c.specificity >= MIN_SPECIFICITY]
    # Grown around a file, changes that add nothing are that file's history (forty edits of
    # a busy page, or eight "attachment" fixes of one test file): a task is titled alike,
    # in words, or adds a kind of file it names or adds often (see _is_task).
    candidates = [c for c in candidates if _is_task(c)]
    # Titled alike, changes that add nothing are a task when they say what they make or
    # take away ("Add an option", "Remove a deprecated flag"): "Fix a false positive" over
    # one rule's files and "[docs] Improvements" are upkeep, done anew each time.
    candidates = [c for c in candidates if c.adds_a_kind or c.verb not in UPKEEP_VERBS]
    # One that adds only tests and their data is a test suite growing (one plugin's cases).
    candidates = [c for c in candidates if not c.additive or not _adds_only_tests(c)]
    # Files added inside one member of a large family of folders (test data of one of 250
    # input plugins, a module of one provider) are that member's growth, not a task.
    crowded = _crowded(tasks)
    candidates = [c for c in candidates if not _inside_a_member(c, crowded)]
    # Work on one component is not a task: changes titled alike whose titles agree on
    # their file's own name ("Add X to procstat", "Fix Y in procstat": nearly every title
    # that says "procstat" is among them) are that component's history.
    said: Counter[str] = Counter()
    for task in tasks:
        if not _BARE_MERGE.match(task.change.title):
            said.update(title_words(task.change.title))
    candidates = [c for c in candidates if c.additive or not _one_component(c, said)]
    # ...nor are changes over one member of a crowded folder and its test ("Add a tag"
    # over plugins/inputs/smart/, "Add an indent rule" over lib/rules/indent.js and
    # tests/lib/rules/indent.js): that member's own feature work, however titled.
    candidates = [c for c in candidates if c.adds_a_kind or not _one_member(c, crowded)]
    # Upkeep of the project's own machinery (CI, templates, bots, its manifests and lock
    # files: "Drop Node 10" over package.json and the CI matrix) is no task in its code,
    # nor is adding to it (a new workflow, a new issue template).
    candidates = [c for c in candidates if not all(_is_machinery(item) for item, _ in c.items)]
    candidates = [c for c in candidates if not c.new_kinds or not all(map(is_ci, c.new_kinds))]
    # Joined, two candidates may tell one task anew: the same tests again.
    return [c for c in distinct(candidates, min_share) if _is_task(c) and _done_alike(c)]


def _done_alike(pattern: Pattern) -> bool:
    """Whether a task done only a few times was done alike each time, all its files in every
    change: three or four changes that share most of their files are as often a yearly
    chore or one feature in parts ("Add a global", "Add a formatter": 12 of 12 such
    proposals on thirteen repositories were rejected by the rubric of
    bench/results/mine-gold.md); and a task done more often has a file most of its changes
    touch. Asked once candidates are joined: a few changes may still tell a larger task more
    of its files."""
    if pattern.support < FEW_CHANGES:
        return all(n == pattern.support for _, n in pattern.items)
    # Done more often, a task still has a core: a file most of the changes its files were
    # chosen by touch (its newest, see _recipe: a task whose layout changed keeps its new
    # one). Six changes titled "Support <name> videos" whose files are each in three of them
    # (a site's extractor in half, the registry in the other half) are feature work.
    return any(2 * held > n for held, n in (pattern.recent_count(i) for i, _ in pattern.items))


def _is_task(pattern: Pattern) -> bool:
    """Titled alike in words, or adding a kind of file that its titles call by its
    folder's name ("Add a lexer": pygments/lexers/<name>.py), or that is added often
    enough to be the project's own way of growing (apprise's 200 plugins, titled by the
    service each one adds). "Add a new lib/shared/<name>.js", sixteen helpers titled each
    its own way, is how a codebase grows, not a task handed to a newcomer."""
    if pattern.says_words:
        return True
    return pattern.adds_a_kind and (names_its_kind(pattern) or pattern.support >= COMMON_KIND)


def _one_component(pattern: Pattern, said: Counter[str]) -> bool:
    counts = title_word_counts(pattern)
    if not counts:
        return False
    word, count = max(counts.items(), key=lambda pair: (pair[1], pair[0]))
    named = {singular(w) for w in path_words(pattern.anchor)}
    return word in named and count >= COMPONENT_SHARE * said[word]


def names_its_kind(pattern: Pattern) -> bool:
    """Whether its titles call what it adds by the name of the folder the new files go in:
    "Add a lexer" and pygments/lexers/<name>.py, "Add a linter" and pkg/golinters/<name>/."""
    return bool(_kind_word(pattern))


def _kind_word(pattern: Pattern) -> str:
    """The title word (said by a quarter of its changes, or its template's) that names the
    folder of a kind of file it adds, or ""; the most said one when several do."""
    counts = title_word_counts(pattern)
    said = {w for w, n in counts.items() if n >= max(2, pattern.support // 4)}
    said |= {w for w in pattern.template[1:] if w != SLOT}
    naming = set()
    for item in pattern.new_kinds:
        for folder in item.split("/")[:-1]:
            name = singular(folder.lower())
            naming |= {w for w in said if name == w or (len(w) >= 4 and name.endswith(w))}
    return min(naming, key=lambda w: (-counts[w], w)) if naming else ""


def object_of(pattern: Pattern) -> str:
    """The thing the task is about: the title word that names the folder of what it adds
    ("Add a message" over messages/<name>.js, though "error" and "config" are said more),
    else the word most of its titles share, or ""."""
    named = _kind_word(pattern)
    if named:
        return named
    counts = title_word_counts(pattern)
    best = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    if best and best[0][1] >= max(2, pattern.support // 4):
        return best[0][0]
    return ""


def title_word_counts(pattern: Pattern) -> Counter[str]:
    """How many of a pattern's changes say each title word (a bare merge subject, "Merge
    pull request #12 from a/b", says none)."""
    counts: Counter[str] = Counter()
    for task in pattern.tasks:
        if not _BARE_MERGE.match(task.change.title):
            counts.update(title_words(task.change.title))
    return counts


def _added_kinds(pattern: Pattern) -> set[str]:
    """The kinds of file (abstract paths) most of an additive pattern's changes added, its
    tests left out: a lexer and a formatter both come with a ``tests/test_<name>.py``, and
    are two tasks."""
    if not pattern.additive:
        return set()
    return {item for item in pattern.new_kinds if not is_test(item)}


def _is_machinery(item: str) -> bool:
    """A file of the project's machinery: CI, its manifests, its lock files."""
    return is_ci(item) or is_lock_file(item) or posixpath.basename(item) in MANIFESTS


def _adds_only_tests(pattern: Pattern) -> bool:
    """Whether every kind of file most of its changes added is a test or test data."""
    added = pattern.new_kinds
    return bool(added) and all(is_test(i) or in_data_folder(i) for i in added)


def _crowded(tasks: list[Task]) -> dict[str, Counter[str]]:
    """Folders of many members in the history's changes, CROWDED_FOLDERS folders or
    CROWDED_FILES files (plugins/inputs/ and its 250 plugins, lib/rules/, yt_dlp/extractor/),
    each with how many changed files each of its folders holds. Not the families of
    paths.Abstractor, folders made alike by a change or two each: a crowded folder's members
    may grow for years."""
    folders: dict[str, Counter[str]] = defaultdict(Counter)
    files: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        for path in task.files:
            parts = path.split("/")
            files["/".join(parts[:-1])].add(parts[-1])
            for depth in range(1, len(parts) - 1):
                folders["/".join(parts[:depth])][parts[depth]] += 1
    return {
        folder: folders[folder]
        for folder in sorted({*folders, *files})
        if len(folders[folder]) >= CROWDED_FOLDERS or len(files[folder]) >= CROWDED_FILES
    }


_TEST_AFFIX = re.compile(r"^test_|[_.-](test|tests|spec)$")


def _member(path: str, crowded: dict[str, Counter[str]]) -> str:
    """The member of a crowded folder ``path`` belongs to, as a name (``smart`` for
    plugins/inputs/smart/smart_test.go, ``indent`` for tests/lib/rules/indent.js), or ""."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        if "/".join(parts[:depth]) in crowded:
            name = parts[depth].split(".")[0].lower()
            return _TEST_AFFIX.sub("", name)
    return ""


def _one_member(pattern: Pattern, crowded: dict[str, Counter[str]]) -> bool:
    """Whether more than half of its files belong to one member of a crowded folder."""
    members = Counter(_member(item, crowded) for item, _ in pattern.items)
    members.pop("", None)
    return bool(members) and 2 * max(members.values()) > len(pattern.items)


def _inside_a_member(pattern: Pattern, crowded: dict[str, Counter[str]]) -> bool:
    """Whether every kind of file it adds lies inside one named member of a family
    (``plugins/inputs/kibana/testdata_<n>.go``), not one per member (``plugins/inputs/
    <name>/<name>.go``). A member is one of many: a small share of its family's changes
    (``lib/rules`` is most of what changes in ``lib``, a part, not a member)."""
    added = pattern.new_kinds

    def inside(item: str) -> bool:
        parts = item.split("/")[:-1]
        for depth in range(1, len(parts)):
            members = crowded.get("/".join(parts[:depth]))
            name = parts[depth]
            if (
                members
                and len(members) >= CROWDED_FOLDERS  # a family of folders, not of files
                and "<" not in name
                and members[name] < MEMBER_SHARE * members.total()
            ):
                return True
        return False

    return bool(added) and all(inside(item) for item in added)


def _specificity(pattern: Pattern, by_item: dict[str, list[int]], total: int) -> float:
    """How much likelier its files are in its changes than in any change: the mean of
    log2(1 + lift) over its best five items (a file every change touches has a lift of 1)."""
    lifts = [
        (count / pattern.support) / (len(by_item[item]) / total)
        for item, count in pattern.items[:5]
        if by_item.get(item)
    ]
    return sum(math.log2(1 + lift) for lift in lifts) / len(lifts) if lifts else 1.0


def _titled_alike(
    tasks: list[Task], by_item: dict[str, list[int]], min_support: int, min_share: float
) -> list[Pattern]:
    """Candidates of changes titled alike (one template) whose file sets overlap: a task done
    a few times with nearly the same files, whatever file is busiest."""
    templates = title_templates([task.change.title for task in tasks])
    buckets: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, template in enumerate(templates):
        said = [w for w in template[1:] if w != SLOT]
        # A bare merge subject names a branch, not a task; "change <name>" says nothing.
        if _BARE_MERGE.match(tasks[index].change.title) or (template[0] == "change" and not said):
            continue
        buckets[template].append(index)
    found = []
    for template in sorted(buckets):
        members = buckets[template]
        if len(members) < min_support:
            continue
        # A template that says only a verb and a name ("Add <name>"), or words between
        # names ("Add <name> format <name>": any title with "format" amid words few titles
        # have), groups changes only when their files say they are one task.
        said = [w for w in template[1:] if w != SLOT]
        amid = len(template) > 2 and template[1] == SLOT and template[-1] == SLOT
        weak = len(said) < MIN_TEMPLATE_WORDS or amid
        needed = NAMED_ONLY_OVERLAP if weak else TITLED_OVERLAP
        for group in _overlapping(members, tasks, needed):
            if len(group) < min_support:
                continue
            items, bookkeeping = _recipe([tasks[i] for i in group], min_share)
            if len(items) < 2:
                continue
            anchor = items[0][0]
            found.append(
                Pattern(
                    anchor,
                    template[0],
                    [tasks[i] for i in group],
                    items,
                    len(by_item[anchor]),
                    bookkeeping,
                    template=template,
                )
            )
    return found


def _overlapping(members: list[int], tasks: list[Task], needed: float) -> list[list[int]]:
    """``members`` joined where two file sets overlap ``needed`` (Jaccard) or more: the
    groups, each oldest first."""
    parent = {index: index for index in members}

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    # Only changes that share a file can overlap: each is compared with those, through the
    # files they hold. A file most of a large template's changes hold tells none of them
    # apart, and would make every pair a candidate: it is left out of both sides.
    holding: dict[str, list[int]] = defaultdict(list)
    for index in members:
        for item in tasks[index].items:
            holding[item].append(index)
    common = max(COMMON_ITEM_MEMBERS, len(members) // 2)
    items = {
        index: {item for item in tasks[index].items if len(holding[item]) <= common}
        for index in members
    }
    for first in members:
        shared: Counter[int] = Counter()
        for item in items[first]:
            shared.update(other for other in holding[item] if other > first)
        for second, count in sorted(shared.items()):
            union = len(items[first]) + len(items[second]) - count
            if union and count >= needed * union:
                parent[root(second)] = root(first)
    groups: dict[int, list[int]] = defaultdict(list)
    for index in members:
        groups[root(index)].append(index)
    return [sorted(group) for _, group in sorted(groups.items())]


def is_sweep(pattern: Pattern) -> bool:
    """The same edit across sibling files, not a task (see the module's docstring). Siblings
    are files of one folder (``lib/pop3.c``, ``lib/imap.c``), or files of one name in
    sibling folders (``lib/rules/a/index.mjs``, ``lib/rules/b/index.mjs``)."""
    if pattern.additive:
        return False  # adding a file of a kind is the task playbooks are best at
    # Most of its titles say its edits are cosmetic ("Fix a typo in the docs"), wherever
    # its files: spelling is nobody's task to repeat (a rename with its test still is one).
    if 2 * sum(1 for task in pattern.tasks if _says(task, COSMETIC_WORDS)) > pattern.support:
        return True
    items = [item for item, _ in pattern.items]
    for family in (_folder, _name_in_sibling_folders):
        kinds = {family(item) for item in items}
        if len(kinds) == 1:
            kind = kinds.pop()
            swept = sum(1 for task in pattern.tasks if _sweeps(task, family, kind))
            return 2 * swept > pattern.support
    return False  # a file set across folders (code and its test) is a task's shape


def _folder(item: str) -> str:
    return posixpath.dirname(item)


def _name_in_sibling_folders(item: str) -> str:
    folder, name = posixpath.split(item)
    return f"{posixpath.dirname(folder)}/*/{name}" if folder else item


def _sweeps(task: Task, family: Callable[[str], str], kind: str) -> bool:
    siblings = sum(1 for item in task.items if not is_abstract(item) and family(item) == kind)
    if siblings >= SWEEP_SIBLINGS and task.verb == "change":
        return True
    return siblings >= 2 and _says(task, SWEEP_WORDS)


def _says(task: Task, words: frozenset[str]) -> bool:
    """Whether the task's title has one of ``words``."""
    said = {word.lower() for word in re.findall(r"[A-Za-z][A-Za-z-]*", task.change.title)}
    return bool(said & words)


def _recipe(
    tasks: list[Task], min_share: float
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The files of a group of changes (oldest first), and its bookkeeping files: those in
    ``min_share`` of its newest RECENT_CHANGES (the way it is done now, when it has changed
    over the years) and in one of its NEWEST_WAY newest at least, or in each of those (a
    way that changed lately: telegraf's parsers register in plugins/parsers/all/<name>.go
    since their four newest additions, of fourteen), each with how many of all the changes
    have it, most first."""
    recent, newest = tasks[-RECENT_CHANGES:], tasks[-NEWEST_WAY:]
    found = []
    for part in ("items", "bookkeeping"):
        now: Counter[str] = Counter()
        every: Counter[str] = Counter()
        lately: Counter[str] = Counter()
        for task in recent:
            now.update(list(getattr(task, part)))
        for task in tasks:
            every.update(list(getattr(task, part)))
        for task in newest:
            lately.update(list(getattr(task, part)))
        # A file none of the newest touched is the way it was done before (telegraf's
        # parsers no longer edit config/config.go); one each of them touched, the way now.
        chosen = [
            (i, every[i])
            for i, c in now.items()
            if (c >= min_share * len(recent) and lately[i]) or lately[i] == len(newest)
        ]
        found.append(sorted(chosen, key=lambda pair: (-pair[1], pair[0])))
    return found[0], found[1]


def _joined(first: Pattern, second: Pattern, min_share: float) -> Pattern:
    """``first`` told by the changes of both: its items those in ``min_share`` of them."""
    by_id = {t.change.id: t for t in [*first.tasks, *second.tasks]}
    tasks = sorted(by_id.values(), key=lambda t: (t.change.time, t.change.id))
    items, bookkeeping = _recipe(tasks, min_share)
    if len(items) < 2:
        return first
    anchor = first.anchor if first.anchor in {i for i, _ in items} else items[0][0]
    return Pattern(
        anchor,
        first.verb,
        tasks,
        items,
        # At least its own changes: every one of them touched the anchor or stands with it.
        max(first.anchor_support, second.anchor_support, len(tasks)),
        bookkeeping,
        _shared_template(first.template, second.template),
        min(first.specificity, second.specificity),
        min(first.age_years, second.age_years),
    )


def _shared_template(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """What two sets of changes joined are all titled: the words of the first template that
    the second says too ("add <name> notifier" and "port <name> notifier" say "notifier"),
    or nothing when they share few of their words."""
    if first == second:
        return first
    shared = [w for w in first[1:] if w != SLOT and w in second[1:]]
    # A word or two in common between long titles ("Allow a custom format selector", "Add
    # DASH format 272") is no title the changes share: at least half of each one's words.
    said = [[w for w in template[1:] if w != SLOT] for template in (first, second)]
    if not first or not shared or any(2 * len(shared) < len(words) for words in said):
        return ()
    return (first[0], *shared)


def _one_task(first: Pattern, second: Pattern) -> bool:
    """Whether two candidates say one task: one verb and one object, and either both add
    kinds of file in one family of folders, or one adds none and half of the smaller file
    set is in the other. "Add a plugin" under plugins/inputs/ and under plugins/outputs/
    are two tasks."""
    noun = object_of(first)
    if first.task_verb != second.task_verb or not noun or noun != object_of(second):
        return False
    roots = [{_kind_root(kind) for kind in p.new_kinds} for p in (first, second)]
    if roots[0] and roots[1]:
        return any(a.startswith(b) or b.startswith(a) for a in roots[0] for b in roots[1])
    # One adds files to a folder its object names, the other's titles say that object in
    # words: "Add a provider" over packages/ai/src/providers/<name>.ts, and "add <name>
    # provider" over the registry, models and tests (a provider needs its own file only
    # now and then). Not "add <name> extension" and a browser-extension/ folder.
    adder, titled = (first, second) if roots[0] else (second, first)
    folders = {singular(f.lower()) for kind in adder.new_kinds for f in kind.split("/")[:-1]}
    if noun in folders and titled.says_words and noun in titled.template:
        return True
    files = [{item for item, _ in p.items} for p in (first, second)]
    return 2 * len(files[0] & files[1]) >= min(len(files[0]), len(files[1]))


def _kind_root(kind: str) -> str:
    """The folders of an abstract path before its first slot: ``pkg/golinters/`` of
    ``pkg/golinters/<name>/<name>.go``."""
    return kind[: kind.index("<")].rpartition("/")[0] + "/"


def distinct(candidates: list[Pattern], min_share: float = MIN_SHARE) -> list[Pattern]:
    """One pattern per task: of candidates sharing most of their tasks, the best stays."""
    ranked = sorted(
        candidates,
        key=lambda p: (-p.score(), -p.support, not is_abstract(p.anchor), p.anchor, p.verb),
    )
    kept: list[Pattern] = []
    kept_ids: list[set[str]] = []
    kept_files: list[set[str]] = []
    kept_added: list[set[str]] = []  # what each kept pattern adds (computed once)
    for pattern in ranked:
        ids = {t.change.id for t in pattern.tasks}
        files = {item for item, _ in pattern.items}
        if any(len(ids & other) >= OVERLAP * len(ids | other) for other in kept_ids):
            continue
        # Two that add the same kind of file ("apprise/plugins/<name>.py") are one task,
        # told by two sets of its changes: one proposal, from the changes of both (its file
        # set is then what most additions touched: the registry and docs besides the file).
        added = _added_kinds(pattern)
        twin = next(
            (
                n
                for n in range(len(kept))
                if any(same_kind(a, b) for a in added for b in kept_added[n])
            ),
            None,
        )
        if twin is not None:
            kept[twin] = _joined(kept[twin], pattern, min_share)
            kept_ids[twin] = {t.change.id for t in kept[twin].tasks}
            kept_files[twin] = {item for item, _ in kept[twin].items}
            kept_added[twin] = _added_kinds(kept[twin])
            continue
        # One task told twice, by the same verb and object: in two layouts over the years
        # (pkg/golinters/<name>.go, then pkg/golinters/<name>/<name>.go), or once by its
        # additions and once by its registrations ("Add a linter": go.mod, the settings).
        # One proposal, the better one (joined, the older layout's many changes would
        # outvote the way it is done now).
        same = next((n for n, other in enumerate(kept) if _one_task(other, pattern)), None)
        if same is not None:
            # The one whose titles say the task stays, unless it knows fewer of its files:
            # the other gathered its changes by the file they add, whatever their titles.
            # Only by one that the filters after this keep: replaced by a few changes not
            # done alike, the task would be lost altogether.
            if (
                pattern.says_words
                and not kept[same].says_words
                and len(pattern.items) > len(kept[same].items)
                and _done_alike(pattern)
            ):
                kept[same], kept_ids[same] = pattern, ids
                kept_files[same], kept_added[same] = files, added
            continue
        # The same files for the same kind of change is the same task, whichever changes
        # each candidate gathered: one proposal, the better one.
        if any(
            len(files & other) >= SAME_FILES * len(files | other) and kept[n].verb == pattern.verb
            for n, other in enumerate(kept_files)
        ):
            continue
        kept.append(pattern)
        kept_ids.append(ids)
        kept_files.append(files)
        kept_added.append(added)
    return kept
