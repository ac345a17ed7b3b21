"""Layer 1 domain model: what one file states (facts) and what the graph holds (nodes, edges).

A file's facts are everything that can be read from that file alone; they are cached by content
hash. Edges that cross files are made later by resolution, from the facts of all files.
"""

from __future__ import annotations

import marshal
import re
import zlib
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

EXTRACTED = "EXTRACTED"
INFERRED = "INFERRED"
AMBIGUOUS = "AMBIGUOUS"
CONTAINS = "contains"  # a symbol inside a file or another symbol: never crosses files

CLASS_KINDS = frozenset({"class", "interface", "struct", "trait", "enum"})
TYPE_ALIAS = "type"  # ``type KnownProvider = "openai" | ...``: a symbol, neither class nor code

# How a file fared when it was read. Anything but "ok"/"partial" means no symbols.
PARSE_OK = "ok"
PARSE_PARTIAL = "partial"  # syntax errors: what tree-sitter recovered is kept
# Why a file is partial when it is not for syntax errors (``FileFacts.partial``):
PARTIAL_TOO_DEEP = "too-deep"  # nested past what is read; the shallower part is kept
# Syntax tree levels read; deeper constructs are left out and the file is marked partial.
MAX_DEPTH = 10_000
# Valid source the bundled grammar cannot parse (its errors are the parser's, not the file's).
PARTIAL_GRAMMAR = "parser-limitation"
PARSE_TEXT = "text"  # no grammar for it: a file node only
SKIP_BINARY = "skipped:binary"
SKIP_TOO_LARGE = "skipped:too-large"
SKIP_UNDECODABLE = "skipped:undecodable"
SKIP_UNREADABLE = "skipped:unreadable"


def line_count(source: bytes) -> int:
    """Lines as an editor counts them: a last line without a newline still counts."""
    return source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)


def symbol_id(path: str, qualname: str) -> str:
    return f"{path}::{qualname}" if qualname else path


def symbol_parts(node_id: str) -> tuple[str, str]:
    """(path, qualname) of a symbol's ID; (ID, "") for one with no '::'. A qualname never holds
    '::' but a file's name may (``a::b.py::f`` is f of a::b.py): the path ends at the last."""
    path, sep, qualname = node_id.rpartition("::")
    return (path, qualname) if sep else (node_id, "")


def inside_file(node_id: str, path: str) -> bool:
    """Whether ``node_id`` is file ``path`` or one of its symbols."""
    return node_id == path or (node_id.startswith(path) and symbol_parts(node_id)[0] == path)


def external_id(ecosystem: str, package: str) -> str:
    """ID of a package outside the repository, e.g. ``ext:py:yaml``; never a repository path."""
    return f"ext:{ecosystem}:{package}"


class Symbol(NamedTuple):
    """A class-like or function-like definition inside a file."""

    qualname: str  # "Parser", "Parser.parse", "main"
    kind: str  # one of CLASS_KINDS, "function" or "method"
    start_line: int  # 1-based, inclusive
    end_line: int

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def parent(self) -> str:
        """Qualname of the enclosing symbol, "" for top level."""
        return self.qualname.rpartition(".")[0]


# How deep a lookup follows re-exports, aliases and values before giving up (a cycle, or code
# no one writes).
MAX_LOOKUP_DEPTH = 8


class ImportFact(NamedTuple):
    """One name an import statement brings into the file's scope.

    ``module`` is the import target as written ("./util", "..pkg.mod", "fmt", "crate::a::b").
    ``name`` is the imported member ("" when the whole module is bound), ``alias`` the local
    name it is bound to ("" when nothing is bound, as in ``import "./side-effect"``).
    ``name == "*"`` is a wildcard import. ``reexport`` marks ``export ... from`` and similar.
    """

    line: int
    module: str
    name: str = ""
    alias: str = ""
    reexport: bool = False


def imports_binding(
    imports: Iterable[ImportFact], name: str
) -> tuple[list[ImportFact], list[ImportFact]]:
    """The imports through which a module hands out ``name``: (those binding ``name`` itself,
    a member or a whole module, then its star exports). The first outrank the second whatever
    the order of the statements (ES modules: a local export shadows ``export *``)."""
    imports = list(imports)
    named = [i for i in imports if i.alias == name and i.name != "*"]
    return named, [i for i in imports if i.name == "*"]


