"""What layer 2 clusters apart: the repository's own packages, and code versus everything else.

Packages are read from the files layer 1 maps, as they are in the tree being mapped: the
workspaces a root manifest declares (npm/yarn ``workspaces``, ``pnpm-workspace.yaml``,
``go.work``, Cargo ``[workspace] members``) and every nested manifest (``package.json``,
``go.mod``, ``Cargo.toml``, ``pyproject.toml``, ``setup.py``) outside data folders, where
manifests are test inputs rather than packages (poetry's fixtures hold hundreds of
pyproject.toml files). The repository root is never a package root: it is what holds
everything outside them.

A file is code when layer 1 has a grammar for it and it does not sit in a data folder;
manifests (package.json, go.mod) and a tool's settings written as code (vitest.config.ts,
.eslintrc.js) are read by layer 1 but are not code: they are the package's setup, as are
docs, data, images and lock files. Non-code files are grouped apart from code.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from typing import Any

from kgtool import bounded
from kgtool.file_kinds import in_data_folder, is_data_folder, is_tool_config
from kgtool.globs import glob_body
from kgtool.raw.languages import language_for_path
from kgtool.raw.languages.base import Manifest

MANIFESTS = frozenset({"package.json", "go.mod", "Cargo.toml", "pyproject.toml", "setup.py"})

Reader = Callable[[str], bytes | None]  # repository-relative path -> content, None if unreadable
# A workspace manifest that could not be read, so its members are not packages here:
# (path, line or 0, why), for a finding (C202).
Unread = tuple[str, int, str]


def is_source(path: str) -> bool:
    """Whether a file is source a person edits as code: parsed by layer 1, no manifest, not in
    a data folder (a tool's settings written as code are source)."""
    language = language_for_path(path)
    return language is not None and not isinstance(language, Manifest) and not in_data_folder(path)


def is_code(path: str) -> bool:
    """Whether a file counts as code for layer 2 (see the module's docstring): source that is
    not a tool's settings, which are its package's setup on the map."""
    return is_source(path) and not is_tool_config(path)


def detect_packages(
    files: Iterable[str], read: Reader, unread: list[Unread] | None = None
) -> list[str]:
    """The package roots among ``files`` (sorted folders, never the root). A workspace
    manifest that cannot be read is added to ``unread``."""
    unread = [] if unread is None else unread
    folders_with: dict[str, set[str]] = {}
    endings = tuple(MANIFESTS)
    for path in files:
        if not path.endswith(endings):  # most files: one C call, no split
            continue
        folder, name = posixpath.split(path)
        if name in MANIFESTS:
            folders_with.setdefault(name, set()).add(folder)
    roots: set[str] = set()
    for folders in folders_with.values():
        roots |= {folder for folder in folders if folder and not is_data_folder(folder)}
    # Declared members count even inside a data-named folder: the repository says so.
    roots |= _members(_npm_workspaces(read, unread), folders_with.get("package.json", set()))
    roots |= _members(_pnpm_workspaces(read, unread), folders_with.get("package.json", set()))
    roots |= _members(_cargo_members(read, unread), folders_with.get("Cargo.toml", set()))
    roots |= _go_work(read) & folders_with.get("go.mod", set())
    roots.discard("")
    return sorted(roots)


def package_roots(
    settings_boundaries: Any, files: Iterable[str], read: Reader, unread: list[Unread] | None = None
) -> list[str]:
    """The ``boundaries`` setting made concrete: "auto" becomes the detected package roots."""
    if settings_boundaries == "auto":
        return detect_packages(files, read, unread)
    return list(settings_boundaries)


def _members(patterns: list[str], folders: set[str]) -> set[str]:
    """Folders (each holding the ecosystem's manifest) that the member globs name."""
    include = [_folder_regex(p) for p in patterns if not p.startswith("!")]
    exclude = [_folder_regex(p[1:]) for p in patterns if p.startswith("!")]
    return {
        folder
        for folder in folders
        if any(r.fullmatch(folder) for r in include)
        and not any(r.fullmatch(folder) for r in exclude)
    }


def _folder_regex(pattern: str) -> re.Pattern[str]:
    """A workspace glob over folders: ``*`` stays in one folder, ``**`` spans any number."""
    return re.compile(glob_body(pattern.strip().removeprefix("./").rstrip("/")))


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _npm_workspaces(read: Reader, unread: list[Unread]) -> list[str]:
    data = read("package.json")
    if data is None:
        return []
    try:
        manifest = bounded.load_json(data, "package.json")
    except bounded.Unreadable as exc:
        unread.append(("package.json", exc.line or 0, exc.message))
        return []
    workspaces = manifest.get("workspaces") if isinstance(manifest, dict) else None
    if isinstance(workspaces, dict):  # yarn's {packages: [...], nohoist: [...]}
        workspaces = workspaces.get("packages")
    return _strings(workspaces)


def _pnpm_workspaces(read: Reader, unread: list[Unread]) -> list[str]:
    data = read("pnpm-workspace.yaml")
    if data is None:
        return []
    try:
        config = bounded.load_yaml(data, "pnpm-workspace.yaml")
    except bounded.Unreadable as exc:
        unread.append(("pnpm-workspace.yaml", exc.line or 0, exc.message))
        return []
    return _strings(config.get("packages")) if isinstance(config, dict) else []


def _cargo_members(read: Reader, unread: list[Unread]) -> list[str]:
    data = read("Cargo.toml")
    if data is None:
        return []
    try:
        manifest = bounded.load_toml(data, "Cargo.toml")
    except bounded.Unreadable as exc:
        unread.append(("Cargo.toml", exc.line or 0, exc.message))
        return []
    workspace = manifest.get("workspace")
    if not isinstance(workspace, dict):
        return []
    return _strings(workspace.get("members")) + [
        f"!{p}" for p in _strings(workspace.get("exclude"))
    ]


GO_USE = re.compile(r"^\s*use\s*(?:\(([^)]*)\)|(\S+))", re.MULTILINE)


def _go_work(read: Reader) -> set[str]:
    data = read("go.work")
    if data is None:
        return set()
    text = data.decode("utf-8", "replace")
    text = re.sub(r"//[^\n]*", "", text)
    found: set[str] = set()
    for block, single in GO_USE.findall(text):
        for entry in block.split() if block else [single]:
            folder = posixpath.normpath(entry.strip('"').removeprefix("./"))
            found.add("" if folder == "." else folder)
    return found
