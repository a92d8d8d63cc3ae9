"""The study store the interestingness pages share: one StudyStore (one engine, one schema upgrade) per
database URL per server process, whichever page opens it first; and the server secret that signs
participant links."""

from __future__ import annotations

import os

import streamlit as st

from core.interestingness.store import StudyStore, default_url


@st.cache_resource(show_spinner=False)
def _open(url: str) -> StudyStore:
    return StudyStore(url)


def study_store() -> StudyStore:
    """The store for STUDY_DATABASE_URL, or the SQLite file under data/."""
    return _open(default_url())


def study_secret() -> str | None:
    """``STUDY_SECRET`` (or ``st.secrets["study_secret"]``): the HMAC key of signed participant links."""
    if os.environ.get("STUDY_SECRET"):
        return os.environ["STUDY_SECRET"]
    try:
        return st.secrets.get("study_secret")
    except Exception:  # noqa: BLE001 - no secrets file at all
        return None
