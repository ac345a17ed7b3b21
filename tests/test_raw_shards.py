"""Layer 1 on disk: shards under .kg/raw/, what an edit, a rename, a merge and a migration
from the single-file format do to them, and the bound on their size."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Repo

from kgtool.raw import shards
from kgtool.raw.graph import records
from kgtool.raw.shards import SHARD_SUFFIX, folder_base

FIXTURE = Path(__file__).parent / "fixtures" / "legacy_raw"

# Three folders, calls between them: a shard each (and _root.jsonl for the README).
FOLDERS = {
    "README.md": "# demo\n",
    "core/store.py": "class Store:\n    def save(self):\n        return 1\n",
    "core/query.py": "from core.store import Store\n\n\ndef find():\n    return Store().save()\n",
    "web/views.py": "from core.query import find\n\n\ndef index():\n    return find()\n",
    "web/forms.py": "def clean(value):\n    return value.strip()\n",
    "cli/main.py": "from web.views import index\n\n\ndef main():\n    index()\n",
}
# The files the committed legacy fixture (.kg/raw.jsonl of format 1) was built from by the
# kgtool of that format: their blob ids are in it, so they must stay byte for byte.
LEGACY_FILES = FOLDERS


def update(repo: Repo, *args: str) -> str:
    result = repo.kg("update", *args)
    assert result.code == 0, result.err
    return result.out


def layer1_files(kg: dict[str, bytes]) -> dict[str, bytes]:
    """Layer 1's files among ``kg_bytes``: layer 2 keeps its history, so a rebuild from
    nothing may number communities otherwise."""
    return {name: data for name, data in kg.items() if name.startswith("raw")}


def identities(repo: Repo) -> dict[str, tuple[int, int]]:
    """Each shard's (inode, mtime): a rewrite renames a new file into place."""
    folder = repo.root / ".kg" / "raw"
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.glob("*.jsonl")}


