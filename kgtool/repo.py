"""The only place that talks to git.

Every command uses the git CLI directly (a few milliseconds a call), history walks included:
no git library to import or install.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from kgtool.errors import KgError
from kgtool.tracked import Listing, TrackedFile, files_listed


def _run(
    root: Path, args: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``git args`` in ``root``; a missing git or folder is the user's problem, said in a line."""
    return _finish(_start(root, args, env))


def _start(
    root: Path, args: list[str], env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``git args`` started in ``root``, to be read by ``_finish``."""
    try:
        return subprocess.Popen(
            ["git", *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
    except FileNotFoundError as exc:
        if not os.path.isdir(root):
            raise KgError(f"{root}: no such directory") from exc
        raise KgError("git is not installed or not on PATH (kgtool runs git)") from exc
    except NotADirectoryError as exc:
        raise KgError(f"{root}: not a directory") from exc
    except PermissionError as exc:
        raise KgError(f"{root}: permission denied ({exc.strerror})") from exc


def _finish(process: subprocess.Popen[bytes]) -> subprocess.CompletedProcess[bytes]:
    with process:
        try:
            out, err = process.communicate()
        except BaseException:
            process.kill()  # as subprocess.run does: an interrupted run leaves no git behind
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def git(root: Path, *args: str, check: bool = True) -> str:
    return _output(args, _run(root, list(args)), check)


def _output(
    args: tuple[str, ...] | list[str], done: subprocess.CompletedProcess[bytes], check: bool
) -> str:
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise KgError(f"git {' '.join(args)} failed: {message}")
    return done.stdout.decode("utf-8", "surrogateescape")


def find_root(start: Path) -> Path:
    if not start.exists():
        raise KgError(f"{start}: no such directory")
    if not start.is_dir():
        raise KgError(f"{start}: not a directory (-C takes the folder of a repository)")
    done = _run(start, ["rev-parse", "--is-bare-repository", "--show-toplevel"])
    words = done.stdout.decode("utf-8", "surrogateescape").split("\n")
    if words[0] == "true":
        raise KgError(f"{start} is a bare repository: kgtool maps a working tree (a clone)")
    if done.returncode != 0 or len(words) < 2 or not words[1]:
        raise KgError(f"{start} is not inside a git repository (kgtool maps git repositories)")
    root = Path(words[1])
    _refuse_foreign_git_dir(root)
    return root


def _refuse_foreign_git_dir(root: Path) -> None:
    """With ``GIT_DIR`` set and no ``GIT_WORK_TREE``, git takes the current folder as the work
    tree, whatever repository GIT_DIR names: kgtool would then map (and write .kg/ into) a
    folder that is not that repository's checkout. Worktrees and hooks pass: their GIT_DIR is
    the one the folder itself leads to."""
    if "GIT_DIR" not in os.environ or "GIT_WORK_TREE" in os.environ:
        return
    named = _run(root, ["rev-parse", "--absolute-git-dir"])
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_COMMON_DIR")}
    own = _run(root, ["rev-parse", "--absolute-git-dir"], env=env)
    if own.returncode != 0 or own.stdout != named.stdout:
        where = named.stdout.decode("utf-8", "replace").strip() or os.environ["GIT_DIR"]
        raise KgError(
            f"GIT_DIR names {where}, whose work tree is not {root}: set GIT_WORK_TREE too, "
            "or unset GIT_DIR and run kgtool in (or -C) the checkout"
        )


def show_file(root: Path, revision: str, path: str, limit: int = 0) -> bytes | None:
    """A file's bytes at a revision; None when the revision has no such file, or (with a
    ``limit``) when it is larger than that: it is never read past the limit."""
    if not limit:
        done = _run(root, ["show", f"{revision}:{path}"])
        return done.stdout if done.returncode == 0 else None
    return _read_bounded(root, ["cat-file", "blob", f"{revision}:{path}"], limit)


def _read_bounded(root: Path, args: list[str], limit: int) -> bytes | None:
    """What ``git args`` prints; None when it fails or prints more than ``limit`` bytes (it
    is stopped there, never read further)."""
    process = _start(root, args)
    with process:
        assert process.stdout is not None
        try:
            data = process.stdout.read(limit + 1)
            if len(data) > limit:
                process.kill()
                return None
            process.communicate()
        except BaseException:
            process.kill()
            raise
    return data if process.returncode == 0 else None


def resolve_commit(root: Path, revision: str) -> str:
    """The commit id a revision names; a clear error when it names none."""
    if revision.startswith("-"):  # never let a revision be read as an option
        raise KgError(f"'{revision}' is not a revision")
    found = git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", check=False)
    if not found.strip():
        raise KgError(f"'{revision}' does not name a commit in this repository")
    return found.strip()


def default_branch(root: Path) -> str | None:
    """The branch pull requests go to: origin's HEAD, else a local or remote main/master."""
    remote_head = git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD", check=False)
    if remote_head.strip():
        return remote_head.strip().removeprefix("refs/remotes/")
    for name in ("main", "master", "origin/main", "origin/master"):
        if git(root, "rev-parse", "--verify", "--quiet", name, check=False).strip():
            return name
    return None


