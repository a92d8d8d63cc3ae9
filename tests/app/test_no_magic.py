"""Streamlit's magic is off (.streamlit/config.toml), so no page may rely on it.

Magic turns an expression statement into ``st.write(value)``; with it off such a line would
silently draw nothing. Calls are never magic (Streamlit leaves them alone), nor are docstrings.
"""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.joinpath("pages").rglob("*.py"), *ROOT.joinpath("app").rglob("*.py")])


def magic_lines(source: str) -> list[int]:
    """Lines where Streamlit's magic would have written a value (expression statements other than calls and docstrings)."""
    found = []
    for parent in ast.walk(ast.parse(source)):
        for attr in ("body", "orelse", "finalbody"):
            body = getattr(parent, attr, None)
            if not isinstance(body, list):
                continue
            for i, node in enumerate(body):
                if not isinstance(node, ast.Expr) or isinstance(node.value, (ast.Call, ast.Await, ast.Yield,
                                                                               ast.YieldFrom)):
                    continue
                docstring = (i == 0 and attr == "body" and isinstance(node.value, ast.Constant)
                             and isinstance(parent, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
                if not docstring:
                    found.append(node.lineno)
    return found


def test_magic_is_off_in_the_app_config():
    config = tomllib.loads(ROOT.joinpath(".streamlit", "config.toml").read_text())
    assert config["runner"]["magicEnabled"] is False


def test_no_page_or_app_module_relies_on_magic():
    offenders = {str(p.relative_to(ROOT)): lines for p in SOURCES if (lines := magic_lines(p.read_text()))}
    assert offenders == {}


def test_the_check_sees_what_magic_would_write():
    source = '"""doc"""\nimport streamlit as st\nx = 1\nx\nst.write(x)\n"a string on its own"\ndef f():\n    """doc"""\n    x\n'
    assert magic_lines(source) == [4, 6, 9]
