"""What a language module provides, and the extraction every language shares.

A language is one query file (``<name>.scm``) plus a small module subclassing ``Language``
(languages whose grammars share patterns compose their query from several files: see
``query_files``). The query names the parts of the syntax tree with these captures:

    @definition.<kind>   a class/interface/struct/trait/enum/function/method; ``@name`` inside
                         the same pattern is its name (without one, the node's ``name``
                         field); ``@base`` (any number) its bases; ``@owner`` the type a
                         detached method belongs to (Go receivers); with ``@wrapped``, a
                         definition only if ``wraps_function`` says that call wraps one
    @scope               a block whose ``@name`` prefixes the symbols inside it without being a
                         symbol itself (Rust ``impl Foo``)
    @call                a call; ``@call.function`` is the callee expression (a call that
                         ``imports_by_call`` says imports is an import instead)
    @new                 a constructor call; ``@call.function`` is the class expression
    @import              an import statement, handed to ``parse_import``
    @assign              ``var = Callee(...)``; ``@assign.var`` and ``@call.function`` (or
                         ``@assign.call``, the call itself, whose callee ``callee_of`` reads),
                         or ``@assign.type`` (a stated type) or ``@assign.value``
                         (``var = name``) instead of ``@call.function``; with ``@returns`` and no
                         ``@assign.var`` it states what the enclosing function returns; with
                         ``@element``, that ``var`` holds the value among others (a container);
                         ``@assign.dynamic`` instead: the type stated for ``var`` names no class
                         (an anonymous interface, an untyped lambda parameter), so a call on it
                         stays unresolved rather than bound by the method's name alone
                         ``@assign.element`` instead of ``@assign.value``: ``var`` is one of
                         the values that name holds (``for (const x of xs)``)
    @decorator           a decorator: its calls are made where the decorated definition stands
    @value               what a language reads itself from ``@value.*`` captures (parameters,
                         arguments, ...): a file's matches are handed to ``value_facts``

A function nested directly in a class-like definition or scope becomes a method.

Compiling a query costs each pattern by the child steps it nests (tree-sitter walks every
sequence of children the grammar allows), and every run that parses a file pays for it: a
pattern captures a node and its module reads the node's children (``@assign.call``,
``@wrapped``) where nesting would cost more than reading.
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, TypeVar

from kgtool.file_kinds import machine_made
from kgtool.raw.model import (
    ALIAS,
    ASSIGNED,
    CLASS_KINDS,
    ENTERED,
    MACHINE_MADE,
    MAX_DEPTH,
    PARSE_OK,
    PARSE_PARTIAL,
    PARSE_TEXT,
    PARTIAL_TOO_DEEP,
    RETURNS,
    STATED,
    AssignFact,
    BaseFact,
    CallFact,
    FileFacts,
    ImportFact,
    Symbol,
    line_count,
)

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query
    from tree_sitter_language_pack import SupportedLanguage


T = TypeVar("T")  # what a memo holds


class IndexView(Protocol):
    """What a language reads of the repository's symbol tables when it resolves a module
    (``kgtool.raw.index.RepoIndex`` is the one implementation): every file's facts, each
    language's files, and a per-pass cache for the tables a language builds once. Declared
    here so that the languages do not import the resolver, which imports them."""

    facts: Mapping[str, FileFacts]

    def paths_of(self, language: str) -> list[str]: ...

    def extra_of(self, path: str) -> Mapping[str, str]: ...

    def memo(self, key: str, build: Callable[[Any], T]) -> T: ...


UNBINDABLE = "?"
# Ends a receiver that is a call's result: ``make().run()`` has the receiver ``make()``.
CALL_RESULT = "()"
# Ends the name of what a container holds: ``STAGES[k]()`` calls ``STAGES[]``.
ELEMENT = "[]"
# Ends a call's name when the site raises the value rather than calls it (Python's ``raise A``):
# a class raised by its name is constructed, so the site calls it; anything else raised (an
# instance, a caught exception) calls nothing.
RAISED = "!"
# A key of ``FileFacts.extra`` per method declared abstract (no body): ``abstract:Base.run``.
ABSTRACT = "abstract:"
# A key of ``FileFacts.extra`` per top-level function a test framework passes by its name to
# the parameters so named (pytest's fixtures): ``fixture:runner``.
FIXTURE = "fixture:"
DOTTED_CHAIN = re.compile(r"[^\W\d][\w$]*(?:\.[^\W\d][\w$]*)+")


class ModuleTarget(NamedTuple):
    """Where an import points: files of this repository, or a package outside it."""

    files: tuple[str, ...] = ()
    external: str = ""  # external package name, e.g. "requests"
    # It names this repository's own code (a relative import, a module of its own package),
    # yet no file: a broken import, never a fact about an external package.
    broken: bool = False

    @property
    def found(self) -> bool:
        return bool(self.files or self.external)


class Language:
    """One programming language: its grammar, query, and the rules that need its semantics."""

    name: ClassVar[str]  # kgtool's name, also the .scm file's stem
    grammar: ClassVar[SupportedLanguage]  # tree-sitter-language-pack grammar name
    extensions: ClassVar[tuple[str, ...]]
    ecosystem: ClassVar[str]  # prefix of external package IDs: ext:<ecosystem>:<package>
    # Node types that stand for the current instance and the base class in a receiver.
    self_names: ClassVar[frozenset[str]] = frozenset()
    super_names: ClassVar[frozenset[str]] = frozenset()
    # Member access node types: node type -> (object field, property field).
    member_access: ClassVar[dict[str, tuple[str, str]]] = {}
    # Identifier-like node types whose text is a name.
    name_types: ClassVar[frozenset[str]] = frozenset({"identifier"})
    # Names that resolve outside the repository without an import (print, len, ...).
    builtins: ClassVar[frozenset[str]] = frozenset()
    # Node types that construct an object -> the field naming its class: a call on one
    # (``new Store().save()``) is a call on that class, as the syntax states.
    constructions: ClassVar[dict[str, str]] = {}
    # Receiver words that mean the current instance ("self", "this").
    self_words: ClassVar[frozenset[str]] = frozenset()
    # Names a method gets its class by (Python's ``cls``): calling one constructs the class.
    class_words: ClassVar[frozenset[str]] = frozenset()
    # The root every class has (Python's ``object``): written as a base, it is none.
    root_classes: ClassVar[frozenset[str]] = frozenset()
    # Whether a bare call inside a class may mean a method of it (Java's implicit ``this``).
    implicit_this: ClassVar[bool] = False
    # Whether receivers are typed through stated types, aliases and return values (Python):
    # what ``RepoIndex.value_types`` reads.
    value_flow: ClassVar[bool] = False
    # Whether a compiler checks that a method called on a value of a declared type is that
    # type's (Go, Java): then a method the type lacks is never another type's of that name.
    static_types: ClassVar[bool] = False
    # Whether a declared type that names nothing of the repository (no definition, no import)
    # is one the platform declares (TypeScript's lib.dom.d.ts, @types/node): from outside.
    ambient_types: ClassVar[bool] = False
    # Whether other files' resolution reads the ``extra`` of every file of this language (a
    # workspace's package.json and TypeScript configs): the cache keeps those apart, so that
    # an edit never decodes every such file's entry to build its tables.
    extra_read_across: ClassVar[bool] = False
    # Whether a call bound to a member declared without a body (an interface's, an abstract
    # one: see ABSTRACT) also lists the methods that implement it, INFERRED or AMBIGUOUS.
    dispatch_declared: ClassVar[bool] = False
    # Arguments (as ARGUMENT facts name them: ``map(0)``, ``sorted(key=)``) that a builtin
    # calls: a function passed there is called by the builtin, from the passing scope.
    builtin_callbacks: ClassVar[frozenset[str]] = frozenset()
    # Methods the language's own values answer to (a string's ``split``, a list's ``pop``):
    # called on a value of no known type, the name alone cannot pick the one method of the
    # repository that bears it, for the value is more often the language's own.
    builtin_methods: ClassVar[frozenset[str]] = frozenset()

    # ---- extraction -----------------------------------------------------------------------

    @functools.cached_property
    def query(self) -> Query:
        from tree_sitter import Query
        from tree_sitter_language_pack import get_language

        folder = resources.files("kgtool.raw.languages")
        text = "\n".join(folder.joinpath(name).read_text() for name in self.query_files())
        # Named: the stubs type Query() with typing.Self, which Python 3.10's typing lacks.
        query: Query = Query(get_language(self.grammar), text)
        return query

    @functools.cached_property
    def _pattern_roles(self) -> dict[int, str]:
        """Query pattern index -> what its matches are (see ``_role_of``), filled as seen."""
        return {}

    def query_files(self) -> tuple[str, ...]:
        """The .scm files whose patterns make this language's query, in order."""
        return (f"{self.name}.scm",)

    def parser(self) -> Parser:
        from tree_sitter_language_pack import get_parser

        return get_parser(self.grammar)

    def extract(self, path: str, source: bytes) -> FileFacts:
        """One file's facts from its query's captures: symbols, calls, imports, assignments,
        values, bases.

        Long because the captures of one query are read in one pass, definitions first (every
        later capture needs its enclosing symbol), then each role in turn over the same sorted
        matches and the same scope tables; a function per role would pass that state along."""
        from tree_sitter import QueryCursor

        tree = self.parser().parse(source)
        root = tree.root_node
        facts = FileFacts(
            path=path,
            language=self.name,
            status=PARSE_PARTIAL if root.has_error else PARSE_OK,
            line_count=line_count(source),
        )
        if root.has_error:
            facts.error_lines = _error_lines(root)
        cursor = QueryCursor(self.query)
        # Past a few tens of thousands of levels (g(g(g(...))) in a generated file) the query
        # cursor slows to minutes; no hand-written code nests anywhere near MAX_DEPTH. Only a
        # tree with that many nodes can be that deep, so normal files never pay for the walk.
        if root.descendant_count > MAX_DEPTH and _deeper_than(root, MAX_DEPTH):
            cursor.set_max_start_depth(MAX_DEPTH)
            facts.status, facts.partial = PARSE_PARTIAL, PARTIAL_TOO_DEEP
        matches = cursor.matches(root)

        # Sort matches by what their pattern captures, once per pattern: looking at every
        # capture name of every match cost more than the query itself.
        by_role: dict[str, list[dict[str, list[Node]]]] = {role: [] for role in ROLES}
        definitions: list[tuple[str, dict[str, list[Node]]]] = []
        for pattern, captures in matches:
            role = self._pattern_roles.get(pattern)
            if role is None:
                role = self._pattern_roles[pattern] = _role_of(captures)
            if role in ROLES:
                by_role[role].append(captures)
            elif role:
                definitions.append((role, captures))

        # Definitions first: every later capture needs to know its enclosing symbol.
        found: dict[int, list[Any]] = {}  # node id -> [node, kind, name, bases, owner]
        for capture, captures in definitions:
            node = captures[capture][0]
            names = captures.get("name")
            if names is None:
                named = node.child_by_field_name("name")
                names = [named] if named is not None else []
            if not names:
                continue
            wrapped = captures.get("wrapped")
            if wrapped and not self.wraps_function(wrapped[0]):
                continue
            bases = captures.get("base", [])
            entry = found.get(node.id)
            if entry is not None:  # one match per base: merge them
                entry[3].extend(b for b in bases if b not in entry[3])
                continue
            owner = captures.get("owner")
            found[node.id] = [
                node,
                capture.removeprefix("definition."),
                self.node_text(names[0]),
                list(bases),
                self.type_name(owner[0]) if owner else "",
            ]
        scopes = Scopes()
        for node, kind, name, bases, owner in sorted(
            found.values(), key=lambda item: (item[0].start_byte, -item[0].end_byte)
        ):
            parent_name, parent_kind = scopes.parent_of_next(node)
            if owner:
                parent_name, parent_kind = owner, "scope"
            if kind == "function" and (parent_kind in CLASS_KINDS or parent_kind == "scope"):
                kind = "method"
            qualname = f"{parent_name}.{name}" if parent_name else name
            scopes.add(node, qualname, kind)
            if kind != "scope":
                facts.symbols.append(
                    Symbol(qualname, kind, node.start_point[0] + 1, node.end_point[0] + 1)
                )
            # A scope's bases belong to the type it names (Rust ``impl Trait for T``).
            for base in bases:
                dotted = self.type_name(base)
                if dotted and dotted not in self.root_classes:
                    facts.bases.append(BaseFact(base.start_point[0] + 1, qualname, dotted))

        decorators = Decorators(c["decorator"][0] for c in by_role["decorator"])
        callees: dict[int, tuple[str, str]] = {}  # callee node id -> (receiver, name)
        for captures in by_role["call"]:
            call = (captures.get("call") or captures["new"])[0]
            functions = captures.get("call.function")
            if functions:
                imported = self.imports_by_call(call, functions[0])
                if imported is not None:
                    facts.imports.extend(imported)
                    continue
                receiver, name = callees[functions[0].id] = self.split_callee(functions[0])
            else:
                receiver, name = UNBINDABLE, UNBINDABLE
            anchor = decorators.scope_anchor(call, scopes)
            facts.calls.append(
                CallFact(
                    line=call.start_point[0] + 1,
                    caller=self._enclosing(anchor, scopes, symbols_only=True)[0],
                    name=name,
                    receiver=receiver,
                    is_new="new" in captures,
                )
            )
        for captures in by_role["import"]:
            facts.imports.extend(self.parse_import(captures["import"][0]))
        for captures in by_role["assign"]:
            node = captures["assign"][0]
            if "returns" in captures and not self.returns_from(node, scopes):
                continue
            function = captures["call.function"][0] if "call.function" in captures else None
            if "assign.call" in captures:
                function = self.callee_of(captures["assign.call"][0])
                if function is None:
                    continue
            if function is not None:
                split = callees.get(function.id)  # the same callee as a call's, mostly
                receiver, name = split if split is not None else self.split_callee(function)
                if UNBINDABLE in (receiver, name):
                    continue
                callee = f"{receiver}.{name}" if receiver else name
                kind = ENTERED if "entered" in captures else ASSIGNED
            elif "assign.type" in captures:
                # A return annotation's scope is its own function: anchor on the type.
                node = captures["assign.type"][0]
                callee, kind = self.type_name(node), STATED
            elif "assign.value" in captures:
                callee, kind = self.dotted(captures["assign.value"][0]), ALIAS
            elif "assign.dynamic" in captures:
                callee, kind = UNBINDABLE, STATED
            elif "assign.element" in captures:  # ``for (const x of xs)``: one of what xs holds
                held = self.dotted(captures["assign.element"][0])
                callee, kind = (held + ELEMENT if held else ""), ALIAS
            else:
                continue
            variables = captures.get("assign.var")
            if not callee or (not variables and "returns" not in captures):
                continue
            facts.assigns.append(
                AssignFact(
                    line=node.start_point[0] + 1,
                    scope=self._enclosing(node, scopes, symbols_only=True)[0],
                    var=(
                        (self.assign_var(variables[0]) + ELEMENT * ("element" in captures))
                        if variables
                        else RETURNS
                    ),
                    callee=callee,
                    kind=kind,
                )
            )
        if by_role["value"]:
            facts.assigns.extend(
                self.value_facts(
                    by_role["value"],
                    lambda n: self._enclosing(n, scopes, symbols_only=True)[0],
                    facts,
                )
            )
        facts.symbols = _dedupe(facts.symbols)
        facts.calls.sort(key=_call_order)
        facts.imports = sorted(set(facts.imports))
        facts.bases = sorted(set(facts.bases), key=lambda b: (b.owner, b.line, b.base))
        facts.assigns = sorted(set(facts.assigns))
        facts.extra = self.file_extra(root)
        made = machine_made(path, source)
        if made:
            facts.extra[MACHINE_MADE] = made
        self.refine(facts, root)
        return facts

    def _enclosing(self, node: Node, scopes: Scopes, symbols_only: bool = False) -> tuple[str, str]:
        """(qualname, kind) of the innermost definition around ``node``; ("", "") at top level."""
        return scopes.around(node, symbols_only)

    # ---- language hooks -------------------------------------------------------------------

    def parse_import(self, node: Node) -> list[ImportFact]:
        return []

    def file_extra(self, root: Node) -> dict[str, str]:
        return {}

    def value_facts(
        self,
        matches: list[dict[str, list[Node]]],
        scope_of: Callable[[Node], str],
        facts: FileFacts,
    ) -> list[AssignFact]:
        """Facts about values from a file's ``@value`` matches, read once its calls and
        assignments are known (``facts``); ``scope_of`` gives a node's scope."""
        return []

    def assign_var(self, node: Node) -> str:
        """The variable an ``@assign.var`` names, as a call's receiver writes it (``this.x``)."""
        return self.node_text(node)

    def returns_from(self, node: Node, scopes: Scopes) -> bool:
        """Whether a ``@returns`` match states what its enclosing symbol returns (and not,
        say, what a callback inside it returns)."""
        return True

    def imports_by_call(self, call: Node, callee: Node) -> list[ImportFact] | None:
        """What a call imports when it is an import (``require("m")``), else None: a call."""
        return None

    def callee_of(self, call: Node) -> Node | None:
        """The callee of an ``@assign.call`` node (what a call calls, the class a construction
        makes); None when the value is no call a callee names."""
        return None

    def wraps_function(self, call: Node) -> bool:
        """Whether a ``@wrapped`` call wraps a function, so that its binding is that function."""
        return True

    def refine(self, facts: FileFacts, root: Node) -> None:
        """Last pass over a file's facts for what the query alone cannot say (Go receivers)."""

    def node_text(self, node: Node) -> str:
        text = node.text  # each read copies the bytes out of the source: read once
        return text.decode("utf-8", "replace") if text is not None else ""

    def dotted(self, node: Node) -> str:
        """``a.b.c`` for a chain of names, "" for anything a name cannot bind."""
        # A loop, not recursion: a generated chain can be thousands of members long.
        parts: list[str] = []
        while True:
            if node.type in self.name_types:
                break
            if node.type in self.self_names or node.type in self.super_names:
                break
            fields = self.member_access.get(node.type)
            if fields is None:
                return ""
            obj, prop = node.child_by_field_name(fields[0]), node.child_by_field_name(fields[1])
            if obj is None or prop is None:
                return ""
            parts.append(self.node_text(prop))
            node = obj
        parts.append(self.node_text(node))
        return ".".join(reversed(parts))

    def type_name(self, node: Node) -> str:
        """The dotted name of a type as written in a base list or receiver."""
        return self.dotted(node)

    def split_callee(self, node: Node) -> tuple[str, str]:
        """(receiver, name) of a callee expression; see ``CallFact``."""
        if node.type in self.name_types:
            return "", self.node_text(node)
        fields = self.member_access.get(node.type)
        if fields is None:
            return UNBINDABLE, UNBINDABLE
        # Most callees are plain chains of names: their text says it all, with no tree walk.
        text = self.node_text(node)
        if DOTTED_CHAIN.fullmatch(text):
            receiver, _, name = text.rpartition(".")
            return receiver, name
        obj, prop = node.child_by_field_name(fields[0]), node.child_by_field_name(fields[1])
        if prop is None:
            return UNBINDABLE, UNBINDABLE
        name = self.node_text(prop)
        receiver = self.receiver_name(obj) if obj is not None else ""
        return (receiver or UNBINDABLE), name

    def receiver_name(self, node: Node) -> str:
        """The dotted receiver a call on ``node`` has: its name, or the class it constructs."""
        field = self.constructions.get(node.type)
        if field is None:
            return self.dotted(node)
        created = node.child_by_field_name(field)
        return self.type_name(created) if created is not None else ""

    # ---- resolution hooks -----------------------------------------------------------------

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
        """The files (or external package) an import's module string points to."""
        raise NotImplementedError

    def submodule(self, module: str, name: str) -> str:
        """The module string of ``name`` inside ``module`` (``from pkg import submodule``)."""
        return f"{module}/{name}"

    def attribute_modules(self, package: str, name: str) -> tuple[str, ...]:
        """The files that may be the module ``name`` of the package whose file is ``package``,
        reached as its attribute (``utils.parse`` with ``utils`` imported); none by default."""
        return ()

    def package_peers(self, path: str, index: IndexView) -> Iterable[str]:
        """Other files whose top-level names are in scope without an import (Go packages)."""
        return ()

    def supplied_parameter(self, path: str, scope: str, var: str, index: IndexView) -> str:
        """The ID of the function whose result a framework passes to the parameter ``var`` of
        the function ``scope`` (a pytest fixture of that name), "" for none."""
        return ""

    def package_root(self, path: str, index: IndexView) -> str:
        """The folder of the package ``path`` belongs to, which a guess by name alone stays
        inside when it can: "", the whole repository one package, unless manifests say."""
        return ""


