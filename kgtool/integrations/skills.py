"""Executable playbooks as agent skill folders: ``<skills>/<name>/SKILL.md``.

The format is the published one for skill folders (Claude Code's ``.claude/skills/`` and the
open agent-skills layout under ``.agents/skills/``): YAML front matter with ``name`` (1-64
lowercase letters, digits and single hyphens, not starting or ending with one, the folder's
own name, without the reserved words "anthropic" and "claude") and ``description`` (1-1024
characters, no angle brackets, saying what the skill does and when to use it), then markdown.

Only executable playbooks are exported (active and not refused by the check). A folder kgtool
wrote carries a marker line in its front matter; a re-export rewrites or removes those
folders alone, so a person's own skill is never touched, even under the same name.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import yaml

from kgtool import bounded
from kgtool.errors import KgError
from kgtool.playbook.check import PlaybookReport
from kgtool.playbook.parse import SKILL_HEAD_BYTES, split_front_matter
from kgtool.query.agent_skills import SKILL_FILE, SKILL_FOLDERS
from kgtool.repo import git_dir
from kgtool.store import KG_DIR, atomic_write

SKILLS_DIRS = dict(zip(("claude", "agents"), SKILL_FOLDERS, strict=True))
MARKER = "# kgtool: exported from a playbook by `kgtool playbooks export`"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
RESERVED_WORDS = ("anthropic", "claude")
KEY_FILES_IN_DESCRIPTION = 3


class ExportResult:
    __slots__ = ("removed", "skipped", "unchanged", "written")

    written: list[str]  # SKILL.md paths, repository-relative
    unchanged: list[str]
    removed: list[str]  # folders of ours no longer exported
    skipped: list[str]  # "playbooks/x.md: why", one a line

    def __init__(self) -> None:
        self.written = []
        self.unchanged = []
        self.removed = []
        self.skipped = []


def skill_name(slug: str) -> str:
    """A playbook slug as a skill name the published constraints accept."""
    words = [w for w in re.split(r"[^a-z0-9]+", slug.lower()) if w and w not in RESERVED_WORDS]
    name = ""
    for word in words:
        longer = f"{name}-{word}" if name else word
        if len(longer) > MAX_NAME:
            break
        name = longer
    return name or "playbook"


def description_of(report: PlaybookReport) -> str:
    """What the skill does and when to use it, within the limit, without angle brackets."""
    playbook = report.playbook
    intent = " ".join(playbook.intent.split())
    title = " ".join(playbook.title.split())
    what = f"{title}." if title and title.casefold() != intent.casefold() else ""
    files = [p.scalar.value for p in report.pointers][:KEY_FILES_IN_DESCRIPTION]
    if intent and intent[-1] not in ".!?":
        intent += "."
    parts = [what, f"Use when the task is to: {intent}" if intent else ""]
    if files:
        parts.append(f"Key files: {', '.join(files)}.")
    text = " ".join(p for p in parts if p).replace("<", "").replace(">", "")
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 3].rsplit(" ", 1)[0] + "..."
    return text


def skills_folder(root: Path, folder: str) -> Path:
    """Where skills are written: ``folder``, relative to the repository root, once it is known
    to stay inside the repository (symlinks followed: a pull request can commit one) and out of
    ``.git/`` (its hooks run code) and ``.kg/`` (kgtool's own output); a KgError otherwise."""
    real_root = Path(os.path.realpath(root))
    target = Path(os.path.realpath(root / folder))
    named = f"the skills folder {folder!r}"
    if target == real_root:
        raise KgError(f"{named} is the repository root itself; name a folder inside it")
    if real_root not in target.parents:
        raise KgError(
            f"{named} leads outside the repository (to {target}); name a folder inside it"
        )
    # Compared without case: on macOS and Windows '.GIT' is '.git'.
    top = target.relative_to(real_root).parts[0].casefold()
    real_git = Path(os.path.realpath(git_dir(root)))
    if top == ".git" or target == real_git or real_git in target.parents:
        raise KgError(f"{named} is inside .git/, where kgtool writes nothing; name another")
    if top == KG_DIR.casefold():
        raise KgError(f"{named} is inside {KG_DIR}/, kgtool's own output; name another")
    return root / target.relative_to(real_root)


def is_ours(folder: Path) -> bool:
    """Whether kgtool wrote this skill folder (its SKILL.md holds the marker line)."""
    skill = folder / SKILL_FILE
    if skill.is_symlink():  # a committed link (to /dev/zero, say) is nobody's skill file
        return False
    try:
        head = bounded.read_file(skill, skill.name, SKILL_HEAD_BYTES, head=True)
    except bounded.Unreadable:
        return False
    text = head.decode("utf-8", errors="replace")
    split = split_front_matter(text)
    if isinstance(split, str):
        return False
    start, end, _ = split
    return MARKER in text[start:end].splitlines()


def render_skill(root: Path, report: PlaybookReport, name: str) -> str:
    playbook = report.playbook
    front = yaml.safe_dump(
        {
            "name": name,
            "description": description_of(report),
            "metadata": {"source": playbook.path, "generated-by": "kgtool playbooks export"},
        },
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )
    body = _body(root, playbook.path)
    title = " ".join((playbook.title or playbook.intent or playbook.slug).split())
    lines = ["---", MARKER, front.rstrip("\n"), "---", "", f"# {title}", ""]
    intent = " ".join(playbook.intent.split())
    # A playbook with no title is titled by its intent (compared as description_of does).
    if intent and intent.casefold() != title.casefold():
        lines += [intent, ""]
    body_lines = body.strip("\n").splitlines()
    if body_lines and body_lines[0].strip() == f"# {title}":  # the title once, not twice
        body_lines = body_lines[1:]
    if "\n".join(body_lines).strip():
        lines += ["\n".join(body_lines).strip("\n"), ""]
    lines += ["## Key files", ""]
    for pointer in report.pointers:
        target = pointer.resolution.target
        shown = f" (resolves to `{target}`)" if target != pointer.scalar.value else ""
        lines.append(f"- `{pointer.scalar.value}`{shown}")
    if report.concepts:
        lines += ["", "## Concepts (communities of the code map, `.kg/MAP.md`)", ""]
        lines += [
            f"- {c.scalar.value}" + (f" ({c.community})" if c.community != c.scalar.value else "")
            for c in report.concepts
        ]
    for heading, steps in (
        ("Validation", [f"`{step}`" if "\n" not in step else step for step in playbook.validation]),
        ("Pitfalls", playbook.pitfalls),
        ("Rollback", playbook.rollback),
    ):
        if steps:
            lines += ["", f"## {heading}", ""]
            lines += [f"- {' '.join(step.split())}" for step in steps]
    lines += [
        "",
        "## Before you follow it",
        "",
        f"This skill is exported from the playbook `{playbook.path}`. Run "
        "`kgtool playbooks check` first: if it refuses that playbook, a key file above has "
        "moved or gone, and this skill is out of date; do not follow it (fix the playbook, "
        "then run `kgtool playbooks export` again). Edit the playbook, not this file: the "
        "next export replaces it.",
        "",
    ]
    return "\n".join(lines)


def _body(root: Path, path: str) -> str:
    """The playbook's markdown after its front matter."""
    text = (root / path).read_text(encoding="utf-8")
    split = split_front_matter(text)
    if isinstance(split, str):
        return ""
    _, end, _ = split
    after = text.find("\n", end)
    return text[after + 1 :] if after >= 0 else ""


def export_skills(root: Path, reports: list[PlaybookReport], skills_dir: Path) -> ExportResult:
    """Write a skill per executable playbook under ``skills_dir``; remove our stale ones."""
    result = ExportResult()
    chosen: dict[str, PlaybookReport] = {}
    for report in sorted(reports, key=lambda r: r.playbook.path):
        playbook = report.playbook
        if not report.executable:
            why = (
                f"refused: {report.errors[0].message}"
                if report.refused
                else f"not executable (status {playbook.status})"
            )
            result.skipped.append(f"{playbook.path}: {why}")
            continue
        name = skill_name(playbook.slug)
        unique, number = name, 2
        while unique in chosen:
            suffix = f"-{number}"
            unique = f"{name[: MAX_NAME - len(suffix)].rstrip('-')}{suffix}"
            number += 1
        folder = skills_dir / unique
        if folder.is_symlink():  # its SKILL.md would be written wherever it leads
            result.skipped.append(
                f"{playbook.path}: {_shown(root, folder)} is a symlink; left as it is"
            )
            continue
        if folder.exists() and not is_ours(folder):
            result.skipped.append(
                f"{playbook.path}: {_shown(root, folder)}/ is a skill kgtool did not write; "
                "left as it is"
            )
            continue
        chosen[unique] = report
    if skills_dir.is_dir():
        for folder in sorted(skills_dir.iterdir()):
            if (
                folder.is_dir()
                and not folder.is_symlink()
                and folder.name not in chosen
                and is_ours(folder)
            ):
                shutil.rmtree(folder)
                result.removed.append(f"{_shown(root, folder)}/")
    for name, report in chosen.items():
        target = skills_dir / name / SKILL_FILE
        data = render_skill(root, report, name).encode("utf-8")
        shown = _shown(root, target)
        if target.is_file() and target.read_bytes() == data:
            result.unchanged.append(shown)
            continue
        atomic_write(target, data)
        result.written.append(shown)
    return result


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
