"""app/ui/preload.py: every page's first element starts loading plotly's browser code, a participant's page excepted."""

from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from app.ui.preload import CHART_CHUNKS, MARK, chunk_files, preload_script
from app.ui.style import PAGE_CSS
from tests.pages import apptest

STATIC = Path(st.__file__).parent / "static" / "static" / "js"


def html_bodies(at: AppTest) -> list[str]:
    return [element.proto.body for element in at.get("html")]


def test_the_chunks_are_found_in_this_streamlit_build():
    files = chunk_files()
    assert [f.split(".")[0] for f in files] == list(CHART_CHUNKS)
    assert all((STATIC / f).is_file() and f.endswith(".js") for f in files)
    assert (STATIC / files[0]).stat().st_size > 1_000_000          # plotly's bundle, the one worth starting early
    assert chunk_files(("NoSuchChunk",)) == ()


def test_the_script_imports_each_file_next_to_the_entry_module():
    script = preload_script(("PlotlyChart.abc.js", "DataFrame.def.js"))
    assert script.startswith(f"<script {MARK}>") and script.endswith("</script>")
    assert MARK.split("=")[0] in PAGE_CSS and "display: none" in PAGE_CSS   # the element takes no room
    assert '["PlotlyChart.abc.js", "DataFrame.def.js"]' in script
    assert "new URL(f, entry.src)" in script and 'src*="/static/js/index."' in script
    assert preload_script(()) == ""


def test_the_page_style_carries_the_preload_and_a_participant_page_never():
    for at in (apptest.open_page("class_il"), AppTest.from_file(apptest.MAIN, default_timeout=60).run()):
        bodies = html_bodies(at)
        preloads = [b for b in bodies if "import(" in b]
        assert len(preloads) == 1 and all(f in preloads[0] for f in chunk_files())
        assert preloads[0].startswith(PAGE_CSS) and bodies[0] == preloads[0]        # the first element of the page
        assert at.get("html")[0].proto.unsafe_allow_javascript
    participant = AppTest.from_file(apptest.MAIN, default_timeout=60)
    participant.query_params["study"] = "1"
    participant.run()
    participant.switch_page("../pages/interestingness_study.py")
    participant.query_params["study"] = "1"
    participant.run()
    assert html_bodies(participant)[0] == PAGE_CSS and not [b for b in html_bodies(participant) if "import(" in b]
