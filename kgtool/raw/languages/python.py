"""Python: classes, functions, methods; ``import``/``from ... import`` with relative levels."""

from __future__ import annotations

import builtins
import posixpath
import re
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, ClassVar

from kgtool.raw.languages.base import (
    CALL_RESULT,
    ELEMENT,
    FIXTURE,
    RAISED,
    UNBINDABLE,
    Language,
    ModuleTarget,
)
from kgtool.raw.model import (
    ALIAS,
    ARGUMENT,
    ASSIGNED,
    DECORATED,
    PARAMETER,
    RETURNS,
    WRAPS,
    AssignFact,
    FileFacts,
    ImportFact,
    symbol_id,
)

if TYPE_CHECKING:
    from tree_sitter import Node

    from kgtool.raw.languages.base import IndexView


SOURCE_ROOTS = frozenset({"src", "lib", "python"})
# The standard library's public top-level modules of every Python kgtool runs on (3.10 to
# 3.13), listed in a file rather than read from ``sys.stdlib_module_names`` so that every
# machine maps the same repository alike.
STDLIB_MODULES = frozenset(
    resources.files("kgtool.raw.languages").joinpath("python_stdlib.txt").read_text().split()
)
COLLECTIONS = frozenset({"tuple", "list", "set"})
UNPACKED = frozenset({"pattern_list", "tuple_pattern", "expression_list", "tuple"})
NAMES = frozenset({"identifier", "attribute"})
STORES = frozenset({"append", "add", "update"})  # container methods that store a value
FORWARD_REFERENCE = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


