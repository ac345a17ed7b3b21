"""The repository's symbol tables, built once per resolution pass over the facts of every
file: what each name of a file binds to (its scopes, its imports, its package, its
builtins), the types its values hold, the bases and subclasses of its classes. The resolver
(``kgtool.raw.resolve``) asks; a language reads it through ``languages.base.IndexView``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from kgtool.raw.index_tables import (
    all_arguments,
    arguments_at,
    arguments_in,
    parameters_of,
)
from kgtool.raw.languages import language_named
from kgtool.raw.languages.base import CALL_RESULT, UNBINDABLE, Language, ModuleTarget
from kgtool.raw.model import (
    ALIAS,
    ARGUMENT,
    ASSIGNED,
    CLASS_KINDS,
    DECORATED,
    ENTERED,
    MAX_LOOKUP_DEPTH,
    PARAMETER,
    RETURNS,
    STATED,
    WRAPS,
    AssignFact,
    FileFacts,
    Symbol,
    imports_binding,
    symbol_id,
    symbol_parts,
)
from kgtool.raw.module_values import defining_value, returned_member, top_level_assigns
from kgtool.raw.names import NameLookup, NameTable, NameTables, files_by_language, name_tables

NO_MODULE = ModuleTarget()


# Bound.external of a method of a value whose type lies outside the repository.
EXTERNAL_VALUE = "value"


TYPING_KINDS = frozenset({ASSIGNED, STATED, ALIAS, ENTERED})


T = TypeVar("T")  # what a memo holds


class Bound(NamedTuple):
    """What a name was bound to: a symbol ID, a module, or something outside the repository.
    A tuple: one is made for nearly every name looked up, and a frozen dataclass took three
    times as long to make."""

    kind: str  # "symbol" | "module" | "external"
    symbol: str = ""
    module: ModuleTarget = NO_MODULE
    external: str = ""


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
        extras: Mapping[str, Mapping[str, str]] | None = None,
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
        # The ``extra`` of the files whose languages are read across (``extra_read_across``),
        # as the cache keeps them: read there, an edit decodes none of their entries.
        self._extras = extras if extras is not None else {}
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

    def extra_of(self, path: str) -> Mapping[str, str]:
        """A file's ``extra``, from the cache's table when it keeps the file's."""
        found = self._extras.get(path)
        return found if found is not None else self.facts[path].extra

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
        for imp in facts.imports:
            head = imp.alias.partition(".")[0]
            if imp.alias == imp.module and head != imp.alias and head not in table:
                # Python's ``import a.b`` binds ``a`` as well: ``a.f()`` is the package's f.
                target = self.module(language, head, path)
                if target.files:
                    table[head] = [Bound("module", module=target)]
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
            named, stars = imports_binding(facts.imports, name)
            for imp in named:
                target = self.module(language, imp.module, path)
                if imp.name and target.external:
                    return Bound("external", external=target.external)
                if imp.name and target.files:
                    return self._member_of_module(
                        language, target, imp.module, imp.name, path, depth + 1
                    )
                if not imp.name and target.files:
                    return Bound("module", module=target)
            for imp in stars:
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
            return self._submodule(bound.module, name)
        if bound.kind == "symbol":
            return self.find_method(bound.symbol, name)
        return bound

    def _submodule(self, package: ModuleTarget, name: str) -> Bound | None:
        """A package's module as its attribute, where the language has such (Python's
        ``utils.parse`` of ``from pkg import utils``)."""
        for path in package.files:
            facts = self.facts.get(path)
            if facts is None or not facts.language:
                continue
            for candidate in language_named(facts.language).attribute_modules(path, name):
                if candidate in self.facts:
                    return Bound("module", module=ModuleTarget((candidate,)))
        return None

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

    def holds_function(self, class_id: str, name: str) -> bool:
        """Whether a class or an interface declares ``name`` as a member of a function type
        (``bold: (s: string) => string``): a call of it goes through the value it holds."""
        path, qualname = symbol_parts(class_id)
        if path not in self.facts:
            return False
        words = language_named(self.facts[path].language).self_words
        return any(
            a.scope == qualname and a.kind == STATED and a.callee == UNBINDABLE
            for word in words
            for a in self.assigns_of(path).get(f"{word}.{name}", ())
        )

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
            returned = returned_member(self, path, scope, receiver, attribute, depth)
            if returned is not None:  # ``return { session }``: what that name holds
                return self._types_assigned(returned[0], returned[1], depth + 1)
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
                defined = defining_value(self, path, head) if types == UNKNOWN else None
                if defined is not None and defined[0] != path:  # imported from another file
                    assigned = top_level_assigns(self, *defined)
                    types = self._types_assigned(defined[0], assigned, depth + 1)
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
        if assign.kind == PARAMETER:
            language = language_named(self.facts[path].language)
            supplied = language.supplied_parameter(path, assign.scope, assign.var, self)
            return self.result_types(Bound("symbol", supplied), depth + 1) if supplied else UNKNOWN
        if assign.kind not in TYPING_KINDS:
            return UNKNOWN  # an argument, a decorator: no type stated
        if assign.kind == ALIAS:
            return self.value_types(path, assign.scope, assign.callee, depth + 1)
        found = self.callable_of(path, assign.scope, assign.callee, depth + 1)
        if found is None and assign.kind == STATED:
            # A declared type the repository neither defines nor imports: the platform's.
            ambient = language_named(self.facts[path].language).ambient_types
            return (frozenset(), True) if ambient else UNKNOWN
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
        types = self.result_types(found, depth + 1)
        if assign.kind == ENTERED:
            return self._entered(types, depth + 1)
        return types

    def _entered(self, types: ValueTypes, depth: int) -> ValueTypes:
        """What ``with`` gives of values of ``types``: what a class's own ``__enter__``
        returns, else the value itself (a file, a lock, most context managers)."""
        classes, external = types
        found: set[str] = set()
        for class_id in sorted(classes):
            enter = self.find_method(class_id, "__enter__")
            if enter is None or enter.kind != "symbol":
                found.add(class_id)
                continue
            returned, outside = self.result_types(enter, depth + 1)
            if not returned and not outside:
                return UNKNOWN  # an __enter__ that returns what no statement types
            found |= returned
            external = external or outside
        return frozenset(found), external

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
        returned = returned_member(self, path, scope, receiver, name, depth)
        if returned is not None:  # ``create().run`` of ``return { run }``
            where, assigns = returned
            held = {self.callable_of(where, a.scope, a.callee, depth + 1) for a in assigns}
            return held.pop() if len(held) == 1 else None
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
            method = self.symbols_in(path).get(f"{qualname}.{attribute}")
            if types == UNKNOWN and method is not None and method.kind == "method":
                # A method read as a value whose members are used is a property (a getter):
                # its value is what it returns.
                method_id = symbol_id(path, method.qualname)
                types = self.result_types(Bound("symbol", symbol=method_id), depth + 1)
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
            f"values:parameters:{path}", lambda index: parameters_of(index, path)
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
                f"values:arguments-at:{path}", lambda index: arguments_at(index, path)
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
            return self.memo("values:arguments", all_arguments).get(name, [])
        key = f"values:arguments:{name}"
        if key not in self._memo:
            self._memo[key] = arguments_in(self, self._mentioning(name)).get(name, [])
        found: list[tuple[str, AssignFact]] = self._memo[key]
        return found

    def _is_class(self, node_id: str) -> bool:
        symbol = self.symbol(node_id)
        return symbol is not None and symbol.kind in CLASS_KINDS


def _always(
    value: frozenset[str] | None,
) -> Callable[[tuple[int, str]], frozenset[str] | None]:
    """An ``argument`` for ``RepoIndex._returned``: ``value``, whatever the parameter."""
    return lambda _slot: value


# What a value can be: the repository's classes it may be an instance of, and whether some
# statement gives it a type from outside the repository (a builtin, a library class).
ValueTypes = tuple[frozenset[str], bool]


UNKNOWN: ValueTypes = (frozenset(), False)
