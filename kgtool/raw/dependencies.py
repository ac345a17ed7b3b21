"""The packages a repository declares it depends on, from its manifests: an import of one of
them is the package's, never a broken import of the repository's own code (R102).

Layer 1 calls an import broken when its first name is a folder of the repository that holds
no such module (``from mypkg.gone import x``). A folder may share its name with a package the
code really imports (pydantic-ai's ``examples/…/ag_ui/`` beside the ``ag_ui`` module of its
``ag-ui-protocol`` dependency); such an import is left unbound, and only the finding is
dropped. A module matches a dependency whose normalized name is its first name, or starts
with it and a separator (``ag-ui-protocol`` provides ``ag_ui``, ``google-cloud-storage``
``google``); the repository's own distributions are never dependencies, and a module named
as one of them is always the repository's, so that a dependency named after the
repository's own package (``mypkg-extras``) does not hide ``mypkg.gone``.
"""

from __future__ import annotations

import configparser
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from kgtool import bounded

PYPROJECT, SETUP_CFG, PACKAGE_JSON, GO_MOD, CARGO = (
    "pyproject.toml",
    "setup.cfg",
    "package.json",
    "go.mod",
    "Cargo.toml",
)
REQUIREMENTS = re.compile(r"requirements[\w.-]*\.(?:txt|in)")
MANIFEST_BYTES = 1 << 20  # a manifest larger than this is not read
_NAME = re.compile(r"\s*([A-Za-z0-9@][A-Za-z0-9._/@-]*)")  # PEP 508's name, npm's, a module path
_SEPARATORS = re.compile(r"[-_.]+")
# One line of go.mod's: "require x/y v1.2.3", or "x/y v1.2.3" inside a require block. Read a
# line at a time with no pattern spanning lines: a file of blank lines costs no backtracking.
_GO_REQUIRE = re.compile(r"(?:require[ \t]+)?([\w.~-]+(?:/[\w.~-]+)+)[ \t]+v")
_GO_MODULE = re.compile(r"module[ \t]+(\S+)")


def normalized(name: str) -> str:
    return _SEPARATORS.sub("_", name).lower()


class Declared(NamedTuple):
    """Normalized names: the packages the manifests need, and the repository's own; and the
    module paths (go.mod's) needed and owned, matched whole."""

    needed: frozenset[str]
    own: frozenset[str]
    paths: frozenset[str] = frozenset()
    own_paths: frozenset[str] = frozenset()


def declared(root: Path, paths: Iterable[str]) -> Declared:
    """What the manifests among ``paths`` declare; a manifest that cannot be read declares
    nothing."""
    wanted: set[str] = set()
    own: set[str] = set()
    module_paths: set[str] = set()
    own_paths: set[str] = set()
    for path in sorted(paths):
        name = posixpath.basename(path)
        if name not in (PYPROJECT, SETUP_CFG, PACKAGE_JSON, GO_MOD, CARGO) and not (
            REQUIREMENTS.fullmatch(name)
        ):
            continue
        data = bounded.read_tracked(root, path, MANIFEST_BYTES)
        if data is None:
            continue
        try:
            needs, is_named = _read(name, data, path)
        except (bounded.Unreadable, ValueError, configparser.Error):
            continue
        if name == GO_MOD:
            module_paths.update(needs)
            own_paths.update(is_named)
            continue
        wanted.update(map(normalized, needs))
        own.update(map(normalized, is_named))
    own.discard("")
    return Declared(
        frozenset(wanted - own), frozenset(own), frozenset(module_paths), frozenset(own_paths)
    )


def is_declared(module: str, names: Declared) -> bool:
    """Whether ``module`` (an import's dotted or slashed name) is a declared package's, and
    not named as one of the repository's own."""
    if "/" in module and not module.startswith("."):  # a module path (Go's): matched whole
        if any(_under(module, path) for path in names.own_paths):
            return False
        return any(_under(module, path) for path in names.paths)
    first = normalized(re.split(r"[./]", module.lstrip("."), maxsplit=1)[0])
    if not first or first in names.own:
        return False
    return first in names.needed or any(name.startswith(f"{first}_") for name in names.needed)


def _under(module: str, path: str) -> bool:
    return module == path or module.startswith(f"{path}/")


def _read(name: str, data: bytes, where: str) -> tuple[list[str], list[str]]:
    """(the names a manifest needs, the names it gives its own package)."""
    text = data.decode("utf-8", "replace")
    if name == PYPROJECT:
        document = bounded.load_toml(data, where)
        return _pyproject(document)
    if name == SETUP_CFG:
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text)
        needs = parser.get("options", "install_requires", fallback="").splitlines()
        if parser.has_section("options.extras_require"):
            for _, value in parser.items("options.extras_require"):
                needs += value.splitlines()
        own = [parser.get("metadata", "name", fallback="")]
        return _requirement_names(needs), own
    if name == PACKAGE_JSON:
        document = bounded.load_json(data, where)
        if not isinstance(document, dict):
            return [], []
        needs = [
            key
            for field in (
                "dependencies",
                "devDependencies",
                "peerDependencies",
                "optionalDependencies",
            )
            for key in _keys(document.get(field))
        ]
        return needs, [str(document.get("name", ""))]
    if name == GO_MOD:
        needs, own = [], []
        for line in text.splitlines():
            line = line.strip()
            for pattern, into in ((_GO_REQUIRE, needs), (_GO_MODULE, own)):
                found = pattern.match(line)
                if found:
                    into.append(found.group(1))
        return needs, own
    if name == CARGO:
        document = bounded.load_toml(data, where)
        needs = [
            key
            for table in (document, document.get("workspace", {}))
            if isinstance(table, dict)
            for field in ("dependencies", "dev-dependencies", "build-dependencies")
            for key in _keys(table.get(field))
        ]
        package = document.get("package", {})
        return needs, [str(package.get("name", ""))] if isinstance(package, dict) else []
    return _requirement_names(text.splitlines()), []


DEPENDENCY_KEYS = ("dependencies", "optional-dependencies", "dev-dependencies", "dependency-groups")


def _pyproject(document: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every dependency list or table wherever it stands: [project], PEP 735 groups, and the
    build tools' own tables (poetry's, hatch's metadata hooks for dynamic dependencies)."""
    needs: list[str] = []
    stack: list[Any] = [document]
    while stack:
        table = stack.pop()
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            if key in DEPENDENCY_KEYS:
                needs += _dependency_names(value)
            elif isinstance(value, dict) and key != "build-system":
                stack.append(value)
    project = document.get("project", {})
    tool = document.get("tool", {})
    poetry = tool.get("poetry", {}) if isinstance(tool, dict) else {}
    own = [str(table.get("name", "")) for table in (project, poetry) if isinstance(table, dict)]
    return needs, own


def _dependency_names(value: Any) -> list[str]:
    """Names from a list of requirement strings, a table of such lists (extras, groups) or a
    table keyed by name (poetry's)."""
    if isinstance(value, list):
        return _requirement_names(_strings(value))
    if not isinstance(value, dict):
        return []
    if all(isinstance(item, list) for item in value.values()):
        return [name for item in value.values() for name in _requirement_names(_strings(item))]
    return _keys(value)


def _requirement_names(lines: Iterable[str]) -> list[str]:
    """The package names of requirement lines (PEP 508), options and comments left out."""
    names = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        found = _NAME.match(line)
        if found:
            names.append(found.group(1))
    return names


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _keys(value: Any) -> list[str]:
    return [str(key) for key in value] if isinstance(value, dict) else []
