"""How often do layer-3 labels drift on ordinary commits, and do they on real refactors?

Replays the last N first-parent commits of a repository in a temporary worktree, building
layers 1 and 2 at each commit as the pre-commit hook would (warm start from the previous
commit's communities.json). No labeler runs: every community and every edge worth a phrase
gets a dummy label whose evidence is snapshotted from layer 2 exactly as `kgtool label`
records it, and ``drift_report`` judges those labels under a sweep of drift settings
(member_drift, edge_drift, type_share and drift.MIN_EDGES, one at a time around the defaults):

(a) ordinary commits: labels snapshotted at commit i-1, the share of commits i where at least
    one label fires, and the mean and max share of labels firing, for community names and
    edge phrases apart, with the measure that fired (members, edges out/in, counts, an edge
    type appearing or vanishing, an edge vanishing, split, merged);
(b) ageing: labels snapshotted once at the first commit, the share drifted (and the share
    whose community or edge is gone) after 10/50/100/150 commits; and how many relabels per
    100 commits a user who relabels whatever is flagged would make;
(c) refactors: the 5 commits that moved, added or removed the most files, and those whose
    subject says refactor/move/rename/split/extract: did labels fire on them, and which;
(d) per commit, the largest value each measure takes over the previous commit's labels
    (Jaccard distance, relative change of typed counts, share of a type that appeared or
    vanished): its 95th percentile over ordinary commits is the lowest threshold that stays
    quiet on 95% of them.

"Ordinary" commits are all replayed commits except those of (c).

    python bench/label_drift.py /path/to/repo --commits 150 [--until REV] [--json]
        [--documents FILE]

``--documents FILE`` keeps the replayed layer-2 documents (JSON lines): read when the file
exists, written otherwise, so a second look at the numbers skips the replay (delete the file
to replay again, e.g. with another ``--commits``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from communities_stability import percentile, replay_commits

import kgtool.ontology.drift as drift_module
from kgtool.config import DEFAULTS
from kgtool.ontology.drift import (
    DRIFTED,
    FRESH,
    INHERITED,
    MISSING,
    RETIRED,
    DriftReport,
    drift_report,
)
from kgtool.ontology.evidence import (
    community_evidence,
    edge_evidence,
    jaccard,
    relative_change,
    type_changes,
    type_weights,
    weighted,
)
from kgtool.ontology.facts import community_edges, phrased_edges, sorted_counts
from kgtool.ontology.items import TypedCounts, edge_key
from kgtool.ontology.model import CommunityLabel, EdgeLabel, Ontology
from kgtool.ontology.view import drift_settings
from kgtool.repo import first_parent_history, git

Document = dict[str, Any]

THRESHOLDS = ("member_drift", "edge_drift", "type_share")
GRID: dict[str, tuple[float, ...]] = {
    "member_drift": (0.2, 0.25, 0.3, 0.34, 0.5),
    "edge_drift": (0.3, 0.5, 0.7),
    "type_share": (0.1, 0.2, 0.3),
    "min_edges": (1, 3, 5, 10),
}
AGES = (10, 50, 100, 150)
LARGEST = (
    "members",
    "name edges",
    "name type share",
    "phrase counts",
    "phrase counts, no floor",
    "phrase type share",
)
TOP_CHANGES = 5
REFACTOR_WORDS = re.compile(
    # Whole words: "remove" is not a move, nor "splitlines" or "split_arg_string" a split.
    r"refactor|\b(?:mov|renam)(?:e|es|ed|ing)\b|\bsplit(?:s|ting)?\b|\bextract(?:s|ed|ing)?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Step:
    commit: str
    subject: str
    document: Document  # layer 2 at this commit, cut to what drift reads
    settings: dict[str, Any]  # drift_settings() of the commit's own configuration


@dataclass(frozen=True)
class Variant:
    name: str
    thresholds: dict[str, float]
    min_edges: int


@dataclass
class Tally:
    """What one drift report flagged among the labels it could check."""

    names: int = 0  # community states drifted, or a split child showing its parent's label
    names_checked: int = 0
    phrases: int = 0
    phrases_checked: int = 0
    name_measures: Counter[str] = field(default_factory=Counter)  # labels per measure
    phrase_measures: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "names": self.names,
            "names_checked": self.names_checked,
            "phrases": self.phrases,
            "phrases_checked": self.phrases_checked,
            "name_measures": dict(sorted(self.name_measures.items())),
            "phrase_measures": dict(sorted(self.phrase_measures.items())),
        }


# -- replay ---------------------------------------------------------------------------------


def slim(document: Document) -> Document:
    """The parts of communities.json drift and the phrased-edge choice read (the adjacency
    digests would make the kept history ten times larger)."""
    communities = {}
    for cid, entry in document["communities"].items():
        kept: dict[str, Any] = {"members": list(entry["members"])}
        if entry.get("split_from"):
            kept["split_from"] = entry["split_from"]
        communities[cid] = kept
    return {
        "communities": communities,
        "edges": document.get("edges", []),
        "files": document.get("files", {}),
        "retired": document.get("retired", {}),
    }


def replay(repo: Path, commits: int, until: str = "HEAD") -> Iterator[Step]:
    """Layer 2 at each of the last ``commits`` + 1 first-parent commits, oldest first, built
    as bench/communities_stability.py builds it."""
    history = first_parent_history(repo, commits + 1, until)
    log = git(repo, "log", "--first-parent", f"-n{commits + 1}", "--format=%H%x09%s", until)
    subjects = dict(line.split("\t", 1) for line in log.splitlines() if "\t" in line)
    for number, step in enumerate(replay_commits(repo, history)):
        if number % 10 == 0:
            print(f"  replayed {number + 1}/{len(history)}", file=sys.stderr, flush=True)
        yield Step(
            step.commit,
            subjects.get(step.commit, ""),
            slim(step.result.document),
            drift_settings(step.config),
        )


def load_steps(repo: Path, commits: int, documents: Path | None, until: str = "HEAD") -> list[Step]:
    if documents is not None and documents.is_file():
        with documents.open(encoding="utf-8") as handle:
            return [Step(**json.loads(line)) for line in handle if line.strip()]
    steps = list(replay(repo, commits, until))
    if documents is not None:
        with documents.open("w", encoding="utf-8") as handle:
            for step in steps:
                handle.write(json.dumps(step.__dict__) + "\n")
    return steps


# -- labels and their drift -----------------------------------------------------------------


def phrased(step: Step) -> list[dict[str, Any]]:
    section = step.settings
    return phrased_edges(
        step.document, int(section["edges_per_community"]), int(section["min_edge_count"])
    )


def snapshot(step: Step) -> Ontology:
    """Every community and every phrased edge labelled at ``step``, with today's evidence."""
    document = step.document
    edges = community_edges(document)
    exact = int(step.settings["exact_members"])
    communities = {
        cid: CommunityLabel(
            cid,
            cid,
            by="offline",
            evidence=community_evidence(list(entry["members"]), *edges[cid], exact),
        )
        for cid, entry in document["communities"].items()
    }
    phrases = {edge_key(e["src"], e["dst"]): phrase_label(e) for e in phrased(step)}
    return Ontology(communities, phrases)


