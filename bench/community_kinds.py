"""What a map's communities are made of: code and data communities, their sizes, and the
largest code community's share of its package's code.

    python -m kgtool -C /path/to/repo update
    python bench/community_kinds.py /path/to/repo [/path/to/other ...]

Per repository, from its .kg/communities.json: files mapped; communities by kind (code,
data) and data's share of all; data communities of one or two files; the largest code
community, as a share of the code files of the package it lies in (the package roots the
document records; "" is the repository outside every root), with that package's size, among
packages of at least 20 code files, and among those over the document's ``max_share_above``
(the packages whose communities are held to ``max_share``); code communities of one file.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kgtool.communities.cluster import package_of
from kgtool.communities.packages import is_code


def describe(repo: Path) -> str:
    document = json.loads((repo / ".kg" / "communities.json").read_text())
    communities = document["communities"]
    boundaries = document["settings"].get("boundaries") or []
    kinds = Counter(c["kind"] for c in communities.values())
    data = [c for c in communities.values() if c["kind"] == "data"]
    data_small = sum(1 for c in data if len(c["members"]) <= 2)
    code_files: Counter[str] = Counter()
    for community in communities.values():
        for path in community["members"]:
            if is_code(path):
                code_files[package_of(path, boundaries)] += 1
    largest = ("", 0.0, 0, 0)  # id, share, size, package size
    held = ("", 0.0, 0, 0)  # the same, in packages over max_share_above
    above = document["settings"].get("max_share_above")
    singles = 0
    for cid, community in sorted(communities.items()):
        if community["kind"] != "code":
            continue
        members = [p for p in community["members"] if is_code(p)]
        singles += len(community["members"]) == 1
        if not members:
            continue
        package = package_of(members[0], boundaries)
        share = len(members) / code_files[package] if code_files[package] else 0.0
        if share > largest[1] and code_files[package] >= 20:
            largest = (cid, share, len(members), code_files[package])
        if above is not None and code_files[package] > above and share > held[1]:
            held = (cid, share, len(members), code_files[package])
    total = len(communities)
    return (
        f"{repo.name}: {sum(len(c['members']) for c in communities.values())} files, "
        f"{total} communities ({kinds['code']} code, {kinds['data']} data: "
        f"{kinds['data'] / total:.0%}); data of 1-2 files {data_small}; code of 1 file "
        f"{singles}; largest code {largest[0]} {largest[2]} of its package's {largest[3]} "
        f"code files ({largest[1]:.0%})"
        + (
            f"; in packages over {above}: {held[0]} {held[2]} of {held[3]} ({held[1]:.0%})"
            if held[0]
            else ""
        )
    )


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for name in sys.argv[1:]:
        print(describe(Path(name)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
