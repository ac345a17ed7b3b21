"""MAP.md opens with a picture: a Mermaid flowchart of the areas (or of the largest code
communities on a map of one area), small, deterministic, and safe to draw whatever the
repository names its files."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from communities_helpers import update
from conftest import Repo
from test_communities_guards import ring_of_triangles
from test_communities_packages import two_tangled_packages

from kgtool.ontology.diagram import MAX_NODES, flowchart, label_text

# The subset of Mermaid the map emits, line by line: anything else is a bug. A label holds
# only what ``label_text`` lets through, and never a directive Mermaid's lexer would take.
LABEL = r"[\w .,:;()/'+·×…-]*"
FILES = r"<br/>\d+ files?"
ARROW = r"(?:probably |maybe )?[a-z]+ ×\d+(?:, [a-z]+ ×\d+)*"
GRAMMAR = [
    re.compile(r"^```mermaid$"),
    re.compile(r"^flowchart LR$"),
    re.compile(rf'^  (?:[Ac]\d+|more)\["{LABEL}(?:{FILES})?"\]$'),
    re.compile(rf'^  (?:[Ac]\d+|more) -->\|"{ARROW}"\| (?:[Ac]\d+|more)$'),
    re.compile(r"^```$"),
]
DIRECTIVE = re.compile(r"direction\s+(?:TB|BT|RL|LR|TD)")


def mermaid_block(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("```mermaid")
    end = lines.index("```", start + 1)
    return lines[start : end + 1]


def assert_grammar(block: list[str]) -> None:
    for line in block:
        assert any(rule.match(line) for rule in GRAMMAR), line
        assert not DIRECTIVE.search(line), line


def test_the_map_opens_with_a_picture_that_parses_and_is_the_same_every_time(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(ring_of_triangles())
    update(repo)
    text = (repo.root / ".kg" / "MAP.md").read_text()
    block = mermaid_block(text)
    assert_grammar(block)
    assert text.index("```mermaid") < text.index("| Community |")
    boxes = [line for line in block if '["' in line]
    arrows = [line for line in block if "-->" in line]
    assert len(boxes) == 8 and arrows  # one box per triangle, the ring's ties as arrows
    assert all(re.search(r'"(calls|imports) ×\d+', arrow) for arrow in arrows)
    (repo.root / ".kg" / "MAP.md").unlink()
    update(repo)
    assert (repo.root / ".kg" / "MAP.md").read_text() == text


def test_what_a_repository_names_cannot_break_out_of_a_label() -> None:
    hostile = 'x"] --> evil["<script>alert(1)</script>\n```\n#quot; `tick` %%{init}%% |&'
    text = label_text(hostile)
    assert not set(text) & set('"[]<>`#\n%{}|&')
    # Mermaid takes "direction LR" anywhere on a line as a directive and drops the box.
    assert not DIRECTIVE.search(label_text("Layout: direction LR parser"))
    block = flowchart([("c1", hostile, 3), ("c2", "Layout: direction LR", 1)], {})
    assert_grammar(block)
    assert '<br/>1 file"]' in block[3]
    assert len(label_text("w " * 100)) <= 40


def test_a_large_map_folds_what_does_not_fit_into_one_box() -> None:
    nodes = [(f"c{n}", f"community {n}", 100 - n) for n in range(1, MAX_NODES + 6)]
    edges = {("c1", f"c{MAX_NODES + 3}"): {"calls": {"EXTRACTED": 7}}}
    block = flowchart(nodes, edges)
    assert_grammar(block)
    assert sum('["' in line for line in block) == MAX_NODES + 1
    assert '  more["5 more, ' in "\n".join(block)
    assert '  c1 -->|"calls ×7"| more' in block


def test_each_community_page_draws_its_neighbourhood(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(ring_of_triangles())
    update(repo)
    document = json.loads((repo.root / ".kg" / "communities.json").read_text())
    cid = document["files"]["m3/f0.py"]
    page = (repo.root / ".kg" / "communities" / f"{cid}.md").read_text()
    block = mermaid_block(page)
    assert_grammar(block)
    assert block[2].startswith(f'  {cid}["{cid} · ')  # the community itself comes first
    ring = {document["files"][f"m{n}/f0.py"] for n in (2, 4)}  # its two neighbours in the ring
    arrows = [line.split() for line in block if "-->" in line]
    assert all(any(other in (words[0], words[-1]) for words in arrows) for other in ring)


def test_an_arrow_says_its_typed_counts_and_what_more_adds_up_never_outranks_a_box() -> None:
    nodes = [(f"c{n}", f"community {n}", 100 - n) for n in range(1, MAX_NODES + 3)]
    edges = {
        ("c1", "c2"): {"calls": {"EXTRACTED": 5}, "imports": {"EXTRACTED": 2}},
        ("c1", "c3"): {"calls": {"INFERRED": 4}},
        ("c1", f"c{MAX_NODES + 1}"): {"calls": {"EXTRACTED": 50}},
        ("c1", f"c{MAX_NODES + 2}"): {"calls": {"EXTRACTED": 50}},
    }
    block = flowchart(nodes, edges)
    assert_grammar(block)
    assert '  c1 -->|"calls ×5, imports ×2"| c2' in block
    assert '  c1 -->|"probably calls ×4"| c3' in block
    assert not any(line.startswith("  c1 -->") and line.endswith("more") for line in block)


def test_a_map_of_several_areas_draws_its_areas(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(two_tangled_packages())
    update(repo)
    document = json.loads((repo.root / ".kg" / "communities.json").read_text())
    assert len(document["areas"]) >= 2
    block = mermaid_block((repo.root / ".kg" / "MAP.md").read_text())
    assert_grammar(block)
    boxes = [line.split("[")[0].strip() for line in block if '["' in line]
    assert sorted(boxes) == sorted(document["areas"])


def test_an_arrow_hedges_as_the_table_does_and_leaves_contains_out() -> None:
    from kgtool.ontology.diagram import arrow_text

    assert arrow_text({"calls": {"AMBIGUOUS": 9}}) == "maybe calls ×9"
    mixed = {"calls": {"EXTRACTED": 2, "INFERRED": 3, "AMBIGUOUS": 10}, "contains": {"E": 4}}
    assert arrow_text(mixed) == "probably calls ×5"