def phrase_label(edge: dict[str, Any]) -> EdgeLabel:
    evidence = edge_evidence(sorted_counts(edge["types"]))
    return EdgeLabel(edge["src"], edge["dst"], "uses", by="offline", evidence=evidence)


def variants() -> list[Variant]:
    base = {key: float(DEFAULTS["ontology"][key]) for key in THRESHOLDS}
    base_min = int(drift_module.MIN_EDGES)
    found = [Variant("defaults", base, base_min)]
    for key, values in GRID.items():
        for value in values:
            if key == "min_edges" and value != base_min:
                found.append(Variant(f"min_edges={value:g}", base, int(value)))
            elif key in base and value != base[key]:
                found.append(Variant(f"{key}={value:g}", {**base, key: value}, base_min))
    return found


@contextlib.contextmanager
def min_edges(value: int) -> Iterator[None]:
    # MIN_EDGES is a module constant, not a setting; drift reads it at call time.
    saved = drift_module.MIN_EDGES
    drift_module.MIN_EDGES = value
    try:
        yield
    finally:
        drift_module.MIN_EDGES = saved


def judge(step: Step, ontology: Ontology, variant: Variant) -> DriftReport:
    settings = {**step.settings, **variant.thresholds}
    with min_edges(variant.min_edges):
        return drift_report(step.document, ontology, settings, phrased(step))


