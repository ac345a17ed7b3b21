"""The call sites of a repository as a type checker answers them, named as kgtool names its
symbols: the records bench/checker_calls.py compares, and the Python side (jedi).

A site's callee is the kgtool symbol, in the declaration's file, that bears the declaration's
name and whose lines hold the line of that name; a class and its constructor are one callee.
See bench/checker_calls.py for how the two sides are joined and bench/results/checker-calls.md
for the figures.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

CHECKOUT = Path(__file__).resolve().parent.parent
if str(CHECKOUT) not in sys.path[:1]:
    sys.path.insert(0, str(CHECKOUT))

from bench.sources import source_of  # noqa: E402
from kgtool.raw.languages.python import SOURCE_ROOTS as PY_SOURCE_ROOTS  # noqa: E402
from kgtool.raw.model import (  # noqa: E402
    FileFacts,
    Symbol,
    symbol_id,
)

HELD_OUT = Path(__file__).resolve().parent / "CALLS_HELD_OUT.md"
DEFAULT_OUT = Path("/tmp/checker-calls")
TYPESCRIPT = "typescript@5"
NODE_TYPES = "@types/node"  # node's modules and globals, for calls into them
NPM_PACKAGES = (TYPESCRIPT, NODE_TYPES)
TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
# The languages resolved together per repository language, and those whose sites are measured.
ECOSYSTEM = {
    "TypeScript": ({"typescript", "tsx", "javascript", "npm-manifest"}, {"typescript", "tsx"}),
    "Python": ({"python"}, {"python"}),
}
# A class and its constructor are one callee: ``new Foo()`` / ``Foo()`` call the class.
CONSTRUCTORS = (".constructor", ".__init__", ".__new__")
SEED = 20260101
DESCRIPTORS = ("builtins.classmethod.", "builtins.staticmethod.", "builtins.property.")

# Checker statuses of a site.
REPO = "repo"  # a callee of the repository that is a kgtool symbol
UNMAPPED = "repo-unmapped"  # a callee of the repository that is no kgtool symbol
OUTSIDE = "outside"  # a callee outside the repository (packages, the standard library)
# A variable, parameter or property of the repository: the checker names the value called, not
# which function it holds; kgtool's edge to a function of that name is neither confirmed nor
# refuted (counted apart: a lower bound counts it wrong).
VALUE = "repo-value"
UNKNOWN = "unknown"  # no answer: a value of unknown type, an unresolved name


class Site(NamedTuple):
    """One call site as the checker answers it."""

    file: str
    line: int
    name: str
    caller: str  # kgtool's ID of the enclosing symbol (the file at module level)
    status: str
    targets: tuple[str, ...]  # kgtool IDs (REPO); any of them is right
    detail: str  # the checker's answer as it gave it, for reading


class Repo(NamedTuple):
    name: str
    language: str
    commit: str
    role: str  # "tuning", "held out" or "held out (confidences)"


def held_out_table() -> dict[str, Repo]:
    repos = {}
    for line in HELD_OUT.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"[0-9a-f]{40}", cells[3]):
            role, language, name, commit = cells
            repos[name] = Repo(name, language, commit, role)
    return repos


def checkout(repo: Repo, out: Path) -> Path:
    root = out / repo.name.split("/")[1]
    if not (root / ".git").exists():
        subprocess.run(
            ["git", "clone", "-q", "--no-checkout", source_of(repo.name), str(root)], check=True
        )
    have = subprocess.run(
        ["git", "cat-file", "-e", f"{repo.commit}^{{commit}}"], cwd=root, capture_output=True
    )
    if have.returncode:
        subprocess.run(["git", "fetch", "-q", "origin", repo.commit], cwd=root, check=True)
    _skip_missing_blobs(root, repo.commit)
    subprocess.run(["git", "checkout", "-q", "--force", repo.commit], cwd=root, check=True)
    return root


def _skip_missing_blobs(root: Path, commit: str) -> None:
    """Leave out of the checkout the files whose content the copy lacks (a large binary a
    mirror keeps only by name), which would fail the whole checkout."""
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "-z", commit], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    blobs = {}
    for entry in filter(None, listing.split("\0")):
        meta, _, path = entry.partition("\t")
        if meta.split()[1] == "blob":
            blobs.setdefault(meta.split()[2], []).append(path)
    checked = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=root,
        input="".join(f"{sha}\n" for sha in blobs),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    missing = [
        path
        for line in checked.splitlines()
        if line.endswith(" missing")
        for path in blobs[line.split()[0]]
    ]
    if missing:
        patterns = ["/*", *(f"!/{path}" for path in sorted(missing))]
        subprocess.run(
            ["git", "sparse-checkout", "set", "--no-cone", *patterns],
            cwd=root,
            check=True,
            capture_output=True,
        )


def tracked(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True
    ).stdout.split(b"\0")
    return [raw.decode("utf-8", "replace") for raw in listed if raw]


def sampled(paths: list[str], limit: int) -> list[str]:
    """At most ``limit`` paths, picked by a hash of each path (the same on every run)."""
    if not limit or len(paths) <= limit:
        return paths
    ranked = sorted(paths, key=lambda p: hashlib.sha256(p.encode()).hexdigest())
    return sorted(ranked[:limit])


# ---- kgtool's side ------------------------------------------------------------------------


class Names:
    """Maps (file, name, line) of a declaration to the kgtool symbol it is."""

    def __init__(self, facts: dict[str, FileFacts]) -> None:
        self.by_name: dict[tuple[str, str], list[Symbol]] = defaultdict(list)
        for path, fact in facts.items():
            for symbol in fact.symbols:
                self.by_name[(path, symbol.name)].append(symbol)

        self.by_path: dict[str, list[Symbol]] = {p: f.symbols for p, f in facts.items()}
        self.qualnames = {symbol_id(p, s.qualname) for p, f in facts.items() for s in f.symbols}

    def symbol(self, path: str, name: str, line: int, definition: bool = True) -> str:
        """The ID of the declaration of ``name`` at ``line`` of ``path``, as a callee: a
        constructor as its class; "" when it is no kgtool symbol. ``definition``: it is of a
        kind kgtool makes symbols of (a function, a class), not a value."""
        return same_callee(self.declared(path, name, line, definition))

    def declared(self, path: str, name: str, line: int, definition: bool = True) -> str:
        """The innermost symbol of ``path`` named ``name`` whose lines hold ``line``. A second
        definition of a qualname (``const check = ...`` in two callbacks of one function) is
        no symbol of its own: kgtool keeps the first under that ID, and so does this."""
        found = self._innermost(self.by_name.get((path, name), ()), line)
        if found is not None:
            return symbol_id(path, found.qualname)
        if not definition:
            return ""
        around = self._innermost(self.by_path.get(path, ()), line)
        qualname = f"{around.qualname}.{name}" if around is not None else name
        node_id = symbol_id(path, qualname)
        return node_id if node_id in self.qualnames else ""

    @staticmethod
    def _innermost(symbols: Iterable[Symbol], line: int) -> Symbol | None:
        best: Symbol | None = None
        for symbol in symbols:
            if symbol.start_line <= line <= symbol.end_line and (
                best is None
                or symbol.end_line - symbol.start_line < best.end_line - best.start_line
            ):
                best = symbol
        return best

    def caller(self, path: str, chain: Iterable[tuple[str, int]]) -> str:
        """kgtool's caller ID: the innermost of the enclosing declarations (innermost first)
        that is a kgtool symbol; the file for module-level code."""
        for name, line in chain:
            found = self.declared(path, name, line)
            if found:
                return found
        return path


def same_callee(node_id: str) -> str:
    """A constructor's ID as its class's: kgtool draws ``new Foo()`` to the class."""
    for suffix in CONSTRUCTORS:
        if node_id.endswith(suffix) and "::" in node_id:
            return node_id[: -len(suffix)]
    return node_id


# ---- the checker's side: TypeScript ----------------------------------------------------------


class PySite(NamedTuple):
    line: int  # the call's first line (kgtool's CallFact line)
    name_line: int  # where the callee's last name is, for jedi
    column: int  # a character offset, as jedi counts
    name: str
    caller: str  # qualname, "" at module level


class _Walker(ast.NodeVisitor):
    """Every call site of a module with its kgtool-style caller: a call, a decorator that is
    a name (``@d`` calls d), ``raise A`` of a name (constructs A if it is a class)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.scope: list[str] = []
        self.sites: list[PySite] = []

    def _column(self, line: int, byte_offset: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))

    def _site(self, start: int, callee: ast.expr) -> None:
        caller = ".".join(self.scope)
        if isinstance(callee, ast.Name):
            column = self._column(callee.lineno, callee.col_offset)
            self.sites.append(PySite(start, callee.lineno, column, callee.id, caller))
        elif isinstance(callee, ast.Attribute) and callee.end_lineno is not None:
            end = callee.end_col_offset or 0
            line = callee.end_lineno
            column = self._column(line, end) - len(callee.attr)
            self.sites.append(PySite(start, line, column, callee.attr, caller))
        else:
            self.sites.append(PySite(start, start, -1, "?", caller))

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        # Decorators are called where the definition stands; the rest (arguments, defaults,
        # bases, the body) lie inside the definition, as in kgtool's syntax tree.
        for decorator in node.decorator_list:
            if isinstance(decorator, (ast.Name, ast.Attribute)):
                self._site(decorator.lineno, decorator)
            self.visit(decorator)
        self.scope.append(node.name)
        for field, value in ast.iter_fields(node):
            if field == "decorator_list":
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    self.visit(child)
        self.scope.pop()

    visit_FunctionDef = _definition
    visit_AsyncFunctionDef = _definition
    visit_ClassDef = _definition

    def visit_Call(self, node: ast.Call) -> None:
        self._site(node.lineno, node.func)
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        if isinstance(node.exc, (ast.Name, ast.Attribute)):
            self._site(node.exc.lineno, node.exc)
        self.generic_visit(node)


