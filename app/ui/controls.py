"""Controls whose values live in the URL, so a copied link reproduces the view.

Every widget made here passes ``bind="query-params"``: the URL initialises it, and changing it
updates the URL (Streamlit drops a parameter that equals its default). Keys are the parameter
names, so keep them short and stable. A select box with ``format_func`` puts the displayed label in
the URL (``?problem=Ski+rental``), and reads it back.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from core.common.seeding import MAX_SEED


def bound(widget: Callable[..., Any], label: str, *, key: str, **kwargs) -> Any:
    """Any Streamlit input widget (slider, selectbox, number_input, ...) bound to the URL as ``key``."""
    return widget(label, key=key, bind="query-params", **kwargs)


def seed_input(default: int = 0, *, key: str = "seed", label: str = "Seed") -> int:
    """The seed box every page has: the same seed gives the same result, and it is in the URL."""
    value = bound(st.number_input, label, key=key, min_value=0, max_value=MAX_SEED, value=default, step=1,
                  help="The same seed gives the same result. It is part of the URL, so a link reproduces this view.")
    return int(value)
