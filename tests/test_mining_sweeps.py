"""Sweeps are not tasks: the same edit across sibling files (a refactor, a rename, a tidy-up)
recurs as a file set but is set aside; a feature touching as many files of the same folder,
whose titles say what it adds, is still proposed."""

from __future__ import annotations

from conftest import Repo
from mining_helpers import commit_at

from kgtool.mining.miner import Options, mine_history
from kgtool.mining.patterns import Pattern, is_sweep

PROTOCOLS = ("pop3", "imap", "smtp", "ftp", "http")


def edit(repo: Repo, path: str, line: str) -> None:
    full = repo.root / path
    full.write_text(full.read_text() + line + "\n")


def swept(repo: Repo) -> Repo:
    """Five protocol handlers edited together by clean-ups, and one option added three times
    to the core and three handlers."""
    repo.write_files({f"lib/{name}.c": f"/* {name} */\n" for name in (*PROTOCOLS, "core")})
    repo.write("tests/test_core.c", "/* tests */\n")
    commit_at(repo, "Initial layout", 0)
    titles = [
        "tidy-up: comments, messages, formatting",
        "lib: constify the send buffers",
        "connect: connection close tweaks",
        "Rename the response helpers",
        "build: dedupe the strdup helpers",
    ]
    for number, title in enumerate(titles, 1):
        for name in PROTOCOLS:
            edit(repo, f"lib/{name}.c", f"/* sweep {number} */")
        commit_at(repo, title, 10 * number)
    for number, option in enumerate(("timeout", "retries", "proxy"), 1):
        for name in ("core", "http", "ftp", "smtp"):
            edit(repo, f"lib/{name}.c", f"int {option};")
        commit_at(repo, f"Add the {option} option", 100 + 10 * number)
    return repo


def test_a_sweep_is_set_aside_and_a_wide_feature_kept(repo: Repo) -> None:
    swept(repo)
    mined = mine_history(repo.root, Options())
    assert mined.sweeps >= 1
    shapes = {(p.verb, frozenset(i for i, _ in p.items)) for p in mined.patterns}
    feature = frozenset(f"lib/{name}.c" for name in ("core", "http", "ftp", "smtp"))
    assert ("add", feature) in shapes  # four siblings each time, but the titles say "add"
    assert not any(verb == "change" for verb, _ in shapes)

    result = repo.kg("mine-playbooks", "--dry-run")
    assert result.code == 0, result.err
    assert "candidates set aside as sweeps" in result.out
    proposed = [line for line in result.out.splitlines() if line.startswith("playbooks/")]
    assert len(proposed) == 1 and "Add" in proposed[0], result.out


def test_the_same_edits_with_their_test_are_a_task(repo: Repo) -> None:
    swept(repo)
    # The same clean-ups, now each with its test: code and its test is a task's shape.
    for number in range(3):
        for name in PROTOCOLS:
            edit(repo, f"lib/{name}.c", f"/* again {number} */")
        edit(repo, "tests/test_core.c", f"/* again {number} */")
        # Titled as a task ("change" and "fix" titles that add nothing are upkeep).
        commit_at(repo, "Add retries to the request helpers", 200 + number)
    mined = mine_history(repo.root, Options())
    across = [p for p in mined.patterns if "tests/test_core.c" in dict(p.items)]
    assert across and not any(is_sweep(p) for p in across)
    assert {i for i, _ in across[0].items} == {"tests/test_core.c", *swept_files()}


def swept_files() -> set[str]:
    return {f"lib/{name}.c" for name in PROTOCOLS}


def test_the_same_edit_across_sibling_folders_is_a_sweep(repo: Repo) -> None:
    rules = ("color-named", "font-weight", "selector-max", "unit-allowed", "length-zero")
    repo.write_files({f"lib/rules/{rule}/index.mjs": f"// {rule}\n" for rule in rules})
    commit_at(repo, "Initial layout", 0)
    for number in range(1, 6):
        for rule in rules:
            edit(repo, f"lib/rules/{rule}/index.mjs", f"// pass {number}")
        commit_at(repo, f"Use the shared report helper everywhere ({number})", 10 * number)
    mined = mine_history(repo.root, Options())
    assert mined.patterns == [], [(p.anchor, p.support) for p in mined.patterns]
    assert mined.sweeps >= 1


def test_a_sweep_is_told_around_every_file_whatever_else_changed_it() -> None:
    """Three refactors over lib/{a,b,c,d}.c are a sweep grown around each of the four, also
    around lib/a.c, which one lone addition changed too."""
    from mining_helpers import task_of

    from kgtool.mining.patterns import find_patterns

    files = [f"lib/{name}.c" for name in "abcd"]
    tasks = [task_of(0, "Add the new parser", ["lib/a.c", "lib/new.c"], "add")]
    tasks += [task_of(n, f"Refactor the parsers {n}", files) for n in (1, 2, 3)]
    sweeps: list[Pattern] = []
    assert find_patterns(tasks, sweeps=sweeps) == []
    assert sorted(p.anchor for p in sweeps if not p.template) == files
