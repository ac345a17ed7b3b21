"""TypeScript (.ts .mts .cts) and TSX (.tsx): JavaScript's rules, plus interfaces, enums,
abstract classes, and declared types as receiver types.

A declared type (``svc: UserService``, ``private repo: Repo`` in a constructor) is recorded like
an assignment from a constructor: ``svc.get()`` then binds to ``UserService.get``, INFERRED,
since the value may be of a subclass.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.javascript import JS_EXTENSIONS, TS_EXTENSIONS, JavaScript
from kgtool.raw.model import PARTIAL_GRAMMAR, FileFacts

if TYPE_CHECKING:
    from tree_sitter import Node

# The TypeScript grammar bundled with tree-sitter-language-pack 0.13.0 reads ``import("./x")``
# in a type position as a call, and fails on type arguments after it: ``import("./x").T<U>``
# and ``typeof import("./x")<U>`` are valid TypeScript it reports as errors. (``typeof
# import("./x")`` and ``import("./x").T`` alone parse.) An error on such a line is the
# grammar's, not the file's.
IMPORT_TYPE_WITH_ARGUMENTS = re.compile(
    rb"""\bimport\s*\(\s*(['"`])[^'"`]*\1\s*\)(?:\s*\.\s*[\w$]+)*\s*<"""
)


class TypeScript(JavaScript):
    name = "typescript"
    grammar = "typescript"
    extensions = (".ts", ".mts", ".cts")
    name_types: ClassVar[frozenset[str]] = frozenset({"identifier", "type_identifier"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {
        "member_expression": ("object", "property"),
        "nested_type_identifier": ("module", "name"),
        "nested_identifier": ("object", "property"),
    }
    probe_extensions: ClassVar[tuple[str, ...]] = TS_EXTENSIONS + JS_EXTENSIONS
    field_types: ClassVar[frozenset[str]] = frozenset({"public_field_definition"})

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
        if node.type == "generic_type":
            name = node.child_by_field_name("name")
            return self.dotted(name) if name is not None else ""
        return self.dotted(node)

    def refine(self, facts: FileFacts, root: Node) -> None:
        super().refine(facts, root)
        if facts.error_lines and not facts.partial:
            lines = (root.text or b"").split(b"\n")
            if all(_grammar_limitation(lines, line) for line in facts.error_lines):
                facts.partial = PARTIAL_GRAMMAR


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
