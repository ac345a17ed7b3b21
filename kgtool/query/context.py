"""``kgtool context "<task>"``: the few things to read first for a task, within a budget.

Reading order, as the layers intend: a playbook that matches the task comes first (layer 4),
with its concepts' communities (layers 3 and 2) and its key symbols (layer 1); then the best
few files, each under its community with the evidence for it and the symbols to change at
``file:line``, the best communities' bridges and main symbols; then every other file with
evidence, one line each, until the budget is spent. Agent skill folders of the repository
are shown as evidence, never as checked recipes.

Playbooks and skills are matched by the task's words (split, lower-cased, crudely stemmed,
common words dropped), each weighted by how rare it is among the repository's files. Files
are ranked by one score (:mod:`kgtool.query.rank`): their paths and symbol names, their
contents and the past changes like the task (indexes kept in the read cache), a walk over
layer-1 edges from the best of them, a package the task names, and their kind. Every item
cites where it comes from (a playbook's path and line, ``.kg/communities.json`` and its
counts, a label's line in ``.kg/ontology.yaml``, a symbol's ``file:line``, a past change's
commit); a refused or unchecked playbook, a drifted or missing label, is marked as such,
never presented as fact. Names read from the repository are printed on one line, as code.

The budget counts characters of the whole output and is never exceeded: items are ranked,
most relevant first, and an item that does not fit is left out (with its details).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from pathlib import Path
from typing import Any, NamedTuple

from kgtool import bounded
from kgtool.communities.counts import describe_counts
from kgtool.communities.document import COMMUNITIES_FILE
from kgtool.communities.identity import id_number
from kgtool.errors import KgError
from kgtool.escape import md_code, md_path, printable
from kgtool.query.agent_skills import Skill, matching_skills
from kgtool.query.bundle import Bundle, render_json, render_markdown
from kgtool.query.history_index import PastChange
from kgtool.query.kg import MapState, Symbol, load_map, missing_notice
from kgtool.query.labels import Labels
from kgtool.query.words import MEET_LENGTH, identifier_words, meet, meets_any, task_terms
from kgtool.raw.graph import WHERE as RAW_WHERE
from kgtool.store import KG_DIR, ONTOLOGY_FILE, PAGES_DIR

FORMATS = ("markdown", "json")
MAX_PLAYBOOKS = 2  # playbooks shown in full; a task rarely fits more than one recipe
MAX_COMMUNITIES = 2  # shown with their summaries, bridges and main symbols
DETAILED_FILES = 4  # shown with their symbols and the evidence for them
MAX_LISTED = 400  # the tail: one line each, until the budget is spent
SHORT_TERMS = 3  # task words named per kind of evidence on a tail line (the rest counted)
TAIL_READ = 12  # tail lines whose files are read to name their best symbol
TAIL_EVERY = 10  # the next best community's bridges and main symbols after this many lines
HISTORY_CITED = 3  # past changes named for a file in JSON...
HISTORY_SHOWN = 1  # ...and in markdown, with their titles cut to
CITED_TITLE = 50
# A symbol is shown rather than the one enclosing it when it holds this share of its weight.
INNER_SHARE = 0.7
INNER_CANDIDATES = 40
SYMBOLS_PER_FILE = 3  # for a detailed file: the first with it, the others...
MORE_SYMBOLS_AFTER = 8  # ...once this many tail lines are shown
BRIDGES_PER_COMMUNITY = 3
MAIN_SYMBOLS = 3
MAX_SKILLS = 3
SIGNATURE_CHARS = 160
SIGNATURE_LINES = 4  # a definition written over more lines is cut, marked with "…"
# A playbook matches when it shares at least this share of the task's weight (and two of its
# words, or its only word): enough to say "this recipe is about your task".
PLAYBOOK_COVERAGE = 0.5


def context_for(root: Path, task: str, budget: int, fmt: str = "markdown") -> str:
    """The context bundle for ``task`` in the repository at ``root``: at most ``budget``
    characters, in ``fmt`` ("markdown" or "json"), the same bytes for the same input."""
    return bundle_and_render(root, task, budget, fmt)[0]


def bundle_and_render(root: Path, task: str, budget: int, fmt: str) -> tuple[str, list[str]]:
    """The rendered bundle, and its notices (what is wrong with the map), for a command that
    also says them on stderr."""
    if fmt not in FORMATS:
        raise KgError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if budget < 0:
        raise KgError(f"the budget must be 0 or more characters, not {budget}")
    bundle = build_bundle(load_map(root, indexed=True), task)
    text = render_json(bundle, budget) if fmt == "json" else render_markdown(bundle, budget)
    return text, bundle.notices


# -- the bundle ----------------------------------------------------------------------------


class FileMatch(NamedTuple):
    path: str
    score: float
    terms: list[str]  # the task's terms in its path or its symbols' names
    symbols: list[Symbol]  # those whose names hold the task's terms, best first
    via: list[tuple[str, int]]  # joined by edges to (file, count)
    content: list[str]  # the task's terms inside it
    history: list[str]  # matching past change sets, best first
    scope: str = ""  # the folder the task names that it lies in
    walked: bool = False  # found by the walk over layer-1 edges alone


class Index:
    """The repository's words (layer 1's, read by kgtool.query.kg), to meet a task's.

    Words are bucketed by their first letters, so that a task word is compared only with the
    words it could meet.
    """

    def __init__(self, state: MapState) -> None:
        self.state = state
        self.paths = sorted(set(state.file_lines) | set(state.community_of))
        self._buckets: dict[str, list[str]] = {}
        for word in sorted({*state.path_words, *state.symbol_words}):
            self._buckets.setdefault(word[:MEET_LENGTH], []).append(word)

    def words_meeting(self, term: str) -> list[str]:
        if len(term) < MEET_LENGTH:
            known = term in self.state.path_words or term in self.state.symbol_words
            return [term] if known else []
        return [w for w in self._buckets.get(term[:MEET_LENGTH], ()) if meet(term, w)]

    def idf(self, terms: list[str]) -> dict[str, float]:
        """Each term's weight: rare among the files is telling, everywhere is not."""
        total = max(len(self.paths), 1)
        weights = {}
        for term in terms:
            files: set[str] = set()
            for word in self.words_meeting(term):
                files.update(self.state.path_words.get(word, ()))
                files.update(s.path for s in self.state.symbol_words.get(word, ()))
            weights[term] = math.log(1 + total / (1 + len(files)))
        return weights

    def match_files(self, weights: dict[str, float]) -> list[FileMatch]:
        scores: dict[str, float] = {}
        matched: dict[str, list[str]] = {}
        symbol_scores: dict[str, dict[Symbol, float]] = {}
        for term, weight in weights.items():
            in_path: set[str] = set()
            hits: dict[str, set[Symbol]] = {}
            for word in self.words_meeting(term):
                in_path.update(self.state.path_words.get(word, ()))
                for symbol in self.state.symbol_words.get(word, ()):
                    hits.setdefault(symbol.path, set()).add(symbol)
            for path in in_path | set(hits):
                found = hits.get(path, set())
                gain = weight * (2.0 if path in in_path else 1.0)
                scores[path] = scores.get(path, 0.0) + gain + weight * min(len(found), 5) * 0.1
                matched.setdefault(path, []).append(term)
                per_symbol = symbol_scores.setdefault(path, {})
                for symbol in found:
                    per_symbol[symbol] = per_symbol.get(symbol, 0.0) + weight
        found_files = []
        for path, score in scores.items():
            per_symbol = symbol_scores.get(path, {})
            ranked = sorted(per_symbol, key=lambda s: (-round(per_symbol[s], 9), s.id))
            # One name holding several of the task's words ("_get_auto_indent" for "auto
            # indent") says more than a large file holding each somewhere.
            best = per_symbol[ranked[0]] if ranked else 0.0
            if ranked and best > max(weights[t] for t in matched[path]) + 1e-9:
                score += best
            found_files.append(FileMatch(path, score, matched[path], ranked, [], [], []))
        found_files.sort(key=lambda m: (-round(m.score, 9), m.path))
        return found_files


