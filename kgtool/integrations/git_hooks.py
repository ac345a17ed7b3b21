"""Plain git hooks: the scripts, ``kgtool hooks install``/``uninstall``, and the run they make.

The run (``kgtool hooks run``) is also what the pre-commit framework's one-process hooks call:
it refreshes ``.kg/`` from the staged content and runs every other check in the same process,
so a commit pays for one interpreter start, not two.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import time
from pathlib import Path

from kgtool.config import load_config
from kgtool.errors import KgError
from kgtool.findings import Finding, kept
from kgtool.pipeline.checks import CONTENT, CheckOutcome, report, run_checks
from kgtool.pipeline.context import Context
from kgtool.pipeline.refresh import problems, refresh
from kgtool.repo import (
    hooks_dir,
    index_checkout,
    remove_leftovers,
    remove_merge_driver,
    run_by_a_merge,
    set_merge_driver,
    stage,
    staged_paths,
    unstaged_paths,
    untracked_paths,
)
from kgtool.store import CACHE_DIR, KG_DIR, ONTOLOGY_FILE, Store, atomic_write

# pre-merge-commit too: a merge commit does not run pre-commit, and a clean textual merge of
# two fresh .kg/ folders is not a fresh .kg/.
HOOK_NAMES = ("pre-commit", "pre-merge-commit")
MARKER = "# kgtool-hook:"  # how install and uninstall tell kgtool's script from anyone else's
CHAINED = ".kgtool-chained"  # a hook that was there, kept by --chain and run first
SAVED = ".kgtool-saved"  # a hook that was there, set aside by --force, not run
EXIT_FAILED = 1
# The merge driver .kg/.gitattributes names (see kgtool/commands/merge_driver.py).
MERGE_DRIVER = "kgtool"
MERGE_DRIVER_NAME = "kgtool: keep our side of a .kg/ file; a hook rebuilds .kg/"
MERGE_DRIVER_ARGS = "merge-driver %O %A %B %P"

SCRIPT = """\
#!/bin/sh
{marker} {name}
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's docs/hooks.md.

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0{chained}" ]; then
    "$0{chained}" "$@" || exit $?
fi

# --stage (the default): stage what kgtool rewrote under .kg/ with the commit, which goes
# through in one step. --review: the commit stops when .kg/ changed, for a person to read
# the change first (git add .kg, commit again).
stage={stage}
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python={python}

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run ${{stage:+"$stage"}}
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run ${{stage:+"$stage"}}
fi
echo "kgtool hook: kgtool is not installed (see its docs/install.md); .kg/ was not refreshed" >&2
exit 1
"""


# Every script kgtool wrote before today's, as it was then: a hook an older kgtool installed is
# still kgtool's, for install to rewrite and uninstall to remove. When SCRIPT changes, its text
# as it was is added here (and in tests/test_hostile_signals.py), never edited after.
EARLIER_SCRIPTS = (
    # Written from 8f52d19 until the hook stopped sending a user without kgtool to
    # `pip install kgtool` (a name another project holds on PyPI) and to README.
    """\
#!/bin/sh
{marker} {name}
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's README, "Plain git hooks".

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0{chained}" ]; then
    "$0{chained}" "$@" || exit $?
fi

# --stage (the default): stage what kgtool rewrote under .kg/ with the commit, which goes
# through in one step. --review: the commit stops when .kg/ changed, for a person to read
# the change first (git add .kg, commit again).
stage={stage}
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python={python}

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run ${{stage:+"$stage"}}
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run ${{stage:+"$stage"}}
fi
echo "kgtool hook: kgtool is not installed (pip install kgtool); .kg/ was not refreshed" >&2
exit 1
""",
    # Written from 3a04bd7 until review mode stopped being the default: an empty `stage`
    # meant review (it now means the default, one-step).
    """\
#!/bin/sh
{marker} {name}
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's README, "Plain git hooks".

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0{chained}" ]; then
    "$0{chained}" "$@" || exit $?
fi

