"""``kgtool playbooks export``: executable playbooks as agent skill folders, and only those."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from conftest import Repo
from playbook_helpers import playbook_text
from read_helpers import build_read_repo

from kgtool.integrations.skills import MARKER, MAX_DESCRIPTION, skill_name
from kgtool.playbook.parse import SKILL_HEAD_BYTES, split_front_matter

NAME_RULE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def front_matter(text: str) -> dict:
    split = split_front_matter(text)
    assert not isinstance(split, str), split
    start, end, _ = split
    return yaml.safe_load(text[start:end])


def test_export_round_trip_skips_refused_and_keeps_a_persons_skill(repo: Repo) -> None:
    build_read_repo(repo)
    mine = "---\nname: my-own\ndescription: mine\n---\nhi\n"
    own = repo.write(".claude/skills/my-own/SKILL.md", mine)
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "wrote .claude/skills/save-records/SKILL.md",
        "skipped playbooks/old-cache.md: refused: key file 'app/cache.py::Cache.evict' does "
        "not resolve (missing): app/cache.py defines no 'Cache.evict'; nearest in "
        "app/cache.py: Cache.save, Cache",
        "1 skill(s) exported (1 written, 0 unchanged), 1 playbook(s) skipped",
    ]
    skill = (repo.root / ".claude/skills/save-records/SKILL.md").read_text()
    fields = front_matter(skill)
    assert fields["name"] == "save-records" and NAME_RULE.match(fields["name"])
    assert fields["description"] == (
        "Use when the task is to: change the thing. Key files: app/store.py::Store.save, "
        "app/api.py."
    )
    assert 1 <= len(fields["description"]) <= 1024
    assert fields["metadata"] == {
        "source": "playbooks/save-records.md",
        "generated-by": "kgtool playbooks export",
    }
    assert MARKER in skill.splitlines()[:3]
    for section in ("## Key files", "## Validation", "## Pitfalls", "## Rollback"):
        assert section in skill
    assert "- `app/store.py::Store.save`" in skill and "- forgetting the tests" in skill
    assert "Edit `args.ts` first." in skill  # the playbook's own steps are kept
    assert "kgtool playbooks check" in skill
    assert own.read_text() == mine
    assert not (repo.root / ".claude/skills/old-cache").exists()

    before = skill.encode()
    again = repo.kg("playbooks", "export", "--to", "claude")
    assert again.out.splitlines()[-1] == (
        "1 skill(s) exported (0 written, 1 unchanged), 1 playbook(s) skipped"
    )
    assert (repo.root / ".claude/skills/save-records/SKILL.md").read_bytes() == before


def test_a_playbook_that_becomes_refused_loses_its_exported_skill(repo: Repo) -> None:
    build_read_repo(repo)
    assert repo.kg("playbooks", "export", "--to", "agents").code == 0
    assert (repo.root / ".agents/skills/save-records/SKILL.md").is_file()
    repo.write("app/store.py", "class Base:\n    pass\n")  # Store.save is gone
    result = repo.kg("playbooks", "export", "--to", "agents")
    assert (
        "removed .agents/skills/save-records/ (its playbook is no longer executable, or is gone)"
        in result.out.splitlines()
    )
    assert not (repo.root / ".agents/skills/save-records").exists()


def test_a_persons_skill_under_the_same_name_is_left_alone(repo: Repo) -> None:
    build_read_repo(repo)
    theirs = "---\nname: save-records\ndescription: their own\n---\nbody\n"
    path = repo.write(".claude/skills/save-records/SKILL.md", theirs)
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.out.splitlines()[1] == (
        "skipped playbooks/save-records.md: .claude/skills/save-records/ is a skill kgtool did "
        "not write; left as it is"
    )
    assert path.read_text() == theirs


def test_out_writes_elsewhere(repo: Repo) -> None:
    build_read_repo(repo)
    result = repo.kg("playbooks", "export", "--to", "agents", "--out", "skills")
    assert result.out.splitlines()[0] == "wrote skills/save-records/SKILL.md"


def test_skill_names_follow_the_published_rules() -> None:
    assert skill_name("Add_a--Claude_Provider") == "add-a-provider"
    assert skill_name("---") == "playbook"
    long = skill_name("word-" * 40)
    assert len(long) <= 64 and NAME_RULE.match(long)


def test_a_skill_file_that_is_a_link_to_a_device_is_not_read(repo: Repo) -> None:
    """A committed SKILL.md linking to /dev/zero was read whole to see whose it was (a
    MemoryError); a link is nobody's skill file, and a real one is read by its head only."""
    build_read_repo(repo)
    folder = repo.root / ".claude/skills/save-records"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to("/dev/zero")
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    assert result.out.splitlines()[1] == (
        "skipped playbooks/save-records.md: .claude/skills/save-records/ is a skill kgtool did "
        "not write; left as it is"
    )
    assert (folder / "SKILL.md").is_symlink()