class CallFact(NamedTuple):
    """A call site. ``receiver`` is what the callee hangs off, as written.

    receiver "" — a bare call ``f()``; "self"/"this" — a call on the current instance;
    "super" — a call on the base class; "?" — an expression no name can bind (``a().b()``,
    ``x[0].f()``, ``getattr(o, n)()``); otherwise a dotted name (``mod``, ``pkg.mod``, ``obj``).
    ``caller`` is the enclosing symbol's qualname, "" for module level.
    ``is_new`` marks a constructor call written as such (``new Foo()``, ``Foo{}``).
    """

    line: int
    caller: str
    name: str
    receiver: str = ""
    is_new: bool = False


class BaseFact(NamedTuple):
    """``class C(Base)`` / ``extends`` / ``implements``: base is written as a dotted name."""

    line: int
    owner: str  # qualname of the class
    base: str


# AssignFact.var of a function's result: ``-> Foo`` and ``return Foo()`` (a keyword, never a name).
RETURNS = "return"
# AssignFact.kind: how ``var`` relates to ``callee``.
ASSIGNED = ""  # var = Callee(...): an instance of that class, or what that function returns
STATED = "type"  # var: Callee, a declared type (Python annotations)
ALIAS = "alias"  # var = callee: the same thing the name callee denotes (``f = g``)
ENTERED = "entered"  # with Callee(...) as var: what that call's ``__enter__`` returns
# var is a parameter of the function ``scope``; callee its position ("0", "1"...; "" when it
# can only be passed by keyword). What it holds is what the call sites pass.
PARAMETER = "param"
# A call passes callee to a parameter of another function: var is the called name and the
# parameter, ``apply(0)`` (positional) or ``apply(key=)`` (keyword), as written in ``scope``.
ARGUMENT = "arg"
# ``@callee`` above ``def var``: var is rebound to ``callee(var)``, made in ``scope``.
DECORATED = "decorated"
# ``@functools.wraps(callee)`` above ``def var``: the function var stands for callee.
WRAPS = "wraps"
# The key of ``FileFacts.extra`` saying why a file is a machine's (``file_kinds.machine_made``):
# its symbols are no candidates of a name bound by the name alone (``raw.names``).
MACHINE_MADE = "machine_made"
# A key of ``FileFacts.extra`` per function named at the file's top level (kgtool names no
# anonymous scope) but declared inside an anonymous function (a callback, an object literal's
# method): its value, ``"51-56;107-112"``, the lines of those functions, where alone it is seen.
# Only its own file's calls read it: it is none of the names the file offers others.
LOCAL = "local:"


class AssignFact(NamedTuple):
    """``var = Callee(...)`` inside ``scope``: lets ``var.method()`` be bound to Callee's class."""

    line: int
    scope: str
    var: str
    callee: str  # dotted name of the constructor (or type, or aliased name) as written
    kind: str = ASSIGNED


def packed_body(calls: Any, assigns: Any) -> bytes:
    """A file's calls and assignments (as ``FileFacts.to_json`` lays them out) held back as
    bytes until its resolution reads them. Compressed: a full build holds every file's at
    once, and they shrink to about a third for ten microseconds of decoding a file."""
    return zlib.compress(marshal.dumps((calls, assigns)), 1)


def unpacked_body(body: bytes) -> tuple[Any, Any]:
    """(calls, assigns) of a ``packed_body``."""
    calls, assigns = marshal.loads(zlib.decompress(body))
    return calls, assigns


