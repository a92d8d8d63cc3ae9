"""Pages run as ``__main__``, so Streamlit keys a cached function by its name and source alone: two pages with
the same ``@st.cache_*`` wrapper text (``def cached_view(): return shipped_view()``) share one cache entry,
and the second page opened in a server gets the first one's data (found when the suite ran hebbian_memory
after kernel_conformal: "'DrivingView' object has no attribute 'mks_grid'")."""

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cached_functions(source: str) -> list[tuple[str, str]]:
    """(name, normalised source) of every function decorated with ``st.cache_data`` or ``st.cache_resource``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any("cache_data" in ast.dump(d) or "cache_resource" in ast.dump(d)
                                                     for d in node.decorator_list):
            body = ast.FunctionDef(name=node.name, args=node.args, body=node.body, decorator_list=[], returns=None,
                                   type_params=[])
            found.append((node.name, ast.dump(body)))
    return found


def test_no_two_pages_share_a_cached_function_text():
    seen = defaultdict(list)
    for path in sorted((ROOT / "pages").rglob("*.py")):
        for name, text in cached_functions(path.read_text()):
            seen[text].append(f"{path.relative_to(ROOT)}:{name}")
    assert len(seen) > 10
    assert [places for places in seen.values() if len({p.split(':')[0] for p in places}) > 1] == []


def test_the_scan_sees_two_identical_wrappers():
    page = "import streamlit as st\n@st.cache_resource(show_spinner=False)\ndef cached_view():\n    return shipped_view()\n"
    assert cached_functions(page) == cached_functions(page.replace("show_spinner=False", ""))
    assert cached_functions(page) != cached_functions(page.replace("shipped_view()", "other_view()"))