class Manifest(Language):
    """A file read only for what other files' resolution needs (go.mod, package.json): no
    grammar, no symbols. Other files with the same extension stay plain text."""

    manifest_name: ClassVar[str]  # the file name, e.g. "go.mod"
    # Whether its folder is a package's root (``Language.package_root``): adding or removing
    # one moves the bounds of the guesses by name of every file below it.
    roots_package: ClassVar[bool] = False

    def read(self, source: bytes, name: str) -> dict[str, str] | None:
        """The facts a file of this ``name`` states, kept in ``FileFacts.extra``; None when it
        cannot be read, or is not a file this reader reads."""
        raise NotImplementedError

    def extract(self, path: str, source: bytes) -> FileFacts:
        lines = line_count(source)
        extra = self.read(source, posixpath.basename(path))
        if extra is None:
            return FileFacts(path, "", PARSE_TEXT, line_count=lines)
        return FileFacts(path, self.name, PARSE_OK, line_count=lines, extra=extra)

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
        return ModuleTarget()


class Decorators:
    """``@decorator`` captures: a call inside one is made where the decorated definition
    stands, not inside it (the grammar may nest the decorator in the definition's node)."""

    def __init__(self, nodes: Iterable[Node]) -> None:
        self._nodes = sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))
        self._starts = [n.start_byte for n in self._nodes]

    def scope_anchor(self, node: Node, scopes: Scopes) -> Node:
        """The node whose enclosing definition is ``node``'s caller."""
        if not self._nodes:
            return node
        index = bisect.bisect_right(self._starts, node.start_byte) - 1
        while index >= 0:
            decorator = self._nodes[index]
            if decorator.start_byte <= node.start_byte and node.end_byte <= decorator.end_byte:
                decorated = decorator.parent
                return decorated if decorated is not None and decorated.id in scopes else node
            index -= 1
            if index >= 0 and self._nodes[index].end_byte <= node.start_byte:
                break  # decorators do not nest deeper than their own arguments
        return node


