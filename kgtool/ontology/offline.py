"""The offline labeler: names, summaries and edge phrases from structure alone.

It is what every command falls back on with no API key, and what ``kgtool update`` shows for
communities nobody has labelled, so it is pure and fast (no I/O, no network) and gives the
same bytes for the same input. It reads only what a ``CommunityItem`` holds: member paths, the
main files, the top symbols, the first lines of the main files' docstrings and typed edge counts.

A name is "<area>: <items>": the area is the folder the community lives in ("Raw languages"),
or what kind of files it holds when that says more ("Tests", "Docs", "Project setup"); the
items are the (at most two) files, subfolders or recurring words that carry most of its
weight, the main files weighing most. MAP.md already lists the main files beside the name, so
the name stays short and moves as little as possible: a lone file never makes it in, a tie is
never broken alphabetically, and the items are listed in alphabetical order. A community's
name depends on that community alone, except when two names collide: then each of them gains
what tells it apart (its folder, its main file, at last its ID).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from typing import NamedTuple

from kgtool.communities.identity import id_number
from kgtool.file_kinds import DATA_FOLDERS, TEST_FOLDERS
from kgtool.ontology.file_words import (
    ACRONYMS,
    ASSET_DIRS,
    DOC_DIRS,
    DOC_FOLDERS,
    EDGE_UNDERSCORE,
    EMPTY_STEMS,
    EXAMPLE_DIRS,
    FILE_NOUNS,
    GENERIC_DIRS,
    GENERIC_FOLDERS,
    GENERIC_STEMS,
    IMAGE_EXTENSIONS,
    REVERSE_DOMAIN,
    capitalized,
    file_role,
    humanize,
    root_word,
    setup_facet,
    split_ext,
    stem_of,
    test_subject,
    tokens,
    word_count,
    words,
)
from kgtool.ontology.items import CommunityItem, CommunityText, EdgeItem, LabelBatch, TypedCounts
from kgtool.ontology.validate import (  # what a label may be, whoever wrote it
    MAX_NAME_CHARS,
    MAX_NAME_WORDS,
    MAX_SUMMARY_CHARS,
    MAX_SUMMARY_WORDS,
    strip_markup,
    validate_name,
)

MAX_ITEMS = 2
MAX_AREA_WORDS = 3
MIN_ITEM_SCORE = 2.0  # two files, or one file that others depend on
HOME_SHARE = 0.6  # the home folder holds at least this share of a community's weight
THEME_TERMS = 3  # a word shared by this many files or subfolders becomes one item
MAIN_BONUS = (4.0, 3.0, 2.0, 1.5, 1.0)  # extra weight of the main files, busiest first
SYMBOL_BONUS = 0.5  # extra weight of a file per top symbol it defines
GENERIC_WEIGHT = 0.25  # utils.py, common/, exceptions.py: named when nothing else is
SUMMARY_SYMBOLS = 3
TESTS_FIRST = 0.8  # share of tests that makes a community a test community, whatever its main file
EXAMPLES_FIRST = 0.5  # the same for examples: they use a library, they are not about it
MIN_KIND_COMMUNITY = 5  # below this a module and its tests (or examples) are named for the module


# --- one community ---------------------------------------------------------------------------


class Term:
    """One candidate item of a name: a file stem, a subfolder or a recurring word."""

    __slots__ = ("display", "key", "score")

    key: str
    display: str
    score: float

    def __init__(self, key: str, display: str, score: float = 0.0) -> None:
        self.key = key
        self.display = display
        self.score = score


class Profile(NamedTuple):
    """What the labeler makes of one community before writing anything."""

    item: CommunityItem
    members: list[str]  # the paths shown, and the main files and top symbols' files beyond them
    kind: str  # code, test, fixture, example, doc, setup, asset, data
    core: list[str]  # the member paths of that kind: what the name is about
    home: str  # the folder that holds most of the core ("" for the top level)
    area: str  # the first part of the name
    fixed: list[str]  # items always named first: a folder, the kinds of a mixed community
    ranked: list[Term]  # items by weight, heaviest first: files, subfolders, recurring words
    fallback: list[str]  # items when nothing else can be said: symbols, "pages", "tooling"
    roles: dict[str, str]  # path -> what the file is


KIND_AREA = {
    "test": "Tests",
    "fixture": "Fixtures",
    "example": "Examples",
    "doc": "Docs",
    "setup": "Project setup",
    "asset": "Assets",
    "data": "Data",
}
KIND_NOUN = {
    "code": "files",
    "test": "test files",
    "fixture": "fixture files",
    "example": "example files",
    "doc": "documentation files",
    "setup": "project files",
    "asset": "asset files",
    "data": "data files",
}
ROLE_NOUN = {
    "code": ("source file", "source files"),
    "test": ("test file", "test files"),
    "fixture": ("fixture", "fixtures"),
    "example": ("example", "examples"),
    "doc": ("doc page", "doc pages"),
    "setup": ("project file", "project files"),
    "asset": ("image", "images"),
}


def has_main_files(item: CommunityItem) -> bool:
    """False when the main files are only the first members: a community nothing points into
    has no busiest file, and alphabetical order must not weigh on its name."""
    return bool(item.edges_in or item.top_symbols) or (
        bool(item.main_files)
        and tuple(item.main_files) != tuple(item.paths[: len(item.main_files)])
    )


def visible_members(item: CommunityItem) -> list[str]:
    """The members the labeler can see: ``paths`` stops at ``max_paths`` in path order, so the
    busiest files of a large community may only appear among its main files and symbols."""
    seen = set(item.paths) | set(item.main_files)
    seen |= {symbol.split("::", 1)[0] for symbol in item.top_symbols}
    return sorted(seen)


def weights(item: CommunityItem, members: list[str]) -> dict[str, float]:
    """Each visible member's weight: 1, plus a bonus for main files and top symbols."""
    weight = dict.fromkeys(members, 1.0)
    for rank, path in enumerate(item.main_files if has_main_files(item) else ()):
        bonus = MAIN_BONUS[rank] if rank < len(MAIN_BONUS) else 0.5
        weight[path] = weight.get(path, 1.0) + bonus
    for symbol in item.top_symbols:
        path = symbol.split("::", 1)[0]
        if path in weight:
            weight[path] += SYMBOL_BONUS
    return weight


