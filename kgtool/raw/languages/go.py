"""Go: structs, interfaces, functions, methods on receivers; packages and go.mod module paths.

A Go package is a directory: every file of it with the same ``package`` clause sees the others'
top-level names without an import. An import path names a directory through the ``module``
line of a go.mod (the longest module path that prefixes it); anything else is external.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import CALL_RESULT, Language, Manifest, ModuleTarget
from kgtool.raw.model import CallFact, FileFacts, ImportFact

if TYPE_CHECKING:
    from tree_sitter import Node

    from kgtool.raw.languages.base import IndexView


_GO_BUILTINS_NAMES = """
append cap clear close complex copy delete imag len make max min new panic print println
real recover bool byte complex64 complex128 error float32 float64 int int8 int16 int32
int64 rune string uint uint8 uint16 uint32 uint64 uintptr any
"""
GO_BUILTINS = frozenset(_GO_BUILTINS_NAMES.split())
# Wrappers around a type or callee that do not change which name it is.
_TRANSPARENT = {
    "pointer_type": "",
    "generic_type": "type",
    "index_expression": "operand",
    "parenthesized_expression": "",
    "parenthesized_type": "",
}
# Calls followed down one receiver (``a.B().C().D()``); a longer chain is not typed.
MAX_CHAIN = 8
_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/]+(?:/[^\s\"]+)*)\"?", re.MULTILINE)


class Go(Language):
    name = "go"
    grammar = "go"
    extensions = (".go",)
    ecosystem = "go"
    name_types: ClassVar[frozenset[str]] = frozenset(
        {"identifier", "type_identifier", "field_identifier", "package_identifier"}
    )
    member_access: ClassVar[dict[str, tuple[str, str]]] = {
        "selector_expression": ("operand", "field"),
        "qualified_type": ("package", "name"),
    }
    builtins: ClassVar[frozenset[str]] = GO_BUILTINS
    # ``refine`` rewrites a method's receiver variable to ``self``.
    self_words: ClassVar[frozenset[str]] = frozenset({"self"})
    # Declared types of variables, fields and results type the receivers of calls.
    value_flow: ClassVar[bool] = True
    static_types: ClassVar[bool] = True

    # ---- extraction -----------------------------------------------------------------------

    def _unwrap(self, node: Node) -> Node:
        while node.type in _TRANSPARENT:
            field = _TRANSPARENT[node.type]
            inner = node.child_by_field_name(field) if field else node.named_child(0)
            if inner is None:
                break
            node = inner
        return node

    def split_callee(self, node: Node) -> tuple[str, str]:
        return super().split_callee(self._unwrap(node))

    def assign_var(self, node: Node) -> str:
        # A struct field is reached through the receiver, which ``refine`` names ``self``.
        if node.type == "field_identifier":
            return f"self.{self.node_text(node)}"
        return self.node_text(node)

    def type_name(self, node: Node) -> str:
        if node.type == "parameter_list":  # a function's results: the first one is typed
            results = [c for c in node.named_children if c.type == "parameter_declaration"]
            kind = results[0].child_by_field_name("type") if results else None
            return self.type_name(kind) if kind is not None else ""
        return self.dotted(self._unwrap(node))

    def receiver_name(self, node: Node) -> str:
        """The receiver as ``CallFact`` writes it, through what the syntax states: a call's
        result ``s.Store().Save()`` is ``s.Store()``; a type assertion ``v.(*T)`` and a
        composite literal ``T{}`` (or its address) are a value of the type they name, ``T``."""
        suffix: list[str] = []
        for _ in range(MAX_CHAIN):
            while node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_child(0)
            operand = node.child_by_field_name("operand")
            if node.type == "unary_expression" and operand is not None:
                node = operand  # (&T{}).M(): the address of a T
            if node.type == "call_expression":
                function = node.child_by_field_name("function")
                if function is None:
                    return ""
                suffix.append(CALL_RESULT)
                node = function
            elif node.type == "selector_expression":
                operand = node.child_by_field_name("operand")
                field = node.child_by_field_name("field")
                if operand is None or field is None:
                    return ""
                suffix.append(f".{self.node_text(field)}")
                node = operand
            else:
                break
        else:
            return ""
        if node.type in ("type_assertion_expression", "composite_literal"):
            kind = node.child_by_field_name("type")
            head = self.type_name(kind) if kind is not None else ""
        elif node.type in self.name_types:
            head = self.node_text(node)
        else:
            return ""
        return f"{head}{''.join(reversed(suffix))}" if head else ""

    def parse_import(self, node: Node) -> list[ImportFact]:
        facts = []
        for spec in _descendants(node, "import_spec"):
            path_node = spec.child_by_field_name("path")
            if path_node is None:
                continue
            path = self.node_text(path_node).strip('"`')
            line = spec.start_point[0] + 1
            alias_node = spec.child_by_field_name("name")
            alias = self.node_text(alias_node) if alias_node is not None else default_alias(path)
            if alias == ".":
                facts.append(ImportFact(line, path, "*", ""))
            elif alias == "_":
                facts.append(ImportFact(line, path, "", ""))
            else:
                facts.append(ImportFact(line, path, "", alias))
        return facts

    def file_extra(self, root: Node) -> dict[str, str]:
        for child in root.named_children:
            if child.type == "package_clause":
                name = child.named_child(0)
                if name is not None:
                    return {"package": self.node_text(name)}
        return {}

    def refine(self, facts: FileFacts, root: Node) -> None:
        # The receiver variable is the method's ``self``: ``s.helper()`` inside
        # ``func (s *Server) ...`` is a call on the current instance.
        receivers: dict[str, str] = {}
        for child in root.named_children:
            if child.type != "method_declaration":
                continue
            params = child.child_by_field_name("receiver")
            method = child.child_by_field_name("name")
            if params is None or method is None:
                continue
            for param in params.named_children:
                named, kind = param.child_by_field_name("name"), param.child_by_field_name("type")
                if param.type == "parameter_declaration" and named is not None and kind is not None:
                    owner = self.type_name(kind)
                    receivers[f"{owner}.{self.node_text(method)}"] = self.node_text(named)
        if not receivers:
            return
        calls = []
        for call in facts.calls:
            var = receivers.get(call.caller)
            head, dot, rest = call.receiver.partition(".")
            if var and head == var:
                call = CallFact(call.line, call.caller, call.name, f"self{dot}{rest}", call.is_new)
            calls.append(call)
        facts.calls = calls
        assigns = []
        for assign in facts.assigns:
            var = receivers.get(assign.scope)
            if var and assign.var == var:
                continue  # the receiver itself: ``self``
            head, dot, rest = assign.callee.partition(".")
            if var and head == var:  # ``st := s.store``, ``x := s.Make()``
                assign = assign._replace(callee=f"self{dot}{rest}")
            assigns.append(assign)
        facts.assigns = assigns

    # ---- resolution -----------------------------------------------------------------------

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
        best: tuple[int, int, str] | None = None  # (module length, nearness, folder)
        for folder, path in index.memo("go:modules", _module_table):
            if module == path or module.startswith(f"{path}/"):
                rest = module[len(path) :].strip("/")
                target = posixpath.join(folder, rest) if folder else rest
                near = len(folder) if importer.startswith(f"{folder}/") or not folder else -1
                candidate = (len(path), near, target)
                if best is None or candidate[:2] > best[:2]:
                    best = candidate
        if best is None:
            return ModuleTarget(external=module)
        files = index.memo("go:folders", _folder_table).get(best[2], ())
        # Under a module path of this repository, yet no package there: a broken import.
        return ModuleTarget(files=tuple(files)) if files else ModuleTarget(broken=True)

    def package_peers(self, path: str, index: IndexView) -> Iterable[str]:
        package = index.facts[path].extra.get("package", "")
        peers = index.memo("go:packages", _package_table).get(
            (posixpath.dirname(path), package), ()
        )
        if path.endswith("_test.go"):
            return peers
        # Only tests see what test files declare.
        return [p for p in peers if not p.endswith("_test.go")]


class GoMod(Manifest):
    """go.mod files: only their ``module`` line matters, for resolving Go import paths."""

    name = "gomod"
    grammar = "gomod"
    extensions = (".mod",)
    ecosystem = "go"
    manifest_name = "go.mod"

    def read(self, source: bytes, name: str) -> dict[str, str] | None:
        if name != self.manifest_name:
            return None
        found = _MODULE_LINE.search(source)
        return {"module": found.group(1).decode("utf-8", "replace")} if found else {}


def default_alias(path: str) -> str:
    """The name an unaliased import binds: its last segment, as Go tooling guesses it."""
    parts = path.split("/")
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]  # major version suffix: example.com/mod/v2 is package mod
    last = re.sub(r"\.v\d+$", "", last).removeprefix("go-").removesuffix("-go")
    return re.sub(r"[^0-9A-Za-z_]", "_", last)


def _descendants(node: Node, kind: str) -> list[Node]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            found.append(current)
        else:
            stack.extend(reversed(current.named_children))
    return found


def _module_table(index: IndexView) -> list[tuple[str, str]]:
    """(folder, module path) of every go.mod in the repository."""
    return [
        (posixpath.dirname(path), index.facts[path].extra["module"])
        for path in index.paths_of("gomod")
        if "module" in index.facts[path].extra
    ]


def _folder_table(index: IndexView) -> dict[str, list[str]]:
    """Folder -> the Go files an importer of it sees (tests are not part of the import)."""
    table: dict[str, list[str]] = {}
    for path in index.paths_of("go"):
        if not path.endswith("_test.go"):
            table.setdefault(posixpath.dirname(path), []).append(path)
    return table


def _package_table(index: IndexView) -> dict[tuple[str, str], list[str]]:
    table: dict[tuple[str, str], list[str]] = {}
    for path in index.paths_of("go"):
        package = index.facts[path].extra.get("package", "")
        table.setdefault((posixpath.dirname(path), package), []).append(path)
    return table
