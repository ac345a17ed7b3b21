"""Incremental updates: only changed files are parsed, and the result equals a fresh build."""

from __future__ import annotations

import shutil

from conftest import Repo

from kgtool.config import load_config
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.store import Store

FILES = {
    "app/main.py": "from app.util import helper\n\ndef main():\n    helper()\n",
    "app/util.py": "def helper():\n    return 1\n",
    "app/other.py": "def unrelated():\n    return 2\n",
    "docs/notes.txt": "notes\n",
}


def update(repo: Repo) -> UpdateResult:
    return update_raw(repo.root, load_config(repo.root), Store(repo.root))


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
    assert ("app/caller.py::go", None, "AMBIGUOUS") in calls


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
    shutil.rmtree(repo.root / ".kg" / "cache")
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
    shards = sorted((repo.root / ".kg" / "cache").glob("raw.cache.*"))
    assert len(shards) > 4
    shards[0].write_bytes(b"\x00garbage")
    shards[1].unlink()
    repo.write("m3.py", "def f3():\n    return 0\n")
    result = update(repo)
    assert len(result.parsed) > 1  # the lost entries were parsed again
    assert repo.fresh_build() == repo.layer1()


def test_an_edit_rewrites_only_the_cache_shards_it_touches(repo: Repo) -> None:
    repo.write_files({f"m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(60)})
    repo.commit()
    update(repo)
    shards = sorted((repo.root / ".kg" / "cache").glob("raw.cache.*"))
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

    from kgtool.raw.cache import CHECKSUM_BYTES, shard_of

    repo.write_files(FILES)
    repo.commit()
    update(repo)
    shard = repo.root / ".kg" / "cache" / f"raw.cache.{shard_of('app/util.py'):02d}"
    data = marshal.loads(shard.read_bytes()[CHECKSUM_BYTES:])
    facts = data["files"]["app/util.py"][1]
    facts["symbols"] = [("planted", *facts["symbols"][0][1:])]
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