class Python(Language):
    name = "python"
    grammar = "python"
    extensions = (".py", ".pyi")
    ecosystem = "py"
    self_words: ClassVar[frozenset[str]] = frozenset({"self", "cls"})
    class_words: ClassVar[frozenset[str]] = frozenset({"cls"})
    root_classes: ClassVar[frozenset[str]] = frozenset({"object"})
    member_access: ClassVar[dict[str, tuple[str, str]]] = {"attribute": ("object", "attribute")}
    builtins: ClassVar[frozenset[str]] = frozenset(dir(builtins))

    value_flow: ClassVar[bool] = True
    # The builtins that call a function passed to them: map's and filter's first argument,
    # the ``key`` of sorted, min and max.
    builtin_callbacks: ClassVar[frozenset[str]] = frozenset(
        {"map(0)", "filter(0)", "sorted(key=)", "min(key=)", "max(key=)"}
    )
    calling_builtins: ClassVar[frozenset[str]] = frozenset(
        callback.partition("(")[0] for callback in builtin_callbacks
    )
    # Of str, bytes, list, dict, set, tuple, int and float, in Python 3.10 to 3.13 (listed in
    # a file, so that every interpreter binds alike).
    builtin_methods: ClassVar[frozenset[str]] = frozenset(
        resources.files("kgtool.raw.languages")
        .joinpath("python_builtin_methods.txt")
        .read_text()
        .split()
    )

    def split_callee(self, node: Node) -> tuple[str, str]:
        receiver, name = self._split_callee(node)
        parent = node.parent
        if parent is not None and parent.type == "raise_statement" and name != UNBINDABLE:
            return receiver, f"{name}{RAISED}"  # ``raise A``: a call of A if it is a class
        return receiver, name

    def _split_callee(self, node: Node) -> tuple[str, str]:
        if node.type == "call":
            # ``make()()``: a call of what ``make`` returns, named ``make()`` (``make()()``
            # for ``make()()()``); the arguments of the inner calls are read as theirs.
            called = self._call_result(node)
            return ("", called) if called else (UNBINDABLE, UNBINDABLE)
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

    def _call_result(self, node: Node) -> str:
        """``make()`` for the call ``make(...)``, ``make()()`` for ``make(...)(...)``; "" when
        the innermost callee is no dotted name."""
        calls = 0
        while node.type == "call":
            function = node.child_by_field_name("function")
            if function is None:
                return ""
            node, calls = function, calls + 1
        called = self.dotted(node) if node.type in NAMES else ""
        return f"{called}{CALL_RESULT * calls}" if called else ""

    def type_name(self, node: Node) -> str:
        """The class a stated type names: ``Foo``, ``m.Foo``, ``"Foo"``, ``Foo | None`` and
        ``Optional[Foo]`` name Foo; ``dict[str, Foo]`` names dict; anything else nothing."""
        while node.type in ("type", "parenthesized_expression") and node.named_child_count == 1:
            node = node.named_child(0)
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
                    imported = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if imported is not None and alias is not None:
                        text = self.node_text(imported)
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

    def value_facts(
        self,
        matches: list[dict[str, list[Node]]],
        scope_of: Callable[[Node], str],
        facts: FileFacts,
    ) -> list[AssignFact]:
        found: list[AssignFact] = []
        parameter_lists = []
        for captures in matches:
            node = captures["value"][0]
            if node.type == "function_definition":
                parameter_lists.append(captures["value.parameters"][0])
            else:
                found.extend(self._value_fact(captures, node, scope_of))
        # Only the parameters a function reads as a function (calls, passes on, returns,
        # aliases, stores) say something to resolution: most say nothing and are left out.
        read: dict[str, set[str]] = {}
        for call in facts.calls:
            if not call.receiver:
                # ``f()``, ``raise f`` and ``f()()`` read f (the last as ``f()``).
                _reads(read, call.caller, call.name.removesuffix(RAISED).partition("(")[0])
            elif _is_test_function(call.caller):
                # A test's parameters are fixtures: ``runner.invoke()`` is typed by what the
                # fixture ``runner`` returns (``supplied_parameter``).
                _reads(read, call.caller, call.receiver.partition(".")[0])
        for assign in (*facts.assigns, *found):
            if assign.kind in (ARGUMENT, ALIAS, WRAPS):
                _reads(read, assign.scope, assign.callee.partition(".")[0])
        for parameters in parameter_lists:
            if parameters.named_child_count:
                scope = scope_of(parameters)
                names = read.get(scope)
                if names:
                    found.extend(self._parameters(parameters, scope, names))
        return found

    def _value_fact(
        self, captures: dict[str, list[Node]], node: Node, scope_of: Callable[[Node], str]
    ) -> list[AssignFact]:
        line = node.start_point[0] + 1
        kind = node.type
        if kind == "argument_list":
            return self._argument(captures, node, scope_of)
        scope = scope_of(node)
        if kind == "decorated_definition":
            name = self.node_text(captures["value.var"][0])
            function = self.dotted(captures["value.function"][0])
            if "value.argument" not in captures:
                # The decorator's own line: stacked decorators apply from the lowest up.
                line = captures["value.function"][0].start_point[0] + 1
                return [AssignFact(line, scope, name, function, DECORATED)] if function else []
            if function.rpartition(".")[2] != "wraps":
                return []
            # The wrapper's scope is the function it is defined in, as its name's.
            wrapped = self.node_text(captures["value.argument"][0])
            return [AssignFact(line, scope, name, wrapped, WRAPS)]
        if kind == "return_statement":
            value = self.dotted(captures["value.argument"][0])
            return [AssignFact(line, scope, RETURNS, value, ALIAS)] if value else []
        if kind == "for_statement":
            var = self.node_text(captures["value.var"][0])
            iterable = captures["value.iterable"][0]
            if iterable.type in COLLECTIONS:
                values = [self.dotted(c) for c in iterable.named_children if c.type in NAMES]
            elif iterable.type in NAMES:
                held = self.dotted(iterable)
                values = [f"{held}{ELEMENT}"] if held else []
            else:
                values = []
            return [AssignFact(line, scope, var, v, ALIAS) for v in values if v]
        if "value.iterable" in captures:  # a, (b, c) = f, (g, h)
            facts: list[AssignFact] = []
            self._unpack(
                captures["value.var"][0], captures["value.iterable"][0], line, scope, facts
            )
            return facts
        # d["k"] = f, d.append(f), d.add(f), d.update({"k": f}): one more value d holds.
        holder = captures["value.var"][0]
        method = captures.get("value.method")
        if method and self.node_text(method[0]) not in STORES:
            return []
        stored = next((v for v in captures["value.argument"] if v.type in NAMES), None)
        value_name = self.dotted(stored) if stored is not None else ""
        if not value_name:
            return []
        return [AssignFact(line, scope, f"{self.node_text(holder)}{ELEMENT}", value_name, ALIAS)]

    def _parameters(self, parameters: Node, scope: str, names: set[str]) -> list[AssignFact]:
        """The parameters in ``names``, with their positions and default values."""
        facts = []
        line = parameters.start_point[0] + 1
        position: int | None = 0
        name: Node | None
        for child in parameters.named_children:
            kind = child.type
            if kind in ("list_splat_pattern", "keyword_separator"):
                position = None  # what follows is passed by keyword only
                continue
            if kind == "identifier":
                name, default = child, None
            elif kind == "typed_parameter":
                name, default = child.named_children[0], None
            elif kind in ("default_parameter", "typed_default_parameter"):
                name = child.child_by_field_name("name")
                default = child.child_by_field_name("value")
            else:
                continue
            var = self.node_text(name) if name is not None and name.type == "identifier" else ""
            if var not in names:
                if position is not None:
                    position += 1
                continue
            facts.append(
                AssignFact(line, scope, var, "" if position is None else str(position), PARAMETER)
            )
            if default is not None and default.type in NAMES:
                value = self.dotted(default)
                if value:
                    facts.append(AssignFact(line, scope, var, value, ALIAS))
            if position is not None:
                position += 1
        return facts

    def _argument(
        self,
        captures: dict[str, list[Node]],
        arguments: Node,
        scope_of: Callable[[Node], str],
    ) -> list[AssignFact]:
        argument = captures["value.argument"][0]
        call = arguments.parent
        function = call.child_by_field_name("function") if call is not None else None
        if call is None or function is None or call.type != "call":
            return []  # a class's bases, a decorator's arguments are read elsewhere
        called = (
            self.node_text(function) if function.type == "identifier" else self.dotted(function)
        )
        if not called:
            return []
        builtin = called in self.builtins
        if builtin and called not in self.calling_builtins:
            return []  # what the other builtins do with their arguments calls nothing here
        if argument.type == "keyword_argument":
            key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
            if key is None or value is None:
                return []
            slot = f"{self.node_text(key)}="
        else:
            value = argument
            position = 0
            sibling = argument.prev_named_sibling
            while sibling is not None:
                if sibling.type in ("list_splat", "dictionary_splat", "keyword_argument"):
                    return []  # its position is not the one written
                if sibling.type != "comment":
                    position += 1
                sibling = sibling.prev_named_sibling
            slot = str(position)
        if builtin and f"{called}({slot})" not in self.builtin_callbacks:
            return []  # an argument the builtin does not call (map's iterables)
        passed = self.node_text(value) if value.type == "identifier" else self.dotted(value)
        if not passed or passed in ("self", "cls"):
            return []
        line = call.start_point[0] + 1  # the call's line, as its other facts have it
        return [AssignFact(line, scope_of(call), f"{called}({slot})", passed, ARGUMENT)]

    def _unpack(
        self, target: Node, value: Node, line: int, scope: str, facts: list[AssignFact]
    ) -> None:
        """``a, (b, c) = f, (g, h)``: each name gets the value in its place; a starred target
        takes an unknown share, so the places after it are not followed."""
        targets = [c for c in target.named_children if c.type != "comment"]
        values = [c for c in value.named_children if c.type != "comment"]
        starred = [i for i, t in enumerate(targets) if "splat" in t.type]
        if len(starred) == 1 and len(values) >= len(targets) - 1:
            # a, *b, c = f, g, h, k: b holds the middle values, c the last.
            star = starred[0]
            rest = len(targets) - star - 1
            inner = next((c for c in targets[star].named_children if c.type == "identifier"), None)
            if inner is not None:
                for held in values[star : len(values) - rest]:
                    name = self.dotted(held) if held.type in NAMES else ""
                    if name:
                        var = f"{self.node_text(inner)}{ELEMENT}"
                        facts.append(AssignFact(line, scope, var, name, ALIAS))
            pairs = [
                *zip(targets[:star], values[:star], strict=True),
                *zip(targets[star + 1 :], values[len(values) - rest :], strict=True),
            ]
        elif starred or len(targets) != len(values):
            return
        else:
            pairs = list(zip(targets, values, strict=True))
        for part, held in pairs:
            if part.type in UNPACKED and held.type in UNPACKED:
                self._unpack(part, held, line, scope, facts)
            elif part.type not in NAMES:
                continue
            elif held.type in NAMES:
                var, name = self.dotted(part), self.dotted(held)
                if var and name:
                    facts.append(AssignFact(line, scope, var, name, ALIAS))
            elif held.type == "call":
                # a, b = Foo(), make(): what those calls give, as ``a = Foo()`` does.
                function = held.child_by_field_name("function")
                var = self.dotted(part)
                name = self.dotted(function) if function is not None else ""
                if var and name:
                    facts.append(AssignFact(line, scope, var, name, ASSIGNED))

    def refine(self, facts: FileFacts, root: Node) -> None:
        super().refine(facts, root)
        for node in root.named_children:
            if node.type != "decorated_definition":
                continue
            definition = node.child_by_field_name("definition")
            name = definition.child_by_field_name("name") if definition is not None else None
            if name is None or definition is None or definition.type != "function_definition":
                continue
            for decorator in node.named_children:
                if decorator.type == "decorator" and _is_fixture(decorator):
                    facts.extra[f"{FIXTURE}{self.node_text(name)}"] = ""

    def supplied_parameter(self, path: str, scope: str, var: str, index: IndexView) -> str:
        """A test's parameter is the fixture of its name that pytest finds first: one in the
        test's own file, else in the nearest conftest.py above it."""
        if not _is_test_function(scope):
            return ""
        key = f"{FIXTURE}{var}"
        folder = posixpath.dirname(path)
        places = [path]
        while True:
            places.append(posixpath.join(folder, "conftest.py"))
            if not folder:
                break
            folder = posixpath.dirname(folder)
        for place in places:
            facts = index.facts.get(place)
            if facts is not None and key in facts.extra:
                return symbol_id(place, var)
        return ""

    def submodule(self, module: str, name: str) -> str:
        return f"{module}{name}" if module.endswith(".") else f"{module}.{name}"

    def attribute_modules(self, package: str, name: str) -> tuple[str, ...]:
        # Python puts a package's imported modules on it: pkg/utils/__init__.py's ``parse``.
        if posixpath.basename(package) != "__init__.py":
            return ()
        folder = posixpath.dirname(package)  # "" for a package at the repository's top
        return (posixpath.join(folder, f"{name}.py"), posixpath.join(folder, name, "__init__.py"))

    def resolve_module(self, module: str, importer: str, index: IndexView) -> ModuleTarget:
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
        top = module.split(".")[0]
        roots = _roots_above(importer, top, index)
        candidates = _importable(_absolute_candidates(module, index), importer, roots)
        if not candidates:
            if "." in module and _importable(_absolute_candidates(top, index), importer, roots):
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


