"""The conventions every kgtool command keeps, as users of git, ruff and pre-commit expect them:
``-C DIR`` on either side of the command, ``-q``/``-v``, progress only on a terminal, a
``--help`` with a description, examples and exit codes, and the install's optional parts."""

from __future__ import annotations

import argparse
import ast
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import GIT_ENV, PROJECT_ROOT, assert_one_line_error, run_kgtool, run_process

from kgtool.cli import build_parser
from kgtool.commands import COMMANDS, update
from kgtool.commands._cli import EXIT_FAILED as CHECK_FAILED
from kgtool.commands._cli import SHARED_EXIT_CODES, exit_code_table, settle
from kgtool.commands.label import EXIT_PARTIAL
from kgtool.commands.playbooks import EXIT_REFUSED
from kgtool.commands.update import EXIT_STALE
from kgtool.integrations.git_hooks import EXIT_FAILED as HOOK_FAILED
from kgtool.ontology.items import LabelerError

APP = {
    "app/__init__.py": "",
    "app/main.py": "from app.util import helper\n\n\ndef main():\n    return helper()\n",
    "app/util.py": "def helper():\n    return 1\n",
}

PLAYBOOK = """\
---
intent: Change the helper
concepts: []
key_files: ['app/util.py::helper']
validation: [python -m pytest]
pitfalls: [none]
rollback: git revert
status: active
---
"""


# -- -C on either side of the command ------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["-C", "{root}", "update"],
        ["update", "-C", "{root}"],
        ["-C", "{parent}", "update", "-C", "{name}"],  # the second relative to the first
        ["-C", "/nowhere-at-all", "update", "-C", "{root}"],  # an absolute one starts afresh
        ["update", "-C", "{parent}", "-C", "{name}", "-q"],
    ],
)
def test_directory_option_on_either_side_of_the_command(make_repo, argv: list[str]) -> None:
    repo = make_repo(APP)
    names = {"root": str(repo.root), "parent": str(repo.root.parent), "name": repo.root.name}
    result = run_kgtool([word.format(**names) for word in argv])
    assert result.code == 0, result.err
    assert (repo.root / ".kg" / "raw" / "app.jsonl").is_file()
    assert repo.kg_bytes() == repo.clean_build()


def test_directory_option_after_nested_commands_from_another_folder(
    make_repo, tmp_path: Path
) -> None:
    repo = make_repo({**APP, "playbooks/helper.md": PLAYBOOK})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_process(["update", "-q", "-C", str(repo.root)], cwd=elsewhere).code == 0
    checked = run_process(["playbooks", "check", "-C", str(repo.root)], cwd=elsewhere)
    assert checked.code == 0, checked.err
    assert checked.out.splitlines() == ["1 playbook: 1 executable, 0 refused"]
    missing = run_process(["update", "-C", str(tmp_path / "nowhere")], cwd=elsewhere)
    assert_one_line_error(missing, says="no such directory")
    assert list(elsewhere.iterdir()) == []


def test_quiet_and_verbose_together_is_a_usage_error(make_repo) -> None:
    repo = make_repo(APP)
    same_side = run_kgtool(["-C", str(repo.root), "update", "-q", "-v"])
    assert same_side.code == 2
    assert "argument -v/--verbose: not allowed with argument -q/--quiet" in same_side.err
    both_sides = run_kgtool(["-C", str(repo.root), "-q", "update", "-v"])
    assert both_sides.code == 2
    assert "kgtool: error: -q and -v say opposite things" in both_sides.err
    assert not (repo.root / ".kg").exists()


# -- -q and -v on every command ------------------------------------------------------------


