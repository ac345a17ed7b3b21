"""Incremental updates: only changed files are parsed, and the result equals a fresh build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import PROJECT_ROOT, Repo

from kgtool.config import load_config
from kgtool.raw.build import UpdateResult, cache_key, update_raw
from kgtool.raw.cache import Parts, load_manifest
from kgtool.store import Store

FILES = {
    "app/main.py": "from app.util import helper\n\ndef main():\n    helper()\n",
    "app/util.py": "def helper():\n    return 1\n",
    "app/other.py": "def unrelated():\n    return 2\n",
    "docs/notes.txt": "notes\n",
}


def update(repo: Repo) -> UpdateResult:
    return update_raw(repo.root, load_config(repo.root), Store(repo.root))


def cache_parts(repo: Repo) -> Parts:
    """How many cache shards and parts of the name tables the cache has, as its manifest
    says."""
    manifest = load_manifest(Store(repo.root), cache_key(load_config(repo.root)))
    assert manifest is not None
    return manifest.parts


def test_edit_of_one_file_parses_only_that_file(repo: Repo) -> None:
    repo.write_files(FILES)
    repo.commit()
    assert len(update(repo).parsed) == 4
    repo.write("app/other.py", "def unrelated():\n    return 3\n")
    result = update(repo)
    assert result.parsed == ["app/other.py"]
    assert result.changed  # its hash moved
    nothing = update(repo)
    assert nothing.parsed == [] and not nothing.changed


def test_add_delete_rename_and_changed_imports_match_a_fresh_build(repo: Repo) -> None:
    repo.write_files(FILES)
    repo.commit()
    update(repo)
    steps = [
        lambda: repo.write("app/extra.py", "from app.util import helper\nhelper()\n"),
        lambda: (repo.root / "app" / "other.py").unlink(),
        lambda: repo.git("mv", "app/util.py", "app/tools.py"),
        lambda: repo.write(
            "app/main.py", "from app.tools import helper\n\ndef main():\n    helper()\n"
        ),
        # A new definition elsewhere changes how a by-name call binds in an untouched file.
        lambda: repo.write("app/late.py", "def orphan():\n    pass\n"),
        lambda: repo.write("app/caller.py", "def go():\n    orphan()\n"),
        lambda: repo.write("app/late2.py", "def orphan():\n    pass\n"),
        # A file turned into a machine's (most of it one long line) is no by-name candidate
        # any more: the untouched file binding orphan() by its name is resolved again.
        lambda: repo.write("app/late2.py", "def orphan():\n    pass\n" + "x = 1;" * 400 + "\n"),
        lambda: repo.write(
            "app/late.py", "TABLE = [" + "1, " * 600 + "]\ndef orphan():\n    pass\n"
        ),
        lambda: repo.write("app/late2.py", "def orphan():\n    pass\n"),
    ]
    for step in steps:
        step()
        repo.git("add", "-A")
        result = update(repo)
        incremental = repo.layer1()
        assert result.content == incremental
        assert repo.fresh_build() == incremental
        update(repo)  # rebuild the cache for the next step
    calls = {(e["src"], e.get("dst"), e["tier"]) for e in repo.edges("calls")}
    assert ("app/main.py::main", "app/tools.py::helper", "EXTRACTED") in calls
    # late.py, most of it one long line, is a machine's: late2.py's orphan is the one left.
    assert ("app/caller.py::go", "app/late2.py::orphan", "INFERRED") in calls


def test_a_file_deleted_from_the_working_tree_only_is_no_module_to_its_importers(
    repo: Repo,
) -> None:
    """Still tracked, a file removed from the working tree keeps its path (skipped, deleted)
    and loses its language: its importers' imports of it break, as in a fresh build, though
    nothing they mention is a name the file defined; the same for a package's marker."""
    repo.write_files(
        {
            "p/__init__.py": "",
            "p/b.py": "def f():\n    return 1\n",
            "p/a.py": "from p.b import nothing\nimport p.b\n",
            "q/__init__.py": "",
            "q/m0.py": "from q.m1 import f\n\ndef g():\n    return f()\n",
            "other.py": "def f():\n    return 1\n",
        }
    )
    repo.commit()
    update(repo)
    for gone in ("p/b.py", "q/__init__.py"):
        (repo.root / gone).unlink()
        update(repo)
        assert repo.fresh_build() == repo.layer1(), gone
        update(repo)  # the cache again, for the next step
    broken = {e["src"] for e in repo.edges("imports") if not e.get("dst")}
    assert not any(e.get("dst") == "p/b.py" for e in repo.edges("imports")), broken
    for gone in ("p/b.py", "q/__init__.py"):  # put back: a module again
        repo.git("checkout", "--", gone)
        update(repo)
        assert repo.fresh_build() == repo.layer1(), gone
        update(repo)


def test_a_package_manifest_deleted_and_put_back_moves_the_package_s_bounds(
    repo: Repo,
) -> None:
    """A package.json deleted from the working tree only, then put back: the files below it
    are guessed apart from the rest again, as a fresh build guesses them."""
    repo.write_files(
        {
            "a/x.js": "export function go() {\n  helper();\n}\n",
            "b/y.js": "function helper() {\n  return 1;\n}\n",
            "b/package.json": '{"name": "b"}\n',
        }
    )
    repo.commit()
    update(repo)
    (repo.root / "b" / "package.json").unlink()
    update(repo)
    assert repo.fresh_build() == repo.layer1(), "deleted"
    update(repo)
    repo.git("checkout", "--", "b/package.json")
    update(repo)
    assert repo.fresh_build() == repo.layer1(), "put back"