def measure_kind(measure: str) -> str:
    """'edges out: inherits appeared' -> 'type appeared'; the rest are kept as they are."""
    if ":" in measure:
        return "type " + measure.rsplit(" ", 1)[-1]
    return measure


def tally(report: DriftReport) -> Tally:
    found = Tally()
    for state in report.communities.values():
        if state.status in (FRESH, DRIFTED, INHERITED):
            found.names_checked += 1
        if state.status in (DRIFTED, INHERITED):
            found.names += 1
            found.name_measures.update({measure_kind(d.measure) for d in state.drifts})
    for edge in report.edges.values():
        if edge.status in (FRESH, DRIFTED):
            found.phrases_checked += 1
        if edge.status == DRIFTED:
            found.phrases += 1
            found.phrase_measures.update({measure_kind(d.measure) for d in edge.drifts})
    return found


# -- the measurements -----------------------------------------------------------------------


def file_changes(before: Document, after: Document) -> dict[str, int]:
    old, new = before["files"], after["files"]
    shared = set(old) & set(new)
    return {
        "moved": sum(1 for path in shared if old[path] != new[path]),
        "added": len(set(new) - set(old)),
        "removed": len(set(old) - set(new)),
    }


def layer2_changed(before: Document, after: Document) -> bool:
    """Whether anything a label's evidence holds (members, typed edge counts) moved."""
    return before["communities"] != after["communities"] or before["edges"] != after["edges"]


def refactor_reasons(steps: list[Step]) -> dict[int, list[str]]:
    """Step index -> why it counts as a real refactor ("largest", "subject")."""
    sizes = [
        (sum(file_changes(steps[i - 1].document, steps[i].document).values()), i)
        for i in range(1, len(steps))
    ]
    reasons: dict[int, list[str]] = {}
    for size, i in sorted(sizes, key=lambda item: (-item[0], item[1]))[:TOP_CHANGES]:
        if size:
            reasons[i] = ["largest"]
    for i in range(1, len(steps)):
        if REFACTOR_WORDS.search(steps[i].subject):
            reasons.setdefault(i, []).append("subject")
    return reasons


def share_stats(fired: list[int], checked: list[int], changed: list[bool]) -> dict[str, float]:
    shares = [f / c if c else 0.0 for f, c in zip(fired, checked, strict=True)]
    on_changed = [f for f, ch in zip(fired, changed, strict=True) if ch]
    return {
        "commits_firing": sum(1 for f in fired if f) / len(fired) if fired else 0.0,
        "changed_commits_firing": (
            sum(1 for f in on_changed if f) / len(on_changed) if on_changed else 0.0
        ),
        "mean_share": statistics.fmean(shares) if shares else 0.0,
        "max_share": max(shares, default=0.0),
    }


def relabel_rate(steps: list[Step], variant: Variant) -> dict[str, Any]:
    """Relabels per 100 commits for a user who relabels whatever is flagged (and by which
    measure), and how many new labels (communities and phrased edges that appear) come on
    top whatever the thresholds."""
    ontology = snapshot(steps[0])
    relabels = Counter[str]()
    why: dict[str, Counter[str]] = {"names": Counter(), "phrases": Counter()}
    for step in steps[1:]:
        report = judge(step, ontology, variant)
        fresh = snapshot(step)
        by_key = {edge_key(e["src"], e["dst"]): e for e in step.document["edges"]}
        communities: dict[str, CommunityLabel] = {}
        for cid, state in report.communities.items():
            if state.status == FRESH:
                communities[cid] = ontology.communities[cid]
            elif state.status != RETIRED:
                relabels["names" if state.status != MISSING else "new_names"] += 1
                why["names"].update({measure_kind(d.measure) for d in state.drifts})
                communities[cid] = fresh.communities[cid]
        phrases: dict[str, EdgeLabel] = {}
        for key, edge in report.edges.items():
            if edge.status == FRESH:
                phrases[key] = ontology.edges[key]
            elif edge.status in (DRIFTED, MISSING) and key in by_key:
                relabels["phrases" if edge.status == DRIFTED else "new_phrases"] += 1
                why["phrases"].update({measure_kind(d.measure) for d in edge.drifts})
                phrases[key] = phrase_label(by_key[key])
        ontology = Ontology(communities, phrases)
    per = 100.0 / max(1, len(steps) - 1)
    rates: dict[str, Any] = {
        key: relabels[key] * per for key in ("names", "phrases", "new_names", "new_phrases")
    }
    rates["measures"] = {kind: dict(sorted(counts.items())) for kind, counts in why.items()}
    return rates


