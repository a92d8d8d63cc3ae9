"""The study store the interestingness pages share: one StudyStore (one engine, one schema upgrade) per
database URL per server process, whichever page opens it first."""

from __future__ import annotations

import streamlit as st

from core.interestingness.store import StudyStore, default_url


@st.cache_resource(show_spinner=False)
def _open(url: str) -> StudyStore:
    return StudyStore(url)


def study_store() -> StudyStore:
    """The store for STUDY_DATABASE_URL, or the SQLite file under data/."""
    return _open(default_url())