_PROJECT: Any = None


def source_roots(root: Path) -> list[str]:
    """The folders a repository's own packages are imported from, first: its src/-style
    folders (those kgtool knows), then the repository itself."""
    found = [str(root / name) for name in sorted(PY_SOURCE_ROOTS) if (root / name).is_dir()]
    return [*found, str(root)]


def _jedi_project(root: str) -> Any:
    """A jedi project whose own packages come before the installed ones (the repository's
    click, not the click the environment has installed)."""
    import jedi  # the bench extra

    global _PROJECT
    if _PROJECT is None or str(_PROJECT.path) != root:
        installed = jedi.get_default_environment().get_sys_path()
        ahead = source_roots(Path(root))
        _PROJECT = jedi.Project(root, sys_path=[*ahead, *(p for p in installed if p not in ahead)])
    return _PROJECT


def _jedi_sites(root: str, path: str) -> tuple[str, list[PySite]]:
    code = (Path(root) / path).read_text(encoding="utf-8", errors="replace")
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, []
    walker = _Walker(code.splitlines())
    walker.visit(tree)
    return code, walker.sites


def _jedi_file(job: tuple[str, str]) -> list[dict[str, Any]]:
    """jedi's answer for every call site of one file (run in a worker process)."""
    import jedi  # the bench extra

    root, path = job
    project = _jedi_project(root)
    code, sites = _jedi_sites(root, path)

    def fresh() -> Any:
        return jedi.Script(code, path=str(Path(root) / path), project=project)

    script = [fresh()]
    return [_jedi_answer(site, script, fresh) for site in sites]