def build_bundle(state: MapState, task: str) -> Bundle:
    words = task_terms(task)
    bundle = Bundle(task, [_with_consequence(state, n) for n in state.notices], words)
    terms = list(words)
    index = Index(state)
    weights = index.idf(terms)
    lines = SourceLines(state.root)
    labels = Labels(state)
    playbooks = _matching_playbooks(state, task, terms, weights, index)
    for playbook, matched in playbooks[:MAX_PLAYBOOKS]:
        _add_playbook(bundle, state, labels, playbook, matched, lines)
    for skill, matched in matching_skills(state.root, weights, bundle.notices)[:MAX_SKILLS]:
        _add_skill(bundle, skill, matched)
    if state.layered:
        # Playbook files are read as layer 4 above, not offered again as code to read.
        shelf = f"{playbooks_folder(state)}/"
        ranked, past = ranked_files(state, index, weights, terms)
        files = [m for m in ranked if not m.path.startswith(shelf)]
        _add_communities(bundle, state, labels, files, weights, lines, bool(playbooks), past)
    elif not bundle.items:
        bundle.notices.append("nothing matches: without .kg/ only the playbooks can be read")
    return bundle


def ranked_files(
    state: MapState, index: Index, weights: dict[str, float], terms: list[str]
) -> tuple[list[FileMatch], dict[str, PastChange]]:
    """Every file with evidence for the task, best first (see kgtool.query.rank), and the
    past changes they cite."""
    from kgtool.communities.packages import is_source
    from kgtool.query.content_index import content_lexicon
    from kgtool.query.history_index import history_index
    from kgtool.query.rank import Evidence, combine, content_evidence, history_evidence

    evidence = Evidence()
    by_name = index.match_files(weights)
    for match in by_name:
        evidence.names[match.path] = match.score
        evidence.name_terms[match.path] = match.terms
    content_evidence(evidence, content_lexicon(state), terms)
    history = history_index(state.root, state.store)
    history_evidence(evidence, history, terms, state.community_of)
    paths = sorted(state.community_of)
    # Source as layer 2 reads it: a manifest or a file in a data folder is data here too, but
    # a tool's settings written as code (vitest.config.ts) are code to whoever edits them
    # (as data they fell out of trpc's answers at 4k: 0.49 -> 0.38 pooled).
    code = {path for path in paths if is_source(path)}
    symbols = {m.path: m.symbols for m in by_name}
    files = [
        FileMatch(
            r.path,
            r.score,
            r.names,
            symbols.get(r.path, []),
            r.via,
            r.content,
            r.history,
            r.scope,
            r.walked,
        )
        for r in combine(evidence, paths, state.neighbours, code, terms)
    ]
    return files, history.changes


