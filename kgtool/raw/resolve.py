"""Cross-file resolution: from every file's facts to typed, tiered edges.

Binding order for a name, most certain first: the enclosing scopes of the file, its imports,
the files that share its package scope (Go, Java), the language's builtins. What binds there is
EXTRACTED. A name that binds nowhere is looked up by name alone across the repository: one
candidate is INFERRED, several are AMBIGUOUS (all listed, none chosen), none is an unresolved
call site, counted on the calling symbol.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from kgtool.raw.languages import language_named
from kgtool.raw.languages.base import (
    ABSTRACT,
    CALL_RESULT,
    ELEMENT,
    RAISED,
    UNBINDABLE,
    Language,
    ModuleTarget,
)
from kgtool.raw.model import (
    ALIAS,
    AMBIGUOUS,
    ARGUMENT,
    ASSIGNED,
    CLASS_KINDS,
    CONTAINS,
    DECORATED,
    EXTRACTED,
    INFERRED,
    PARAMETER,
    RETURNS,
    STATED,
    TYPE_ALIAS,
    WRAPS,
    AssignFact,
    CallFact,
    Edge,
    FileFacts,
    Symbol,
    called_name,
    external_id,
    symbol_id,
    symbol_parts,
)

# Confidence of an INFERRED edge, by what it was inferred from.
CONFIDENCE_ASSIGNED_TYPE = 0.9  # receiver assigned from a constructor in the same scope
# The receiver's type followed through values: a stated type (parameter, attribute, return
# annotation), an attribute set in a method, a function's result, an alias (``f = g``).
CONFIDENCE_VALUE_TYPE = 0.9
# A function held in a value that was passed, returned, iterated over or unpacked: a caller
# outside the repository, or an argument that is no name, may pass another one.
CONFIDENCE_HELD = 0.8
# A function passed to a builtin that calls it (``map(f, xs)``, ``sorted(xs, key=f)``), times
# the confidence of what the name binds to: map and filter call it only as their result is
# read, and none calls it for no items.
CONFIDENCE_BUILTIN_CALLBACK = 0.8
CONFIDENCE_UNIQUE_NAME = 0.6  # the only top-level definition of that name
CONFIDENCE_UNIQUE_METHOD = 0.5  # the only method of that name, receiver type unknown
# A call of a member declared without a body (an interface's, an abstract one) reaches one of
# the methods implementing it: the only one in the repository is this likely, times the
# confidence of the call's own binding (the value may be an object literal, a test double, a
# class from outside). Several are AMBIGUOUS.
CONFIDENCE_ONLY_IMPLEMENTATION = 0.8
MAX_LOOKUP_DEPTH = 8


NO_MODULE = ModuleTarget()
# Bound.external of a method of a value whose type lies outside the repository.
EXTERNAL_VALUE = "value"
# What a value can be: the repository's classes it may be an instance of, and whether some
# statement gives it a type from outside the repository (a builtin, a library class).
ValueTypes = tuple[frozenset[str], bool]
UNKNOWN: ValueTypes = (frozenset(), False)
TYPING_KINDS = frozenset({ASSIGNED, STATED, ALIAS})
T = TypeVar("T")  # what a memo holds


class Bound(NamedTuple):
    """What a name was bound to: a symbol ID, a module, or something outside the repository.
    A tuple: one is made for nearly every name looked up, and a frozen dataclass took three
    times as long to make."""

    kind: str  # "symbol" | "module" | "external"
    symbol: str = ""
    module: ModuleTarget = NO_MODULE
    external: str = ""


class FileResolution:
    """The edges whose source lies in one file, and what its call sites could not bind."""

    __slots__ = ("broken_imports", "edges", "external_calls", "unresolved")

    edges: list[Edge]
    unresolved: dict[str, Counter[str]]  # caller id -> names
    external_calls: Counter[str]  # caller id -> count
    broken_imports: list[tuple[int, str]]  # (line, module)

    def __init__(
        self,
        edges: list[Edge] | None = None,
        unresolved: dict[str, Counter[str]] | None = None,
        external_calls: Counter[str] | None = None,
        broken_imports: list[tuple[int, str]] | None = None,
    ) -> None:
        self.edges = [] if edges is None else edges
        self.unresolved = {} if unresolved is None else unresolved
        self.external_calls = Counter() if external_calls is None else external_calls
        self.broken_imports = [] if broken_imports is None else broken_imports


# Every top-level symbol and every method of the repository by (ecosystem, bare name): the
# candidates of a name bound by the name alone; IDs sorted. Kept between runs by the cache.
NameTable = dict[tuple[str, str], tuple[str, ...]]
# The same as the cache stores it: "ecosystem\0name" -> the IDs joined by "\0" (neither a
# name nor a path holds a NUL). A string per name loads in a third of the time a tuple of
# strings per name takes, and an edit looks up a few dozen names of the thousands.
StoredNameTable = dict[str, str]


class NameLookup:
    """A ``StoredNameTable`` read as a ``NameTable`` is (``get``) and patched: a name's IDs
    are split when it is first looked up. ``part_of`` gives the part of the table that holds
    a stored name (the cache keeps it in parts, read as they are asked for), ``changed`` is
    told of a part changed."""

    def __init__(
        self,
        part_of: Callable[[str], StoredNameTable],
        changed: Callable[[str], None] = lambda name: None,
    ) -> None:
        self._part_of = part_of
        self._changed = changed
        self._split: dict[str, tuple[str, ...]] = {}

    def get(self, key: tuple[str, str], default: Any = ()) -> Any:
        name = f"{key[0]}\0{key[1]}"
        ids = self._split.get(name)
        if ids is None:
            joined = self._part_of(name).get(name)
            if joined is None:
                return default
            ids = self._split[name] = tuple(joined.split("\0"))
        return ids

    def set_ids(self, key: tuple[str, str], ids: tuple[str, ...]) -> None:
        """The IDs of a name; none takes the name out."""
        name = f"{key[0]}\0{key[1]}"
        self._split.pop(name, None)
        part = self._part_of(name)
        if ids:
            part[name] = "\0".join(ids)
        else:
            part.pop(name, None)
        self._changed(name)


NameTables = tuple[NameTable, NameTable] | tuple[NameLookup, NameLookup]  # (top level, methods)


def stored_name_tables(
    tables: tuple[NameTable, NameTable],
) -> tuple[StoredNameTable, StoredNameTable]:
    """``tables`` as the cache stores them."""
    top_level, methods = (
        {f"{key[0]}\0{key[1]}": "\0".join(ids) for key, ids in table.items()} for table in tables
    )
    return top_level, methods


def _named_symbols(path: str, facts: FileFacts) -> Iterator[tuple[int, tuple[str, str], str]]:
    """(0 for top level or 1 for methods, key, symbol ID) of what a file adds to NameTables."""
    if not facts.symbols:
        return
    ecosystem = language_named(facts.language).ecosystem
    for symbol in facts.symbols:
        if symbol.kind == TYPE_ALIAS:  # named by imports and types only, never called
            continue
        if symbol.kind == "method":
            yield 1, (ecosystem, symbol.name), symbol_id(path, symbol.qualname)
        elif not symbol.parent:
            yield 0, (ecosystem, symbol.name), symbol_id(path, symbol.qualname)


def name_tables(facts: Mapping[str, FileFacts]) -> tuple[NameTable, NameTable]:
    gathered: tuple[dict[tuple[str, str], list[str]], ...] = ({}, {})
    for path in facts:
        for table, key, node_id in _named_symbols(path, facts[path]):
            gathered[table].setdefault(key, []).append(node_id)
    top_level, methods = ({key: tuple(sorted(ids)) for key, ids in t.items()} for t in gathered)
    return top_level, methods


def patch_name_tables(
    tables: tuple[NameLookup, NameLookup],
    before: Mapping[str, FileFacts | None],
    after: Mapping[str, FileFacts | None],
) -> None:
    """Take out of ``tables`` what the files of ``before`` added to them and put in what those
    of ``after`` add, in place: a name whose IDs did not change is not touched (nor is the
    part of the cache that holds it written again)."""
    before_items, after_items = (
        Counter(item for path, f in files.items() if f for item in _named_symbols(path, f))
        for files in (before, after)
    )
    # Only the names whose IDs change: an edit that adds one function reads and writes the
    # part of the tables that holds that name, not those of every name the file defines.
    removed, added = before_items - after_items, after_items - before_items
    touched: dict[tuple[int, tuple[str, str]], list[str]] = {}
    for table, key, _ in sorted(removed.keys() | added.keys()):
        if (table, key) not in touched:
            touched[(table, key)] = list(tables[table].get(key))
    for (table, key, node_id), count in removed.items():
        for _ in range(count):
            touched[(table, key)].remove(node_id)
    for (table, key, node_id), count in added.items():
        touched[(table, key)].extend([node_id] * count)
    for (table, key), ids in touched.items():
        tables[table].set_ids(key, tuple(sorted(ids)))


def files_by_language(languages: Mapping[str, str]) -> dict[str, list[str]]:
    """language -> its files, sorted, of path -> language."""
    grouped: dict[str, list[str]] = {}
    for path in sorted(languages):
        grouped.setdefault(languages[path], []).append(path)
    return grouped


class _SymbolsByPath(dict[str, dict[str, Symbol]]):
    """A file's symbols by qualname, gathered when first asked for (a dict: its lookups run
    hundreds of thousands of times in a full build)."""

    def __init__(self, facts: Mapping[str, FileFacts]) -> None:
        super().__init__()
        self._facts = facts

    def __missing__(self, path: str) -> dict[str, Symbol]:
        table = self[path] = {s.qualname: s for s in self._facts[path].symbols}
        return table


class RepoIndex:
    """Symbol tables over the facts of every file, built once per resolution pass."""

    def __init__(
        self,
        facts: Mapping[str, FileFacts],
        hydrate: Callable[[str], FileFacts] | None = None,
        names: NameTables | None = None,
        by_language: Mapping[str, list[str]] | None = None,
        mentioning: Callable[[str], Sequence[str]] | None = None,
    ) -> None:
        """``facts`` may hold a cached file's symbols and imports only: its calls and
        assignments are decoded by ``hydrate`` when a resolution first reads them. It may also
        decode each file when first read: given ``names`` (``name_tables`` of the same facts),
        ``by_language`` (each language's files, sorted) and ``mentioning`` (the files, sorted,
        that may mention a name: every one that does, as layer 1's build gathers them), an
        index reads only the files a resolution asks for."""
        self.facts = facts
        self._hydrate = hydrate
        self.symbols = _SymbolsByPath(facts)
        if by_language is None:
            by_language = files_by_language({path: facts[path].language for path in facts})
        self._by_language = by_language
        self.top_level_by_name: NameTable | NameLookup
        self.methods_by_name: NameTable | NameLookup
        self.top_level_by_name, self.methods_by_name = names or name_tables(facts)
        self._mentioning = mentioning
        self._memo: dict[str, Any] = {}
        self.forget_files()

    def forget_files(self) -> None:
        """Drop what was learnt about single files (bindings, values, callees...), keeping
        the tables built over every file: a worker that resolves one chunk after another
        would otherwise hold what it learnt of every file it ever saw."""
        self.symbols.clear()
        self._modules: dict[tuple[str, str, str], ModuleTarget] = {}
        self._bindings: dict[str, dict[str, list[Bound]]] = {}
        self._wildcards: dict[str, list[Bound]] = {}
        self._bases: dict[str, list[str]] = {}
        self._assigns: dict[str, dict[str, list[AssignFact]]] = {}
        self._assigns_by_scope: dict[str, dict[tuple[str, str], list[AssignFact]]] = {}
        self._visible: dict[tuple[str, str, str], list[AssignFact]] = {}
        self._values: dict[tuple[str, str, str], ValueTypes] = {}
        self._attribute_types: dict[tuple[str, str], ValueTypes] = {}
        self._returns: dict[str, ValueTypes] = {}
        self._held: dict[tuple[str, str, str], frozenset[str] | None] = {}
        self._callees: dict[tuple[str, str, str], str] = {}
        self._symbol_values: dict[tuple[str, int], frozenset[str] | None] = {}

    def symbols_in(self, path: str) -> dict[str, Symbol]:
        """A file's symbols by qualname; none for a path that is no file of the index."""
        return self.symbols[path] if path in self.facts else {}

    def paths_of(self, language: str) -> list[str]:
        return self._by_language.get(language, [])

    def memo(self, key: str, build: Callable[[RepoIndex], T]) -> T:
        """A per-pass cache for tables a language builds once (module maps, package maps)."""
        if key not in self._memo:
            self._memo[key] = build(self)
        held: T = self._memo[key]  # what ``build`` made for this key
        return held

    def module(self, language: Language, module: str, importer: str) -> ModuleTarget:
        key = (language.name, module, importer)
        if key not in self._modules:
            self._modules[key] = language.resolve_module(module, importer, self)
        return self._modules[key]

    # ---- names ----------------------------------------------------------------------------

    def bindings(self, path: str) -> dict[str, list[Bound]]:
        """Local name -> what the file's imports bind it to (several for Go-style dot imports)."""
        if path in self._bindings:
            return self._bindings[path]
        facts = self.facts[path]
        language = language_named(facts.language)
        table: dict[str, list[Bound]] = {}
        self._bindings[path] = table  # guards against import cycles while filling
        bound: Bound | None
        for imp in facts.imports:
            if not imp.alias or imp.name == "*":
                continue
            target = self.module(language, imp.module, path)
            if target.external:
                bound = Bound("external", external=target.external)
            elif not target.files:
                continue
            elif not imp.name:
                bound = Bound("module", module=target)
            else:
                bound = self._member_of_module(language, target, imp.module, imp.name, path, 0)
                if bound is None:
                    continue
            table.setdefault(imp.alias, []).append(bound)
        return table

    def _member_of_module(
        self,
        language: Language,
        target: ModuleTarget,
        module: str,
        name: str,
        importer: str,
        depth: int,
    ) -> Bound | None:
        found = self.find_top_level(target.files, name, depth)
        if found is not None:
            return found
        sub = self.module(language, language.submodule(module, name), importer)
        if sub.files:
            return Bound("module", module=sub)
        return None

    def find_top_level(self, files: Iterable[str], name: str, depth: int = 0) -> Bound | None:
        """``name`` as the module ``files`` export it: defined there, or imported into it."""
        if depth > MAX_LOOKUP_DEPTH:
            return None
        for path in files:
            symbol = self.symbols_in(path).get(name)
            if symbol is not None:
                return Bound("symbol", symbol=symbol_id(path, name))
        for path in files:
            facts = self.facts.get(path)
            if facts is None or not facts.language:  # a JSON or CSS import: no names in it
                continue
            language = language_named(facts.language)
            for imp in facts.imports:
                if imp.alias == name and imp.name not in ("", "*"):
                    target = self.module(language, imp.module, path)
                    if target.external:
                        return Bound("external", external=target.external)
                    if target.files:
                        return self._member_of_module(
                            language, target, imp.module, imp.name, path, depth + 1
                        )
                elif imp.alias == name and not imp.name:
                    target = self.module(language, imp.module, path)
                    if target.files:
                        return Bound("module", module=target)
                elif imp.name == "*":
                    target = self.module(language, imp.module, path)
                    if target.files and path not in target.files:
                        found = self.find_top_level(target.files, name, depth + 1)
                        if found is not None:
                            return found
        return None

    def bind_dotted(self, path: str, scope: str, dotted: str) -> Bound | None:
        """Bind a dotted name as written in ``path`` inside ``scope`` (a qualname)."""
        parts = dotted.split(".")
        bound, used = None, 1
        # ``import a.b`` binds the dotted name itself: prefer the longest bound prefix.
        imported = self.bindings(path)
        for length in range(len(parts), 1, -1):
            found = imported.get(".".join(parts[:length]))
            if found:
                bound, used = found[0], length
                break
        if bound is None:
            bound = self.bind_name(path, scope, parts[0])
        for part in parts[used:]:
            if bound is None or bound.kind == "external":
                return bound
            bound = self.member(bound, part)
        return bound

    def bind_name(self, path: str, scope: str, name: str) -> Bound | None:
        facts = self.facts[path]
        language = language_named(facts.language)
        symbols = self.symbols[path]
        # Enclosing function scopes see their nested definitions; class bodies do not leak
        # members into methods (except where the language has an implicit receiver).
        prefix = scope
        while prefix:
            candidate = f"{prefix}.{name}"
            if candidate in symbols:
                owner = symbols.get(prefix)
                if owner is not None and (owner.kind not in CLASS_KINDS or language.implicit_this):
                    return Bound("symbol", symbol=symbol_id(path, candidate))
            prefix = prefix.rpartition(".")[0]
        if name in symbols:
            return Bound("symbol", symbol=symbol_id(path, name))
        imported = self.bindings(path).get(name)
        if imported:
            return imported[0]
        for bound in self._dot_imports(path):
            if bound.kind == "module":
                found = self.find_top_level(bound.module.files, name)
                if found is not None:
                    return found
        peers = self.package_peers(path)
        if peers:
            found = self.find_top_level_defined(peers, name)
            if found is not None:
                return found
        if name in language.builtins:
            return Bound("external", external="builtin")
        return None

    def _dot_imports(self, path: str) -> list[Bound]:
        """The modules a file imports whole (``from m import *``, Go's dot imports): asked
        for every name no scope of the file binds, looked up once."""
        bounds = self._wildcards.get(path)
        if bounds is None:
            facts = self.facts[path]
            language = language_named(facts.language)
            bounds = self._wildcards[path] = []
            for imp in facts.imports:
                if imp.name == "*":
                    target = self.module(language, imp.module, path)
                    if target.files:
                        bounds.append(Bound("module", module=target))
        return bounds

    def package_peers(self, path: str) -> tuple[str, ...]:
        key = f"peers:{path}"
        if key not in self._memo:
            language = language_named(self.facts[path].language)
            self._memo[key] = tuple(p for p in language.package_peers(path, self) if p != path)
        peers: tuple[str, ...] = self._memo[key]
        return peers

    def find_top_level_defined(self, files: Iterable[str], name: str) -> Bound | None:
        for path in files:
            if name in self.symbols_in(path):
                return Bound("symbol", symbol=symbol_id(path, name))
        return None

    def member(self, bound: Bound, name: str) -> Bound | None:
        """``bound.name``: a module's member, or a class's method or nested class."""
        if bound.kind == "module":
            found = self.find_top_level(bound.module.files, name)
            if found is not None:
                return found
            return None
        if bound.kind == "symbol":
            return self.find_method(bound.symbol, name)
        return bound

    def symbol(self, node_id: str) -> Symbol | None:
        path, qualname = symbol_parts(node_id)
        return self.symbols_in(path).get(qualname)

    def find_method(self, class_id: str, name: str, depth: int = 0) -> Bound | None:
        """A member of a class, looked up through its resolved bases."""
        if depth > MAX_LOOKUP_DEPTH:
            return None
        path, qualname = symbol_parts(class_id)
        if f"{qualname}.{name}" in self.symbols_in(path):
            return Bound("symbol", symbol=f"{class_id}.{name}")
        # Go declares a type's methods in any file of its package.
        for peer in self.package_peers(path) if path in self.facts else ():
            if f"{qualname}.{name}" in self.symbols_in(peer):
                return Bound("symbol", symbol=symbol_id(peer, f"{qualname}.{name}"))
        for base in self.bases_of(class_id):
            found = self.find_method(base, name, depth + 1)
            if found is not None:
                return found
        return None

    def bases_of(self, class_id: str) -> list[str]:
        """IDs of the bases of a class that bind with certainty (EXTRACTED)."""
        if class_id in self._bases:
            return self._bases[class_id]
        self._bases[class_id] = []
        path, qualname = symbol_parts(class_id)
        facts = self.facts.get(path)
        found: list[str] = []
        if facts is not None:
            scope = qualname.rpartition(".")[0]
            for base in facts.bases:
                if base.owner == qualname:
                    bound = self.bind_dotted(path, scope, base.base)
                    if bound is not None and bound.kind == "symbol":
                        found.append(bound.symbol)
        self._bases[class_id] = found
        return found

    def enclosing_class(self, path: str, scope: str) -> str:
        """Qualname of the innermost class-like symbol in ``scope``, "" if none."""
        symbols = self.symbols[path]
        prefix = scope
        while prefix:
            symbol = symbols.get(prefix)
            if symbol is not None and (symbol.kind in CLASS_KINDS):
                return prefix
            prefix = prefix.rpartition(".")[0]
        return ""

    def full_facts(self, path: str) -> FileFacts:
        """A file's facts with its calls and assignments, decoded if the cache held them back."""
        return self._hydrate(path) if self._hydrate is not None else self.facts[path]

    # ---- values ---------------------------------------------------------------------------

    def assigns_of(self, path: str) -> dict[str, list[AssignFact]]:
        """A file's assignments and stated types by the variable they give a value to."""
        table = self._assigns.get(path)
        if table is None:
            table = self._assigns[path] = {}
            for assign in self.full_facts(path).assigns:
                if assign.kind != ARGUMENT:  # read by the called function's parameters only
                    table.setdefault(assign.var, []).append(assign)
        return table

    def visible_assigns(self, path: str, scope: str, var: str) -> list[AssignFact]:
        """The assignments to ``var`` in scope in ``scope``: its own, its enclosing functions',
        the module's (a class body's names are not seen from inside its methods)."""
        key = (path, scope, var)
        found = self._visible.get(key)
        if found is not None:
            return found
        by_scope = self._assigns_by_scope.get(path)
        if by_scope is None:
            by_scope = self._assigns_by_scope[path] = {}
            for assign in self.full_facts(path).assigns:
                if assign.kind != ARGUMENT:
                    by_scope.setdefault((assign.var, assign.scope), []).append(assign)
        found = list(by_scope.get((var, scope), ()))
        symbols = self.symbols[path]
        prefix = scope
        while prefix:
            prefix = prefix.rpartition(".")[0]
            owner = symbols.get(prefix) if prefix else None
            if owner is None or owner.kind not in CLASS_KINDS:
                found.extend(by_scope.get((var, prefix), ()))
        self._visible[key] = found
        return found

    def value_types(self, path: str, scope: str, dotted: str, depth: int = 0) -> ValueTypes:
        """The types of the value ``dotted`` (``x``, ``self.repo``, ``make()``) in ``scope``."""
        if depth > MAX_LOOKUP_DEPTH:
            return UNKNOWN
        key = (path, scope, dotted)
        known = self._values.get(key)
        if known is not None:
            return known
        self._values[key] = UNKNOWN  # ``x = x.parent()``: a value typed through itself
        types = self._value_types(path, scope, dotted, depth)
        self._values[key] = types
        return types

    def _value_types(self, path: str, scope: str, dotted: str, depth: int) -> ValueTypes:
        language = language_named(self.facts[path].language)
        if dotted.endswith(CALL_RESULT):
            found = self.callable_of(path, scope, dotted[: -len(CALL_RESULT)], depth + 1)
            return self.result_types(found, depth + 1) if found else UNKNOWN
        if CALL_RESULT + "." in dotted:  # ``a().b``: an attribute of a call's result
            receiver, _, attribute = dotted.rpartition(".")
            types = self.value_types(path, scope, receiver, depth + 1)
            return self._attributes_of(types, [attribute], depth)
        head, *rest = dotted.split(".")
        if head in language.self_words:
            owner = self.instance_class(path, scope)
            if not owner:
                return UNKNOWN
            types = (frozenset({owner}), False)
        else:
            assigns = self.visible_assigns(path, scope, head)
            types = self._types_assigned(path, assigns, depth + 1)
            if not assigns and language.implicit_this:
                types = self._field_types(path, scope, head, depth + 1)
            elif not assigns:
                types = self._peer_variable_types(path, head, depth + 1)
        return self._attributes_of(types, rest, depth)

    def _attributes_of(self, types: ValueTypes, attributes: list[str], depth: int) -> ValueTypes:
        """The types of ``value.a.b`` given the types of ``value``."""
        for attribute in attributes:
            classes, outside_only = types
            if not classes:
                # An attribute of a value from outside the repository is from outside too.
                types = (frozenset(), outside_only)
                continue
            found: set[str] = set()
            external = False
            for class_id in sorted(classes):
                more, outside = self.attribute_types(class_id, attribute, depth + 1)
                found |= more
                external = external or outside
            types = (frozenset(found), external)
        return types

    def instance_class(self, path: str, scope: str) -> str:
        """The ID of the class whose instance ``self`` is inside ``scope``, "" outside any:
        the enclosing class, or the type a method declared apart from it belongs to (Go)."""
        owner = self.enclosing_class(path, scope)
        if owner:
            return symbol_id(path, owner)
        symbol = self.symbols[path].get(scope)
        if symbol is None or symbol.kind != "method" or not symbol.parent:
            return ""
        bound = self.bind_dotted(path, "", symbol.parent)
        if bound is None or bound.kind != "symbol" or not self._is_class(bound.symbol):
            return ""
        return bound.symbol

    def _peer_variable_types(self, path: str, name: str, depth: int) -> ValueTypes:
        """A package-level variable declared in another file of the package (Go)."""
        for peer in self.package_peers(path):
            assigns = [a for a in self.assigns_of(peer).get(name, ()) if not a.scope]
            if assigns:
                return self._types_assigned(peer, assigns, depth)
        return UNKNOWN

    def _field_types(self, path: str, scope: str, name: str, depth: int) -> ValueTypes:
        """A bare name that no local declares, as a field of the enclosing classes, innermost
        first (an implicit ``this``: Java)."""
        prefix = self.enclosing_class(path, scope)
        while prefix:
            types = self.attribute_types(symbol_id(path, prefix), name, depth)
            if types != UNKNOWN:
                return types
            prefix = self.enclosing_class(path, prefix.rpartition(".")[0])
        return UNKNOWN

    def _types_assigned(self, path: str, assigns: Iterable[AssignFact], depth: int) -> ValueTypes:
        """The types some assignments give one variable; a stated type outranks the rest."""
        assigns = list(assigns)
        stated = [a for a in assigns if a.kind == STATED]
        classes: set[str] = set()
        external = False
        for assign in stated or assigns:
            more, outside = self._assigned_types(path, assign, depth)
            classes |= more
            external = external or outside
        return frozenset(classes), external

    def _assigned_types(self, path: str, assign: AssignFact, depth: int) -> ValueTypes:
        if assign.kind not in TYPING_KINDS:
            return UNKNOWN  # a parameter, an argument, a decorator: no type stated
        if assign.kind == ALIAS:
            return self.value_types(path, assign.scope, assign.callee, depth + 1)
        found = self.callable_of(path, assign.scope, assign.callee, depth + 1)
        if found is None:
            return UNKNOWN
        if found.kind == "external" and assign.kind == STATED:
            return frozenset(), True
        if found.kind == "external":
            return self.result_types(found, depth + 1)
        if found.kind != "symbol":
            return UNKNOWN
        if assign.kind == STATED:
            return (frozenset({found.symbol}), False) if self._is_class(found.symbol) else UNKNOWN
        return self.result_types(found, depth + 1)

    def callable_of(self, path: str, scope: str, dotted: str, depth: int = 0) -> Bound | None:
        """What a dotted callee names: bound by name, else a method of its receiver's type."""
        bound = self.bind_dotted(path, scope, dotted)
        if bound is None and "." not in dotted:
            language = language_named(self.facts[path].language)
            owner = self.instance_class(path, scope) if language.implicit_this else ""
            # An inherited method called with an implicit ``this``.
            return self.find_method(owner, dotted) if owner else None
        if bound is not None:
            return bound
        receiver, _, name = dotted.rpartition(".")
        classes, external = self.value_types(path, scope, receiver, depth + 1)
        if len(classes) == 1:
            return self.find_method(next(iter(classes)), name)
        if not classes and external:
            return Bound("external", external=EXTERNAL_VALUE)
        return None

    def result_types(self, called: Bound, depth: int) -> ValueTypes:
        """What calling ``called`` gives: an instance of a class, or a function's result.

        A method of a value from outside the repository (a list's ``pop``, an array's
        ``find``) may give back one of the repository's objects the value holds: unknown.
        """
        if called.kind == "external":
            return UNKNOWN if called.external == EXTERNAL_VALUE else (frozenset(), True)
        if called.kind != "symbol":
            return UNKNOWN
        if self._is_class(called.symbol):
            return frozenset({called.symbol}), False
        if called.symbol in self._returns:
            return self._returns[called.symbol]
        self._returns[called.symbol] = UNKNOWN  # a recursive function returns what it returns
        path, qualname = symbol_parts(called.symbol)
        if path not in self.facts:
            return UNKNOWN
        returns = [a for a in self.assigns_of(path).get(RETURNS, ()) if a.scope == qualname]
        types = self._types_assigned(path, returns, depth + 1)
        self._returns[called.symbol] = types
        return types

    def attribute_types(self, class_id: str, attribute: str, depth: int = 0) -> ValueTypes:
        """The types of ``instance.attribute``: set through ``self`` in the class's methods or
        stated in its body, else in a base's."""
        key = (class_id, attribute)
        if key in self._attribute_types:
            return self._attribute_types[key]
        self._attribute_types[key] = UNKNOWN
        path, qualname = symbol_parts(class_id)
        types = UNKNOWN
        if path in self.facts and depth <= MAX_LOOKUP_DEPTH:
            language = language_named(self.facts[path].language)
            table = self.assigns_of(path)
            assigns = [a for a in table.get(attribute, ()) if a.scope == qualname]
            for word in sorted(language.self_words):
                assigns.extend(
                    a
                    for a in table.get(f"{word}.{attribute}", ())
                    if self.enclosing_class(path, a.scope) == qualname
                )
            types = self._types_assigned(path, assigns, depth + 1)
            if types == UNKNOWN:
                for base in self.bases_of(class_id):
                    types = self.attribute_types(base, attribute, depth + 1)
                    if types != UNKNOWN:
                        break
        self._attribute_types[key] = types
        return types

    # ---- functions held in values -----------------------------------------------------------

    def held_functions(
        self, path: str, scope: str, name: str, depth: int = 0
    ) -> frozenset[str] | None:
        """The functions and classes of the repository that the value ``name`` (``f``,
        ``self.f``, ``table[]``) may hold in ``scope``: through aliases, parameters (what the
        call sites pass), returned names, decorators, loops and unpacking. None when some way
        in holds what nothing states: then no list is complete."""
        if depth > MAX_LOOKUP_DEPTH:
            return None
        key = (path, scope, name)
        if key in self._held:
            return self._held[key]
        self._held[key] = frozenset()  # passed around in a cycle: adds nothing new
        found = self._held_functions(path, scope, name, depth)
        self._held[key] = found
        return found

    def _held_functions(
        self, path: str, scope: str, name: str, depth: int
    ) -> frozenset[str] | None:
        language = language_named(self.facts[path].language)
        head, _, attribute = name.partition(".")
        if head in language.self_words and attribute and "." not in attribute:
            owner = self.enclosing_class(path, scope)
            table = self.assigns_of(path)
            assigns = [
                a
                for word in sorted(language.self_words)
                for a in table.get(f"{word}.{attribute}", ())
                if owner and self.enclosing_class(path, a.scope) == owner
            ]
        elif "." not in name:
            assigns = self.visible_assigns(path, scope, name)
            if assigns:
                # A name given a value in a function is that function's own: the innermost
                # scope that assigns it hides the others.
                innermost = max(len(a.scope) for a in assigns)
                assigns = [a for a in assigns if len(a.scope) == innermost]
        else:
            assigns = []
        if not assigns:
            bound = self.callable_of(path, scope, name, depth + 1)
            if bound is None or bound.kind != "symbol":
                return None
            return self.symbol_value(bound.symbol, depth + 1)
        found: set[str] = set()
        defaults = {(a.scope, a.var) for a in assigns if a.kind == ALIAS}
        for assign in assigns:
            if assign.kind == PARAMETER:
                more = self._passed(path, assign, depth + 1)
                if more is None and (assign.scope, assign.var) in defaults:
                    continue  # callers not seen may rely on the default
            elif assign.kind in (ALIAS, WRAPS):
                more = self.held_functions(path, assign.scope, assign.callee, depth + 1)
            elif assign.kind == ASSIGNED:
                # ``x = f(...)``: what f returns, its parameters read at this call.
                more = self.call_result(path, assign.scope, assign.line, assign.callee, depth + 1)
            elif assign.kind == DECORATED:
                symbol = symbol_id(path, f"{assign.scope}.{assign.var}".lstrip("."))
                more = self.symbol_value(symbol, depth + 1) if self.symbol(symbol) else None
            else:
                more = None
            if more is None:
                return None
            found |= more
        return frozenset(found) or None

    def is_parameter(self, path: str, scope: str, name: str) -> bool:
        """Whether ``name`` in ``scope`` is a parameter of an enclosing function."""
        parameters = self.memo(
            f"values:parameters:{path}", lambda index: _parameters_of(index, path)
        )
        while scope:
            if (scope, name) in parameters:
                return True
            scope = scope.rpartition(".")[0]
        return False

    def is_local(self, path: str, scope: str, name: str) -> bool:
        """Whether ``name`` is a parameter or a variable seen from ``scope``: it then hides a
        definition, an import or a builtin of that name."""
        return self.is_parameter(path, scope, name) or bool(self.visible_assigns(path, scope, name))

    def symbol_value(self, symbol: str, depth: int = 0, below: int = 0) -> frozenset[str] | None:
        """What a definition's name holds: the function itself, or what its decorators of the
        repository return for it (``@d def f`` is ``f = d(f)``), innermost first; with
        ``below``, only the decorators written below that line (what the one there receives)."""
        key = (symbol, below)
        if key in self._symbol_values:
            return self._symbol_values[key]
        self._symbol_values[key] = frozenset({symbol})  # decorated by itself: as written
        value = self._symbol_value(symbol, depth, below)
        self._symbol_values[key] = value
        return value

    def _symbol_value(self, symbol: str, depth: int, below: int) -> frozenset[str] | None:
        path, qualname = symbol_parts(symbol)
        scope, _, name = qualname.rpartition(".")
        if not any(a.kind == DECORATED for a in self.assigns_of(path).get(name, ())):
            return frozenset({symbol})
        decorators = [
            a
            for a in self.assigns_of(path).get(name, ())
            if a.kind == DECORATED and a.scope == scope and a.line > below
        ]
        value: frozenset[str] | None = frozenset({symbol})
        for decorator in sorted(decorators, key=lambda a: -a.line):
            bound = self.callable_of(path, scope, decorator.callee, depth + 1)
            if bound is None or bound.kind != "symbol" or self._is_class(bound.symbol):
                continue  # a decorator from outside: the name keeps its function
            value = self._returned(bound.symbol, _always(value), depth + 1)
            if value is None:
                return frozenset({symbol})  # returns what nothing states: as written
        return value

    def _returned(
        self,
        function: str,
        argument: Callable[[tuple[int, str]], frozenset[str] | None],
        depth: int,
    ) -> frozenset[str] | None:
        """The functions ``function`` returns; ``argument((position, name))`` is what the call
        passes to that parameter (a returned parameter is the argument of that call)."""
        path, qualname = symbol_parts(function)
        if path not in self.facts or depth > MAX_LOOKUP_DEPTH:
            return None
        table = self.assigns_of(path)
        returns = [a for a in table.get(RETURNS, ()) if a.scope == qualname]
        if not returns or any(a.kind not in (ALIAS, ASSIGNED) for a in returns):
            return None
        found: set[str] = set()
        for returned in returns:
            if returned.kind == ASSIGNED:  # ``return make(...)``: what that call gives
                more = self.call_result(
                    path, returned.scope, returned.line, returned.callee, depth + 1
                )
                if more is None:
                    return None
                found |= more
                continue
            name = returned.callee
            # ``@functools.wraps(f) def wrapper``: returning the wrapper returns f, in effect.
            wraps = [a for a in table.get(name, ()) if a.kind == WRAPS and a.scope == qualname]
            if len(wraps) == 1:
                name = wraps[0].callee
            parameters = [
                a for a in table.get(name, ()) if a.kind == PARAMETER and a.scope == qualname
            ]
            if parameters:
                slot = parameters[0].callee
                more = argument((int(slot) if slot else -1, name))
            else:
                more = self.held_functions(path, qualname, name, depth + 1)
            if more is None:
                return None
            found |= more
        return frozenset(found) or None

    def call_result(
        self, path: str, scope: str, line: int, called: str, depth: int = 0
    ) -> frozenset[str] | None:
        """The functions and classes of the repository that the call ``called(...)`` written
        at ``line`` in ``scope`` gives: what the function it names returns, a returned
        parameter being the argument passed there. ``called`` may be a call's result itself
        (``make()`` in ``make()()``): then what that returns gives, its arguments not read.
        None when unknown: a class's instance, a result nothing states."""
        if depth > MAX_LOOKUP_DEPTH:
            return None
        if called.endswith(CALL_RESULT):
            functions = self.call_result(path, scope, line, called[: -len(CALL_RESULT)], depth + 1)
            passed: dict[str, str] = {}
        else:
            functions = self._functions_called(path, scope, called, depth + 1)
            sites = self.memo(
                f"values:arguments-at:{path}", lambda index: _arguments_at(index, path)
            )
            prefix = f"{called}("
            passed = {
                a.var[len(prefix) : -1]: a.callee
                for a in sites.get((line, scope), ())
                if a.var.startswith(prefix)
            }
        if not functions:
            return None
        found: set[str] = set()
        for function in sorted(functions):
            if self._is_class(function):
                return None  # an instance: what calling it does is its __call__'s, not followed
            offset = self._offset(function, called, path, scope)

            def argument(slot: tuple[int, str], offset: int = offset) -> frozenset[str] | None:
                position, name = slot
                value = passed.get(f"{name}=") or passed.get(str(position - offset))
                return self.held_functions(path, scope, value, depth + 1) if value else None

            more = self._returned(function, argument, depth)
            if more is None:
                return None
            found |= more
        return frozenset(found) or None

    def _functions_called(
        self, path: str, scope: str, called: str, depth: int
    ) -> frozenset[str] | None:
        """The functions a call of the dotted name ``called`` may run: the one it names, or
        those a parameter or a variable of that name holds (``a = make; a()``)."""
        if "." not in called and self.is_local(path, scope, called):
            return self.held_functions(path, scope, called, depth)
        bound = self.callable_of(path, scope, called, depth)
        return frozenset({bound.symbol}) if bound is not None and bound.kind == "symbol" else None

    def _offset(self, function: str, called: str, path: str, scope: str) -> int:
        """How many parameters a call fills before its first argument: 1 for ``self`` when a
        method is called on an instance, or a class is called for its ``__init__``."""
        symbol = self.symbol(function)
        if symbol is None or symbol.kind != "method":
            return 0
        receiver = called.rpartition(".")[0]
        if symbol.name == "__init__" or not receiver:
            return 1
        bound = self.bind_dotted(path, scope, receiver)
        return (
            0
            if bound is not None and bound.kind == "symbol" and self._is_class(bound.symbol)
            else 1
        )

    def _passed(self, path: str, parameter: AssignFact, depth: int) -> frozenset[str] | None:
        """What the call sites of the function ``parameter.scope`` pass to the parameter; None
        when none passes it (the callers are not seen) or one passes what nothing states."""
        function = symbol_id(path, parameter.scope)
        symbol = self.symbol(function)
        if symbol is None:
            return None
        names = [symbol.name]
        if symbol.name == "__init__" and symbol.parent:
            names.append(symbol.parent.rpartition(".")[2])
        position = int(parameter.callee) if parameter.callee else -1
        found: set[str] = set()
        seen = False
        more: frozenset[str] | None
        for name in names:
            for site_path, site in self._arguments(name):
                if site.kind == DECORATED:
                    called, slot = site.callee, "0"
                else:
                    called, _, slot = site.var[:-1].partition("(")
                target = self._callee_of(site_path, site.scope, called)
                if target != function and not (target and f"{target}.__init__" == function):
                    continue
                if slot.endswith("="):
                    if slot[:-1] != parameter.var:
                        continue
                elif int(slot) + self._offset(function, called, site_path, site.scope) != position:
                    continue
                seen = True
                if site.kind == DECORATED:
                    decorated = symbol_id(site_path, f"{site.scope}.{site.var}".lstrip("."))
                    more = self.symbol_value(decorated, depth + 1, below=site.line)
                else:
                    more = self.held_functions(site_path, site.scope, site.callee, depth + 1)
                if more is None:
                    return None
                found |= more
        return frozenset(found) if seen else None

    def _callee_of(self, path: str, scope: str, called: str) -> str:
        """The symbol ID a call's dotted callee binds to, "" when none."""
        key = (path, scope, called)
        found = self._callees.get(key)
        if found is None:
            bound = self.callable_of(path, scope, called)
            found = bound.symbol if bound is not None and bound.kind == "symbol" else ""
            if not found and "." not in called and self.visible_assigns(path, scope, called):
                # c = func; c(b): the one function the name holds.
                held = self.held_functions(path, scope, called)
                found = next(iter(held)) if held and len(held) == 1 else ""
            self._callees[key] = found
        return found

    def _arguments(self, name: str) -> list[tuple[str, AssignFact]]:
        """Every argument passed to a function called ``name``, and every decorator of that
        name applied, with its file. Only the files that mention the name are read, when the
        index knows what each mentions."""
        if self._mentioning is None:
            return self.memo("values:arguments", _all_arguments).get(name, [])
        key = f"values:arguments:{name}"
        if key not in self._memo:
            self._memo[key] = _arguments_in(self, self._mentioning(name)).get(name, [])
        found: list[tuple[str, AssignFact]] = self._memo[key]
        return found

    def _is_class(self, node_id: str) -> bool:
        symbol = self.symbol(node_id)
        return symbol is not None and symbol.kind in CLASS_KINDS

    # ---- declared members and their implementations --------------------------------------

    def declared_only(self, member_id: str) -> bool:
        """Whether a method is declared without a body: an interface's, or an abstract one."""
        symbol = self.symbol(member_id)
        if symbol is None or symbol.kind != "method":
            return False
        path = symbol_parts(member_id)[0]
        owner = self.symbols[path].get(symbol.parent)
        if owner is not None and owner.kind == "interface":
            return True
        return f"{ABSTRACT}{symbol.qualname}" in self.facts[path].extra

    def implementations(self, classes: Iterable[str], name: str) -> list[str]:
        """The methods a call of a declared-only member on a value of one of ``classes`` may
        reach: what each class below them defines or inherits under ``name``, unless it is
        declared-only as well."""
        below = self.memo("subclasses", _subclasses)
        found: set[str] = set()
        queue = sorted(classes)
        seen = set(queue)
        while queue:
            for class_id in below.get(queue.pop(), ()):
                if class_id in seen:
                    continue
                seen.add(class_id)
                queue.append(class_id)
                method = self.find_method(class_id, name)
                if method is not None and not self.declared_only(method.symbol):
                    found.add(method.symbol)
        return sorted(found)


def _always(
    value: frozenset[str] | None,
) -> Callable[[tuple[int, str]], frozenset[str] | None]:
    """An ``argument`` for ``RepoIndex._returned``: ``value``, whatever the parameter."""
    return lambda _slot: value


def _all_arguments(index: RepoIndex) -> dict[str, list[tuple[str, AssignFact]]]:
    return _arguments_in(index, sorted(index.facts))


def _arguments_in(
    index: RepoIndex, paths: Iterable[str]
) -> dict[str, list[tuple[str, AssignFact]]]:
    """The arguments passed and decorators applied in ``paths``, by the called name."""
    table: dict[str, list[tuple[str, AssignFact]]] = {}
    for path in paths:
        for assign in index.full_facts(path).assigns:
            if assign.kind == ARGUMENT:
                name = called_name(assign)
            elif assign.kind == DECORATED:
                name = assign.callee.rpartition(".")[2]
            else:
                continue
            table.setdefault(name, []).append((path, assign))
    return table


def _subclasses(index: RepoIndex) -> dict[str, list[str]]:
    """Class ID -> the classes (and interfaces) that extend or implement it, directly; for the
    languages that list the implementations of declared members (``dispatch_declared``)."""
    table: dict[str, list[str]] = {}
    for path in sorted(index.facts):
        facts = index.facts[path]
        if not facts.bases or not language_named(facts.language).dispatch_declared:
            continue
        for owner in sorted({base.owner for base in facts.bases}):
            if owner in index.symbols[path]:
                class_id = symbol_id(path, owner)
                for base in index.bases_of(class_id):
                    table.setdefault(base, []).append(class_id)
    return table


def _parameters_of(index: RepoIndex, path: str) -> frozenset[tuple[str, str]]:
    """(function, parameter) of a file's parameters that its facts state."""
    assigns = index.full_facts(path).assigns
    return frozenset((a.scope, a.var) for a in assigns if a.kind == PARAMETER)


def _arguments_at(index: RepoIndex, path: str) -> dict[tuple[int, str], list[AssignFact]]:
    """A file's arguments passed by name, by the line and scope of their call."""
    table: dict[tuple[int, str], list[AssignFact]] = {}
    for assign in index.full_facts(path).assigns:
        if assign.kind == ARGUMENT:
            table.setdefault((assign.line, assign.scope), []).append(assign)
    return table


class FileResolver:
    """Resolves the facts of one file against the index."""

    def __init__(self, index: RepoIndex, path: str) -> None:
        self.index = index
        self.path = path
        self.facts = index.full_facts(path)
        self.language = language_named(self.facts.language)
        self.result = FileResolution()
        # Whether a call no scope binds is looked up by its name alone (see _by_name); not
        # for what a site only may call (a raised value, a function passed to a builtin).
        self.guess = True

    def run(self) -> FileResolution:
        self._contains()
        self._imports()
        self._inherits()
        for call in self.facts.calls:
            self._call(call)
        if self.language.builtin_callbacks:
            for assign in self.facts.assigns:
                if assign.kind == ARGUMENT and assign.var in self.language.builtin_callbacks:
                    self._builtin_callback(assign)
        self.result.edges = sorted(set(self.result.edges))
        return self.result

    def _bound_as_call(self, call: CallFact) -> list[Edge]:
        """The edges ``call`` would make as a call site, with no guess by name; what it could
        not bind (unresolved, external) is not counted: the site may call nothing."""
        kept = self.result
        self.result, self.guess = FileResolution(), False
        try:
            self._call(call)
            return self.result.edges
        finally:
            self.result, self.guess = kept, True

    def _raised(self, call: CallFact) -> None:
        """``raise A``, ``raise mod.A``, ``raise a`` (``a = A``): a class raised by its name is
        constructed there, a call of it bound as ``A()`` would be. Any other value raised (an
        instance, an exception caught by ``except ... as e``, a binding the facts do not
        state) calls nothing: such a site is no call, neither bound nor unresolved."""
        site = call._replace(name=call.name.removesuffix(RAISED))
        for edge in self._bound_as_call(site):
            if all(self._is_class(target) for target in edge.candidates or (edge.target,)):
                self.result.edges.append(edge)

    def _builtin_callback(self, passed: AssignFact) -> None:
        """``map(f, xs)``, ``sorted(xs, key=f)``: the builtin calls f, so the passing scope
        does, INFERRED (see CONFIDENCE_BUILTIN_CALLBACK) or AMBIGUOUS. Only when the name
        is the builtin's: a parameter, a variable, a definition or an import of that name
        shadows it."""
        builtin = passed.var.partition("(")[0]
        if self.index.is_local(self.path, passed.scope, builtin):
            return
        bound = self.index.bind_name(self.path, passed.scope, builtin)
        if bound is None or bound.kind != "external" or bound.external != "builtin":
            return
        receiver, _, name = passed.callee.rpartition(".")
        for edge in self._bound_as_call(CallFact(passed.line, passed.scope, name, receiver)):
            if edge.tier != AMBIGUOUS:
                confidence = round(edge.confidence * CONFIDENCE_BUILTIN_CALLBACK, 2)
                edge = edge._replace(tier=INFERRED, confidence=confidence)
            self.result.edges.append(edge)

    def _id(self, qualname: str) -> str:
        return symbol_id(self.path, qualname)

    def _edge(
        self,
        source: str,
        kind: str,
        target: str,
        line: int,
        tier: str = EXTRACTED,
        confidence: float = 1.0,
        candidates: tuple[str, ...] = (),
    ) -> None:
        self.result.edges.append(Edge(source, kind, target, line, tier, confidence, candidates))

    def _contains(self) -> None:
        symbols = self.index.symbols[self.path]
        for symbol in self.facts.symbols:
            # A method declared apart from its type (Go) hangs off the file it is written in.
            parent = symbol.parent if symbol.parent in symbols else ""
            self._edge(self._id(parent), CONTAINS, self._id(symbol.qualname), symbol.start_line)

    def _imports(self) -> None:
        for imp in self.facts.imports:
            target = self.index.module(self.language, imp.module, self.path)
            targets: tuple[str, ...] = target.files
            if imp.name not in ("", "*") and target.files:
                # ``from pkg import submodule`` points at the submodule's file.
                sub = self.index.module(
                    self.language, self.language.submodule(imp.module, imp.name), self.path
                )
                found = self.index.find_top_level(target.files, imp.name)
                if found is not None and found.kind == "module":
                    targets = found.module.files  # a module the package itself imports
                elif sub.files and found is None:
                    targets = sub.files
            if target.broken:
                self.result.broken_imports.append((imp.line, imp.module))
            if target.external:
                self._edge(
                    self.path,
                    "imports",
                    external_id(self.language.ecosystem, target.external),
                    imp.line,
                )
            for file in targets:
                if file != self.path:
                    self._edge(self.path, "imports", file, imp.line)

    def _inherits(self) -> None:
        for base in self.facts.bases:
            scope = base.owner.rpartition(".")[0]
            bound = self.index.bind_dotted(self.path, scope, base.base)
            source = self._id(base.owner)
            if base.owner not in self.index.symbols[self.path]:
                # ``impl Trait for T`` (Rust) may name a type declared in another file.
                source = self._class_named(base.owner)
                if not source:
                    continue
            if bound is not None and bound.kind == "symbol":
                self._edge(source, "inherits", bound.symbol, base.line)
            elif bound is None:
                name = base.base.rsplit(".", 1)[-1]
                self._by_name(
                    source,
                    "inherits",
                    base.line,
                    self._classes(
                        self.index.top_level_by_name.get((self.language.ecosystem, name), [])
                    ),
                    CONFIDENCE_UNIQUE_NAME,
                    name,
                )

    def _class_named(self, dotted: str) -> str:
        """The ID of the class ``dotted`` names at the top of this file, "" if it binds to none."""
        bound = self.index.bind_dotted(self.path, "", dotted)
        if bound is None or bound.kind != "symbol":
            return ""
        return bound.symbol if self._is_class(bound.symbol) else ""

    def _owner_id(self, scope: str) -> str:
        """The class whose instance ``self`` is inside ``scope``, "" outside any class."""
        owner = self.index.enclosing_class(self.path, scope)
        if owner:
            return self._id(owner)
        # A method declared apart from its type: Go receivers, Rust impl blocks.
        symbol = self.index.symbols[self.path].get(scope)
        if symbol is None or symbol.kind != "method" or not symbol.parent:
            return ""
        return self._class_named(symbol.parent)

    def _is_class(self, node_id: str) -> bool:
        symbol = self.index.symbol(node_id)
        return symbol is not None and symbol.kind in CLASS_KINDS

    def _classes(self, ids: Sequence[str]) -> list[str]:
        return [i for i in ids if self._is_class(i)]

    def _call(self, call: CallFact) -> None:
        caller = self._id(call.caller)
        if call.name.endswith(RAISED):
            self._raised(call)
            return
        if UNBINDABLE in (call.name, call.receiver):
            self._unresolved(caller, call.name)
            return
        if call.name.endswith(CALL_RESULT):
            self._result_call(caller, call)
            return
        if call.receiver == "":
            self._bare_call(caller, call)
        elif call.receiver in ("self", "super") or (
            call.receiver.split(".")[0] in self.language.self_words
        ):
            self._self_call(caller, call)
        else:
            self._receiver_call(caller, call)

    def _bare_call(self, caller: str, call: CallFact) -> None:
        bound = self.index.bind_name(self.path, call.caller, call.name)
        if bound is None and self.language.implicit_this:
            # Java's ``close()`` is ``this.close()``: the method, never a value held by a name.
            owner = self.index.enclosing_class(self.path, call.caller)
            if owner:
                bound = self.index.find_method(self._id(owner), call.name)
        if self.language.value_flow and self._held_call(caller, call, bound):
            return
        if bound is None and self.language.value_flow:
            if self._alias_call(caller, call):
                return
            if call.name.endswith(ELEMENT):  # held in a container nothing states
                self._unresolved(caller, UNBINDABLE)
                return
        if self._bound_call(caller, call, bound):
            return
        candidates: Sequence[str]
        candidates = self.index.top_level_by_name.get((self.language.ecosystem, call.name), [])
        self._by_name(caller, "calls", call.line, candidates, CONFIDENCE_UNIQUE_NAME, call.name)

    def _result_call(self, caller: str, call: CallFact) -> None:
        """``make()()``: a call of what ``make`` returns, when that is a function or class of
        the repository: INFERRED, as a function held in a value is, or AMBIGUOUS listing all.
        What a package's function returns (``@app.route("/")``) is code from outside; what a
        builtin or a method of an outside value returns (``getattr(obj, name)()``,
        ``self.handlers.pop()()``) may be anything, the repository's too."""
        called = call.name.removesuffix(CALL_RESULT)
        held = self.index.call_result(self.path, call.caller, call.line, called)
        if held and self._held_edge(caller, call, held):
            return
        innermost = called.split("(", 1)[0]
        bound = (
            None
            if self.index.is_parameter(self.path, call.caller, innermost.partition(".")[0])
            else self.index.callable_of(self.path, call.caller, innermost)
        )
        if (
            bound is not None
            and bound.kind == "external"
            and bound.external not in ("builtin", EXTERNAL_VALUE)
        ):
            self.result.external_calls[caller] += 1
            return
        self._unresolved(caller, UNBINDABLE)

    def _self_call(self, caller: str, call: CallFact) -> None:
        owner = self.index.enclosing_class(self.path, call.caller)
        class_id = self._owner_id(call.caller)
        receiver = call.receiver
        if receiver.split(".")[0] in self.language.self_words:
            receiver = "self" + receiver[len(receiver.split(".")[0]) :]
        if class_id and receiver in ("self", "super"):
            if receiver == "super":
                bound = None
                for base in self.index.bases_of(class_id):
                    bound = self.index.find_method(base, call.name)
                    if bound is not None:
                        break
            else:
                bound = self.index.find_method(class_id, call.name)
            if self._bound_call(caller, call, bound):
                if bound is not None and bound.kind == "symbol":
                    self._implementations(caller, call, (class_id,), bound.symbol, 1.0)
                return
            if receiver == "self" and self.language.value_flow:
                # self.handler = self.on_save, then self.handler(): what the attribute holds.
                held = self.index.held_functions(self.path, call.caller, f"self.{call.name}")
                if held and self._held_edge(caller, call, held):
                    return
        # self.attr.method(): the attribute's type, if some method assigned it.
        elif self.language.value_flow:
            if self._typed_call(caller, call, call.receiver):
                return
            if CALL_RESULT in call.receiver:  # self.make().run(), as make().run()
                self._unresolved(caller, call.name)
                return
        elif owner and self._assigned_call(caller, call, owner, receiver):
            return
        self._by_method_name(caller, call)

    def _receiver_call(self, caller: str, call: CallFact) -> None:
        if CALL_RESULT in call.receiver:
            # make().run(): bound only through what make returns, never by the name alone.
            if not self._typed_call(caller, call, call.receiver):
                self._unresolved(caller, call.name)
            return
        bound = self.index.bind_dotted(self.path, call.caller, call.receiver)
        if bound is not None and bound.kind == "symbol" and self.language.implicit_this:
            # With an implicit ``this``, a receiver named like a method is a field of that name.
            symbol = self.index.symbol(bound.symbol)
            if symbol is not None and symbol.kind == "method":
                bound = None
        if bound is not None:
            if bound.kind == "external":
                self.result.external_calls[caller] += 1
                return
            member = self.index.member(bound, call.name)
            if self._bound_call(caller, call, member):
                return
            if bound.kind == "module" or self._is_class(bound.symbol):
                self._unresolved(caller, call.name)
                return
        elif self.language.value_flow:
            if self._typed_call(caller, call, call.receiver):
                return
            if self._stated_dynamic(call.caller, call.receiver):
                self._unresolved(caller, call.name)
                return
        elif self._assigned_call(caller, call, call.caller, call.receiver):
            return
        self._by_method_name(caller, call)

    def _stated_dynamic(self, scope: str, receiver: str) -> bool:
        """Whether ``receiver`` is a variable whose stated type names no class (an anonymous
        interface, an untyped lambda parameter): its methods are not guessed by name."""
        return "." not in receiver and any(
            a.kind == STATED and a.callee == UNBINDABLE
            for a in self.index.visible_assigns(self.path, scope, receiver)
        )

    def _typed_call(self, caller: str, call: CallFact, receiver: str) -> bool:
        """``receiver.m()`` bound through the receiver's type, INFERRED: the value may be of a
        subclass, or rebound on a path the statements read do not show.

        A receiver whose only stated types lie outside the repository makes an external call.
        """
        classes, external = self.index.value_types(self.path, call.caller, receiver)
        if not classes:
            if external:
                self.result.external_calls[caller] += 1
            return external
        if external and self.language.static_types:
            # A type of the repository or one from outside it (overloads declared to return
            # a String or a TextNode): which one has the method is not known.
            self._unresolved(caller, call.name)
            return True
        methods = set()
        for class_id in classes:
            found = self.index.find_method(class_id, call.name)
            if found is not None and found.kind == "symbol":
                methods.add(found.symbol)
        if not methods and not self.language.static_types:
            return False  # a subclass's method, called on a value typed as its base
        if not methods:
            # The receiver's classes are known, and a compiler checked that the method is
            # theirs: it is one their bases outside the repository give, or one no
            # statement shows; a method of that name in another class is not it.
            if any(self._outside_base(class_id) for class_id in classes):
                self.result.external_calls[caller] += 1
            else:
                self._unresolved(caller, call.name)
            return True
        if len(methods) == 1:
            method = methods.pop()
            self._edge(caller, "calls", method, call.line, INFERRED, CONFIDENCE_VALUE_TYPE)
            self._implementations(caller, call, classes, method, CONFIDENCE_VALUE_TYPE)
        else:
            self._edge(caller, "calls", "", call.line, AMBIGUOUS, 0.0, tuple(sorted(methods)))
        return True

    def _outside_base(self, class_id: str, depth: int = 0) -> bool:
        """Whether the class, or a base of it, names a base that binds to no class here."""
        path, qualname = symbol_parts(class_id)
        facts = self.index.facts.get(path)
        if facts is None or depth > MAX_LOOKUP_DEPTH:
            return False
        bound = self.index.bases_of(class_id)
        if sum(1 for base in facts.bases if base.owner == qualname) > len(bound):
            return True
        return any(self._outside_base(base, depth + 1) for base in bound)

    def _implementations(
        self, caller: str, call: CallFact, receivers: Iterable[str], member: str, confidence: float
    ) -> None:
        """A call bound to a declared-only member also reaches the methods implementing it
        below the receiver's classes (for the languages that ask): the only one INFERRED,
        several AMBIGUOUS."""
        if not self.language.dispatch_declared or not self.index.declared_only(member):
            return
        found = self.index.implementations(receivers, call.name)
        if len(found) == 1:
            confidence = round(confidence * CONFIDENCE_ONLY_IMPLEMENTATION, 2)
            self._edge(caller, "calls", found[0], call.line, INFERRED, confidence)
        elif 1 < len(found) <= self.index_limit:
            self._edge(caller, "calls", "", call.line, AMBIGUOUS, 0.0, tuple(found))

    def _held_call(self, caller: str, call: CallFact, bound: Bound | None) -> bool:
        """``f()`` where f holds a function through a parameter, a return, a loop, unpacking,
        or a decorator of the repository that replaces it: INFERRED, or AMBIGUOUS listing
        all. A parameter shadows the module's names: unknown, it leaves the call unresolved."""
        parameter = self.index.is_parameter(self.path, call.caller, call.name)
        if bound is not None and not parameter:
            if bound.kind != "symbol":
                return False
            held = self.index.symbol_value(bound.symbol)
            if not held or held == frozenset({bound.symbol}):
                return False  # the name still holds the function it defines
        else:
            if not parameter and self._alias_call(caller, call):
                return True
            held = self.index.held_functions(self.path, call.caller, call.name)
            if not held:
                if parameter:
                    self._unresolved(caller, call.name)
                return parameter
        if not self._held_edge(caller, call, held):
            self._unresolved(caller, call.name)
        return True

    def _held_edge(self, caller: str, call: CallFact, held: frozenset[str]) -> bool:
        if len(held) == 1:
            self._edge(caller, "calls", next(iter(held)), call.line, INFERRED, CONFIDENCE_HELD)
        elif len(held) <= self.index_limit:
            self._edge(caller, "calls", "", call.line, AMBIGUOUS, 0.0, tuple(sorted(held)))
        else:
            return False
        return True

    def _alias_call(self, caller: str, call: CallFact) -> bool:
        """``f = g; f()`` calls g, INFERRED: f may be rebound where the statements do not show.

        A name given several functions (a container of them: ``STAGES[k]()``) lists them all
        as AMBIGUOUS: which one the key or index picks is not followed."""
        assigns = self.index.visible_assigns(self.path, call.caller, call.name)
        if not assigns or any(a.kind != ALIAS for a in assigns):
            return False
        targets = set()
        for assign in assigns:
            found = self.index.callable_of(self.path, assign.scope, assign.callee)
            if found is None or found.kind != "symbol":
                return False
            targets.add(found.symbol)
        if len(targets) == 1:
            self._edge(caller, "calls", targets.pop(), call.line, INFERRED, CONFIDENCE_VALUE_TYPE)
        elif len(targets) <= self.index_limit:
            self._edge(caller, "calls", "", call.line, AMBIGUOUS, 0.0, tuple(sorted(targets)))
        else:
            return False
        return True

    def _assigned_call(self, caller: str, call: CallFact, scope: str, receiver: str) -> bool:
        """``x = Foo(); x.m()`` binds m to Foo.m, INFERRED: x might have been rebound since.

        A receiver whose stated type is outside the repository makes an external call.
        """
        var = receiver
        if receiver.startswith("self."):
            candidates = [
                a
                for a in self.facts.assigns
                if a.var.split(".")[0] in self.language.self_words
                and "self" + a.var[len(a.var.split(".")[0]) :] == receiver
                and a.scope.startswith(scope)
            ]
        else:
            candidates = [
                a
                for a in self.facts.assigns
                if a.var == var
                and (scope == a.scope or scope.startswith(f"{a.scope}.") or not a.scope)
            ]
        types = set()
        external = False
        for assign in candidates:
            bound = self.index.bind_dotted(self.path, assign.scope, assign.callee)
            if bound is not None and bound.kind == "external":
                external = True
            elif bound is not None and bound.kind == "symbol" and self._is_class(bound.symbol):
                types.add(bound.symbol)
        if not types and external:
            # The receiver's stated type lies outside the repository (a List, a Map): its
            # methods are not the repository's, whatever their names.
            self.result.external_calls[caller] += 1
            return True
        if len(types) != 1:
            return False
        method = self.index.find_method(types.pop(), call.name)
        if method is None or method.kind != "symbol":
            return False
        self._edge(caller, "calls", method.symbol, call.line, INFERRED, CONFIDENCE_ASSIGNED_TYPE)
        return True

    def _bound_call(self, caller: str, call: CallFact, bound: Bound | None) -> bool:
        if bound is None:
            return False
        if bound.kind == "external":
            self.result.external_calls[caller] += 1
            return True
        if bound.kind == "symbol":
            self._edge(caller, "calls", bound.symbol, call.line)
            return True
        return False

    def _by_method_name(self, caller: str, call: CallFact) -> None:
        if call.name in self.language.builtin_methods:
            self._unresolved(caller, call.name)
            return
        candidates: Sequence[str]
        candidates = self.index.methods_by_name.get((self.language.ecosystem, call.name), [])
        self._by_name(caller, "calls", call.line, candidates, CONFIDENCE_UNIQUE_METHOD, call.name)

    def _by_name(
        self,
        source: str,
        kind: str,
        line: int,
        candidates: Sequence[str],
        confidence: float,
        name: str,
    ) -> None:
        if not self.guess:
            candidates = []
        if len(candidates) == 1:
            self._edge(source, kind, candidates[0], line, INFERRED, confidence)
        elif 1 < len(candidates) <= self.index_limit:
            self._edge(source, kind, "", line, AMBIGUOUS, 0.0, tuple(sorted(candidates)))
        elif kind == "calls":
            self._unresolved(source, name)

    index_limit = 8  # more candidates than this say nothing: the site counts as unresolved

    def _unresolved(self, caller: str, name: str) -> None:
        names = self.result.unresolved.get(caller)
        if names is None:
            names = self.result.unresolved[caller] = Counter()
        names[name] += 1


def resolve_files(
    index: RepoIndex, paths: Iterable[str], max_candidates: int
) -> dict[str, FileResolution]:
    results = {}
    for path in paths:
        if not index.facts[path].language:
            results[path] = FileResolution()
            continue
        resolver = FileResolver(index, path)
        resolver.index_limit = max_candidates
        results[path] = resolver.run()
    return results
