"""Start loading the browser code of a page's charts before the page's first chart arrives.

Streamlit's front end loads each element's code when the first element of that kind arrives:
plotly's bundle (``PlotlyChart.<hash>.js``, 4.7 MB) is fetched only once the page script reaches
its first ``st.plotly_chart``, after the title, the verdict strip and the controls, and then takes
about a second of the browser's main thread to evaluate on two cores. Until it has, no chart can
draw, and the selectbox, slider and table that share the chart's block wait for it too.

:func:`preload_script` is a script that imports those bundles (their file names are read from
Streamlit's own static folder, so an upgrade that renames them still works) from the URL of
Streamlit's entry script, which is where the front end's lazy ``import()`` resolves them: the
browser's module map then holds one module per URL, and the front end's own import later finds it
loaded. The shell sends it with the page style, the first element of every page but a
participant's (:func:`app.ui.style.apply_page_style`), because a script's element runs only once
React has drawn it, and the front end draws the style's element before the page's title: sent
with the title, the script would run no earlier than the title. Once evaluated, plotly's
code stays loaded for every page the visitor opens from there.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import streamlit as st

# the front-end chunks a system page's first view needs, by the name before their content hash
CHART_CHUNKS = ("PlotlyChart", "DataFrame")
# the script's attribute; app/ui/style.py hides the element that holds it, so it takes no room on the page
MARK = 'data-paperlab="preload"'
# pages whose first view needs other chunks (by URL path): the claims page draws a table and no chart, and
# plotly's bundle evaluated ahead of its table would hold the table back by about a second
PAGE_CHUNKS = {"claims": ("DataFrame",)}


def chunks_for(url_path: str, participant: bool = False, pictures: bool = False) -> tuple[str, ...]:
    """The chunks to preload on the page at ``url_path``: none on a participant's page (their browser loads
    only what their own page draws) or on a first view drawn from pictures (:mod:`app.ui.pictures`: plotly's
    code evaluated ahead of them would hold them back), the table's alone on the claims page, else
    :data:`CHART_CHUNKS`."""
    if participant or pictures:
        return ()
    return PAGE_CHUNKS.get(url_path, CHART_CHUNKS)


@functools.lru_cache(maxsize=None)
def chunk_files(names: tuple[str, ...] = CHART_CHUNKS) -> tuple[str, ...]:
    """The file names (``PlotlyChart.D9Z0_fxz.js``) of the chunks ``names`` in this Streamlit's build."""
    static = Path(st.__file__).parent / "static" / "static" / "js"
    found = []
    for name in names:
        matches = sorted(p.name for p in static.glob(f"{name}.*.js") if p.name.count(".") == 2)
        if len(matches) == 1:          # one build of the chunk: anything else is not Streamlit's layout
            found.append(matches[0])
    return tuple(found)


def preload_script(files: tuple[str, ...]) -> str:
    """The ``<script>`` that imports ``files`` next to Streamlit's entry module (empty without files)."""
    if not files:
        return ""
    return (f"<script {MARK}>(function () {{"
            "var entry = document.querySelector('script[type=module][src*=\"/static/js/index.\"]');"
            "if (!entry) return;"
            f"{json.dumps(list(files))}.forEach(function (f) {{"
            "import(new URL(f, entry.src).href).catch(function () {});"
            "});})();</script>")
