"""Compare the call edges of two layer-1 graphs of one repository (before and after a change).

Counts, for the files of the chosen languages: call edges per tier, INFERRED edges per
confidence, unresolved call sites and external calls; then the edges only one graph has, and a
seeded random sample of the new ones and of the INFERRED ones that disappeared (not merely
re-bound to the same callee at another tier or confidence), with their source line, to check
by hand.

Each graph is a ``raw.jsonl`` file, or a folder whose ``*.jsonl`` files (shards) are read
together. Build them with ``kgtool update`` of each version on a clone of the repository.

Usage: python bench/edge_diff.py BEFORE AFTER --repo CLONE [--languages typescript,tsx]
       [--sample 20] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

LANGUAGES = "typescript,tsx,javascript"


def records(graph: Path) -> list[dict]:
    files = sorted(graph.rglob("*.jsonl")) if graph.is_dir() else [graph]
    return [json.loads(line) for path in files for line in path.read_text().splitlines()]


def edge_key(edge: dict) -> tuple:
    target = edge.get("dst") or "[" + ", ".join(edge.get("candidates", ())) + "]"
    return (edge["src"], target, edge["line"], edge["tier"], edge.get("confidence", 1.0))


def summary(graph: Path, languages: set[str]) -> tuple[dict, set[tuple]]:
    rows = records(graph)
    file_language = {
        r["id"]: r.get("lang", "") for r in rows if r["rec"] == "node" and r["kind"] == "file"
    }

    def chosen(node_id: str) -> bool:
        return file_language.get(node_id.split("::", 1)[0], "") in languages

    tiers: Counter[str] = Counter()
    confidences: Counter[str] = Counter()
    edges: set[tuple] = set()
    for r in rows:
        if r["rec"] == "edge" and r["type"] == "calls" and chosen(r["src"]):
            tiers[r["tier"]] += 1
            if r["tier"] == "INFERRED":
                confidences[str(r["confidence"])] += 1
            edges.add(edge_key(r))
    unresolved = external = 0
    for r in rows:
        if r["rec"] == "node" and chosen(r["id"]):
            unresolved += sum(r.get("unresolved_calls", {}).values())
            external += r.get("external_calls", 0)
    return {
        "files": sum(1 for lang in file_language.values() if lang in languages),
        "calls": dict(sorted(tiers.items())),
        "calls_total": sum(tiers.values()),
        "inferred_by_confidence": dict(sorted(confidences.items())),
        "unresolved_sites": unresolved,
        "external_calls": external,
    }, edges


def called_name(target: str) -> str:
    """The method or function name an edge's target (one ID or a bracketed list) ends with."""
    return target.rstrip("]").rsplit(".", 1)[-1].rsplit("::", 1)[-1]


def source_line(repo: Path, node_id: str, line: int) -> str:
    path = repo / node_id.split("::", 1)[0]
    try:
        return path.read_text(errors="replace").splitlines()[line - 1].strip()
    except (OSError, IndexError):
        return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--repo", type=Path, required=True, help="the clone both describe")
    parser.add_argument("--languages", default=LANGUAGES)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    languages = set(args.languages.split(","))
    before, old = summary(args.before, languages)
    after, new = summary(args.after, languages)
    print(json.dumps({"before": before, "after": after}, indent=2))
    added, removed = sorted(new - old), sorted(old - new)
    added_tiers = Counter(e[3] for e in added)
    removed_tiers = Counter(e[3] for e in removed)
    print(f"edges only after: {len(added)} {dict(sorted(added_tiers.items()))}")
    print(f"edges only before: {len(removed)} {dict(sorted(removed_tiers.items()))}")
    calls_after = {edge[:3] for edge in new}
    rebound = [edge for edge in removed if edge[:3] in calls_after]
    rebound_tiers = dict(sorted(Counter(edge[3] for edge in rebound).items()))
    print(f"  of which the same call, re-bound: {len(rebound)} {rebound_tiers}")
    bound_after = {
        (edge[0], edge[2], called_name(edge[1])) for edge in new if edge[3] != "AMBIGUOUS"
    }
    lost_ambiguous = [edge for edge in removed if edge[3] == "AMBIGUOUS"]
    by_name = Counter(called_name(edge[1]) for edge in lost_ambiguous)
    now_bound = Counter(
        called_name(edge[1])
        for edge in lost_ambiguous
        if (edge[0], edge[2], called_name(edge[1])) in bound_after
    )
    print("  AMBIGUOUS ones by called name (now bound at the same site):")
    for name, count in by_name.most_common(5):
        print(f"    {name}: {count} ({now_bound[name]})")
    lost_inferred = [edge for edge in removed if edge[3] == "INFERRED" and edge not in rebound]
    for title, edges in (("new edges", added), ("INFERRED edges lost", lost_inferred)):
        sample = random.Random(args.seed).sample(edges, min(args.sample, len(edges)))
        print(f"\n## {len(sample)} of the {len(edges)} {title} (seed {args.seed})")
        for src, target, line, tier, confidence in sorted(sample):
            print(f"\n{tier} {confidence} {src} line {line}\n  -> {target}")
            print(f"  | {source_line(args.repo, src, line)[:160]}")  # minified files: one line
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
