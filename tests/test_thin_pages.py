"""Thin pages: a page wires widgets to core and draws; its functions are named sections under 80 lines."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 80


def long_functions(source: str, limit: int = LIMIT) -> list[tuple[str, int]]:
    tree = ast.parse(source)
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 >= limit]


def test_no_page_function_reaches_80_lines():
    found = {str(p.relative_to(ROOT)): long_functions(p.read_text()) for p in sorted((ROOT / "pages").rglob("*.py"))}
    assert len(found) > 10  # the scan saw the pages
    assert {k: v for k, v in found.items() if v} == {}


def test_the_scan_counts_lines_of_a_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    assert long_functions(f"def render():\n{body}\n") == [("render", LIMIT + 1)]
    assert long_functions("def render():\n    pass\n") == []