def every_parser() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(command line, parser) of every command and action, each fully registered."""

    def children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    for name in COMMANDS:
        parser = children(build_parser([name]))[name]
        yield name, parser
        for action, child in children(parser).items():
            yield f"{name} {action}", child


def leaf_commands() -> list[str]:
    groups = {line.split()[0] for line, _ in every_parser() if " " in line}
    return [line for line, _ in every_parser() if line not in groups]


# What each command needs besides the shared options, for its parser to accept the line.
REQUIRED_WORDS: dict[str, list[str]] = {
    "playbooks new": ["an intent"],
    "playbooks export": ["--to", "claude"],
    "context": ["a task"],
    "explain": ["c1"],
    "merge-driver": ["base", "ours", "theirs"],
}


@pytest.mark.parametrize("command", leaf_commands())
def test_every_command_takes_quiet_verbose_and_directory(command: str) -> None:
    words = command.split() + REQUIRED_WORDS.get(command, [])
    parser = build_parser(words)
    for flags, quiet, verbose in ((["-q"], True, 0), (["--verbose", "-v"], False, 2)):
        args = settle(parser, parser.parse_args(["-C", "w", *words, *flags, "-C", "x"]))
        assert (args.directory, args.quiet, args.verbose) == (Path("w/x"), quiet, verbose)


def test_verbose_update_names_each_parsed_file_and_times_the_run(make_repo) -> None:
    repo = make_repo(APP)
    result = run_kgtool(["-C", str(repo.root), "update", "-v"])
    assert result.code == 0, result.err
    parsed = [line.strip() for line in result.out.splitlines() if "parsed: " in line]
    assert parsed == ["parsed: app/__init__.py", "parsed: app/main.py", "parsed: app/util.py"]
    assert re.fullmatch(r"kgtool update: \d+\.\d\ds\n", result.err)
    again = run_kgtool(["-C", str(repo.root), "update", "-v"])
    assert "parsed: " not in again.out  # the cache covered every file


def test_verbose_check_times_each_check_and_quiet_prints_no_ok_line(make_repo) -> None:
    repo = make_repo(APP)
    assert run_kgtool(["-C", str(repo.root), "update", "-q"]).out == ""
    verbose = run_kgtool(["-C", str(repo.root), "check", "-v"])
    assert verbose.code == 0, verbose.err
    timings = re.findall(r"^  (.+): \d+\.\d\ds$", verbose.out, re.MULTILINE)
    assert timings == ["raw graph", "communities", "labels", "playbooks"]
    quiet = run_kgtool(["-C", str(repo.root), "check", "--quiet"])
    assert (quiet.code, quiet.out, quiet.err) == (0, "", "")


def test_quiet_commands_print_only_problems(make_repo) -> None:
    repo = make_repo({**APP, "playbooks/helper.md": PLAYBOOK})
    run = ["-C", str(repo.root)]
    assert run_kgtool(["-q", *run, "update"]).out == ""  # before the command, too
    assert run_kgtool([*run, "playbooks", "check", "-q"]).out == ""
    assert run_kgtool([*run, "hooks", "install", "-q"]).out == ""
    assert run_kgtool([*run, "hooks", "uninstall", "-q"]).out == ""
    repo.write("playbooks/helper.md", PLAYBOOK.replace("app/util.py", "app/gone.py"))
    refused = run_kgtool([*run, "playbooks", "check", "-q"])
    assert refused.code == EXIT_REFUSED
    assert refused.out.startswith("playbooks/helper.md:4: ")
    assert "refused" not in refused.out.splitlines()[-1]  # no summary line, only the problem


def test_quiet_ci_prints_only_what_the_checks_found(make_repo) -> None:
    repo = make_repo(APP)
    assert repo.kg("update").code == 0
    repo.commit(".kg")
    env = {"GITHUB_ACTIONS": "false"}
    fresh = repo.kg_process("ci", "-q", env=env)
    assert (fresh.code, fresh.out) == (0, ""), fresh.err
    assert "kgtool ci: passed" in repo.kg_process("ci", env=env).out
    repo.write("app/util.py", "def helper():\n    return 2\n\n\ndef other():\n    return 3\n")
    repo.git("add", "app/util.py")
    stale = repo.kg_process("ci", "-q", env=env)
    assert stale.code == CHECK_FAILED
    assert stale.out.splitlines() == [
        ".kg/raw/: error: R101 is out of date: app/util.py changed since it was built: run "
        "`kgtool update`"
    ]


# -- progress on a terminal, nothing elsewhere ---------------------------------------------


def run_with_terminal_stderr(argv: list[str], cwd: Path) -> tuple[int, str, bytes]:
    """kgtool as its own process, stderr on a pseudo-terminal: (code, stdout, terminal bytes)."""
    leader, follower = pty.openpty()
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT), "COLUMNS": "80"}
    process = subprocess.Popen(
        [sys.executable, "-m", "kgtool", *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=follower,
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: every holder of the terminal's other end has closed it
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    out = process.stdout.read().decode() if process.stdout else ""
    return process.wait(timeout=60), out, seen


def test_progress_is_drawn_on_a_terminal_and_wiped(make_repo) -> None:
    repo = make_repo(APP)
    code, out, terminal = run_with_terminal_stderr(["update"], repo.root)
    assert code == 0, terminal
    text = terminal.decode()
    assert re.search(r"\rparsing \d/3 files", text), text
    assert "\rclustering 3 files" in text, text
    assert text.endswith("\r") and text.rstrip("\r ").endswith("files")  # wiped at the end
    assert "\n" not in text  # nothing but the progress line: the report is on stdout
    assert "wrote .kg/raw/" in out


def test_no_progress_with_quiet_or_when_stderr_is_not_a_terminal(make_repo) -> None:
    repo = make_repo(APP)
    code, out, terminal = run_with_terminal_stderr(["update", "-q"], repo.root)
    assert (code, out, terminal) == (0, "", b"")
    repo.write("app/util.py", "def helper():\n    return 2\n")
    piped = repo.kg_process("update")
    assert piped.code == 0
    assert piped.err == ""
    assert "parsed 1" in piped.out


def test_miner_progress_on_a_terminal_and_as_lines_with_verbose(make_repo) -> None:
    repo = make_repo(APP)
    for n in range(4):
        repo.write("app/main.py", f"{APP['app/main.py']}\n# {n}\n")
        repo.write("app/util.py", f"{APP['app/util.py']}\n# {n}\n")
        repo.commit(f"change {n}")
    code, _, terminal = run_with_terminal_stderr(["mine-playbooks", "--dry-run"], repo.root)
    assert code == 0, terminal
    assert re.search(r"\r\[ +\d+\.\ds\] reading history", terminal.decode())
    assert "\n" not in terminal.decode()
    piped = repo.kg_process("mine-playbooks", "--dry-run", "-v")
    assert piped.code == 0, piped.err
    steps = [line.split("] ", 1)[1] for line in piped.err.splitlines() if line.startswith("[")]
    assert steps[:2] == ["reading history", "read 5 change sets"]
    assert repo.kg_process("mine-playbooks", "--dry-run").err == ""


# -- --help: description, examples, exit codes ---------------------------------------------

KNOWN_EXIT_CODES = {
    0,
    *SHARED_EXIT_CODES,
    EXIT_STALE,
    CHECK_FAILED,
    EXIT_REFUSED,
    EXIT_PARTIAL,
    HOOK_FAILED,
    LabelerError.exit_code,
}


@pytest.mark.parametrize("command", [line for line, _ in every_parser()])
def test_every_help_has_description_examples_and_exit_codes(command: str) -> None:
    parser = dict(every_parser())[command]
    text = parser.format_help()
    assert parser.description and len(parser.description.split()) >= 15, command
    examples = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(examples) >= 2, text
    for example in examples:
        line = example.strip().split("  ")[0]
        assert line.startswith(f"kgtool {command}"), example
        words = shlex.split(line.split(" | ")[0])[1:]
        build_parser(words).parse_args(words)  # a real command line: it parses
    codes_text = text.split("\nexit codes:\n", 1)[1].splitlines()
    codes = [int(re.match(r"  (\d+) +\S", line).group(1)) for line in codes_text]  # type: ignore[union-attr]
    assert codes == sorted(set(codes)) and {0, 2, 130, 141} <= set(codes), codes
    assert set(codes) <= KNOWN_EXIT_CODES, codes


def test_exit_code_text_is_the_table_the_code_uses() -> None:
    table = dict(exit_code_table([(0, "done"), (EXIT_STALE, "stale")], locks=False))
    assert 3 not in table  # a command that takes no lock does not list the lock's code
    assert table[2] == SHARED_EXIT_CODES[2] and table[EXIT_STALE] == "stale"
    help_text = dict(every_parser())["update"].format_help()
    listed = [line.split()[0] for line in help_text.split("exit codes:\n")[1].splitlines()]
    assert listed == [str(code) for code, _ in exit_code_table(update.EXIT_CODES)]


# -- what the default install leaves out ---------------------------------------------------


def run_without(package: str, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple:
    """kgtool in a process where ``package`` cannot be imported (as when it is not installed);
    the modules it ended with (the hidden one is not one) are printed on stderr's last line."""
    code = (
        "import sys\n"
        f"sys.modules[{package!r}] = None\n"
        "from kgtool.cli import main\n"
        "try:\n"
        f"    status = main({argv!r})\n"
        "finally:\n"
        "    loaded = [name for name, module in sys.modules.items() if module is not None]\n"
        "    print(' '.join(sorted(loaded)), file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    *lines, modules = done.stderr.splitlines()
    return done.returncode, done.stdout, lines, set(modules.split())


def test_the_main_job_needs_no_optional_package(make_repo) -> None:
    repo = make_repo(APP)
    assert repo.kg("update").code == 0
    repo.commit(".kg")  # so that the hook's run finds .kg/ as committed, and passes
    for argv in (["update"], ["check"], ["hooks", "run"], ["label", "--offline"]):
        code, _, lines, modules = run_without("anthropic", argv, repo.root, {})
        assert code == 0, lines
        assert not {"anthropic", "pre_commit", "git", "pydriller", "networkx"} & modules
        assert "kgtool.ontology.claude" not in modules


def test_claude_without_the_llm_extra_is_one_line_naming_it(make_repo) -> None:
    repo = make_repo(APP)
    key = {"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    for argv in (["label"], ["mine-playbooks", "--llm"]):
        code, out, lines, _ = run_without("anthropic", argv, repo.root, key)
        assert code == 2, (argv, out, lines)
        assert len(lines) == 1 and lines[0].startswith("kgtool: error: "), lines
        assert 'pip install "kgtool[llm] @ git+' in lines[0] and "docs/install.md" in lines[0]
    assert not (repo.root / "playbooks").exists()  # the miner stopped before writing


def test_an_error_line_starts_after_the_progress_line_is_wiped(make_repo) -> None:
    repo = make_repo()  # no commits: the miner stops after it started reading the history
    code, _, terminal = run_with_terminal_stderr(["mine-playbooks"], repo.root)
    assert code == 2
    drawn, wiped, error = terminal.decode().split("\r", 3)[1:]
    assert drawn.endswith("reading history") and wiped == " " * len(drawn)
    assert error.startswith("kgtool: error: this repository has no commits yet")


# The module each distribution is imported as, where the names differ.
IMPORT_NAMES = {
    "tree-sitter-language-pack": "tree_sitter_language_pack",
    "tree-sitter": "tree_sitter",
    "python-igraph": "igraph",
    "pyyaml": "yaml",
}


def test_every_runtime_dependency_is_imported_and_every_import_declared() -> None:
    """An unused dependency costs every install; an undeclared import breaks a clean one."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    declared = [*project["dependencies"], *extras["llm"], *extras["mcp"]]
    names = {re.split(r"[<>=!;\[ ]", item, maxsplit=1)[0].lower() for item in declared}
    modules = {IMPORT_NAMES.get(name, name) for name in names}
    imported: set[str] = set()
    for path in (PROJECT_ROOT / "kgtool").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    # tomllib is the standard library's from 3.11; on 3.10 kgtool imports tomli instead.
    third_party = imported - set(sys.stdlib_module_names) - {"kgtool", "tomllib"}
    assert modules == third_party, (modules, third_party)


# -- a mistyped command, a bare one, a fresh clone ------------------------------------------


def test_bare_kgtool_prints_the_help_and_exits_2() -> None:
    bare = run_kgtool([])
    assert bare.code == 2 and bare.out == ""
    assert bare.err.startswith("usage: kgtool") and "mine-playbooks" in bare.err
    assert "--version" in bare.err and "arguments are required" not in bare.err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["updat"], "argument COMMAND: invalid choice: 'updat'; did you mean 'update'?"),
        (["update", "--chek"], "unrecognized arguments: --chek; did you mean '--check'?"),
        (["playbooks", "chek"], "argument ACTION: invalid choice: 'chek'; did you mean 'check'?"),
        (["context", "--budgte=5", "x"], "did you mean '--budget'?"),
    ],
)
def test_a_mistyped_command_or_option_gets_the_nearest(argv: list[str], said: str) -> None:
    wrong = run_kgtool(argv)
    assert wrong.code == 2 and said in wrong.err, wrong.err


def test_a_mistyped_option_is_matched_against_its_own_commands_options() -> None:
    # --budget is an option of `context`, not of `update`: suggesting it there sends the
    # user to an option that fails the same way. The command's own usage line is shown.
    wrong = run_kgtool(["update", "--bugdet", "3"])
    assert wrong.code == 2 and "did you mean" not in wrong.err, wrong.err
    assert "kgtool update: error: unrecognized arguments: --bugdet 3" in wrong.err
    assert wrong.err.startswith("usage: kgtool update"), wrong.err


def test_nothing_near_is_no_suggestion() -> None:
    wrong = run_kgtool(["xyzzy"])
    assert wrong.code == 2 and "did you mean" not in wrong.err
    assert re.search(r"\(choose from '?update'?, '?check'?", wrong.err), wrong.err


def test_version_is_the_package_version() -> None:
    from importlib.metadata import version

    assert run_kgtool(["--version"]).out == f"kgtool {version('kgtool')}\n"


def test_a_clone_without_kg_is_told_to_build_it_in_one_line(make_repo) -> None:
    repo = make_repo({"app/main.py": "def main():\n    return 1\n"})
    check = repo.kg("check")
    assert check.code == CHECK_FAILED
    errors = [line for line in check.out.splitlines() if ": error: " in line]
    assert errors == [".kg/: error: R101 does not exist: run `kgtool update` to build it"]


def test_r101_names_the_files_that_changed_then_counts(make_repo) -> None:
    repo = make_repo({f"app/m{n}.py": f"X = {n}\n" for n in range(8)})
    assert repo.kg("update").code == 0
    repo.commit(".kg")
    for n in range(7):
        repo.write(f"app/m{n}.py", f"X = {n + 1}\n")
    stale = repo.kg("update", "--check")
    assert stale.out.splitlines()[0] == (
        ".kg/raw/: error: R101 is out of date: app/m0.py, app/m1.py, app/m2.py, app/m3.py, "
        "app/m4.py and 2 more changed since it was built: run `kgtool update`"
    )
