"""Chains of edits, at two sizes (the smaller parsed and resolved in this process, the larger
built by worker pools): after every step, layer 1 and the cache's on-disk index (the name
tables and who mentions each name, the manifest's counts) are what a build of the same tree
with no cache writes. Each chain is drawn from a seed, named in the test's id."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import Repo

from kgtool.config import load_config
from kgtool.raw import cache
from kgtool.raw.build import cache_key, update_raw
from kgtool.store import Store

PACKAGES = ("core", "web", "jobs")


def python_module(rng: random.Random, number: int, count: int) -> str:
    """A module importing two others, calling them, with a class and a method."""
    lines = []
    others = sorted({rng.randrange(count) for _ in range(2)} - {number})
    for other in others:
        lines.append(f"from {PACKAGES[other % 3]}.m{other} import f{other}, K{other}")
    lines += ["", "", f"def f{number}(value):"]
    lines += [f"    f{other}(value)" for other in others] or ["    pass"]
    lines += ["", "", f"class K{number}:", "    def run(self):", f"        return f{number}(1)"]
    for other in others:
        lines += [f"    def use{other}(self):", f"        return K{other}().run()"]
    return "\n".join(lines) + "\n"


def typescript_module(rng: random.Random, number: int, count: int) -> str:
    other = rng.randrange(count)
    return (
        f"import {{ t{other} }} from './t{other}';\n"
        f"export function t{number}(x: number): number {{ return t{other}(x); }}\n"
        f"export class S{number} {{ go() {{ return t{number}(1); }} }}\n"
    )


class Chain:
    """A repository and the edits drawn for it."""

    def __init__(self, repo: Repo, seed: int, size: int) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.size = size
        self.next_number = size
        files = {}
        for n in range(size):
            files[self.python_path(n)] = python_module(self.rng, n, size)
        for n in range(size // 3):
            files[f"ui/t{n}.ts"] = typescript_module(self.rng, n, size // 3)
        # Workspace manifests and a config: what every file's bare imports are read against.
        files["ui/package.json"] = '{"name": "@acme/ui", "main": "t0.ts"}\n'
        files["web/package.json"] = '{"name": "@acme/web"}\n'
        files["ui/tsconfig.json"] = '{"compilerOptions": {"baseUrl": "."}}\n'
        files["ui/uses.ts"] = "import { t0 } from '@acme/ui';\nexport const u = t0(1);\n"
        repo.write_files(files)
        repo.commit()

    @staticmethod
    def python_path(number: int) -> str:
        return f"{PACKAGES[number % 3]}/m{number}.py"

    def sources(self) -> list[str]:
        found = self.repo.root.glob("*/*.*")
        return sorted(p.relative_to(self.repo.root).as_posix() for p in found)

    def step(self) -> str:
        """One edit, drawn; what it was."""
        root, rng = self.repo.root, self.rng
        path = rng.choice(self.sources())
        kind = rng.choice(
            ["body", "export", "unexport", "rename", "delete", "add", "import", "method"]
        )
        full = root / path
        text = full.read_text()
        if kind == "body":
            mark = "#" if path.endswith(".py") else "//"
            full.write_text(text + f"\n{mark} edited {rng.randrange(1000)}\n")
        elif kind == "export":  # a new top-level name others may come to call
            addition = (
                f"\n\ndef extra{rng.randrange(50)}():\n    return 0\n"
                if path.endswith(".py")
                else f"\nexport function extra{rng.randrange(50)}() {{ return 0; }}\n"
            )
            full.write_text(text + addition)
        elif kind == "unexport":  # a name others import or call goes
            stem = Path(path).stem
            name = ("f" if path.endswith(".py") else "t") + stem[1:]
            full.write_text(text.replace(f"function {name}(", f"function gone{name}(", 1))
            full.write_text(full.read_text().replace(f"def {name}(", f"def gone_{name}(", 1))
        elif kind == "rename":
            suffix = Path(path).suffix
            target = f"{Path(path).parent}/r{self.next_number}{suffix}"
            self.next_number += 1
            self.repo.git("mv", path, target)
        elif kind == "delete":
            full.unlink()
        elif kind == "add":
            number = self.next_number
            self.next_number += 1
            (root / self.python_path(number)).write_text(python_module(rng, number, self.size))
        elif kind == "import":  # an importer now reads another module's names
            other = rng.randrange(self.size)
            line = (
                f"from {PACKAGES[other % 3]}.m{other} import K{other}\n"
                if path.endswith(".py")
                else f"import {{ S{other % max(1, self.size // 3)} }} from './t0';\n"
            )
            full.write_text(line + text)
        else:  # a method that by-name calls elsewhere may now reach
            full.write_text(
                text + "\n\nclass Extra:\n    def run(self):\n        return 2\n"
                if path.endswith(".py")
                else text + "export class Extra { go() { return 2; } }\n"
            )
        self.repo.git("add", "-A")
        return f"{kind} {path}"


def on_disk_index(root: Path) -> dict[str, Any]:
    """The cache's index as stored, whatever its parts: every name's entry in the tables of
    top-level names and of methods, who mentions each name, and the manifest's counts, files
    by language and the manifests' and configs' facts read across."""
    store = Store(root)
    key = cache_key(load_config(root))
    manifest = cache.load_manifest(store, key)
    assert manifest is not None
    tables: list[dict[str, Any]] = [{}, {}, {}]
    for part in range(manifest.parts.names):
        data, _ = cache._load(store, f"{cache.NAMES_FILE}.{part:03d}")
        for kind, table in enumerate(data["tables"]):
            tables[kind].update(table)
    return {
        "top_level": tables[0],
        "methods": tables[1],
        "mentioned": tables[cache.MENTIONED],
        "summary": manifest.summary,
        "by_language": manifest.by_language,
        "extras": manifest.extras,
        "blobs": manifest.blobs,
    }


def built_from_nothing(repo: Repo, where: Path) -> tuple[bytes, dict[str, Any]]:
    """Layer 1 and the on-disk index of the same tree built in a copy with no cache."""
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(
        repo.root, where, symlinks=True, ignore=shutil.ignore_patterns("kgtool-cache", ".kg")
    )
    result = update_raw(where, load_config(where), Store(where))
    return result.content, on_disk_index(where)


@pytest.mark.parametrize(
    ("seed", "size", "steps"),
    [(11, 12, 14), (12, 12, 14), (13, 90, 8)],
    ids=["seed11-small", "seed12-small", "seed13-pools"],
)
def test_a_chain_of_edits_keeps_layer_1_and_its_index_those_of_a_fresh_build(
    repo: Repo, tmp_path: Path, seed: int, size: int, steps: int
) -> None:
    chain = Chain(repo, seed, size)
    update_raw(repo.root, load_config(repo.root), Store(repo.root))
    done = []
    for _ in range(steps):
        done.append(chain.step())
        update_raw(repo.root, load_config(repo.root), Store(repo.root))
        content, index = built_from_nothing(repo, tmp_path / "fresh")
        assert repo.layer1() == content, done
        mine = on_disk_index(repo.root)
        for part in index:
            assert mine[part] == index[part], (part, done)


def test_a_cache_of_another_kgtool_or_other_settings_is_never_used(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache is keyed by layer 1's code and every setting that changes what it writes:
    another kgtool's cache, or one written under another ``max_candidates``, makes every
    file parsed again; a setting that changes nothing written (``jobs``) keeps it."""
    from kgtool.raw import build

    Chain(repo, 5, 12)
    everything = update_raw(repo.root, load_config(repo.root), Store(repo.root)).parsed
    assert len(everything) > 12

    def parsed_after(settings: str) -> list[str]:
        repo.write(".kgtool.yaml", settings)
        repo.git("add", "-A")
        return update_raw(repo.root, load_config(repo.root), Store(repo.root)).parsed

    assert parsed_after("jobs: 1\n") == [".kgtool.yaml"]
    every_file = sorted([*everything, ".kgtool.yaml"])
    assert parsed_after("jobs: 1\nmax_candidates: 3\n") == every_file
    assert parsed_after("jobs: 1\nmax_candidates: 3\n") == []
    monkeypatch.setattr(build, "cache_version", lambda: "another kgtool")
    assert parsed_after("jobs: 1\nmax_candidates: 3\n") == every_file
