"""tsconfig.json and jsconfig.json: the ``paths`` a TypeScript project maps its import
specifiers through (``"@vue/*": ["./packages/*/src"]``), so that ``import { h } from
"@vue/runtime-core"`` binds where the compiler binds it, not to the build shim a package.json's
"main" names.

Read by the npm manifest reader (the one reader of ``.json`` files). What a file states is kept
in ``FileFacts.extra``; which config applies to a file, through its ``extends`` chain, is worked
out at resolution, so that an edit to one config changes no other file's facts.
"""

from __future__ import annotations

import json
import posixpath
from typing import TYPE_CHECKING, Any, NamedTuple

from kgtool import bounded

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from kgtool.raw.languages.base import IndexView

# Keys of ``FileFacts.extra``; a config states ``CONFIG`` even when it states nothing else, for
# the nearest config is the one that applies, paths or none.
CONFIG = "ts_config"
PATHS = "ts_paths"  # {"pattern": ["substitution", ...]} as canonical JSON
BASE_URL = "ts_base_url"
EXTENDS = "ts_extends"  # ["./base.json", ...] as JSON, in the order they apply
# The configs a folder's files use, nearest first: what TypeScript's editor service picks.
APPLYING = ("tsconfig.json", "jsconfig.json")
MAX_EXTENDS = 16  # a chain longer than this is a loop or a hand gone wrong: read no further


def is_config(name: str) -> bool:
    """Whether a file name is a TypeScript project's config: ``tsconfig.json``,
    ``tsconfig.base.json`` (one others extend), ``jsconfig.json``."""
    return name in APPLYING or (name.startswith("tsconfig.") and name.endswith(".json"))