class Scopes:
    """The definitions of one file as nested byte ranges, for "what encloses this node?".

    Definitions are added in document order (by start, outermost first); a lookup is a binary
    search plus a short walk outwards, where walking up the syntax tree cost a call per level.
    """

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._entries: list[tuple[int, int, str, str, int, int]] = []  # start, end, qualname,
        # kind, node id, index of the enclosing entry (-1 for none)
        self._ids: set[int] = set()
        self._open: list[int] = []  # indexes of the entries enclosing the next one added

    def __contains__(self, node_id: int) -> bool:
        return node_id in self._ids

    def parent_of_next(self, node: Node) -> tuple[str, str]:
        """What encloses a definition about to be added (they come in document order)."""
        while self._open and self._entries[self._open[-1]][1] <= node.start_byte:
            self._open.pop()
        if not self._open:
            return "", ""
        entry = self._entries[self._open[-1]]
        return entry[2], entry[3]

    def add(self, node: Node, qualname: str, kind: str) -> None:
        self.parent_of_next(node)
        parent = self._open[-1] if self._open else -1
        self._entries.append((node.start_byte, node.end_byte, qualname, kind, node.id, parent))
        self._starts.append(node.start_byte)
        self._ids.add(node.id)
        self._open.append(len(self._entries) - 1)

    def around(self, node: Node, symbols_only: bool = False) -> tuple[str, str]:
        start, end = node.start_byte, node.end_byte
        index = bisect.bisect_right(self._starts, start) - 1
        while index >= 0:
            entry_start, entry_end, qualname, kind, node_id, parent = self._entries[index]
            inside = entry_start <= start and end <= entry_end and node_id != node.id
            if inside and not (symbols_only and kind == "scope"):
                return qualname, kind
            # An entry that does not enclose the node (an earlier sibling, the node itself) can
            # only be inside something that does: its ancestors are the remaining candidates.
            index = parent
        return "", ""


