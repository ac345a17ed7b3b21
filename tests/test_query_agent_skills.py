"""The repository's own agent skills as evidence for a task, read from their front matter."""

from __future__ import annotations

from pathlib import Path

from kgtool.query.agent_skills import Skill, matching_skills, read_skills


def skill(root: Path, folder: str, name: str, text: str) -> None:
    path = root / folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_skills_are_read_from_both_folders_with_their_names_and_descriptions(
    tmp_path: Path,
) -> None:
    skill(tmp_path, ".claude/skills", "a-first", "---\ndescription: Adds  a\n  provider\n---\n")
    (tmp_path / ".claude/skills/b-empty").mkdir()  # a folder with no SKILL.md
    skill(tmp_path, ".claude/skills", "c-named", "---\nname: Release  notes\n---\nbody\n")
    skill(tmp_path, ".agents/skills", "d-plain", "no front matter\n")
    skill(tmp_path, ".agents/skills", "e-bad", "---\nname: [unclosed\n---\n")
    notices: list[str] = []
    assert read_skills(tmp_path, notices) == [
        Skill(".claude/skills/a-first/SKILL.md", "a-first", "Adds a provider"),
        Skill(".claude/skills/c-named/SKILL.md", "Release notes", ""),
        Skill(".agents/skills/d-plain/SKILL.md", "d-plain", ""),
        Skill(".agents/skills/e-bad/SKILL.md", "e-bad", ""),  # its YAML is not valid
    ]


def test_skills_matching_more_of_the_task_come_first_then_by_path(tmp_path: Path) -> None:
    skill(tmp_path, ".claude/skills", "zz", "---\ndescription: payment provider refunds\n---\n")
    skill(tmp_path, ".claude/skills", "mm", "---\ndescription: provider payment setup\n---\n")
    skill(tmp_path, ".claude/skills", "aa", "---\ndescription: payment refunds\n---\n")
    skill(tmp_path, ".claude/skills", "bb", "---\ndescription: payment only\n---\n")
    weights = {"payment": 1.0, "provid": 1.0, "refund": 1.0}
    found = [(s.name, matched) for s, matched in matching_skills(tmp_path, weights, [])]
    assert found == [
        ("zz", ["payment", "provid", "refund"]),  # three of the task's words
        ("aa", ["payment", "refund"]),  # two, in path order
        ("mm", ["payment", "provid"]),
    ]  # bb meets one word only: not evidence
    assert matching_skills(tmp_path, {}, []) == []
