from __future__ import annotations

import json
from collections.abc import Callable

from communities_helpers import clique, community_of, update
from conftest import Repo

BIG = [f"s{i}" for i in range(7)]
SEA = [f"sea.c{i}.sea_c{i}" for i in range(4)]
BEE = [f"bee.b{i}.bee_b{i}" for i in range(4)]


def before() -> dict:
    return {
        **clique("big", BIG),
        **clique("bee", ["b0", "b1", "b2", "b3"]),
        **clique("sea", ["c0", "c1", "c2", "c3"]),
        **clique("dee", ["d0", "d1", "d2", "d3"], {"d0": ["dee.mover.mover"]}),
        "dee/mover.py": "from dee.d1 import dee_d1\ndef mover():\n    dee_d1()\n",
    }


def after() -> dict:
    files = {
        **clique("big", BIG[:4]),
        **clique("big", BIG[4:]),  # split: big falls apart 4 + 3
        **clique("dee", ["d0", "d1", "d2", "d3"]),
        # merge: every bee file calls every sea function
        **clique("bee", ["b0", "b1", "b2", "b3"], {f"b{i}": SEA for i in range(4)}),
        **clique("sea", ["c0", "c1", "c2", "c3"], {f"c{i}": BEE for i in range(4)}),
        # moved: mover now belongs with sea/bee
        "dee/mover.py": "from sea.c1 import sea_c1\nfrom bee.b2 import bee_b2\n"
        "def mover():\n    sea_c1()\n    bee_b2()\n",
    }
    files["sea/c2.py"] = "from dee.mover import mover\n" + files["sea/c2.py"].replace(
        "    return 1", "    mover()\n    return 1"
    )
    return files


def scripted(make_repo: Callable[..., Repo], commit_kg: bool) -> tuple[Repo, dict]:
    repo = make_repo(before(), commit=False)
    repo.git("add", "-A")
    update(repo)
    ids = {
        "big": community_of(repo, "big/s0.py"),
        "bee": community_of(repo, "bee/b0.py"),
        "sea": community_of(repo, "sea/c0.py"),
        "dee": community_of(repo, "dee/d0.py"),
    }
    assert len(set(ids.values())) == 4
    assert community_of(repo, "dee/mover.py") == ids["dee"]
    if not commit_kg:
        repo.write(".gitignore", ".kg/\n")
    repo.commit("base")
    repo.git("branch", "base")
    repo.write_files(after())
    repo.git("add", "-A")
    update(repo)
    repo.commit("head")
    return repo, ids


def check_report(report: dict, ids: dict) -> None:
    assert len(report["split"]) == 1
    split = report["split"][0]
    assert split["from"] == ids["big"]
    assert split["files"] == ["big/s4.py", "big/s5.py", "big/s6.py"]
    assert len(report["merged"]) == 1
    merged = report["merged"][0]
    assert {merged["from"], merged["into"]} == {ids["bee"], ids["sea"]}
    assert report["moved"] == [{"file": "dee/mover.py", "from": ids["dee"], "to": merged["into"]}]
    assert report["created"] == [] and report["retired"] == []
    assert report["files_added"] == [] and report["files_removed"] == []


