"""package.json files: a workspace package's name and entry, so that an import of
``@acme/ui`` from another package of the same repository binds to that package's files.
The same reader reads TypeScript's configs (``tsconfig.py``): they are the other ``.json``
files resolution needs.

Like go.mod, this is a manifest, not a language with symbols: no query, no grammar.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from kgtool import bounded
from kgtool.raw.languages.base import Manifest
from kgtool.raw.languages.tsconfig import APPLYING, CONFIG, is_config, read_config

if TYPE_CHECKING:
    from kgtool.raw.languages.base import IndexView

# Where a package's code starts, most source-like first: a "source" or "module" field often
# names tracked TypeScript, "main" often a build output that is not in the repository.
ENTRY_FIELDS = ("source", "module", "main", "types", "typings")


class NpmManifest(Manifest):
    name = "npm-manifest"
    grammar = "json"
    extensions = (".json",)
    ecosystem = "npm"
    manifest_name = "package.json"
    roots_package = True  # JavaScript.package_root
    extra_read_across = True  # workspace_packages, config_folders

    def read(self, source: bytes, name: str) -> dict[str, str] | None:
        if is_config(name):
            return read_config(source, name)
        if name != self.manifest_name:
            return None
        try:
            manifest = bounded.load_json(source, self.manifest_name)
        except bounded.Unreadable:
            return None
        if not isinstance(manifest, dict) or not isinstance(manifest.get("name"), str):
            return {}
        extra = {"npm_name": manifest["name"]}
        entry = next((manifest[f] for f in ENTRY_FIELDS if isinstance(manifest.get(f), str)), "")
        if entry:
            extra["npm_entry"] = entry
        return extra


def workspace_packages(index: IndexView) -> dict[str, tuple[str, str]]:
    """Package name -> (its folder, its entry) for every package.json of the repository.

    A name two manifests claim (a copied example, a fixture) binds to neither: guessing one
    would make an EXTRACTED edge that may be false.
    """
    found: dict[str, list[tuple[str, str]]] = {}
    for path in index.paths_of(NpmManifest.name):
        extra = index.extra_of(path)
        if "npm_name" in extra and posixpath.basename(path) == NpmManifest.manifest_name:
            folder = posixpath.dirname(path)
            found.setdefault(extra["npm_name"], []).append((folder, extra.get("npm_entry", "")))
    return {name: places[0] for name, places in found.items() if len(places) == 1}


def manifest_folders(index: IndexView) -> frozenset[str]:
    """The folders holding a package.json: where the repository's packages start."""
    return frozenset(
        posixpath.dirname(path)
        for path in index.paths_of(NpmManifest.name)
        if posixpath.basename(path) == NpmManifest.manifest_name
    )


def config_folders(index: IndexView) -> dict[str, str]:
    """Folder -> the TypeScript config its files use (tsconfig.json before jsconfig.json)."""
    found: dict[str, str] = {}
    configs = (
        path
        for path in index.paths_of(NpmManifest.name)
        if posixpath.basename(path) in APPLYING and CONFIG in index.extra_of(path)
    )
    for path in sorted(configs, key=lambda p: APPLYING.index(posixpath.basename(p))):
        found.setdefault(posixpath.dirname(path), path)
    return found