def _is_test_function(scope: str) -> bool:
    """Whether the function ``scope`` is one pytest collects (``test_x``, ``TestX.test_y``)."""
    return scope.rpartition(".")[2].startswith("test")


def _is_fixture(decorator: Node) -> bool:
    """``@pytest.fixture``, ``@fixture``, with or without arguments."""
    target = decorator.named_children[0] if decorator.named_children else None
    if target is not None and target.type == "call":
        target = target.child_by_field_name("function")
    if target is None or target.type not in ("identifier", "attribute"):
        return False
    text = target.text or b""
    return text in (b"fixture", b"pytest.fixture")


def _reads(read: dict[str, set[str]], scope: str, name: str) -> None:
    """``name`` is read in ``scope``, so in each function around it (a nested function reads its
    enclosing functions' parameters)."""
    while True:
        read.setdefault(scope, set()).add(name)
        if not scope:
            return
        scope = scope.rpartition(".")[0]


def _importable(
    candidates: list[tuple[str, str]], importer: str, roots_above: bool | str
) -> list[tuple[str, str]]:
    """The candidates an absolute import in ``importer`` can reach: from the repository root,
    a conventional source root, and the roots above it that ``_roots_above`` allows."""
    return [
        c
        for c in candidates
        if not c[0]
        or c[0].rstrip("/").split("/")[-1] in SOURCE_ROOTS
        or (roots_above is True and importer.startswith(c[0]))
        or c[0] == roots_above
    ]


