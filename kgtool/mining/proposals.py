"""Patterns into proposed playbooks: the six fields, each filled from the history behind it.

- intent: the verb and the object the pattern's titles share, with titles quoted;
- concepts: the communities of the key files (layer 2), by layer-3 name where labelled;
- key_files: the pattern's files, most frequent first, each a path that resolves today (an
  added file's pattern is shown by its newest example that still exists);
- validation: the tests that changed with it, and the project's own check commands;
- pitfalls: follow-up fixes that completed a change of the pattern, and the files only some
  of its changes needed;
- rollback: reverts seen, and whether the change is additive.

A proposal whose files are mostly those of an existing playbook is not written again: the
miner's own earlier proposal is rewritten in place (its evidence updated), a person's
playbook is left alone and the proposal skipped. Output depends on the history alone, so the
same history writes the same bytes.
"""

from __future__ import annotations

import configparser
import copy
import datetime
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from kgtool import bounded
from kgtool.errors import KgError
from kgtool.escape import md_cell, md_code, md_path, printable
from kgtool.file_kinds import GENERATED_HEAD, in_data_folder, is_generated, is_test
from kgtool.mining.history import ChangeSet
from kgtool.mining.paths import NUMBER, is_abstract
from kgtool.mining.patterns import Pattern, object_of
from kgtool.mining.symbols import touched_symbols
from kgtool.mining.titles import SLOT, singular
from kgtool.playbook.concepts import ConceptIndex
from kgtool.playbook.model import PROPOSED, Playbook
from kgtool.playbook.new import yaml_string
from kgtool.playbook.parse import parse_playbook, slugify
from kgtool.playbook.resolve import Resolver

MAX_KEY_FILES = 12
MAX_EVIDENCE = 40
# Symbols of one name looked at to find where one moved; more, and it is not told apart.
MAX_MOVED_CANDIDATES = 20
MAX_PITFALLS = 6
MARK = "# proposed by kgtool mine-playbooks"  # how the miner knows its own earlier proposals
OVERLAP = 0.5  # Jaccard share of key files at which an existing playbook is the same task
MIN_SYMBOL_CHANGES = 2  # a step names a symbol this many of the changes read touched, and half


class KeyFile(NamedTuple):
    pointer: str  # a path that resolves today
    item: str  # what it stands for in the pattern (an abstract path, or itself)
    # The name shadows tuple.count, which nothing calls on a key file.
    count: int  # type: ignore[assignment]  # tasks of the pattern that changed it


class Proposal:
    __slots__ = (
        "concepts",
        "evidence",
        "intent",
        "key_files",
        "pattern",
        "pitfalls",
        "prose_by",
        "rollback",
        "slug",
        "steps",
        "title",
        "validation",
    )

    slug: str
    title: str
    intent: str
    pattern: Pattern
    key_files: list[KeyFile]
    concepts: list[str]
    validation: list[str]
    pitfalls: list[str]
    rollback: list[str]
    evidence: list[str]
    steps: list[str]
    prose_by: str  # the model that reworded intent and pitfalls (kgtool.mining.prose)

    def __init__(
        self,
        slug: str,
        title: str,
        intent: str,
        pattern: Pattern,
        key_files: list[KeyFile],
        concepts: list[str],
        validation: list[str],
        pitfalls: list[str],
        rollback: list[str],
        evidence: list[str],
        steps: list[str] | None = None,
        prose_by: str = "",
    ) -> None:
        self.slug = slug
        self.title = title
        self.intent = intent
        self.pattern = pattern
        self.key_files = key_files
        self.concepts = concepts
        self.validation = validation
        self.pitfalls = pitfalls
        self.rollback = rollback
        self.evidence = evidence
        self.steps = [] if steps is None else steps
        self.prose_by = prose_by

    def retitled(self, title: str, intent: str) -> Proposal:
        """The same proposal under another title (and its slug) and intent."""
        other = copy.copy(self)
        other.slug, other.title, other.intent = slugify(title), title, intent
        return other

    def render(self) -> str:
        p = self.pattern
        # A reader must know which text a model wrote: it was checked, not proven.
        worded = f"; intent and pitfalls reworded by {self.prose_by}" if self.prose_by else ""
        lines = [
            "---",
            f"{MARK} from {p.support} change sets (support {p.support}, confidence "
            f"{p.confidence:.2f}){worded}; review it, then move it to the playbooks folder as "
            "active.",
            f"title: {yaml_string(self.title)}",
            f"intent: {yaml_string(self.intent)}",
            f"status: {PROPOSED}",
        ]
        lines.append("concepts:" if self.concepts else "concepts: []")
        lines += [f"  - {yaml_string(c)}" for c in self.concepts]
        lines.append("key_files:")
        for key in self.key_files:
            about = f"{key.count} of {p.support}"
            held, newest = p.recent_count(key.item)
            if newest < p.support:  # chosen by the newest: say how many of them
                about += f", {held} of the newest {newest}"
            if key.item != key.pointer:
                about += f", an example of {key.item}"
            # One line whatever a committed file name holds: a newline in it would write
            # lines of its own into the front matter.
            lines.append(f"  - {yaml_string(key.pointer)}  # {printable(about)}")
        for name in ("validation", "pitfalls", "rollback"):
            lines.append(f"{name}:")
            lines += [f"  - {yaml_string(v)}" for v in getattr(self, name)]
        lines.append("evidence:")
        lines += [f"  - {yaml_string(e)}" for e in self.evidence]
        lines += ["---", "", f"# {md_cell(self.title)}", ""]  # "<name>" is no HTML tag
        lines += self.steps
        return "\n".join(lines) + "\n"


