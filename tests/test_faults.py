"""Faults: runs killed at seeded random points, concurrent runs, a lock whose holder died.

After each fault the next normal run must succeed with no manual step and write the bytes of a
clean build. The kill points come from a seeded generator: a failure names its seed and trial,
and ``KGTOOL_FAULT_SEED=<seed> KGTOOL_FAULT_TRIALS=<n>`` replays it (or runs a longer hunt;
``KGTOOL_FAULT_CONCURRENT`` sets how many runs start at once).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GIT_ENV, PROJECT_ROOT, Repo

from kgtool.errors import LockTimeout
from kgtool.store import Store

SEED = int(os.environ.get("KGTOOL_FAULT_SEED", "20260101"))
TRIALS = int(os.environ.get("KGTOOL_FAULT_TRIALS", "2"))
CONCURRENT = int(os.environ.get("KGTOOL_FAULT_CONCURRENT", "4"))
MODULES = 100  # above the parallel threshold: the kills land while workers run
LONGEST_KILL_DELAY = 1.3  # seconds; a cold build of the fixture takes about as long

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc to find surviving workers"
)


def module(i: int, variant: int = 0) -> str:
    parts = [f"from pkg.m{(i - 1) % MODULES} import f0 as prev\n"]
    for j in range(20):
        parts.append(
            f"\n\nclass C{j}:\n    def run(self, x):\n        return prev(x) + f{j}(x)\n"
            f"\n\ndef f{j}(x):\n    return [prev(k + {variant}) for k in range(x)]\n"
        )
    return "".join(parts)


def big_repo(make_repo) -> Repo:
    files = {f"pkg/m{i}.py": module(i) for i in range(MODULES)}
    files["pkg/__init__.py"] = ""
    files[".kgtool.yaml"] = "jobs: 2\n"
    return make_repo(files)


def start_update(repo: Repo) -> subprocess.Popen[bytes]:
    # Its own process group: what the run started can be found after its main process died.
    return subprocess.Popen(
        [sys.executable, "-m", "kgtool", "update", "--quiet"],
        cwd=repo.root,
        env={**os.environ, **GIT_ENV, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def live_in_group(group: int) -> list[int]:
    """Processes of a process group that still run (zombies excluded: they hold nothing)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def wait_group_gone(group: int, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (alive := live_in_group(group)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def stray_temps(repo: Repo) -> list[str]:
    return sorted(p.name for p in (repo.root / ".kg").rglob("*.tmp"))


def assert_lock_free(repo: Repo, where: str) -> None:
    """The lock is free at once: nothing left by the killed run holds it. Asked directly, not
    by timing the next run, which on a loaded machine can be slow for other reasons."""
    try:
        with Store(repo.root).lock(timeout=0):
            pass
    except LockTimeout as error:
        raise AssertionError(f"{where}: a dead run's lock is still held: {error}") from None


def kill_then_recover(repo: Repo, sig: int, delay: float, clean: dict[str, bytes], where: str):
    process = start_update(repo)
    time.sleep(delay)
    os.kill(process.pid, sig)  # the main process only, as a CI cancel or a hook timeout does
    process.wait(timeout=30)
    left = wait_group_gone(process.pid)
    if left:  # end them, or they would hold the stderr pipe (and more) open for ever
        os.killpg(process.pid, signal.SIGKILL)
    assert not left, f"{where}: workers {left} outlived their killed parent"
    assert process.stderr is not None
    err = process.stderr.read().decode()
    process.stderr.close()
    assert "Traceback" not in err, (where, err)
    assert_lock_free(repo, where)
    recovered = repo.kg("update")
    assert recovered.code == 0, (where, recovered.err)
    assert stray_temps(repo) == [], where
    assert repo.kg_bytes() == clean, f"{where}: not the bytes of a clean build"


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["KILL", "TERM"])
def test_cold_build_killed_anywhere_recovers(make_repo, sig: int) -> None:
    repo = big_repo(make_repo)
    clean = repo.clean_build()
    rng = random.Random(f"{SEED}-cold-{sig}")
    for trial in range(TRIALS):
        shutil.rmtree(repo.root / ".kg", ignore_errors=True)
        delay = rng.uniform(0.0, LONGEST_KILL_DELAY)
        where = f"seed {SEED}, cold, signal {sig}, trial {trial}, kill after {delay:.3f}s"
        kill_then_recover(repo, sig, delay, clean, where)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["KILL", "TERM"])
def test_incremental_update_killed_anywhere_recovers(make_repo, sig: int) -> None:
    repo = big_repo(make_repo)
    assert repo.kg("update").code == 0
    before = repo.root.parent / "kg-before"
    shutil.copytree(repo.root / ".kg", before)
    rng = random.Random(f"{SEED}-incremental-{sig}")
    # Enough files change that parsing and resolution both go to the workers.
    for i in sorted(rng.sample(range(MODULES), 80)):
        repo.write(f"pkg/m{i}.py", module(i, variant=1))
    repo.git("add", "-A")
    clean = repo.clean_build()
    for trial in range(TRIALS):
        shutil.rmtree(repo.root / ".kg")
        shutil.copytree(before, repo.root / ".kg")
        delay = rng.uniform(0.0, LONGEST_KILL_DELAY * 0.8)
        where = f"seed {SEED}, incremental, signal {sig}, trial {trial}, kill after {delay:.3f}s"
        kill_then_recover(repo, sig, delay, clean, where)


@pytest.mark.slow
def test_concurrent_runs_serialise(make_repo) -> None:
    repo = big_repo(make_repo)
    runs = [start_update(repo) for _ in range(CONCURRENT)]
    for run in runs:
        assert run.wait(timeout=60) == 0, run.stderr.read().decode() if run.stderr else ""
        if run.stderr:
            run.stderr.close()
    assert stray_temps(repo) == []
    assert repo.kg_bytes() == repo.clean_build()


HOLD_THEN_FORK = """
import os, sys, time
from pathlib import Path
from kgtool.store import Store
with Store(Path(sys.argv[1])).lock():
    if os.fork() == 0:  # a child that outlives its parent, as a stuck worker would
        time.sleep(30)
        os._exit(0)
    print("held", flush=True)
    time.sleep(30)
"""


def test_lock_of_a_dead_holder_is_taken_over(make_repo) -> None:
    repo = make_repo({"a.py": "x = 1\n"})
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THEN_FORK, str(repo.root)],
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        assert live_in_group(holder.pid), "the forked child should still be alive"
        assert_lock_free(repo, "holder killed, its child alive")
        result = repo.kg("update")
        assert result.code == 0, result.err
    finally:
        if holder.stdout:
            holder.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(holder.pid, signal.SIGKILL)