def _roots_above(importer: str, top: str, index: IndexView) -> bool | str:
    """Which folders above ``importer`` an absolute import of ``top`` may start from: a
    module of a package only from the folder holding its outermost package (Python puts no
    folder inside a package on its path); a script from any folder above it, as running it
    from there would (True), but never for a standard-library name (False): a script named
    like one is far likelier a local script than the shadowing of the library."""
    folder = posixpath.dirname(importer)
    outermost = ""
    while folder and (
        f"{folder}/__init__.py" in index.facts or f"{folder}/__init__.pyi" in index.facts
    ):
        outermost = folder
        folder = posixpath.dirname(folder)
    if outermost:
        parent = posixpath.dirname(outermost)
        return f"{parent}/" if parent else ""
    return top not in STDLIB_MODULES


def _module_files(stem: str, index: IndexView) -> tuple[str, ...]:
    stem = posixpath.normpath(stem) if stem else "."
    for candidate in (f"{stem}.py", f"{stem}.pyi", f"{stem}/__init__.py", f"{stem}/__init__.pyi"):
        candidate = candidate.removeprefix("./")
        if candidate in index.facts:
            return (candidate,)
    return ()


def _absolute_candidates(module: str, index: IndexView) -> list[tuple[str, str]]:
    """(root, file) pairs where ``root/<module as path>`` is a module of the repository."""
    table = index.memo("python:modules", _module_table)
    return table.get(module, [])


def _module_table(index: IndexView) -> dict[str, list[tuple[str, str]]]:
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