def day_of(change: ChangeSet) -> str:
    return datetime.datetime.fromtimestamp(change.time, datetime.timezone.utc).strftime("%Y-%m-%d")


def _describe(change: ChangeSet) -> str:
    ref = f"{change.ref} {change.short}" if change.pr is not None else change.short
    return f"{ref} {day_of(change)} {change.title}"


def _example(pattern: Pattern, item: str, resolver: Resolver) -> str:
    """The newest concrete file of the pattern's tasks that stands for ``item`` and exists;
    of one change's files, the one that names the new thing alike in every slot
    (plugins/outputs/zerobus/zerobus.go for plugins/outputs/<name>/<name>.go, not the
    plugin's own helper zerobus/record.go)."""
    slots = re.compile(
        "".join(
            "([^/]+?)" if part in (SLOT, NUMBER) else re.escape(part)
            for part in re.split(f"({re.escape(SLOT)}|{re.escape(NUMBER)})", item)
        )
    )

    def alike(path: str) -> bool:
        matched = slots.fullmatch(path)
        return matched is not None and len(set(matched.groups())) <= 1

    for task in reversed(pattern.tasks):
        for path in sorted(task.items.get(item, []), key=lambda p: (not alike(p), p)):
            if resolver.resolve(path).resolved:
                return path
    return ""


def build_proposal(
    pattern: Pattern,
    resolver: Resolver,
    concepts: ConceptIndex,
    checks: list[str],
    reverts: list[ChangeSet],
) -> Proposal | None:
    """The proposal for a pattern, or None when the files that make it a task are gone: all
    of them, or every kind of file it adds, or the file most of its changes touched."""
    key_files: list[KeyFile] = []
    gone: list[tuple[str, int]] = []  # items of the task no file stands for today
    for item, count in pattern.newest_first():
        if len(key_files) == MAX_KEY_FILES:
            break
        pointer = _example(pattern, item, resolver) if is_abstract(item) else item
        if pointer and resolver.resolve(pointer).resolved:
            key_files.append(KeyFile(pointer, item, count))
        else:
            gone.append((item, count))
    if not key_files or _outdated(pattern, {item for item, _ in gone}):
        return None
    noun = object_of(pattern)
    verb = pattern.task_verb
    new_items = pattern.new_kinds
    new = " and ".join(new_items[:2])
    said = [word for word in pattern.template[1:] if word != SLOT]
    adds = f"a new {new}" if new else ""
    if said and said != [noun]:  # the words its titles share: "Add a webhook target"
        head = f"{verb.capitalize()} {_article(' '.join(said))}"
    elif said and not new:
        head = f"{verb.capitalize()} {_article(noun)}"
    elif noun and new:  # "Add a lexer", "Add an input plugin": the files go in the intent
        head = f"{verb.capitalize()} {_article(_qualified(noun, new_items))}"
    elif noun:
        head = f"{verb.capitalize()} {_article(noun)} in {pattern.anchor}"
    else:
        head, adds = f"{verb.capitalize()} " + (adds or pattern.anchor), ""
    titles = [t.change.title for t in reversed(pattern.tasks)][:3]
    quoted = ", ".join(f"“{t}”" for t in titles)
    intent = (
        f"{head}{f' ({adds})' if adds else ''}: the change made {pattern.support} times in "
        f"this repository's history, as in {quoted}."
    )
    return Proposal(
        slug=slugify(head),
        title=head,
        intent=intent,
        pattern=pattern,
        key_files=key_files,
        concepts=concepts.of_files(k.pointer for k in key_files),
        validation=_validation(pattern, checks),
        pitfalls=_gone(gone, pattern) + _pitfalls(pattern),
        rollback=_rollback(pattern, reverts),
        evidence=_evidence(pattern),
        steps=_steps(pattern, key_files, resolver),
    )