# --stage: stage what kgtool rewrote under .kg/, so that the commit goes through in one
# step. Empty: the commit stops when .kg/ changed, as with a formatter (git add .kg, commit
# again).
stage={stage}
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python={python}

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run ${{stage:+"$stage"}}
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run ${{stage:+"$stage"}}
fi
echo "kgtool hook: kgtool is not installed (pip install kgtool); .kg/ was not refreshed" >&2
exit 1
""",
    # Written from 4bf28c1 until 3a04bd7: `args` where `stage` is, unquoted where it is used.
    """\
#!/bin/sh
{marker} {name}
# Keeps .kg/ describing exactly what is being committed: refreshes it from the staged
# content and runs every kgtool check, in one kgtool process. Installed by
# `kgtool hooks install`; `kgtool hooks uninstall` removes it and puts back the hook that
# was here before. See kgtool's README, "Plain git hooks".

# A hook that was here before, kept by `kgtool hooks install --chain`, runs first.
if [ -x "$0{chained}" ]; then
    "$0{chained}" "$@" || exit $?
fi

# --stage: stage what kgtool rewrote under .kg/, so that the commit goes through in one
# step. Empty: the commit stops when .kg/ changed, as with a formatter (git add .kg, commit
# again).
args={args}
# The interpreter kgtool was installed with: GUI git clients do not see a virtualenv's PATH.
python={python}

if [ -n "$python" ] && [ -x "$python" ]; then
    exec "$python" -m kgtool hooks run $args
fi
if command -v kgtool >/dev/null 2>&1; then
    exec kgtool hooks run $args
fi
echo "kgtool hook: kgtool is not installed (pip install kgtool); .kg/ was not refreshed" >&2
exit 1
""",
)


def hook_script(name: str, review: bool = False, python: str = "") -> str:
    """The script for hook ``name``; without ``python`` it finds kgtool on PATH (hooks/)."""
    return _filled(SCRIPT, name, review, python)


def _filled(script: str, name: str, review: bool = False, python: str = "") -> str:
    option = shlex.quote("--review" if review else "--stage")
    return script.format(
        marker=MARKER,
        name=name,
        chained=CHAINED,
        stage=option,
        args=option,  # the same setting's name before 3a04bd7
        python=shlex.quote(python),
    )


def is_ours(path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False
    with open(path, "rb") as handle:
        head = handle.read(200)
    return MARKER.encode() in head


# The lines of kgtool's scripts a person may set by hand (docs/hooks.md: set stage=--review).
SETTINGS = ("stage=", "args=", "python=")
# A setting's value as kgtool writes it (shlex.quote) or a person would: one shell word,
# bare or single-quoted. "stage=''; echo mine" is a command of the person's, kept.
SETTING_VALUE = re.compile(r"[\w./+:@%,=-]*|'[^']*'")


def added_line(path: Path) -> str:
    """Where kgtool's hook at ``path`` holds what kgtool did not write ("line 28: echo hi"),
    its settings' values apart; "" when it is one of kgtool's scripts as written."""
    text = path.read_bytes().decode("utf-8", "replace")
    lines = text.splitlines()
    name = lines[1].removeprefix(MARKER).strip() if len(lines) > 1 else ""
    name = name if name in HOOK_NAMES else path.name
    differences = []
    for script in (SCRIPT, *EARLIER_SCRIPTS):
        difference = _first_difference(text, _filled(script, name).splitlines())
        if difference is None:
            return ""
        differences.append(difference)
    # Measured against the script it follows the longest, the one it was made from: an
    # older script's own lines are not the user's.
    number, line = max(differences, key=lambda difference: difference[0])
    return f"line {number}: {line}"


def _first_difference(text: str, expected: list[str]) -> tuple[int, str] | None:
    """The first line of ``text`` (number, what it holds) that is not ``expected``'s."""
    lines = text.splitlines()
    for number, (line, wanted) in enumerate(zip(lines, expected, strict=False), 1):
        name = wanted.split("=")[0] + "="
        setting = (
            wanted.startswith(SETTINGS)
            and line.startswith(name)
            and SETTING_VALUE.fullmatch(line.removeprefix(name)) is not None
        )
        if line != wanted and not setting:
            return number, line.strip()[:80]
    if len(lines) > len(expected):
        return len(expected) + 1, lines[len(expected)].strip()[:80]
    if len(lines) < len(expected) or not text.endswith("\n"):
        return len(lines), "kgtool's script ends after it"
    return None


