"""Promises of docs/ about commands and files that a one-line change could break unnoticed.

Atomic writes, the lock's exit code through the CLI, ``update --exit-code``, the exact meta
line of every shard of layer 1, ``kgtool diff``'s coupling and its two settings,
``fail_on_stale_concepts`` on a label that really drifted, and ``playbooks.history_commits``.
Assertions are on exit
codes, on files and on JSON output rather than on message wording.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from communities_helpers import clique, communities, community_of, update
from conftest import PROJECT_ROOT, Repo
from playbook_helpers import add_playbook

from kgtool.store import atomic_write

# --- atomic writes -------------------------------------------------------------------------


def test_update_replaces_kg_files_by_rename_so_an_open_reader_keeps_the_old_file(
    repo: Repo,
) -> None:
    """Guards ``os.replace(temp, path)`` in ``atomic_write`` (a write in place instead).

    A rename gives the path a new inode: a hard link taken before the update (as a reader
    holding the file open would) still sees the complete old file. A write in place keeps the
    inode, so the link would show the new bytes, and a reader could see half of them.
    """
    repo.build({"a.py": "def a():\n    return 1\n", "b.py": "from a import a\n\na()\n"})
    kg = repo.root / ".kg"
    names = ["raw/_root.jsonl", "communities.json", "MAP.md"]
    before = {name: (kg / name).read_bytes() for name in names}
    inodes = {name: (kg / name).stat().st_ino for name in names}
    for name in names:
        os.link(kg / name, repo.root.parent / f"held-{name.replace('/', '-')}")
    repo.write("c.py", "from b import a\n\n\ndef c():\n    return a()\n")
    repo.commit("c")
    update(repo)
    for name in names:
        assert (kg / name).read_bytes() != before[name], name
        assert (kg / name).stat().st_ino != inodes[name], name
        held = repo.root.parent / f"held-{name.replace('/', '-')}"
        assert held.read_bytes() == before[name], name


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Guards the temporary file and the clean-up in ``atomic_write``: the disk fills up
    (fsync fails) after the new bytes were written; the old file must be whole."""
    target = tmp_path / "shard.jsonl"
    target.write_bytes(b"old complete content\n")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError):
        atomic_write(target, b"new content that never lands\n")
    assert target.read_bytes() == b"old complete content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard.jsonl"]


# --- the lock, --exit-code, the meta line --------------------------------------------------

HOLD_LOCK = """
import sys, time
from pathlib import Path
from kgtool.store import Store
with Store(Path(sys.argv[1])).lock():
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.mark.slow  # waits out the CLI's 10-second lock wait, which is what it guards
def test_update_exits_3_when_another_run_holds_the_lock(repo: Repo) -> None:
    """Guards ``LockTimeout.exit_code`` (3) and the lock's 10-second wait, through the CLI."""
    repo.write_files({"a.py": "x = 1\n"})
    repo.commit()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(repo.root)],
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        started = time.monotonic()
        result = repo.kg_process("update")
        waited = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait(timeout=10)
        if holder.stdout:
            holder.stdout.close()
    assert result.code == 3, (result.out, result.err)
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    assert f"pid {holder.pid}" in result.err  # names the holder
    assert waited >= 10
    assert not (repo.root / ".kg" / "raw").exists()
    assert repo.kg("update").code == 0  # the holder gone, the lock is free


def test_update_exit_code_is_1_exactly_when_kg_was_rewritten(repo: Repo) -> None:
    """Guards ``--exit-code``: 1 when it rewrote .kg/ (first build, an edit), 0 when nothing
    changed; without the flag an update that rewrites exits 0."""
    repo.write_files({"a.py": "def a():\n    return 1\n"})
    repo.commit()
    assert repo.kg("update", "--quiet", "--exit-code").code == 1
    written = repo.kg_bytes()
    assert repo.kg("update", "--quiet", "--exit-code").code == 0
    assert repo.kg_bytes() == written
    repo.write("a.py", "def a():\n    return 2\n\n\ndef b():\n    return a()\n")
    repo.commit("edit")
    assert repo.kg("update", "--quiet", "--exit-code").code == 1
    assert repo.kg_bytes() != written
    assert repo.kg("update", "--quiet", "--exit-code").code == 0
    repo.write("a.py", "def a():\n    return 3\n")
    repo.commit("edit again")
    assert repo.kg("update", "--quiet").code == 0


def test_every_shard_opens_with_the_exact_meta_line(repo: Repo) -> None:
    """docs/layer1-raw-graph.md's meta line, byte for byte (a new extractor version must
    update both)."""
    repo.build({"a.py": "x = 1\n", "pkg/b.py": "y = 2\n"})
    firsts = {data.decode().splitlines()[0] for data in repo.shards().values()}
    assert len(repo.shards()) == 2 and len(firsts) == 1
    first = firsts.pop()
    assert first == '{"extractor":"34","format":3,"rec":"meta"}'
    page = (PROJECT_ROOT / "docs" / "layer1-raw-graph.md").read_text()
    assert f"The first line is `{first}`" in page


# --- kgtool diff: coupling and its settings ------------------------------------------------

ALPHA = ["a0", "a1", "a2", "a3"]


def coupled(alpha_calls: dict[str, list[str]], beta_calls: dict[str, list[str]]) -> dict:
    return {
        **clique("alpha", ALPHA, alpha_calls),
        **clique("beta", ["b0", "b1", "b2", "b3"], beta_calls),
        **clique("gamma", ["g0", "g1", "g2", "g3"]),
    }