def _outdated(pattern: Pattern, gone: set[str]) -> bool:
    """Whether the task is no longer done this way: what it adds, or else its most touched
    file, is gone (extractors added under youtube_dl/extractor/ before a fork renamed it)."""
    added = pattern.new_kinds
    return set(added) <= gone if added else pattern.items[0][0] in gone


def _gone(gone: list[tuple[str, int]], pattern: Pattern) -> list[str]:
    """The files the task changed that are no longer in the repository, said (they are left
    out of key_files: a pointer must resolve)."""
    return [
        f"{item} ({count} of {pattern.support} changes) is no longer in the repository "
        "(deleted or renamed since): left out of key_files."
        for item, count in gone
    ]


def _qualified(noun: str, kinds: list[str]) -> str:
    """The noun as the folders of what is added say it: "input plugin" for
    plugins/inputs/<name>/<name>.go, one folder between the noun's and the new thing's
    name; the noun alone when some kind goes right in the noun's folder
    (plugins/processors/<name>/ beside plugins/processors/all/<name>.go) or none names it."""
    qualifiers = []
    for kind in kinds:
        folders = kind[: kind.index("<")].split("/")[:-1]
        named = [at for at, f in enumerate(folders) if singular(f.lower()) == noun]
        if not named:
            continue
        between = folders[named[-1] + 1 :]
        if not between:
            return noun
        if len(between) == 1 and between[0].isalpha():
            qualifiers.append(singular(between[0].lower()))
    return f"{qualifiers[0]} {noun}" if qualifiers else noun


def distinct_titles(proposals: list[Proposal]) -> list[Proposal]:
    """Proposals whose titles would read alike ("Add a plugin" twice) titled, and named,
    by what each adds as well."""
    said = Counter(p.title for p in proposals)
    found = []
    for proposal in proposals:
        new = " and ".join(proposal.pattern.new_kinds[:2])
        if said[proposal.title] > 1 and new:
            title = f"{proposal.title} with a new {new}"
            intent = proposal.intent.replace(f"{proposal.title} (a new {new})", title, 1)
            proposal = proposal.retitled(title, intent)
        found.append(proposal)
    return found


