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


def test_a_skill_too_large_to_read_whole_is_read_by_its_front_matter(tmp_path: Path) -> None:
    body = "Long instructions.\n" * 2_000  # far past the bytes read of a skill's start
    skill(tmp_path, ".claude/skills", "long", f"---\nname: Long  one\n---\n{body}")
    notices: list[str] = []
    assert read_skills(tmp_path, notices) == [Skill(".claude/skills/long/SKILL.md", "Long one", "")]
    assert notices == []


def test_a_hostile_front_matter_is_left_out_with_a_notice_at_its_file_line(
    tmp_path: Path,
) -> None:
    nested = "[" * 120 + "]" * 120
    skill(tmp_path, ".claude/skills", "deep", f"---\nname: deep\nnested: {nested}\n---\n")
    skill(tmp_path, ".claude/skills", "fine", "---\nname: fine\n---\n")
    notices: list[str] = []
    assert [s.name for s in read_skills(tmp_path, notices)] == ["fine"]
    # Line 3 of the file: the front matter's second line, not the YAML's own count.
    assert notices == [".claude/skills/deep/SKILL.md:3: not read: is nested deeper than 100 levels"]
