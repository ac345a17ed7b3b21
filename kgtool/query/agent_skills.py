"""The repository's own agent skills (``.claude/skills/*/SKILL.md``, ``.agents/skills/``) as
evidence for a task: each one's name and description from its front matter, and those whose
words meet the task's. Read as well as they can be, never checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kgtool import bounded
from kgtool.query.words import identifier_words, meets_any

SKILL_FOLDERS = (".claude/skills", ".agents/skills")


SKILL_FILE = "SKILL.md"


class Skill(NamedTuple):
    path: str
    name: str
    description: str


def read_skills(root: Path, notices: list[str]) -> list[Skill]:
    """The skills of the repository; one whose front matter cannot be read is left out, and
    ``notices`` says why."""
    found = []
    for folder in SKILL_FOLDERS:
        base = root / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for entry in sorted(base.iterdir()):
            file = entry / SKILL_FILE
            if entry.is_symlink() or file.is_symlink() or not file.is_file():
                continue
            where = f"{folder}/{entry.name}/{SKILL_FILE}"
            try:
                # Its front matter only: the start of the file, however large it is.
                from kgtool.playbook.parse import SKILL_HEAD_BYTES

                head = bounded.read_file(file, where, SKILL_HEAD_BYTES, head=True)
                text = head.decode("utf-8", errors="replace")
                meta = _front_matter(text, where)
            except OSError:
                continue
            except bounded.Unreadable as exc:
                at = f"{where}:{exc.line}" if exc.line else where
                notices.append(f"{at}: not read: {exc.message}")
                continue
            found.append(
                Skill(
                    where,
                    " ".join(str(meta.get("name") or entry.name).split()),
                    " ".join(str(meta.get("description") or "").split()),
                )
            )
    return found


def _front_matter(text: str, where: str) -> dict[str, Any]:
    """The skill's fields; {} when it has none, or its YAML is not valid (a skill is
    evidence, read as well as it can be)."""
    from kgtool.playbook.parse import split_front_matter

    found = split_front_matter(text)
    if isinstance(found, str):
        return {}
    start, end, first_line = found
    try:
        data = bounded.load_yaml(text[start:end], where, first_line)
    except bounded.Malformed:
        return {}
    return data if isinstance(data, dict) else {}


def matching_skills(
    root: Path, weights: dict[str, float], notices: list[str]
) -> list[tuple[Skill, list[str]]]:
    terms = list(weights)
    if not terms:
        return []
    scored = []
    for skill in read_skills(root, notices):
        words = identifier_words(f"{skill.name} {skill.description}")
        matched = [t for t in terms if meets_any(t, words)]
        if len(matched) >= min(2, len(terms)):
            scored.append((len(matched), skill, matched))
    scored.sort(key=lambda item: (-item[0], item[1].path))
    return [(skill, matched) for _, skill, matched in scored]