def merge_base(root: Path, first: str, second: str) -> str | None:
    found = git(root, "merge-base", first, second, check=False).strip()
    return found or None


# The temporary folders runs make, named "<prefix><pid>-<random>": the pid of the run that
# made one tells a later run whether it is still in use. A SIGTERM or Ctrl-C removes them on
# the way out; what a SIGKILL leaves, the next run removes (remove_leftovers).
WORKTREE_PREFIX = "kgtool-worktree-"
INDEX_PREFIX = "kgtool-index-"


def _temporary_folder(prefix: str) -> Path:
    import tempfile  # here: every hook run imports this module, few make a folder

    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def remove_leftovers(root: Path | None = None) -> list[str]:
    """Remove the temporary worktrees and index copies of runs killed outright (SIGKILL, a
    lost machine), worktrees unregistered from their repository; the names removed. With
    ``root``, also the registrations in that repository of kgtool's worktrees whose folder
    is gone (a reboot emptied the temp folder).

    Only what kgtool's runs make: a folder (never a symlink) of the temp folder named with
    one of their prefixes and a pid, owned by this user, whose run is gone. Every hook run
    looks: one listing of the temp folder (and of the registered worktrees) when there is
    nothing to remove."""
    if os.name != "posix":  # no owner to check; os.kill(pid, 0) would end the process
        return []
    removed = _remove_abandoned_folders()
    if root is not None:
        # After the folders: one whose checkout git would not remove is gone now too.
        _forget_wiped_worktrees(root)
    return removed


def _remove_abandoned_folders() -> list[str]:
    temp = _temp_dir()
    try:
        with os.scandir(temp) as entries:
            found = sorted(
                (entry.name, entry.path)
                for entry in entries
                if entry.name.startswith((WORKTREE_PREFIX, INDEX_PREFIX))
            )
    except OSError:
        return []
    removed = []
    for name, path in found:
        if not _abandoned(name, path):
            continue
        import shutil  # here: mostly there is nothing to remove

        if name.startswith(WORKTREE_PREFIX):
            _unregister_worktree(Path(path) / "tree")
        shutil.rmtree(path, ignore_errors=True)
        removed.append(name)
    return removed


def _temp_dir() -> str:
    """The folder tempfile makes its folders in, found without importing it when no module
    has (a hook run that makes no folder must not pay for it): TMPDIR, TEMP or TMP when one
    names a folder, else /tmp, tempfile's own first choices on POSIX."""
    loaded = sys.modules.get("tempfile")
    if loaded is not None:
        found: str = loaded.gettempdir()
        return found
    for name in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(name)
        if value and os.path.isdir(value):
            return os.path.abspath(value)
    return "/tmp"