def test_a_folder_with_no_skill_file_is_not_kgtools_and_survives_an_export(repo: Repo) -> None:
    """Only a SKILL.md with the marker says kgtool wrote a folder: one without a SKILL.md (a
    person's draft, or their scripts under the playbook's own name) is theirs."""
    build_read_repo(repo)
    draft = repo.write(".claude/skills/drafting/notes.md", "half a skill\n")
    script = repo.write(".claude/skills/save-records/run.sh", "#!/bin/sh\necho mine\n")
    empty = repo.root / ".claude/skills/empty"
    empty.mkdir()
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    assert (
        "skipped playbooks/save-records.md: .claude/skills/save-records/ is a skill kgtool did "
        "not write; left as it is"
    ) in result.out.splitlines()
    assert draft.read_text() == "half a skill\n" and empty.is_dir()
    assert script.read_text() == "#!/bin/sh\necho mine\n"
    assert sorted(p.name for p in script.parent.iterdir()) == ["run.sh"]


def exported_description(repo: Repo, intent: str) -> str:
    """The description of the skill exported from a playbook with ``intent``."""
    text = playbook_text(["app/store.py"]).replace("intent: change the thing", f"intent: {intent}")
    repo.write("playbooks/long-intent.md", text, dedent=False)
    repo.commit("a playbook with a long intent")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/long-intent/SKILL.md").read_text()
    return str(front_matter(skill)["description"])