def install(
    root: Path, review: bool = False, chain: bool = False, force: bool = False, python: str = ""
) -> list[str]:
    """Puts kgtool's hooks in place; one line per hook saying what happened.

    Every hook is checked before any is touched, so a refusal changes nothing.
    """
    folder = hooks_dir(root)
    moves: dict[str, Path] = {}
    for name in HOOK_NAMES:
        path = folder / name
        ours = is_ours(path)
        added = added_line(path) if ours else ""
        if not os.path.lexists(path) or (ours and not added):
            continue
        if not (chain or force):
            # A kgtool hook someone added to is theirs too: rewriting it would lose the lines.
            what = f"holds lines kgtool did not write ({added})" if added else "is not kgtool's"
            raise KgError(
                f"{path} exists and {what}: --chain keeps it and runs it first, "
                "--force sets it aside (`kgtool hooks uninstall` puts it back either way)"
            )
        for suffix in (CHAINED, SAVED):
            if os.path.lexists(f"{path}{suffix}"):
                raise KgError(f"{path}{suffix} already holds an earlier hook; move it first")
        moves[name] = Path(f"{path}{CHAINED if chain else SAVED}")
    folder.mkdir(parents=True, exist_ok=True)
    said = []
    for name in HOOK_NAMES:
        path = folder / name
        mode = "review mode: a commit stops when .kg/ changed" if review else "stages .kg/"
        line = f"installed {path} ({mode})"
        if name in moves:
            os.rename(path, moves[name])  # a rename keeps content, mode and symlinks exactly
            how = "kept, run first" if chain else "set aside, not run"
            line += f"; the hook that was there is {moves[name].name} ({how})"
        atomic_write(path, hook_script(name, review, python).encode())
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        said.append(line)
    kgtool = f"{shlex.quote(python)} -m kgtool" if python else "kgtool"
    set_merge_driver(root, MERGE_DRIVER, MERGE_DRIVER_NAME, f"{kgtool} {MERGE_DRIVER_ARGS}")
    said.append(
        f"registered the merge driver for .kg/ (merge.{MERGE_DRIVER}.driver): a merge keeps "
        "our side of a .kg/ file, and the pre-merge-commit hook rebuilds .kg/"
    )
    return said


def uninstall(root: Path) -> tuple[list[str], bool]:
    """Removes kgtool's hooks and puts back what was there, and forgets the merge driver;
    (lines, everything done)."""
    folder = hooks_dir(root)
    said, done = [], True
    if remove_merge_driver(root, MERGE_DRIVER):
        said.append(f"removed the merge driver for .kg/ (merge.{MERGE_DRIVER})")
    for name in HOOK_NAMES:
        path = folder / name
        kept = [Path(f"{path}{s}") for s in (CHAINED, SAVED) if os.path.lexists(f"{path}{s}")]
        if os.path.lexists(path) and not is_ours(path):
            if kept:
                said.append(f"left {path} alone: it is not kgtool's ({kept[0]} is still there)")
                done = False
            continue
        added = added_line(path) if os.path.lexists(path) else ""
        if added:
            # Refused rather than cut out: kgtool's lines end in an exec, so what follows
            # them never ran, and a hook put back would have to absorb what precedes them;
            # a script made of the rest is one nobody wrote. Leaving it loses nothing.
            said.append(
                f"left {path} alone: it holds lines kgtool did not write ({added}); "
                "move them to a hook of your own, then uninstall again"
            )
            done = False
            continue
        if not os.path.lexists(path) and not kept:
            continue
        path.unlink(missing_ok=True)
        if kept:
            os.rename(kept[0], path)
            said.append(f"removed kgtool's {path}; put back the hook that was there")
        else:
            said.append(f"removed {path}")
    return said, done


