"""Areas, the level above communities: packages, or groups of communities Leiden finds on the
community graph; their IDs by the community rules (warm start, Jaccard, never reused, lineage).
Real git repositories, real tree-sitter, real Leiden."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from communities_helpers import clique, communities, update
from conftest import Repo

from kgtool.communities.identity import assign_ids

PYPROJECT = "[project]\nname = '{name}'\n"


def linked_cliques(groups: int, per_group: int) -> dict[str, str]:
    """``groups`` rings of ``per_group`` cliques (four files each, one community each): each
    clique calls the next one of its ring once, rings never meet, so the community graph has
    ``groups`` clear areas."""
    files: dict[str, str] = {}
    for g in range(groups):
        names = [f"g{g}m{m}" for m in range(per_group)]
        for m, name in enumerate(names):
            following = names[(m + 1) % per_group]
            calls = {"f1": [f"{following}.f0.{following}_f0"]}
            files.update(clique(name, ["f0", "f1", "f2", "f3"], calls))
    return files


def code_areas(repo: Repo) -> dict[str, list[str]]:
    """Area ID -> its code communities."""
    return {aid: area["communities"] for aid, area in communities(repo)["areas"].items()}


def area_of_file(repo: Repo) -> dict[str, str]:
    document = communities(repo)
    return {
        path: document["communities"][cid]["area"]
        for path, cid in document["files"].items()
        if "area" in document["communities"][cid]
    }


def test_a_workspace_repository_has_one_area_per_package(make_repo: Callable[..., Repo]) -> None:
    files: dict[str, str] = {}
    for name in ("alpha", "beta", "gamma"):
        files[f"{name}/pyproject.toml"] = PYPROJECT.format(name=name)
        files.update(clique(name, ["a", "b", "c"], {"a": ["beta.a.beta_a"]}))
    files.update(clique("tools", ["x", "y"]))
    repo = make_repo(files)
    update(repo)
    document = communities(repo)
    assert document["format"] == 3
    by_package = {area["package"]: area for area in document["areas"].values()}
    assert sorted(by_package) == ["", "alpha", "beta", "gamma"]
    for package, area in by_package.items():
        members = [
            p for cid in area["communities"] for p in document["communities"][cid]["members"]
        ]
        prefix = f"{package}/" if package else "tools/"
        assert members and all(p.startswith(prefix) for p in members), (package, members)
    code = [cid for cid, c in document["communities"].items() if c["kind"] == "code"]
    assert sorted(cid for a in document["areas"].values() for cid in a["communities"]) == sorted(
        code
    )
    text = (repo.root / ".kg" / "MAP.md").read_text()
    assert "**A" in text and "(package `beta`, 1 community)" in text


def test_a_large_package_is_cut_into_areas_leiden_finds(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(linked_cliques(groups=4, per_group=4))
    update(repo)
    document = communities(repo)
    code = [c for c in document["communities"].values() if c["kind"] == "code"]
    assert len(code) == 16
    groups = sorted(
        sorted({p.split("/")[0][:2] for cid in a["communities"] for p in members_of(repo, cid)})
        for a in document["areas"].values()
    )
    assert groups == [["g0"], ["g1"], ["g2"], ["g3"]]  # one area per group of cliques


def members_of(repo: Repo, cid: str) -> list[str]:
    return communities(repo)["communities"][cid]["members"]


def test_area_ids_survive_an_unrelated_edit(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(linked_cliques(groups=4, per_group=4))
    update(repo)
    before = communities(repo)
    repo.write(
        "g2m1/f1.py", (repo.root / "g2m1/f1.py").read_text() + "\n\ndef extra():\n    return 2\n"
    )
    repo.commit("an unrelated edit")
    update(repo)
    after = communities(repo)
    assert after["areas"] == before["areas"]
    assert after["next_area_id"] == before["next_area_id"]


def test_a_package_added_splits_its_area_and_removed_merges_it_back(
    make_repo: Callable[..., Repo],
) -> None:
    files = {"app/pyproject.toml": PYPROJECT.format(name="app")}
    for name in ("core", "plug"):
        files.update(
            {
                f"app/{k}": v
                for k, v in clique(name, ["a", "b", "c"], {"a": ["core.b.core_b"]}).items()
            }
        )
    repo = make_repo(files)
    update(repo)
    (whole,) = communities(repo)["areas"]
    # app/plug becomes a package of its own: its files leave the app area for a new one.
    repo.write("app/plug/pyproject.toml", PYPROJECT.format(name="plug"))
    repo.commit("plug is a package")
    update(repo)
    document = communities(repo)
    areas = document["areas"]
    assert len(areas) == 2 and whole in areas
    (fresh,) = set(areas) - {whole}
    assert areas[fresh]["package"] == "app/plug" and areas[whole]["package"] == "app"
    assert areas[fresh]["split_from"] == whole
    assert int(fresh[1:]) == int(whole[1:]) + 1 and document["next_area_id"] == int(fresh[1:]) + 1
    # Removed again: the two areas merge, the larger keeps its ID, the other is retired.
    (repo.root / "app/plug/pyproject.toml").unlink()
    repo.commit("plug is part of app again")
    update(repo)
    document = communities(repo)
    assert list(document["areas"]) == [whole]
    assert document["retired_areas"] == {fresh: {"merged_into": whole}}
    # A retired ID is never handed out again.
    repo.write("app/plug/pyproject.toml", PYPROJECT.format(name="plug"))
    repo.commit("plug is a package again")
    update(repo)
    document = communities(repo)
    (again,) = set(document["areas"]) - {whole}
    assert again not in (whole, fresh) and int(again[1:]) > int(fresh[1:])


def test_area_ids_follow_the_community_rules() -> None:
    # The same matching as communities, with the area prefix and counter: a split keeps the ID
    # on its largest part, the other part records where it came from; a merge keeps the best
    # match and retires the other into it.
    old = {"A1": [f"a{n}.py" for n in range(6)], "A2": ["z1.py", "z2.py"]}
    split = assign_ids(
        [[f"a{n}.py" for n in range(4)], ["a4.py", "a5.py"], ["z1.py", "z2.py"]],
        old,
        next_id=3,
        min_overlap=0.5,
        prefix="A",
    )
    assert split.ids == {
        "A1": ["a0.py", "a1.py", "a2.py", "a3.py"],
        "A3": ["a4.py", "a5.py"],
        "A2": ["z1.py", "z2.py"],
    }
    assert split.split_from == {"A3": "A1"} and split.next_id == 4
    merged = assign_ids(
        [sorted(old["A1"] + old["A2"])], old, next_id=3, min_overlap=0.5, prefix="A"
    )
    assert list(merged.ids) == ["A1"] and merged.merged_into == {"A2": "A1"}


def test_a_map_without_areas_gains_them_on_the_next_update(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(linked_cliques(groups=4, per_group=4))
    update(repo)
    path = repo.root / ".kg" / "communities.json"
    current = json.loads(path.read_text())
    # The map as the previous format wrote it: no areas anywhere.
    old = {k: v for k, v in current.items() if k not in ("areas", "next_area_id", "retired_areas")}
    old["format"] = 2
    for community in old["communities"].values():
        community.pop("area", None)
    path.write_text(json.dumps(old, indent=2, sort_keys=True) + "\n")
    repo.commit("the map before areas")
    out = update(repo)
    assert "areas: 4 areas formed over 16 code communities" in out
    assert len([line for line in out.splitlines() if "areas formed" in line]) == 1
    migrated = communities(repo)
    assert migrated["format"] == 3
    assert migrated["files"] == old["files"]  # community IDs unchanged
    assert {k: v["members"] for k, v in migrated["communities"].items()} == {
        k: v["members"] for k, v in old["communities"].items()
    }
    assert migrated["areas"] == current["areas"]
    assert "areas formed" not in update(repo)  # said once


def test_two_runs_write_the_same_bytes(make_repo: Callable[..., Repo]) -> None:
    files = linked_cliques(groups=3, per_group=5)
    files["docs/guide.md"] = "# Guide\n"
    first = make_repo(files)
    update(first)
    once = first.kg_bytes()
    assert first.clean_build() == once
    names = ["communities.json", "MAP.md"]
    assert all(name in once for name in names)


def test_the_map_lists_each_code_community_under_exactly_one_area(
    make_repo: Callable[..., Repo],
) -> None:
    files = linked_cliques(groups=4, per_group=4)
    files["docs/guide.md"] = "# Guide\n"
    repo = make_repo(files)
    update(repo)
    document = communities(repo)
    text = (repo.root / ".kg" / "MAP.md").read_text()
    table, _, folded = text.partition("## Docs and data")
    under: dict[str, str] = {}
    area = None
    for line in table.splitlines():
        heading = re.match(r"\| \*\*(A[0-9]+) · ", line)
        row = re.match(r"\| \[(c[0-9]+) · ", line)
        if heading:
            area = heading.group(1)
        elif row:
            assert row.group(1) not in under, row.group(1)
            under[row.group(1)] = area
    code = {cid: c["area"] for cid, c in document["communities"].items() if c["kind"] == "code"}
    assert under == code
    data = [cid for cid, c in document["communities"].items() if c["kind"] == "data"]
    assert data and all(f"[{cid} · " in folded for cid in data)
    page = (repo.root / ".kg" / "communities" / f"{next(iter(code))}.md").read_text()
    assert f"Area: {code[next(iter(code))]} · " in page


def test_diff_reports_area_changes_beside_community_changes(
    make_repo: Callable[..., Repo],
) -> None:
    files = {"app/pyproject.toml": PYPROJECT.format(name="app")}
    for name in ("core", "plug"):
        calls = {"a": ["core.b.core_b"]}
        files.update({f"app/{k}": v for k, v in clique(name, ["a", "b", "c"], calls).items()})
    repo = make_repo(files)
    update(repo)
    repo.commit("the map")
    (whole,) = communities(repo)["areas"]
    repo.write("app/plug/pyproject.toml", PYPROJECT.format(name="plug"))
    repo.commit("plug is a package")
    result = repo.kg("diff", "HEAD")
    assert result.code == 0, result.err
    assert "1 -> 2 areas" in result.out
    split = [line for line in result.out.splitlines() if "area split:" in line]
    assert len(split) == 1 and f"split off {whole} (" in split[0], result.out
    report = json.loads(repo.kg("diff", "HEAD", "--format", "json").out)
    assert report["areas"]["split"][0]["from"] == whole
    assert report["areas"]["created"] == [] and report["areas"]["retired"] == []


def test_a_new_community_joins_the_area_it_is_coupled_to(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(linked_cliques(groups=4, per_group=4))
    update(repo)
    before = communities(repo)
    home = area_of_file(repo)["g1m0/f0.py"]
    # A new clique that calls into g1's ring: a new community, placed in g1's area.
    repo.write_files(clique("g1new", ["f0", "f1", "f2", "f3"], {"f1": ["g1m0.f0.g1m0_f0"]}))
    repo.commit("a new module beside g1")
    update(repo)
    after = communities(repo)
    new = after["files"]["g1new/f0.py"]
    assert new not in before["communities"]
    assert after["communities"][new]["area"] == home
    for aid, area in before["areas"].items():
        extra = [new] if aid == home else []
        assert after["areas"][aid]["communities"] == sorted(
            area["communities"] + extra, key=lambda cid: int(cid[1:])
        )


def test_example_packages_of_a_file_or_two_share_one_area(make_repo: Callable[..., Repo]) -> None:
    files: dict[str, str] = {"core/pyproject.toml": PYPROJECT.format(name="core")}
    files.update(clique("core", ["a", "b", "c"]))
    for name in ("first", "second", "third"):  # five one-file examples in the monorepo
        files[f"examples/{name}/pyproject.toml"] = PYPROJECT.format(name=name)
        files[f"examples/{name}/main.py"] = "print('hi')\n"
    repo = make_repo(files)
    update(repo)
    places = sorted(area["package"] for area in communities(repo)["areas"].values())
    assert places == ["core", "examples"], places


def test_tiny_packages_at_the_top_keep_an_area_each(make_repo: Callable[..., Repo]) -> None:
    # cli/ and web/ hold one file each, but at the top: nothing but the repository holds
    # them both, and an area "outside packages" beside the root's would say so wrongly.
    files: dict[str, str] = {"core/pyproject.toml": PYPROJECT.format(name="core")}
    files.update(clique("core", ["a", "b", "c"]))
    for name in ("cli", "web"):
        files[f"{name}/pyproject.toml"] = PYPROJECT.format(name=name)
        files[f"{name}/main.py"] = "print('hi')\n"
    repo = make_repo(files)
    update(repo)
    places = sorted(area["package"] for area in communities(repo)["areas"].values())
    assert places == ["cli", "core", "web"], places