def _with_consequence(state: MapState, notice: str) -> str:
    """A notice about missing layers, with what this answer is without them."""
    if not state.missing or notice != missing_notice(state.missing):
        return notice
    if RAW_WHERE in state.missing:
        return f"{notice}; this answer is read from the playbooks alone, nothing in it is checked"
    return f"{notice}; no communities or files are shown"


# -- playbooks -----------------------------------------------------------------------------


class PlaybookMatch(NamedTuple):
    report: Any  # kgtool.playbook.check.PlaybookReport, or a bare Playbook when unchecked
    checked: bool


def _playbook_words(playbook: Any) -> set[str]:
    text = " ".join(
        [playbook.title, playbook.intent, playbook.slug]
        + [s.value for s in playbook.key_files]
        + [s.value for s in playbook.concepts]
    )
    return identifier_words(text)


def _matching_playbooks(
    state: MapState, task: str, terms: list[str], weights: dict[str, float], index: Index
) -> list[tuple[PlaybookMatch, list[str]]]:
    from kgtool.query.playbooks import read_playbooks

    playbooks = read_playbooks(state)
    if not playbooks or not terms:
        return []
    words_of = {p.path: _playbook_words(p) for p in playbooks}
    # Only words the repository uses somewhere (a file or a playbook) can be asked to match:
    # "make label drift less sensitive" is about labels and drift wherever "sensitive" is.
    known = [
        t
        for t in terms
        if index.words_meeting(t) or any(meets_any(t, w) for w in words_of.values())
    ]
    total = sum(weights[t] for t in known)
    lowered = task.lower()
    scored = []
    for playbook in playbooks:
        matched = [t for t in known if meets_any(t, words_of[playbook.path])]
        weight = sum(weights[t] for t in matched)
        # A task that names one of the playbook's key files or symbols outright is about it.
        named = any(
            s.value.rsplit("::", 1)[-1].lower() in lowered and len(s.value) >= 4
            for s in playbook.key_files
        )
        enough_words = len(matched) >= min(2, len(known))
        if named or (matched and enough_words and weight >= PLAYBOOK_COVERAGE * total):
            scored.append((weight + (total if named else 0.0), playbook, matched))
    scored.sort(key=lambda item: (-round(item[0], 9), item[1].path))
    if not scored:
        return []
    chosen = [(p, m) for _, p, m in scored[:MAX_PLAYBOOKS]]
    reports = _check(state, [p for p, _ in chosen])
    return [
        (PlaybookMatch(reports.get(p.path, p), p.path in reports), matched) for p, matched in chosen
    ]


def playbooks_folder(state: MapState) -> str:
    from kgtool.playbook.check import playbooks_dir

    return playbooks_dir(state.config)


def _check(state: MapState, playbooks: list[Any]) -> dict[str, Any]:
    """The verdicts of these playbooks; empty when there is no graph to check against."""
    from kgtool.query.playbooks import check_with_map

    report = check_with_map(state, playbooks)
    return {r.playbook.path: r for r in report.playbooks} if report else {}


def _playbook_status(match: PlaybookMatch) -> tuple[str, list[str]]:
    """(status words, the reasons it may not be followed as is)."""
    if not match.checked:
        playbook = match.report
        return "NOT CHECKED (no .kg/ to check it against): not executable", [
            str(p) for p in playbook.problems
        ]
    report = match.report
    if report.refused:
        return "REFUSED by `kgtool playbooks check`: not executable, do not follow it as is", [
            str(p) for p in report.errors
        ]
    warnings = [str(p) for p in report.warnings]
    if report.executable:
        return "active, executable (checked: every key file resolves)", warnings
    return f"{report.playbook.status}, not executable (not active)", warnings


