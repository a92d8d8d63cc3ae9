"""app/ui/preload.py: every page's first element starts loading the browser code the page draws with: plotly's on
the system pages, the table's alone on the claims page, nothing on a participant's page or on a first view drawn
from shipped pictures."""

from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from app.ui.preload import CHART_CHUNKS, MARK, chunk_files, chunks_for, preload_script
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


def test_the_claims_page_preloads_its_table_and_not_plotly():
    assert chunks_for("claims") == ("DataFrame",)
    assert chunks_for("class_il") == chunks_for("home") == CHART_CHUNKS
    assert chunks_for("interestingness_study", participant=True) == ()
    at = AppTest.from_file(apptest.MAIN, default_timeout=60).run()
    at.switch_page("claims.py")
    at.run()
    assert not at.exception
    preloads = [b for b in html_bodies(at) if "import(" in b]
    table, plotly = chunk_files(("DataFrame",)), chunk_files(("PlotlyChart",))
    assert len(preloads) == 1 and table[0] in preloads[0] and plotly[0] not in preloads[0]
    assert html_bodies(at)[0] == preloads[0]                                      # still the first element


def test_a_first_view_drawn_from_pictures_preloads_nothing():
    assert chunks_for("class_il", pictures=True) == () and chunks_for("claims", pictures=True) == ()
    first = apptest.open_page("class_il", pictures=True)          # a session's first view: shipped pictures
    assert not [b for b in html_bodies(first) if "import(" in b] and html_bodies(first)[0] == PAGE_CSS
    assert len(first.get("image")) >= 1 and len(first.get("plotly_chart")) == 0
    first.run()                                                   # its upgrade: charts, and plotly's code early
    assert [b for b in html_bodies(first) if "import(" in b] and len(first.get("plotly_chart")) >= 1