def ageing(steps: list[Step], variant: Variant, ages: tuple[int, ...]) -> dict[str, Any]:
    labels = snapshot(steps[0])
    found: dict[str, Any] = {}
    for age in ages:
        report = judge(steps[age], labels, variant)
        names = [report.communities[cid].status for cid in labels.communities]
        phrases = [report.edges[key].status for key in labels.edges]
        found[str(age)] = {
            "names_drifted": names.count(DRIFTED) / len(names) if names else 0.0,
            "names_gone": names.count(RETIRED) / len(names) if names else 0.0,
            "phrases_drifted": phrases.count(DRIFTED) / len(phrases) if phrases else 0.0,
            "phrases_gone": phrases.count(RETIRED) / len(phrases) if phrases else 0.0,
        }
    return found


def counts_values(
    old: TypedCounts, new: TypedCounts, weights: dict[str, float]
) -> tuple[float, float, float]:
    """(relative change, weighted edges moved, largest share of a type that appeared or
    vanished), as drift weighs them (a type change counts from drift.MIN_EDGES edges)."""
    before, after = weighted(old, weights), weighted(new, weights)
    moved = sum(abs(after.get(k, 0.0) - before.get(k, 0.0)) for k in set(before) | set(after))
    floor = drift_module.MIN_EDGES  # read at call time: min_edges() changes it
    shares = [share for _, _, share in type_changes(before, after, 0.0, floor)]
    return relative_change(before, after), moved, max(shares, default=0.0)


def largest_values(before: Step, after: Step) -> dict[str, float]:
    """The largest value of each drift measure over the labels of ``before`` judged against
    ``after``: a threshold above it stays quiet on this commit."""
    labels = snapshot(before)
    document = after.document
    weights = type_weights(after.settings)
    floor = int(drift_module.MIN_EDGES)
    edges = community_edges(document)
    found = dict.fromkeys(LARGEST, 0.0)

    def keep(measure: str, value: float) -> None:
        found[measure] = max(found[measure], value)

    for cid, label in labels.communities.items():
        if cid not in document["communities"] or label.evidence is None:
            continue
        evidence = label.evidence
        keep("members", 1.0 - jaccard(evidence, document["communities"][cid]["members"]))
        for old, new in ((evidence.edges_out, edges[cid][0]), (evidence.edges_in, edges[cid][1])):
            change, moved, share = counts_values(old, new, weights)
            keep("name edges", change if moved >= floor else 0.0)
            keep("name type share", share)
    by_key = {edge_key(e["src"], e["dst"]): e for e in document["edges"]}
    for key, edge in labels.edges.items():
        if key not in by_key or edge.evidence is None:
            continue  # a vanished edge fires whatever the thresholds
        types = sorted_counts(by_key[key]["types"])
        change, moved, share = counts_values(edge.evidence.types, types, weights)
        keep("phrase counts", change if moved >= floor else 0.0)
        keep("phrase counts, no floor", change)
        keep("phrase type share", share)
    return found


