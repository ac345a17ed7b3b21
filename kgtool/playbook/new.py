"""``playbooks new``: a skeleton with the six fields, pre-filled from a change.

The key files are the files of the current change (staged and unstaged), or of a revision
range, that are in the graph now; the concepts are their communities, by layer-3 name where
there is one. Everything only a person knows is left as a TODO, and the skeleton is
``proposed`` until that person makes it ``active``: a half-written playbook is never
executable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.config import Config
from kgtool.errors import KgError
from kgtool.playbook.check import TODO, playbooks_dir
from kgtool.playbook.concepts import load_concepts
from kgtool.playbook.layer1 import load_layer1
from kgtool.playbook.parse import outside_repository, parse_playbook, slugify
from kgtool.repo import PathChange, changed_paths, check_range, path_changes
from kgtool.store import Store, atomic_write

MAX_KEY_FILES = 30


@dataclass
class NewPlaybook:
    path: str
    key_files: list[str]
    concepts: list[str]
    left_out: int  # changed files beyond MAX_KEY_FILES
    notes: list[str] = field(default_factory=list)  # files followed or left out, and why


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
    end = check_range(root, rev_range) if rev_range else ""
    renames = _renames_since(root, end) if rev_range else {}
    changed: list[str] = []
    left_out: list[str] = []  # "path (why)", said in the skeleton and by the command
    for file in changed_paths(root, rev_range):
        if file.startswith(playbook_files):
            continue
        now, why = _follow(file, renames)
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


def _renames_since(root: Path, commit: str) -> dict[str, PathChange]:
    """Old path -> what first happened to it after ``commit`` (renamed or deleted)."""
    first: dict[str, PathChange] = {}
    for change in path_changes(root, since=commit):
        first.setdefault(change.old_path, change)
    return first


def _follow(path: str, renames: dict[str, PathChange]) -> tuple[str, str]:
    """Where ``path`` is now along a chain of renames, and why it is gone if it is."""
    seen = {path}
    while path in renames:
        change = renames[path]
        when = f"in {change.commit[:7]}" if change.commit else "in the working tree"
        if change.status == "D":
            return path, f"deleted since, {when}"
        path = change.new_path
        if path in seen:  # a rename back and forth: stop where it stands
            break
        seen.add(path)
    return path, ""
