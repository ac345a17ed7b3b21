"""TypeScript (.ts .mts .cts) and TSX (.tsx): JavaScript's rules, plus interfaces, enums,
abstract classes, and declared types as receiver types.

A declared type (``svc: UserService``, ``private repo: Repo`` in a constructor) is recorded like
an assignment from a constructor: ``svc.get()`` then binds to ``UserService.get``, INFERRED,
since the value may be of a subclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.javascript import JS_EXTENSIONS, TS_EXTENSIONS, JavaScript

if TYPE_CHECKING:
    from tree_sitter import Node


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


class Tsx(TypeScript):
    name = "tsx"
    grammar = "tsx"
    extensions = (".tsx",)

    def query_files(self) -> tuple[str, ...]:
        return ("ecmascript.scm", "typescript.scm", "jsx.scm")