def _add_playbook(
    bundle: Bundle,
    state: MapState,
    labels: Labels,
    match: PlaybookMatch,
    matched: list[str],
    lines: SourceLines,
) -> None:
    report = match.report
    playbook = report.playbook if match.checked else report
    status, reasons = _playbook_status(match)
    title = playbook.title or playbook.slug
    head = [
        f"## Playbook: {title} ({playbook.path}:1)",
        f"Status: {status}",
        *[f"- {reason}" for reason in reasons],
        f"Matched task words: {', '.join(bundle.said(matched)) or '(a key file it names)'}",
        f"Intent ({playbook.path}:{playbook.line_of('intent')}): {playbook.intent}",
    ]
    parent = bundle.add(
        "\n".join(head),
        {
            "kind": "playbook",
            "path": playbook.path,
            "title": title,
            "status": status,
            "problems": reasons,
            "matched": bundle.said(matched),
            "intent": playbook.intent,
            "source": f"{playbook.path}:{playbook.line_of('intent')}",
        },
    )
    pointers = {p.scalar.value: p.resolution for p in report.pointers} if match.checked else {}
    heading = f"Key files ({playbook.path}:{playbook.line_of('key_files')}):"
    key_lines, short_lines, key_data = [heading], [heading], []
    for scalar in playbook.key_files:
        resolution = pointers.get(scalar.value)
        where = f"{playbook.path}:{scalar.line}"
        entry = {"pointer": scalar.value, "source": where}
        if resolution is None:
            key_lines.append(f"- `{scalar.value}` ({where}; not checked)")
            entry["outcome"] = "unchecked"
        elif not resolution.resolved:
            key_lines.append(f"- `{scalar.value}` ({where}) does not resolve: {resolution.outcome}")
            entry["outcome"] = resolution.outcome
        else:
            located = _locate(state, resolution.target, lines)
            key_lines.append(f"- `{scalar.value}` ({where}) → {located['text']}")
            entry |= {"outcome": resolution.outcome} | located["data"]
        key_data.append(entry)
        # Without signatures and playbook lines, for a budget too small for the whole list.
        found = f"{entry['file']}:{entry['line']}" if entry.get("line") else entry.get("file")
        short_lines.append(
            f"- `{scalar.value}`" + (f" → {found}" if found else f" ({entry['outcome']})")
        )
    data = {"kind": "key_files", "playbook": playbook.path, "files": key_data}
    short_data = [
        {k: v for k, v in entry.items() if k in ("pointer", "outcome", "file", "line")}
        for entry in key_data
    ]
    bundle.add(
        "\n".join(key_lines),
        data,
        parent,
        short=("\n".join(short_lines), {**data, "files": short_data, "short": True}),
    )
    if match.checked:
        for concept in report.concepts:
            bundle.add(*_concept(state, labels, playbook.path, concept), parent)
    for name in ("validation", "pitfalls", "rollback"):
        steps = getattr(playbook, name)
        if not steps:
            continue
        where = f"{playbook.path}:{playbook.line_of(name)}"
        text = f"{name.capitalize()} ({where}):\n" + "\n".join(f"- {s}" for s in steps)
        bundle.add(
            text,
            {"kind": name, "playbook": playbook.path, "source": where, "steps": list(steps)},
            parent,
        )


def _concept(
    state: MapState, labels: Labels, path: str, concept: Any
) -> tuple[str, dict[str, Any]]:
    where = f"{path}:{concept.scalar.line}"
    cid = concept.community
    if not cid:
        return (
            f"Concept '{concept.scalar.value}' ({where}): unresolved, no community matches it",
            {"kind": "concept", "concept": concept.scalar.value, "source": where, "community": ""},
        )
    name = _title(labels, cid)
    community = state.communities.get(cid, {})
    size = _size(community)
    bridges = _bridges(state, cid)
    shown = "; ".join(_bridge_text(labels, e, cid) for e in bridges)
    stale = f" — its label has DRIFTED: {concept.stale}" if concept.stale else ""
    text = (
        f"Concept '{concept.scalar.value}' ({where}) → {cid} {name}{stale}: {_files(size)} "
        f"({KG_DIR}/{COMMUNITIES_FILE}); edges: {shown or 'none'}"
    )
    return text, {
        "kind": "concept",
        "concept": concept.scalar.value,
        "source": where,
        "community": cid,
        "name": labels.name(cid),
        "label": labels.mark(cid),
        "drift": concept.stale,
        "size": size,
        "edges": [_bridge_data(e) for e in bridges],
    }


# -- skills --------------------------------------------------------------------------------


