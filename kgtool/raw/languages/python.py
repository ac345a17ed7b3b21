"""Python: classes, functions, methods; ``import``/``from ... import`` with relative levels."""

from __future__ import annotations

import builtins
import posixpath
import re
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import CALL_RESULT, ELEMENT, Language, ModuleTarget
from kgtool.raw.model import ImportFact

if TYPE_CHECKING:
    from tree_sitter import Node

    from kgtool.raw.resolve import RepoIndex


SOURCE_ROOTS = frozenset({"src", "lib", "python"})
FORWARD_REFERENCE = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


class Python(Language):
    name = "python"
    grammar = "python"
    extensions = (".py", ".pyi")
    ecosystem = "py"
    self_words: ClassVar[frozenset[str]] = frozenset({"self", "cls"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {"attribute": ("object", "attribute")}
    builtins: ClassVar[frozenset[str]] = frozenset(dir(builtins))

    value_flow: ClassVar[bool] = True

    def split_callee(self, node: Node) -> tuple[str, str]:
        if node.type == "subscript":
            # ``STAGES[k]()``: a call of something ``STAGES`` holds.
            value = node.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                return "", f"{self.node_text(value)}{ELEMENT}"
        obj = node.child_by_field_name("object") if node.type == "attribute" else None
        if obj is not None and obj.type == "call":
            function = obj.child_by_field_name("function")
            attribute = node.child_by_field_name("attribute")
            if function is not None and attribute is not None:
                if self.node_text(function) == "super":
                    return "super", self.node_text(attribute)
                # ``make().run()``: a call on what ``make`` returns, written ``make()``.
                called = self.dotted(function)
                if called:
                    return f"{called}{CALL_RESULT}", self.node_text(attribute)
        return super().split_callee(node)

    def type_name(self, node: Node) -> str:
        """The class a stated type names: ``Foo``, ``m.Foo``, ``"Foo"``, ``Foo | None`` and
        ``Optional[Foo]`` name Foo; ``dict[str, Foo]`` names dict; anything else nothing."""
        while node.type in ("type", "parenthesized_expression") and node.named_child_count == 1:
            node = node.named_child(0)  # type: ignore[assignment]
        if node.type == "identifier":
            return self.node_text(node)
        if node.type in ("generic_type", "subscript"):
            head = node.child_by_field_name("value") if node.type == "subscript" else None
            head = head or (node.named_children[0] if node.named_children else None)
            name = self.type_name(head) if head is not None else ""
            if name.rpartition(".")[2] != "Optional":
                return name
            arguments = [c for c in node.named_children[1:] if c.type != "comment"]
            if len(arguments) == 1 and arguments[0].type == "type_parameter":
                arguments = arguments[0].named_children
            return self.type_name(arguments[0]) if len(arguments) == 1 else ""
        if node.type == "binary_operator":
            operands = [node]
            while any(o.type == "binary_operator" for o in operands):
                operands = [
                    part
                    for o in operands
                    for part in (
                        (o.child_by_field_name("left"), o.child_by_field_name("right"))
                        if o.type == "binary_operator"
                        else (o,)
                    )
                    if part is not None
                ]
            named = [o for o in operands if o.type != "none"]
            return self.type_name(named[0]) if len(named) == 1 else ""
        if node.type == "string":
            text = self.node_text(node).strip("\"'")
            return text if FORWARD_REFERENCE.fullmatch(text) else ""
        return super().type_name(node)

    def parse_import(self, node: Node) -> list[ImportFact]:
        line = node.start_point[0] + 1
        if node.type == "import_statement":
            facts = []
            for child in node.children_by_field_name("name"):
                if child.type == "aliased_import":
                    module = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if module is not None and alias is not None:
                        text = self.node_text(module)
                        facts.append(ImportFact(line, text, "", self.node_text(alias)))
                else:
                    text = self.node_text(child)
                    facts.append(ImportFact(line, text, "", text))
            return facts
        if node.type != "import_from_statement":
            return []  # from __future__ import ...
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return []
        module = self.node_text(module_node).replace(" ", "")
        if any(child.type == "wildcard_import" for child in node.children):
            return [ImportFact(line, module, "*", "")]
        facts = []
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                if name is not None and alias is not None:
                    facts.append(
                        ImportFact(line, module, self.node_text(name), self.node_text(alias))
                    )
            else:
                text = self.node_text(child)
                facts.append(ImportFact(line, module, text, text))
        return facts

    def submodule(self, module: str, name: str) -> str:
        return f"{module}{name}" if module.endswith(".") else f"{module}.{name}"

    def resolve_module(self, module: str, importer: str, index: RepoIndex) -> ModuleTarget:
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rest = module[level:].replace(".", "/")
            stem = posixpath.join(base, rest) if rest else base
            found = _module_files(stem, index)
            return ModuleTarget(files=found) if found else ModuleTarget(broken=True)
        # A module is importable from the repository root, from a conventional source root,
        # or from a root above the importer; a same-named file elsewhere is not the module.
        candidates = _importable(_absolute_candidates(module, index), importer)
        if not candidates:
            top = module.split(".")[0]
            if "." in module and _importable(_absolute_candidates(top, index), importer):
                # ``mypkg.plugins.old`` when ``mypkg`` is this repository's package.
                return ModuleTarget(broken=True)
            return ModuleTarget(external=top)
        if len(candidates) > 1:
            # Several roots hold this module: prefer the one whose root holds the importer.
            near = [c for c in candidates if importer.startswith(c[0])]
            if near:
                candidates = [max(near, key=lambda c: len(c[0]))]
        if len(candidates) > 1:
            return ModuleTarget()  # several roots, no way to choose: not bound
        return ModuleTarget(files=(candidates[0][1],))


def _importable(candidates: list[tuple[str, str]], importer: str) -> list[tuple[str, str]]:
    return [
        c
        for c in candidates
        if not c[0] or importer.startswith(c[0]) or c[0].rstrip("/").split("/")[-1] in SOURCE_ROOTS
    ]


def _module_files(stem: str, index: RepoIndex) -> tuple[str, ...]:
    stem = posixpath.normpath(stem) if stem else "."
    for candidate in (f"{stem}.py", f"{stem}.pyi", f"{stem}/__init__.py", f"{stem}/__init__.pyi"):
        candidate = candidate.removeprefix("./")
        if candidate in index.facts:
            return (candidate,)
    return ()


def _absolute_candidates(module: str, index: RepoIndex) -> list[tuple[str, str]]:
    """(root, file) pairs where ``root/<module as path>`` is a module of the repository."""
    table = index.memo("python:modules", _module_table)
    return table.get(module, [])


def _module_table(index: RepoIndex) -> dict[str, list[tuple[str, str]]]:
    """Every dotted suffix of every Python file, mapped to (root, file)."""
    table: dict[str, list[tuple[str, str]]] = {}
    for path in index.paths_of("python"):
        parts = path.split("/")
        last = parts[-1]
        stem = last.rsplit(".", 1)[0]
        parts = parts[:-1] if stem == "__init__" else [*parts[:-1], stem]
        for start in range(len(parts)):
            dotted = ".".join(parts[start:])
            if not dotted:
                continue
            root = "/".join(parts[:start])
            root = f"{root}/" if root else ""
            table.setdefault(dotted, []).append((root, path))
    for entries in table.values():
        entries.sort()
    return table
