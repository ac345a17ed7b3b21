"""JavaScript: classes, functions (declared or bound to a name), methods; ES modules and require.

Import conventions (see ``ImportFact``):

- ``import x from "./m"`` binds ``x`` to the member ``default`` of ./m;
  ``import {a as b}`` binds ``b`` to ``a``; ``import * as ns`` and ``const ns = require(..)``
  bind ``ns`` to the whole module (name ""); ``import "./m"`` binds nothing.
- ``export {a as b} from "./m"`` and ``export * from "./m"`` are re-exports.
- What a module exports under another name (``export default Foo``, ``export {a as b}``) is
  recorded as a re-export from the module itself, written ``""``: the generic resolver then
  finds ``default`` (or ``b``) by following it, like any re-export chain. An anonymous
  ``export default function () {}`` is the symbol ``default``.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable, Iterator
from importlib import resources
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import (
    CALL_RESULT,
    UNBINDABLE,
    Language,
    ModuleTarget,
    Scopes,
)
from kgtool.raw.languages.npm import config_folders, manifest_folders, workspace_packages
from kgtool.raw.languages.tsconfig import path_map
from kgtool.raw.model import (
    ALIAS,
    LOCAL,
    PARAMETER,
    RETURNS,
    STATED,
    AssignFact,
    FileFacts,
    ImportFact,
)

if TYPE_CHECKING:
    from tree_sitter import Node
    from tree_sitter_language_pack import SupportedLanguage

    from kgtool.raw.languages.base import IndexView


# The module string of an export under another name: the exporting file itself.
THIS_MODULE = ""
# ES named imports never name a file of a folder, so ``submodule`` points nowhere.
NO_SUBMODULE = "\0"

JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs")
TS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts")
# A TypeScript file imports its sibling "./x.ts" as "./x.js" (what it compiles to).
TS_FOR_JS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx",),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
# Conventional aliases of the source root ("@/components/x" with paths {"@/*": ["src/*"]}).
ROOT_ALIASES = ("@/", "~/")
SOURCE_ROOTS = ("", "src/")
CLASS_NODES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
# Nodes a receiver is written through that leave its value as it is: ``(x)``, ``x!``, and
# ``await x`` (a promise's value: a declared ``Promise<T>`` is read as T, see typescript.py).
TRANSPARENT = frozenset({"parenthesized_expression", "non_null_expression", "await_expression"})
PARAMETERS = frozenset({"required_parameter", "optional_parameter"})
SHORTHAND_PATTERN = "shorthand_property_identifier_pattern"  # ``{ a }`` destructured
REQUIRE = "require"
# What a wrapper such as React.memo or forwardRef is handed (see ``wraps_function``).
WRAPPED_FUNCTIONS = frozenset({"arrow_function", "function_expression"})
# What makes a constructor's parameter a field as well: ``private x: T``, ``readonly x: T``.
PARAMETER_PROPERTY = frozenset({"accessibility_modifier", "readonly", "override_modifier"})
# Nodes that own the return statements inside them (signatures have none, but a return type).
FUNCTION_NODES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "generator_function",
        "arrow_function",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "function_signature",
    }
)

GLOBALS = frozenset(
    {
        # ECMAScript
        "AggregateError", "Array", "ArrayBuffer", "Atomics", "BigInt", "BigInt64Array",
        "BigUint64Array", "Boolean", "DataView", "Date", "Error", "EvalError",
        "FinalizationRegistry", "Float32Array", "Float64Array", "Function", "Infinity",
        "Int16Array", "Int32Array", "Int8Array", "Intl", "JSON", "Map", "Math", "NaN", "Number",
        "Object", "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set",
        "SharedArrayBuffer", "String", "Symbol", "SyntaxError", "TypeError", "URIError",
        "Uint16Array", "Uint32Array", "Uint8Array", "Uint8ClampedArray", "WeakMap", "WeakRef",
        "WeakSet", "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent",
        "escape", "eval", "globalThis", "isFinite", "isNaN", "parseFloat", "parseInt",
        "undefined", "unescape",
        # Hosts: browsers, Node, workers
        "AbortController", "AbortSignal", "Blob", "Buffer", "BroadcastChannel", "CustomEvent",
        "Event", "EventTarget", "File", "FileReader", "FormData", "Headers", "Image",
        "IntersectionObserver", "MessageChannel", "MutationObserver", "Request",
        "ResizeObserver", "Response", "TextDecoder", "TextEncoder", "URL", "URLSearchParams",
        "WebSocket", "Worker", "XMLHttpRequest", "__dirname", "__filename", "alert", "atob",
        "btoa", "cancelAnimationFrame", "clearImmediate", "clearInterval", "clearTimeout",
        "confirm", "console", "crypto", "document", "exports", "fetch", "global",
        "localStorage", "location", "module", "navigator", "performance", "process", "prompt",
        "queueMicrotask", "require", "requestAnimationFrame", "sessionStorage", "setImmediate",
        "setInterval", "setTimeout", "structuredClone", "window",
        # Test runners inject these without an import.
        "afterAll", "afterEach", "beforeAll", "beforeEach", "describe", "expect", "it", "jest",
        "test", "vi",
    }
)  # fmt: skip


class JavaScript(Language):
    name = "javascript"
    grammar: ClassVar[SupportedLanguage] = "javascript"  # subclasses name their own
    extensions: ClassVar[tuple[str, ...]] = (".js", ".mjs", ".cjs", ".jsx")
    ecosystem = "npm"
    self_names: ClassVar[frozenset[str]] = frozenset({"this"})
    # Of String, Array, Map, Set, Promise, Object, Function, Number and RegExp instances, and
    # the platform's own (the DOM's events and nodes, web streams, Node's HTTP messages): on a
    # value of no known type, such a call is the platform's far more often than a method of
    # the repository's that happens to share the name (``res.setHeader()``).
    builtin_methods: ClassVar[frozenset[str]] = frozenset(
        word
        for name in ("javascript_builtin_methods.txt", "javascript_platform_methods.txt")
        for word in resources.files("kgtool.raw.languages").joinpath(name).read_text().split()
    )
    super_names: ClassVar[frozenset[str]] = frozenset({"super"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {
        "member_expression": ("object", "property")
    }
    builtins: ClassVar[frozenset[str]] = GLOBALS
    constructions: ClassVar[dict[str, str]] = {"new_expression": "constructor"}
    self_words: ClassVar[frozenset[str]] = frozenset({"this"})
    # Probe order for "./x": a JavaScript file most likely means a JavaScript file.
    probe_extensions: ClassVar[tuple[str, ...]] = JS_EXTENSIONS + TS_EXTENSIONS
    field_types: ClassVar[frozenset[str]] = frozenset({"field_definition"})
    value_flow: ClassVar[bool] = True
    dispatch_declared: ClassVar[bool] = True

    # ---- extraction -----------------------------------------------------------------------

    def query_files(self) -> tuple[str, ...]:
        return ("ecmascript.scm", "javascript.scm", "jsx.scm")

    def value_facts(
        self,
        matches: list[dict[str, list[Node]]],
        scope_of: Callable[[Node], str],
        facts: FileFacts,
    ) -> list[AssignFact]:
        """The parameters a function calls by their bare names (``done()``, ``cb()``): the call
        goes through a value its callers pass, so resolution binds no same-named function to
        it. A parameter of an anonymous callback is its enclosing symbol's, as its calls are:
        kept only when every call of that name there lies inside the callback, since the
        symbol's other calls of it (``items.forEach((done) => ...); done()``) are not its.

        And what objects and patterns name: an object literal's members (``const ops = {
        create }``), a function's returned literal, destructured names and parameters. A
        stated type naming a type parameter in scope (``x: T`` in ``f<T>``) is taken out of
        ``facts.assigns`` itself: it names no class."""
        starts = {symbol.qualname: symbol.start_line for symbol in facts.symbols}
        found = []
        type_parameters: list[tuple[str, int, int]] = []
        for captures in matches:
            if "value.object" in captures:
                found += self._object_members(captures, scope_of, starts)
            elif "value.pattern" in captures:
                found += self._destructured(captures, scope_of)
            elif "value.type_parameter" in captures:
                declared = captures["value"][0]
                first, last = declared.start_point[0] + 1, declared.end_point[0] + 1
                type_parameters += [
                    (self.node_text(name), first, last) for name in captures["value.type_parameter"]
                ]
            elif captures["value.parameters"][0].type == "formal_parameters":
                found += self._typed_patterns(captures["value.parameters"][0], scope_of)
        if type_parameters:
            # In place: the caller extends this very list with what is returned.
            facts.assigns[:] = _without_type_parameters(facts.assigns, type_parameters)
        called: dict[str, dict[str, list[int]]] = {}
        for call in facts.calls:
            if not call.receiver:
                called.setdefault(call.caller, {}).setdefault(call.name, []).append(call.line)
        if not called:
            return found
        for captures in matches:
            if "value.parameters" not in captures:
                continue
            node = captures["value.parameters"][0]
            scope = scope_of(node)
            names = called.get(scope)
            if not names:
                continue
            function = node.parent if node.parent is not None else node
            first, last = function.start_point[0] + 1, function.end_point[0] + 1
            own = starts.get(scope) == first  # the symbol's own parameters, not a callback's
            for var in self._parameter_names(node):
                lines = names.get(var)
                if lines and (own or all(first <= line <= last for line in lines)):
                    found.append(AssignFact(first, scope, var, "", PARAMETER))
        return found

    def _object_members(
        self,
        captures: dict[str, list[Node]],
        scope_of: Callable[[Node], str],
        starts: dict[str, int],
    ) -> list[AssignFact]:
        """``const ops = { create, remove: removeNode }``: ``ops.create`` holds what
        ``create`` names, ``ops.remove`` what ``removeNode`` names (an alias each). A member
        written as a function in the literal is no symbol, and is not stated.

        ``return { create }`` states the members of what the function returns
        (``return.create``), when the return is the function's own, not a callback's."""
        literal = captures["value.object"][0]
        scope = scope_of(literal)
        if "value.holder" in captures:
            holder = self.node_text(captures["value.holder"][0])
        else:
            function = literal.parent
            while function is not None and function.type not in FUNCTION_NODES:
                function = function.parent
            if function is None or starts.get(scope) != function.start_point[0] + 1:
                return []
            holder = RETURNS
        members = []
        for line, key, value_node in self._named_members(literal):
            shorthand = value_node.type == "shorthand_property_identifier"
            value = key if shorthand else self.dotted(value_node)
            if value:
                members.append(AssignFact(line, scope, f"{holder}.{key}", value, ALIAS))
        return members

    def _named_members(self, node: Node) -> Iterator[tuple[int, str, Node]]:
        """(line, key, the node it names) of each member an object literal or an object
        pattern writes by a plain key: ``{ a, b: c }`` gives a (named by its own node) and b
        (by c's); computed keys, spreads, defaults and methods none."""
        for child in node.named_children:
            if child.type in ("shorthand_property_identifier", SHORTHAND_PATTERN):
                yield child.start_point[0] + 1, self.node_text(child), child
            elif child.type in ("pair", "pair_pattern"):
                key = child.child_by_field_name("key")
                value = child.child_by_field_name("value")
                if key is not None and value is not None and key.type == "property_identifier":
                    yield child.start_point[0] + 1, self.node_text(key), value

    def _destructured(
        self, captures: dict[str, list[Node]], scope_of: Callable[[Node], str]
    ) -> list[AssignFact]:
        """``const { session, run: start } = await create()``: ``session`` holds the member
        ``session`` of what ``create`` returns (``create().session``), ``start`` its ``run``.
        Members with a default, nested patterns and the rest are not followed."""
        source = captures["value.source"][0]
        while source.type in TRANSPARENT:
            if not source.named_children:
                return []
            source = source.named_children[-1]
        if source.type == "call_expression":
            function = source.child_by_field_name("function")
            held = self.dotted(function) if function is not None else ""
            if not held or held in (REQUIRE, "import"):
                return []  # an import (see _require)
            held += CALL_RESULT
        else:
            held = self.dotted(source)
        if not held:
            return []
        pattern = captures["value.pattern"][0]
        return self._pattern_members(pattern, held, scope_of(pattern))

    def _typed_patterns(self, node: Node, scope_of: Callable[[Node], str]) -> list[AssignFact]:
        """``function gen({ helper, push }: Context)``: each name holds that member of a value
        of the declared type, held by a name no code can write (``{}`` and where the
        pattern stands)."""
        found = []
        for child in node.named_children:
            pattern = child.child_by_field_name("pattern") if child.type in PARAMETERS else None
            annotation = child.child_by_field_name("type") if pattern is not None else None
            if pattern is None or annotation is None or pattern.type != "object_pattern":
                continue
            declared = self.type_name(annotation)
            if declared:
                line, column = child.start_point[0] + 1, child.start_point[1]
                holder, scope = f"{{}}{line}:{column}", scope_of(node)
                found.append(AssignFact(line, scope, holder, declared, STATED))
                found += self._pattern_members(pattern, holder, scope)
        return found

    def _pattern_members(self, pattern: Node, held: str, scope: str) -> list[AssignFact]:
        """The names an object pattern binds, each an alias of that member of ``held``."""
        return [
            AssignFact(line, scope, self.node_text(name), f"{held}.{key}", ALIAS)
            for line, key, name in self._named_members(pattern)
            if name.type in ("identifier", SHORTHAND_PATTERN)  # not a nested pattern
        ]

    def _parameter_names(self, node: Node) -> list[str]:
        """The names a parameter list (or an arrow function's one bare parameter) binds, plain,
        typed, with a default or gathered (``...rest``); not those inside a destructuring."""
        if node.type == "identifier":
            return [self.node_text(node)]
        names = []
        for child in node.named_children:
            if child.type in PARAMETERS:  # TypeScript's ``x: T`` and ``x?: T``
                child = child.child_by_field_name("pattern") or child
            if child.type == "assignment_pattern":
                child = child.child_by_field_name("left") or child
            elif child.type == "rest_pattern" and child.named_children:
                child = child.named_children[0]
            if child.type == "identifier":
                names.append(self.node_text(child))
        return names

    def parse_import(self, node: Node) -> list[ImportFact]:
        line = node.start_point[0] + 1
        source = node.child_by_field_name("source")
        if node.type == "import_statement":
            return self._import(node, line, source)
        if node.type == "export_statement":
            return self._export(node, line, source)
        return []

    def _import(self, node: Node, line: int, source: Node | None) -> list[ImportFact]:
        facts: list[ImportFact] = []
        for child in node.named_children:
            if child.type == "import_require_clause":  # TypeScript: import x = require("m")
                bound, required = child.named_children[0], child.child_by_field_name("source")
                if required is not None:
                    facts.append(ImportFact(line, _string(required), "", self.node_text(bound)))
        if source is None:
            return facts
        module = _string(source)
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            return [ImportFact(line, module)]
        for child in clause.named_children:
            if child.type == "identifier":
                facts.append(ImportFact(line, module, "default", self.node_text(child)))
            elif child.type == "namespace_import":
                namespace = child.named_children[0] if child.named_children else None
                if namespace is not None:
                    facts.append(ImportFact(line, module, "", self.node_text(namespace)))
            elif child.type == "named_imports":
                for spec in child.named_children:
                    if spec.type == "import_specifier":
                        name, alias = _specifier(spec)
                        facts.append(ImportFact(line, module, name, alias))
        return facts or [ImportFact(line, module)]

    def _export(self, node: Node, line: int, source: Node | None) -> list[ImportFact]:
        if source is not None:
            module = _string(source)
            facts: list[ImportFact] = []
            for child in node.named_children:
                if child.type == "export_clause":
                    for spec in child.named_children:
                        if spec.type == "export_specifier":
                            name, alias = _specifier(spec)
                            facts.append(ImportFact(line, module, name, alias, True))
                elif child.type == "namespace_export":
                    namespace = child.named_children[0] if child.named_children else None
                    if namespace is not None:
                        facts.append(ImportFact(line, module, "", self.node_text(namespace), True))
            return facts or [ImportFact(line, module, "*", "", True)]
        facts = []
        for child in node.named_children:
            if child.type == "export_clause":
                for spec in child.named_children:
                    if spec.type == "export_specifier":
                        name, alias = _specifier(spec)
                        if name != alias:
                            facts.append(ImportFact(line, THIS_MODULE, name, alias, True))
        if any(child.type == "default" for child in node.children):
            named = node.child_by_field_name("declaration") or node.child_by_field_name("value")
            declared = named.child_by_field_name("name") if named is not None else None
            if named is not None and named.type == "identifier":
                local = self.node_text(named)
            elif declared is not None:
                local = self.node_text(declared)
            else:
                local = ""  # anonymous: the query names it "default"
            if local and named is not None and named.type != "class":
                facts.append(ImportFact(line, THIS_MODULE, local, "default", True))
        return facts

    def _require(self, node: Node, line: int) -> list[ImportFact]:
        arguments = node.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments and arguments.named_children else None
        if first is None or first.type != "string":
            return []
        module = _string(first)
        parent = node.parent
        # Only ``const x = require("m")`` binds; ``await import("m")`` and the rest just load.
        target = parent.child_by_field_name("name") if parent is not None else None
        if parent is None or parent.type != "variable_declarator" or target is None:
            return [ImportFact(line, module)]
        # A call always has its function (the field is typed as optional).
        if node.child_by_field_name("function").type == "import":  # type: ignore[union-attr]
            return [ImportFact(line, module)]  # a promise of the module, not the module
        if target.type == "identifier":
            return [ImportFact(line, module, "", self.node_text(target))]
        facts = []
        if target.type == "object_pattern":
            for part in target.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    text = self.node_text(part)
                    facts.append(ImportFact(line, module, text, text))
                elif part.type == "pair_pattern":
                    key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                    if key is not None and value is not None and value.type == "identifier":
                        facts.append(
                            ImportFact(line, module, self.node_text(key), self.node_text(value))
                        )
        return facts or [ImportFact(line, module)]

    def imports_by_call(self, call: Node, callee: Node) -> list[ImportFact] | None:
        # require("m") and import("m") load modules; with no module named, they load nothing
        # known, and are no calls either. Asked of every call: the length first, not the text.
        kind = callee.type
        if kind == "import" or (
            kind == "identifier"
            and callee.end_byte - callee.start_byte == len(REQUIRE)
            and self.node_text(callee) == REQUIRE
        ):
            return self._require(call, call.start_point[0] + 1)
        return None

    def callee_of(self, call: Node) -> Node | None:
        if call.type == "await_expression":
            awaited = next((c for c in call.named_children if c.type == "call_expression"), None)
            if awaited is None:
                return None
            call = awaited
        if call.type == "new_expression":
            return call.child_by_field_name("constructor")
        callee = call.child_by_field_name("function")
        if callee is None or self.node_text(callee) in ("require", "import"):
            return None
        return callee

    def wraps_function(self, call: Node) -> bool:
        """A call of a name, or of a member of one, with a function among its arguments, or
        with a call that has one: ``memo(forwardRef((props, ref) => ...))``."""
        function = call.child_by_field_name("function")
        if function is None or function.type not in ("identifier", "member_expression"):
            return False
        if function.type == "member_expression":
            held = function.child_by_field_name("object")
            if held is None or held.type != "identifier":
                return False
        return any(
            argument.type in WRAPPED_FUNCTIONS
            or (argument.type == "call_expression" and _has_function_argument(argument))
            for argument in _arguments(call)
        )

    def split_callee(self, node: Node) -> tuple[str, str]:
        if node.type in self.super_names:
            return self._base_constructor(node)
        if node.type == "non_null_expression" and node.named_children:
            return self.split_callee(node.named_children[0])
        if node.type == "await_expression" and node.named_children:
            # The grammar reads ``await x.f<T>(...)`` as a call of ``await x.f`` with type
            # arguments: what is called is ``x.f``, and the call's result is what is awaited.
            return self.split_callee(node.named_children[0])
        return super().split_callee(node)

    def _base_constructor(self, node: Node) -> tuple[str, str]:
        """``super(...)`` constructs the base class: it is a call of the class in ``extends``."""
        parent = node.parent
        while parent is not None and parent.type not in CLASS_NODES:
            parent = parent.parent
        if parent is None:
            return UNBINDABLE, UNBINDABLE
        heritage = next((c for c in parent.named_children if c.type == "class_heritage"), None)
        if heritage is None:
            return UNBINDABLE, UNBINDABLE
        for child in heritage.named_children:
            if child.type == "extends_clause":
                child = child.child_by_field_name("value") or child
            if child.type == "implements_clause":
                continue
            return super().split_callee(child)
        return UNBINDABLE, UNBINDABLE

    def receiver_name(self, node: Node) -> str:
        """The receiver as ``CallFact`` writes it, calls' results included: ``a.b().c``.

        A loop, not recursion: a generated chain can be thousands of members long.
        """
        parts: list[str] = []  # last first; CALL_RESULT marks a call on what follows it
        while True:
            if node.type in TRANSPARENT:
                if not node.named_children:
                    return ""
                node = node.named_children[-1]
                continue
            if node.type in self.name_types or node.type in self.self_names:
                parts.append(self.node_text(node))
                break
            if node.type in self.super_names:
                parts.append(self.node_text(node))
                break
            field = self.constructions.get(node.type)
            if field is not None:
                created = node.child_by_field_name(field)
                name = self.type_name(created) if created is not None else ""
                if not name:
                    return ""
                parts.append(name)
                break
            if node.type == "call_expression":
                function = node.child_by_field_name("function")
                if function is None or function.type == "import":
                    return ""
                if function.type == "identifier" and self.node_text(function) == "require":
                    return ""  # a module, bound through the import it also is
                parts.append(CALL_RESULT)
                node = function
                continue
            fields = self.member_access.get(node.type)
            if fields is None:
                return ""
            obj, prop = node.child_by_field_name(fields[0]), node.child_by_field_name(fields[1])
            if obj is None or prop is None:
                return ""
            parts.append(self.node_text(prop))
            node = obj
        written = ""
        for part in reversed(parts):
            if part == CALL_RESULT:
                written += CALL_RESULT
            else:
                written = f"{written}.{part}" if written else part
        return written

    def returns_from(self, node: Node, scopes: Scopes) -> bool:
        # The function a return statement (or an arrow's body, or a return type) belongs to
        # must be a symbol: a definition, or the value of one (``const f = () => ...``).
        if node.type == "call_signature":  # ``{ (x: number): Foo }``: a callable type's
            return False
        current: Node | None = node
        while current is not None and current.type not in FUNCTION_NODES:
            current = current.parent
        if current is None:
            return False
        parent = current.parent
        return current.id in scopes or (parent is not None and parent.id in scopes)

    def dotted(self, node: Node) -> str:
        if node.type == "non_null_expression" and node.named_children:
            return self.dotted(node.named_children[0])
        return super().dotted(node)

    def assign_var(self, node: Node) -> str:
        # A class field and a constructor's parameter property are read as ``this.x``.
        parent = node.parent
        kind = parent.type if parent is not None else ""
        if (
            kind in self.field_types
            or kind == "method_definition"  # a getter
            or (
                parent is not None  # (always, when kind is one of these)
                and kind in PARAMETERS
                and any(c.type in PARAMETER_PROPERTY for c in parent.children)
            )
        ):
            return f"this.{self.node_text(node)}"
        return self.node_text(node)

    # ---- resolution -----------------------------------------------------------------------

    def submodule(self, module: str, name: str) -> str:
        return NO_SUBMODULE

    def refine(self, facts: FileFacts, root: Node) -> None:
        super().refine(facts, root)
        _mark_local_functions(facts, root)

    def package_root(self, path: str, index: IndexView) -> str:
        """The folder of the nearest package.json above ``path``: a workspace's package."""
        folders = index.memo("npm:folders", manifest_folders)
        folder = posixpath.dirname(path)
        while folder and folder not in folders:
            folder = posixpath.dirname(folder)
        return folder

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
        if module == THIS_MODULE:
            return ModuleTarget(files=(importer,))
        if module == NO_SUBMODULE:
            return ModuleTarget()
        if module.startswith(("./", "../")) or module in (".", ".."):
            stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            found = self._probe(stem, index)
            if found:
                return ModuleTarget(files=(found,))
            # A relative specifier that stays inside the repository but names no file.
            return ModuleTarget(broken=not (stem == ".." or stem.startswith("../")))
        if module.startswith("/") or "\\" in module:
            return ModuleTarget()
        # The project's own map first (tsconfig "paths", "baseUrl"), as the compiler reads it.
        configs = index.memo("npm:configs", config_folders)
        mapped = path_map(
            importer, index, configs, index.memo("npm:workspaces", workspace_packages)
        )
        if mapped is not None:
            for stem in mapped.stems(module):
                found = self._probe(stem, index)
                if found:
                    return ModuleTarget(files=(found,))
        for alias in ROOT_ALIASES:
            if module.startswith(alias):
                for root in SOURCE_ROOTS:
                    found = self._probe(root + module[len(alias) :], index)
                    if found:
                        return ModuleTarget(files=(found,))
                return ModuleTarget()
        if "/" in module and not module.startswith("@"):
            # baseUrl-style "components/Button": only when that folder is in the repository.
            folders = index.memo("js:folders", _folders)
            head = module.split("/", 1)[0]
            for root in SOURCE_ROOTS:
                if f"{root}{head}" in folders:
                    found = self._probe(root + module, index)
                    if found:
                        return ModuleTarget(files=(found,))
        name = package_name(module)
        found = self._workspace_module(name, module[len(name) :].lstrip("/"), index)
        return ModuleTarget(files=(found,)) if found else ModuleTarget(external=name)

    def _workspace_module(self, name: str, subpath: str, index: IndexView) -> str:
        """The file an import of a package of this repository (a workspace) names, or ""."""
        package = index.memo("npm:workspaces", workspace_packages).get(name)
        if package is None:
            return ""
        folder, entry = package
        if subpath:
            stems = [posixpath.join(folder, subpath), posixpath.join(folder, "src", subpath)]
        else:
            stems = [posixpath.join(folder, "src", "index"), folder]
            if entry:
                stems.insert(0, posixpath.normpath(posixpath.join(folder, entry)))
        return next(filter(None, (self._probe(stem, index) for stem in stems)), "")

    def _probe(self, stem: str, index: IndexView) -> str:
        """The file a relative specifier names, trying what Node and TypeScript would try."""
        if stem == ".." or stem.startswith("../"):
            return ""  # outside the repository
        stem = "" if stem == "." else stem
        files = index.facts
        base, extension = posixpath.splitext(stem)
        candidates: list[str] = []
        if extension in TS_FOR_JS:
            swapped = [base + ts for ts in TS_FOR_JS[extension]]
            ts_first = self.probe_extensions[0] in TS_EXTENSIONS
            candidates += [*swapped, stem] if ts_first else [stem, *swapped]
        else:
            candidates.append(stem)
        candidates += [stem + ext for ext in self.probe_extensions]
        folder = f"{stem}/" if stem else ""
        candidates += [f"{folder}index{ext}" for ext in self.probe_extensions]
        for candidate in candidates:
            if candidate in files:
                return candidate
        return ""


def _without_type_parameters(
    assigns: list[AssignFact], declared: list[tuple[str, int, int]]
) -> list[AssignFact]:
    """The stated types that name no type parameter in scope: ``x: T`` inside ``function
    f<T>`` names no class, whatever a class of the repository is named (a declaration's
    lines bound its parameters' scope; found from query captures, never by walking up the
    tree, which costs a file of nested generics its square)."""
    scopes: dict[str, list[tuple[int, int]]] = {}
    for name, first, last in declared:
        scopes.setdefault(name, []).append((first, last))
    return [
        a
        for a in assigns
        if a.kind != STATED
        or a.callee not in scopes
        or not any(first <= a.line <= last for first, last in scopes[a.callee])
    ]


def package_name(module: str) -> str:
    """The npm package a bare specifier names: "@scope/pkg" keeps two segments."""
    module = module.removeprefix("node:")
    parts = module.split("/")
    if module.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def _folders(index: IndexView) -> frozenset[str]:
    folders: set[str] = set()
    for path in index.facts:
        folder = posixpath.dirname(path)
        while folder and folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    return frozenset(folders)


def _string(node: Node) -> str:
    """The value of a string literal (no escapes in module specifiers worth decoding)."""
    text = node.text.decode("utf-8", "replace") if node.text is not None else ""
    return text[1:-1] if len(text) >= 2 and text[0] in "'\"`" else text


def _specifier(node: Node) -> tuple[str, str]:
    """(name, local alias) of ``a`` / ``a as b`` / ``"a-b" as c`` in import and export lists."""
    name = node.child_by_field_name("name")
    alias = node.child_by_field_name("alias")
    text = _string(name) if name is not None else ""
    return text, (_string(alias) if alias is not None else text)


def _arguments(call: Node) -> list[Node]:
    """A call's arguments (none for a tagged template's)."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "arguments":
        return []
    return arguments.named_children


def _has_function_argument(call: Node) -> bool:
    return any(argument.type in WRAPPED_FUNCTIONS for argument in _arguments(call))


# The names a function declaration or a declarator of a function value declares.
DECLARING = frozenset(
    {"variable_declarator", "function_declaration", "generator_function_declaration"}
)


# A declaration's name: ``const f``, ``let f``, ``var f``, ``function f``, ``function* f``.
DECLARED_NAME = re.compile(rb"\b(?:const|let|var|function\s*\*?)\s+([A-Za-z_$][\w$]*)")


def _mark_local_functions(facts: FileFacts, root: Node) -> None:
    """Marks (``LOCAL``) the functions named at the file's top level but declared inside an
    anonymous function: a call of that name elsewhere in the file is not theirs. A name
    declared in several callbacks (a ``function Page()`` per test) is one symbol, the first:
    every declaration of it is read."""
    nested = set()
    for symbol in facts.symbols:
        if symbol.kind != "function" or "." in symbol.qualname:
            continue
        # Most are declared at the top level: the start of their line is outside any function.
        row = symbol.start_line - 1
        probe = root.named_descendant_for_point_range((row, 0), (row, 0))
        while probe is not None and probe.type not in FUNCTION_NODES:
            probe = probe.parent
        if probe is not None:
            nested.add(symbol.qualname)
    if not nested:
        return
    source = root.text or b""
    starts = [0, *(m.end() for m in re.finditer(rb"\n", source))]
    spans: dict[str, set[str]] = {}
    top_level: set[str] = set()
    for match in DECLARED_NAME.finditer(source):
        name = match.group(1).decode("utf-8", "replace")
        if name not in nested or name in top_level:
            continue
        row = bisect.bisect_right(starts, match.start(1)) - 1
        column = match.start(1) - starts[row]
        enclosing = _enclosing_function(root, row, column, column + len(match.group(1)))
        if enclosing is None:
            top_level.add(name)  # one declaration at the top level: seen everywhere
        elif enclosing:
            spans.setdefault(name, set()).add(enclosing)
    for name, found in spans.items():
        if name not in top_level:
            facts.extra[f"{LOCAL}{name}"] = ";".join(sorted(found))


def _enclosing_function(root: Node, row: int, start: int, end: int) -> str | None:
    """The lines ("51-56") of the innermost function around the declaration whose name is at
    (row, start..end); None at the top level; "" when no declaration's name is there."""
    node = root.named_descendant_for_point_range((row, start), (row, max(start, end - 1)))
    declaring = node.parent if node is not None else None
    if declaring is None or declaring.type not in DECLARING:
        return ""
    enclosing = declaring.parent
    while enclosing is not None and enclosing.type not in FUNCTION_NODES:
        enclosing = enclosing.parent
    if enclosing is None:
        return None
    return f"{enclosing.start_point[0] + 1}-{enclosing.end_point[0] + 1}"
