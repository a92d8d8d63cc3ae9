"""A real ``streamlit run app/main.py`` on a free port, and headless Debian Chromium to look at it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.server import ROOT, free_port, start_server, stop_server, wait_healthy

__all__ = ["ROOT"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    port = free_port()
    proc = start_server(port, tmp_path_factory.mktemp("server") / "streamlit.log")
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        stop_server(proc)
        assert proc.poll() is not None, "the server did not stop"


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