@pytest.fixture
def coupling_repo(make_repo: Callable[..., Repo]) -> tuple[Repo, dict[str, str]]:
    """alpha -> beta grows from 4 to 8 edges (2 calls, then 4, imports alongside), beta ->
    gamma vanishes, alpha -> gamma appears; the three communities keep their IDs."""
    repo = make_repo(
        coupled(
            {"a0": ["beta.b0.beta_b0", "beta.b1.beta_b1"]},
            {"b0": ["gamma.g0.gamma_g0"]},
        )
    )
    update(repo)
    repo.commit("base map")
    repo.git("branch", "base")
    ids = {name: community_of(repo, f"{name}/{name[0]}0.py") for name in ("alpha", "beta")}
    ids["gamma"] = community_of(repo, "gamma/g0.py")
    four = ["beta.b0.beta_b0", "beta.b1.beta_b1"]
    repo.write_files(coupled({"a0": four, "a1": four, "a2": ["gamma.g1.gamma_g1"]}, {}))
    repo.commit("head")
    update(repo)
    repo.commit("head map")
    assert {community_of(repo, f"{n}/{n[0]}0.py") for n in ("alpha", "beta")} == {
        ids["alpha"],
        ids["beta"],
    }
    edges = {(e["src"], e["dst"]): e["total"] for e in communities(repo)["edges"]}
    assert edges[(ids["alpha"], ids["beta"])] == 8
    return repo, ids


def diff_json(repo: Repo) -> dict:
    result = repo.kg("diff", "base", "HEAD", "--format", "json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def pairs(entries: list[dict]) -> list[tuple[str, str]]:
    return [(e["src"], e["dst"]) for e in entries]


def test_diff_reports_coupling_that_appeared_vanished_and_changed(
    coupling_repo: tuple[Repo, dict[str, str]],
) -> None:
    repo, ids = coupling_repo
    coupling = diff_json(repo)["coupling"]
    assert pairs(coupling["appeared"]) == [(ids["alpha"], ids["gamma"])]
    assert pairs(coupling["vanished"]) == [(ids["beta"], ids["gamma"])]
    assert pairs(coupling["changed"]) == [(ids["alpha"], ids["beta"])]
    changed = coupling["changed"][0]
    assert (changed["total_before"], changed["total_after"]) == (4, 8)


@pytest.mark.parametrize(
    "setting",
    ["diff_min_edges: 5", "diff_change: 1.5"],
    ids=["min-edges-above-the-change", "relative-change-above-the-change"],
)
def test_diff_settings_raise_the_bar_for_changed_coupling(
    coupling_repo: tuple[Repo, dict[str, str]], setting: str
) -> None:
    """Guards ``diff_min_edges`` and ``diff_change`` reaching the comparison: +4 edges on 4
    counts at the defaults (3 edges, 50%), not at 5 edges or at 150%."""
    repo, ids = coupling_repo
    repo.write(".kgtool.yaml", f"communities:\n  {setting}\n")
    coupling = diff_json(repo)["coupling"]
    assert coupling["changed"] == []
    assert pairs(coupling["appeared"]) == [(ids["alpha"], ids["gamma"])]


# --- layer 4: stale concepts, history_commits ----------------------------------------------


def test_fail_on_stale_concepts_refuses_a_playbook_whose_label_really_drifted(
    make_repo: Callable[..., Repo],
) -> None:
    """Guards ``fail_on_stale_concepts`` with a label made stale by a real change (no seam
    replaced): fresh label 0 either way; stale label 0 by default, 1 with the setting."""
    repo = make_repo({**clique("pay", ["p0", "p1", "p2", "p3"]), **clique("web", ["w0", "w1"])})
    update(repo)
    payments = community_of(repo, "pay/p0.py")
    assert repo.kg("label", "--set", payments, "Payment processing").code == 0
    add_playbook(repo, "refund", ["pay/p0.py"], concepts=["Payment processing"])
    repo.commit("labelled, with a playbook")
    strict = "playbooks:\n  fail_on_stale_concepts: true\n"
    repo.write(".kgtool.yaml", strict)
    assert repo.kg("playbooks", "check").code == 0
    (repo.root / ".kgtool.yaml").unlink()
    # Payments doubles: its members drift by 0.5, past member_drift (0.3).
    repo.write_files(clique("pay", [f"p{i}" for i in range(8)]))
    repo.commit("payments grows")
    update(repo)
    assert community_of(repo, "pay/p7.py") == payments
    assert repo.kg("playbooks", "check").code == 0
    repo.write(".kgtool.yaml", strict)
    assert repo.kg("playbooks", "check").code == 1


def test_history_commits_bounds_how_far_back_renames_are_followed(repo: Repo) -> None:
    """Guards ``playbooks.history_commits`` reaching the rename search: a rename 3 commits
    back is fixed with the default (all history), not with a window of 2 commits."""
    repo.write_files({"old.py": "def run():\n    pass\n", "notes.txt": "0\n"})
    repo.commit("initial")
    repo.git("mv", "old.py", "new.py")
    repo.commit("rename")
    for number in (1, 2):
        repo.write("notes.txt", f"{number}\n")
        repo.commit(f"unrelated {number}")
    assert repo.kg("update").code == 0
    path = add_playbook(repo, "p", ["old.py::run"])
    playbook = (repo.root / path).read_text()
    repo.write(".kgtool.yaml", "playbooks:\n  history_commits: 2\n")
    assert repo.kg("playbooks", "fix").code != 0
    assert (repo.root / path).read_text() == playbook
    repo.write(".kgtool.yaml", "playbooks:\n  history_commits: 3\n")
    assert repo.kg("playbooks", "fix").code == 0
    assert "  - new.py::run\n" in (repo.root / path).read_text()
