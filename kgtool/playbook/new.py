"""``playbooks new``: a skeleton with the six fields, pre-filled from a change.

The key files are the files of the current change (staged and unstaged), or of a revision
range, that are in the graph now; the concepts are their communities, by layer-3 name where
there is one. Everything only a person knows is left as a TODO, and the skeleton is
``proposed`` until that person makes it ``active``: a half-written playbook is never
executable.
"""

from __future__ import annotations

import json
from pathlib import Path

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.file_kinds import is_lock_file
from kgtool.playbook.check import TODO, playbooks_dir
from kgtool.playbook.concepts import load_concepts
from kgtool.playbook.layer1 import load_layer1
from kgtool.playbook.parse import outside_repository, parse_playbook, slugify
from kgtool.playbook.suggest import Suggester
from kgtool.repo import changed_paths, check_range
from kgtool.store import KG_DIR, Store, atomic_write

MAX_KEY_FILES = 30


class NewPlaybook:
    __slots__ = ("concepts", "key_files", "left_out", "notes", "path")

    path: str
    key_files: list[str]
    concepts: list[str]
    left_out: int  # changed files beyond MAX_KEY_FILES
    notes: list[str]  # files followed or left out, and why

    def __init__(
        self,
        path: str,
        key_files: list[str],
        concepts: list[str],
        left_out: int,
        notes: list[str] | None = None,
    ) -> None:
        self.path = path
        self.key_files = key_files
        self.concepts = concepts
        self.left_out = left_out
        self.notes = [] if notes is None else notes


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def new_playbook(
    root: Path,
    config: Config,
    store: Store,
    intent: str,
    rev_range: str | None = None,
    slug: str | None = None,
    dry_run: bool = False,
) -> tuple[NewPlaybook, str]:
    """A new playbook's file for ``intent`` (from the files ``rev_range`` changed, when
    given), checked before it is written, and its path.

    Long because it writes the file's lines in the order they appear, each from its own
    source (layer 1 and the history for the key files, followed through renames; layer 3
    for the concepts; TODO placeholders for what only a person can say), then checks the
    result as ``kgtool playbooks check`` would; the steps read top to bottom as the file
    does."""
    intent = " ".join(intent.split())
    if not intent:
        raise KgError("the intent is empty: say what the playbook is for")
    slug = slugify(slug or intent)
    directory = playbooks_dir(config)
    path = f"{directory}/{slug}.md"
    if (root / path).exists():
        raise KgError(f"{path} exists already; pass --slug to choose another name")
    if outside_repository(root, path):
        raise KgError(f"{directory} leads outside the repository (a symlink); nothing written")

    view = load_layer1(root, config, store)
    playbook_files = f"{directory}/"
    # What happened to the range's files after it: its last commit, and what follows.
    history = Suggester(view, root, 0, since=check_range(root, rev_range)) if rev_range else None
    changed: list[str] = []
    left_out: list[str] = []  # "path (why)", said in the skeleton and by the command
    for file in changed_paths(root, rev_range):
        # The playbooks themselves, kgtool's own output and lock files are not what a person
        # changes to do a task: left out without a word.
        if file.startswith((playbook_files, f"{KG_DIR}/")) or is_lock_file(file):
            continue
        now, why = _follow(file, history)
        if now in view.files:
            changed.append(now)
            if now != file:
                left_out.append(f"{file} (renamed since: {now} is listed instead)")
        elif why:
            left_out.append(f"{file} ({why})")
        elif not rev_range:
            continue  # the current change: an untracked or excluded file says nothing
        else:
            left_out.append(f"{file} (not in the graph now: deleted, excluded or untracked)")
    changed = sorted(set(changed))
    key_files = changed[:MAX_KEY_FILES]
    concepts = load_concepts(store).of_files(changed)
    source = f"the commits {rev_range}" if rev_range else "the uncommitted change"
    lines = [
        "---",
        f"title: {yaml_string(intent[:1].upper() + intent[1:])}",
        f"intent: {yaml_string(intent)}",
        "# proposed until a person has replaced every TODO below; then make it active.",
        "status: proposed",
    ]
    lines.append("concepts:" if concepts else "concepts: []")
    lines += [f"  - {yaml_string(c)}" for c in concepts]
    lines += [f"# {line}" for line in left_out]
    if key_files:
        lines.append(f"# from {source}; keep the files a person must touch, drop the rest.")
        lines.append("key_files:")
        lines += [f"  - {yaml_string(p)}" for p in key_files]
        if len(changed) > MAX_KEY_FILES:
            lines.append(f"  # and {len(changed) - MAX_KEY_FILES} more changed files")
    else:
        lines.append(f"# {source} touches no file in the graph: list the files to change.")
        lines.append("key_files: []")
    lines += [
        "validation:",
        f"  - {yaml_string(TODO + ': the exact command or test that proves the change works')}",
        "pitfalls:",
        f"  - {yaml_string(TODO + ': what an earlier attempt got wrong')}",
        f"rollback: {yaml_string(TODO + ': what breaks if the change is reverted halfway')}",
    ]
    if rev_range:
        lines += ["evidence:", f"  - {yaml_string(rev_range)}"]
    lines += [
        "---",
        "",
        f"# {intent[:1].upper() + intent[1:]}",
        "",
        f"{TODO}: the steps, in order, and why each is needed.",
        "",
    ]
    text = "\n".join(lines)
    # The skeleton must read back as a playbook; a quoting slip here would be kgtool's bug.
    check = parse_playbook(path, text.encode("utf-8"))
    broken = [p for p in check.problems if "key_files" not in p.message]
    if broken:  # pragma: no cover - a bug in the skeleton, not in the user's input
        raise KgError(f"the skeleton does not read back: {broken[0]}")
    if not dry_run:
        atomic_write(root / path, text.encode("utf-8"))
    created = NewPlaybook(path, key_files, concepts, max(0, len(changed) - MAX_KEY_FILES))
    created.notes = left_out
    return created, text


def _follow(path: str, history: Suggester | None) -> tuple[str, str]:
    """Where ``path`` is now along its renames, and why it is gone if it is."""
    steps, _ = history.chain(path) if history is not None else ([], True)
    if not steps:
        return path, ""
    last = steps[-1]
    if last.status == "D":
        when = f"in {last.commit[:7]}" if last.commit else "in the working tree"
        return last.old_path, f"deleted since, {when}"
    return last.new_path, ""
