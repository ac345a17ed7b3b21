"""TypeScript (.ts .mts .cts) and TSX (.tsx): JavaScript's rules, plus interfaces, enums,
abstract classes, and declared types as receiver types.

A declared type (``svc: UserService``, ``private repo: Repo`` in a constructor, a field's, an
interface property's, a function's return type) is a stated type: ``svc.get()`` then binds to
``UserService.get``, INFERRED, since the value may be of a subclass. A declared type is read as
the class it names: ``Repo<User>``, ``Repo | undefined``, ``Promise<Repo>`` (what ``await``
gives) and ``Readonly<Repo>`` name Repo; ``string``, ``Repo[]`` and ``Record<K, V>`` name what
lies outside the repository; ``any``, ``unknown``, object and function types name nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import ABSTRACT
from kgtool.raw.languages.javascript import GLOBALS, JS_EXTENSIONS, TS_EXTENSIONS, JavaScript
from kgtool.raw.model import PARTIAL_GRAMMAR, FileFacts

if TYPE_CHECKING:
    from tree_sitter import Node
    from tree_sitter_language_pack import SupportedLanguage

# The TypeScript grammar bundled with tree-sitter-language-pack 0.13.0 reads ``import("./x")``
# in a type position as a call, and fails on type arguments after it: ``import("./x").T<U>``
# and ``typeof import("./x")<U>`` are valid TypeScript it reports as errors. (``typeof
# import("./x")`` and ``import("./x").T`` alone parse.) An error on such a line is the
# grammar's, not the file's.
IMPORT_TYPE_WITH_ARGUMENTS = re.compile(
    rb"""\bimport\s*\(\s*(['"`])[^'"`]*\1\s*\)(?:\s*\.\s*[\w$]+)*\s*<"""
)

# Declared types of values from outside the repository (their methods are never the
# repository's): primitives and the standard library's type-only names.
TYPE_GLOBALS = frozenset(
    {
        "string", "number", "boolean", "bigint", "symbol",
        "Record", "ReadonlyArray", "ReadonlyMap", "ReadonlySet", "ArrayLike", "Iterable",
        "IterableIterator", "Iterator", "AsyncIterable", "AsyncIterableIterator",
        "AsyncIterator", "Generator", "AsyncGenerator",
    }
)  # fmt: skip
# Generic types whose value is used as their (first) type argument's.
UNWRAPPED = frozenset(
    {"Promise", "PromiseLike", "Awaited", "Readonly", "Partial", "Required", "NonNullable",
     "Pick", "Omit"}
)  # fmt: skip
# Members of a union that say a value may be missing: ``Repo | undefined`` is a Repo.
MISSING = frozenset({"undefined", "null", "void", "never"})
# ``abstract`` among the modifiers a member's line starts with.
ABSTRACT_MEMBER = re.compile(
    rb"^\s*(?:(?:public|protected|private|readonly|override|static|async|declare)\s+)*abstract\s"
)


class TypeScript(JavaScript):
    name = "typescript"
    grammar: ClassVar[SupportedLanguage] = "typescript"  # subclasses name their own
    extensions: ClassVar[tuple[str, ...]] = (".ts", ".mts", ".cts")
    name_types: ClassVar[frozenset[str]] = frozenset({"identifier", "type_identifier"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {
        "member_expression": ("object", "property"),
        "nested_type_identifier": ("module", "name"),
        "nested_identifier": ("object", "property"),
    }
    probe_extensions: ClassVar[tuple[str, ...]] = TS_EXTENSIONS + JS_EXTENSIONS
    field_types: ClassVar[frozenset[str]] = frozenset(
        {"public_field_definition", "property_signature"}
    )
    builtins: ClassVar[frozenset[str]] = GLOBALS | TYPE_GLOBALS
    ambient_types: ClassVar[bool] = True

    def query_files(self) -> tuple[str, ...]:
        return ("ecmascript.scm", "typescript.scm")

    def split_callee(self, node: Node) -> tuple[str, str]:
        # ``Repo<User>`` names the class ``Repo``.
        if node.type == "generic_type":
            name = node.child_by_field_name("name")
            if name is not None:
                return self.split_callee(name)
        return super().split_callee(node)

    def type_name(self, node: Node) -> str:
        if node.type == "type_annotation":
            return self._declared(node)
        if node.type == "predefined_type":  # the element type of ``string[]``
            text = self.node_text(node)
            return text if text in TYPE_GLOBALS else ""
        if node.type == "generic_type":
            name = node.child_by_field_name("name")
            return self.dotted(name) if name is not None else ""
        return self.dotted(node)

    def _declared(self, annotation: Node) -> str:
        """The class a declared type (``: T``) gives its value, "" for none (module doc)."""
        node: Node | None = annotation.named_children[0] if annotation.named_children else None
        while node is not None:
            kind = node.type
            if kind in ("parenthesized_type", "readonly_type"):
                node = node.named_children[-1] if node.named_children else None
            elif kind == "union_type":
                present = [m for m in _union_members(node) if self.node_text(m) not in MISSING]
                node = present[0] if len(present) == 1 else None
            elif kind == "generic_type":
                name = self.type_name(node)
                arguments = node.child_by_field_name("type_arguments")
                if name not in UNWRAPPED or arguments is None or not arguments.named_children:
                    return name
                node = arguments.named_children[0]
            elif kind in ("type_identifier", "nested_type_identifier"):
                return self.dotted(node)  # a type parameter's name is dropped in value_facts
            elif kind == "predefined_type":
                text = self.node_text(node)
                return text if text in TYPE_GLOBALS else ""
            elif kind in ("array_type", "tuple_type"):
                return "Array"
            else:
                return ""
        return ""

    def refine(self, facts: FileFacts, root: Node) -> None:
        super().refine(facts, root)
        source = root.text or b""
        if b"abstract" in source:
            # An abstract method's calls reach its implementations (``dispatch_declared``).
            lines = source.split(b"\n")
            classes = {s.qualname for s in facts.symbols if s.kind == "class"}
            for symbol in facts.symbols:
                if symbol.kind == "method" and symbol.parent in classes:
                    line = lines[symbol.start_line - 1] if symbol.start_line <= len(lines) else b""
                    if ABSTRACT_MEMBER.match(line):
                        facts.extra[f"{ABSTRACT}{symbol.qualname}"] = ""
        if facts.error_lines and not facts.partial:
            lines = (root.text or b"").split(b"\n")
            if all(_grammar_limitation(lines, line) for line in facts.error_lines):
                facts.partial = PARTIAL_GRAMMAR


def _union_members(node: Node) -> list[Node]:
    """The members of ``A | B | C`` (nested unions flattened, a loop, not recursion)."""
    members, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type == "union_type":
            stack.extend(reversed(current.named_children))
        else:
            members.append(current)
    return members


def _grammar_limitation(lines: list[bytes], line: int) -> bool:
    """Whether the error at 1-based ``line`` is on a line with an import type with type
    arguments (the grammar reports it there; a wider window would excuse real errors)."""
    return 0 < line <= len(lines) and bool(IMPORT_TYPE_WITH_ARGUMENTS.search(lines[line - 1]))


class Tsx(TypeScript):
    name = "tsx"
    grammar = "tsx"
    extensions = (".tsx",)

    def query_files(self) -> tuple[str, ...]:
        return ("ecmascript.scm", "typescript.scm", "jsx.scm")