def _jedi_answer(site: PySite, script: list[Any], fresh: Any) -> dict[str, Any]:
    """jedi's callee for one site: ``goto`` on the callee's last name, imports followed; when
    that names no function or class (a variable, a parameter), what ``infer`` gives if it is
    only functions and classes. ``script`` holds the Script in use (replaced when stale)."""
    answer: dict[str, Any] = {"site": list(site), "how": "none", "decls": []}
    if site.column < 0:
        return answer
    try:
        found = script[0].goto(site.name_line, site.column, follow_imports=True)
        how = "goto"
        if not found:
            # A Script goes stale after some lookups and then finds nothing: ask a fresh
            # one, and go on with it.
            script[0] = fresh()
            found = script[0].goto(site.name_line, site.column, follow_imports=True)
            how = "goto (fresh)"
        if found and all(d.type not in ("function", "class") for d in found):
            inferred = script[0].infer(site.name_line, site.column)
            if inferred and all(d.type in ("function", "class") for d in inferred):
                found, how = inferred, "infer"
        answer["how"] = how
        answer["decls"] = [
            [str(d.module_path or ""), d.line or 0, d.name, d.type, d.full_name or ""]
            for d in found
        ]
    except Exception as error:  # jedi fails on some code; the site stays unanswered
        answer["how"] = f"error: {type(error).__name__}"
        script[0] = fresh()  # and the Script may be broken for the next ones
    return answer


def _jedi_recheck(job: tuple[str, str, list[int]]) -> list[dict[str, Any]]:
    """The answers for some sites of a file (by index), each asked of a fresh Script."""
    import jedi  # the bench extra

    root, path, indexes = job
    project = _jedi_project(root)
    code, sites = _jedi_sites(root, path)

    def fresh() -> Any:
        return jedi.Script(code, path=str(Path(root) / path), project=project)

    return [_jedi_answer(sites[i], [fresh()], fresh) for i in indexes]


def _place(decl: list[Any], prefix: str) -> tuple[str, int]:
    """(file, line) of a jedi answer, the file relative, or ``<outside>`` with its full name."""
    if decl[0].startswith(prefix):
        return decl[0][len(prefix) :], decl[1]
    return f"<outside> {decl[4]}", decl[1]