def test_one_shard_per_folder_each_opening_with_meta(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(FOLDERS)
    update(repo)
    folders = {"_root.jsonl": "", "cli.jsonl": "cli", "core.jsonl": "core", "web.jsonl": "web"}
    assert sorted(repo.shards()) == sorted(folders)
    for name, data in repo.shards().items():
        lines = data.decode().splitlines()
        assert json.loads(lines[0])["rec"] == "meta", name
        paths = {json.loads(line)["id"] for line in lines[1:] if '"kind":"file"' in line}
        assert {os.path.dirname(p) for p in paths} == {folders[name]}
    # The reader spells out what the shards leave out: contains edges, tiers, file and name.
    contains = repo.edge_rows("contains")
    assert ("core/store.py::Store", "core/store.py::Store.save", "EXTRACTED", 2) in contains
    assert repo.nodes()["core/store.py::Store.save"]["file"] == "core/store.py"
    assert repo.nodes()["core/store.py::Store.save"]["lang"] == "python"
    assert "ext:py:os" not in repo.nodes()
    assert repo.layer1() == repo.fresh_build()


def test_same_bytes_whatever_the_number_of_jobs(make_repo: Callable[..., Repo]) -> None:
    """Enough files for the parse and resolution pools (64), in several folders."""
    files = {
        f"pkg{n % 5}/m{n}.py": f"from pkg{(n + 1) % 5}.m{(n + 1) % 90} import f{(n + 1) % 90}\n\n"
        f"def f{n}():\n    return f{(n + 1) % 90}()\n"
        for n in range(90)
    }
    repo = make_repo(files)
    built = {}
    for jobs in (1, 2, 3):
        repo.write(".kgtool.yaml", f"jobs: {jobs}\n")
        built[jobs] = repo.clean_build()
    assert built[1] == built[2] == built[3]
    assert len([n for n in built[1] if n.startswith("raw/")]) == 5


def test_parse_chunks_hold_every_file_once_heaviest_first_and_about_equal() -> None:
    """What each worker of the parse pool is handed: every file once, a chunk's files
    sorted, the largest files in the first chunks, and no chunk much heavier than the
    share it aims at unless one file alone is."""
    from kgtool.raw.pool import balanced_chunks

    sizes = {f"f{n:03d}": (n * 7919) % 1000 + 1 for n in range(300)}
    sizes["huge"] = 50_000
    chunks = balanced_chunks(sizes, sizes.__getitem__, 32)
    assert sorted(path for chunk in chunks for path in chunk) == sorted(sizes)
    assert all(chunk == sorted(chunk) for chunk in chunks)
    assert chunks[0] == ["huge"]
    weights = [sum(sizes[path] for path in chunk) for chunk in chunks]
    share = sum(sizes.values()) // 32
    assert all(weight < share + 1000 for weight in weights[1:])
    largest = [max(sizes[path] for path in chunk) for chunk in chunks]
    assert largest == sorted(largest, reverse=True)  # the large files go out first
    assert balanced_chunks(reversed(list(sizes)), sizes.__getitem__, 32) == chunks


def test_records_spelled_out_by_hand_are_the_bytes_of_canonical_json() -> None:
    """A full build writes symbol records without the JSON encoder (a record per symbol of
    the repository): they must be what canonical_json writes, as every reader compares."""
    from kgtool.raw.lines import symbol_line
    from kgtool.store import canonical_json

    for record in (
        {"id": "::Parser.parse", "kind": "method", "span": [3, 40]},
        {"id": '::na\u00efve"quote\\\u2028', "kind": "function", "span": [1, 1]},
        {"id": "::f", "kind": "function", "span": [2, 9], "external_calls": 3},
        {"id": "::g", "kind": "function", "span": [2, 9], "unresolved_calls": {"x": 2}},
        {
            "external_calls": 1,
            "id": "::h",
            "kind": "method",
            "span": [2, 9],
            "unresolved_calls": {"?": 1, "b\u00e9": 2, "a": 3, 'q"': 4},
        },
        {"id": "::k", "kind": "class", "span": [1, 2], "other": True},
    ):
        assert symbol_line(record) == canonical_json(record)


def test_an_edit_rewrites_only_its_own_shard(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(FOLDERS)
    update(repo)
    before = identities(repo)
    repo.write("web/forms.py", "def clean(value):\n    return value.strip().lower()\n")
    repo.commit("edit")
    out = update(repo)
    after = identities(repo)
    assert "(1 shard(s) written)" in out
    assert [name for name in before if before[name] != after[name]] == ["web.jsonl"]
    assert repo.layer1() == repo.fresh_build()
    # And nothing at all when nothing changed.
    update(repo)
    assert identities(repo) == after


def test_a_file_moving_to_another_folder_moves_between_shards(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(FOLDERS)
    update(repo)
    repo.git("mv", "web/forms.py", "core/forms.py")
    repo.commit("move")
    update(repo)
    assert b'"id":"core/forms.py"' in repo.shards()["core.jsonl"]
    assert b"forms.py" not in repo.shards()["web.jsonl"]
    assert layer1_files(repo.kg_bytes()) == layer1_files(repo.clean_build())
    # The last file of a folder leaves: its shard goes too.
    repo.git("mv", "cli/main.py", "core/main.py")
    repo.commit("move again")
    out = update(repo)
    assert "cli.jsonl" not in repo.shards() and "1 removed" in out
    assert layer1_files(repo.kg_bytes()) == layer1_files(repo.clean_build())


def test_a_big_folder_is_split_into_bounded_shards_by_path_hash(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 3000
    monkeypatch.setattr(shards, "SHARD_LIMIT", limit)
    files = {
        f"big/m{n:03d}.py": f"def f{n}():\n    return {n}\n\n\ndef g{n}():\n    return f{n}()\n"
        for n in range(120)
    }
    repo = make_repo({**files, "small/one.py": "def one():\n    return 1\n"})
    update(repo)
    names = repo.shards()
    split = sorted(n for n in names if n.startswith("big+"))
    assert len(split) > 1 and "big.jsonl" not in names
    for name in split:
        assert len(names[name]) <= limit, name
        part = name.removeprefix("big+").removesuffix(SHARD_SUFFIX)
        assert 1 <= len(part) <= 3 and set(part) <= set("0123"), name
    # One file more in the big folder: most of its shards and every other one stay.
    before = identities(repo)
    repo.write("big/m999.py", "def f999():\n    return 999\n")
    repo.commit("one more")
    update(repo)
    after = identities(repo)
    moved = [n for n in before if before[n] != after.get(n)]
    assert after["small.jsonl"] == before["small.jsonl"]
    assert len(moved) <= 2, moved  # its own shard, and one split in two at worst
    assert repo.layer1() == repo.fresh_build()
    assert layer1_files(repo.kg_bytes()) == layer1_files(repo.clean_build())


def test_folders_laid_out_again_by_edits_match_a_clean_build_as_they_split_and_merge(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit lays out again only the folders it touched: whether a folder splits, merges
    back or empties, and however files move between folders, the shards are a clean build's."""
    monkeypatch.setattr(shards, "SHARD_LIMIT", 2500)

    def module(n: int, lines: int = 1) -> str:
        return f"def f{n}():\n" + "".join(f"    x{i} = f{n}()\n" for i in range(lines))

    repo = make_repo({f"big/m{n:02d}.py": module(n) for n in range(30)} | {"a/one.py": module(99)})
    update(repo)
    assert sum(name.startswith("big+") for name in repo.shards()) > 1
    steps: list[Callable[[], None]] = [
        lambda: repo.write("big/m03.py", module(3, 40)),  # one file grows past the limit
        lambda: repo.write("big/m03.py", module(3)),  # and shrinks back
        lambda: [(repo.root / f"big/m{n:02d}.py").unlink() for n in range(5, 28)],  # merges
        lambda: repo.git("mv", "big/m00.py", "a/m00.py"),  # a file moves between folders
        lambda: [repo.write(f"big/n{n}.py", module(100 + n)) for n in range(25)],  # splits
        lambda: [(repo.root / p).unlink() for p in ("a/one.py", "a/m00.py")],  # a folder empties
    ]
    for number, step in enumerate(steps):
        step()
        repo.commit(f"step {number}")
        update(repo)
        assert repo.shards() == {
            name.removeprefix("raw/"): data
            for name, data in layer1_files(repo.clean_build()).items()
        }, number


def test_shard_names_are_readable_lower_case_and_distinct() -> None:
    assert folder_base("") == "_root"
    assert folder_base("kgtool/raw") == "kgtool.raw"
    assert folder_base("my-pkg/sub_dir/v2") == "my-pkg.sub_dir.v2"
    upper, lower = folder_base("src/Foo"), folder_base("src/foo")
    assert lower == "src.foo" and upper.startswith("src.foo@") and upper != lower
    dotted, nested = folder_base("a.b"), folder_base("a/b")
    assert nested == "a.b" and dotted.startswith("a_b@")
    for odd in ("con", "NUL/x", "_root", "__tests__", ".github/workflows", "π/ü", "a b", "-x"):
        name = folder_base(odd)
        assert "@" in name and name == name.lower() and name.isascii(), (odd, name)
        assert not name.startswith(("-", ".")), name
    deep = folder_base("/".join(["folder"] * 60))
    assert "@" in deep and len(deep + "+abcdef.jsonl") < 120


def test_a_merge_conflict_in_a_shard_is_mended_by_update(make_repo: Callable[..., Repo]) -> None:
    """Two branches add a function to different files of one folder: the code merges, the
    folder's shard conflicts; kgtool update rewrites that shard alone."""
    repo = make_repo(FOLDERS)
    update(repo)
    repo.commit("map")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("core/store.py", FOLDERS["core/store.py"] + "\n\ndef side():\n    return 2\n")
    repo.git("add", "-A")
    update(repo)
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("core/query.py", FOLDERS["core/query.py"] + "\n\ndef ours():\n    return find()\n")
    repo.git("add", "-A")
    update(repo)
    repo.commit("main")
    merge = repo.merge("side")
    assert merge.returncode != 0  # .kg/ conflicts, the code does not
    conflicted = repo.git("diff", "--name-only", "--diff-filter=U").split()
    assert ".kg/raw/core.jsonl" in conflicted
    assert "<<<<<<<" in (repo.root / ".kg" / "raw" / "core.jsonl").read_text()
    # A reader names the damaged shard and its first marker's line rather than misreading it.
    shard = (repo.root / ".kg" / "raw" / "core.jsonl").read_text().splitlines()
    marker = next(n for n, line in enumerate(shard, 1) if line.startswith("<<<<<<<"))
    assert f".kg/raw/core.jsonl:{marker}: is damaged" in repo.kg("impact", "core/store.py").err
    before = identities(repo)
    out = update(repo)
    after = identities(repo)
    assert "<<<<<<<" not in (repo.root / ".kg" / "raw" / "core.jsonl").read_text()
    assert [n for n in before if before[n] != after[n]] == ["core.jsonl"]
    assert "resolved 2 " in out  # the two files of the conflicted shard, nothing else
    nodes = repo.nodes()
    assert "core/store.py::side" in nodes and "core/query.py::ours" in nodes
    repo.git("add", "-A")
    assert repo.kg("update", "--check").code == 0
    assert layer1_files(repo.kg_bytes()) == layer1_files(repo.clean_build())


def legacy_repo(make_repo: Callable[..., Repo]) -> Repo:
    """A repository as the single-file format left it: .kg/raw.jsonl committed beside a layer 2
    of today's format, so that only layer 1 has anything to migrate."""
    repo = make_repo(LEGACY_FILES)
    update(repo)
    kg = repo.root / ".kg"
    shutil.rmtree(kg / "raw")
    shutil.copyfile(FIXTURE / "raw.jsonl", kg / "raw.jsonl")
    repo.git("add", "-A")
    repo.commit("map, layer 1 in format 1")
    return repo


def test_a_legacy_raw_jsonl_is_read_then_migrated_by_the_next_update(
    make_repo: Callable[..., Repo],
) -> None:
    repo = legacy_repo(make_repo)
    legacy = (repo.root / ".kg" / "raw.jsonl").read_text()
    assert legacy.startswith('{"extractor":"3","format":1,"rec":"meta"}\n')
    # Before the migration, readers read the old file, also beside an empty .kg/raw/ (a
    # migration killed before its first shard was written).
    (repo.root / ".kg" / "raw").mkdir()
    impact = repo.kg("impact", "core/store.py::Store.save")
    assert impact.code == 0, impact.err
    assert "core/query.py::find" in impact.out
    assert repo.kg("update", "--check").code == 1
    out = update(repo)
    assert out.splitlines()[0] == "migrated .kg/raw.jsonl to shards under .kg/raw/; removed it"
    assert not (repo.root / ".kg" / "raw.jsonl").exists()
    assert sorted(repo.shards()) == ["_root.jsonl", "cli.jsonl", "core.jsonl", "web.jsonl"]
    # Every record of the old file is still there, spelled out by the reader; with the
    # confidences of today's extractor (they were restated from measurement since).
    old = [json.loads(line) for line in legacy.splitlines()]
    new = list(records(repo.layer1()))
    kept = lambda r: {k: v for k, v in r.items() if k not in ("format", "confidence")}  # noqa: E731
    key = lambda r: json.dumps(kept(r), sort_keys=True)  # noqa: E731
    assert sorted(map(key, old[1:])) == sorted(map(key, new[1:]))
    assert layer1_files(repo.kg_bytes()) == layer1_files(repo.clean_build())
    assert "communities.json" not in repo.git("status", "--porcelain")  # layer 2 kept as it was
    repo.git("add", "-A")
    assert repo.kg("update", "--check").code == 0
    assert "nothing written" in update(repo)


@pytest.mark.parametrize("escaped", [False, True])
def test_the_read_path_sees_the_records_the_reader_spells_out(
    make_repo: Callable[..., Repo], escaped: bool
) -> None:
    """Symbol IDs and edge sources are written without their file's path; every way the read
    commands find them (a targeted search, the indexes, the line-by-line reading that a
    backslash in an ID forces) must give the whole IDs."""
    from kgtool.config import load_config
    from kgtool.query.kg import load_graph
    from kgtool.store import Store

    files = {
        **FOLDERS,
        "web/forms.py": "def clean(value):\n    return value.strip(unknown())\n",
    }
    if escaped:
        files['web/odd"name.py'] = "from core.store import Store\n\n\ndef odd():\n    Store()\n"
    repo = make_repo(files)
    update(repo)
    assert (b"\\" in repo.layer1()) == escaped
    full = repo.raw()
    nodes = {r["id"]: r for r in full if r["rec"] == "node" and not r.get("external")}
    root = repo.root

    def graph():  # a fresh graph: nothing indexed, nothing cached
        shutil.rmtree(root / ".git" / "kgtool-cache", ignore_errors=True)
        return load_graph(root, load_config(root), Store(root))

    targeted = graph()
    for node_id, record in nodes.items():
        found = targeted.node(node_id)
        assert found is not None and found["id"] == node_id, node_id
        assert found["kind"] == record["kind"] and found.get("span") == record.get("span")
    indexed = graph()
    assert indexed.node_ids() == sorted(nodes)
    assert indexed.unresolved_calls() == {
        node_id: record["unresolved_calls"]
        for node_id, record in nodes.items()
        if record.get("unresolved_calls")
    }
    assert graph().symbols_of("core/store.py") == [
        "core/store.py",
        "core/store.py::Store",
        "core/store.py::Store.save",
    ]
    edges = [r for r in full if r["rec"] == "edge" and r["type"] != "contains"]
    for target in ("core/store.py::Store", "core/query.py::find", "core/store.py"):
        expected = sorted((e["src"], e["type"], e["line"]) for e in edges if e.get("dst") == target)
        one = graph()
        assert sorted((e.src, e.type, e.line) for e in one.incoming(target)) == expected
        for _ in range(5):  # past the targeted searches: the edge index
            one.incoming("cli/main.py::main")
        assert sorted((e.src, e.type, e.line) for e in one.incoming(target)) == expected
    outgoing = graph().edges_from("core/query.py")
    assert {(e.src, e.dst) for e in outgoing} == {
        ("core/query.py", "core/store.py"),
        ("core/query.py::find", "core/store.py::Store"),
        ("core/query.py::find", "core/store.py::Store.save"),
    }


def test_shards_rewritten_with_the_same_bytes_are_trusted_and_restamped(
    make_repo: Callable[..., Repo],
) -> None:
    """A checkout (or the hook's copy from the index) rewrites shards with the same bytes: the
    next update trusts them by their digest, writes nothing, and keeps their new stat so that
    later runs compare stats again."""
    from kgtool.config import load_config
    from kgtool.raw import cache
    from kgtool.raw.build import cache_key
    from kgtool.store import Store

    repo = make_repo(FOLDERS)
    update(repo)
    for path in (repo.root / ".kg" / "raw").glob("*.jsonl"):
        data = path.read_bytes()
        path.unlink()
        path.write_bytes(data)
    out = update(repo)
    assert "nothing written" in out
    store = Store(repo.root)
    manifest = cache.load_manifest(store, cache_key(load_config(repo.root)))
    assert manifest is not None
    assert {name: stamp[1:] for name, stamp in manifest.shards.items()} == cache.shard_stats(store)


def test_layer_1_is_named_alike_by_the_build_the_no_change_path_and_the_reader(
    make_repo: Callable[..., Repo],
) -> None:
    """Layer 2's cache is keyed by layer 1's digest: a run that changed nothing names it from
    its cache without reading a shard, and must name it as the run that wrote it did and as
    reading the shards does, or every such run would cluster again."""
    from kgtool.config import load_config
    from kgtool.raw.build import update_raw
    from kgtool.raw.graph import digest_on_disk
    from kgtool.store import Store

    repo = make_repo(FOLDERS)

    def run() -> tuple[bool, str]:
        result = update_raw(repo.root, load_config(repo.root), Store(repo.root))
        return result.changed, result.digest

    written = run()
    unchanged = run()
    assert written[0] and not unchanged[0]
    assert written[1] == unchanged[1] == digest_on_disk(Store(repo.root))
    repo.write("web/forms.py", "def clean(value):\n    return value.lower()\n")
    edited = run()
    assert edited[0] and edited[1] != written[1]
    assert edited[1] == run()[1] == digest_on_disk(Store(repo.root))


def test_a_line_added_inside_a_function_rewrites_one_line_of_kg(
    make_repo: Callable[..., Repo],
) -> None:
    """The budget of a readable map diff: a one-line edit inside a function changes at most
    3 files and 20 lines under .kg/. Every line number of a file is in its node, so records
    below the edit keep their bytes (format 2 rewrote the 61 records after it: 122 lines)."""
    body = "\n".join(f"def f{i}(x):\n    y = x + {i}\n    return g(y)\n" for i in range(30))
    repo = make_repo({"pkg/__init__.py": "", "pkg/mod.py": "def g(x):\n    return x\n\n" + body})
    update(repo)
    repo.commit("map")
    text = (repo.root / "pkg/mod.py").read_text()
    repo.write("pkg/mod.py", text.replace("    y = x + 0\n", "    y = x + 0\n    y += 1\n", 1))
    update(repo)
    numstat = repo.git("diff", "--numstat", "--", ".kg").splitlines()
    changed = {
        row.split("\t")[2]: int(row.split("\t")[0]) + int(row.split("\t")[1]) for row in numstat
    }
    assert changed == {".kg/raw/pkg.jsonl": 2}, changed