def community_kind(item: CommunityItem, roles: dict[str, str], weight: dict[str, float]) -> str:
    """The kind of file a community is about: its main files decide, then the majority; a
    community of which ``TESTS_FIRST`` of the files are tests is named as tests, whatever
    the few modules they share it with (23 plugin tests beside tag.py and json.py), and one
    of which ``EXAMPLES_FIRST`` are examples as examples (23 example extensions beside the
    three agent modules they call)."""
    code = [p for p, role in roles.items() if role == "code"]
    counts = Counter(roles.values())
    main_role = roles[item.main_files[0]] if has_main_files(item) and item.main_files else ""
    if len(roles) >= MIN_KIND_COMMUNITY:
        if counts["test"] >= TESTS_FIRST * len(roles):
            return "test"
        if counts["example"] > EXAMPLES_FIRST * len(roles):
            return "example"
    if main_role == "code" or (code and len(code) >= 0.3 * len(roles)):
        return "code"
    totals: dict[str, float] = defaultdict(float)
    for path, role in roles.items():
        totals[role] += weight[path]
    order = ("test", "fixture", "example", "doc", "setup", "code", "asset", "data")
    return min(totals, key=lambda role: (-totals[role], order.index(role)))


def home_folder(paths: list[str], weight: dict[str, float]) -> str:
    """The deepest folder holding at least ``HOME_SHARE`` of the weight ("" = top level)."""
    total = sum(weight.get(p, 1.0) for p in paths)
    held: dict[str, float] = defaultdict(float)
    for path in paths:
        folder = posixpath.dirname(path)
        while folder:
            held[folder] += weight.get(path, 1.0)
            folder = posixpath.dirname(folder)
    candidates = [f for f in held if held[f] >= HOME_SHARE * total - 1e-9]
    if not candidates:
        return ""
    return max(candidates, key=lambda f: (f.count("/"), held[f], f))