def _add_skill(bundle: Bundle, skill: Skill, matched: list[str]) -> None:
    # One line each: a name or folder holding a newline must not start a section of the
    # bundle that an agent would read as kgtool's own.
    bundle.add(
        "## Agent skill (evidence, not checked by kgtool): "
        f"{printable(skill.name)} ({printable(skill.path)}:1)\n"
        f"{printable(skill.description)}\nMatched task words: {', '.join(bundle.said(matched))}",
        {
            "kind": "skill",
            "path": skill.path,
            "source": f"{skill.path}:1",
            "name": skill.name,
            "description": skill.description,
            "matched": bundle.said(matched),
            "checked": False,
        },
    )


# -- communities ---------------------------------------------------------------------------


def _title(labels: Labels, cid: str) -> str:
    """``'Name'``, ``'Name' (drifted)``, ``'Name' (offline name, unlabelled)`` or
    ``(unlabelled)``: the name is quoted, as a label; one nobody wrote is marked as such."""
    mark = labels.mark(cid)
    if mark == "unlabelled":
        offline = _offline_name(labels, cid)
        return f"'{offline}' (offline name, unlabelled)" if offline else "(unlabelled)"
    name = labels.name(cid)
    return f"'{name}' (drifted)" if mark == "drifted" else f"'{name}'"


def _offline_name(labels: Labels, cid: str) -> str:
    """The name the map gave a community nobody labelled (from its paths, identifiers and
    docstrings, on its page); "" for a labelled one, or when it has no page."""
    return labels.text(cid).name if labels.mark(cid) == "unlabelled" else ""


def _edges(state: MapState) -> list[dict[str, Any]]:
    edges = (state.document or {}).get("edges", [])
    return sorted(edges, key=lambda e: (-e["total"], e["src"], e["dst"]))


def _bridges(state: MapState, cid: str) -> list[dict[str, Any]]:
    """A community's strongest edges to others, both ways."""
    found = [e for e in _edges(state) if cid in (e["src"], e["dst"]) and e["src"] != e["dst"]]
    return found[:BRIDGES_PER_COMMUNITY]


def _bridge_text(labels: Labels, edge: dict[str, Any], cid: str) -> str:
    outgoing = edge["src"] == cid
    other = edge["dst"] if outgoing else edge["src"]
    arrow = "→" if outgoing else "←"
    phrase, mark, line = labels.phrase(f"{edge['src']}->{edge['dst']}")
    said = ""
    if phrase:
        drifted = " (drifted)" if mark else ""
        said = f', "{phrase}"{drifted} ({KG_DIR}/{ONTOLOGY_FILE}:{line})'
    return f"{arrow} {other} {_title(labels, other)}: {describe_counts(edge['types'])}{said}"


def _bridge_data(edge: dict[str, Any]) -> dict[str, Any]:
    return {"src": edge["src"], "dst": edge["dst"], "total": edge["total"], "types": edge["types"]}


def _community_scores(
    state: MapState, labels: Labels, files: list[FileMatch], weights: dict[str, float]
) -> list[tuple[float, str, list[FileMatch], list[str]]]:
    by_community: dict[str, list[FileMatch]] = {}
    for match in files:
        cid = state.community_of.get(match.path)
        if cid:
            by_community.setdefault(cid, []).append(match)
    ranked = []
    for cid in state.communities:
        found = by_community.get(cid, [])
        words = identifier_words(f"{labels.name(cid)} {labels.summary(cid)}")
        named = [t for t in weights if meets_any(t, words)]
        score = sum(m.score for m in found[:3]) + sum(2 * weights[t] for t in named)
        if score > 0:
            ranked.append((score, cid, found, named))
    ranked.sort(key=lambda item: (-round(item[0], 9), id_number(item[1])))
    return ranked


def _files(count: int) -> str:
    return f"{count} file{'s' * (count != 1)}"


