"""kgtool's own structure in figures: module cycles, the largest modules, functions over 80
lines, imports inside functions, and imports that run up the layers of [tool.importlinter].

    python bench/structure.py             # this checkout
    python bench/structure.py /path/to/another/checkout

What `lint-imports` enforces (pyproject.toml) is a yes or no; these are the figures behind it,
to compare one version of the code with another.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp

LONG = 80  # lines: a function longer than this says why in its docstring


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another around a loop (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str, layers: list[list[str]]) -> int | None:
    for number, names in enumerate(layers):
        if any(module == name or module.startswith(name + ".") for name in names):
            return number
    return None


def main() -> int:
    checkout = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent.parent).resolve()
    sys.path.insert(0, str(checkout))
    graph = grimp.build_graph("kgtool", include_external_packages=False)
    imports = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    cycles = strongly_connected(imports)
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    # The layers as this checkout declares them, so that an older checkout is judged by them.
    here = Path(__file__).resolve().parent.parent / "pyproject.toml"
    settings = tomllib.loads(here.read_text())
    contracts = settings.get("tool", {}).get("importlinter", {}).get("contracts", [])
    layers = next((c["layers"] for c in contracts if c.get("type") == "layers"), [])
    levels = [[name.strip() for name in layer.split("|")] for layer in layers]
    upward = sorted(
        (importer, imported)
        for importer, targets in imports.items()
        for imported in targets
        if (a := layer_of(importer, levels)) is not None
        and (b := layer_of(imported, levels)) is not None
        and b < a  # layers are listed from the top: a smaller number is a higher layer
    )
    files = sorted((checkout / "kgtool").rglob("*.py"))
    sizes = sorted(((len(f.read_text().splitlines()), f) for f in files), reverse=True)
    long: list[tuple[int, str]] = []
    inner = 0
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > LONG:
                    said = "Long because" in (ast.get_docstring(node) or "")
                    where = f"{path.relative_to(checkout)}:{node.name}"
                    long.append((lines, where + ("" if said else " (says not why)")))
                inner += sum(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(node))
    print(f"modules: {len(files)}, lines: {sum(n for n, _ in sizes):,}")
    print(f"module cycles: {len(cycles)}")
    for group in cycles:
        print(f"  {', '.join(group)}")
    print(f"imports up the layers: {len(upward)}")
    for importer, imported in upward:
        print(f"  {importer} -> {imported}")
    print("largest modules: " + ", ".join(f"{f.relative_to(checkout)} {n}" for n, f in sizes[:4]))
    print(f"functions over {LONG} lines: {len(long)}")
    for lines, name in sorted(long, reverse=True):
        print(f"  {lines} {name}")
    print(f"imports inside functions: {inner}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
