"""app/ui/pictures.py: a first view draws shipped pictures of its figures, and the next run draws charts."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

import app.ui.plots  # noqa: F401  (the Paperlab template is the default, as on every page)
from app.ui import pictures

SCRIPT = """
import numpy as np
import plotly.graph_objects as go
from app.ui import pictures
from app.ui.plots import show

import streamlit as st
st.session_state["preload_nothing"] = (pictures.first_view_pictures("demo"), pictures.first_view_pictures("other"))
pictures.begin_run(st.session_state.get("page", "demo"))
y = np.linspace(0.0, 1.0, 50) ** 2
show(go.Figure(go.Scatter(x=np.arange(50), y=y, name="square")), key="chart-a")
show(go.Figure(go.Bar(x=["a", "b"], y=[3, 1])), key="chart-b")   # no picture ships for this one
pictures.upgrade_soon()
"""


def figure(y, **layout) -> go.Figure:
    fig = go.Figure(go.Scatter(x=np.arange(len(y)), y=y, name="square"))
    fig.update_layout(**layout)
    return fig


@pytest.fixture
def shipped_folder(tmp_path, monkeypatch):
    """assets/pictures pointed at an empty folder (the caches cleared before and after)."""
    monkeypatch.setattr(pictures, "PICTURES", tmp_path)
    monkeypatch.delenv(pictures.CAPTURE, raising=False)
    for cached in (pictures.shipped, pictures.manifest, pictures._svg):
        cached.cache_clear()
    yield tmp_path
    for cached in (pictures.shipped, pictures.manifest, pictures._svg):
        cached.cache_clear()


def test_the_fingerprint_ignores_last_bits_and_nothing_else():
    y = np.random.default_rng(3).random(400)
    base = pictures.fingerprint(figure(y))
    assert pictures.fingerprint(figure(y * (1 + 1e-14))) == base            # another CPU's last bits
    assert pictures.fingerprint(figure(y.tolist())) == base                  # a list draws as the array does
    assert pictures.fingerprint(figure(y * (1 + 1e-4))) != base
    assert pictures.fingerprint(figure(y, title="other")) != base
    assert pictures.fingerprint(figure(y, template="plotly_dark")) != base
    assert pictures.fingerprint(go.Figure(go.Bar(x=np.arange(400), y=y, name="square"))) != base
    assert (pictures.fingerprint(go.Figure(go.Heatmap(z=np.ones((3, 4)))))
            != pictures.fingerprint(go.Figure(go.Heatmap(z=np.ones((4, 3))))))


def ship_first_figure(folder) -> str:
    """Ship a picture for SCRIPT's first figure (as ``show`` themes it); returns its fingerprint."""
    y = np.linspace(0.0, 1.0, 50) ** 2
    fp = pictures.fingerprint(app.ui.plots.legend_clear_of_title(app.ui.plots.themed(figure(y))))
    (folder / f"{fp}.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="5"></svg>')
    (folder / "pages.json").write_text(json.dumps({"demo": [fp]}))
    return fp


def test_a_first_view_draws_the_shipped_picture_and_the_next_run_the_charts(shipped_folder):
    fp = ship_first_figure(shipped_folder)
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception
    assert len(at.get("image")) == 1 and len(at.get("plotly_chart")) == 1       # the picture, and the unmatched chart
    assert at.session_state[pictures.DRAWN] == [fp]
    assert at.session_state["preload_nothing"] == (True, False)                # demo ships pictures, other none
    at.run()                                   # the browser's timer (or any interaction): the upgrade reruns the page
    assert not at.exception
    assert len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2
    assert at.session_state[pictures.INTERACTIVE] is True and at.session_state[pictures.DRAWN] == []
    assert at.session_state["preload_nothing"] == (False, False)
    at.run()
    assert len(at.get("plotly_chart")) == 2                                    # it stays interactive


def test_without_a_matching_picture_a_first_view_draws_charts(shipped_folder):
    ship_first_figure(shipped_folder)
    (shipped_folder / "pages.json").unlink()
    for svg in shipped_folder.glob("*.svg"):
        svg.rename(svg.with_name("0" * 32 + ".svg"))                            # a stale picture: another figure's
    pictures.shipped.cache_clear()
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception and len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2
    assert at.session_state[pictures.DRAWN] == []


def test_an_interactive_session_or_a_page_without_pictures_never_gets_pictures(shipped_folder):
    ship_first_figure(shipped_folder)
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.session_state[pictures.INTERACTIVE] = True
    at.run()
    assert len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2
    other = AppTest.from_string(SCRIPT, default_timeout=60)
    other.session_state["page"] = "other"             # the figure's picture ships, but not for this page
    other.run()
    assert len(other.get("image")) == 0 and len(other.get("plotly_chart")) == 2 and not other.session_state[
        pictures.DRAWN]


def test_capture_mode_stores_each_figure_and_names_its_container(shipped_folder, tmp_path, monkeypatch):
    fp = ship_first_figure(shipped_folder)
    captured = tmp_path / "captured"
    monkeypatch.setenv(pictures.CAPTURE, str(captured))
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception and len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2  # charts, to measure
    stored = sorted(p.stem for p in captured.glob("*.json"))
    assert fp in stored and len(stored) == 2
    spec = json.loads((captured / f"{fp}.json").read_text())
    assert spec["data"][0]["name"] == "square"
    assert at.get_by_key(f"pic-{fp}-0") is not None
