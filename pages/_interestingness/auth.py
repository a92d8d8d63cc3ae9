"""The study's admin password gate, shared by the study admin and analysis pages.

The password comes from ``STUDY_ADMIN_PASSWORD`` or ``st.secrets["study_admin_password"]`` and is
compared with ``hmac.compare_digest``; the typed text is removed from the session at once. Without
a configured password, or with one shorter than ``MIN_PASSWORD_LENGTH`` characters, the gate says
how to set one and stays shut. Wrong tries back off exponentially per session and per client
address (:func:`backoff`: kept in the study database, so every app process behind nginx sees the same
counts; see core/interestingness/safety.py): during a wait a try is refused without being compared.
Behind a reverse proxy every connection comes from the proxy: name it in ``STUDY_TRUSTED_PROXIES`` and
the client's own address is read from ``X-Forwarded-For`` (only the hops trusted proxies appended). An unlocked session has a "Log out" button, and survives a
reload through a cookie (``COOKIE``: an expiring HMAC token, see core/interestingness/safety.py; set
with ``SameSite=Strict``) that logging out deletes.
"""

from __future__ import annotations

import hmac
import math
import os
import secrets
import time

import streamlit as st

from pages._interestingness.store import study_secret, study_store
from core.interestingness.safety import (ADMIN_SESSION_S, Backoff, SharedBackoff, admin_token, admin_token_valid,
                                         client_address, password_problem, trusted_proxies)

BACKOFF: Backoff | None = None   # a per-process back-off where a test sets one; otherwise the database's


def backoff() -> Backoff | SharedBackoff:
    """The back-off of admin tries: the study database's, shared by every app process."""
    return BACKOFF if BACKOFF is not None else SharedBackoff(study_store())
COOKIE = "paperlab_study_admin"


def configured_password() -> str | None:
    if os.environ.get("STUDY_ADMIN_PASSWORD"):
        return os.environ["STUDY_ADMIN_PASSWORD"]
    try:
        return st.secrets.get("study_admin_password")
    except Exception:  # no secrets file at all
        return None


def _client_keys() -> tuple[str, ...]:
    """The back-off keys of this try: the session, and the client's address when there is a request (the
    connection's, or behind a proxy named in ``STUDY_TRUSTED_PROXIES`` the client's from ``X-Forwarded-For``:
    :func:`core.interestingness.safety.client_address`)."""
    session = st.session_state.setdefault("admin_gate_id", secrets.token_hex(8))
    try:
        headers, peer = st.context.headers, st.context.ip_address
        forwarded = [v for v in headers.get_all("X-Forwarded-For") if isinstance(v, str)]
        request = isinstance(headers.get("Host"), str)
    except Exception:  # noqa: BLE001 - no request context (bare mode; AppTest's context is a mock)
        request = False
    if not request:                                      # no request (bare mode, AppTest): the session only
        return (f"session:{session}",)
    address = client_address(peer if isinstance(peer, str) else None, ", ".join(forwarded) or None,
                             trusted_proxies(os.environ.get("STUDY_TRUSTED_PROXIES")))
    return (f"session:{session}", f"address:{address}")


def _logout() -> None:
    st.session_state.admin_ok = False
    st.session_state.admin_failed = False
    st.session_state.admin_cookie = ""                   # drawn once: deletes the cookie
    st.session_state.admin_logged_out = True             # this session's request still carries the old cookie


def _cookie_script(value: str, max_age: int) -> None:
    secure = ' + (location.protocol === "https:" ? "; Secure" : "")' if max_age else ""
    st.html(f"<script>document.cookie = '{COOKIE}={value}; Max-Age={max_age}; Path=/; SameSite=Strict'{secure};"
            "</script>", unsafe_allow_javascript=True)


def _cookie() -> str | None:
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 - no request context (bare mode)
        return None
    return value if isinstance(value, str) else None      # (AppTest's context is a mock)


def admin_gate() -> bool:
    """True once this session entered the right password; otherwise draws the lock and returns False."""
    expected = configured_password()
    if not expected:
        st.warning("The study admin is locked: set the environment variable `STUDY_ADMIN_PASSWORD` (or "
                   "`study_admin_password` in `.streamlit/secrets.toml`) and restart the app.")
        return False
    weak = password_problem(expected)
    if weak:
        st.error(f"The study admin is locked: {weak}. Set a longer `STUDY_ADMIN_PASSWORD` (or "
                 "`study_admin_password` in `.streamlit/secrets.toml`) and restart the app.")
        return False
    pending = st.session_state.pop("admin_cookie", None)
    if pending is not None:                              # set after a login, cleared after a logout
        _cookie_script(pending, ADMIN_SESSION_S if pending else 0)
    if not st.session_state.get("admin_ok") and pending is None and not st.session_state.get("admin_logged_out") and \
            admin_token_valid(_cookie(), expected, study_secret(), time.time()):
        st.session_state.admin_ok = True                 # a reload of an unlocked session
    if st.session_state.get("admin_ok"):
        st.button("Log out", key="admin_logout", on_click=_logout, icon=":material/logout:")
        return True
    keys = _client_keys()
    gate = backoff()

    def entered():
        given = st.session_state.pop("admin_password", "")
        if gate.wait(*keys) > 0:                # refused without comparing
            st.session_state.admin_failed = False
            return
        st.session_state.admin_ok = hmac.compare_digest(given.encode(), expected.encode())
        st.session_state.admin_failed = not st.session_state.admin_ok
        if st.session_state.admin_ok:
            gate.succeeded(*keys)
            st.session_state.admin_cookie = admin_token(expected, study_secret(), time.time())
        else:
            gate.failed(*keys)

    st.text_input("Admin password", type="password", key="admin_password", on_change=entered)
    wait = gate.wait(*keys)
    if wait > 0:
        st.error(f"Too many wrong passwords: the next try is accepted in {math.ceil(wait)} s.")
    elif st.session_state.get("admin_failed"):
        st.error("Wrong password.")
    return False
