"""Shipped files read once per server process, keyed by the loader that reads them.

Pages run as ``__main__``, and Streamlit keys a cached function by its name and source text: two pages
with the same wrapper (``def cached_view(): return shipped_view()``) shared one cache entry, so the
second page opened got the first one's data. :func:`shipped` keys on the loader's own module and name
instead (tests/test_page_caches.py keeps pages from writing such wrappers again).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import streamlit as st


@st.cache_resource(show_spinner=False, max_entries=256)
def _load(module: str, qualname: str, args: tuple) -> Any:
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target(*args)


def shipped(loader: Callable, *args) -> Any:
    """``loader(*args)``, computed once per server for these arguments; shared by every session, so read-only."""
    return _load(loader.__module__, loader.__qualname__, tuple(args))
