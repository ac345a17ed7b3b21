"""Java: classes, interfaces, enums, records, methods and constructors; imports by package.

An import names a class by its package and simple name (``a.b.C`` is the file ``C.java`` whose
``package`` is ``a.b``, under whatever source root); classes of the same package are visible
without an import, and a bare call inside a class may be a method of it (implicit ``this``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import CALL_RESULT, UNBINDABLE, Language, ModuleTarget
from kgtool.raw.model import AssignFact, FileFacts, ImportFact

if TYPE_CHECKING:
    from tree_sitter import Node

    from kgtool.raw.languages.base import IndexView


# java.lang is imported implicitly: its classes are outside the repository without an import.
_JAVA_LANG_NAMES = """
Boolean Byte Character Class ClassLoader Double Enum Error Exception Float Integer
IllegalArgumentException IllegalStateException Iterable Long Math Number Object Runnable
Runtime RuntimeException Short StrictMath String StringBuffer StringBuilder System Thread
ThreadLocal Throwable UnsupportedOperationException Void Record
"""
JAVA_LANG = frozenset(_JAVA_LANG_NAMES.split())
# Calls followed down one receiver (``a.b().c().d()``); a longer chain is not typed.
MAX_CHAIN = 8


class Java(Language):
    name = "java"
    grammar = "java"
    extensions = (".java",)
    ecosystem = "java"
    self_names: ClassVar[frozenset[str]] = frozenset({"this"})
    super_names: ClassVar[frozenset[str]] = frozenset({"super"})
    self_words: ClassVar[frozenset[str]] = frozenset({"this"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {"field_access": ("object", "field")}
    constructions: ClassVar[dict[str, str]] = {"object_creation_expression": "type"}
    name_types: ClassVar[frozenset[str]] = frozenset({"identifier", "type_identifier"})
    builtins: ClassVar[frozenset[str]] = JAVA_LANG
    implicit_this = True
    # Declared types of variables, fields and results type the receivers of calls.
    value_flow: ClassVar[bool] = True
    static_types: ClassVar[bool] = True

    # ---- extraction -----------------------------------------------------------------------

    def split_callee(self, node: Node) -> tuple[str, str]:
        if node.type == "explicit_constructor_invocation":
            return self._constructed_class(node)
        if node.type == "method_invocation":
            named = node.child_by_field_name("name")
            obj = node.child_by_field_name("object")
            if named is None:
                return UNBINDABLE, UNBINDABLE
            if obj is None:
                return "", self.node_text(named)
            return (self.receiver_name(obj) or UNBINDABLE), self.node_text(named)
        dotted = self.type_name(node)
        if not dotted:
            return UNBINDABLE, UNBINDABLE
        receiver, _, name = dotted.rpartition(".")
        return receiver, name

    def receiver_name(self, node: Node) -> str:
        """A call's result as a receiver is written with CALL_RESULT: ``getStore().save()`` has
        the receiver ``getStore()``, ``a.b().c()`` the receiver ``a.b()``."""
        suffix: list[str] = []
        for _ in range(MAX_CHAIN):
            if node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_child(0)
            elif node.type == "method_invocation":
                name, obj = node.child_by_field_name("name"), node.child_by_field_name("object")
                if name is None:
                    return ""
                suffix.append(f"{self.node_text(name)}{CALL_RESULT}")
                if obj is None:
                    return ".".join(reversed(suffix))
                node = obj
            else:
                break
        else:
            return ""
        head = super().receiver_name(node)
        return ".".join([head, *reversed(suffix)]) if head else ""

    def _constructed_class(self, node: Node) -> tuple[str, str]:
        """``super(...)`` names the class in ``extends``; ``this(...)`` the enclosing class."""
        owner = node.parent
        while owner is not None and owner.type not in ("class_declaration", "enum_declaration"):
            owner = owner.parent
        constructor = node.child_by_field_name("constructor")
        if owner is None or constructor is None:
            return UNBINDABLE, UNBINDABLE
        if constructor.type == "this":
            named = owner.child_by_field_name("name")
            return ("", self.node_text(named)) if named is not None else (UNBINDABLE, UNBINDABLE)
        superclass = owner.child_by_field_name("superclass")
        base = superclass.named_child(0) if superclass is not None else None
        dotted = self.type_name(base) if base is not None else ""
        if not dotted:
            return UNBINDABLE, UNBINDABLE
        receiver, _, name = dotted.rpartition(".")
        return receiver, name

    def type_name(self, node: Node) -> str:
        if node.type == "generic_type":
            inner = node.named_child(0)
            return self.type_name(inner) if inner is not None else ""
        if node.type == "scoped_type_identifier":
            parts = [self.type_name(child) for child in node.named_children]
            return ".".join(parts) if all(parts) else ""
        if node.type == "type_identifier":
            return self.node_text(node)
        return ""

    def parse_import(self, node: Node) -> list[ImportFact]:
        path = next(
            (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")),
            None,
        )
        if path is None:
            return []
        parts = self.node_text(path).replace(" ", "").split(".")
        line = node.start_point[0] + 1
        static = any(child.type == "static" for child in node.children)
        if any(child.type == "asterisk" for child in node.children):
            return [ImportFact(line, ".".join(parts), "*", "")]
        # The class is the first capitalised segment: ``a.b.Outer.Inner`` is the class
        # ``Outer.Inner`` of ``a/b/Outer.java``; a static import adds the member after it.
        first = next((i for i, part in enumerate(parts) if part[:1].isupper()), None)
        if first is None or (first == len(parts) - 1 and static):
            first = max(len(parts) - (2 if static else 1), 0)
        module = ".".join(parts[: first + 1])
        return [ImportFact(line, module, ".".join(parts[first:]), parts[-1])]

    def file_extra(self, root: Node) -> dict[str, str]:
        for child in root.named_children:
            if child.type == "package_declaration":
                for part in child.named_children:
                    if part.type in ("scoped_identifier", "identifier"):
                        return {"package": self.node_text(part).replace(" ", "")}
        return {}

    def refine(self, facts: FileFacts, root: Node) -> None:
        classes = {s.qualname for s in facts.symbols if s.kind != "method"}
        # A constructor is no symbol: its parameters and locals are stated in the class's
        # scope, where they would read as fields. One named like a field (``Store store``
        # assigned to ``this.store``) is dropped: the field is what it is stored as.
        inside = _initialiser_lines(root)
        if inside:
            outside = {
                (a.scope, a.var)
                for a in facts.assigns
                if a.scope in classes and not any(s <= a.line <= e for s, e in inside)
            }
            facts.assigns = [
                a
                for a in facts.assigns
                if a.scope not in classes
                or (a.scope, a.var) not in outside
                or not any(s <= a.line <= e for s, e in inside)
            ]
        # A field is reached as ``field`` and as ``this.field``.
        fields = [
            AssignFact(a.line, a.scope, f"this.{a.var}", a.callee, a.kind)
            for a in facts.assigns
            if a.scope in classes
        ]
        facts.assigns = sorted(set(facts.assigns) | set(fields))

    # ---- resolution -----------------------------------------------------------------------

    def submodule(self, module: str, name: str) -> str:
        return f"{module}.{name}"

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
        types, packages = index.memo("java:tables", _tables)
        if module in packages and module not in types:
            return ModuleTarget(files=tuple(packages[module]))
        files = types.get(module, [])
        if len(files) > 1:
            # The same class in several source sets: the one nearest the importer, if one is.
            ranked = sorted(files, key=lambda f: -_shared(f, importer))
            if _shared(ranked[0], importer) == _shared(ranked[1], importer):
                return ModuleTarget()
            files = ranked[:1]
        if files:
            return ModuleTarget(files=tuple(files))
        parts = module.split(".")
        first = next((i for i, part in enumerate(parts) if part[:1].isupper()), len(parts))
        return ModuleTarget(external=".".join(parts[:first]) or module)

    def package_peers(self, path: str, index: IndexView) -> Iterable[str]:
        package = index.facts[path].extra.get("package", "")
        _, packages = index.memo("java:tables", _tables)
        folder = posixpath.dirname(path)
        peers = packages.get(package, [])
        near = [p for p in peers if posixpath.dirname(p) == folder]
        if not package:
            return near  # the unnamed package: one folder, not the whole repository
        # The same package in another source root (main and test) is visible too.
        return near + [p for p in peers if posixpath.dirname(p) != folder]


# Where constructors and initialisers hang in the tree: type declarations and their bodies.
_DECLARATIONS = frozenset(
    {
        "program",
        "class_declaration",
        "enum_declaration",
        "record_declaration",
        "class_body",
        "enum_body",
        "enum_body_declarations",
    }
)
_INITIALISERS = frozenset(
    {"constructor_declaration", "compact_constructor_declaration", "static_initializer", "block"}
)


def _initialiser_lines(root: Node) -> list[tuple[int, int]]:
    """(first, last) lines of each constructor and initialiser block of the file's classes."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in _INITIALISERS:
                found.append((child.start_point[0] + 1, child.end_point[0] + 1))
            elif child.type in _DECLARATIONS:
                stack.append(child)
    return found


def _shared(a: str, b: str) -> int:
    return len(posixpath.commonpath([a, b])) if a and b else 0


def _tables(index: IndexView) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``package.Class`` -> files declaring it, and ``package`` -> its files."""
    types: dict[str, list[str]] = {}
    packages: dict[str, list[str]] = {}
    for path in index.paths_of("java"):
        package = index.facts[path].extra.get("package", "")
        stem = posixpath.basename(path).removesuffix(".java")
        packages.setdefault(package, []).append(path)
        # A file may declare more top-level types than the one it is named after.
        names = {stem} | {s.name for s in index.facts[path].symbols if not s.parent}
        for name in sorted(names):
            types.setdefault(f"{package}.{name}" if package else name, []).append(path)
    return types, packages
