"""Paperlab's entry point: ``streamlit run app/main.py`` (``make run`` and the Docker image run the same).

This module is the app Streamlit serves (``st.App``, found by ``streamlit run``): the navigation shell,
app/shell.py, is the script each session runs, and the App's lifespan runs Paperlab's start-up once per
server process, before the server listens (:func:`app.ui.warmup.start_up`): the served pages' modules
imported, the heap they built frozen, and the background warm-up of their heavy libraries started. A
link opened as the first URL of a fresh server thus finds its page's libraries built, however the
server was started. ``PAPERLAB_WARM`` and ``PAPERLAB_WARM_DELAY`` (see :mod:`app.ui.warmup`) set what is
imported and when.

The file watcher is off (``.streamlit/config.toml``): a served app does not reload on edit, and each new
session's watcher would walk every module the start-up imported. ``make dev`` turns it back on, with
reruns on save, for development.
"""

from __future__ import annotations

import sys
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app.ui.warmup import start_up  # noqa: E402


@asynccontextmanager
async def lifespan(_app):
    start_up()      # before the server listens: the first page opened finds its page module imported
    yield


app = st.App(ROOT / "app" / "shell.py", lifespan=lifespan)