def _add_communities(
    bundle: Bundle,
    state: MapState,
    labels: Labels,
    files: list[FileMatch],
    weights: dict[str, float],
    lines: SourceLines,
    after_playbook: bool,
    past: dict[str, PastChange],
) -> None:
    """The files that match best, each under its community, and the best communities with
    their bridges and main symbols. Files are chosen by their own rank across communities
    (a community's header comes with its first file); the best communities' bridges and main
    symbols come in after every few files.

    Long because the files, the headers of their communities and the communities' bridges
    and symbols are interleaved in one ranked sequence, whose ranks depend on what was added
    before; the item texts themselves are made by small functions."""
    tail = files[DETAILED_FILES:MAX_LISTED]
    files = files[:DETAILED_FILES]
    ranked = _community_scores(state, labels, files, weights)
    if not ranked:
        bundle.notices.append("no playbook, community, path or symbol matches the task's words")
        return
    # Described in full: the best of the communities the detailed files are in.
    holding = {state.community_of[m.path] for m in files}
    top = [cid for _, cid, _, _ in ranked if cid in holding][:MAX_COMMUNITIES]
    file_rank = {m.path: number for number, m in enumerate(files)}
    shown = set(top) | {state.community_of[m.path] for m in files}

    def first_file(cid: str) -> float:
        ranks = [file_rank[m.path] for m in files if state.community_of[m.path] == cid]
        return min(ranks) if ranks else len(files) + top.index(cid)

    order = sorted(shown, key=lambda cid: (first_file(cid), id_number(cid)))
    intro = (
        "## Communities that also match the task (layers 2 and 3)"
        if after_playbook
        else "## No playbook matches: the communities and files that match the task best "
        "(layers 2 and 3)"
    )
    bundle.add(intro, {"kind": "section", "title": intro.lstrip("# ")}, rank=-1)
    scores = {cid: score for score, cid, _, _ in ranked}
    named_of = {cid: named for _, cid, _, named in ranked}
    for cid in order:
        said = bundle.said(named_of.get(cid, []))
        line = _community_line(state, labels, cid)
        # Only the best communities are described; the rest are named, as where a file lives.
        full = _community_header(state, labels, cid, scores.get(cid, 0.0), said)
        header = bundle.add(
            *(full if cid in top else line),
            rank=first_file(cid) - 0.5,
            short=line if cid in top else None,
        )
        for match in (m for m in files if state.community_of[m.path] == cid):
            chosen = task_symbols(state, match, lines, weights)[:SYMBOLS_PER_FILE]
            item = _file_item(state, cid, match, lines, bundle, chosen[:1], past)
            short = (
                f"- {md_path(match.path)}",
                {"kind": "file", "community": cid, "path": match.path, "short": True},
            )
            file_item = bundle.add(*item, header, rank=file_rank[match.path], short=short)
            if len(chosen) > 1:
                # More of its symbols once the tail has listed a few files: a small budget
                # is better spent on files.
                more = [_locate(state, s.id, lines) for s in chosen[1:]]
                bundle.add(
                    "\n".join(f"  - {loc['text']}" for loc in more),
                    {"kind": "symbols", "path": match.path, "symbols": [m["data"] for m in more]},
                    file_item,
                    rank=len(files) + MORE_SYMBOLS_AFTER + file_rank[match.path] + 0.2,
                    tight=True,
                )
        if cid not in top:
            continue
        # The best communities' context among the tail, after a first few lines of it.
        context_rank = len(files) + TAIL_EVERY * (top.index(cid) + 1) + 0.5
        bridges = _bridges(state, cid)
        if bridges:
            text = f"Bridges of {cid} (layer-2 counts, {KG_DIR}/{COMMUNITIES_FILE}):\n" + "\n".join(
                f"- {_bridge_text(labels, e, cid)}" for e in bridges
            )
            data = {
                "kind": "bridges",
                "community": cid,
                "edges": [_bridge_data(e) for e in bridges],
            }
            bundle.add(text, data, header, rank=context_rank)
        mains = state.communities[cid].get("top_symbols", [])[:MAIN_SYMBOLS]
        if mains:
            located = [(_locate(state, sid, lines), degree) for sid, degree in mains]
            text = (
                f"Main symbols of {cid} (by callers, {KG_DIR}/{COMMUNITIES_FILE}):\n"
                + "\n".join(f"- {loc['text']} — {degree} in" for loc, degree in located)
            )
            data = {
                "kind": "main_symbols",
                "community": cid,
                "symbols": [loc["data"] | {"in": d} for loc, d in located],
            }
            bundle.add(text, data, header, rank=context_rank + 0.1)
    _add_tail(bundle, state, tail, len(files), past, lines, weights)


def _add_tail(
    bundle: Bundle,
    state: MapState,
    tail: list[FileMatch],
    start: int,
    past: dict[str, PastChange],
    lines: SourceLines,
    weights: dict[str, float],
) -> None:
    """The files ranked after the detailed ones, one line each, until the budget is spent:
    recall has no ceiling but the budget."""
    if not tail:
        return
    title = "More files, best first (a file or its best symbol's file:line; community; why)"
    section = bundle.add(f"## {title}", {"kind": "section", "title": title}, rank=start + 0.4)
    for number, match in enumerate(tail):
        cid = state.community_of[match.path]
        # The first lines' symbols by what their bodies hold (their files are read); the
        # rest's by their names alone.
        found = task_symbols(state, match, lines, weights) if number < TAIL_READ else []
        found = found or [s for s in match.symbols if s.line]
        symbol = found[0] if found else None
        where = (
            f"{md_path(f'{match.path}:{symbol.line}')} {md_path(symbol.qualname)}"
            if symbol
            else md_path(match.path)
        )
        why = _reasons(match, bundle, past, short=True)
        data: dict[str, Any] = {
            "kind": "file",
            "community": cid,
            "path": match.path,
            "why": why,
            "score": round(match.score, 3),
            "short": True,
        }
        if symbol:
            data["symbol"] = {"id": symbol.id, "line": symbol.line}
        if match.scope:
            data["scope"] = match.scope
        text = f"- {where} ({cid}; {'; '.join(why)})"
        bundle.add(text, data, section, rank=start + 1 + number, tight=number > 0)