def meaningful_segments(folder: str, drop: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(position, segment) of the segments of ``folder`` that say something."""
    segments = folder.split("/") if folder else []
    kept = []
    skip_next = False
    for index, segment in enumerate(segments):
        lower = segment.lower().lstrip("_")
        if skip_next:  # the company part of a reverse domain: com/acme/...
            skip_next = False
            continue
        if (
            lower in REVERSE_DOMAIN
            and index > 0
            and segments[index - 1].lower() in ("java", "kotlin", "scala")
        ):
            skip_next = True
            continue
        if lower in GENERIC_DIRS or lower in drop or not lower:
            continue
        kept.append((index, segment))
    return kept


def folder_words(segment: str) -> str:
    """A folder as it reads: ``_transports`` -> "transports", but ``pypi.org`` stays whole."""
    if "." in segment.strip("."):
        return segment.strip("._").lower()
    return humanize(segment)


def folder_label(folder: str, drop: frozenset[str] = frozenset()) -> str:
    """How a folder reads in a name: its last meaningful segment, with its parent unless the
    parent is the top of the tree (``kgtool/raw/languages`` -> "raw languages")."""
    kept = meaningful_segments(folder, drop)
    if not kept:
        return ""
    leaf = folder_words(kept[-1][1])
    if len(kept) > 1 and kept[-2][0] > 0:
        both = f"{folder_words(kept[-2][1])} {leaf}"
        if word_count(both) <= 3:
            return both
    return leaf


def term_for(path: str, home: str, kind: str, roles: dict[str, str]) -> tuple[str, str]:
    """(key, display) of the item a core path adds weight to: its subfolder under the home,
    else its stem (for tests, what it tests; for project files, which part of the setup)."""
    inside = bool(home) and path.startswith(home + "/")
    if home and not inside and kind != "code":
        return "", ""  # a stray page or image beside a folder of tests is not what it is about
    relative = path[len(home) + 1 :] if inside else path
    if "/" in relative and (inside or not home) and not (kind == "setup" and not home):
        sub = relative.split("/", 1)[0]
        if kind != "code" and sub.lower() in ASSET_DIRS:
            return "", ""  # a folder of logos says nothing about the pages beside it
        return "dir:" + sub.lower().lstrip("_."), folder_words(sub)
    if kind == "setup" and not home:
        role = roles.get(path)
        top = path.split("/", 1)[0] if "/" in path else ""
        if role == "setup" or (role == "doc" and (not top or top.lower() in DOC_DIRS)):
            facet = setup_facet(path) if role == "setup" else "docs"
            return "facet:" + facet, facet
        if not top or top.lower() in GENERIC_DIRS:
            return "", ""  # a stray source file says nothing about the setup around it
        return "dir:" + top.lower().lstrip("_."), folder_words(top)
    stem = stem_of(path)
    if kind in ("test", "fixture"):
        stem = test_subject(stem)
    if stem.lower() in EMPTY_STEMS or stem.lower().startswith("__") or not words(stem):
        return "", ""
    return "stem:" + stem.lower().lstrip("_"), humanize(stem)


def generic(key: str, kind: str) -> bool:
    """Whether an item is a name every package has (utils.py, common/), in code: a test
    helpers folder is what a test community holds, and says so."""
    source, _, name = key.partition(":")
    vague = {"stem": GENERIC_STEMS, "dir": GENERIC_FOLDERS}.get(source, frozenset())
    return kind == "code" and name in vague


def weighted_terms(
    core: list[str],
    home: str,
    kind: str,
    roles: dict[str, str],
    weight: dict[str, float],
    hidden: set[str],
    hub: str = "",
) -> list[Term]:
    """The items a name can list, heaviest first; ``hidden`` holds words already said,
    ``hub`` the file that defines the base class of the community's family."""
    terms: dict[str, Term] = {}
    hub_key = ""
    for path in core:
        key, display = term_for(path, home, kind, roles)
        if not key:
            continue
        term = terms.setdefault(key, Term(key, display))
        term.score += weight.get(path, 1.0)
        hub_key = key if path == hub else hub_key
    total = sum(term.score for term in terms.values())
    for term in terms.values():
        # base.py or common.py that defines NotifyBase or InfoExtractor is what ties the
        # family together, whatever its name.
        if generic(term.key, kind) and term.key != hub_key and 2 * term.score < total:
            term.score *= GENERIC_WEIGHT  # a community that is mostly util/ is named so
    # A word most items share is the theme: six "*_completions" files are "completions".
    by_word: dict[str, list[Term]] = {}
    for term in terms.values():
        if term.key.startswith("facet:"):
            continue
        for word in {root_word(w) for w in tokens(term.display)}:
            by_word.setdefault(word, []).append(term)
    themes = sorted(
        ((w, ts) for w, ts in by_word.items() if len(ts) >= THEME_TERMS and w not in hidden),
        key=lambda pair: (-sum(t.score for t in pair[1]), pair[0]),
    )
    for word, sharing in themes:
        members = [t for t in sharing if t.key in terms]
        if len(members) < THEME_TERMS:
            continue
        spelled = Counter(w for t in members for w in words(t.display) if root_word(w) == word)
        spelling = min(spelled, key=lambda s: (-spelled[s], s))
        merged = Term("word:" + word, ACRONYMS.get(spelling, spelling))
        for term in members:
            merged.score += term.score
            del terms[term.key]
        terms[merged.key] = merged
    ranked = sorted(terms.values(), key=lambda t: (-t.score, t.key))
    shown = []
    for term in ranked:
        said = {root_word(w) for w in words(term.display)}
        if said and said <= hidden:
            continue
        shown.append(term)
    return shown


def fallback_noun(kind: str, core: list[str]) -> str:
    """What a community's files are, when no file or word stands out."""
    extensions = Counter(split_ext(posixpath.basename(p))[1] for p in core)
    images = sum(n for ext, n in extensions.items() if ext in IMAGE_EXTENSIONS)
    if images > len(core) / 2:
        return "images"
    return {
        "doc": "pages",
        "setup": "tooling",
        "example": "programs",
        "fixture": "data",
        "asset": "images",
        "data": "files",
    }.get(kind, "files")


def family_hub(item: CommunityItem) -> str:
    """The file that defines the base class of the community's family ("" when none is
    among its top symbols)."""
    for symbol in item.top_symbols:
        path, _, name = symbol.partition("::")
        if item.family and name.split(".")[0] == item.family:
            return path
    return ""


def profile(item: CommunityItem) -> Profile:
    """What kind of files a community holds, where, and what its name can say about them."""
    paths = visible_members(item)
    roles = {p: file_role(p) for p in paths}
    weight = weights(item, paths)
    kind = community_kind(item, roles, weight)
    # Project setup is the catch-all: the READMEs and playbooks beside the CI files are its own.
    core = list(paths) if kind == "setup" else [p for p in paths if roles[p] == kind]
    if kind == "code":
        # Query files, templates and data beside the code belong to it.
        near = {posixpath.dirname(p) for p in core}
        core += [p for p in paths if roles[p] == "data" and posixpath.dirname(p) in near]
        core.sort()
    home = home_folder(core, weight)
    if kind == "setup":
        home = home.split("/")[0]  # .github/, not .github/workflows/: its parts are the items
    drop = {
        "test": TEST_FOLDERS,
        "fixture": DATA_FOLDERS | TEST_FOLDERS,
        "example": EXAMPLE_DIRS,
        "doc": DOC_FOLDERS,
    }.get(kind, frozenset())
    label = folder_label(home, drop)
    if kind == "doc" and home and home.split("/")[-1].lower() in ASSET_DIRS:
        label = "images"
    hidden = {root_word(w) for w in words(label)}
    family_words = {root_word(w) for w in words(item.family)}
    terms = weighted_terms(core, home, kind, roles, weight, hidden, family_hub(item))
    fixed: list[str] = []
    if kind == "code":
        area = label
        if not area:
            # Top level or a generic folder (src/): the busiest file leads, else the heaviest
            # item.
            lead = next(
                (
                    humanize(stem_of(p))
                    for p in (item.main_files if has_main_files(item) else ())
                    if roles.get(p) == "code" and term_for(p, "", kind, roles)[0]
                ),
                terms[0].display if terms else "",
            )
            area = " ".join(lead.split()[:MAX_AREA_WORDS])
            said = {root_word(w) for w in words(area)}
            terms = [t for t in terms if not {root_word(w) for w in words(t.display)} <= said]
    else:
        area = KIND_AREA[kind]
        if kind == "setup" and label:
            area = {".github": "GitHub"}.get(home.split("/")[0].lower(), capitalized(label))
            label = ""
        elif kind == "setup" and home:
            area = "Package setup"  # manifests and licences across crates/ or packages/
        hidden_area = {root_word(w) for w in words(area)}
        terms = [t for t in terms if not {root_word(w) for w in words(t.display)} <= hidden_area]
        fixed = [label] if label else []
        mixture = mixed_kinds(roles)
        if mixture:
            area, fixed, terms = "Mixed", mixture, []
    if not area:
        area = KIND_NOUN[kind].split()[0]
    # "Base" says nothing of a family; "Plugins" and "Lexers" do.
    area_words = {root_word(w) for w in words(area)} - {"base"}
    if kind == "code" and item.family and not area_words & family_words:
        # What the files are, beside where they live: "Plugins (NotifyBase): chime"; not
        # when the folder says it already ("Lexers", not "Lexers (RegexLexer)").
        area = f"{capitalized(area)} ({item.family})"
    if kind == "code":
        fallback = symbol_names(item, core)[:2] or ["code"]
    else:
        fallback = [fallback_noun(kind, core)]
    described = package_phrase(item, capitalized(area))
    if described:
        fallback = [described]  # what the package says it is, over its symbols or "code"
    return Profile(item, paths, kind, core, home, capitalized(area), fixed, terms, fallback, roles)


# Where a package's one-line description stops naming the package and starts on its purpose
# or qualities: "command line interface | to chat to LLMs", "AI Agent Framework | , the ...".
DESCRIPTION_END = re.compile(
    r"[,;(]|\s[-\u2013\u2014]\s|\.(?:\s|$)|\s(?:to|for|that|which|with|using|in|on|from|via|by)\s",
    re.I,
)
ARTICLES = frozenset({"a", "an", "the"})


def package_phrase(item: CommunityItem, area: str) -> str:
    """The few words a package's manifest uses for what it is ("Pydantic AI CLI: command line
    interface to chat to LLMs" -> "command line interface"), when they fit a name beside
    ``area``; "" otherwise. A description is cut, never shortened to a stub."""
    text = item.docstrings.get(item.manifest, "") if item.manifest else ""
    lead, colon, rest = text.partition(": ")
    if colon and rest and word_count(lead) <= MAX_AREA_WORDS + 1:
        text = rest  # "Pydantic AI CLI: ..." names the package, and the area says that already
    said = {root_word(w) for w in words(area)}
    kept = DESCRIPTION_END.split(text, maxsplit=1)[0].split()
    while kept and kept[0].casefold() in ARTICLES:
        kept = kept[1:]
    if not kept or {root_word(w) for w in words(" ".join(kept))} <= said:
        return ""
    if kept[0][:1].isupper() and kept[0][1:].islower():
        kept[0] = kept[0].lower()  # a sentence's first word, not a proper name
    phrase = " ".join(kept)
    # A manifest is the repository's text: only a phrase a name may hold (plain words, no
    # markup, within the limits) becomes one.
    try:
        validate_name(f"{area}: {phrase}")
    except ValueError:
        return ""
    return phrase


MIXED_SHARE = 0.2  # a kind of file with this share of a mixed community is named in it
MIXED_WORDS = {
    "code": "code",
    "test": "tests",
    "fixture": "fixtures",
    "example": "examples",
    "doc": "docs",
    "setup": "project setup",
    "asset": "images",
    "data": "data",
}


def mixed_kinds(roles: dict[str, str]) -> list[str]:
    """The kinds of file a community of leftovers holds, when none of them is half of it."""
    counts = Counter(roles.values())
    total = sum(counts.values())
    if not total or max(counts.values()) >= total / 2:
        return []
    shown = sorted(MIXED_WORDS[r] for r in counts if counts[r] >= MIXED_SHARE * total)
    return shown if len(shown) >= 2 else []


def symbol_names(item: CommunityItem, core: list[str]) -> list[str]:
    """Top symbols as a reader knows them (the class, not the method), those defined in the
    core files first: a test helper called everywhere is not what the code is about."""
    inside = set(core)
    ranked = sorted(item.top_symbols, key=lambda s: s.split("::", 1)[0] not in inside)
    names: list[str] = []
    for symbol in ranked:
        name = symbol.split("::", 1)[-1].split(".")[0]
        # "_private" would read as emphasis, and is rarely what a community is about.
        if name and name not in names and not EDGE_UNDERSCORE.search(name):
            names.append(name)
    return names


def compose(found: Profile, suffix: str = "") -> str:
    """ "<area>: <items>" within ``MAX_NAME_WORDS`` words (the suffix always fits).

    Ranked items are taken by weight in whole groups of equal weight: when a tie falls at the
    cut, the whole tie is left out, so no name rests on alphabetical order (a new file named
    "aardvark.py" must not push a word out). The chosen items are then listed alphabetically,
    so a change of weights that keeps the same items keeps the same name."""
    budget = MAX_NAME_WORDS - word_count(found.area) - word_count(suffix)
    chars = MAX_NAME_CHARS - len(found.area) - (len(suffix) + 1 if suffix else 0)
    chosen: list[str] = []
    said: set[str] = set()

    def fits(group: list[str], most: int = MAX_ITEMS) -> bool:
        fresh = [g for g in group if g.casefold() not in said]
        words_needed = sum(word_count(g) for g in fresh)
        chars_needed = sum(len(g) + 2 for g in fresh)  # ": " or ", " before each
        return (
            len(chosen) + len(fresh) <= most
            and words_needed <= budget
            and chars_needed <= chars - sum(len(c) + 2 for c in chosen)
        )

    def take(group: list[str]) -> None:
        nonlocal budget
        for g in group:
            if g.casefold() not in said:
                said.add(g.casefold())
                chosen.append(g)
                budget -= word_count(g)

    for item in found.fixed:
        if fits([item], MAX_NAME_WORDS):  # a folder or the kinds of a mixed bag: words permitting
            take([item])
    fixed = list(chosen)
    # A lone file with no edges in and no top symbol is not worth a word of the name: it
    # would come and go with every file added or removed.
    ranked = [t for t in found.ranked if t.score >= MIN_ITEM_SCORE]
    start = 0
    while start < len(ranked):
        end = start
        while end < len(ranked) and ranked[end].score == ranked[start].score:
            end += 1
        group = [t.display for t in ranked[start:end]]
        if not fits(group):
            break
        take(group)
        start = end
    if not chosen and word_count(found.area) < 2 and found.kind != "test":
        for item in found.fallback:
            if fits([item]):
                take([item])
    shown = fixed + sorted(chosen[len(fixed) :], key=str.casefold)
    if not shown and found.area == KIND_AREA["test"]:
        return f"Test suite {suffix}".strip()  # tests of many things, none of them twice
    name = f"{found.area}: {', '.join(shown)}" if shown else found.area
    return f"{name} {suffix}".strip()


def base_name(item: CommunityItem) -> str:
    """The name a community gets when no other community claims the same one."""
    return compose(profile(item))


def name_candidates(found: Profile) -> list[str]:
    """The base name, then ways to tell it apart from a namesake, most readable first."""
    item = found.item
    names = [compose(found)]
    if found.home:
        names.append(compose(found, f"({spoken_path(found.home, MAX_NAME_CHARS // 2)})"))
    if item.main_files:
        main = posixpath.basename(item.main_files[0])
        names.append(compose(found, f"({spoken_path(main, MAX_NAME_CHARS // 2)})"))
    names.append(compose(found, f"({item.id})"))
    return [name for name in names if len(name) <= MAX_NAME_CHARS] or [f"{found.area} {item.id}"]


def numbered(found: Profile, taken: set[str]) -> str:
    """The last resort, when even the name with the ID is taken (a person wrote it)."""
    number = 2
    while compose(found, f"({found.item.id}-{number})").casefold() in taken:
        number += 1
    return compose(found, f"({found.item.id}-{number})")


def spoken_path(path: str, limit: int) -> str:
    """A path as a name can say it, to tell two namesakes apart: its last segments within
    ``limit`` characters; with words instead of slashes when a segment starts or ends with an
    underscore, which a renderer would take for emphasis ("httpx/_models.py": "httpx models.py")."""
    segments = path.strip("/").split("/")
    while len("/".join(segments)) > limit and len(segments) > 1:
        segments = segments[1:]
    if any(EDGE_UNDERSCORE.search(s) for s in segments):
        return " ".join(EDGE_UNDERSCORE.sub("", s) or s for s in segments)[:limit].strip()
    return "/".join(segments)[-limit:]


# --- summaries -------------------------------------------------------------------------------


def listed(values: list[str]) -> str:
    if len(values) <= 1:
        return "".join(values)
    return f"{', '.join(values[:-1])} and {values[-1]}"


def counted(count: int, nouns: tuple[str, str]) -> str:
    return f"{count} {nouns[0] if count == 1 else nouns[1]}"


def folder_said(folder: str) -> str:
    """ "in a/b/", said safely: a folder whose name starts or ends with an underscore would
    read as emphasis, so its nearest plain ancestor is named instead (still true)."""
    while folder and EDGE_UNDERSCORE.search(folder):
        parent = posixpath.dirname(folder)
        if not parent:
            return f"in the {humanize(folder)} folder"
        folder = parent
    return f"in {folder}/" if folder else "at the top level"


def where(paths: list[str], home: str) -> str:
    """Where ``paths`` live: "in a/", "mostly in a/", "in a/ and b/", "at the top level"."""
    if home and all(p.startswith(home + "/") for p in paths):
        return folder_said(home)
    folders: Counter[str] = Counter()
    for path in paths:
        if home and path.startswith(home + "/"):
            folders[home] += 1
        else:
            folders[path.split("/", 1)[0] if "/" in path else ""] += 1
    ranked = sorted(folders, key=lambda f: (-folders[f], f))
    spoken = [folder_said(f) for f in ranked]
    if len(ranked) == 1:
        return spoken[0]
    if folders[ranked[0]] >= HOME_SHARE * len(paths):
        return f"mostly {spoken[0]}"
    rest = " and elsewhere" if len(ranked) > 2 else ""
    second = spoken[1].removeprefix("in ")
    return f"{spoken[0]} and {second}{rest}"


TOPIC_VERBS = {"test": "testing", "setup": "for", "doc": "on", "example": "including"}
MIN_QUOTE_CHARS = 30  # a docstring cut shorter than this says too little to quote


def summary(found: Profile) -> str:
    """One sentence: how many files, where, around what, what else, and what the main file
    says about itself, within what a label may hold (the quote is cut to fit)."""
    item = found.item
    files = "file" if item.size == 1 else "files"
    parts: list[str] = []  # what follows the head, most telling first
    if found.kind == "code":
        code = [p for p in found.core if found.roles[p] == "code"] or found.core
        if len(found.core) == len(found.members):
            head = f"{item.size} {files} {where(found.core, found.home)}"
        else:
            head = f"{item.size} {files}: source {where(code, found.home)}"
        symbols = symbol_names(item, found.core)
        if symbols:
            parts.append(f", around {listed(symbols[:SUMMARY_SYMBOLS])}")
    else:
        noun = KIND_NOUN[found.kind]
        head = f"{item.size} {noun[:-1] if item.size == 1 else noun} "
        head += where(found.core, found.home)
        # What a test file tests is worth saying even once; a lone page or script is not.
        least = 0.0 if found.kind == "test" else MIN_ITEM_SCORE
        topics = [t.display for t in found.ranked if t.score >= least]
        topics = found.fixed if found.area == "Mixed" else topics
        if topics:
            verb = TOPIC_VERBS.get(found.kind, "with")
            parts.append(f", {verb} {listed(topics[:MAX_ITEMS])}")
    extras = extra_files(found)
    if extras:
        parts.append(f", with {listed(extras)}")
    text = plain(head + "".join(parts))
    while parts and (len(text) > MAX_SUMMARY_CHARS - 1 or word_count(text) > MAX_SUMMARY_WORDS):
        parts.pop()  # the least telling goes first; the head is short
        text = plain(head + "".join(parts))
    doc = first_docstring(item, found.core)
    if doc:
        path, line = doc
        name = posixpath.basename(path)
        # A name a label may not hold as written ("[id].ts", "__init__.py") is said by role.
        if EDGE_UNDERSCORE.search(name) or plain(name) != name:
            name = "its main file" if path == item.main_files[0] else "one of its main files"
        lead = f"; {name} says '"
        room_chars = MAX_SUMMARY_CHARS - len(text) - len(lead) - 2
        room_words = MAX_SUMMARY_WORDS - word_count(text) - word_count(lead)
        quote = shortened(plain(line), room_chars, room_words)
        if quote:
            text += f"{lead}{quote}'"
    return text.rstrip(".") + "."


def plain(text: str) -> str:
    """One line with nothing a renderer could take for markup or a link."""
    return strip_markup(text).strip(" ,;:")


def shortened(text: str, chars: int, most_words: int) -> str:
    """``text`` cut at a word to fit, marked with "..." when cut; "" when too little fits."""
    text = text.rstrip(".:")
    if len(text) <= chars and word_count(text) <= most_words:
        return text
    kept: list[str] = []
    for word in text.split():
        if len(" ".join([*kept, word])) + 3 > chars or len(kept) + 1 > most_words:
            break
        kept.append(word)
    cut = " ".join(kept).rstrip(",;:")
    return f"{cut}..." if len(cut) >= MIN_QUOTE_CHARS else ""


def extra_files(found: Profile) -> list[str]:
    """The members that are not the community's main kind, counted by what they are (named
    without a count when only some of the members were shown)."""
    item = found.item
    core = set(found.core)
    counts: Counter[str] = Counter()
    for path in found.members:
        role = found.roles[path]
        if path in core and role == found.kind:
            continue
        if path in core or role == "data":
            noun = FILE_NOUNS.get(split_ext(path)[1], "")
        else:
            noun = ROLE_NOUN.get(role, ("", ""))[1]
        if noun:  # "3 other files" would tell nothing
            counts[noun] += 1
    shown = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:3]
    if len(found.members) < item.size:
        return [noun for noun, _ in shown]
    return [counted(n, (noun[:-1] if noun.endswith("s") else noun, noun)) for noun, n in shown]


