"""Cross-file resolution: from every file's facts to typed, tiered edges.

Binding order for a name, most certain first: the enclosing scopes of the file, its imports,
the files that share its package scope (Go, Java), the language's builtins. What binds there is
EXTRACTED. A name that binds nowhere is looked up by name alone across the repository: one
candidate is INFERRED, several are AMBIGUOUS (all listed, none chosen), none is an unresolved
call site, counted on the calling symbol.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence

from kgtool.file_kinds import is_test
from kgtool.raw.implementations import declared_only, implementations
from kgtool.raw.index import EXTERNAL_VALUE, Bound, RepoIndex
from kgtool.raw.languages import language_named
from kgtool.raw.languages.base import (
    CALL_RESULT,
    ELEMENT,
    RAISED,
    UNBINDABLE,
)
from kgtool.raw.model import (
    ALIAS,
    AMBIGUOUS,
    ARGUMENT,
    CLASS_KINDS,
    CONTAINS,
    EXTRACTED,
    INFERRED,
    LOCAL,
    MAX_LOOKUP_DEPTH,
    PARAMETER,
    STATED,
    AssignFact,
    CallFact,
    Edge,
    external_id,
    symbol_id,
    symbol_parts,
)
from kgtool.raw.module_values import defining_value, top_level_assigns

# Confidence of an INFERRED edge, by what it was inferred from: the share of such edges a
# type checker confirmed on real code (bench/checker_calls.py, bench/results/checker-calls.md,
# "Calibration"), where it was measured; a reasoned prior where too few were judged.
# Measured at 1.000 on each of four repositories (over 11,000 edges): a receiver's type known.
CONFIDENCE_ASSIGNED_TYPE = 0.95  # receiver assigned from a constructor in the same scope
# The receiver's type followed through values: a stated type (parameter, attribute, return
# annotation), an attribute set in a method, a function's result, an alias (``f = g``).
CONFIDENCE_VALUE_TYPE = 0.95
# A function held in a value that was passed, returned, iterated over or unpacked: a caller
# outside the repository, or an argument that is no name, may pass another one.
CONFIDENCE_HELD = 0.8
# A function passed to a builtin that calls it (``map(f, xs)``, ``sorted(xs, key=f)``), times
# the confidence of what the name binds to: map and filter call it only as their result is
# read, and none calls it for no items.
CONFIDENCE_BUILTIN_CALLBACK = 0.8
# The only top-level definition of that name in the caller's package: 83 of 84 right where
# judged (two TypeScript repositories; Python had none to judge).
CONFIDENCE_UNIQUE_NAME = 0.95
# The only method of that name, the receiver's type unknown, by ecosystem: once platform
# types, outside bases and values followed across files stopped such guesses, 904 of 921
# right on two TypeScript repositories (0.989, 0.971) and 118 of 132 on two Python ones
# (0.927; 4 of 9 on the other, where most such calls are on the standard library's values).
# TypeScript's stays a hundredth under a known type's, within the same 0.05 of what was
# measured, so that a reader can tell a guess from a typed binding by the figure alone.
# Elsewhere (Go, Java, Rust: not measured) the prior of before, 0.7.
CONFIDENCE_UNIQUE_METHOD = {"npm": 0.94, "py": 0.9}
CONFIDENCE_UNIQUE_METHOD_UNMEASURED = 0.7
# A call of a member declared without a body (an interface's, an abstract one) reaches one of
# the methods implementing it: the only one in the repository is this likely, times the
# confidence of the call's own binding (the value may be an object literal, a test double, a
# class from outside). Several are AMBIGUOUS.
CONFIDENCE_ONLY_IMPLEMENTATION = 0.8


# Asked of every by-name candidate of production code: a common name has thousands.
_is_test = functools.lru_cache(maxsize=65536)(is_test)


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
        # A test double (a ``_Logger`` with an ``error`` method) is no guess for production
        # code: only a test reaches what only tests define by its name alone.
        self.in_tests = is_test(path)
        self.package = self.language.package_root(path, index)

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
                    scoped=True,
                )

    def _class_named(self, dotted: str) -> str:
        """The ID of the class ``dotted`` names at the top of this file, "" if it binds to none."""
        bound = self.index.bind_dotted(self.path, "", dotted)
        if bound is None or bound.kind != "symbol":
            return ""
        return bound.symbol if self._is_class(bound.symbol) else ""

    def _class_parameter(self, call: CallFact) -> str:
        """The class a call of ``cls`` constructs: the first parameter of a method of a class
        that is no metaclass (a metaclass's ``cls`` is the class being made, not it); "" for a
        ``cls`` that is a loop variable or a local."""
        symbol = self.index.symbols_in(self.path).get(call.caller)
        owner = self._owner_id(call.caller)
        if symbol is None or symbol.kind != "method" or not owner:
            return ""
        first = any(
            a.kind == PARAMETER and a.scope == call.caller and a.callee == "0"
            for a in self.index.assigns_of(self.path).get(call.name, ())
        )
        metaclass = any(b.owner == symbol.parent and b.base == "type" for b in self.facts.bases)
        return owner if first and not metaclass else ""

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
        if call.name in self.language.class_words:
            owner = self._class_parameter(call)
            if owner:  # ``cls(...)`` in a classmethod: the class (or a subclass) constructed
                self._edge(caller, "calls", owner, call.line, EXTRACTED, 1.0)
                return
        bound = self._visible(self.index.bind_name(self.path, call.caller, call.name), call)
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
        self._by_name(
            caller, "calls", call.line, candidates, CONFIDENCE_UNIQUE_NAME, call.name, scoped=True
        )

    def _visible(self, bound: Bound | None, call: CallFact) -> Bound | None:
        """``bound``, the definition of the name at the file's top level, unless the call does
        not see it: it is declared inside an anonymous function the call lies outside
        (``LOCAL``), or the calling function imports the name itself (Python's ``from m import
        f`` inside ``def f``). Then it is what the file's imports bind the name to."""
        if bound is None or bound.kind != "symbol" or bound.symbol != self._id(call.name):
            return bound
        spans = self.facts.extra.get(f"{LOCAL}{call.name}")
        if spans is not None and not any(
            int(first) <= call.line <= int(last)
            for first, _, last in (span.partition("-") for span in spans.split(";"))
        ):
            imported = self.index.bindings(self.path).get(call.name)
            return imported[0] if imported else None
        caller = self.index.symbols[self.path].get(call.caller)
        if caller is not None and any(
            imp.alias == call.name and caller.start_line <= imp.line <= call.line
            for imp in self.facts.imports
        ):
            imported = self.index.bindings(self.path).get(call.name)
            return imported[0] if imported else bound
        return bound

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
            if receiver == "super" and self._outside_base(class_id):
                # super.close() of a base from outside: that base's method, never a method
                # of the same name here (the caller itself among them).
                self.result.external_calls[caller] += 1
                return
            if receiver == "self" and self.language.value_flow:
                # self.handler = self.on_save, then self.handler(): what the attribute holds.
                held = self.index.held_functions(self.path, call.caller, f"self.{call.name}")
                if held and self._held_edge(caller, call, held):
                    return
            if (
                receiver == "self"
                and self.language.ambient_types
                and self._outside_base(class_id)
                and not self._defined_below(class_id, call.name)
            ):
                # this.emit() in a TypeScript class extending EventEmitter: the compiler
                # checked it against a declared member, which no class here has and none below
                # defines, so the base from outside gives it. (Python's template methods,
                # self.hook() defined only in subclasses, keep their guess by name.)
                self.result.external_calls[caller] += 1
                return
        # self.attr.method(): the attribute's type, if some method assigned it.
        elif self.language.value_flow:
            if self._member_call(caller, call) or self._typed_call(caller, call, call.receiver):
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
        if (
            bound is not None
            and self.language.value_flow
            and self.index.is_parameter(self.path, call.caller, call.receiver.partition(".")[0])
        ):
            bound = None  # a parameter hides the definition or import of its name
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
            if self._member_call(caller, call) or self._typed_call(caller, call, call.receiver):
                return
            if self._stated_dynamic(call.caller, call.receiver):
                self._unresolved(caller, call.name)
                return
        elif self._assigned_call(caller, call, call.caller, call.receiver):
            return
        self._by_method_name(caller, call)

    def _member_call(self, caller: str, call: CallFact) -> bool:
        """``ops.create()`` where ``ops`` is an object whose literal names a function for
        ``create`` (``const ops = { create }``), here or in the file it is imported from:
        INFERRED, as ``f = g; f()`` is; AMBIGUOUS when several assignments name several."""
        receiver = call.receiver
        if "." in receiver or receiver in self.language.self_words:
            return False
        where, scope = self.path, call.caller
        member = f"{receiver}.{call.name}"
        assigns = self.index.visible_assigns(where, scope, member)
        if not assigns and not self.index.visible_assigns(where, scope, receiver):
            defined = defining_value(self.index, where, receiver)
            if defined is not None:
                where, scope = defined[0], ""
                assigns = top_level_assigns(self.index, where, f"{defined[1]}.{call.name}")
        return self._aliases_edge(caller, call, where, assigns)

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
            if any(self.index.holds_function(class_id, call.name) for class_id in classes):
                # A member holding a function: the classes implementing the type may define
                # it as a method; no other method of that name is a guess for it.
                self._value_member_call(caller, call, classes)
                return True
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

    def _value_member_call(self, caller: str, call: CallFact, classes: Iterable[str]) -> None:
        if not self._implementation_edge(caller, call, classes, CONFIDENCE_VALUE_TYPE):
            self._unresolved(caller, call.name)

    def _defined_below(self, class_id: str, name: str) -> bool:
        """Whether a class below ``class_id`` defines a method ``name``: read from the
        methods of that name and their bases, never from a table of every class's subclasses
        (which an edit would build over the whole repository)."""
        for method in self.index.methods_by_name.get((self.language.ecosystem, name), []):
            owner = method.rpartition(".")[0]
            seen: set[str] = set()
            bases = list(self.index.bases_of(owner)) if owner != class_id else []
            while bases and len(seen) < MAX_LOOKUP_DEPTH * 4:
                base = bases.pop()
                if base == class_id:
                    return True
                if base not in seen:
                    seen.add(base)
                    bases.extend(self.index.bases_of(base))
        return False

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
        if self.language.dispatch_declared and declared_only(self.index, member):
            self._implementation_edge(caller, call, receivers, confidence)

    def _implementation_edge(
        self, caller: str, call: CallFact, receivers: Iterable[str], confidence: float
    ) -> bool:
        """The methods below ``receivers`` that a call of their type's member may reach: the
        only one INFERRED (``confidence`` times CONFIDENCE_ONLY_IMPLEMENTATION), several
        AMBIGUOUS; False when there is none, or more than a list says anything of."""
        found = implementations(self.index, receivers, call.name)
        if len(found) == 1:
            confidence = round(confidence * CONFIDENCE_ONLY_IMPLEMENTATION, 2)
            self._edge(caller, "calls", found[0], call.line, INFERRED, confidence)
        elif 1 < len(found) <= self.index_limit:
            self._edge(caller, "calls", "", call.line, AMBIGUOUS, 0.0, tuple(found))
        else:
            return False
        return True

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
        """``f = g; f()`` calls g, INFERRED: f may be rebound where the statements do not show;
        so does ``f()`` with ``f`` imported from the file assigning it.

        A name given several functions (a container of them: ``STAGES[k]()``) lists them all
        as AMBIGUOUS: which one the key or index picks is not followed."""
        where = self.path
        assigns = self.index.visible_assigns(where, call.caller, call.name)
        if not assigns:  # ``import { f } from "./m"`` with ``export const f = g`` there
            defined = defining_value(self.index, where, call.name)
            if defined is not None and defined[0] != where:
                where, assigns = defined[0], top_level_assigns(self.index, *defined)
        return self._aliases_edge(caller, call, where, assigns)

    def _aliases_edge(
        self, caller: str, call: CallFact, where: str, assigns: Sequence[AssignFact]
    ) -> bool:
        """The edge of a call through names that alias functions (``assigns``, in ``where``):
        one function INFERRED, several AMBIGUOUS; False when some alias names no function of
        the repository, or when they are more than a list says anything of."""
        if not assigns or any(a.kind != ALIAS for a in assigns):
            return False
        targets = set()
        for assign in assigns:
            found = self.index.callable_of(where, assign.scope, assign.callee)
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
        confidence = CONFIDENCE_UNIQUE_METHOD.get(
            self.language.ecosystem, CONFIDENCE_UNIQUE_METHOD_UNMEASURED
        )
        self._by_name(caller, "calls", call.line, candidates, confidence, call.name)

    def _by_name(
        self,
        source: str,
        kind: str,
        line: int,
        candidates: Sequence[str],
        confidence: float,
        name: str,
        scoped: bool = False,
    ) -> None:
        """Binds a site by its name alone: INFERRED to the one candidate, AMBIGUOUS to a few.
        ``scoped``: the name is looked up in scopes (a bare call, a base class), not on a
        value."""
        if not self.guess:
            candidates = []
        elif not self.in_tests:
            candidates = [c for c in candidates if not _is_test(symbol_parts(c)[0])]
        if candidates:
            candidates = self._within_reach(candidates, scoped)
        if len(candidates) == 1:
            self._edge(source, kind, candidates[0], line, INFERRED, confidence)
        elif 1 < len(candidates) <= self.index_limit:
            self._edge(source, kind, "", line, AMBIGUOUS, 0.0, tuple(sorted(candidates)))
        elif kind == "calls":
            self._unresolved(source, name)

    def _within_reach(self, candidates: Sequence[str], scoped: bool) -> Sequence[str]:
        """The candidates a name can reach. A name looked up in scopes (a bare call, a base
        class) reaches another package only through an import, which would have bound it:
        only the caller's own package's are kept (in a monorepo measured against a type
        checker, such guesses across packages were right 14 times in 520; within one, 66 in
        67). A method is reached through whatever value a caller holds: all are kept (keeping
        the caller's package's first made both INFERRED and AMBIGUOUS less often right)."""
        if not scoped:
            return candidates
        return [c for c in candidates if self._package_of(symbol_parts(c)[0]) == self.package]

    def _package_of(self, path: str) -> str:
        known: dict[str, str] = self.index.memo("package roots", lambda _: {})
        root = known.get(path)
        if root is None:
            root = known[path] = self.language.package_root(path, self.index)
        return root

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
