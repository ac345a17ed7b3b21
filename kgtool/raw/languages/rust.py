"""Rust: structs, enums, traits, functions, methods of ``impl`` blocks; ``use`` and ``mod``.

Module paths are resolved over files: ``crate`` is the crate root (``src/lib.rs`` or
``src/main.rs`` beside the nearest Cargo.toml), ``mod x;`` is ``x.rs`` or ``x/mod.rs`` in the
declaring module's folder, ``super`` is the declaring module. Other first segments are crates
outside the repository. Paths are written with ``::``; kgtool's receivers use ``.``: a call
``a::B::new()`` has receiver ``a.B``. A path rooted at ``crate``/``super`` keeps its module part
with ``::`` (``crate::util::.B``) and is bound through an import the file states by writing it.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import UNBINDABLE, Language, ModuleTarget
from kgtool.raw.model import FileFacts, ImportFact

if TYPE_CHECKING:
    from tree_sitter import Node

    from kgtool.raw.languages.base import IndexView


_PRELUDE_NAMES = """
Some None Ok Err Box Vec String Option Result Default drop Clone Copy Send Sync Sized ToString
ToOwned Into From Iterator IntoIterator Fn FnMut FnOnce PartialEq Eq PartialOrd Ord Debug
u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 bool char str
"""
PRELUDE = frozenset(_PRELUDE_NAMES.split())
# A path segment that names a module relative to the current one, not a crate.
_RELATIVE = frozenset({"crate", "super", "self"})
# Path-like nodes whose segments are a name: node type -> (prefix field, last-name field).
_PATHS = {
    "scoped_identifier": ("path", "name"),
    "scoped_type_identifier": ("path", "name"),
}
_WRAPPERS = {"generic_type": "type", "generic_function": "function", "reference_type": "type"}
_NAMES = frozenset({"identifier", "type_identifier", "crate", "super", "self", "field_identifier"})


class Rust(Language):
    name = "rust"
    grammar = "rust"
    extensions = (".rs",)
    ecosystem = "rust"
    self_names: ClassVar[frozenset[str]] = frozenset({"self"})
    self_words: ClassVar[frozenset[str]] = frozenset({"self", "Self"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {"field_expression": ("value", "field")}
    name_types: ClassVar[frozenset[str]] = frozenset(
        {"identifier", "type_identifier", "field_identifier"}
    )
    builtins: ClassVar[frozenset[str]] = PRELUDE

    # ---- extraction -----------------------------------------------------------------------

    def segments(self, node: Node) -> list[str] | None:
        """``a::b::C`` as ["a", "b", "C"]; None for what is not a plain path."""
        while node.type in _WRAPPERS:
            inner = node.child_by_field_name(_WRAPPERS[node.type])
            if inner is None:
                return None
            node = inner
        if node.type in _NAMES:
            return [self.node_text(node)]
        fields = _PATHS.get(node.type)
        if fields is None:
            return None
        prefix, name = node.child_by_field_name(fields[0]), node.child_by_field_name(fields[1])
        if name is None:
            return None
        if prefix is None:
            return None  # ``::std::x``: an absolute path, always another crate
        head = self.segments(prefix)
        return None if head is None else [*head, self.node_text(name)]

    def split_callee(self, node: Node) -> tuple[str, str]:
        if node.type in self.member_access:
            return super().split_callee(node)
        parts = self.segments(node)
        if not parts:
            return UNBINDABLE, UNBINDABLE
        return self._receiver(_in_file(parts[:-1], _inline_depth(node))), parts[-1]

    def _receiver(self, prefix: list[str]) -> str:
        if prefix[:1] == ["self"]:
            prefix = prefix[1:]
        if not prefix or prefix[0] not in _RELATIVE:
            return ".".join(prefix)
        # Module segments are snake_case, types CamelCase: ``crate::a::B`` is type B of crate::a.
        cut = next((i for i, part in enumerate(prefix) if part[:1].isupper()), len(prefix))
        return "::".join(prefix[:cut]) + "::" + "".join(f".{part}" for part in prefix[cut:])

    def type_name(self, node: Node) -> str:
        parts = self.segments(node)
        return ".".join(parts) if parts else ""

    def parse_import(self, node: Node) -> list[ImportFact]:
        line = node.start_point[0] + 1
        if node.type == "mod_item":
            named = node.child_by_field_name("name")
            if named is None:  # the grammar requires it
                return []
            return [ImportFact(line, f"self::{self.node_text(named)}", "", self.node_text(named))]
        if node.type == "extern_crate_declaration":
            named, aliased = node.child_by_field_name("name"), node.child_by_field_name("alias")
            if named is None:
                return []
            bound = self.node_text(aliased if aliased is not None else named)
            return [ImportFact(line, self.node_text(named), "", bound)]
        argument = node.child_by_field_name("argument")
        if argument is None:
            return []
        reexport = any(child.type == "visibility_modifier" for child in node.children)
        depth = _inline_depth(node)
        facts = []
        for module, name, alias in self._uses(argument, []):
            module = _in_file(module, depth)
            if not module:
                if name in _RELATIVE:
                    continue
                module, name = [name], ""  # ``use x;``: x is a module or a crate
            text = "::".join(module)
            facts.append(ImportFact(line, text, name, alias, reexport))
        return facts

    def _uses(self, node: Node, prefix: list[str]) -> list[tuple[list[str], str, str]]:
        """(module segments, imported name, local alias) for each name a use tree binds."""
        if node.type == "use_list":
            return [item for child in node.named_children for item in self._uses(child, prefix)]
        if node.type == "scoped_use_list":
            path = node.child_by_field_name("path")
            head = self.segments(path) if path is not None else []
            listed = node.child_by_field_name("list")
            if head is None or listed is None:
                return []
            return self._uses(listed, [*prefix, *head])
        if node.type == "use_wildcard":
            path = node.named_child(0)
            head = self.segments(path) if path is not None else []
            return [] if head is None else [([*prefix, *head], "*", "")]
        if node.type == "use_as_clause":
            path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
            parts = self.segments(path) if path is not None else None
            if not parts or alias is None:
                return []
            full = [*prefix, *parts]
            return [(full[:-1], full[-1], self.node_text(alias))]
        parts = self.segments(node)
        if not parts:
            return []
        full = [*prefix, *parts]
        if full[-1] == "self" and len(full) > 1:
            return [(full[:-1], "", full[-2])]  # ``use a::b::{self}`` binds the module b
        return [(full[:-1], full[-1], full[-1])]

    def refine(self, facts: FileFacts, root: Node) -> None:
        # ``crate::a::f()`` names module crate::a in passing: bind it as the file's import.
        seen = {imp.alias for imp in facts.imports}
        for call in facts.calls:
            head = call.receiver.split(".")[0]
            if head.endswith("::") and head not in seen:
                seen.add(head)
                facts.imports.append(ImportFact(call.line, head.removesuffix("::"), "", head))
        for assign in facts.assigns:
            head = assign.callee.split(".")[0]
            if head.endswith("::") and head not in seen:
                seen.add(head)
                facts.imports.append(ImportFact(assign.line, head.removesuffix("::"), "", head))
        facts.imports.sort()

    # ---- resolution -----------------------------------------------------------------------

    def submodule(self, module: str, name: str) -> str:
        return f"{module}::{name}"

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
        parts = module.split("::")
        head = parts[0]
        if head == "crate":
            current = _crate_root(importer, index)
            rest = parts[1:]
        elif head == "self":
            current, rest = importer, parts[1:]
        elif head == "super":
            current, rest = importer, parts
            while rest and rest[0] == "super" and current:
                current, rest = _parent_module(current, index), rest[1:]
        else:
            # Inside the crate root, ``use a::b`` may name its own ``mod a``.
            current = _submodule_file(importer, head, index)
            if not current:
                return ModuleTarget(external=head.replace("-", "_"))
            rest = parts[1:]
        for part in rest:
            if not current:
                break
            current = _submodule_file(current, part, index)
        return ModuleTarget(files=(current,)) if current else ModuleTarget()


def _inline_depth(node: Node) -> int:
    """How many inline ``mod x { ... }`` blocks enclose ``node``."""
    depth, parent = 0, node.parent
    while parent is not None:
        if parent.type == "mod_item":
            depth += 1
        parent = parent.parent
    return depth


def _in_file(parts: list[str], depth: int) -> list[str]:
    """A path as seen from the file: ``super`` inside an inline module is the file itself."""
    supers = 0
    while supers < len(parts) and parts[supers] == "super":
        supers += 1
    used = min(supers, depth)
    if used == 0:
        return parts
    rest = parts[used:]
    return rest if rest[:1] == ["super"] else ["self", *rest]


def _module_folder(path: str) -> str:
    """The folder that holds the submodules of the module in ``path``."""
    name = posixpath.basename(path)
    if name in ("mod.rs", "lib.rs", "main.rs"):
        return posixpath.dirname(path)
    return path.removesuffix(".rs")


def _submodule_file(path: str, name: str, index: IndexView) -> str:
    folder = _module_folder(path)
    for candidate in (f"{folder}/{name}.rs", f"{folder}/{name}/mod.rs"):
        candidate = candidate.removeprefix("/")
        if candidate in index.facts:
            return candidate
    return ""


def _parent_module(path: str, index: IndexView) -> str:
    folder = posixpath.dirname(path)
    if posixpath.basename(path) == "mod.rs":
        folder = posixpath.dirname(folder)
    prefix = f"{folder}/" if folder else ""
    for candidate in (f"{prefix}mod.rs", f"{prefix}lib.rs", f"{prefix}main.rs", f"{folder}.rs"):
        if candidate in index.facts and candidate != path:
            return candidate
    return ""


def _crate_root(path: str, index: IndexView) -> str:
    folder = posixpath.dirname(path)
    while True:
        prefix = f"{folder}/" if folder else ""
        if f"{prefix}Cargo.toml" in index.facts:
            names = (
                ("main.rs", "lib.rs") if path == f"{prefix}src/main.rs" else ("lib.rs", "main.rs")
            )
            for name in names:
                if f"{prefix}src/{name}" in index.facts:
                    return f"{prefix}src/{name}"
            return ""
        if not folder:
            break
        folder = posixpath.dirname(folder)
    # No manifest: the nearest folder above with a lib.rs or main.rs is the root.
    folder = posixpath.dirname(path)
    while True:
        prefix = f"{folder}/" if folder else ""
        for name in ("lib.rs", "main.rs"):
            if f"{prefix}{name}" in index.facts:
                return f"{prefix}{name}"
        if not folder:
            return ""
        folder = posixpath.dirname(folder)