def test_diff_of_committed_maps_reports_exactly_the_split_merge_and_move(
    make_repo: Callable[..., Repo],
) -> None:
    repo, ids = scripted(make_repo, commit_kg=True)
    result = repo.kg("diff", "base", "HEAD", "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    check_report(report, ids)
    text = repo.kg("diff", "base", "HEAD").out
    assert f"split off {ids['big']}" in text and "moved: dee/mover.py" in text
    markdown = repo.kg("diff", "base", "HEAD", "--format", "markdown").out
    assert "```mermaid" in markdown and f"{ids['big']} -.->|split|" in markdown


def test_diff_builds_revisions_without_a_map_in_temporary_worktrees(
    make_repo: Callable[..., Repo],
) -> None:
    repo, _ = scripted(make_repo, commit_kg=False)
    # Neither revision has .kg committed: both sides are built in worktrees and removed.
    result = repo.kg("diff", "base", "HEAD", "--format", "json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert [s["files"] for s in report["split"]] == [["big/s4.py", "big/s5.py", "big/s6.py"]]
    assert len(report["merged"]) == 1 and len(report["moved"]) == 1
    assert report["moved"][0]["file"] == "dee/mover.py"
    assert report["created"] == [] and report["retired"] == []
    assert repo.git("worktree", "list").count("\n") == 1


def test_diff_defaults_to_merge_base_and_working_tree(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(before())
    update(repo)
    repo.commit("map")
    unchanged = repo.kg("diff")
    assert unchanged.code == 0, unchanged.err
    assert "no architectural change" in unchanged.out
    repo.write("dee/extra.py", "x = 1\n")
    repo.git("add", "dee/extra.py")  # the map covers tracked files only
    out = repo.kg("diff").out
    assert "working tree" in out and "(+1 -0)" in out
    assert repo.kg("diff", "no-such-rev").code == 2


def test_a_name_in_the_summary_graph_cannot_break_out_of_its_label(
    make_repo: Callable[..., Repo],
) -> None:
    """The pull-request summary's graph holds names a pull request can write (labels in
    .kg/ontology.yaml): they are labels of the same plain alphabet as the map's picture."""
    from kgtool.communities.diff import render_markdown

    repo, ids = scripted(make_repo, commit_kg=True)
    report = json.loads(repo.kg("diff", "base", "HEAD", "--format", "json").out)
    report["names"][ids["big"]] = 'x"] --> evil["<b>#quot;</b> direction LR `tick`'
    graph = render_markdown(report, "base", "HEAD").split("```mermaid")[1]
    line = next(line for line in graph.splitlines() if line.startswith(f"  {ids['big']}["))
    label = line.split('["', 1)[1].removesuffix('"]')
    assert not set(label) & set('"[]<>#`') and "direction LR" not in label


APP_FILES = {
    "app/__init__.py": "",
    "app/store.py": "def save(record):\n    return record\n\n\ndef load(key):\n    return key\n",
    "app/api.py": "from app.store import load, save\n\n\ndef run(x):\n    return save(load(x))\n",
    "app/cli.py": "from app.api import run\n\n\ndef main():\n    return run(1)\n",
    "docs/old.md": "# Old notes\n\nNothing here any more.\n",
    "docs/guide.md": "# Guide\n\nRun the app: `python -m app`.\n",
}


def test_diff_says_where_renamed_new_and_removed_files_went(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(APP_FILES)
    update(repo)
    repo.commit("map")
    home = community_of(repo, "app/store.py")
    repo.git("mv", "app/store.py", "app/storage.py")
    repo.write("app/api.py", APP_FILES["app/api.py"].replace("app.store", "app.storage"))
    repo.write(
        "app/retry.py", "from app.api import handle\n\n\ndef again(r):\n    return handle(r)\n"
    )
    repo.write("app/backoff.py", "from app.api import run\n\n\ndef later(r):\n    return run(r)\n")
    repo.git("rm", "-q", "docs/old.md")
    repo.git("add", "-A")
    update(repo)
    repo.commit("rename, add, remove")
    assert community_of(repo, "app/storage.py") == home == community_of(repo, "app/retry.py")
    assert community_of(repo, "app/backoff.py") == home
    docs = json.loads(repo.git("show", "HEAD~1:.kg/communities.json"))["files"]["docs/old.md"]
    result = repo.kg("diff", "HEAD~1", "HEAD")
    assert result.code == 0, result.err
    lines = [line.strip() for line in result.out.splitlines()]
    name = next(line for line in lines if line.startswith("renamed: ")).split("stays in ")[1]
    assert name.startswith(f"{home} (") and name.endswith(")")  # named, never a bare ID
    assert f"renamed: app/store.py → app/storage.py, stays in {name}" in lines
    assert f"new: 2 files join {name}: app/backoff.py, app/retry.py" in lines
    assert any(line.startswith(f"removed: docs/old.md left {docs} (") for line in lines)
    # The pull-request summary says the same, as markdown.
    summary = repo.kg("diff", "HEAD~1", "HEAD", "--format", "markdown").out
    assert "- renamed: app/store.py → app/storage.py, stays in " in summary
    assert "- new: 2 files join " in summary
    report = json.loads(repo.kg("diff", "HEAD~1", "HEAD", "--format", "json").out)
    assert report["renamed"] == [
        {"from": "app/store.py", "to": "app/storage.py", "was_in": home, "is_in": home}
    ]
    assert report["joined"] == [{"community": home, "files": ["app/backoff.py", "app/retry.py"]}]