def test_a_shard_a_checkout_made_huge_is_never_read_whole(repo: Repo) -> None:
    """A checkout can put a file of any size where a shard of .kg/raw/ was: it is other bytes
    when it is another size, so no update or check reads it to learn so (a terabyte, sparse:
    read whole, no machine holds it). The check says layer 1 cannot be read; the update
    writes the shard again."""
    repo.write_files({"a/x.py": "def f():\n    return 1\n", "b/y.py": "x = 1\n"})
    repo.commit()
    update(repo)
    shard = next((repo.root / ".kg" / "raw").glob("a*.jsonl"))
    kept = shard.read_bytes()
    with open(shard, "r+b") as handle:
        handle.truncate(1 << 40)
    checked = repo.kg("update", "--check")
    assert checked.code == 1
    assert ".kg/raw/: error: R101" in checked.out, checked
    update(repo)
    assert shard.read_bytes() == kept
    assert repo.fresh_build() == repo.layer1()


def test_check_flags_a_stale_graph_and_passes_a_fresh_one(repo: Repo) -> None:
    repo.write_files(FILES)
    repo.commit()
    assert repo.kg("update", "--check").code == 1  # never built
    assert not (repo.root / ".kg" / "raw").exists()
    repo.kg("update")
    assert repo.kg("update", "--check").code == 0
    assert repo.kg("check").code == 0
    repo.write("app/util.py", "def helper():\n    return 5\n")
    before = repo.layer1()
    stale = repo.kg("update", "--check")
    assert stale.code == 1 and "out of date" in stale.out
    assert repo.layer1() == before
    assert repo.kg("check").code == 1


def test_check_without_cache_compares_against_a_full_build(repo: Repo) -> None:
    """A fresh clone has no cache: --check must still see a graph edited by hand or merged."""
    repo.write_files(FILES)
    repo.commit()
    repo.kg("update")
    shutil.rmtree(repo.cache_dir)
    assert repo.kg("update", "--check").code == 0
    raw = repo.root / ".kg" / "raw" / "app.jsonl"
    raw.write_text(raw.read_text().replace('"app/util.py::helper"', '"app/util.py::helpr"'))
    assert repo.kg("update", "--check").code == 1


def test_a_damaged_or_missing_cache_shard_costs_a_rebuild_not_a_wrong_graph(repo: Repo) -> None:
    repo.write_files(
        {f"m{n}.py": f"def f{n}():\n    return f{(n + 1) % 40}()\n" for n in range(40)}
    )
    repo.commit()
    update(repo)
    shards = sorted((repo.cache_dir).glob("raw.cache.*"))
    assert len(shards) == cache_parts(repo).shards >= 3
    shards[0].write_bytes(b"\x00garbage")
    shards[1].unlink()
    repo.write("m3.py", "def f3():\n    return 0\n")
    result = update(repo)
    assert len(result.parsed) > 1  # the lost entries were parsed again
    assert repo.fresh_build() == repo.layer1()