def run(root: Path, review: bool = False) -> int:
    """Refresh ``.kg/`` so that it describes the staged content, then run every other check;
    prints only problems, returns the exit code.

    When no tracked file has unstaged changes (always the case under the pre-commit
    framework, which stashes them), kgtool maps the working tree as ``kgtool update`` does.
    Otherwise it maps a temporary checkout of the index and copies the generated files
    back. Either way ``.kg/`` in the working tree then describes what is staged; it is
    staged too, unless in ``review`` mode, where a difference from the index fails the run
    for a person to read it before committing again.
    """
    stage_changes = not review
    remove_leftovers(root)  # what runs killed outright left in the temp folder
    store = Store(root)
    with store.lock():
        if any(not _generated(p) for p in unstaged_paths(root)):
            with index_checkout(root) as tree:
                # The checkout shares the working tree's cache, so unchanged files are not
                # parsed again (we hold the lock: nobody else writes it).
                shared = Store(tree, cache_dir=store.cache_dir)
                found, outcomes = _refresh_and_check(tree, shared)
                _mirror_generated(tree, root)
        else:
            found, outcomes = _refresh_and_check(root, store)
        # What the commit touches, asked of git only when there is a finding to sort.
        touched = set(staged_paths(root)) if found else set()
        changed = unstaged_paths(root, KG_DIR) + untracked_paths(root, KG_DIR)
        pending = sorted(p for p in changed if _generated(p))
        set_aside = bool(pending and stage_changes and _framework_set_aside_kg_changes())
        # `git commit <paths>` commits a temporary index: staged there, .kg/ would be in the
        # commit while git's own index kept the old one, ready to undo it in the next.
        partial = bool(pending and stage_changes and _partial_commit())
        if pending and stage_changes and not set_aside and not partial:
            stage(root, pending)
    for finding in _touched_first(found, touched):
        print(finding)
    failed = report(outcomes, quiet=True)
    if set_aside:
        # The framework puts unstaged changes back as a patch made against the index as it
        # was: staging .kg/ under it would make the patch fail, and the changes with it.
        print(
            f"kgtool rewrote .kg/ ({_few(pending)}) for what is staged, but .kg/ also has "
            "changes you did not stage, which pre-commit set aside; staging over them would "
            "lose them when it puts them back, so nothing was staged: `git add .kg` (or "
            "`git checkout -- .kg` to drop yours), then commit again"
        )
        return EXIT_FAILED
    if pending and stage_changes and run_by_a_merge(root):
        # git makes an automatic merge's commit from the tree it merged, whatever the
        # pre-merge-commit hook stages: stopping here keeps the rebuilt .kg/ for the commit
        # that concludes the merge.
        print(
            f"kgtool rebuilt .kg/ from the merged tree ({_few(pending)}) and staged it; git "
            "commits an automatic merge without it, so the merge stops here: run "
            "`git commit --no-edit` to conclude it"
        )
        return EXIT_FAILED
    if pending and (not stage_changes or partial):
        again = "git add .kg and commit again"
        if _partial_commit():
            # That index takes only tracked files from the paths named, and a new map page
            # is not tracked until `git add` has seen it.
            again = "git add .kg, then commit again naming it (git commit <paths> .kg)"
        why = "review it" if not stage_changes else "a commit of named paths cannot take it"
        print(
            f"kgtool rewrote .kg/ ({_few(pending)}), which differs from what is staged: "
            f"{why}; {again}"
        )
        return EXIT_FAILED
    return EXIT_FAILED if failed else 0


def _touched_first(found: list[Finding], touched: set[str]) -> list[str]:
    """The lines a hook prints for ``found``: each finding about a file the commit touches
    (or about no file), then one line counting the rest. A warning about a file nobody
    touched is not news at every commit; ``kgtool update`` still lists them all."""
    shown = [f.format() for f in found if not f.path or f.path in touched]
    older = len(found) - len(shown)
    if older:
        what = "warning" if older == 1 else "warnings"
        shown.append(
            f"kgtool: {older} older {what} about files this commit does not touch "
            "(`kgtool update` lists them)"
        )
    return shown


