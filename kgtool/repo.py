"""The only place that talks to git.

The per-commit path uses the git CLI directly (a few milliseconds); gitpython and pydriller,
which cost far more to import, are loaded only by the commands that walk history.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kgtool.errors import KgError

MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"


@dataclass(frozen=True)
class TrackedFile:
    path: str  # repository-relative, POSIX separators
    mode: str
    blob: str  # git blob id of the working-tree content ("" if it could not be read)
    deleted: bool = False  # tracked, but missing from the working tree


def git(root: Path, *args: str, check: bool = True) -> str:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as exc:  # pragma: no cover - git is a requirement
        raise KgError("git is not installed or not on PATH") from exc
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise KgError(f"git {' '.join(args)} failed: {message}")
    return done.stdout.decode("utf-8", "surrogateescape")


def find_root(start: Path) -> Path:
    done = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise KgError(f"{start} is not inside a git repository (kgtool maps git repositories)")
    return Path(done.stdout.decode().strip())


def show_file(root: Path, revision: str, path: str) -> bytes | None:
    """A file's bytes at a revision; None when the revision has no such file."""
    done = subprocess.run(
        ["git", "show", f"{revision}:{path}"], cwd=root, capture_output=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


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


@contextlib.contextmanager
def temporary_worktree(root: Path, revision: str) -> Iterator[Path]:
    """A detached checkout of ``revision`` in a temporary folder, removed afterwards."""
    parent = Path(tempfile.mkdtemp(prefix="kgtool-worktree-"))
    path = parent / "tree"
    git(root, "worktree", "add", "--detach", "--quiet", str(path), revision)
    try:
        yield path
    finally:
        git(root, "worktree", "remove", "--force", str(path), check=False)
        shutil.rmtree(parent, ignore_errors=True)
        git(root, "worktree", "prune", check=False)


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
    return dot_git


def blob_id(content: bytes) -> str:
    """The id git gives this content as a blob (so tracked, unmodified files cost no hashing)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def refresh_index(root: Path) -> None:
    """Let git record that unchanged files are unchanged, as ``git status`` does.

    After a clone or checkout, files written in the same second as the index are "racily
    clean": every ``git diff-files`` reads them all again (0.2 s on a 30 MB repository) until
    the index is refreshed. Skipped while a commit holds its own index (a hook runs then), and
    a refresh that cannot take the lock is simply not saved.
    """
    if "GIT_INDEX_FILE" not in os.environ:
        git(root, "update-index", "-q", "--refresh", check=False)


def tracked_files(root: Path) -> list[TrackedFile]:
    """``git ls-files`` with the blob id of each file's working-tree content, sorted by path."""
    refresh_index(root)
    staged = git(root, "ls-files", "--stage", "-z")
    modified = set(filter(None, git(root, "diff-files", "--name-only", "-z").split("\0")))
    files: dict[str, TrackedFile] = {}
    for record in staged.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, blob, stage = meta.split(" ")
        if stage not in ("0", "2"):  # during a merge conflict, keep "ours"
            continue
        if path in modified:
            blob = ""
        files[path] = TrackedFile(path, mode, blob)
    result = []
    for path in sorted(files):
        entry = files[path]
        if entry.blob == "" and entry.mode not in (MODE_SUBMODULE,):
            full = root / path
            if not os.path.lexists(full):
                entry = TrackedFile(path, entry.mode, "", deleted=True)
            elif entry.mode != MODE_SYMLINK and full.is_file() and not full.is_symlink():
                try:
                    entry = TrackedFile(path, entry.mode, blob_id(full.read_bytes()))
                except OSError:
                    entry = TrackedFile(path, entry.mode, "")
        result.append(entry)
    return result


def head_commit(root: Path) -> str:
    return git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip()


@dataclass(frozen=True)
class PathChange:
    """A file leaving a path: renamed to ``new_path`` (status "R"), or deleted ("D")."""

    commit: str  # full id; "" for a change in the working tree that is not committed yet
    status: str  # "R" or "D"
    old_path: str
    new_path: str = ""


def path_changes(root: Path, max_commits: int = 0) -> list[PathChange]:
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
    for chunk in git(root, *args, "HEAD", "--").split("\x01"):
        commit, _, body = chunk.partition("\0")
        if commit:
            changes.extend(_name_status(commit, body))
    # Uncommitted renames count too: the pre-commit hook runs before the commit exists.
    staged = git(root, "diff", "-M", "--name-status", "-z", "--diff-filter=RD", "HEAD", "--")
    changes.extend(_name_status("", staged))
    return changes


def _name_status(commit: str, body: str) -> list[PathChange]:
    tokens = body.lstrip("\n").split("\0")
    changes = []
    i = 0
    while i < len(tokens):
        status = tokens[i].strip()
        if not status:
            i += 1
            continue
        if status.startswith("R") and i + 2 < len(tokens):
            changes.append(PathChange(commit, "R", tokens[i + 1], tokens[i + 2]))
            i += 3
        elif status.startswith("D") and i + 1 < len(tokens):
            changes.append(PathChange(commit, "D", tokens[i + 1]))
            i += 2
        else:  # a status we did not ask for: skip it and its one path
            i += 2
    return changes


def is_shallow(root: Path) -> bool:
    return git(root, "rev-parse", "--is-shallow-repository", check=False).strip() == "true"


def changed_paths(root: Path, rev_range: str | None = None) -> list[str]:
    """Paths touched by ``rev_range`` (``A..B``, ``A...B`` or one commit), or by the current
    uncommitted change (staged and unstaged) when it is None; sorted, renames as the new path.
    """
    if rev_range is None:
        if not head_commit(root):
            out = git(root, "diff", "--cached", "--name-only", "-z", check=False)
            return sorted(filter(None, out.split("\0")))
        out = git(root, "diff", "-M", "--name-only", "-z", "HEAD", "--")
        return sorted(filter(None, out.split("\0")))
    if rev_range.startswith("-"):  # never let a range be read as an option
        raise KgError(f"'{rev_range}' is not a revision range")
    # A single revision means that commit alone, not all its ancestors.
    spec = rev_range if ".." in rev_range else f"{rev_range}^!"
    out = git(root, "log", "-M", "--name-only", "-z", "--format=", spec, "--")
    return sorted({p.strip("\n") for p in out.split("\0") if p.strip("\n")})


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


def untracked_paths(root: Path, *pathspec: str) -> list[str]:
    """Files git does not track and does not ignore."""
    out = git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *pathspec)
    return sorted(filter(None, out.split("\0")))


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
    gitdir = git(root, "rev-parse", "--absolute-git-dir").strip()
    index = root / git(root, "rev-parse", "--git-path", "index").strip()
    parent = Path(tempfile.mkdtemp(prefix="kgtool-index-"))
    tree = parent / "tree"
    tree.mkdir()
    shutil.copyfile(index, parent / "index")
    env = {"GIT_DIR": gitdir, "GIT_WORK_TREE": str(tree), "GIT_INDEX_FILE": str(parent / "index")}
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        # -u records the new files' stat data, so that diff-files finds nothing to re-read.
        git(tree, "checkout-index", "--all", "--force", "-u")
        yield tree
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(parent, ignore_errors=True)
