"""The few CSS rules every page shares, applied once by ``app/shell.py``.

Streamlit ends a metric's label and value in "…" when its column is narrow, which on a 1024 px
projector turns "-9.974" into "-9.…" and hides which metric is which. Here they wrap at spaces
instead, and the value's size follows the window, so a row of metrics stays readable at 1024 px
and unchanged at full width; below 1300 px the main column's side margins shrink, so the
page's controls get the width the sidebar takes (tests/e2e/test_widths.py checks every page at 1024, 1280, 1440 px).
The element holding app/ui/preload.py's script is hidden, so it adds no gap above the title.
A figure's slot (app/ui/pictures.py) is one grid cell, its elements on top of each other; its shipped
picture is hidden once the chart drawn over it is shown (plotly's element holds ``visibility: hidden`` in
its style while it draws: for 0.17 to 0.21 s after its SVG exists, measured on class_il).
"""

from __future__ import annotations

import streamlit as st

from app.ui.preload import CHART_CHUNKS, chunk_files, preload_script

PAGE_CSS = """<style>
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * ,
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: normal !important; word-break: normal !important;
}
[data-testid="stMetricValue"] { font-size: clamp(1.35rem, 2.3vw, 2.25rem) !important; line-height: 1.2; }
[data-testid="stElementContainer"]:has(script[data-paperlab="preload"]) { display: none !important; }
[class*="st-key-paperlab-fig-"] { display: grid !important; grid-template-columns: minmax(0, 1fr); }
[class*="st-key-paperlab-fig-"] > * { grid-area: 1 / 1; }
[class*="st-key-paperlab-fig-"]:has(.js-plotly-plot:not([style*="visibility"]) .main-svg) > :has([data-testid="stImage"]) {
  display: none !important; }
@media (max-width: 1300px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem !important; padding-right: 1.5rem !important; }
}
</style>"""


def apply_page_style(chunks: tuple[str, ...] = CHART_CHUNKS) -> None:
    """Send :data:`PAGE_CSS` with the page, and with it app/ui/preload.py's script for ``chunks`` (none: no script).

    A style-only ``st.html`` takes no room; with the script its element is hidden by the CSS itself.
    """
    script = preload_script(chunk_files(tuple(chunks))) if chunks else ""
    st.html(PAGE_CSS + script, unsafe_allow_javascript=bool(script))