# The modules a commit hook's ``kgtool update`` imports hold their records in NamedTuples and
# plain classes, never dataclasses: importing ``dataclasses`` (and with it ``inspect``, ``ast``,
# ``dis``, ``tokenize``) and generating each class's methods took ~15% of every hook run.
class FileFacts:
    """Everything one file states about itself, independent of every other file."""

    __slots__ = (
        "assigns",
        "bases",
        "calls",
        "error_lines",
        "extra",
        "imports",
        "language",
        "line_count",
        "partial",
        "path",
        "status",
        "symbols",
    )

    path: str
    language: str  # "" for a file with no grammar
    status: str
    line_count: int
    symbols: list[Symbol]
    imports: list[ImportFact]
    calls: list[CallFact]
    bases: list[BaseFact]
    assigns: list[AssignFact]
    # Language-specific facts a resolver needs (a Go file's package name, a Java package).
    extra: dict[str, str]
    error_lines: list[int]  # first lines of syntax errors
    partial: str  # a PARTIAL_* reason when partial for another cause than syntax errors

    def __init__(
        self,
        path: str,
        language: str,
        status: str,
        line_count: int = 0,
        symbols: list[Symbol] | None = None,
        imports: list[ImportFact] | None = None,
        calls: list[CallFact] | None = None,
        bases: list[BaseFact] | None = None,
        assigns: list[AssignFact] | None = None,
        extra: dict[str, str] | None = None,
        error_lines: list[int] | None = None,
        partial: str = "",
    ) -> None:
        self.path = path
        self.language = language
        self.status = status
        self.line_count = line_count
        self.symbols = [] if symbols is None else symbols
        self.imports = [] if imports is None else imports
        self.calls = [] if calls is None else calls
        self.bases = [] if bases is None else bases
        self.assigns = [] if assigns is None else assigns
        self.extra = {} if extra is None else extra
        self.error_lines = [] if error_lines is None else error_lines
        self.partial = partial

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "language": self.language,
            "status": self.status,
            "line_count": self.line_count,
            "symbols": [tuple(s) for s in self.symbols],
            "imports": [tuple(i) for i in self.imports],
            "calls": [tuple(c) for c in self.calls],
            "bases": [tuple(b) for b in self.bases],
            "assigns": [tuple(a) for a in self.assigns],
            "extra": self.extra,
            "error_lines": self.error_lines,
            "partial": self.partial,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileFacts:
        return cls(
            path=data["path"],
            language=data["language"],
            status=data["status"],
            line_count=data["line_count"],
            symbols=list(map(Symbol._make, data["symbols"])),
            imports=list(map(ImportFact._make, data["imports"])),
            calls=list(map(CallFact._make, data["calls"])),
            bases=list(map(BaseFact._make, data["bases"])),
            assigns=list(map(AssignFact._make, data["assigns"])),
            extra=dict(data["extra"]),
            error_lines=list(data["error_lines"]),
            partial=data["partial"],
        )


class Edge(NamedTuple):
    """A directed, typed edge. One record per type and site: nothing is collapsed.

    An AMBIGUOUS edge has ``target == ""`` and lists every candidate; none is chosen.
    A tuple, so that sorting hundreds of thousands of them compares in C.
    """

    source: str
    type: str
    target: str
    line: int
    tier: str
    confidence: float = 1.0
    candidates: tuple[str, ...] = ()


# One file's edges to other files, folded for layer 2: (target symbol ID, or "" for an
# AMBIGUOUS edge; edge type; tier; confidence; the candidates' files; how many such edges).
FileEdge = tuple[str, str, str, float, tuple[str, ...], int]


# What a module string or package name is cut at into the names it mentions.
MODULE_SEPARATORS = re.compile(r"[./:\\@-]+")


def called_name(argument: AssignFact) -> str:
    """The bare name of the function an ARGUMENT fact passes to (``a.run(0`` -> run)."""
    return argument.var.partition("(")[0].rpartition(".")[2]


def file_edges(path: str, edges: Iterable[Edge]) -> tuple[FileEdge, ...]:
    """The edges of ``path`` that leave it, counted: what the file graph of layer 2 needs.

    Kept beside a file's rendered lines so that layer 2 never has to parse layer 1 back; an edge
    inside the file, or to an external package, says nothing about which files belong together.
    """
    counts: Counter[tuple[str, str, str, float, tuple[str, ...]]] = Counter()
    for edge in edges:
        if edge.target:
            if edge.target.startswith("ext:") or inside_file(edge.target, path):
                continue
            counts[(edge.target, edge.type, edge.tier, edge.confidence, ())] += 1
        else:
            files = {symbol_parts(c)[0] for c in edge.candidates if not c.startswith("ext:")}
            files.discard(path)
            if files:
                counts[("", edge.type, edge.tier, edge.confidence, tuple(sorted(files)))] += 1
    return tuple(sorted((*key, count) for key, count in counts.items()))