def _article(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _validation(pattern: Pattern, checks: list[str]) -> list[str]:
    # A snapshot or a fixture is what a test reads, not a test to run.
    tests = [(i, c) for i, c in pattern.items if is_test(i) and not in_data_folder(i)]
    found: list[str] = []
    python_tests = [i for i, _ in tests if i.endswith(".py")]
    if python_tests:
        found.append("python -m pytest " + " ".join(python_tests[:4]))
    for item, count in tests:
        if not item.endswith(".py"):
            found.append(f"the test {item} ({count} of {pattern.support} changes touched it)")
    found += [c for c in checks if c not in found]
    if not found:
        found.append(
            f"none found: no test changed in the {pattern.support} change sets of this "
            "pattern, and no check command was found in the project's configuration"
        )
    return found


def _pitfalls(pattern: Pattern) -> list[str]:
    found: list[str] = []
    for task in reversed(pattern.tasks):
        for follow_up in task.change.follow_ups:
            own = {p for p in task.change.paths}
            extra = sorted(set(follow_up.paths) - own)
            what = (
                f"also changed {', '.join(extra[:3])}"
                if extra
                else (f"changed {', '.join(sorted(follow_up.paths)[:3])} again")
            )
            found.append(
                f"{follow_up.short} “{follow_up.title}” completed {task.change.ref} "
                f"“{task.change.title}” {_delay(task.change, follow_up)}: it {what}."
            )
    found = found[: MAX_PITFALLS - 2]
    # Partial in the changes the file set was chosen by (the newest, when there are many).
    partial = []
    for item, _ in pattern.items:
        held, newest = pattern.recent_count(item)
        lately, last = pattern.newest_count(item)
        if held < newest and lately < last:  # in each of the very newest: the way it is now
            partial.append((item, held, newest))
    for item, held, newest in partial[-2:]:
        among = "" if newest == pattern.support else "newest "
        found.append(
            f"{printable(item)} changed in {held} of the {among}{newest} change sets only: "
            "check whether yours needs it."
        )
    if not any("completed" in f for f in found):
        found.insert(
            0, f"No follow-up fix was seen after any of the {pattern.support} change sets."
        )
    return found


def _delay(first: ChangeSet, then: ChangeSet) -> str:
    hours = max(0, then.time - first.time) / 3600
    if hours < 1.5:
        return "within the hour"
    return f"{hours:.0f} hours later" if hours < 48 else f"{hours / 24:.0f} days later"


def _rollback(pattern: Pattern, reverts: list[ChangeSet]) -> list[str]:
    found: list[str] = []
    ids = {c.id: t for t in pattern.tasks for c in [t.change, *t.change.follow_ups]}
    for revert in reverts:
        target = next((i for i in ids if revert.reverts and i.startswith(revert.reverts)), "")
        if target:
            task = ids[target]
            found.append(
                f"{revert.short} “{revert.title}” reverted {task.change.ref} after "
                f"{_delay(task.change, revert).removesuffix(' later').removeprefix('within ')}."
            )
    edited = [i for i, _ in pattern.items if not is_abstract(i)]
    if pattern.additive:
        new = [i for i, _ in pattern.items if is_abstract(i)]
        text = (
            f"Additive: most of the {pattern.support} change sets added new files "
            f"({', '.join(new[:3]) or 'see key_files'})"
        )
        if edited:
            text += (
                f" and edited {', '.join(edited[:3])}; reverting only the new files leaves "
                "those edits naming files that are gone, so revert them together."
            )
        else:
            text += "; deleting them undoes it."
        found.append(text)
    else:
        found.append(
            f"Not additive: it edits existing files ({', '.join(edited[:3])}); revert the "
            "whole change (git revert of its commit) rather than part of it."
        )
    if not any("reverted" in f for f in found):
        found.append(f"No revert of any of the {pattern.support} change sets was seen.")
    return found


def _evidence(pattern: Pattern) -> list[str]:
    lines: list[str] = []
    for task in reversed(pattern.tasks):
        lines.append(_describe(task.change))
        lines += [f"{_describe(f)} (follow-up)" for f in task.change.follow_ups]
    if len(lines) > MAX_EVIDENCE:
        more = len(lines) - MAX_EVIDENCE + 1
        lines = [*lines[: MAX_EVIDENCE - 1], f"and {more} more"]
    return lines


def _symbols_of(pattern: Pattern, key: KeyFile, resolver: Resolver) -> list[str]:
    """The symbols of an edited key file that the newest changes of the pattern wrote lines
    in, each as a pointer that resolves today (``file::Qualname``, or where the one symbol
    of its name is now when it moved; one gone is left out), with how many of the changes
    read touched it."""
    changes = [
        (task.change.id, key.pointer) for task in reversed(pattern.tasks) if key.item in task.items
    ]
    reading = touched_symbols(resolver.root, changes)
    read = reading.read
    found = []
    for touched in reading.touched:
        # What one change of several did is that change's, not the task's.
        if touched.changes < MIN_SYMBOL_CHANGES or 2 * touched.changes < read:
            continue
        pointer = f"{key.pointer}::{touched.qualname}"
        if not resolver.resolve(pointer).resolved:
            # Moved to another file (stream.ts::getEnvApiKey, now in env-api-keys.ts): the
            # one symbol of that name today; else gone, and no step of today's code.
            # By its whole qualname: a bare name also stands for every method called so.
            found_by_name, count = resolver.symbol_index().elsewhere(
                touched.qualname, key.pointer, MAX_MOVED_CANDIDATES
            )
            # The qualname follows the last "::": a file's own name may hold one.
            same = [n for n in found_by_name if n.rpartition("::")[2] == touched.qualname]
            if len(same) != 1 or count > MAX_MOVED_CANDIDATES:
                continue
            pointer = same[0]
        shown = md_path(pointer) + ("" if pointer.startswith(f"{key.pointer}::") else " (moved)")
        if touched.added:  # each change added one of its own: the kind is the step
            found.append(f"add a {touched.added} ({touched.changes} of the {read} newest; "
                         f"as {shown})")  # fmt: skip
        elif touched.what:  # the changes agree on what they wrote in it
            found.append(f"add {touched.what} to {shown} ({touched.changes} of the {read} newest)")
        else:
            found.append(f"{shown} ({touched.changes} of the {read} newest)")
    return found


def _share(pattern: Pattern, key: KeyFile) -> str:
    """How many of the changes a step's file is in: of the newest, which chose it, when
    there are more (lib/rules/index.js is in 13 of eslint's 249 rules, and in all the
    newest: the way it is done now), and of all."""
    recent, newest = pattern.recent_count(key.item)
    lately, last = pattern.newest_count(key.item)
    if lately == last < pattern.support and recent < newest / 2:  # chosen by the very newest
        return f"each of the newest {last}; {key.count} of {pattern.support} in all"
    if newest < pattern.support:
        return f"{recent} of the newest {newest}; {key.count} of {pattern.support} in all"
    return f"{key.count} of {pattern.support}"


def _steps(pattern: Pattern, key_files: list[KeyFile], resolver: Resolver) -> list[str]:
    if pattern.template:
        said = " ".join(pattern.template)
        origin = (
            f"Mined from {pattern.support} change sets titled alike ({md_code(said)}, names "
            f"as `<name>`) whose files overlap."
        )
    else:
        anchor = md_path(pattern.anchor)
        origin = (
            f"Mined from {pattern.support} change sets that touched {anchor} and say "
            f"“{printable(pattern.verb)}” (confidence {pattern.confidence:.2f}: the share of "
            f"the change sets touching {anchor} that are this task)."
        )
    lines = [origin, ""]
    generated = {
        key.pointer: is_generated(
            key.pointer,
            bounded.read_tracked(resolver.root, key.pointer, GENERATED_HEAD, head=True) or b"",
        )
        for key in key_files
    }
    # What a generator writes comes last: it is regenerated once the rest is written.
    ordered = sorted(key_files, key=lambda key: generated[key.pointer])
    for number, key in enumerate(ordered, 1):
        if key.item != key.pointer:
            action = f"Add {md_path(key.item)}, as {md_path(key.pointer)} did"
        elif generated[key.pointer]:  # its generator does what the changes did: no symbol
            action = f"Regenerate {md_path(key.pointer)} (generated: not edited by hand)"
        else:
            action = f"Edit {md_path(key.pointer)}"
        line = f"{number}. {action} ({_share(pattern, key)})"
        edited = key.item == key.pointer and not generated[key.pointer]
        touched = _symbols_of(pattern, key, resolver) if edited else []
        if touched:
            line += ": " + ", ".join(touched)
        lines.append(line + ".")
    if pattern.bookkeeping:
        lines += ["", "Bookkeeping, as these change sets did it:", ""]
        lines += [f"- {md_path(p)} ({n} of {pattern.support})" for p, n in pattern.bookkeeping]
    return lines


def _read_manifest(root: Path, name: str, load: Callable[[bytes, str], Any]) -> Any:
    """A project file at the top of the repository, as ``load`` reads it; None when there is
    none, or it cannot be read (a proposal then names fewer checks)."""
    path = root / name
    if not path.is_file() or not bounded.inside(root, path):
        return None
    try:
        return load(bounded.read_file(path, name), name)
    except bounded.Unreadable:
        return None


def _decoded(data: bytes, where: str) -> str:
    return data.decode("utf-8", "replace")


def _read_ini(data: bytes, where: str) -> configparser.ConfigParser:
    """An INI file's sections; none when it cannot be parsed (it still names its tool)."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8"), where)
    except (configparser.Error, UnicodeDecodeError):
        return configparser.ConfigParser(interpolation=None)
    return parser


# Lock files that say which package manager runs a project's scripts, first found wins.
_LOCK_MANAGERS = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lock", "bun"),
                  ("bun.lockb", "bun"))  # fmt: skip


def _package_manager(root: Path, package: Any) -> str:
    """Who runs the scripts of package.json: its ``packageManager`` field ("pnpm@9.1.0"),
    else the lock file kept beside it, else npm. ("bun test" is bun's own test runner,
    not the script: its scripts are always ``bun run``.)"""
    declared = package.get("packageManager") if isinstance(package, dict) else None
    if isinstance(declared, str):
        name = declared.partition("@")[0].strip()
        if name in ("npm", "pnpm", "yarn", "bun"):
            return name
    for lock, manager in _LOCK_MANAGERS:
        if (root / lock).is_file():
            return manager
    return "npm"


def project_checks(root: Path) -> list[str]:
    """The project's own check commands, as its configuration names them."""
    found: list[str] = []
    settings = _read_manifest(root, "pyproject.toml", bounded.load_toml)
    tools = settings.get("tool") if isinstance(settings, dict) else None
    tools = tools if isinstance(tools, dict) else {}
    tox = _read_manifest(root, "tox.ini", _read_ini)
    if tox is not None:
        envs = tox.get("tox", "envlist", fallback="")
        names = [e.strip() for e in re.split(r"[,\s]+", envs) if e.strip()]
        found += [f"tox -e {name}" for name in names[:4]] or ["tox"]
    elif isinstance(tools.get("tox"), dict):
        found.append("tox")
    text = _read_manifest(root, "noxfile.py", _decoded)
    if text is not None:
        sessions = re.findall(r"@nox\.session[^\n]*\n(?:@[^\n]*\n)*def (\w+)", text)
        found += [f"nox -s {name}" for name in sessions[:4]]
    package = _read_manifest(root, "package.json", bounded.load_json)
    if package is not None:
        scripts = package.get("scripts") if isinstance(package, dict) else None
        scripts = scripts if isinstance(scripts, dict) else {}
        runner = _package_manager(root, package)
        for name in ("test", "lint", "typecheck", "check", "build"):
            if name in scripts:
                bare = name == "test" and runner != "bun"
                found.append(f"{runner} test" if bare else f"{runner} run {name}")
    for makefile in ("Makefile", "GNUmakefile", "Makefile.am"):
        text = _read_manifest(root, makefile, _decoded)
        if text is not None:
            targets = set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.MULTILINE))
            found += [f"make {t}" for t in ("test", "check", "lint") if t in targets]
            break
    if "ruff" in tools:
        found.append("ruff check")
    if "mypy" in tools:
        found.append("mypy")
    if (root / "Cargo.toml").is_file():
        found.append("cargo test")
    if (root / "go.mod").is_file():
        found.append("go test ./...")
    return list(dict.fromkeys(found))


