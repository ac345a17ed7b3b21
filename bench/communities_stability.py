"""How still do community IDs hold while a repository's history moves?

Replays the last N first-parent commits of a repository in one temporary worktree: each
commit's layer 1 is built incrementally and layer 2 is warm-started from the previous
commit's communities.json, exactly as the pre-commit hook would have done. Reports, per
commit, the share of files (present on both sides) whose community ID changed, the share of
IDs that survived, warm vs cold modularity on the same graph, the shape of the partition, its
agreement with the directory structure, and the time layer 2 took. With areas (format 3),
the same one level up: code files whose area ID changed, area IDs that survived, area counts.

    python bench/communities_stability.py /path/to/repo --commits 150
"""

from __future__ import annotations

import argparse
import json
import posixpath
import shutil
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import igraph

from kgtool.communities.build import (
    COMMUNITIES_FILE,
    CommunitiesResult,
    compute,
    update_communities,
)
from kgtool.communities.cluster import changed_files
from kgtool.communities.graph import build_file_graph, file_graph
from kgtool.config import Config, load_config
from kgtool.raw.build import UpdateResult, update_raw
from kgtool.raw.graph import read_raw
from kgtool.repo import checkout_detached, first_parent_history, temporary_worktree
from kgtool.store import Store, atomic_write, pretty_json


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def modularity(document: dict, graph_files: list[str], weights: dict, resolution: float) -> float:
    index = {path: i for i, path in enumerate(graph_files)}
    pairs = sorted(weights)
    graph = igraph.Graph(n=len(graph_files), edges=[(index[a], index[b]) for a, b in pairs])
    ids = sorted(set(document["files"].values()))
    number = {cid: i for i, cid in enumerate(ids)}
    membership = [number[document["files"][path]] for path in graph_files]
    return graph.modularity(membership, weights=[weights[p] for p in pairs], resolution=resolution)


def agreement(document: dict) -> tuple[float, float]:
    """NMI and ARI of the partition against "files in the same folder" (top two levels)."""
    paths = sorted(document["files"])
    folders = ["/".join(posixpath.dirname(p).split("/")[:2]) for p in paths]
    folder_ids = {f: i for i, f in enumerate(sorted(set(folders)))}
    community_ids = {c: i for i, c in enumerate(sorted(set(document["files"].values())))}
    a = [folder_ids[f] for f in folders]
    b = [community_ids[document["files"][p]] for p in paths]
    return (
        igraph.compare_communities(a, b, method="nmi"),
        igraph.compare_communities(a, b, method="ari"),
    )


def family_of(document: dict) -> dict[str, str]:
    """Each file in a family (member or test) -> the family's name."""
    return {
        path: family["name"]
        for family in document.get("families", [])
        for path in (*family["members"], *family["tests"])
    }


def family_churn(previous: dict, document: dict, shared: set[str]) -> dict:
    """How much the named families moved between two commits: the share of files (present on
    both sides) whose family changed, and the share of family names that survived."""
    before, after = family_of(previous), family_of(document)
    moved = sum(before.get(p) != after.get(p) for p in shared)
    names = set(before.values())
    return {
        "families": len(document.get("families", [])),
        "family_moved_share": moved / len(shared) if shared else 0.0,
        "family_survival": len(names & set(after.values())) / len(names) if names else 1.0,
    }


@dataclass(frozen=True)
class Replayed:
    """One replayed commit: its configuration, layers 1 and 2 as the hook built them there,
    and the seconds layer 2 took."""

    commit: str
    config: Config
    raw: UpdateResult
    result: CommunitiesResult
    seconds: float


