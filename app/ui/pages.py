"""Turning a catalog entry into an ``st.Page`` that runs ``pages/<key>.py``.

A page module defines ``render()`` and ends with ``if __name__ == "__main__": render()``: Streamlit
runs page files as ``__main__``, while ``import pages.<key>`` (tests, notebooks) draws nothing.
File pages load only when opened, hot-reload on edit, and AppTest can ``switch_page`` to them.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app.catalog import System

ROOT = Path(__file__).resolve().parents[2]


def page_file(system: System) -> Path:
    return ROOT.joinpath(*system.page.split(".")).with_suffix(".py")


def page_for(system: System) -> "st.Page":
    return st.Page(page_file(system), title=system.title, url_path=system.key)