def first_docstring(item: CommunityItem, core: list[str]) -> tuple[str, str] | None:
    """The first line the busiest file of the community's own kind says about itself (a test
    community is not described by the source file it happens to hold)."""
    inside = set(core)
    candidates = [p for p in item.main_files if p in inside]
    if not has_main_files(item):
        # The first members in path order: only an index or a README speaks for the rest.
        candidates = [p for p in candidates if stem_of(p).lower() in ("readme", "index", "_index")]
    for path in candidates:
        line = item.docstrings.get(path, "").strip()
        if line:
            return path, line.rstrip(".:")
    return None


# --- edges -----------------------------------------------------------------------------------

# (third person, after "may") for each edge type a phrase can name.
VERBS = {
    "calls": ("calls into", "call into"),
    "imports": ("imports from", "import from"),
    "inherits": ("extends classes of", "extend classes of"),
}
SHARE = 0.2  # a type with less than this share of the weight goes unmentioned


def edge_phrase(types: TypedCounts) -> str:
    """How one community relates to another, from the typed counts: "calls into",
    "imports from and calls into", "probably calls into" (mostly INFERRED), "may call into"
    (only AMBIGUOUS candidates), "extends classes of"."""
    weight: dict[str, int] = {
        k: t.get("EXTRACTED", 0) + t.get("INFERRED", 0) for k, t in types.items()
    }
    weight = {k: w for k, w in weight.items() if k in VERBS and w}
    hedge = ""
    if not weight:  # nothing bound for sure: only candidates
        weight = {
            k: sum(t.values()) for k, t in types.items() if k in VERBS and sum(t.values()) != 0
        }
        hedge = "may"
    if not weight:
        return "depends on"
    total = sum(weight.values())
    calls, imports, inherits = (weight.get(k, 0) for k in ("calls", "imports", "inherits"))
    if inherits and inherits >= 0.5 * total:
        order = ["inherits", "calls"]
    elif calls and calls >= imports:
        order = ["calls", "inherits"]
    elif calls:
        order = ["imports", "calls", "inherits"]
    else:
        order = ["imports", "inherits"]
    kinds = [k for k in order if weight.get(k, 0) and (k == order[0] or weight[k] >= SHARE * total)]
    kinds = kinds[:2]  # a third type would make the phrase a list, and too long to read
    lead = types.get(kinds[0], {})
    if not hedge:
        extracted = lead.get("EXTRACTED", 0)
        bound = extracted + lead.get("INFERRED", 0)
        if extracted < 0.5 * bound:
            hedge = "probably"
    if hedge == "may":
        return "may " + " and ".join(VERBS[k][1] for k in kinds)
    phrase = " and ".join(VERBS[k][0] for k in kinds)
    return f"{hedge} {phrase}".strip()


