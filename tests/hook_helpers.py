"""What the hook tests share: a mapped repository, a partly staged edit, and how to tell
that a commit's .kg/ describes the commit."""

from __future__ import annotations

from conftest import Repo

from kgtool.raw.graph import records

APP = "def main():\n    helper()\n\n\ndef helper():\n    pass\n"


def mapped_repo(repo: Repo) -> Repo:
    """A repository whose code and .kg/ are committed and fresh."""
    repo.build({"app.py": APP})
    repo.commit("graph")
    return repo


def partially_stage(repo: Repo) -> None:
    """app.py gains f() in the index and, on top, g() in the working tree only."""
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n")
    repo.git("add", "app.py")
    repo.write("app.py", APP + "\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n")


def node_ids(shard: str | bytes) -> set[str]:
    """The whole ID of every node in a shard of layer 1 (a shard writes a symbol's ID
    without its file's path)."""
    data = shard.encode() if isinstance(shard, str) else shard
    return {record["id"] for record in records(data) if record["rec"] == "node"}


def symbols(shard: str | bytes) -> set[str]:
    """The symbols of app.py in a shard of layer 1 (app.py is in _root.jsonl)."""
    return {node[len("app.py::") :] for node in node_ids(shard) if node.startswith("app.py::")}


def committed_kg_is_fresh(repo: Repo) -> bool:
    """HEAD's .kg/ is what kgtool builds from HEAD's files (checked in a clean checkout)."""
    checkout = repo.root.parent / f"head-{repo.root.name}"
    repo.git("worktree", "add", "--detach", "-q", str(checkout), "HEAD")
    try:
        return Repo(checkout).kg("update", "--check").code == 0
    finally:
        repo.git("worktree", "remove", "--force", str(checkout))
