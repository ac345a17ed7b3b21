"""Does real Mermaid draw every picture kgtool writes? Collects the Mermaid blocks of MAP.md
and every community page of the given repositories (mapped with ``kgtool update``), and
hostile ones made from names a pull request could write, into one JSON file for
bench/mermaid_parse.mjs:

    python bench/mermaid_check.py blocks.json /path/to/repo [/path/to/other ...]
    (cd /tmp/mm && npm install mermaid jsdom) && cp bench/mermaid_parse.mjs /tmp/mm/
    node /tmp/mm/mermaid_parse.mjs blocks.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kgtool.ontology.diagram import MAX_NODES, flowchart

BLOCK = re.compile(r"```mermaid\n(.*?)\n```", re.S)
HOSTILE = [
    'x"] --> evil["<script>alert(1)</script>\n```\n#quot; `tick`',
    "",
    "end",
    "subgraph",
    "style c1 fill:#f00",
    "click c1 href 'javascript:alert(1)'",
    "%%{init: {'securityLevel':'loose'}}%%",
    "Layout: direction LR parser",
    "graph TD",
    "a -- b --> c",
    "x | y",
    "@{ shape: rect }",
    "日本語のモジュール名",
    "x" * 80,
]


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    blocks: list[list[str]] = []
    for repo in sys.argv[2:]:
        kg = Path(repo) / ".kg"
        for page in [kg / "MAP.md", *sorted((kg / "communities").glob("*.md"))]:
            for found in BLOCK.finditer(page.read_text(encoding="utf-8")):
                blocks.append([str(page), found.group(1)])
    for number, name in enumerate(HOSTILE):
        nodes = [("c1", name, 3), ("c2", name, 2), ("A3", name, 1)]
        lines = flowchart(nodes, {("c1", "c2"): {"calls": {"EXTRACTED": 1}}})
        blocks.append([f"hostile {number}", "\n".join(lines[1:-1])])
    many = [(f"c{n}", f"community {n}", 100 - n) for n in range(1, MAX_NODES + 6)]
    lines = flowchart(many, {("c1", f"c{MAX_NODES + 2}"): {"calls": {"EXTRACTED": 3}}})
    blocks.append(["folded", "\n".join(lines[1:-1])])
    Path(sys.argv[1]).write_text(json.dumps(blocks), encoding="utf-8")
    print(f"{len(blocks)} blocks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