def _clip(text: str, most: int = 40) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _reasons(
    match: FileMatch, bundle: Bundle, past: dict[str, PastChange], short: bool = False
) -> list[str]:
    """Why a file is in the answer, each piece of evidence named."""
    most = SHORT_TERMS if short else len(bundle.words)

    def listed(terms: list[str]) -> str:
        said = bundle.said(terms)
        return ", ".join(said[:most]) + (f" +{len(said) - most}" if len(said) > most else "")

    why = []
    if match.terms:
        why.append(f"name: {listed(match.terms)}")
    inside = [t for t in match.content if t not in match.terms]
    if inside:
        why.append(f"{'also ' if match.terms else ''}inside: {listed(inside)}")
    if match.history:
        count = len(match.history)
        changes = f"{count} similar past change{'s' * (count != 1)}"
        if short:
            why.append(f"{count} past change{'s' * (count != 1)}")
        else:
            cited = ", ".join(
                f'{cid[:10]} "{_clip(printable(past[cid].title), CITED_TITLE)}"'
                for cid in match.history[:HISTORY_SHOWN]
                if cid in past
            )
            why.append(f"changed in {changes}, e.g. {cited}")
    if match.scope and not short:  # a tail line's path says it
        why.append(f"in {md_path(match.scope + '/')}, named by the task")
    if match.walked:
        joined = ", ".join(f"{md_path(path)} ({count})" for path, count in match.via[:2])
        why.append(
            f"joined by layer-1 edges to {joined}"
            if joined
            else "reached over layer-1 edges from the matches"
        )
    return why


def _size(community: dict[str, Any]) -> int:
    """A community's file count: its "size", else its members counted (a layer 2 written by
    hand may leave the size out), as ``kgtool explain`` counts them."""
    return int(community.get("size", len(community.get("members", ()))))


def _community_line(state: MapState, labels: Labels, cid: str) -> tuple[str, dict[str, Any]]:
    """A community in one line, for when its full header does not fit."""
    size = _size(state.communities[cid])
    return f"### {cid} {_title(labels, cid)} — {_files(size)} ({KG_DIR}/{COMMUNITIES_FILE})", {
        "kind": "community",
        "id": cid,
        "name": labels.name(cid),
        "offline_name": _offline_name(labels, cid),
        "label": labels.mark(cid),
        "size": size,
        "source": f"{KG_DIR}/{COMMUNITIES_FILE}",
        "short": True,
    }


def _community_header(
    state: MapState, labels: Labels, cid: str, score: float, named: list[str]
) -> tuple[str, dict[str, Any]]:
    community = state.communities[cid]
    mark = labels.mark(cid)
    head = [
        f"### {cid} {_title(labels, cid)} — {_files(_size(community))} "
        f"({KG_DIR}/{COMMUNITIES_FILE}; page {KG_DIR}/{PAGES_DIR}/{cid}.md)"
    ]
    where = f"{KG_DIR}/{ONTOLOGY_FILE}:{labels.line(cid)}"
    if mark == "unlabelled":
        offline = _offline_name(labels, cid)
        head.append(
            "Label: none yet (run `kgtool label`): named here by the map's offline name, "
            f"made from its paths and identifiers ({KG_DIR}/{PAGES_DIR}/{cid}.md)"
            if offline
            else "Label: none yet (run `kgtool label`): named here by its ID only"
        )
    elif mark == "drifted":
        head.append(
            f"Label ({where}) has DRIFTED, not a description of today's code: {labels.why(cid)}"
        )
    elif mark == "unconfirmed":
        head.append(f"Label ({where}) written by hand, not confirmed against layer 2")
    summary = labels.summary(cid) if mark != "unlabelled" else ""
    if summary:
        head.append(f"Summary ({where}): {summary}")
    if named:
        head.append(f"Its label matches: {', '.join(named)}")
    return "\n".join(head), {
        "kind": "community",
        "id": cid,
        "name": labels.name(cid),
        "offline_name": _offline_name(labels, cid),
        "label": mark,
        "drift": labels.why(cid) if mark == "drifted" else "",
        "summary": summary,
        "size": _size(community),
        "source": f"{KG_DIR}/{COMMUNITIES_FILE}",
        "label_source": where if mark != "unlabelled" else "",
        "score": round(score, 3),
    }


