"""Nothing a commit carries can pose as kgtool's cache, and a check judges .kg/raw/ by what its
shards hold, not by their stat.

The cache lives in the git directory, where no checkout writes; files a pull request commits
under .kg/cache/ (where an older kgtool kept it) are never read, and named in one error. A
shard edited in place with its old size and mtime is still seen to differ."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import GIT_ENV, Repo

from kgtool.config import load_config
from kgtool.raw import cache
from kgtool.raw.build import cache_key
from kgtool.repo import listing
from kgtool.store import KG_DIR, Store

APP = {
    "app/__init__.py": "",
    "app/store.py": "class Store:\n    def save(self):\n        return 1\n",
    "app/cli.py": "from app.store import Store\n\n\ndef main():\n    Store().save()\n",
}


def committed_map(make_repo: Callable[..., Repo]) -> Repo:
    repo = make_repo(APP, commit=False)
    repo.git("add", "-A")
    assert repo.kg("update").code == 0
    repo.commit("app with its map")
    return repo


def clone(repo: Repo, where: Path) -> Repo:
    """A fresh clone, as CI checks a pull request out: no local cache of its own."""
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "clone", "-q", str(repo.root), str(where)], check=True, env=env)
    return Repo(where)


def forge_cache(repo: Repo) -> None:
    """What the hostile pull request commits: the cache of the map it did not refresh, its
    manifest vouching for the index as the commit leaves it (the listing fingerprint that
    lets a run skip reading any file), in .kg/cache/ where an older kgtool kept its cache."""
    config = load_config(repo.root)
    forged = Store(repo.root, cache_dir=repo.root / KG_DIR / "cache")
    honest = Store(repo.root)
    for source in honest.cache_dir.iterdir():
        (forged.cache_dir).mkdir(parents=True, exist_ok=True)
        (forged.cache_dir / source.name).write_bytes(source.read_bytes())
    repo.git("add", "-A")  # the index the check will see, .kg/ apart
    manifest = cache.load_manifest(forged, cache_key(config))
    assert manifest is not None
    manifest.listing = listing(repo.root).fingerprint(KG_DIR)
    manifest.save(forged)
    repo.git("add", "-f", f"{KG_DIR}/cache")


def test_a_forged_cache_in_a_pull_request_cannot_pass_a_stale_map(
    make_repo: Callable[..., Repo], tmp_path: Path
) -> None:
    repo = committed_map(make_repo)
    # The change: code edited, .kg/ left as it was, and the cache forged to say it is fresh.
    repo.write("app/store.py", APP["app/store.py"] + "\n\ndef load():\n    return Store()\n")
    forge_cache(repo)
    repo.git("commit", "-q", "-m", "stale map with a forged cache")

    fresh = clone(repo, tmp_path / "ci")
    for argv in (["check"], ["update", "--check"], ["ci"]):
        result = fresh.kg(*argv)
        assert result.code == 1, (argv, result.out, result.err)
        assert "R101" in result.out, (argv, result.out)  # layer 1 is found stale
    checked = fresh.kg("check")
    tracked = [line for line in checked.out.splitlines() if "R108" in line]
    assert len(tracked) == 1, checked.out  # one finding for the whole folder
    assert tracked[0].startswith(".kg/cache/")
    assert "git rm -r --cached .kg/cache" in tracked[0]
    # Nothing read it, and nothing was written beside it.
    assert fresh.git("status", "--porcelain") == ""


def test_removing_the_tracked_cache_clears_the_finding(make_repo: Callable[..., Repo]) -> None:
    repo = committed_map(make_repo)
    forge_cache(repo)
    repo.git("commit", "-q", "-m", "cache committed by mistake")
    assert "R108" in repo.kg("check").out
    update = repo.kg("update")
    assert "R108" in update.out  # an update names it too (and does not remove it)
    assert (repo.root / KG_DIR / "cache").is_dir()
    repo.git("rm", "-r", "-q", "--cached", f"{KG_DIR}/cache")
    repo.git("commit", "-q", "-m", "drop the cache")
    checked = repo.kg("check")
    assert checked.code == 0 and "R108" not in checked.out, checked.out
    # Untracked now, the old folder is only disk: the next update removes it.
    assert repo.kg("update").code == 0
    assert not (repo.root / KG_DIR / "cache").exists()


def test_a_shard_edited_in_place_with_its_mtime_restored_is_stale(
    make_repo: Callable[..., Repo],
) -> None:
    repo = committed_map(make_repo)
    shard = repo.root / KG_DIR / "raw" / "app.jsonl"
    before = shard.read_bytes()
    old = os.stat(shard)
    assert b'"spans":[[1,3]' in before  # the file's node keeps its symbols' lines
    # The same size, the same mtime: only the content (and the ctime, which no tool sets
    # back) says it changed.
    shard.write_bytes(before.replace(b'"spans":[[1,3]', b'"spans":[[2,3]', 1))
    os.utime(shard, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert os.stat(shard).st_size == old.st_size

    for argv in (["update", "--check"], ["check"]):
        result = repo.kg(*argv)
        assert result.code == 1, (argv, result.out)
        assert "R101" in result.out
    assert repo.kg("update").code == 0  # the run that writes puts the shard back
    assert shard.read_bytes() == before