def test_a_new_name_resolves_again_the_files_that_mention_it_and_reads_no_other(
    repo: Repo,
) -> None:
    """A name added to a file binds the calls of every file that mentions it, found through
    the cache's index of mentions: the cache shards of the files that do not mention it are
    never read (here they are damaged past the checksum they start with, which every update
    checks: reading one would parse every file again)."""
    from kgtool.raw import cache

    repo.write_files({f"m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(60)})
    repo.write("user.py", "from m7 import helper\n\ndef use():\n    helper()\n")
    repo.commit()
    update(repo)
    assert not [e for e in repo.edges("calls") if e["src"] == "user.py::use"]
    parts = cache_parts(repo)
    kept = {parts.shard_of("m7.py"), parts.shard_of("user.py")}
    damaged = [
        path
        for path in (repo.cache_dir).glob("raw.cache.*")
        if int(path.name.rsplit(".", 1)[1]) not in kept
    ]
    assert len(damaged) == parts.shards - len(kept) > 0
    for path in damaged:
        path.write_bytes(path.read_bytes()[: cache.CHECKSUM_BYTES] + b"\x00garbage")
    parts = sorted((repo.cache_dir).glob(f"{cache.NAMES_FILE}.*"))
    before = {part.name: part.stat().st_mtime_ns for part in parts}
    repo.write("m7.py", "def f7():\n    return 7\n\ndef helper():\n    return 0\n")
    result = update(repo)
    assert result.parsed == ["m7.py"]
    # The one part of the name tables that holds the new name is written again, not those of
    # every name the file defines (f7's), nor of the names it mentions (none new).
    assert sum(part.stat().st_mtime_ns != before[part.name] for part in parts) == 1
    assert result.resolved == 2  # m7.py and user.py
    calls = [(e["dst"], e["tier"]) for e in repo.edges("calls") if e["src"] == "user.py::use"]
    assert calls == [("m7.py::helper", "EXTRACTED")]
    assert repo.fresh_build() == repo.layer1()


def test_the_index_of_mentions_stays_the_one_a_full_build_writes(repo: Repo) -> None:
    """Patched by each update (files added, removed, renamed, names mentioned and dropped),
    the cache's index of who mentions each name is the one gathered from every file."""
    from kgtool.raw import cache

    def stored_index() -> cache.MentionIndex:
        found: cache.MentionIndex = {}
        for part in range(cache_parts(repo).names):
            data, _ = cache._load(Store(repo.root), f"{cache.NAMES_FILE}.{part:03d}")
            found.update(data["tables"][cache.MENTIONED])
        return found

    def gathered_index() -> cache.MentionIndex:
        key = cache_key(load_config(repo.root))
        heads = cache.load_files(Store(repo.root), key, cache_parts(repo)).heads
        return cache.mention_index({path: head.mentions for path, head in heads.items()})

    repo.write_files(FILES)
    repo.commit()
    update(repo)
    assert stored_index() == gathered_index()
    steps = [
        lambda: repo.write("app/extra.py", "from app.util import helper\nhelper()\n"),
        lambda: repo.write("app/extra.py", "from app.util import helper\nhelper()\nmore()\n"),
        lambda: repo.write("app/extra.py", "def more():\n    pass\n"),
        lambda: (repo.root / "app" / "other.py").unlink(),
        lambda: repo.git("mv", "app/util.py", "app/tools.py"),
        lambda: repo.write("app/twin.py", "from app.util import helper\nhelper()\n"),
    ]
    for step in steps:
        step()
        repo.git("add", "-A")
        result = update(repo)
        assert len(result.parsed) <= 2  # patched, not built again from nothing
        assert stored_index() == gathered_index()


def test_the_cache_has_parts_for_its_size_and_more_once_the_repository_outgrows_them(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small repository's cache is a few files; one that grew past four times what its
    parts were chosen for is written whole again in more, the old files removed, and the
    update after that patches it as before."""
    from kgtool.raw import cache

    monkeypatch.setattr(cache, "FILES_PER_SHARD", 1)
    monkeypatch.setattr(cache, "FILES_PER_NAME_PART", 1)
    repo.write_files(FILES)
    repo.commit()
    update(repo)
    cache_dir = repo.cache_dir

    def cache_files() -> list[str]:
        kept = (cache.MANIFEST_FILE, cache.LISTED_FILE)
        return sorted(p.name for p in cache_dir.glob("raw.*") if p.name not in kept)

    assert cache_parts(repo) == (4, 16)
    assert len(cache_files()) == 4 + 16
    repo.write_files({f"more/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(12)})
    repo.git("add", "-A")
    assert update(repo).resolved == 12  # the new files alone: the parts fit 16 files
    assert cache_parts(repo) == (4, 16)
    repo.write_files({f"more/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(70)})
    repo.git("add", "-A")
    result = update(repo)
    assert result.resolved == result.files == 74  # written whole again
    assert cache_parts(repo) == (128, 128)
    assert cache_files() == sorted(
        [f"raw.cache.{n:02d}" for n in range(128)] + [f"raw.names.{n:03d}" for n in range(128)]
    )
    repo.write("app/util.py", "def helper():\n    return 5\n")
    result = update(repo)
    assert result.parsed == ["app/util.py"] and result.resolved < result.files
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_rewrites_only_the_cache_shards_it_touches(repo: Repo) -> None:
    repo.write_files({f"m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(60)})
    repo.commit()
    update(repo)
    shards = sorted((repo.cache_dir).glob("raw.cache.*"))
    before = {p.name: p.stat().st_mtime_ns for p in shards}
    repo.write("m7.py", "def f7():\n    return -7\n")
    update(repo)
    after = {p.name: p.stat().st_mtime_ns for p in shards}
    assert sum(before[name] != after[name] for name in before) == 1


def test_read_only_commands_leave_the_working_tree_untouched(repo: Repo) -> None:
    repo.write_files(FILES)
    repo.commit()
    assert repo.kg("update", "--check").code == 1
    assert repo.kg("check").code == 1
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
    assert not (repo.root / ".kg").exists()


def test_a_setting_that_changes_layer_1_output_invalidates_the_cache(repo: Repo) -> None:
    repo.write_files(
        {
            **FILES,
            "a.py": "def load():\n    pass\n",
            "b.py": "def load():\n    pass\n",
            "c.py": "def go():\n    load()\n",
        }
    )
    repo.commit()
    assert repo.kg("update").code == 0
    assert "app/main.py::main" in repo.nodes()
    for setting in ("max_file_bytes: 50", "max_candidates: 1"):
        repo.write(".kgtool.yaml", setting + "\n")
        assert repo.kg("update", "--check").code == 1, setting
        assert repo.kg("check").code == 1, setting
        assert repo.kg("update").code == 0
        assert repo.layer1() == repo.fresh_build(), setting
    repo.write(".kgtool.yaml", "max_file_bytes: 50\n")
    assert repo.kg("update").code == 0
    assert repo.nodes()["app/main.py"]["status"] == "skipped:too-large"  # 57 bytes
    assert "app/main.py::main" not in repo.nodes()


def test_a_cache_edited_into_valid_but_wrong_data_is_not_trusted(repo: Repo) -> None:
    import marshal

    from kgtool.raw.cache import CHECKSUM_BYTES

    repo.write_files(FILES)
    repo.commit()
    update(repo)
    shard_of = cache_parts(repo).shard_of
    shard = repo.cache_dir / f"raw.cache.{shard_of('app/util.py'):02d}"
    data = marshal.loads(shard.read_bytes()[CHECKSUM_BYTES:])
    entry = marshal.loads(data["files"]["app/util.py"])
    facts = entry[1]
    facts["symbols"] = [("planted", *facts["symbols"][0][1:])]
    data["files"]["app/util.py"] = marshal.dumps(entry)
    shard.write_bytes(marshal.dumps(data))  # well-formed, but not what kgtool wrote
    shutil.rmtree(repo.root / ".kg" / "raw")
    update(repo)
    assert "app/util.py::planted" not in repo.nodes()
    assert repo.layer1() == repo.fresh_build()


def test_a_new_export_of_a_widely_imported_file_re_resolves_only_what_can_bind_to_it(
    repo: Repo,
) -> None:
    """Adding a name to a file thirty files import re-resolves that file alone; changing the
    type a field is declared with re-resolves the files that call through the field."""
    files = {
        "src/types.ts": "export interface Config { store: Store }\n"
        "export class Store { save(): void {} }\n"
        "export class Cache { save(): void {} }\n",
    }
    for n in range(30):
        files[f"src/m{n}.ts"] = (
            "import type { Config } from './types';\n"
            f"export function use{n}(c: Config): void {{\n  c.store.save();\n}}\n"
        )
    repo.write_files(files)
    repo.commit()
    update(repo)
    update(repo)  # the second run reads every file's facts from the cache, as a hook would
    export = "export function fresh(): number { return 1; }\n"
    repo.write("src/types.ts", files["src/types.ts"] + export)
    added = update(repo)
    assert added.parsed == ["src/types.ts"] and added.resolved == 1
    assert repo.fresh_build() == repo.layer1()
    repo.write("src/types.ts", files["src/types.ts"].replace("store: Store", "store: Cache"))
    retyped = update(repo)
    assert retyped.resolved == 31  # every caller of c.store.save() binds elsewhere now
    layer1 = repo.layer1()
    assert repo.fresh_build() == layer1
    assert b"Cache.save" in layer1


def test_a_file_resolved_again_reads_the_values_of_files_that_were_not(repo: Repo) -> None:
    """An edit re-resolves one caller; the field type it binds through is declared in a file
    that is neither edited nor resolved again, read from the cache."""
    repo.write_files(
        {
            "src/types.ts": "export class Store { save(): void {} }\n"
            "export interface Config { store: Store }\n",
            "src/use.ts": "import type { Config } from './types';\n"
            "export function use(c: Config): void {\n  c.store.save();\n}\n",
        }
    )
    repo.commit()
    update(repo)
    update(repo)
    assert b"Store.save" in repo.layer1()
    repo.write("src/use.ts", (repo.root / "src/use.ts").read_text() + "// touched\n")
    assert update(repo).resolved == 1
    layer1 = repo.layer1()
    assert b"Store.save" in layer1
    assert repo.fresh_build() == layer1


FILLERS = {f"lib/f{n}.py": f"def filler{n}():\n    return {n}\n" for n in range(8)}


def incremental_then_fresh(repo: Repo) -> tuple[UpdateResult, bytes, UpdateResult, bytes]:
    """An incremental update and what it wrote, then a build without the cache and what it
    would write; the cache is rebuilt afterwards, for the next step."""
    incremental = update(repo)
    written = repo.layer1()
    shutil.rmtree(repo.cache_dir)
    fresh = update_raw(repo.root, load_config(repo.root), Store(repo.root), write=False)
    content = fresh.content
    update(repo)
    return incremental, written, fresh, content


def summary(result: UpdateResult) -> tuple:
    return (
        result.files,
        result.symbols,
        sorted(result.edges.items()),
        result.skipped,
        result.partial,
        result.unresolved_calls,
        result.broken_imports,
        result.file_edges_digest(),
    )


def test_names_bound_by_name_alone_follow_definitions_removed_and_moved(repo: Repo) -> None:
    """The tables of names a call binds by alone are patched by each update from the files it
    parsed: a definition removed, moved into a class, or added back changes an untouched
    caller's edge as a fresh build would."""
    repo.write_files(
        {
            **FILLERS,
            "app/a.py": "def orphan():\n    pass\n",
            "app/b.py": "def orphan():\n    pass\n",
            "app/caller.py": "def go(x):\n    orphan()\n    x.spin()\n",
            "app/spinner.py": "class Wheel:\n    def spin(self):\n        pass\n",
        }
    )
    repo.commit()
    update(repo)
    steps = [
        ("app/b.py", "def other():\n    pass\n"),  # orphan: AMBIGUOUS -> INFERRED to a.py
        ("app/a.py", "class Box:\n    def orphan(self):\n        pass\n"),  # no top-level one
        ("app/spinner.py", "def spin():\n    pass\n"),  # no method spin any more
        ("app/b.py", "def orphan():\n    pass\nclass Top:\n    def spin(self):\n        pass\n"),
    ]
    seen = []
    for path, text in steps:
        repo.write(path, text)
        incremental, written, _, content = incremental_then_fresh(repo)
        assert incremental.resolved < incremental.files  # the incremental path was taken
        assert written == content
        seen.append(
            sorted((row[1], row[2]) for row in repo.edge_rows("calls") if "caller.py" in row[0])
        )
    spin = ("app/spinner.py::Wheel.spin", "INFERRED")
    assert seen[0] == [("app/a.py::orphan", "INFERRED"), spin]
    assert seen[1] == [spin]
    assert seen[2] == []
    assert seen[3] == [("app/b.py::Top.spin", "INFERRED"), ("app/b.py::orphan", "INFERRED")]


def test_the_summary_an_edit_patches_is_the_one_a_fresh_build_counts(repo: Repo) -> None:
    repo.write_files({**FILES, **FILLERS, "app/__init__.py": ""})
    repo.commit()
    update(repo)
    steps = [
        ("app/util.py", "def helper(:\n    return 1\n"),  # a syntax error: partial
        ("app/broken.py", "from app.missing import thing\nthing()\n"),  # a broken import
        ("app/util.py", "def helper():\n    return nowhere()\n"),  # an unresolved call
        ("data.bin", "\x00\x01binary\x00"),  # skipped
        ("app/other.py", None),
    ]
    for path, text in steps:
        if text is None:
            (repo.root / path).unlink()
        else:
            repo.write(path, text)
        repo.git("add", "-A")
        incremental, written, fresh, content = incremental_then_fresh(repo)
        assert incremental.resolved < incremental.files
        assert summary(incremental) == summary(fresh)
        assert written == content
    assert incremental.skipped == [("data.bin", "binary")]
    assert incremental.broken_imports == [("app/broken.py", 1, "app.missing")]


def test_the_edges_digest_an_edit_patches_follows_the_edges_alone(repo: Repo) -> None:
    """Layer 2 keys its document on this digest: an edit that moves no edge between files
    keeps it, one that does moves it, and either way it is what a fresh build says."""
    repo.write_files({**FILES, **FILLERS, "app/__init__.py": ""})
    repo.commit()
    first = update(repo).file_edges_digest()
    repo.write("app/other.py", "def unrelated():\n    return 3\n")
    same = update(repo)
    assert same.parsed == ["app/other.py"] and same.file_edges_digest() == first
    repo.write("app/other.py", "from app.util import helper\n\ndef unrelated():\n    helper()\n")
    moved, _, fresh, _ = incremental_then_fresh(repo)
    assert moved.file_edges_digest() != first
    assert moved.file_edges_digest() == fresh.file_edges_digest()


def test_a_damaged_shard_of_the_name_tables_costs_a_rebuild_not_a_wrong_graph(
    repo: Repo,
) -> None:
    """The name tables are read in parts as names are looked up, each part held to the
    checksum the manifest names when it is read."""
    repo.write_files({**FILES, **FILLERS})
    repo.commit()
    update(repo)
    parts = sorted((repo.cache_dir).glob("raw.names.*"))
    assert len(parts) == cache_parts(repo).names > 1
    for part in parts:  # damaged past the first bytes, which still match the manifest
        data = bytearray(part.read_bytes())
        data[-1] ^= 0xFF
        part.write_bytes(bytes(data))
    repo.write("app/main.py", FILES["app/main.py"] + "    lost()\n")
    result = update(repo)
    assert len(result.parsed) == result.files  # the cache was dropped, every file parsed
    assert update(repo).parsed == []
    assert repo.layer1() == repo.fresh_build()


def test_a_change_staged_before_the_update_is_seen_through_the_index_fingerprint(
    repo: Repo,
) -> None:
    """A run whose index is the one the manifest was read from knows nothing changed
    without reading more; a change made and staged between runs must not pass as none, and
    one to an excluded file costs one slower run, then the manifest knows the new index."""
    from kgtool.repo import listing

    repo.write_files({**FILES, ".kgtool.yaml": "exclude: ['docs/**']\n"})
    repo.commit()
    update(repo)

    def recorded() -> str:
        manifest = load_manifest(Store(repo.root), cache_key(load_config(repo.root)))
        assert manifest is not None
        return manifest.listing

    assert recorded() == listing(repo.root).fingerprint(".kg") != ""
    repo.write("app/other.py", "def unrelated():\n    return 9\n")
    repo.git("add", "app/other.py")
    assert update(repo).parsed == ["app/other.py"]
    repo.write("docs/notes.txt", "other notes\n")
    repo.git("add", "docs/notes.txt")
    assert recorded() != listing(repo.root).fingerprint(".kg")
    assert update(repo).parsed == []
    assert recorded() == listing(repo.root).fingerprint(".kg")
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_reads_only_the_cache_shards_of_the_files_it_touches(repo: Repo) -> None:
    """A damaged cache shard is not read by an edit elsewhere; one that an edit reads costs
    the files it held a parse and every file a resolution (the other shards still hold
    their facts by blob id), never a wrong graph, and rewrites no shard of .kg/raw/ but the
    edited file's."""
    from kgtool.raw.cache import CHECKSUM_BYTES

    files = {
        f"{folder}/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(60) for folder in "ab"
    }
    repo.write_files(files)
    repo.commit()
    update(repo)
    cache_dir = repo.cache_dir
    shard_of = cache_parts(repo).shard_of
    damaged = shard_of("a/m7.py")
    elsewhere = next(p for p in sorted(files) if shard_of(p) != damaged)
    shard = cache_dir / f"raw.cache.{damaged:02d}"
    data = bytearray(shard.read_bytes())
    data[CHECKSUM_BYTES + len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    repo.write(elsewhere, files[elsewhere].replace("return", "return -1 +"))
    result = update(repo)
    assert result.parsed == [elsewhere] and result.resolved < result.files
    repo.write("a/m7.py", "def f7():\n    return -7\n")
    assert sorted(p.name for p in (repo.root / ".kg" / "raw").iterdir()) == ["a.jsonl", "b.jsonl"]
    result = update(repo)
    # The damaged shard's files parsed again, and only they; every file resolved again.
    lost = {p for p in files if shard_of(p) == damaged}
    assert "a/m7.py" in result.parsed and set(result.parsed) <= lost
    assert len(result.parsed) < len(files) and result.resolved == result.files
    assert result.written == ["a.jsonl"]  # the edited file's shard, and no other
    assert update(repo).parsed == []  # and the cache written anew is trusted again
    assert repo.layer1() == repo.fresh_build()


def test_a_cache_from_another_run_than_its_manifest_costs_a_full_resolution(
    repo: Repo,
) -> None:
    """A run killed after writing cache shards but before the manifest leaves a manifest
    that does not name them: the next update starts from nothing it says."""
    repo.write_files({**FILES, **FILLERS})
    repo.commit()
    update(repo)
    cache_dir = repo.cache_dir
    earlier = {p.name: p.read_bytes() for p in cache_dir.glob("raw.cache.*")}
    repo.write("app/util.py", "def helper():\n    return 2\n\ndef more():\n    pass\n")
    update(repo)
    for name, data in earlier.items():  # the shards of one run beside the manifest of another
        (cache_dir / name).write_bytes(data)
    repo.write("app/other.py", "def unrelated():\n    return 4\n")
    result = update(repo)
    assert result.resolved == result.files
    assert repo.fresh_build() == repo.layer1()


def test_an_edit_binds_a_parameter_through_what_an_untouched_file_passes(repo: Repo) -> None:
    """What a parameter holds is what the function's callers pass: an edit of the function's
    file alone reads the arguments from the one file that names the function."""
    repo.write_files(
        {
            **FILLERS,
            "app/runner.py": "def run(callback):\n    callback()\n",
            "app/hello.py": "from app.runner import run\n\ndef hello():\n    pass\n\n"
            "def main():\n    run(hello)\n",
        }
    )
    repo.commit()
    update(repo)
    repo.write("app/runner.py", "def run(callback):\n    callback()\n# touched\n")
    assert update(repo).resolved == 1
    assert ("app/runner.py::run", "app/hello.py::hello", "INFERRED", 2) in repo.edge_rows("calls")
    assert repo.fresh_build() == repo.layer1()


def test_a_run_that_finds_kg_up_to_date_loads_no_parser_resolver_or_clusterer(
    repo: Repo,
) -> None:
    """Every hook run without an edit is such a run: what it does not need, it must not
    import (a third of its time, before they were imported where they run)."""
    import subprocess
    import sys

    repo.write_files({**FILES, **FILLERS})
    repo.commit()
    assert repo.kg("update").code == 0
    heavy = [
        "kgtool.raw.extract",
        "kgtool.raw.resolve",
        "kgtool.raw.pool",
        "kgtool.communities.cluster",
        "kgtool.communities.areas",
        "kgtool.ontology.view",
        "yaml",
        "tree_sitter",
        "leidenalg",
        "importlib.metadata",  # the clustering libraries' versions are read from sys.path
        "multiprocessing",
        "tomllib",  # no pyproject.toml, no Cargo.toml here
        "difflib",
        "kgtool.ontology.area_names",
        "kgtool.raw.languages",  # what the languages are matters only to a parse
        "kgtool.ontology.facts",  # the map's inputs are read only when layer 1 changed
        "tempfile",  # nothing is written
        "dataclasses",  # on no run of a hook: see FileFacts
    ]
    script = (
        "import sys\nfrom kgtool.cli import main\n"
        f"code = main(['-C', {str(repo.root)!r}, 'update'])\n"
        f"print(code, [m for m in {heavy!r} if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "0 []"
    # An edit does need them: the test would pass for a run that did nothing. The edit is
    # refreshed as the hook refreshes it (`kgtool update` then also readies the read path's
    # indexes for `context`, which a commit does not wait for).
    repo.write("app/util.py", "def helper():\n    return 5\n")
    hook_like = (
        "import sys\nfrom pathlib import Path\nfrom kgtool.pipeline.context import Context\n"
        "from kgtool.pipeline.refresh import refresh\nfrom kgtool.config import load_config\n"
        "from kgtool.store import Store\n"
        f"root = Path({str(repo.root)!r})\n"
        "refresh(Context(root, load_config(root), Store(root)))\n"
        f"print(0, [m for m in {heavy!r} if m in sys.modules])\n"
    )
    edited = subprocess.run(
        [sys.executable, "-c", hook_like], capture_output=True, text=True, check=True
    ).stdout
    imported = edited.splitlines()[-1]
    assert "kgtool.raw.resolve" in imported
    # An edit of a few files parses them in this process: no worker pool to start.
    assert "multiprocessing" not in imported and "kgtool.raw.pool" not in imported
    assert "dataclasses" not in imported


def test_the_layer_1_cache_key_covers_the_code_that_chooses_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade that changes glob matching must rebuild layer 1, as a change under raw/
    does: the no-change path never lists the files again."""
    import kgtool.raw.build as build

    copy = tmp_path / "kgtool"
    shutil.copytree(PROJECT_ROOT / "kgtool", copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(build, "__file__", str(copy / "raw" / "build.py"))
    version = build.cache_version.__wrapped__  # read anew, not the process's kept answer
    before = version()
    (copy / "globs.py").write_text((copy / "globs.py").read_text() + "\n# changed\n")
    assert version() != before
    # As one that changes which files are a machine's (no by-name targets in them).
    before = version()
    (copy / "file_kinds.py").write_text((copy / "file_kinds.py").read_text() + "\n# changed\n")
    assert version() != before


def test_package_manifests_and_fixtures_an_edit_changes_match_a_fresh_build(repo: Repo) -> None:
    """A by-name guess depends on which package the caller is in, and a test's parameter on
    the fixture a conftest.py defines: editing those files alone must resolve again the
    untouched files whose edges they decide."""
    repo.write_files(
        {
            "a/x.js": "export function go() {\n  helper();\n}\n",
            "b/y.js": "function helper() {\n  return 1;\n}\n",
            "app/runner.py": "class Runner:\n    def invoke(self):\n        return 1\n\n\n"
            "class Other:\n    def invoke(self):\n        return 2\n",
            "tests/conftest.py": "import pytest\n",
            "tests/test_cli.py": "def test_run(runner):\n    runner.invoke()\n",
        }
    )
    repo.commit()
    update(repo)
    fixture = (
        "import pytest\n\nfrom app.runner import Runner\n\n\n"
        "@pytest.fixture\ndef runner():\n    return Runner()\n"
    )
    steps = [
        lambda: repo.write("b/package.json", '{"name": "b"}\n'),
        lambda: (repo.root / "b" / "package.json").unlink(),
        lambda: repo.write("tests/conftest.py", fixture),
        lambda: repo.write("tests/conftest.py", fixture.replace("Runner()", "Other()")),
        lambda: repo.write("tests/conftest.py", "import pytest\n"),
    ]
    for number, step in enumerate(steps):
        step()
        repo.git("add", "-A")
        result = update(repo)
        incremental = repo.layer1()
        assert result.content == incremental
        assert repo.fresh_build() == incremental, number
        update(repo)


def test_moving_a_callback_s_own_function_resolves_only_its_file(repo: Repo) -> None:
    """Where a function declared in a callback is seen is its own file's business: a line
    added above it moves it, and no other file is resolved again."""
    test = 'describe("x", () => {\n  const helper = () => 1;\n  helper();\n});\n'
    repo.write_files(
        {
            "src/ui.test.js": test,
            "src/other.js": "export function run() {\n  return helper();\n}\n",
            "src/helper.js": "export function helper() {\n  return 2;\n}\n",
        }
    )
    repo.commit()
    update(repo)
    repo.write("src/ui.test.js", "// moved\n" + test)
    result = update(repo)
    assert result.parsed == ["src/ui.test.js"]
    assert result.resolved == 1
    assert repo.fresh_build() == repo.layer1()


def _clone(source: Repo, branch: str, into: Path) -> Repo:
    subprocess.run(
        ["git", "clone", "-q", "--branch", branch, str(source.root), str(into)], check=True
    )
    return Repo(into)


def check(repo: Repo) -> UpdateResult:
    return update_raw(repo.root, load_config(repo.root), Store(repo.root), write=False)


def test_a_check_that_finds_layer_1_true_keeps_a_cache_a_fresh_clone_can_start_from(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write_files(FILES)
    repo.commit()
    assert repo.kg("update").code == 0
    repo.commit("the map")
    repo.git("switch", "-q", "-c", "pr")
    repo.write("app/other.py", "def unrelated():\n    return 3\n")
    assert repo.kg("update").code == 0
    repo.commit("a pull request")
    # The default branch's check in a fresh clone parses everything, and keeps its cache.
    main_run = _clone(repo, "main", tmp_path / "main-run")
    assert len(check(main_run).parsed) == 4
    assert load_manifest(Store(main_run.root), cache_key(load_config(main_run.root)))
    # The pull request's check in another fresh clone, that cache restored: one file parsed,
    # and the verdict of a build without it.
    pr_run = _clone(repo, "pr", tmp_path / "pr-run")
    shutil.copytree(main_run.cache_dir, pr_run.cache_dir)
    result = check(pr_run)
    assert result.parsed == ["app/other.py"] and not result.changed
    assert pr_run.kg("update", "--check").code == 0
    assert pr_run.fresh_build() == pr_run.layer1()
    # A check that finds .kg/raw/ stale keeps no cache: it would describe shards not on disk.
    stale = _clone(repo, "pr", tmp_path / "stale-run")
    stale.write("app/util.py", "def helper():\n    return 5\n")
    assert check(stale).changed
    assert load_manifest(Store(stale.root), cache_key(load_config(stale.root))) is None


def test_a_new_function_s_types_and_kind_touch_no_file_that_merely_writes_them(
    repo: Repo,
) -> None:
    """A new exported function returning ``number`` re-resolves no file that only writes
    ``number`` or ``function`` itself; its callers, found by its name, follow a new type."""
    files = {"src/lib.ts": "export class Meter { read(): number { return 1; } }\n"}
    for n in range(20):
        files[f"src/m{n}.ts"] = (
            f"export function f{n}(x: number, type: string): number {{\n  return x;\n}}\n"
        )
    files["src/caller.ts"] = (
        "import { make } from './lib';\nexport const go = () => make().read();\n"
    )
    repo.write_files(files)
    repo.commit()
    update(repo)
    update(repo)
    added = files["src/lib.ts"] + "export function make(): Meter { return new Meter(); }\n"
    repo.write("src/lib.ts", added)
    result = update(repo)
    assert result.parsed == ["src/lib.ts"] and result.resolved == 2  # lib.ts, caller.ts
    assert repo.fresh_build() == repo.layer1()
    repo.write("src/lib.ts", added.replace("make(): Meter", "make(): number"))
    assert update(repo).resolved == 2
    assert repo.fresh_build() == repo.layer1()


def test_an_edit_decodes_the_heads_it_reads_not_those_of_their_shard_mates(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache shard holds about a hundred files at any size; an edit that reads one of
    them decodes that file's head alone (each was decoded with its shard, so that an edit's
    cost grew with the repository's shard size)."""
    from kgtool.raw import cache

    repo.write_files({f"pkg/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(200)})
    repo.write_files(FILES)
    repo.commit()
    update(repo)
    assert cache_parts(repo).shards == 4  # 50 files and more a shard
    decoded: list[bytes] = []
    unpacked = cache._unpacked_head

    def counting(packed: bytes) -> cache.Head | None:
        decoded.append(packed)
        return unpacked(packed)

    monkeypatch.setattr(cache, "_unpacked_head", counting)
    repo.write("app/other.py", "def unrelated():\n    return 3\n")
    result = update(repo)
    assert result.parsed == ["app/other.py"] and result.resolved == 1
    assert 0 < len(decoded) <= 2
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_importing_a_workspace_package_decodes_no_manifest(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare import is read against every package.json and TypeScript config of the
    workspace: their facts come from the cache's table of them, not from each one's entry
    (at 10x a monorepo, 1,027 entries from 251 of 256 cache shards on every such edit)."""
    from kgtool.raw import cache

    files = {f"packages/p{n}/package.json": f'{{"name": "@acme/p{n}"}}\n' for n in range(30)}
    files.update({f"packages/p{n}/tsconfig.json": "{}\n" for n in range(30)})
    files.update({f"packages/p{n}/index.ts": f"export const v{n} = {n}\n" for n in range(30)})
    files["app/main.ts"] = "import { v3 } from '@acme/p3'\nexport const w = v3\n"
    repo.write_files(files)
    repo.commit()
    update(repo)
    decoded: list[str] = []
    entry = cache.CachedFiles._entry

    def counting(self: cache.CachedFiles, path: str) -> cache.CachedFile:
        decoded.append(path)
        return entry(self, path)

    monkeypatch.setattr(cache.CachedFiles, "_entry", counting)
    repo.write("app/main.ts", "import { v3 } from '@acme/p3'\nexport const w = v3 + 1\n")
    result = update(repo)
    assert result.parsed == ["app/main.ts"]
    assert not [path for path in decoded if path.endswith(("package.json", "tsconfig.json"))]
    assert ("app/main.ts", "packages/p3/index.ts") in {
        (e[0].split("::")[0], e[1].split("::")[0]) for e in repo.edge_rows("imports")
    }
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_carries_the_shards_of_other_folders_over_without_visiting_their_files(
    tmp_path: Path,
) -> None:
    from kgtool.raw.cache import CachedFile, CachedFiles
    from kgtool.raw.layout import Layout, meta_line, plan_layout
    from kgtool.raw.model import PARSE_OK, FileFacts

    meta = len(meta_line())
    before = Layout(
        {"a.jsonl": ["a/x.py", "a/y.py"], "b.jsonl": ["b/z.py"]},
        {"a.jsonl": (meta + 10, meta + 30), "b.jsonl": (meta + 7,)},
    )

    class OnlyFolderA(CachedFiles):
        """Fails the test on any look at a file of folder b."""

        def __contains__(self, path: object) -> bool:
            assert not str(path).startswith("b/"), path
            return super().__contains__(path)

        def __getitem__(self, path: str) -> CachedFile:
            assert not path.startswith("b/"), path
            return super().__getitem__(path)

    files = OnlyFolderA()
    for path in ("a/x.py", "a/y.py", "b/z.py"):
        files.put(path, CachedFile("blob", FileFacts(path, "python", PARSE_OK)))
    files["a/x.py"].lines = b"x" * 12
    layout = plan_layout(files, {"a/x.py"}, set(), before)
    assert layout.members["b.jsonl"] is before.members["b.jsonl"]
    assert layout.ends == {"a.jsonl": (meta + 12, meta + 32), "b.jsonl": (meta + 7,)}
    assert layout.unchanged == {"a.jsonl", "b.jsonl"}
    assert layout.old_spans == {
        "a/x.py": ("a.jsonl", meta, meta + 10),  # where they stood before
        "a/y.py": ("a.jsonl", meta + 10, meta + 30),
    }
    assert layout.spans["a/y.py"] == ("a.jsonl", meta + 12, meta + 32)


@pytest.mark.parametrize("forged", ["a file left out", "a shard without its stamp"])
def test_a_cache_whose_layout_does_not_hold_its_files_is_not_trusted(
    repo: Repo, forged: str
) -> None:
    """A manifest whose checksum holds but whose layout of .kg/raw/ misses a file, or names
    a shard it keeps no stamp of (written by another hand): the update resolves every file
    again and gives a fresh build's layer 1."""
    import marshal

    from kgtool.raw.cache import CHECKSUM_BYTES, MANIFEST_FILE, _checksum

    repo.write_files(FILES)
    repo.commit()
    update(repo)
    path = Store(repo.root).cache_dir / MANIFEST_FILE
    data = marshal.loads(path.read_bytes()[CHECKSUM_BYTES:])
    shard = next(name for name, paths in data["members"].items() if "app/other.py" in paths)
    if forged == "a file left out":
        index = data["members"][shard].index("app/other.py")
        del data["members"][shard][index]
        data["ends"][shard] = data["ends"][shard][:index] + data["ends"][shard][index + 1 :]
    else:
        del data["shards"][shard]
    payload = marshal.dumps(data)
    path.write_bytes(_checksum(payload) + payload)
    repo.write("app/util.py", "def helper():\n    return 5\n")
    result = update(repo)
    assert result.resolved == result.files  # every file
    assert repo.layer1() == repo.fresh_build()


def test_a_cache_shard_another_run_wrote_is_read_as_a_store_of_facts(repo: Repo) -> None:
    """A cache shard whole and valid, but not the one the manifest names (a run killed after
    writing it, before its manifest): found when an edit reads it, and then every shard is
    read by blob id. Its files are not parsed again; the graph is a fresh build's."""
    files = {
        f"{folder}/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(40) for folder in "ab"
    }
    repo.write_files(files)
    repo.commit()
    update(repo)
    shard_of = cache_parts(repo).shard_of
    shard = repo.cache_dir / f"raw.cache.{shard_of('a/m3.py'):02d}"
    older = shard.read_bytes()
    repo.write("a/m3.py", "def f3():\n    return -3\n")
    assert update(repo).parsed == ["a/m3.py"]
    shard.write_bytes(older)  # as a killed run would leave it: whole, of another state
    repo.write("a/m3.py", "def f3():\n    return 33\n")
    result = update(repo)
    assert result.parsed == ["a/m3.py"] and result.resolved == result.files
    assert repo.layer1() == repo.fresh_build()
    assert update(repo).parsed == []


def test_a_manifest_naming_a_shard_outside_kg_raw_is_not_trusted(repo: Repo) -> None:
    """A manifest written by another hand whose layout names a file elsewhere: nothing is
    read from it or written to it, and layer 1 is a fresh build's."""
    import marshal

    from kgtool.raw.cache import CHECKSUM_BYTES, MANIFEST_FILE, _checksum

    repo.write_files(FILES)
    repo.commit()
    update(repo)
    outside = repo.root / "outside.txt"
    outside.write_text("mine\n")
    path = Store(repo.root).cache_dir / MANIFEST_FILE
    data = marshal.loads(path.read_bytes()[CHECKSUM_BYTES:])
    name = next(name for name in data["members"] if "app" in name)
    data["members"]["../../outside.txt"] = data["members"].pop(name)
    data["ends"]["../../outside.txt"] = data["ends"].pop(name)
    payload = marshal.dumps(data)
    path.write_bytes(_checksum(payload) + payload)
    repo.write("app/util.py", "def helper():\n    return 6\n")
    update(repo)
    assert outside.read_text() == "mine\n"
    assert repo.layer1() == repo.fresh_build()


def test_an_edit_that_adds_no_file_keeps_the_digest_of_the_list_of_files(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgtool.raw import build

    repo.write_files(FILES)
    repo.commit()
    update(repo)
    made: list[int] = []
    digest = build.paths_digest

    def counting(paths: Any) -> str:
        made.append(1)
        return digest(paths)

    monkeypatch.setattr(build, "paths_digest", counting)
    repo.write("app/util.py", "def helper():\n    return 7\n")
    before = update(repo).paths_digest()
    assert made == []
    repo.write("app/new.py", "x = 1\n")
    repo.git("add", "app/new.py")
    assert update(repo).paths_digest() != before and made == [1]
