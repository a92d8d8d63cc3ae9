"""No page calls a long core function itself: it hands it to live_panel, or shows a shipped result.

Each catalog entry lists in ``System.long`` the core functions of its system that can take more than
about a second. A page (and its extra pages) may pass them to ``live_panel`` as a reference, but a
call anywhere in the page, cached or not, would block the visitor with no progress and no Stop.
"""

import ast
from pathlib import Path

import pytest

from app.catalog import EXTRA_PAGES, SYSTEMS

ROOT = Path(__file__).resolve().parents[1]


def page_files(system):
    names = [system.key] + [page for page, owner in EXTRA_PAGES.items() if owner == system.key]
    return [ROOT / "pages" / f"{name}.py" for name in names]


def long_calls(path: Path, names) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in names:
                found.append(f"{path.name}:{node.lineno} {name}()")
    return found


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s.built], ids=lambda s: s.key)
def test_pages_never_call_their_long_functions(system):
    assert system.long, f"{system.key}: list its long core functions in the catalog"
    calls = [c for path in page_files(system) for c in long_calls(path, set(system.long))]
    assert calls == []


def test_the_scan_finds_a_long_call(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("import streamlit as st\n@st.cache_data\ndef first():\n    return core.train(cfg)\n"
                    "live_panel('k', train, {})\n")
    assert long_calls(page, {"train"}) == ["page.py:4 train()"]   # the call, not the reference
