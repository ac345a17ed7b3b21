"""What a full build holds at once: files parsed by workers keep their calls and assignments
packed until a resolution reads them, a worker packs them again after each chunk, and a
file's rendered records are let go once its shard holds them. The peak itself is measured by
bench/raw_speed.py, not here."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Repo

from kgtool.raw.build import Hydrator
from kgtool.raw.cache import CachedFile, CachedFiles
from kgtool.raw.extract import PARALLEL_THRESHOLD, extract_files
from kgtool.raw.layout import Layout, shard_contents
from kgtool.raw.model import PARSE_OK, FileFacts, unpacked_body
from kgtool.store import Store

MODULE = (
    "from pkg.m{other} import f{other}\n\nx{n} = f{other}(1)\n\n"
    "def f{n}(a):\n    return f{other}(a)\n"
)


def _package(repo: Repo, count: int) -> list[str]:
    paths = [f"pkg/m{n}.py" for n in range(count)]
    repo.write_files(
        {path: MODULE.format(n=n, other=(n + 1) % count) for n, path in enumerate(paths)}
    )
    return paths


def test_files_parsed_by_workers_hold_their_calls_back_packed(repo: Repo) -> None:
    paths = _package(repo, PARALLEL_THRESHOLD + 6)
    serial = extract_files(repo.root, paths, 1_000_000, 1)
    pooled = extract_files(repo.root, paths, 1_000_000, 2)
    assert not serial.bodies
    assert sorted(pooled.bodies) == sorted(paths)
    for path in paths:
        held = pooled.facts[path]
        assert held.calls == [] and held.assigns == []
        assert held.symbols == serial.facts[path].symbols
        calls, assigns = unpacked_body(pooled.bodies[path])
        assert calls == [tuple(c) for c in serial.facts[path].calls] != []
        assert assigns == [tuple(a) for a in serial.facts[path].assigns] != []
        assert pooled.mentions[path] == serial.mentions[path]


def test_a_worker_keeps_the_files_it_read_last_decoded_and_packs_the_rest(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _package(repo, PARALLEL_THRESHOLD + 1)
    parsed = extract_files(repo.root, paths, 1_000_000, 2)
    files = CachedFiles()
    for path in paths:
        entry = CachedFile("blob", parsed.facts[path], mentions=parsed.mentions[path])
        entry.body = parsed.bodies[path]
        files.put(path, entry)
    monkeypatch.setattr(Hydrator, "KEEP_DECODED", 2)
    hydrator = Hydrator(files)
    first, second, third, fourth = paths[:4]
    assert hydrator(first).calls != []  # not holding: decoded for good
    hydrator.hold()
    for path in (second, third, fourth, second):  # the second read again, last
        assert hydrator(path).calls != []
    hydrator.hold_back()
    assert files[first].facts.calls != [] and files[first].body is None
    assert files[third].facts.calls == [] and files[third].facts.assigns == []
    assert files[third].body == parsed.bodies[third]
    assert files[second].body is None and files[fourth].body is None
    # Decoded again when a later chunk reads it.
    assert [tuple(c) for c in hydrator(third).calls] == unpacked_body(parsed.bodies[third])[0]


def test_a_rendered_files_records_are_let_go_once_its_shard_holds_them(tmp_path: Path) -> None:
    files = CachedFiles()
    for path, lines in (("a/x.py", b'{"id":"x"}\n'), ("a/y.py", b'{"id":"y"}\n')):
        entry = CachedFile("blob", FileFacts(path, "python", PARSE_OK))
        entry.lines = lines
        files.put(path, entry)
    layout = Layout({"a.jsonl": ["a/x.py", "a/y.py"]}, {})
    contents = shard_contents(Store(tmp_path), layout, set(), files, {"a/x.py", "a/y.py"})
    assert contents["a.jsonl"].endswith(b'{"id":"x"}\n{"id":"y"}\n')
    assert files["a/x.py"].lines == b"" and files["a/y.py"].lines == b""
