"""The code's size rules, held in CI beside the import contracts (pyproject.toml's
[tool.importlinter]): no module of kgtool over 1,000 lines, and no function over 80 that
does not say in its docstring why it is long ("Long because ...")."""

from __future__ import annotations

import ast

from conftest import PROJECT_ROOT

MODULE_LINES = 1000
FUNCTION_LINES = 80
REASON = "Long because"


def sources() -> list[tuple[str, str]]:
    found = sorted((PROJECT_ROOT / "kgtool").rglob("*.py"))
    return [(str(path.relative_to(PROJECT_ROOT)), path.read_text()) for path in found]


def test_no_module_is_over_a_thousand_lines() -> None:
    long = [(path, text.count("\n")) for path, text in sources()]
    assert [(path, n) for path, n in long if n > MODULE_LINES] == []


def test_a_long_function_says_why_it_is_long() -> None:
    unexplained = []
    for path, text in sources():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LINES and REASON not in (ast.get_docstring(node) or ""):
                    unexplained.append(f"{path}:{node.lineno} {node.name} ({lines} lines)")
    assert unexplained == []
