"""The few CSS rules every page shares, applied once by ``app/main.py``.

Streamlit ends a metric's label and value in "…" when its column is narrow, which on a 1024 px
projector turns "-9.974" into "-9.…" and hides which metric is which. Here they wrap at spaces
instead, and the value's size follows the window, so a row of metrics stays readable at 1024 px
and unchanged at full width; below 1300 px the main column's side margins shrink, so the
page's controls get the width the sidebar takes (tests/e2e/test_widths.py checks every page at 1024, 1280, 1440 px).
"""

from __future__ import annotations

import streamlit as st

PAGE_CSS = """<style>
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * ,
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: normal !important; word-break: normal !important;
}
[data-testid="stMetricValue"] { font-size: clamp(1.35rem, 2.3vw, 2.25rem) !important; line-height: 1.2; }
@media (max-width: 1300px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem !important; padding-right: 1.5rem !important; }
}
</style>"""


def apply_page_style() -> None:
    """Send :data:`PAGE_CSS` with the page (a style-only ``st.html`` takes no room)."""
    st.html(PAGE_CSS)
