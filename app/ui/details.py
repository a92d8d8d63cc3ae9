"""A page's "Details" section, drawn only while the visitor has it open.

A plain ``st.expander`` sends its contents with the page even when it is closed, and the browser
loads the code of every element inside it: the tables (``st.dataframe``: about 1.2 MB of grid and
Arrow code) and JSON viewers of a page's details are fetched and evaluated on every first view,
competing with the page's figures for the browser's main thread. :func:`details` uses Streamlit's
state-tracking expander (``on_change="rerun"``): opening it reruns the page, and its body runs only
while it is open.

The body is a loop of at most one pass, so that a page reads like a ``with`` block::

    for _ in details("Details: configuration and export", key="details"):
        st.dataframe(rows)

Tests open it by setting its key in ``session_state`` to ``True`` before a run.
"""

from __future__ import annotations

from collections.abc import Iterator

import streamlit as st


def details(label: str, *, key: str = "details") -> Iterator[None]:
    """Yield once, inside an expander labelled ``label``, if and only if the visitor has it open."""
    box = st.expander(label, key=key, on_change="rerun")
    if box.open:
        with box:
            yield
