"""Files with no edges, grouped along the folder tree: one group per folder that is big enough
to stand alone, small subfolders kept with their parent's files (README, loose_group_share)."""

from __future__ import annotations

from collections.abc import Callable

from communities_helpers import clique, members, update
from conftest import Repo


def test_a_docs_tree_becomes_one_group_per_big_folder(make_repo: Callable[..., Repo]) -> None:
    guide = {f"docs/guide/g{n:02}.md": f"# guide {n}\n" for n in range(12)}
    api = {f"docs/api/a{n:02}.md": f"# api {n}\n" for n in range(12)}
    small = {
        "docs/index.md": "# docs\n",
        "docs/faq.md": "# faq\n",
        "docs/tiny/t1.md": "# t1\n",
        "docs/tiny/t2.md": "# t2\n",
    }
    repo = make_repo({**clique("alpha", ["a0", "a1", "a2", "a3"]), **guide, **api, **small})
    update(repo)
    # 32 files: at most max(10, 5% of 32) loose files per group. docs/ has 28, so it keeps its
    # own two files plus docs/tiny/ (under 10 files) and hands docs/api/ and docs/guide/ on.
    assert sorted(sorted(m) for m in members(repo).values()) == [
        [f"alpha/a{n}.py" for n in range(4)],
        sorted(api),
        ["docs/faq.md", "docs/index.md", "docs/tiny/t1.md", "docs/tiny/t2.md"],
        sorted(guide),
    ]
