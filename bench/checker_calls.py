"""Layer 1's call edges against a type checker's answer for every call site, on real repositories.

    python bench/checker_calls.py NAME [NAME ...] [--out DIR] [--json FILE] [--sample N]
                                  [--max-files N] [--jobs N] [--recheck N]

NAME is a repository of bench/CALLS_HELD_OUT.md (``badlogic/pi-mono`` or ``pi-mono``); it is
cloned from where bench/sources.py finds it into DIR/<name> (default /tmp/checker-calls) and
checked out at the commit listed there.

kgtool's side is layer 1 of this checkout, in this process: every tracked file of the
ecosystem (TypeScript, TSX, JavaScript and package.json; or Python) is extracted and resolved
as ``kgtool update`` does, with kgtool's default max_candidates, and every ``calls`` edge whose
source is a file of the measured language is kept with its line, tier and confidence. A call
site with no edge (unresolved, or external) is kgtool's answer too.

The checker's side: for TypeScript, bench/checker_ts.mjs runs the TypeScript 5 compiler API
(``typescript@5``, installed by npm into DIR/node on first use) over one program of the
repository's .ts/.tsx files; for Python, jedi's ``goto`` (the ``bench`` extra) on the last
name of every callee, with a fresh Script per file. Each site's callee declaration is named
as kgtool names symbols: the innermost symbol of kgtool's own symbol table, in the
declaration's file, that bears the declaration's name and whose lines hold the declaration's
name. A class and its constructor (``constructor``, ``__init__``, ``__new__``) are one callee.

The two are joined on (file, line): an edge is right when some checker site on its line goes
to its target; wrong when every site on the line has a checker answer (a repository callee,
or one outside the repository) and none is its target; unjudged when a site on the line has
none (a value of unknown type, a package that is not installed). Figures are given per site
and per (caller, callee) pair; see bench/results/checker-calls.md. Edges the checker cannot
contradict are counted apart: to a value the checker names (a parameter, a variable), to the
implementations of an interface member it names, to a function passed to ``map``/``filter``,
to what a decorator factory returns.

``--max-files`` picks files by a hash of their path (the same on every run); ``--jobs`` is the
number of jedi processes; ``--recheck`` asks that many Python sites again, each of a fresh jedi
Script, and reports how many answers agree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, NamedTuple

CHECKOUT = Path(__file__).resolve().parent.parent
if str(CHECKOUT) not in sys.path[:1]:
    sys.path.insert(0, str(CHECKOUT))

from bench.call_tiers import resolved_layer1  # noqa: E402
from bench.checker_sites import (  # noqa: E402
    DEFAULT_OUT,
    ECOSYSTEM,
    HELD_OUT,
    NODE_TYPES,
    NPM_PACKAGES,
    OUTSIDE,
    REPO,
    SEED,
    TS_SUFFIXES,
    UNKNOWN,
    UNMAPPED,
    VALUE,
    Names,
    Repo,
    Site,
    checkout,
    held_out_table,
    python_sites,
    recheck_python,
    same_callee,
    sampled,
    source_roots,
    tracked,
)
from kgtool.config import DEFAULTS  # noqa: E402
from kgtool.raw.implementations import declared_only  # noqa: E402
from kgtool.raw.index import RepoIndex  # noqa: E402
from kgtool.raw.languages import language_for_path  # noqa: E402
from kgtool.raw.languages.base import CALL_RESULT  # noqa: E402
from kgtool.raw.model import (  # noqa: E402
    AMBIGUOUS,
    ARGUMENT,
    EXTRACTED,
    INFERRED,
    Edge,
    FileFacts,
    symbol_parts,
)
from kgtool.raw.resolve import CONFIDENCE_VALUE_TYPE  # noqa: E402


class Kgtool(NamedTuple):
    facts: dict[str, FileFacts]
    repo_index: RepoIndex
    edges: dict[tuple[str, int], list[Edge]]  # (file, line) -> calls edges
    sites: Counter[tuple[str, int]]  # (file, line) -> call facts
    measured: list[str]  # files of the measured language
    # (file, line, name): a function passed to a builtin that calls it (``filter(f, xs)``):
    # kgtool's edge to it stands at no call site the checker sees.
    callbacks: set[tuple[str, int, str]]
    # (file, line) of a call of what a call returns (``make()()``, ``@make(x)`` on a def): the
    # checker is asked about ``make`` only.
    result_calls: set[tuple[str, int]]


def kgtool_side(root: Path, language: str) -> Kgtool:
    resolved, measured_languages = ECOSYSTEM[language]
    facts, index, results = resolved_layer1(root, resolved, DEFAULTS["max_candidates"])
    measured = sorted(p for p, f in facts.items() if f.language in measured_languages)
    edges: dict[tuple[str, int], list[Edge]] = defaultdict(list)
    sites: Counter[tuple[str, int]] = Counter()
    for path in measured:
        for call in facts[path].calls:
            sites[(path, call.line)] += 1
        for edge in results[path].edges:
            if edge.type == "calls":
                # ``super().__init__()`` binds to the base's __init__: as the checker's
                # answers, a constructor is named as its class.
                edges[(path, edge.line)].append(
                    edge._replace(
                        target=same_callee(edge.target),
                        candidates=tuple(same_callee(c) for c in edge.candidates),
                    )
                )
    callbacks: set[tuple[str, int, str]] = set()
    for path in measured:
        of_path = language_for_path(path)
        passed_to = of_path.builtin_callbacks if of_path is not None else frozenset()
        for assign in facts[path].assigns:
            if assign.kind == ARGUMENT and assign.var in passed_to:
                callbacks.add((path, assign.line, assign.callee.rpartition(".")[2]))
    result_calls = {
        (path, call.line)
        for path in measured
        for call in facts[path].calls
        if call.name.endswith(CALL_RESULT)
    }
    return Kgtool(facts, index, dict(edges), sites, measured, callbacks, result_calls)


# ---- naming: a declaration as kgtool's node ID ----------------------------------------------


def typescript_module(out: Path) -> Path:
    """The installed ``typescript@5`` package, installed into ``out/node`` on first use."""
    prefix = out / "node"
    module = prefix / "node_modules" / "typescript"
    types = prefix / "node_modules" / NODE_TYPES / "package.json"
    if not (module / "package.json").is_file() or not types.is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(prefix), *NPM_PACKAGES, "--no-audit", "--no-fund"],
            check=True,
            capture_output=True,
        )
    version = json.loads((module / "package.json").read_text())["version"]
    if not version.startswith("5."):
        raise SystemExit(f"typescript {version} at {module}: the bench needs 5.x")
    return module


def typescript_sites(
    root: Path, out: Path, files: list[str], names: Names, cache: Path
) -> list[Site]:
    module = typescript_module(out)
    listing = cache.with_suffix(".files")
    listing.write_text("\n".join(files) + "\n")
    manifests = [
        p
        for p in tracked(root)
        if p.rsplit("/", 1)[-1] == "package.json" and "node_modules/" not in p
    ]
    Path(f"{listing}.packages").write_text("\n".join(manifests) + "\n")
    configs = [
        p
        for p in tracked(root)
        if p.rsplit("/", 1)[-1] == "tsconfig.json" and "node_modules/" not in p
    ]
    Path(f"{listing}.tsconfigs").write_text("\n".join(configs) + "\n")
    script = Path(__file__).resolve().parent / "checker_ts.mjs"
    with cache.open("w") as sink:
        subprocess.run(
            [
                *("node", "--max-old-space-size=8192", str(script), str(module)),
                *(str(root), str(listing), str(module.parent / "@types")),
            ],
            cwd=root,
            check=True,
            stdout=sink,
        )
    sites = []
    for line in cache.read_text().splitlines():
        raw = json.loads(line)
        file = raw["f"]
        caller = names.caller(file, [(n, ln) for n, ln in raw["callers"]])
        sites.append(_typescript_site(raw, file, caller, names))
    return sites


def _typescript_site(raw: dict[str, Any], file: str, caller: str, names: Names) -> Site:
    decls = raw["decls"]
    detail = "; ".join(
        f"{d['f'] or '<outside>' + d.get('o', '')}:{d['l']} {d['n']} ({d['kind']})" for d in decls
    )
    detail = f"{raw['how']}: {detail}" if decls else raw["how"]
    if not decls:
        return Site(file, raw["l"], raw["n"], caller, UNKNOWN, (), detail)
    if all(not d["f"] for d in decls) or (
        any(not d["f"] for d in decls) and all(d["kind"] == "value" for d in decls if d["f"])
    ):
        # Outside, or the platform's declaration merged with the repository's augmentation of
        # it (``String(x)`` beside ``interface String`` in a global .d.ts): the callee is the
        # platform's.
        return Site(file, raw["l"], raw["n"], caller, OUTSIDE, (), detail)
    mapped = [
        names.symbol(d["f"], d["n"], d["l"], d["kind"] in ("fn", "class")) for d in decls if d["f"]
    ]
    found = [m for m in mapped if m]
    if raw["how"] == "signature":
        # One callee, declared in several places (overloads, the implementation): the first
        # that is a kgtool symbol names it.
        found = found[:1]
    if found:
        return Site(file, raw["l"], raw["n"], caller, REPO, tuple(dict.fromkeys(found)), detail)
    if all(d["kind"] == "value" for d in decls if d["f"]):
        # A variable or property holding some function: the checker does not say which.
        return Site(file, raw["l"], raw["n"], caller, VALUE, (), detail)
    return Site(file, raw["l"], raw["n"], caller, UNMAPPED, (), detail)


# ---- the checker's side: Python (jedi) -------------------------------------------------------


def _ratio(right: int, total: int) -> float | None:
    return round(right / total, 3) if total else None


def _edge_text(edge: Edge) -> str:
    if edge.tier == AMBIGUOUS:
        return f"AMBIGUOUS [{', '.join(edge.candidates)}]"
    return f"{edge.tier} {edge.confidence:g} {edge.target}"


def compare(kg: Kgtool, sites: list[Site], sample: int) -> dict[str, Any]:
    by_line: dict[tuple[str, int], list[Site]] = defaultdict(list)
    for site in sites:
        by_line[(site.file, site.line)].append(site)
    status = Counter(site.status for site in sites)

    verdicts: Counter[str] = Counter()  # "<tier> <confidence> right|wrong|unjudged|..."
    calibration: dict[tuple[str, float], Counter[str]] = defaultdict(Counter)
    ambiguous: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    kg_pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    kg_pairs_right: dict[str, set[tuple[str, str]]] = defaultdict(set)
    bound_pairs: set[tuple[str, str]] = set()
    caller_agree: Counter[str] = Counter()
    caller_differs: list[str] = []  # checker's caller / kgtool's
    unjudged: list[dict[str, Any]] = []
    ambiguous_wrong: list[dict[str, Any]] = []
    # Every INFERRED edge below the typed tiers, with its verdict: what a calibration by the
    # kind of guess is fitted on (written with --guesses, never into the results file).
    guesses: list[dict[str, Any]] = []

    for key, edges in kg.edges.items():
        on_line = by_line.get(key, [])
        for edge in edges:
            # The sites of the line that call the edge's callee by its name, when there are
            # some (``expect(a.get()).toBe(1)``: the edge to ``get`` is judged on ``get``
            # alone); else every site of the line (an alias, a default export).
            named = {_callee_name(t) for t in (edge.candidates or (edge.target,))}
            here = [s for s in on_line if s.name in named] or on_line
            right_targets = {t for s in here if s.status == REPO for t in s.targets}
            judged = bool(here) and all(s.status not in (UNKNOWN, VALUE) for s in here)
            valued = bool(here) and all(s.status != UNKNOWN for s in here)
            if edge.tier == AMBIGUOUS:
                if any(c in right_targets for c in edge.candidates):
                    ambiguous["right"] += 1
                elif _dispatched(kg, edge, edges, right_targets):
                    ambiguous["dispatch"] += 1
                elif judged:
                    ambiguous["wrong"] += 1
                    ambiguous_wrong.append(
                        {
                            "at": f"{key[0]}:{key[1]}",
                            "kgtool": _edge_text(edge),
                            "checker": [f"{s.name}: {s.status} {s.detail}" for s in here],
                        }
                    )
                elif valued:
                    ambiguous["value"] += 1
                else:
                    ambiguous["unjudged" if here else "no checker site"] += 1
                continue
            bound_pairs.add((edge.source, edge.target))
            if len(here) == 1 and here[0].status == REPO:
                same = here[0].caller == edge.source
                caller_agree["same" if same else "different"] += 1
                if not same and len(caller_differs) < sample:
                    caller_differs.append(f"{key[0]}:{key[1]} {here[0].caller} / {edge.source}")
            if edge.target in right_targets:
                verdict = "right"
            elif not here:
                verdict = "no checker site"
            elif (*key, _callee_name(edge.target)) in kg.callbacks and not any(
                s.name == _callee_name(edge.target) for s in here
            ):
                verdict = "callback"
            elif key in kg.result_calls and not any(
                s.name == _callee_name(edge.target) for s in here
            ):
                verdict = "call result"
            elif _dispatched(kg, edge, edges, right_targets):
                verdict = "dispatch"
            elif judged:
                verdict = "wrong"
            elif valued:
                verdict = "value"
            else:
                verdict = "unjudged"
            verdicts[f"{edge.tier} {verdict}"] += 1
            if edge.tier == INFERRED and edge.confidence < CONFIDENCE_VALUE_TYPE:
                guesses.append(
                    {
                        "at": f"{key[0]}:{key[1]}",
                        "source": edge.source,
                        "target": edge.target,
                        "confidence": edge.confidence,
                        "verdict": verdict,
                        "checker": [f"{s.name}: {s.status} {s.detail}" for s in here],
                    }
                )
            calibration[(edge.tier, edge.confidence)][verdict] += 1
            if verdict in ("right", "wrong"):
                kg_pairs[edge.tier].add((edge.source, edge.target))
                if verdict == "right":
                    kg_pairs_right[edge.tier].add((edge.source, edge.target))
            if verdict in ("unjudged", "value") and edge.tier == INFERRED:
                unjudged.append(
                    {
                        "at": f"{key[0]}:{key[1]}",
                        "kgtool": _edge_text(edge),
                        "checker": [f"{s.name}: {s.status} {s.detail}" for s in here],
                    }
                )
            if verdict == "wrong":
                wrong.append(
                    {
                        "at": f"{key[0]}:{key[1]}",
                        "kgtool": _edge_text(edge),
                        "checker": [f"{s.name}: {s.status} {s.detail}" for s in here],
                    }
                )

    # Recall: the checker's repository callees, bound to the right one, EXTRACTED or INFERRED.
    recall: Counter[str] = Counter()
    missed: list[dict[str, Any]] = []
    checker_pairs: set[tuple[str, str]] = set()
    for site in sites:
        if site.status != REPO:
            continue
        for target in site.targets[:1] if len(site.targets) == 1 else ():
            checker_pairs.add((site.caller, target))
        edges = kg.edges.get((site.file, site.line), [])
        bound = {e.target for e in edges if e.tier != AMBIGUOUS}
        # What the other calls on the line go to is theirs, not this site's.
        bound -= {
            t
            for other in by_line[(site.file, site.line)]
            if other is not site and site.targets != other.targets
            for t in other.targets
        }
        if bound & set(site.targets):
            recall["bound"] += 1
            continue
        listed = any(set(e.candidates) & set(site.targets) for e in edges if e.tier == AMBIGUOUS)
        if listed:
            kind = "AMBIGUOUS listing it"
        elif bound:
            kind = "another callee"
        elif not kg.sites.get((site.file, site.line)):
            kind = "no kgtool call site on the line"
        else:
            kind = "no edge (unresolved or external)"
        recall[kind] += 1
        missed.append(
            {
                "at": f"{site.file}:{site.line}",
                "name": site.name,
                "checker": f"{', '.join(site.targets)} ({site.detail})",
                "kgtool": [_edge_text(e) for e in edges] or ["no edge"],
                "kind": kind,
            }
        )
    recall_total = sum(recall.values())

    def precision(tier: str, values: bool = False) -> float | None:
        right, wrong = verdicts[f"{tier} right"], verdicts[f"{tier} wrong"]
        return _ratio(right, right + wrong + (verdicts[f"{tier} value"] if values else 0))

    def pair_precision(tier: str) -> float | None:
        return _ratio(len(kg_pairs_right[tier]), len(kg_pairs[tier]))

    rng = random.Random(SEED)
    return {
        "call_sites_kgtool": sum(kg.sites.values()),
        "call_sites_checker": len(sites),
        "checker_status": dict(status),
        "checker_resolved_in_repository": status[REPO],
        "extracted_precision": precision(EXTRACTED),
        "inferred_precision": precision(INFERRED),
        "inferred_precision_values_wrong": precision(INFERRED, values=True),
        "ambiguous_lists_right": _ratio(
            ambiguous["right"], ambiguous["right"] + ambiguous["wrong"]
        ),
        "recall": _ratio(recall["bound"], recall_total),
        "pairs": {
            "extracted_precision": pair_precision(EXTRACTED),
            "inferred_precision": pair_precision(INFERRED),
            "recall": _ratio(len(checker_pairs & bound_pairs), len(checker_pairs)),
            "checker_pairs": len(checker_pairs),
        },
        "edges": dict(sorted(verdicts.items())),
        "ambiguous": dict(ambiguous),
        "recall_detail": dict(recall),
        "caller_naming": dict(caller_agree),
        "caller_naming_differs": caller_differs,
        "calibration": [
            {
                "tier": tier,
                "confidence": confidence,
                "judged": counts["right"] + counts["wrong"],
                "right": counts["right"],
                "precision": _ratio(counts["right"], counts["right"] + counts["wrong"]),
                "value": counts["value"],
                "unjudged": counts["unjudged"] + counts["no checker site"],
                "dispatch": counts["dispatch"],
                "callback": counts["callback"],
                "call_result": counts["call result"],
            }
            for (tier, confidence), counts in sorted(calibration.items())
        ],
        "kgtool_wrong": _sample(wrong, sample, rng),
        "kgtool_missed": _sample(missed, sample, rng),
        "kgtool_wrong_total": len(wrong),
        "inferred_unjudged": _sample(unjudged, sample, rng),
        "ambiguous_wrong": _sample(ambiguous_wrong, sample, rng),
        "kgtool_missed_total": len(missed),
        "missed_kinds": dict(Counter(m["kind"] for m in missed)),
        "inferred_guesses": guesses,
    }


def _callee_name(node_id: str) -> str:
    """The name a call of ``node_id`` is written with: a function's or a class's last name."""
    return symbol_parts(node_id)[1].rpartition(".")[2]


def _dispatched(kg: Kgtool, edge: Edge, edges: list[Edge], right: set[str]) -> bool:
    """An INFERRED edge to an implementation of a member declared without a body (or an
    AMBIGUOUS one listing its implementations), beside an edge to that member, which the
    checker names: the call reaches them at run time."""
    if edge.tier == EXTRACTED:
        return False
    names = {_callee_name(t) for t in (edge.candidates or (edge.target,))}
    if len(names) != 1:
        return False
    name = names.pop()
    return any(
        other.target in right
        and symbol_parts(other.target)[1].rpartition(".")[2] == name
        and declared_only(kg.repo_index, other.target)
        for other in edges
        if other is not edge
    )


def _sample(items: list[dict[str, Any]], n: int, rng: random.Random) -> list[dict[str, Any]]:
    ordered = sorted(items, key=lambda i: (i["at"], json.dumps(i, sort_keys=True)))
    if len(ordered) <= n:
        return ordered
    return sorted(rng.sample(ordered, n), key=lambda i: i["at"])


# ---- report --------------------------------------------------------------------------------


def measure(
    repo: Repo, out: Path, sample: int, max_files: int, jobs: int, recheck: int
) -> dict[str, Any]:
    started = time.monotonic()
    rechecked: dict[str, Any] = {}
    root = checkout(repo, out)
    kg = kgtool_side(root, repo.language)
    kg_seconds = time.monotonic() - started
    names = Names(kg.facts)
    short = repo.name.split("/")[1]
    if repo.language == "TypeScript":
        files = sampled([p for p in kg.measured if p.endswith(TS_SUFFIXES)], max_files)
        cache = out / f"{short}.typescript.jsonl"
        sites = typescript_sites(root, out, files, names, cache)
    else:
        files = sampled([p for p in kg.measured if p.endswith(".py")], max_files)
        # Keyed by what the answers depend on: the commit, the files, the source folders.
        roots = "+".join(Path(p).name for p in source_roots(root)[:-1])
        cache = (
            out
            / f"{short}.{repo.commit[:12]}.{len(files)}{'.' + roots if roots else ''}.jedi.jsonl"
        )
        sites = python_sites(root, files, names, cache, jobs)
        if recheck:
            rechecked = recheck_python(root, cache, recheck, jobs)
    if max_files:
        chosen = set(files)
        kg = kg._replace(
            edges={k: v for k, v in kg.edges.items() if k[0] in chosen},
            sites=Counter({k: v for k, v in kg.sites.items() if k[0] in chosen}),
        )
    result = compare(kg, sites, sample)
    result.update(
        repository=repo.name,
        commit=repo.commit,
        set=repo.role,
        language=repo.language,
        files=len(files),
        files_sampled=bool(max_files) and len(files) < len(kg.measured),
        seconds=round(time.monotonic() - started),
        kgtool_seconds=round(kg_seconds),
        jedi_recheck=rechecked,
    )
    return result


def text_report(results: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for r in results:
        lines += [
            f"== {r['repository']} ({r['set']}, {r['language']}) at {r['commit'][:12]}",
            f"files: {r['files']}{' (sampled)' if r['files_sampled'] else ''}; {r['seconds']} s",
            f"call sites: kgtool {r['call_sites_kgtool']}, checker {r['call_sites_checker']}",
            f"checker answers: {r['checker_status']}",
            f"EXTRACTED precision: {r['extracted_precision']}",
            f"INFERRED precision: {r['inferred_precision']} "
            f"(a value the checker names counted wrong: {r['inferred_precision_values_wrong']})",
            f"AMBIGUOUS lists the right callee: {r['ambiguous_lists_right']} {r['ambiguous']}",
            f"recall of checker-resolved calls: {r['recall']} {r['recall_detail']}",
            f"per (caller, callee) pair: {r['pairs']}",
            f"edges: {r['edges']}",
            f"caller naming at one-site lines: {r['caller_naming']}",
            *(
                [f"jedi, a fresh Script per lookup: {r['jedi_recheck']}"]
                if r["jedi_recheck"]
                else []
            ),
            *(f"  differs (checker / kgtool): {d}" for d in r["caller_naming_differs"]),
            "calibration (tier, confidence: judged, right, precision, value, unjudged, dispatch, "
            "callback, call result):",
        ]
        for row in r["calibration"]:
            lines.append(
                f"  {row['tier']} {row['confidence']:g}: {row['judged']} {row['right']} "
                f"{row['precision']} {row['value']} {row['unjudged']} {row['dispatch']} "
                f"{row['callback']} {row['call_result']}"
            )
        lines.append(f"-- kgtool wrong ({r['kgtool_wrong_total']} in all), a sample:")
        for item in r["kgtool_wrong"]:
            lines.append(f"  {item['at']}  kgtool: {item['kgtool']}")
            for answer in item["checker"]:
                lines.append(f"      checker: {answer}")
        lines.append(f"-- kgtool missed ({r['kgtool_missed_total']} in all) {r['missed_kinds']}:")
        for item in r["kgtool_missed"]:
            lines.append(f"  {item['at']} {item['name']}  [{item['kind']}]")
            lines.append(f"      checker: {item['checker']}")
            lines.append(f"      kgtool: {'; '.join(item['kgtool'])}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", metavar="NAME")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument(
        "--guesses", type=Path, help="write every INFERRED edge below 0.9, judged (JSON lines)"
    )
    parser.add_argument("--max-files", type=int, default=0, help="0: every file")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--recheck",
        type=int,
        default=100,
        help="Python: sites asked again of a fresh jedi Script each (0: none)",
    )
    args = parser.parse_args(argv)
    table = held_out_table()
    by_short = {name.split("/")[1]: repo for name, repo in table.items()}
    repos = []
    for name in args.names:
        repo = table.get(name) or by_short.get(name)
        if repo is None:
            parser.error(f"{name}: not in {HELD_OUT.name} ({', '.join(table)})")
        repos.append(repo)
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    guesses: list[dict[str, Any]] = []
    for repo in repos:
        results.append(
            measure(repo, args.out, args.sample, args.max_files, args.jobs, args.recheck)
        )
        guesses += [{"repository": repo.name, **g} for g in results[-1].pop("inferred_guesses")]
        print(text_report(results[-1:]), flush=True)
    report = text_report(results)
    stem = "-".join(r.name.split("/")[1] for r in repos)
    (args.out / f"{stem}.txt").write_text(report)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.guesses:
        args.guesses.write_text("".join(json.dumps(g, sort_keys=True) + "\n" for g in guesses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
