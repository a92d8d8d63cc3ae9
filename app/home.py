"""The home page: every system as a card, grouped by theme, with its claim, status and link."""

from __future__ import annotations

from typing import Callable, Mapping

import streamlit as st

from app.catalog import SYSTEMS, by_theme
from app.ui.verdicts import ledger, status_of
from core.common.claims import REPRODUCED

CARDS_PER_ROW = 4


def page(system_pages: Mapping[str, "st.Page"]) -> Callable[[], None]:
    def home() -> None:
        render(system_pages)

    return home


def render(system_pages: Mapping[str, "st.Page"]) -> None:
    st.title("Paperlab")
    st.markdown(
        "Nineteen NeurIPS 2026 systems, implemented completely and small enough to train and probe "
        "live on a laptop CPU, for researchers and teachers who want to *see* a paper's claim; and a "
        "human-participant study of how interesting math problems are, to people and to LLMs."
    )
    built = sum(s.key in system_pages for s in SYSTEMS)
    rest = " · the rest are being built and show their claim only" if built < len(SYSTEMS) else ""
    st.caption(f"{built} of {len(SYSTEMS)} systems ready{rest}")
    for theme, systems in by_theme().items():
        st.subheader(theme, divider="gray")
        for start in range(0, len(systems), CARDS_PER_ROW):
            columns = st.columns(CARDS_PER_ROW)
            for column, system in zip(columns, systems[start:start + CARDS_PER_ROW]):
                with column.container(border=True, height="stretch"):
                    _card(system, system_pages.get(system.key))


def _card(system, page) -> None:
    st.markdown(f"**{system.title}**")
    st.caption(system.claim)
    if page is None:
        st.markdown(":gray-badge[:material/construction: In progress]")
    else:
        st.markdown(":green-badge[:material/check: Ready]")
        entries = ledger(system.key)
        if entries:
            done = sum(status_of(v) == REPRODUCED for _, v in entries)
            st.markdown(f":blue-badge[:material/fact_check: {done} of {len(entries)} claims reproduced]")
        st.page_link(page, label="Open", icon=":material/arrow_forward:")