ROLES = ("call", "import", "assign", "decorator", "value")


def _role_of(captures: dict[str, list[Node]]) -> str:
    """A pattern's role: a definition's capture name, one of ROLES, or "" for none of these.

    Every match of a pattern has its outer capture, so the first match tells the role.
    """
    for capture in captures:
        if capture.startswith("definition.") or capture == "scope":
            return capture
    if "call" in captures or "new" in captures:
        return "call"
    for role in ("import", "assign", "decorator", "value"):
        if role in captures:
            return role
    return ""


def _deeper_than(root: Node, limit: int) -> bool:
    """Whether any node lies ``limit`` levels or more below ``root``.

    A subtree of n nodes reaches at most n - 1 levels below its own root, so only subtrees
    large enough to reach the limit are walked into: a file of 100k nodes and a few dozen
    levels looks at a handful of nodes, where a walk of every node cost it 40 ms.
    """
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= limit:
            return True
        if depth + node.descendant_count - 1 >= limit:
            stack.extend((child, depth + 1) for child in node.children)
    return False


def _error_lines(root: Node, limit: int = 20) -> list[int]:
    lines: list[int] = []
    stack = [root]
    while stack and len(lines) < limit:
        node = stack.pop()
        if node.is_error or node.is_missing:
            lines.append(node.start_point[0] + 1)
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return sorted(set(lines))


def _dedupe(symbols: list[Symbol]) -> list[Symbol]:
    """Keep the first definition of a qualname (redefinitions and overloads share one ID)."""
    seen: dict[str, Symbol] = {}
    for symbol in sorted(symbols, key=lambda s: (s.start_line, s.qualname)):
        seen.setdefault(symbol.qualname, symbol)
    return sorted(seen.values(), key=lambda s: (s.start_line, s.qualname))


def _call_order(call: CallFact) -> tuple[int, str, str, str, bool]:
    return (call.line, call.caller, call.receiver, call.name, call.is_new)