def recheck_python(root: Path, cache: Path, n: int, jobs: int) -> dict[str, Any]:
    """Whether a Script per file answers as a fresh Script per lookup does, on ``n`` sites
    picked with the seed: the share of the same answers, and some that differ."""
    answers = [json.loads(line) for line in cache.read_text().splitlines()]
    index_in_file: list[int] = []
    seen: Counter[str] = Counter()
    for answer in answers:
        index_in_file.append(seen[answer["f"]])
        seen[answer["f"]] += 1
    picked = sorted(random.Random(SEED).sample(range(len(answers)), min(n, len(answers))))
    by_file: dict[str, list[int]] = defaultdict(list)
    for i in picked:
        by_file[answers[i]["f"]].append(i)
    jobs_list = [(str(root), f, [index_in_file[i] for i in ids]) for f, ids in by_file.items()]
    prefix = str(root.resolve()) + os.sep
    same, differs = 0, []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for (path, ids), again in zip(
            by_file.items(), pool.map(_jedi_recheck, jobs_list), strict=True
        ):
            for i, answer in zip(ids, again, strict=True):
                before = {_place(d, prefix) for d in answers[i]["decls"]}
                after = {_place(d, prefix) for d in answer["decls"]}
                if before == after:
                    same += 1
                else:
                    line = answers[i]["site"][0]
                    differs.append(f"{path}:{line} {sorted(before)} / fresh {sorted(after)}")
    return {"checked": len(picked), "same": same, "differs": differs[:10]}


def python_sites(root: Path, files: list[str], names: Names, cache: Path, jobs: int) -> list[Site]:
    if not cache.is_file():
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = pool.map(_jedi_file, [(str(root), f) for f in files], chunksize=4)
            partial = cache.with_suffix(".partial")
            with partial.open("w") as sink:
                for path, answers in zip(files, results, strict=True):
                    for answer in answers:
                        sink.write(json.dumps({"f": path, **answer}) + "\n")
            partial.replace(cache)
    else:
        _ask_again(root, cache, jobs)
    sites = []
    prefix = str(root.resolve()) + os.sep
    for line in cache.read_text().splitlines():
        raw = json.loads(line)
        start, _, _, name, qualname = raw["site"]
        file = raw["f"]
        caller = _python_caller(names, file, qualname)
        decls = []
        for module_path, def_line, def_name, kind, full_name in raw["decls"]:
            inside = module_path.startswith(prefix)
            rel = module_path[len(prefix) :].replace(os.sep, "/") if inside else ""
            decls.append((rel, def_line, def_name, kind, full_name))
        detail = "; ".join(f"{d[0] or '<outside>'}:{d[1]} {d[4] or d[2]} ({d[3]})" for d in decls)
        detail = f"{raw['how']}: {detail}" if decls else raw["how"]
        sites.append(_python_site(file, start, name, caller, decls, detail, names))
    return sites


def _ask_again(root: Path, cache: Path, jobs: int) -> None:
    """Asks again the files of a cache where jedi failed on some site (a failure used to
    leave the rest of the file's Script broken): their answers are replaced in place."""
    lines = cache.read_text().splitlines()
    failed = sorted({a["f"] for a in map(json.loads, lines) if a["how"].startswith("error")})
    if not failed:
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        jobs_list = [(str(root), f) for f in failed]
        again = dict(zip(failed, pool.map(_jedi_file, jobs_list), strict=True))
    kept = [line for line in lines if json.loads(line)["f"] not in again]
    for path, answers in again.items():
        kept += [json.dumps({"f": path, **answer}) for answer in answers]
    partial = cache.with_suffix(".partial")
    partial.write_text("\n".join(kept) + "\n")
    partial.replace(cache)


def _python_caller(names: Names, file: str, qualname: str) -> str:
    parts = qualname.split(".") if qualname else []
    while parts:
        candidate = ".".join(parts)
        if any(s.qualname == candidate for s in names.by_name.get((file, parts[-1]), ())):
            return symbol_id(file, candidate)
        parts.pop()
    return file


def _python_site(
    file: str,
    line: int,
    name: str,
    caller: str,
    decls: list[tuple[str, int, str, str, str]],
    detail: str,
    names: Names,
) -> Site:
    callable_decls = [d for d in decls if d[3] in ("function", "class")]
    if detail.startswith("infer") and all(d[4].startswith(DESCRIPTORS) for d in decls):
        # What ``infer`` gives for a name holding a classmethod or staticmethod of the
        # repository (``f = C.method``): the descriptor's ``__get__``, not the method.
        callable_decls = []
    if not callable_decls:
        status = VALUE if decls and all(d[0] for d in decls) else UNKNOWN
        return Site(file, line, name, caller, status, (), detail)
    if all(not d[0] for d in callable_decls):
        return Site(file, line, name, caller, OUTSIDE, (), detail)
    found = [names.symbol(d[0], d[2], d[1]) for d in callable_decls if d[0]]
    found = [f for f in found if f]
    if found:
        return Site(file, line, name, caller, REPO, tuple(dict.fromkeys(found)), detail)
    return Site(file, line, name, caller, UNMAPPED, (), detail)


# ---- comparison ----------------------------------------------------------------------------