def measure(steps: list[Step]) -> dict[str, Any]:
    chosen = variants()
    # A history shorter than the longest age is still aged to its end.
    ages = tuple(sorted({a for a in AGES if a < len(steps)} | {len(steps) - 1}))
    reasons = refactor_reasons(steps)
    rows: list[dict[str, Any]] = []
    for i in range(1, len(steps)):
        before, after = steps[i - 1], steps[i]
        labels = snapshot(before)
        rows.append(
            {
                "commit": after.commit[:10],
                "subject": after.subject,
                **file_changes(before.document, after.document),
                "layer2_changed": layer2_changed(before.document, after.document),
                "refactor": reasons.get(i, []),
                "fired": {v.name: tally(judge(after, labels, v)).as_dict() for v in chosen},
                "largest": largest_values(before, after),
            }
        )
    ordinary = [r for r in rows if not r["refactor"]]
    refactors = [r for r in rows if r["refactor"]]
    summary: dict[str, Any] = {}
    for v in chosen:
        entry: dict[str, Any] = {"thresholds": v.thresholds, "min_edges": v.min_edges}
        for kind in ("names", "phrases"):
            fired = [r["fired"][v.name][kind] for r in ordinary]
            checked = [r["fired"][v.name][f"{kind}_checked"] for r in ordinary]
            entry[kind] = share_stats(fired, checked, [r["layer2_changed"] for r in ordinary])
            # Subjects say "move" for a doc page as much as for a module: kept apart.
            for reason in ("largest", "subject"):
                chosen_rows = [r for r in refactors if reason in r["refactor"]]
                entry[kind][f"{reason}_firing"] = sum(
                    1 for r in chosen_rows if r["fired"][v.name][kind]
                )
            # Commits (not labels) on which each measure fired: a user meets commits.
            by_measure: Counter[str] = Counter()
            for r in ordinary:
                by_measure.update(r["fired"][v.name][kind[:-1] + "_measures"].keys())
            entry[kind]["measures_commits"] = dict(sorted(by_measure.items()))
        entry["relabels_per_100_commits"] = relabel_rate(steps, v)
        entry["ageing"] = ageing(steps, v, ages)
        summary[v.name] = entry
    largest: dict[str, Any] = {}
    for name in LARGEST:
        quiet = [r["largest"][name] for r in ordinary]
        largest[name] = {
            **{f"p{q}": percentile(quiet, q / 100) for q in (90, 95, 99)},
            "max": max(quiet, default=0.0),
            "biggest": [r["largest"][name] for r in refactors if "largest" in r["refactor"]],
        }
    last = steps[-1].document
    return {
        "commits": len(rows),
        "head": steps[-1].commit[:10],
        "files_last": len(last["files"]),
        "communities_last": len(last["communities"]),
        "phrased_edges_last": len(phrased(steps[-1])),
        "layer2_changed_commits": sum(1 for r in rows if r["layer2_changed"]),
        "ordinary_commits": len(ordinary),
        "refactor_commits": len(refactors),
        "labels_first": {
            "names": len(steps[0].document["communities"]),
            "phrases": len(phrased(steps[0])),
        },
        "variants": summary,
        "largest": largest,
        "rows": rows,
    }


# -- printing -------------------------------------------------------------------------------


def pct(value: float) -> str:
    return f"{100 * value:5.1f}"


def measures_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda i: -i[1]))


