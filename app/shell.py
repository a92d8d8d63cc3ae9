"""Paperlab's navigation shell: the Streamlit script every session runs (``app/main.py`` serves it).

Streamlit puts only ``app/`` on ``sys.path``; the repository root goes there too so that
``import core`` and ``import pages`` work under ``streamlit run`` and AppTest alike. This module
imports nothing heavy itself: the served pages' modules were imported once, before the server
listened (:func:`app.ui.warmup.start_up`); a page the start-up did not import is imported when it
is first opened.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import home  # noqa: E402
from app.catalog import BY_KEY, EXTRA_PAGES, EXTRAS, SYSTEMS, by_theme  # noqa: E402
from app.ui import pictures  # noqa: E402
from app.ui.pages import page_for  # noqa: E402
from app.ui.preload import chunks_for  # noqa: E402
from app.ui.style import apply_page_style  # noqa: E402
from app.ui.warmup import drawing, import_page  # noqa: E402

# the icon ships with the app: a material symbol would make every visitor's browser (the study's participants
# included) fetch it from fonts.gstatic.com
st.set_page_config(page_title="Paperlab", page_icon=str(ROOT / "app" / "icon.png"), layout="wide")
participant = "study" in st.query_params   # a participant's link: only their page, no navigation

system_pages = {s.key: page_for(s) for s in SYSTEMS if s.built}
home_page = st.Page(home.page(system_pages), title="Home", icon=":material/home:", url_path="home", default=True)
claims_page = st.Page(ROOT / "app" / "claims.py", title="Claims", icon=":material/fact_check:", url_path="claims")
sections = {"Paperlab": [home_page, claims_page]}
for theme, systems in by_theme().items():
    built = [system_pages[s.key] for s in systems if s.key in system_pages]
    if built:
        sections[theme] = built

extra_pages = {extra.key: st.Page(ROOT / "pages" / f"{extra.key}.py", title=extra.title, url_path=extra.key)
               for extra in EXTRAS}
if not participant:
    for extra in EXTRAS:
        sections.setdefault(BY_KEY[extra.system].theme, []).append(extra_pages[extra.key])


def run(page) -> None:
    """Send the page style (and the browser code the page will need) first, then run the chosen page after
    importing its own module under the import lock (the warm-up waits meanwhile), then, if the page drew shipped
    pictures, arm the rerun that makes them interactive charts."""
    drawn_from_pictures = pictures.begin_run(page.url_path)
    # a visitor's browser starts on plotly's code at once, unless the first view is drawn from pictures
    apply_page_style(chunks_for(page.url_path, participant, drawn_from_pictures))
    key = EXTRA_PAGES.get(page.url_path, page.url_path)
    with drawing():
        if key in BY_KEY and BY_KEY[key].built:
            import_page([f"pages.{page.url_path}"])
        page.run()
    pictures.upgrade_soon()     # a view drawn from pictures becomes interactive once the browser shows it


if participant:
    # The home page stays the default (a lone page would be served at "/" only, and the link's
    # /interestingness_study path would then be "not found"); nothing links to it from here.
    run(st.navigation([home_page] + [extra_pages[e.key] for e in EXTRAS if e.participant], position="hidden"))
else:
    run(st.navigation(sections))