def place(
    proposals: list[Proposal], existing: list[tuple[Playbook, bool]], out_dir: str
) -> list[tuple[Proposal, str, str]]:
    """Where each proposal goes: (proposal, path, "" or why it is skipped).

    An existing playbook that already holds most of a proposal's key files is that task:
    the miner's own proposal is rewritten (evidence updated); a person's playbook wins.
    """
    placed: list[tuple[Proposal, str, str]] = []
    taken: set[str] = set()
    mined = {playbook.path: is_mined for playbook, is_mined in existing}
    for proposal in proposals:
        keys = {k.pointer for k in proposal.key_files}
        own = f"{out_dir}/{proposal.slug}.md"
        # Its own earlier self first (same slug), then the existing playbook closest to it.
        match, best = None, 0.0
        for playbook, _ in existing:
            theirs = {s.value.partition("::")[0] for s in playbook.key_files}
            # Jaccard, not containment: two small file sets sharing one busy file (core.py)
            # are two tasks, not one.
            share = len(keys & theirs) / len(keys | theirs) if theirs else 0.0
            if playbook.path == own and mined.get(own) and playbook.path not in taken:
                match = playbook
                break
            if share >= OVERLAP and share > best:
                match, best = playbook, share
        if match is not None and match.path not in taken:
            if not mined[match.path]:
                placed.append((proposal, match.path, f"overlaps {match.path}"))
                continue
            taken.add(match.path)
            placed.append((proposal, match.path, ""))
            continue
        if match is not None:  # two proposals for one earlier proposal: the first keeps it
            placed.append((proposal, match.path, f"overlaps {match.path}"))
            continue
        slug = proposal.slug
        path = f"{out_dir}/{slug}.md"
        number = 2
        existing_paths = set(mined)
        while path in taken or path in existing_paths:
            path = f"{out_dir}/{slug}-{number}.md"
            number += 1
        taken.add(path)
        placed.append((proposal, path, ""))
    return placed


def check_readable(path: str, text: str) -> None:
    playbook = parse_playbook(path, text.encode("utf-8"))
    if playbook.problems:  # pragma: no cover - a bug in the renderer, not in the history
        raise KgError(f"a proposal does not read back as a playbook: {playbook.problems[0]}")