def _file_item(
    state: MapState,
    cid: str,
    match: FileMatch,
    lines: SourceLines,
    bundle: Bundle,
    chosen: list[Symbol],
    past: dict[str, PastChange],
) -> tuple[str, dict[str, Any]]:
    symbols = [_locate(state, s.id, lines) for s in chosen]
    size = state.file_lines.get(match.path, 0)
    why = _reasons(match, bundle, past)
    text = f"- {md_path(match.path)} ({size} lines; {'; '.join(why)})"
    text += "".join(f"\n  - {loc['text']}" for loc in symbols)
    return text, {
        "kind": "file",
        "community": cid,
        "path": match.path,
        "lines": size,
        "matched": bundle.said(match.terms),
        "inside": bundle.said(match.content),
        "past_changes": [
            {"id": c, "title": past[c].title} for c in match.history[:HISTORY_CITED] if c in past
        ],
        "scope": match.scope,
        "joined_to": [{"file": path, "edges": count} for path, count in match.via],
        "symbols": [loc["data"] for loc in symbols],
        "score": round(match.score, 3),
    }


def task_symbols(
    state: MapState, match: FileMatch, lines: SourceLines, weights: dict[str, float]
) -> list[Symbol]:
    """The file's symbols a change for the task most likely touches, best first: those whose
    bodies hold the most of the task's weight (and whose names hold it, counted twice), an
    inner symbol before the one enclosing it when it holds as much."""
    symbols = [s for s in state.index.symbols.get(match.path, []) if s.line > 0]
    if not symbols or not weights:
        return list(match.symbols)
    # The lines holding each term, as text lower-cased ("parseUrl" holds "pars"): a cheaper
    # reading than splitting every line into words, and as good for telling symbols apart.
    lowered = lines.lowered(match.path)
    held = {term: [n for n, text in enumerate(lowered, 1) if term in text] for term in weights}
    named = {s.id for s in match.symbols}
    scores: dict[Symbol, float] = {}
    for symbol in symbols:
        end = max(symbol.end, symbol.line)
        score = 0.0
        for term, weight in weights.items():
            found = held[term]
            first = bisect_left(found, symbol.line)
            if first < len(found) and found[first] <= end:
                score += weight
        if symbol.id in named:
            own = identifier_words(symbol.qualname.rsplit(".", 1)[-1])
            score += sum(w for t, w in weights.items() if meets_any(t, own))
        if score > 0:
            scores[symbol] = score
    best = sorted(scores, key=lambda s: (-round(scores[s], 9), s.end - s.line, s.line))
    best = best[:INNER_CANDIDATES]

    def encloses(outer: Symbol, inner: Symbol) -> bool:
        return outer != inner and outer.line <= inner.line and inner.end <= outer.end

    return [
        symbol
        for symbol in best
        if not any(
            encloses(symbol, other) and scores[other] >= INNER_SHARE * scores[symbol]
            for other in best
        )
    ]


class SourceLines:
    """The first lines of definitions, read from the working tree for signatures."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, list[str]] = {}
        self._lowered: dict[str, list[str]] = {}

    def text(self, path: str) -> list[str]:
        if path not in self._files:
            data = bounded.read_tracked(self.root, path, 2_000_000, head=True) or b""
            self._files[path] = data.decode("utf-8", "replace").splitlines()
        return self._files[path]

    def lowered(self, path: str) -> list[str]:
        if path not in self._lowered:
            self._lowered[path] = [line.lower() for line in self.text(path)]
        return self._lowered[path]

    def signature(self, path: str, line: int) -> str:
        text = self.text(path)
        if not 0 < line <= len(text):
            return ""
        parts = []
        for number in range(line - 1, min(line - 1 + SIGNATURE_LINES, len(text))):
            parts.append(text[number].strip())
            joined = " ".join(parts)
            if _complete(joined):
                break
        else:
            parts.append("…")
        signature = " ".join(" ".join(parts).split())
        if len(signature) > SIGNATURE_CHARS:
            signature = signature[: SIGNATURE_CHARS - 1] + "…"
        return signature


def _complete(text: str) -> bool:
    """A definition's head has ended: its brackets are closed and it opens a body."""
    depth = sum(text.count(c) for c in "([") - sum(text.count(c) for c in ")]")
    return depth <= 0 and (text.endswith((":", "{", ";", ")")) or "{" in text or "=>" in text)


def _locate(state: MapState, node_id: str, lines: SourceLines) -> dict[str, Any]:
    """A layer-1 node as ``file:line`` with its signature (text and data)."""
    symbol = state.symbol(node_id)
    if symbol is None:
        path = state.path_of(node_id)
        size = state.file_lines.get(path, 0)
        text = f"{md_path(path)} ({size} lines)"
        return {"text": text, "data": {"id": node_id, "file": path}}
    signature = lines.signature(symbol.path, symbol.line)
    where = f"{symbol.path}:{symbol.line}"
    text = f"{md_path(symbol.qualname)} {printable(where)}" + (
        f" {md_code(signature)}" if signature else ""
    )
    return {
        "text": text,
        "data": {
            "id": node_id,
            "file": symbol.path,
            "line": symbol.line,
            "end": symbol.end,
            "kind": symbol.kind,
            "signature": signature,
        },
    }


# -- rendering within the budget -----------------------------------------------------------