def _maker(name: str) -> int | None:
    """The pid of the run that made the temporary folder ``name``; None when it is not a name
    kgtool's runs make (or an older kgtool's, whose run is unknown)."""
    prefix = WORKTREE_PREFIX if name.startswith(WORKTREE_PREFIX) else INDEX_PREFIX
    if not name.startswith(prefix):
        return None
    pid, dash, _ = name[len(prefix) :].partition("-")
    return int(pid) if dash and pid.isdigit() else None


def _abandoned(name: str, path: str) -> bool:
    """A folder of ours whose run is gone: safe to remove."""
    pid = _maker(name)
    if pid is None:
        return False
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    return not _running(pid)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (a recycled pid keeps a folder: the safe way round)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # no signal: only asks
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # someone else's process; or no pid a system gives
        return True
    return True


def _unregister_worktree(tree: Path) -> None:
    """``git worktree remove`` a leftover checkout from the repository it belongs to, which
    its ``.git`` file names: ``git worktree list`` there no longer shows it."""
    try:
        text = (tree / ".git").read_text(encoding="utf-8", errors="surrogateescape")
        admin = tree / text.removeprefix("gitdir:").strip()
        common = (admin / (admin / "commondir").read_text().strip()).resolve()
    except OSError:
        return  # no checkout yet, or its repository is gone: nothing registered to remove
    # The repository is named on the command line; a hook's own would lead git elsewhere.
    env = {k: v for k, v in os.environ.items() if k not in _REPOSITORY_VARIABLES}
    _run(tree.parent, [f"--git-dir={common}", "worktree", "remove", "--force", str(tree)], env)


_REPOSITORY_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")