def print_tables(name: str, result: dict[str, Any]) -> None:
    variants_ = result["variants"]
    refactors = result["refactor_commits"]
    big = sum(1 for r in result["rows"] if "largest" in r["refactor"])
    msg = sum(1 for r in result["rows"] if "subject" in r["refactor"])
    print(
        f"{name} @ {result['head']}: {result['commits']} commits, layer 2 changed on "
        f"{result['layer2_changed_commits']}; {result['files_last']} files, "
        f"{result['communities_last']} communities, {result['phrased_edges_last']} phrased "
        f"edges at the last commit; {refactors} refactor commits, "
        f"{result['ordinary_commits']} ordinary"
    )
    print(
        "\n(a) ordinary commits, labels of the previous commit  "
        "[fire%: commits with >=1 label firing; chg%: of those where layer 2 changed;\n"
        "    mean%/max%: labels firing per commit; big: of the 5 largest commits firing; "
        "msg: of the commits\n    whose subject says refactor/move/..., firing; "
        "/100c: relabels per 100 commits, relabelling whatever is flagged]"
    )
    head = f"{'fire%':>6}{'chg%':>6}{'mean%':>6}{'max%':>6}{'big':>5}{'msg':>6}{'/100c':>6}"
    print(f"{'':18}{'community names':^41}  {'edge phrases':^41}")
    print(f"{'setting':18}{head}  {head}")
    for vname, entry in variants_.items():
        cells = []
        for kind in ("names", "phrases"):
            s = entry[kind]
            cells.append(
                f"{pct(s['commits_firing']):>6}{pct(s['changed_commits_firing']):>6}"
                f"{pct(s['mean_share']):>6}{pct(s['max_share']):>6}"
                f"{s['largest_firing']:>3}/{big:<1}{s['subject_firing']:>3}/{msg:<2}"
                f"{entry['relabels_per_100_commits'][kind]:>6.1f}"
            )
        print(f"{vname:18}{cells[0]}  {cells[1]}")
    default = variants_["defaults"]
    print("  commits firing, by measure, at the defaults:")
    print(f"    names:   {measures_text(default['names']['measures_commits']) or '-'}")
    print(f"    phrases: {measures_text(default['phrases']['measures_commits']) or '-'}")
    new = default["relabels_per_100_commits"]
    for kind in ("names", "phrases"):
        print(f"  relabels of {kind} by measure: {measures_text(new['measures'][kind]) or '-'}")
    print(
        f"  new labels per 100 commits whatever the thresholds: {new['new_names']:.1f} names, "
        f"{new['new_phrases']:.1f} phrases"
    )

    first = result["labels_first"]
    ages = list(default["ageing"])
    print(
        f"\n(b) ageing: the {first['names']} names and {first['phrases']} phrases of the first "
        "commit, % drifted after N commits (n@N names, p@N phrases)"
    )
    names_head = "".join(f"{'n@' + a:>6}" for a in ages)
    phrases_head = "".join(f"{'p@' + a:>6}" for a in ages)
    print(f"{'setting':18}{names_head}  {'':2}{phrases_head}")
    for vname, entry in variants_.items():
        row = entry["ageing"]
        names = "".join(f"{pct(row[a]['names_drifted']):>6}" for a in ages)
        phrases = "".join(f"{pct(row[a]['phrases_drifted']):>6}" for a in ages)
        print(f"{vname:18}{names}  {'':2}{phrases}")
    gone = default["ageing"]
    names = "".join(f"{pct(gone[a]['names_gone']):>6}" for a in ages)
    phrases = "".join(f"{pct(gone[a]['phrases_gone']):>6}" for a in ages)
    print(f"{'(gone, any)':18}{names}  {'':2}{phrases}")

    print("\n(c) refactor commits at the defaults (fired/checked, and by which measure)")
    for row in result["rows"]:
        if not row["refactor"]:
            continue
        fired = row["fired"]["defaults"]
        print(
            f"  {row['commit']} {'+'.join(row['refactor']):15} moved {row['moved']:>3} "
            f"added {row['added']:>3} removed {row['removed']:>3}  "
            f"names {fired['names']}/{fired['names_checked']}  "
            f"phrases {fired['phrases']}/{fired['phrases_checked']}  {row['subject'][:60]}"
        )
        for kind in ("name", "phrase"):
            if fired[f"{kind}_measures"]:
                print(f"{'':16}{kind}s: {measures_text(fired[kind + '_measures'])}")

    print(
        "\n(d) per commit, the largest value of each measure over the previous commit's labels"
        "\n    (a threshold above an ordinary commit's p95 fires on under 5% of them)"
    )
    print(f"{'measure':24}{'p90':>6}{'p95':>6}{'p99':>6}{'max':>6}   5 largest commits")
    for name, row in result["largest"].items():
        biggest = " ".join(f"{value:.2f}" for value in row["biggest"])
        print(
            f"{name:24}{row['p90']:6.2f}{row['p95']:6.2f}{row['p99']:6.2f}{row['max']:6.2f}"
            f"   {biggest}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--commits", type=int, default=150)
    parser.add_argument("--until", default="HEAD", help="the last commit replayed (a revision)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument(
        "--documents",
        type=Path,
        help="replayed layer-2 documents: read as they are if the file exists (whatever "
        "--commits says), else written",
    )
    args = parser.parse_args()
    if shutil.which("git") is None:
        print("git is required", file=sys.stderr)
        return 2
    steps = load_steps(args.repo.resolve(), args.commits, args.documents, args.until)
    if len(steps) < 2:
        print("need at least two commits to compare", file=sys.stderr)
        return 2
    result = measure(steps)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print_tables(args.repo.resolve().name, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