def test_a_description_of_exactly_the_limit_is_kept_whole(repo: Repo) -> None:
    """A description is cut only past MAX_DESCRIPTION characters, never at it."""
    build_read_repo(repo)
    fixed = "Use when the task is to: . Key files: app/store.py."
    intent = "store " * ((MAX_DESCRIPTION - len(fixed)) // 6)
    intent = (intent + "x" * (MAX_DESCRIPTION - len(fixed) - len(intent))).strip()
    intent += "y" * (MAX_DESCRIPTION - len(fixed) - len(intent))
    description = exported_description(repo, intent)
    assert len(description) == MAX_DESCRIPTION and not description.endswith("...")
    assert description == f"Use when the task is to: {intent}. Key files: app/store.py."


def test_a_persons_skill_that_is_not_utf8_is_left_alone(repo: Repo) -> None:
    """A SKILL.md whose front matter holds bytes that are not UTF-8 is read with them
    replaced, found not kgtool's, and kept byte for byte."""
    build_read_repo(repo)
    theirs = b"---\nname: save-records\ndescription: caf\xe9 \xff\n---\nbody\n"
    path = repo.root / ".claude/skills/save-records/SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(theirs)
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    assert "skipped playbooks/save-records.md" in result.out
    assert path.read_bytes() == theirs


def test_a_skill_is_written_exactly_as_documented(repo: Repo) -> None:
    """The whole SKILL.md of one playbook, byte for byte: the front matter, the title once,
    the playbook's own body, then each section in order."""
    build_read_repo(repo)
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/save-records/SKILL.md").read_text()
    assert skill == (
        "---\n"
        "# kgtool: exported from a playbook by `kgtool playbooks export`\n"
        "name: save-records\n"
        "description: 'Use when the task is to: change the thing. Key files: "
        "app/store.py::Store.save, app/api.py.'\n"
        "metadata:\n"
        "  source: playbooks/save-records.md\n"
        "  generated-by: kgtool playbooks export\n"
        "---\n"
        "\n"
        "# change the thing\n"  # titled by its intent, which is not said twice
        "\n"
        "# Steps\n"
        "\n"
        "Edit `args.ts` first.\n"
        "\n"
        "## Key files\n"
        "\n"
        "- `app/store.py::Store.save`\n"
        "- `app/api.py`\n"
        "\n"
        "## Concepts (communities of the code map, `.kg/MAP.md`)\n"
        "\n"
        "- c2\n"
        "\n"
        "## Validation\n"
        "\n"
        "- `pytest`\n"
        "\n"
        "## Pitfalls\n"
        "\n"
        "- forgetting the tests\n"
        "\n"
        "## Rollback\n"
        "\n"
        "- nothing breaks\n"
        "\n"
        "## Before you follow it\n"
        "\n"
        "This skill is exported from the playbook `playbooks/save-records.md`. Run `kgtool "
        "playbooks check` first: if it refuses that playbook, a key file above has moved or "
        "gone, and this skill is out of date; do not follow it (fix the playbook, then run "
        "`kgtool playbooks export` again). Edit the playbook, not this file: the next export "
        "replaces it.\n"
    )


def test_a_description_over_the_limit_is_cut_after_the_last_word_that_fits(repo: Repo) -> None:
    build_read_repo(repo)
    intent = " ".join(f"step{n}" for n in range(400))  # far over the limit
    description = exported_description(repo, intent)
    assert description.endswith("...") and len(description) <= MAX_DESCRIPTION
    kept = description.removesuffix("...").removeprefix("Use when the task is to: ").split()
    assert kept == [f"step{n}" for n in range(len(kept))]  # whole words, from the first
    one_more = len(description.removesuffix("...")) + len(f" step{len(kept)}")
    assert one_more + len("...") > MAX_DESCRIPTION  # the next word would not have fitted


def test_a_titled_playbook_s_description_says_its_title_in_its_own_letters(repo: Repo) -> None:
    """A title that is not the intent leads the description; angle brackets (which some
    agents read as markup) are dropped, and letters outside ASCII are written as they are."""
    build_read_repo(repo)
    text = playbook_text(["app/store.py"], extra="title: Add a <store> backend").replace(
        "intent: change the thing", "intent: Ajouter un stockage clé-valeur"
    )
    repo.write("playbooks/store-backend.md", text, dedent=False)
    repo.commit("a titled playbook")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/store-backend/SKILL.md").read_text()
    assert front_matter(skill)["description"] == (
        "Add a store backend. Use when the task is to: Ajouter un stockage clé-valeur. "
        "Key files: app/store.py."
    )
    assert "clé-valeur" in skill.split("\n---\n", 1)[0]  # not escaped as \xE9


def test_an_untitled_playbook_s_intent_is_not_said_again_whatever_its_case(repo: Repo) -> None:
    build_read_repo(repo)
    text = playbook_text(["app/store.py"], extra="title: Change The Thing")
    repo.write("playbooks/cased.md", text, dedent=False)
    repo.commit("a title that is its intent in other letters")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/cased/SKILL.md").read_text()
    body = skill.split("\n---\n", 1)[1]
    assert body.startswith("\n# Change The Thing\n\n# Steps\n"), body[:200]


def add_executable_playbook(repo: Repo, slug: str, key_files: list[str], **kwargs: str) -> None:
    repo.write(f"playbooks/{slug}.md", playbook_text(key_files, **kwargs), dedent=False)


def test_an_intent_that_ends_without_a_stop_gains_one_whatever_its_last_letter(
    repo: Repo,
) -> None:
    build_read_repo(repo)
    assert exported_description(repo, "build for macOS X") == (
        "Use when the task is to: build for macOS X. Key files: app/store.py."
    )


def test_playbooks_with_one_skill_name_are_numbered_from_two(repo: Repo) -> None:
    """Slugs that differ only by reserved words make one name: the second playbook (by
    path) takes the name with "-2", the third "-3", and all are exported."""
    build_read_repo(repo)
    add_executable_playbook(repo, "records-anthropic", ["app/store.py"])
    add_executable_playbook(repo, "records-claude", ["app/store.py"])
    add_executable_playbook(repo, "records", ["app/api.py"])
    repo.commit("three playbooks with one skill name")
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    assert result.out.splitlines()[:4] == [
        "wrote .claude/skills/records/SKILL.md",
        "wrote .claude/skills/records-2/SKILL.md",
        "wrote .claude/skills/records-3/SKILL.md",
        "wrote .claude/skills/save-records/SKILL.md",
    ]
    third = (repo.root / ".claude/skills/records-3/SKILL.md").read_text()
    assert front_matter(third)["name"] == "records-3"
    assert front_matter(third)["metadata"]["source"] == "playbooks/records.md"


def test_a_numbered_skill_name_stays_within_the_published_limit(repo: Repo) -> None:
    """A name already 64 characters long (the limit) gives up its end to its number: the
    second skill is still 64 characters, "-2" at its end."""
    build_read_repo(repo)
    long_slug = f"{'a' * 30}-{'b' * 33}"
    add_executable_playbook(repo, long_slug, ["app/store.py"])
    add_executable_playbook(repo, f"{long_slug}-claude", ["app/api.py"])
    repo.commit("two playbooks with one long skill name")
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    second = f"{'a' * 30}-{'b' * 31}-2"
    assert len(second) == 64
    assert f"wrote .claude/skills/{second}/SKILL.md" in result.out.splitlines()


def test_a_skills_folder_outside_the_repository_is_refused_saying_where_it_leads(
    repo: Repo,
) -> None:
    build_read_repo(repo)
    refused = repo.kg("playbooks", "export", "--to", "claude", "--out", "../elsewhere")
    assert refused.code == 2, refused.out
    outside = (repo.root.parent / "elsewhere").resolve()
    assert (
        f"the skills folder '../elsewhere' leads outside the repository (to {outside}); "
        "name a folder inside it"
    ) in refused.err
    assert not outside.exists()


def test_a_skill_folder_that_is_a_symlink_is_left_and_the_next_playbooks_are_exported(
    repo: Repo, tmp_path: Path
) -> None:
    """A symlinked folder (its SKILL.md would be written wherever it leads) and a person's
    own skill each hold back their own playbook, never the playbooks after it."""
    build_read_repo(repo)
    add_executable_playbook(repo, "save-records-again", ["app/api.py"])
    add_executable_playbook(repo, "zz-last", ["app/api.py"])
    repo.commit("more playbooks")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    skills = repo.root / ".claude/skills"
    skills.mkdir(parents=True)
    (skills / "save-records").symlink_to(elsewhere)
    theirs = "---\nname: save-records-again\ndescription: their own\n---\nbody\n"
    repo.write(".claude/skills/save-records-again/SKILL.md", theirs)
    result = repo.kg("playbooks", "export", "--to", "claude")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "wrote .claude/skills/zz-last/SKILL.md" in lines
    assert (
        "skipped playbooks/save-records.md: .claude/skills/save-records is a symlink; left as it is"
    ) in lines
    assert (
        "skipped playbooks/save-records-again.md: .claude/skills/save-records-again/ is a "
        "skill kgtool did not write; left as it is"
    ) in lines
    assert list(elsewhere.iterdir()) == []


def test_a_key_file_found_by_its_unique_suffix_says_what_it_resolves_to(repo: Repo) -> None:
    build_read_repo(repo)
    add_executable_playbook(repo, "by-suffix", ["disk.py", "app/api.py"])
    repo.commit("a playbook naming a file by its suffix")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/by-suffix/SKILL.md").read_text()
    assert "- `disk.py` (resolves to `app/disk.py`)\n- `app/api.py`\n" in skill


def test_a_name_of_exactly_the_limit_is_kept_whole() -> None:
    words = ["a" * 31, "b" * 32]  # 31 + 1 + 32 = 64 characters
    assert skill_name("-".join(words)) == "-".join(words)
    assert skill_name("-".join([*words, "c"])) == "-".join(words)  # one more would not fit


def test_a_word_that_ends_just_before_the_cut_is_kept(repo: Repo) -> None:
    """The cut keeps every whole word within MAX_DESCRIPTION - 3 characters (room for
    "..."), the last one too when a space follows it exactly there."""
    build_read_repo(repo)
    prefix = "Use when the task is to: "
    word = "x" * (MAX_DESCRIPTION - 3 - 1 - len(prefix))
    description = exported_description(repo, f"{word} and then some more words " * 3)
    assert description == f"{prefix}{word}..."


def test_git_and_kg_folders_are_refused_whatever_their_case(repo: Repo) -> None:
    """``.GIT`` is ``.git`` on macOS and Windows (and ``.KG`` is ``.kg``): the folder is
    refused by its name as the file system may read it, and nothing is written there."""
    build_read_repo(repo)
    for out, says in ((".GIT/skills", "is inside .git/"), (".KG/skills", "is inside .kg/")):
        refused = repo.kg("playbooks", "export", "--to", "claude", "--out", out)
        assert refused.code == 2, refused.out
        assert f"the skills folder {out!r} {says}" in refused.err
        assert not (repo.root / out).exists()


def test_the_repository_root_itself_is_refused_as_the_skills_folder(repo: Repo) -> None:
    build_read_repo(repo)
    refused = repo.kg("playbooks", "export", "--to", "claude", "--out", ".")
    assert refused.code == 2, refused.out
    assert (
        "the skills folder '.' is the repository root itself; name a folder inside it"
    ) in refused.err
    assert not (repo.root / "save-records").exists()


def test_a_git_folder_kept_under_another_name_is_refused(repo: Repo) -> None:
    """A repository's git folder need not be called ``.git`` (``.git`` may be a file naming
    it, as ``git init --separate-git-dir`` writes): wherever it lies in the repository,
    nothing is written in it."""
    build_read_repo(repo)
    (repo.root / ".git").rename(repo.root / "meta")
    (repo.root / ".git").write_text("gitdir: meta\n")
    refused = repo.kg("playbooks", "export", "--to", "claude", "--out", "meta/skills")
    assert refused.code == 2, refused.out
    assert "the skills folder 'meta/skills' is inside .git/" in refused.err
    assert not (repo.root / "meta" / "skills").exists()


def test_an_intent_that_ends_with_a_stop_is_not_given_another(repo: Repo) -> None:
    build_read_repo(repo)
    assert exported_description(repo, "Save the records twice!") == (
        "Use when the task is to: Save the records twice! Key files: app/store.py."
    )


def with_body(after: str) -> str:
    """A playbook on app/store.py whose text after its closing ``---`` is ``after``."""
    front = playbook_text(["app/store.py"]).split("\n---\n", 1)[0]
    return f"{front}\n---{after}"


def test_a_playbook_that_ends_at_its_front_matter_has_no_body_in_its_skill(repo: Repo) -> None:
    """A playbook file may end on its closing ``---`` line, with no newline after it: its
    skill then has no body of the playbook's own (its front matter is never copied)."""
    build_read_repo(repo)
    repo.write("playbooks/bare.md", with_body(""), dedent=False)
    repo.commit("a playbook with no body")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/bare/SKILL.md").read_text()
    assert "intent: change the thing" not in skill
    assert skill.split("\n---\n", 1)[1].startswith("\n# change the thing\n\n## Key files\n")


def test_a_body_that_starts_right_after_the_front_matter_is_kept_whole(repo: Repo) -> None:
    build_read_repo(repo)
    repo.write("playbooks/tight.md", with_body("\nEdit `args.ts` first.\n"), dedent=False)
    repo.commit("a playbook with no blank line after its front matter")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = (repo.root / ".claude/skills/tight/SKILL.md").read_text()
    assert "\n# change the thing\n\nEdit `args.ts` first.\n\n## Key files\n" in skill


def test_a_skill_longer_than_the_head_read_is_still_known_as_kgtools(repo: Repo) -> None:
    """Whose a skill is, is read from its first lines only: a SKILL.md of ours longer than
    that (a playbook with long steps) is still ours, left unchanged by the next export and
    removed when its playbook goes."""
    build_read_repo(repo)
    steps = "".join(f"{n}. Edit part {n} of the store, then run its tests.\n" for n in range(600))
    repo.write("playbooks/long-steps.md", with_body(f"\n\n{steps}"), dedent=False)
    repo.commit("a playbook with long steps")
    assert repo.kg("playbooks", "export", "--to", "claude").code == 0
    skill = repo.root / ".claude/skills/long-steps/SKILL.md"
    assert len(skill.read_bytes()) > SKILL_HEAD_BYTES
    again = repo.kg("playbooks", "export", "--to", "claude")
    assert again.out.splitlines()[-1] == (
        "2 skill(s) exported (0 written, 2 unchanged), 1 playbook(s) skipped"
    )  # the skipped one is old-cache, refused
    (repo.root / "playbooks/long-steps.md").unlink()
    gone = repo.kg("playbooks", "export", "--to", "claude")
    assert gone.code == 0, gone.err
    assert not skill.parent.exists()


def test_a_playbook_is_read_as_utf8_whatever_the_locale(repo: Repo) -> None:
    """Playbooks are UTF-8 files: their text reaches the skill intact under a locale whose
    encoding is ASCII (the C locale, with Python's own switches to UTF-8 turned off)."""
    build_read_repo(repo)
    repo.write("playbooks/accents.md", with_body("\n\nVérifier le café.\n"), dedent=False)
    repo.commit("a playbook in French")
    ascii_locale = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    result = repo.kg_process("playbooks", "export", "--to", "claude", env=ascii_locale)
    assert result.code == 0, result.err
    skill = (repo.root / ".claude/skills/accents/SKILL.md").read_bytes().decode("utf-8")
    assert "\nVérifier le café.\n" in skill