def read_config(source: bytes, where: str) -> dict[str, str] | None:
    """What a config states about module resolution; None when it is not a readable config.

    A config is JSON with comments and trailing commas (what ``tsc`` accepts)."""
    try:
        text = source.decode("utf-8-sig")
        config = bounded.load_json(strip_comments(text), where)
    except (UnicodeDecodeError, bounded.Unreadable):
        return None
    if not isinstance(config, dict):
        return None
    extra = {CONFIG: "1"}
    extends = config.get("extends")
    chain = [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []
    if chain and all(isinstance(entry, str) for entry in chain):
        extra[EXTENDS] = json.dumps(chain)
    options = config.get("compilerOptions")
    if isinstance(options, dict):
        if isinstance(options.get("baseUrl"), str):
            extra[BASE_URL] = options["baseUrl"]
        paths = options.get("paths")
        if isinstance(paths, dict):
            kept = {
                pattern: [s for s in substitutions if isinstance(s, str)]
                for pattern, substitutions in paths.items()
                if isinstance(substitutions, list) and pattern.count("*") <= 1
            }
            extra[PATHS] = json.dumps(kept, sort_keys=True)
    return extra


def strip_comments(text: str) -> str:
    """JSON with comments and trailing commas, as plain JSON: comments are blanked (newlines
    kept, so an error's line stays true) and a comma before ``}`` or ``]`` dropped. Strings
    are copied as they are: ``"@/*"`` holds no comment."""
    out: list[str] = []
    i, length = 0, len(text)
    pending_comma = -1  # where in ``out`` the last comma stands, while only blanks follow
    while i < length:
        char = text[i]
        if char == '"':
            end = i + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            pending_comma = -1
            i = end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = length if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = length if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        else:
            if char in "}]" and pending_comma >= 0:
                out[pending_comma] = ""
            if char == ",":
                pending_comma = len(out)
            elif not char.isspace():
                pending_comma = -1
            out.append(char)
            i += 1
    return "".join(out)


class PathMap(NamedTuple):
    """The ``paths`` and ``baseUrl`` a file's config gives it, folders relative to the
    repository's root ("" for the root itself)."""

    patterns: tuple[tuple[str, tuple[str, ...]], ...]  # pattern, its substitutions
    paths_base: str  # where a substitution is read from
    base_url: str | None  # where a bare specifier is also looked for; None when not set

    def stems(self, module: str) -> Iterator[str]:
        """The repository paths ``module`` may name, in the order the compiler tries them:
        the pattern with the longest prefix before its ``*`` first (an exact one before all),
        then the base URL. A path that leaves the repository is not given."""
        matched: list[tuple[int, str, tuple[str, ...]]] = []
        for pattern, substitutions in self.patterns:
            if "*" not in pattern:
                if pattern == module:
                    matched.append((len(pattern) + 1, "", substitutions))
                continue
            prefix, _, suffix = pattern.partition("*")
            if (
                len(module) >= len(prefix) + len(suffix)
                and module.startswith(prefix)
                and module.endswith(suffix)
            ):
                matched.append(
                    (len(prefix), module[len(prefix) : len(module) - len(suffix)], substitutions)
                )
        if matched:
            _, star, substitutions = max(matched, key=lambda m: m[0])
            for substitution in substitutions:
                yield from _inside(posixpath.join(self.paths_base, substitution.replace("*", star)))
        if self.base_url is not None:
            yield from _inside(posixpath.join(self.base_url, module))


def _inside(path: str) -> Iterator[str]:
    path = posixpath.normpath(path)
    if path == ".":
        yield ""
    elif not (path == ".." or path.startswith(("../", "/"))):
        yield path


def path_map(
    importer: str,
    index: IndexView,
    configs: Mapping[str, str],
    packages: Mapping[str, tuple[str, str]],
) -> PathMap | None:
    """The ``paths`` of the config nearest above ``importer`` (following its ``extends``),
    None when no config above it maps any. ``configs`` are the folders holding one (see
    ``npm.config_folders``), ``packages`` the workspace's, for an ``extends`` that names one
    (``"@acme/tsconfig/base.json"``)."""
    table: dict[str, PathMap | None] = index.memo("ts:path-maps", lambda _: {})
    folder = posixpath.dirname(importer)
    if folder not in table:
        walked = folder
        while walked and walked not in configs:
            walked = posixpath.dirname(walked)
        config = configs.get(walked)
        table[folder] = _effective(config, index, packages) if config else None
    return table[folder]


def _effective(
    config: str, index: IndexView, packages: Mapping[str, tuple[str, str]]
) -> PathMap | None:
    """What a config's chain states, the nearer config's word first, each option on its own
    (as ``tsc`` merges them): relative paths are read from the config that states them."""
    paths: tuple[str, dict[str, Any]] | None = None
    base_url: str | None = None
    for path, extra in chain(config, index, packages):
        folder = posixpath.dirname(path)
        if paths is None and PATHS in extra:
            paths = (folder, json.loads(extra[PATHS]))
        if base_url is None and BASE_URL in extra:
            base_url = posixpath.normpath(posixpath.join(folder, extra[BASE_URL]))
    if paths is None and base_url is None:
        return None
    patterns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    paths_base = base_url or ""
    if paths is not None:
        patterns = tuple((p, tuple(s)) for p, s in sorted(paths[1].items()))
        paths_base = base_url if base_url is not None else paths[0]
    return PathMap(patterns, paths_base, base_url)


def chain(
    config: str, index: IndexView, packages: Mapping[str, tuple[str, str]]
) -> Iterator[tuple[str, dict[str, str]]]:
    """A config and those it extends, nearest first (of an ``extends`` list, the last wins,
    so it comes first); a config outside the repository or met twice ends its branch."""
    seen: set[str] = set()
    stack = [config]
    while stack and len(seen) < MAX_EXTENDS:
        path = stack.pop()
        facts = index.facts.get(path)
        if path in seen or facts is None or CONFIG not in facts.extra:
            continue
        seen.add(path)
        yield path, facts.extra
        if EXTENDS in facts.extra:
            found = (extended(e, path, index.facts, packages) for e in extends_of(facts.extra))
            stack.extend(reversed([p for p in found if p]))


def extends_of(extra: Mapping[str, str]) -> list[str]:
    """The configs a config's facts say it extends, in the order they apply."""
    entries = json.loads(extra.get(EXTENDS, "[]"))
    return [e for e in entries if isinstance(e, str)] if isinstance(entries, list) else []


def extended(
    entry: str, config: str, files: Mapping[str, object], packages: Mapping[str, tuple[str, str]]
) -> str:
    """The repository path an ``extends`` entry names, "" when it names none here: a path
    relative to the config (".json" may be left out), or a workspace package's file."""
    if entry.startswith(("./", "../")):
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(config), entry))
    else:
        name = "/".join(entry.split("/")[: 2 if entry.startswith("@") else 1])
        if name not in packages:
            return ""
        subpath = entry[len(name) :].lstrip("/") or "tsconfig.json"
        stem = posixpath.join(packages[name][0], subpath)
    for candidate in (stem, f"{stem}.json", f"{stem}/tsconfig.json"):
        if candidate in files:
            return candidate
    return ""


def configs_reaching(changed: Iterable[str], configs: Mapping[str, Mapping[str, str]]) -> set[str]:
    """The configs of ``configs`` (path -> stated facts) whose ``extends`` chain may reach one
    of ``changed``. An entry naming a package is taken to reach any config of that file name:
    which package holds which name is not known here. Linear in the configs and their entries,
    however many a commit adds."""
    by_name: dict[str, list[str]] = {}
    for path in configs:
        by_name.setdefault(posixpath.basename(path), []).append(path)
    extending: dict[str, set[str]] = {}  # config -> those extending it
    for path, extra in configs.items():
        for entry in extends_of(extra):
            target = extended(entry, path, configs, {})
            if target:
                extending.setdefault(target, set()).add(path)
            elif not entry.startswith(("./", "../")):
                named = entry.count("/") > entry.startswith("@")
                wanted = posixpath.basename(entry) if named else "tsconfig.json"
                for other in by_name.get(wanted, []) + by_name.get(f"{wanted}.json", []):
                    extending.setdefault(other, set()).add(path)
    reached: set[str] = set()
    stack = list(changed)
    while stack:
        for path in extending.get(stack.pop(), ()):
            if path not in reached:
                reached.add(path)
                stack.append(path)
    return reached