def _forget_wiped_worktrees(root: Path) -> None:
    """Remove the registrations (``<git dir>/worktrees/<id>``) of kgtool's temporary worktrees
    whose temp folder is gone, as ``git worktree prune`` would, and only those: a user's
    worktree on a drive not mounted now keeps its registration, and so does a locked one."""
    admin = _common_git_dir(root) / "worktrees"
    try:
        with os.scandir(admin) as entries:
            registered = [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        return  # no worktree was ever added
    for entry in registered:
        try:
            pointer = (entry / "gitdir").read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            continue
        # "<temp>/kgtool-worktree-<pid>-<random>/tree/.git", as temporary_worktree adds it
        checkout = Path(os.path.normpath(entry / pointer.strip())).parent
        folder = checkout.parent
        if checkout.name != "tree" or not folder.name.startswith(WORKTREE_PREFIX):
            continue
        if _maker(folder.name) is None or os.path.lexists(folder):
            continue
        if os.path.lexists(entry / "locked"):
            continue
        import shutil  # here: mostly there is nothing to remove

        shutil.rmtree(entry, ignore_errors=True)


def _common_git_dir(root: Path) -> Path:
    """The git directory every worktree of ``root``'s repository shares."""
    own = git_dir(root)
    try:
        return (own / (own / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return own  # the main worktree's: it is the common one


@contextlib.contextmanager
def temporary_worktree(root: Path, revision: str) -> Iterator[Path]:
    """A detached checkout of ``revision`` in a temporary folder, removed afterwards.

    The checkout is ``<folder>/tree``; what a caller keeps beside it in ``<folder>`` is
    removed with it, by this run or, after a SIGKILL, by the next run's sweep."""
    import shutil

    remove_leftovers(root)
    parent = _temporary_folder(WORKTREE_PREFIX)
    path = parent / "tree"
    try:
        # In the try: a signal that stops git half way leaves a registration to remove.
        git(root, "worktree", "add", "--detach", "--quiet", str(path), revision)
        yield path
    finally:
        git(root, "worktree", "remove", "--force", str(path), check=False)
        shutil.rmtree(parent, ignore_errors=True)
        _forget_wiped_worktrees(root)  # git worktree prune would forget the user's too


def first_parent_history(root: Path, count: int, revision: str = "HEAD") -> list[str]:
    """The last ``count`` commits on ``revision``'s first-parent line, oldest first."""
    out = git(root, "rev-list", "--first-parent", f"-n{count}", revision, "--")
    return list(reversed(out.split()))


def checkout_detached(worktree: Path, revision: str) -> None:
    git(worktree, "checkout", "--quiet", "--force", "--detach", revision)


def git_dir(root: Path) -> Path:
    """The repository's git directory, read from ``.git`` without running git: a folder, or
    for a worktree or submodule a file that says where it is."""
    dot_git = root / ".git"
    if dot_git.is_file():
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            return (root / text.removeprefix("gitdir:").strip()).resolve()
    if dot_git.is_dir():
        return dot_git
    # Neither: the git directory lives elsewhere (GIT_DIR with GIT_WORK_TREE); git knows.
    return Path(git(root, "rev-parse", "--absolute-git-dir").strip())


def _status_args() -> list[str]:
    """``git status`` for the tracked files whose working-tree content (or mode) is not what
    the index holds, gone ones included; it also records in the index that the others are
    unchanged. After a clone or checkout, files written in the same second as the index are
    "racily clean", and every later look reads them all again (0.2 s on a 30 MB repository)
    until that is recorded. While a commit holds its own index (a hook runs then) nothing is
    written to it; a refresh that cannot take the lock is simply not saved."""
    args = ["status", "--porcelain=v2", "-z", "--untracked-files=no", "--no-renames"]
    if "GIT_INDEX_FILE" in os.environ:
        args.insert(0, "--no-optional-locks")
    return args


def _modified_in(status: str) -> set[str]:
    """The paths ``git status --porcelain=v2 -z`` says differ in the working tree."""
    modified: set[str] = set()
    for record in status.split("\0"):
        # "1 XY sub mH mI mW hH hI path" (Y: the working tree against the index), or
        # "u XY sub m1 m2 m3 mW h1 h2 h3 path" for a path a merge left unmerged.
        if record.startswith("1 "):
            fields = record.split(" ", 8)
            if len(fields) == 9 and fields[1][1] != ".":
                modified.add(fields[8])
        elif record.startswith("u "):
            fields = record.split(" ", 10)
            if len(fields) == 11:
                modified.add(fields[10])
    return modified


def listing(root: Path) -> Listing:
    # Both git processes at once: on every hook run each is mostly a wait. ls-files may read
    # the index while status refreshes its stat data; what it prints (mode, blob, stage,
    # path) is the same either way. ls-files is read while status runs: its listing (100
    # bytes a file) would fill the pipe and stop it until status was done.
    status_args, args = _status_args(), ["ls-files", "--stage", "-z"]
    status = _start(root, status_args)
    try:
        staged = _finish(_start(root, args))
    except BaseException:
        status.kill()  # an interrupted run waits for no git
        raise
    finally:
        done = _finish(status)
    modified = _modified_in(_output(status_args, done, check=True))
    return Listing(_output(args, staged, check=True), modified)


def tracked_files(root: Path, listed: Listing | None = None) -> list[TrackedFile]:
    """``git ls-files`` with the blob id of each file's working-tree content, sorted by path."""
    return files_listed(root, listed if listed is not None else listing(root))


def head_commit(root: Path) -> str:
    return git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip()


class PathChange(NamedTuple):
    """A file leaving a path: renamed to ``new_path`` (status "R"), or deleted ("D")."""

    commit: str  # full id; "" for a change in the working tree that is not committed yet
    status: str  # "R" or "D"
    old_path: str
    new_path: str = ""


def path_changes(root: Path, max_commits: int = 0, since: str = "") -> list[PathChange]:
    """Every rename and deletion in the history of HEAD, oldest first, then uncommitted ones.

    One pass over history instead of ``git log --follow`` per path: ``--follow`` walks
    backwards from a path that exists, whereas a missing pointer needs the forward direction
    (what did this old path become?). Merges show no diff here, so a rename made on a branch
    is seen once, in the branch's own commit.
    """
    if not head_commit(root):
        return []
    args = ["log", "-M", "--name-status", "-z", "--diff-filter=RD", "--format=%x01%H"]
    args += ["--topo-order", "--reverse"]
    if max_commits > 0:
        args.append(f"-n{max_commits}")
    changes: list[PathChange] = []
    # ``since``: only what happened after that commit (a commit id, never an option).
    revisions = f"{since}..HEAD" if since else "HEAD"
    for chunk in git(root, *args, revisions, "--").split("\x01"):
        commit, _, body = chunk.partition("\0")
        if commit:
            changes.extend(_name_status(commit, body))
    # Uncommitted renames count too: the pre-commit hook runs before the commit exists.
    staged = git(root, "diff", "-M", "--name-status", "-z", "--diff-filter=RD", "HEAD", "--")
    changes.extend(_name_status("", staged))
    return changes


def _name_status(commit: str, body: str) -> list[PathChange]:
    changes = []
    for file in _log_files(body):
        if file.status == "R":
            changes.append(PathChange(commit, "R", file.old_path, file.path))
        elif file.status == "D":
            changes.append(PathChange(commit, "D", file.path))
    return changes


def is_shallow(root: Path) -> bool:
    return git(root, "rev-parse", "--is-shallow-repository", check=False).strip() == "true"


def range_spec(rev_range: str) -> str:
    """What ``git log`` takes for ``A..B``, ``A...B`` or one commit (that commit alone)."""
    if rev_range.startswith("-"):  # never let a range be read as an option
        raise KgError(f"'{rev_range}' is not a revision range")
    return rev_range if ".." in rev_range else f"{rev_range}^!"


def check_range(root: Path, rev_range: str) -> str:
    """The commit a range ends at; a clear error when the range names no commits at all."""
    spec = range_spec(rev_range)
    done = _run(root, ["rev-list", "--count", spec, "--"])
    if done.returncode != 0:
        raise KgError(f"'{rev_range}' is not a revision range of this repository")
    if int(done.stdout.decode().strip() or 0) == 0:
        first, dots, second = rev_range.partition("..")
        if dots and first and second and not second.startswith("."):  # A..B, not A...B
            raise KgError(
                f"'{rev_range}' selects no commits: {second} is an ancestor of {first}; "
                f"did you mean {second}..{first}?"
            )
        raise KgError(f"'{rev_range}' selects no commits")
    if ".." not in rev_range:
        return resolve_commit(root, rev_range)
    end = rev_range.rpartition("..")[2].lstrip(".")
    return resolve_commit(root, end or "HEAD")


def changed_paths(root: Path, rev_range: str | None = None) -> list[str]:
    """Paths touched by ``rev_range`` (``A..B``, ``A...B`` or one commit), or by the current
    uncommitted change (staged and unstaged) when it is None; sorted, renames as the new path.
    """
    if rev_range is None:
        if not head_commit(root):
            out = git(root, "diff", "--cached", "--name-only", "-z", check=False)
            return sorted(filter(None, out.split("\0")))
        return paths_differing(root, "HEAD")
    # A single revision means that commit alone, not all its ancestors.
    out = git(root, "log", "-M", "--name-only", "-z", "--format=", range_spec(rev_range), "--")
    return sorted({p.strip("\n") for p in out.split("\0") if p.strip("\n")})


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


class Hunk(NamedTuple):
    """Lines of a commit's version of a file that the commit wrote (1-based, inclusive); a
    deletion is the line it happened before, with ``wrote`` False."""

    first: int
    last: int
    wrote: bool


def changed_lines(root: Path, commit: str, path: str) -> list[Hunk] | None:
    """What ``commit`` changed in ``path`` against its first parent, as hunks of the
    commit's version; None when git cannot say (a root commit, a blob this clone lacks, no
    such path there)."""
    if commit.startswith("-"):
        return None
    done = _run(root, ["--literal-pathspecs", *_first_parent_diff(commit), path])
    if done.returncode != 0:
        return None
    hunks = []
    for hunk in _HUNK.finditer(done.stdout.decode("utf-8", "replace")):
        first = max(int(hunk.group(1)), 1)
        count = int(hunk.group(2)) if hunk.group(2) is not None else 1
        hunks.append(Hunk(first, max(first + count - 1, first), count > 0))
    return hunks


def changed_text(
    root: Path, commit: str, limit: int, leave_out: Iterable[str] = ()
) -> tuple[list[str], list[str]] | None:
    """The lines ``commit`` removed and the lines it wrote, against its first parent, over
    its files but those named (in any case, in any folder) in ``leave_out`` (lock files, which
    a bump rewrites by the megabyte); None when git cannot say (a root commit, a missing
    blob) or the diff is longer than ``limit`` bytes."""
    if commit.startswith("-"):
        return None
    excluded = [f":(exclude,glob,icase)**/{name}" for name in sorted(leave_out)]
    data = _read_bounded(root, [*_first_parent_diff(commit), *excluded], limit)
    if data is None:
        return None
    removed: list[str] = []
    written: list[str] = []
    in_header = False  # between "diff --git" and the first hunk: "--- a/x" is no line
    # Lines end at "\n" only: a line holding a form feed or U+2028 is one line, not a header.
    for line in data.decode("utf-8", "replace").split("\n"):
        if line.startswith("diff --git "):
            in_header = True
        elif line.startswith("@@"):
            in_header = False
        elif in_header:
            continue
        elif line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("+"):
            written.append(line[1:])
    return removed, written


def _first_parent_diff(commit: str) -> list[str]:
    """``git diff`` of a commit against its first parent, hunks without context, the same
    on every machine: no colour, no external or text-converting drivers, one algorithm."""
    return ["-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff",
            "--no-textconv", "--diff-algorithm=myers", "--no-renames", f"{commit}^1", commit,
            "--"]  # fmt: skip


def paths_differing(root: Path, base: str) -> list[str]:
    """Paths whose content differs between commit ``base`` and the working tree, sorted,
    renames as the new path."""
    return list(differing_statuses(root, base))


def renames_between(root: Path, base: str, head: str | None = None) -> dict[str, str]:
    """New path -> old path of each file git finds renamed between commit ``base`` and
    commit ``head`` (None: the working tree), by content similarity as ``git diff -M``."""
    if base.startswith("-") or (head or "").startswith("-"):
        raise KgError(f"'{base}' is not a revision")
    args = ["diff", "-M", "--name-status", "-z", "--diff-filter=R", base, *([head] if head else [])]
    fields = git(root, *args, "--").split("\0")
    return {fields[at + 2]: fields[at + 1] for at in range(0, len(fields) - 2, 3) if fields[at]}


def differing_statuses(root: Path, base: str) -> dict[str, str]:
    """Path -> git's status letter (A, M, D, R, C, T) of each path whose content differs
    between commit ``base`` and the working tree, sorted; a rename or copy is its new path
    only. A tree diff, not a log: in a shallow clone the commit at the boundary has no
    parent, and a log would show every file as added by it."""
    if base.startswith("-"):
        raise KgError(f"'{base}' is not a revision")
    fields = git(root, "diff", "-M", "--name-status", "-z", base, "--").split("\0")
    statuses: dict[str, str] = {}
    at = 0
    while at < len(fields) and fields[at]:
        letter = fields[at][:1]
        if letter in ("R", "C"):  # "R100", the old path, the new one
            statuses[fields[at + 2]] = letter
            at += 3
        else:
            statuses[fields[at + 1]] = letter
            at += 2
    return dict(sorted(statuses.items()))


def recorded_parents(root: Path, revision: str = "HEAD") -> list[str]:
    """The parent ids a commit records, even those a shallow clone did not fetch."""
    text = git(root, "cat-file", "commit", revision, check=False)
    header = text.split("\n\n", 1)[0]
    return [line.split()[1] for line in header.splitlines() if line.startswith("parent ")]


class LogFile(NamedTuple):
    """One file of a commit's diff against its first parent: status A, M, D, T, R or C."""

    status: str
    path: str  # the path after the commit
    old_path: str = ""  # for R and C: the path before


class LogCommit(NamedTuple):
    sha: str
    parents: tuple[str, ...]
    author: str
    email: str
    time: int  # author time, seconds since the epoch
    message: str  # subject and body as written
    files: tuple[LogFile, ...]


# Field and record marks that never occur in commit metadata git prints for us.
_FIELD = "\x1f"
_RECORD = "\x01"
_HEADER_END = "\x02"


def first_parent_log(
    root: Path,
    revision: str = "HEAD",
    since: str | None = None,
    max_commits: int = 0,
    renames: bool = True,
) -> list[LogCommit]:
    """The first-parent history of ``revision``, oldest first, with each commit's files.

    One ``git log`` for the whole history: a merge is diffed against its first parent (the
    pull request as the branch received it), renames are detected (unless not ``renames``:
    detecting them reads the blobs, which a partial clone may not hold), and nothing runs
    per commit, which is what keeps thousands of commits to a second or two.
    """
    if revision.startswith("-"):  # never let a revision be read as an option
        raise KgError(f"'{revision}' is not a revision")
    fields = _FIELD.join(("%H", "%P", "%an", "%ae", "%at", "%B"))
    args = [
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "-M" if renames else "--no-renames",
        "--name-status",
        "-z",
        "--no-color",
        f"--format={_RECORD}{fields}{_HEADER_END}",
    ]
    if since:
        args.append(f"--since={since}")
    if max_commits > 0:
        args.append(f"-n{max_commits}")
    out = git(root, *args, revision, "--")
    commits = []
    for record in out.split(_RECORD):
        if not record:
            continue
        header, _, diff = record.partition(_HEADER_END)
        parts = header.split(_FIELD, 5)
        if len(parts) != 6:
            continue
        sha, parents, author, email, when, message = parts
        commits.append(
            LogCommit(
                sha,
                tuple(parents.split()),
                author,
                email,
                int(when or 0),
                message.strip("\n"),
                tuple(_log_files(diff)),
            )
        )
    commits.reverse()
    return commits


def _log_files(diff: str) -> list[LogFile]:
    tokens = [t for t in diff.lstrip("\n\0").split("\0")]
    files = []
    i = 0
    while i < len(tokens):
        status = tokens[i].strip("\n")
        if not status:
            i += 1
            continue
        letter = status[0]
        if letter in "RC" and i + 2 < len(tokens):
            files.append(LogFile(letter, tokens[i + 2], tokens[i + 1]))
            i += 3
        elif i + 1 < len(tokens):
            files.append(LogFile(letter, tokens[i + 1]))
            i += 2
        else:
            break
    return files


def commit_count(root: Path, revision: str = "HEAD", since: str | None = None) -> int:
    """Commits on the first-parent line of ``revision``, those after ``since`` (a date) only
    when it is given; 0 when it names none."""
    window = [f"--since={since}"] if since else []
    args = ["rev-list", "--count", "--first-parent", *window, revision, "--"]
    out = git(root, *args, check=False).strip()
    return int(out) if out.isdigit() else 0


def renamed_pairs(
    root: Path, revision: str = "HEAD", since: str | None = None, max_commits: int = 0
) -> set[tuple[str, str]]:
    """(old, new) of every rename in the commits of ``revision``, side branches included.

    A merge diffed against its first parent often shows a branch's rename as a deletion and
    an addition (the file changed too much on the way); the branch's own commit says what
    happened, in the same single pass over history.
    """
    args = ["log", "-M", "--no-merges", "--name-status", "-z", "--diff-filter=R", "--format="]
    if since:
        args.append(f"--since={since}")
    if max_commits > 0:
        args.append(f"-n{max_commits}")
    return {
        (f.old_path, f.path)
        for f in _log_files(git(root, *args, revision, "--"))
        if f.status == "R"
    }


def hooks_dir(root: Path) -> Path:
    """Where git looks for this repository's hooks: ``core.hooksPath`` when set, else the
    common git directory's ``hooks/`` (one folder for every worktree)."""
    return root / git(root, "rev-parse", "--git-path", "hooks").strip()


def unstaged_paths(root: Path, *pathspec: str) -> list[str]:
    """Tracked paths whose working-tree content differs from the index (the one a running
    commit uses, ``GIT_INDEX_FILE``); porcelain ``diff`` so that a touched but unchanged file
    does not count."""
    args = ["diff", "--name-only", "-z", "--no-ext-diff", "--ignore-submodules", "--", *pathspec]
    return sorted(filter(None, git(root, *args).split("\0")))


def staged_paths(root: Path) -> list[str]:
    """Paths the index (the one a running commit uses) changes against HEAD, or holds at
    all before the first commit (git diffs an unborn HEAD as an empty tree): what the commit
    being made touches."""
    args = ["diff", "--cached", "--name-only", "-z", "--no-ext-diff", "--no-renames", "--"]
    return sorted(filter(None, git(root, *args).split("\0")))


def untracked_paths(root: Path, *pathspec: str) -> list[str]:
    """Files git does not track and does not ignore."""
    out = git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *pathspec)
    return sorted(filter(None, out.split("\0")))


# What git keeps in the git directory while it replays commits rather than merges.
REPLAYING = ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD")


def named_a_merge() -> bool:
    """Whether git names the action that runs this process a merge or a pull (its words,
    read before asking git anything: see ``run_by_a_merge``)."""
    words = os.environ.get("GIT_REFLOG_ACTION", "").split()
    return bool(words) and words[0] in ("merge", "pull")


def run_by_a_merge(root: Path) -> bool:
    """Whether git runs this process (a hook, a merge driver) for a merge: ``git merge`` or
    a ``git pull`` names its action so in GIT_REFLOG_ACTION (``git commit`` names none), and
    no rebase, cherry-pick or revert is under way. The state is git's own, not the action's
    words: ``pull.rebase=true`` names a rebasing pull plain "pull", and ``--no-rebase``
    holds the word "rebase"."""
    if not named_a_merge():
        return False
    state = git_dir(root)
    return not any((state / name).exists() for name in REPLAYING)


def set_merge_driver(root: Path, name: str, description: str, command: str) -> None:
    """Register merge driver ``name`` in the repository's own configuration (shared by
    its worktrees): git runs ``command`` for a path whose ``merge`` attribute names it."""
    git(root, "config", f"merge.{name}.name", description)
    git(root, "config", f"merge.{name}.driver", command)


def remove_merge_driver(root: Path, name: str) -> bool:
    """Forget merge driver ``name``; False when it was not registered."""
    if not git(root, "config", "--get", f"merge.{name}.driver", check=False):
        return False
    git(root, "config", "--remove-section", f"merge.{name}")
    return True


def stage(root: Path, paths: list[str]) -> None:
    """``git add`` these exact paths, deletions included, into the index a commit uses."""
    if paths:
        git(root, "--literal-pathspecs", "add", "--all", "--", *paths)


@contextlib.contextmanager
def index_checkout(root: Path) -> Iterator[Path]:
    """The index (what the commit being made records) checked out in a temporary folder,
    which every git command run inside the block takes for this repository's working tree.

    For a hook run while files have unstaged changes: mapping the folder makes ``.kg/``
    describe the staged content, and the user's working tree is never touched (stashing the
    unstaged changes away, as the pre-commit framework does, risks them on a crash). git
    sees the folder through GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE; the index is a copy,
    so refreshing its stat data cannot disturb the commit.
    """
    import shutil

    gitdir = git(root, "rev-parse", "--absolute-git-dir").strip()
    index = root / git(root, "rev-parse", "--git-path", "index").strip()
    parent = _temporary_folder(INDEX_PREFIX)
    tree = parent / "tree"
    env = {"GIT_DIR": gitdir, "GIT_WORK_TREE": str(tree), "GIT_INDEX_FILE": str(parent / "index")}
    saved = {name: os.environ.get(name) for name in env}
    try:
        tree.mkdir()
        shutil.copyfile(index, parent / "index")
        os.environ.update(env)
        # -u records the new files' stat data, so that git status finds nothing to re-read.
        git(tree, "checkout-index", "--all", "--force", "-u")
        yield tree
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(parent, ignore_errors=True)