def replay_commits(repo: Path, history: list[str]) -> Iterator[Replayed]:
    """Layers 1 and 2 at each commit of ``history`` (oldest first), in one temporary worktree,
    as the pre-commit hook would have built them: layer 1 incrementally, layer 2 warm-started
    from the previous commit's communities.json."""
    previous: dict | None = None
    with temporary_worktree(repo, history[0]) as tree:
        store = Store(tree)
        for commit in history:
            checkout_detached(tree, commit)
            config = load_config(tree)
            store.ensure()
            if previous is not None:
                # The hook starts from the committed partition, i.e. the previous commit's
                # output; the checkout may have put the repository's own .kg/ there instead.
                atomic_write(store.path(COMMUNITIES_FILE), pretty_json(previous).encode())
            raw = update_raw(tree, config, store, write=True)
            started = time.perf_counter()
            result = update_communities(tree, config, store, raw, write=True)
            seconds = time.perf_counter() - started
            yield Replayed(commit, config, raw, result, seconds)
            previous = result.document


def replay(repo: Path, commits: int, rows_file: Path | None = None) -> dict:
    history = first_parent_history(repo, commits + 1)
    rows = []
    previous: dict | None = None
    for step in replay_commits(repo, history):
        document = step.result.document
        folded = step.raw.file_edges()
        assert folded is not None
        # As layer 2 used them: ``boundaries`` made concrete for this commit's tree.
        settings = step.result.document["settings"]
        graph = file_graph(list(folded), folded, settings)
        if step.commit == history[-1]:
            # The folded edges layer 1 hands on must make the graph its shards make.
            parsed = build_file_graph(read_raw(step.raw.content.decode()), settings)
            assert parsed.digest(settings) == graph.digest(settings)
        cold_started = time.perf_counter()
        cold, _ = compute(graph, settings, {}, rebaseline=True)
        cold_seconds = time.perf_counter() - cold_started
        resolution = float(settings["resolution"])
        row = {
            "commit": step.commit[:10],
            "files": len(document["files"]),
            "communities": len(document["communities"]),
            "sizes": sorted((c["size"] for c in document["communities"].values()), reverse=True),
            "reclustered": step.result.reclustered,
            "seconds": step.seconds,
            "cold_seconds": cold_seconds,
            "modularity_warm": modularity(document, graph.files, graph.weights, resolution),
            "modularity_cold": modularity(cold, graph.files, graph.weights, resolution),
        }
        row["nmi"], row["ari"] = agreement(document)
        if previous is not None:
            shared = set(previous["files"]) & set(document["files"])
            moved_files = sorted(p for p in shared if previous["files"][p] != document["files"][p])
            moved = len(moved_files)
            row["moved_files"] = [
                [p, previous["files"][p], document["files"][p]] for p in moved_files
            ]
            row["moved_share"] = moved / len(shared) if shared else 0.0
            old_ids = set(previous["communities"])
            row["id_survival"] = len(old_ids & set(document["communities"])) / len(old_ids)
            row["graph_changed"] = previous["graph_hash"] != document["graph_hash"]
            if "areas" in previous and "areas" in document:
                row.update(area_stability(previous, document))
            row.update(family_churn(previous, document, shared))
            if row["graph_changed"] and "adjacency" in previous:
                region = changed_files(
                    graph, graph.adjacency(), previous["adjacency"], previous["files"]
                )
                row["changed_share"] = len(region) / len(document["files"])
        if "areas" in document:
            row["areas"] = len(document["areas"])
            row["area_sizes"] = sorted(
                (len(a["communities"]) for a in document["areas"].values()), reverse=True
            )
        rows.append(row)
        previous = document
    if rows_file is not None:
        rows_file.write_text(json.dumps(rows, indent=1))
    return summarise(rows)


def area_of_files(document: dict) -> dict[str, str]:
    """Each code file's area (docs and data belong to none)."""
    communities = document["communities"]
    return {
        path: communities[cid]["area"]
        for path, cid in document["files"].items()
        if communities[cid].get("area")
    }


def area_stability(previous: dict, document: dict) -> dict:
    """The replay's two measures one level up: code files whose area ID changed, area IDs kept."""
    before, after = area_of_files(previous), area_of_files(document)
    shared = set(before) & set(after)
    moved = sum(before[p] != after[p] for p in shared)
    old_ids = set(previous["areas"])
    return {
        "area_moved_share": moved / len(shared) if shared else 0.0,
        "area_id_survival": len(old_ids & set(document["areas"])) / len(old_ids)
        if old_ids
        else 1.0,
    }