# --- the labeler -----------------------------------------------------------------------------


def unique_names(profiles: list[Profile], taken: set[str]) -> dict[str, str]:
    """Community ID -> a name no other community in the batch and nothing in ``taken`` has.

    Every community starts at its base name; all the communities that share a name move on
    together to their next candidate, so who keeps a name never depends on the order."""
    candidates = {p.item.id: name_candidates(p) for p in profiles}
    step = dict.fromkeys(candidates, 0)
    while True:
        current = {cid: candidates[cid][min(step[cid], len(candidates[cid]) - 1)] for cid in step}
        claims: Counter[str] = Counter(name.casefold() for name in current.values())
        clashing = [
            cid
            for cid, name in current.items()
            if claims[name.casefold()] > 1 or name.casefold() in taken
        ]
        movable = [cid for cid in clashing if step[cid] < len(candidates[cid]) - 1]
        if not movable:
            break
        for cid in movable:
            step[cid] += 1
    by_id = {p.item.id: p for p in profiles}
    for cid in clashing:  # IDs are unique, so these can only clash with ``taken``
        current[cid] = numbered(by_id[cid], taken)
    return current


class OfflineLabeler:
    """Names every community and phrases every edge from structure, with no network."""

    by = "offline"

    def label(
        self,
        communities: list[CommunityItem],
        edges: list[EdgeItem],
        taken_names: set[str],
    ) -> LabelBatch:
        ordered = sorted(communities, key=lambda item: id_number(item.id))
        profiles = [profile(item) for item in ordered]
        taken = {name.casefold() for name in taken_names}
        names = unique_names(profiles, taken)
        batch = LabelBatch()
        for found in profiles:
            batch.communities[found.item.id] = CommunityText(
                name=names[found.item.id], summary=summary(found)
            )
        for edge in edges:
            batch.edges[(edge.src, edge.dst)] = edge_phrase(edge.types)
        return batch