def _framework_set_aside_kg_changes() -> bool:
    """Run by the pre-commit framework, which set the unstaged changes aside as a patch
    before running hooks (``patch<time>-<its pid>`` in its home): does that patch touch
    .kg/? The framework applies it again afterwards against the index as it was; a hook
    that stages a file the patch touches makes that fail (pre-commit/pre-commit#2435).

    The framework never deletes its patches, so only one of this run's counts: named after
    a process above this one (a wrapper such as ``uv run`` may stand between), and written
    no earlier than that process started (a pid is reused; its old patches stay)."""
    if os.environ.get("PRE_COMMIT") != "1":
        return False
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    home = os.environ.get("PRE_COMMIT_HOME") or os.path.join(cache, "pre-commit")
    started = dict(_ancestors())
    try:
        names = os.listdir(home)
    except OSError:
        return False
    for name in names:
        stamp, _, pid = name.removeprefix("patch").partition("-")
        if not (name.startswith("patch") and stamp.isdigit() and pid.isdigit()):
            continue
        since = started.get(int(pid))
        if since is None or int(stamp) < since:
            continue
        try:
            with open(os.path.join(home, name), "rb") as patch:
                if any(line.startswith(f"diff --git a/{KG_DIR}/".encode()) for line in patch):
                    return True
        except OSError:
            continue
    return False


ANCESTORS = 4  # processes above this one that may be the framework's


def _ancestors() -> list[tuple[int, int]]:
    """(pid, when it started, whole seconds since the epoch, rounded down) of the processes
    above this one, nearest first; where /proc does not say, the parent alone, as started
    an hour ago (patches older than that are another run's)."""
    found: list[tuple[int, int]] = []
    pid = os.getppid()
    try:
        with open("/proc/stat", "rb") as stat_file:
            boot = next(int(line.split()[1]) for line in stat_file if line.startswith(b"btime "))
        ticks = os.sysconf("SC_CLK_TCK")
        for _ in range(ANCESTORS):
            if pid <= 1:
                break
            with open(f"/proc/{pid}/stat", "rb") as stat_file:
                # The command name, in parentheses, may hold spaces: the fields follow it.
                fields = stat_file.read().rpartition(b")")[2].split()
            found.append((pid, boot + int(fields[19]) // ticks))
            pid = int(fields[1])
    except (OSError, ValueError, StopIteration, IndexError):
        if not found:
            found.append((os.getppid(), int(time.time()) - 3600))
    return found


def _partial_commit() -> bool:
    """``git commit <paths>`` builds its commit in a temporary index that ``git add`` does not
    reach: there, .kg/ must be named with the paths."""
    return "next-index-" in os.path.basename(os.environ.get("GIT_INDEX_FILE", ""))


def _refresh_and_check(root: Path, store: Store) -> tuple[list[Finding], list[CheckOutcome]]:
    ctx = Context(root, load_config(root), store)
    result, layer2 = refresh(ctx)
    found = kept(problems(result, layer2, root), ctx.config["ignore"])
    return found, run_checks(ctx, result, CONTENT)


def _generated(path: str) -> bool:
    """A file under .kg/ that kgtool writes (layer 3 belongs to `kgtool label` and people)."""
    return path.startswith(f"{KG_DIR}/") and path != f"{KG_DIR}/{ONTOLOGY_FILE}"


def _generated_files(root: Path) -> dict[str, bytes]:
    found = {}
    base = root / KG_DIR
    for folder, dirs, files in os.walk(base):
        if Path(folder) == base:
            dirs[:] = [d for d in dirs if d != CACHE_DIR]
        for name in files:
            rel = (Path(folder) / name).relative_to(root).as_posix()
            if _generated(rel) and not name.endswith(".tmp"):
                found[rel] = (Path(folder) / name).read_bytes()
    return found


def _mirror_generated(source: Path, target: Path) -> None:
    """Make the generated files of ``target``'s .kg/ exactly those of ``source``."""
    wanted = _generated_files(source)
    present = _generated_files(target)
    for rel, data in wanted.items():
        if present.get(rel) != data:
            atomic_write(target / rel, data)
    for rel in present.keys() - wanted.keys():
        (target / rel).unlink()


def _few(paths: list[str]) -> str:
    shown = ", ".join(paths[:3])
    return shown + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