def summarise(rows: list[dict]) -> dict:
    steps = [r for r in rows if "moved_share" in r]
    unchanged = [r for r in steps if not r["graph_changed"]]
    last = rows[-1]
    return {
        "commits": len(steps),
        "graph_changed_commits": len(steps) - len(unchanged),
        "moved_share_p50": percentile([r["moved_share"] for r in steps], 0.5),
        "moved_share_p95": percentile([r["moved_share"] for r in steps], 0.95),
        "moved_share_max": max((r["moved_share"] for r in steps), default=0.0),
        "moved_share_max_when_graph_unchanged": max(
            (r["moved_share"] for r in unchanged), default=0.0
        ),
        "id_survival_min": min((r["id_survival"] for r in steps), default=1.0),
        "id_survival_mean": statistics.fmean([r["id_survival"] for r in steps] or [1.0]),
        "commits_below_95pct_survival": sum(r["id_survival"] < 0.95 for r in steps),
        "modularity_warm_minus_cold_min": min(
            r["modularity_warm"] - r["modularity_cold"] for r in rows
        ),
        "modularity_warm_last": last["modularity_warm"],
        "modularity_cold_last": last["modularity_cold"],
        "files_last": last["files"],
        "communities_last": last["communities"],
        "sizes_last": last["sizes"],
        "largest_share_last": last["sizes"][0] / last["files"] if last["files"] else 0.0,
        "nmi_last": last["nmi"],
        "ari_last": last["ari"],
        "changed_share_p50": percentile(
            [r["changed_share"] for r in steps if "changed_share" in r], 0.5
        ),
        "changed_share_max": max(
            (r["changed_share"] for r in steps if "changed_share" in r), default=0.0
        ),
        "families_last": steps[-1]["families"] if steps else 0,
        "family_moved_share_p95": percentile([r["family_moved_share"] for r in steps], 0.95),
        "family_moved_share_max": max((r["family_moved_share"] for r in steps), default=0.0),
        "family_survival_min": min((r["family_survival"] for r in steps), default=1.0),
        "layer2_seconds_p50": percentile([r["seconds"] for r in steps], 0.5),
        "layer2_seconds_max": max((r["seconds"] for r in steps), default=0.0),
        "cold_cluster_seconds_last": last["cold_seconds"],
        **summarise_areas(steps, last),
        "worst_commits": sorted(
            ({"commit": r["commit"], "moved_share": r["moved_share"]} for r in steps),
            key=lambda r: -r["moved_share"],
        )[:5],
    }


def summarise_areas(steps: list[dict], last: dict) -> dict:
    measured = [r for r in steps if "area_moved_share" in r]
    if not measured:
        return {}
    return {
        "area_moved_share_p50": percentile([r["area_moved_share"] for r in measured], 0.5),
        "area_moved_share_p95": percentile([r["area_moved_share"] for r in measured], 0.95),
        "area_moved_share_max": max(r["area_moved_share"] for r in measured),
        "area_id_survival_min": min(r["area_id_survival"] for r in measured),
        "area_id_survival_mean": statistics.fmean(r["area_id_survival"] for r in measured),
        "commits_below_95pct_area_survival": sum(r["area_id_survival"] < 0.95 for r in measured),
        "areas_last": last.get("areas"),
        "area_sizes_last": last.get("area_sizes"),
        "worst_area_commits": sorted(
            ({"commit": r["commit"], "area_moved_share": r["area_moved_share"]} for r in measured),
            key=lambda r: -r["area_moved_share"],
        )[:5],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--commits", type=int, default=120)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--rows", type=Path, help="also write every commit's row here (JSON)")
    args = parser.parse_args()
    if shutil.which("git") is None:
        print("git is required", file=sys.stderr)
        return 2
    summary = replay(args.repo.resolve(), args.commits, args.rows)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            shown = f"{value:.4f}" if isinstance(value, float) else value
            print(f"{key:40} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
