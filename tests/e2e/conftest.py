"""A real ``streamlit run app/main.py`` on a free port, and headless Debian Chromium to look at it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from app.server import ROOT, free_port, start_server, stop_server, wait_healthy

__all__ = ["ROOT", "open_system_page"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


ADMIN_PASSWORD = "e2e-admin-password"


@pytest.fixture(scope="session")
def study_db_url(tmp_path_factory):
    """The server's study database: a fresh SQLite file with one demo study of 12 simulated raters."""
    from core.interestingness import StudyStore, load_problem_bank
    from core.interestingness.simulate import simulate_participants

    url = f"sqlite:///{tmp_path_factory.mktemp('study') / 'study.sqlite'}"
    store = StudyStore(url)
    bank = load_problem_bank()
    demo = store.create_study("demo (simulated raters)", [p.id for p in bank[:24]], items_per_participant=10,
                              problems=bank)
    simulate_participants(store, demo, 12, seed=0)
    store.close()
    return url


@pytest.fixture(scope="session")
def app_url(tmp_path_factory, study_db_url):
    port = free_port()
    saved = {k: os.environ.get(k) for k in ("STUDY_DATABASE_URL", "STUDY_ADMIN_PASSWORD")}
    os.environ.update(STUDY_DATABASE_URL=study_db_url, STUDY_ADMIN_PASSWORD=ADMIN_PASSWORD)
    try:
        proc = start_server(port, tmp_path_factory.mktemp("server") / "streamlit.log")
    finally:
        for key, value in saved.items():
            os.environ.pop(key) if value is None else os.environ.update({key: value})
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        stop_server(proc)
        assert proc.poll() is not None, "the server did not stop"


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: a temporary folder, or ``docs/`` under ``make screenshots``.

    ``make test`` must leave the checkout clean, so the tracked ``docs/*.png`` change only when someone
    asks for it (``PAPERLAB_SCREENSHOTS=docs``, relative to the repository root).
    """
    target = os.environ.get("PAPERLAB_SCREENSHOTS")
    folder = (ROOT / target) if target else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(path).exists(), "Debian chromium is missing: apt-get install -y chromium (.ci/run does this)"
    return path


@pytest.fixture()
def browser_page(chromium_path, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=chromium_path, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1440, "height": 900})
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def open_system_page(page, url: str, system, unlock: bool = True) -> None:
    """Open a system's page, unlock the study admin (unless ``unlock`` is False: its public preview then), and
    wait until its first figure is drawn and idle."""
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("heading", name=system.title).first.wait_for(timeout=60_000)
    if system.key == "interestingness" and unlock:   # the study admin is behind its password
        page.get_by_label("Admin password").fill(ADMIN_PASSWORD)
        page.get_by_label("Admin password").press("Enter")
        page.get_by_text("Public preview").first.wait_for(state="detached", timeout=60_000)  # the locked view is gone
    page.locator(".js-plotly-plot:visible").first.wait_for(timeout=60_000)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSpinner\"]').length == 0", timeout=60_000)
