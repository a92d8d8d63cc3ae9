"""The study's admin password gate, shared by the study admin and analysis pages.

The password comes from ``STUDY_ADMIN_PASSWORD`` or ``st.secrets["study_admin_password"]`` and is
compared with ``hmac.compare_digest``; the typed text is removed from the session at once. Without
a configured password the gate says how to set one and stays shut.
"""

from __future__ import annotations

import hmac
import os

import streamlit as st


def configured_password() -> str | None:
    if os.environ.get("STUDY_ADMIN_PASSWORD"):
        return os.environ["STUDY_ADMIN_PASSWORD"]
    try:
        return st.secrets.get("study_admin_password")
    except Exception:  # no secrets file at all
        return None


def admin_gate() -> bool:
    """True once this session entered the right password; otherwise draws the lock and returns False."""
    expected = configured_password()
    if not expected:
        st.warning("The study admin is locked: set the environment variable `STUDY_ADMIN_PASSWORD` (or "
                   "`study_admin_password` in `.streamlit/secrets.toml`) and restart the app.")
        return False
    if st.session_state.get("admin_ok"):
        return True

    def entered():
        given = st.session_state.pop("admin_password", "")
        st.session_state.admin_ok = hmac.compare_digest(given.encode(), expected.encode())
        st.session_state.admin_failed = not st.session_state.admin_ok

    st.text_input("Admin password", type="password", key="admin_password", on_change=entered)
    if st.session_state.get("admin_failed"):
        st.error("Wrong password.")
    return False
