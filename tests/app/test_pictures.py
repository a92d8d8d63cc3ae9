"""app/ui/pictures.py: a first view draws shipped pictures of its figures, the next run draws charts over them."""

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
    for cached in (pictures.shipped, pictures.manifest, pictures._svg, pictures._numbers):
        cached.cache_clear()
    yield tmp_path
    for cached in (pictures.shipped, pictures.manifest, pictures._svg, pictures._numbers):
        cached.cache_clear()


def matches(fig, reference) -> bool:
    """Whether ``fig`` is drawn by the picture of ``reference`` (shipped: its name and its floats)."""
    name = pictures.fingerprint(reference)
    stored = pictures.describe(reference)[1]
    structure, numbers = pictures.describe(fig)
    return name.startswith(structure) and pictures.same_numbers(numbers, stored)


def test_a_picture_matches_under_last_bits_and_nothing_else():
    y = np.random.default_rng(3).random(400)
    base = figure(y)
    assert matches(figure(y * (1 + 1e-14)), base)                          # another CPU's last bits
    assert matches(figure(y.tolist()), base)                                # a list draws as the array does
    assert not matches(figure(y * (1 + 1e-4)), base)
    zero_here, zero_there = y.copy(), y.copy()
    zero_here[0], zero_there[0] = 1e-16, -3e-16          # zero up to rounding, on two CPUs (an eigenvalue of L)
    assert matches(figure(zero_here), figure(zero_there))
    moved = y.copy()
    moved[7] += 1e-4 * np.abs(y).max()                    # one point moved by 1e-4 of the range
    assert not matches(figure(moved), base)
    assert not matches(figure(np.where(y > 0.5, np.nan, y)), base)          # gaps in a line
    assert not matches(figure(y, title="other"), base)
    assert not matches(figure(y, template="plotly_dark"), base)
    assert not matches(go.Figure(go.Bar(x=np.arange(400), y=y, name="square")), base)
    assert not matches(go.Figure(go.Heatmap(z=np.ones((3, 4)))), go.Figure(go.Heatmap(z=np.ones((4, 3)))))
    assert not matches(figure(y, width=701), figure(y, width=700))         # a float of the layout


def test_float32_last_bits_that_cross_a_rounding_step_still_match():
    # looped_lm's heatmap of float32 log10 values matched no picture on one CPU when floats were hashed in steps
    # of a millionth: one ulp of float32 is 0.1 of such a step, so a value near a step's edge changes the hash
    z = np.random.default_rng(5).uniform(-8, 0, size=(24, 13)).astype(np.float32)
    steps = z.astype(np.float64) / np.abs(z).max() * pictures.ROUNDING
    i = np.unravel_index(np.argmin(np.abs(steps - np.floor(steps) - 0.5)), z.shape)   # nearest a step's edge
    other = z.copy()
    other[i] = np.nextafter(z[i], np.float32(np.inf) if steps[i] % 1 < 0.5 else np.float32(-np.inf))
    here, there = go.Figure(go.Heatmap(z=z)), go.Figure(go.Heatmap(z=other))
    assert pictures.fingerprint(here) != pictures.fingerprint(there)         # the rounded hash alone splits them
    assert matches(there, here) and matches(here, there)
    far = z.copy()
    far[i] += np.float32(1e-3 * np.abs(z).max())                             # control: a visible change
    assert not matches(go.Figure(go.Heatmap(z=far)), here)


def ship_first_figure(folder) -> str:
    """Ship a picture for SCRIPT's first figure (as ``show`` themes it); returns its fingerprint."""
    y = np.linspace(0.0, 1.0, 50) ** 2
    fig = app.ui.plots.legend_clear_of_title(app.ui.plots.themed(figure(y)))
    fp = pictures.fingerprint(fig)
    (folder / f"{fp}.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="5"></svg>')
    np.savez_compressed(folder / f"{fp}.npz", *pictures.describe(fig)[1])
    (folder / "pages.json").write_text(json.dumps({"demo": [fp]}))
    return fp


def slot(at, key: str) -> list[str]:
    """The kinds of the elements in the slot of the chart keyed ``key``, in order."""
    return [child.type for _, child in sorted(at.get_by_key(f"{pictures.SLOT}{key}").children.items())]


def test_a_first_view_draws_the_shipped_picture_and_the_next_run_the_charts(shipped_folder):
    fp = ship_first_figure(shipped_folder)
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception
    assert len(at.get("image")) == 1 and len(at.get("plotly_chart")) == 1       # the picture, and the unmatched chart
    assert at.session_state[pictures.DRAWN] == [fp]
    assert at.session_state["preload_nothing"] == (True, False)                # demo ships pictures, other none
    assert slot(at, "chart-a") == ["image"] and slot(at, "chart-b") == ["empty", "plotly_chart"]
    picture = at.get("image")[0].proto
    at.run()                                   # the browser's timer (or any interaction): the upgrade reruns the page
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    assert at.session_state[pictures.INTERACTIVE] is True and at.session_state[pictures.DRAWN] == []
    assert at.session_state["preload_nothing"] == (False, False)
    # the picture stays where it was, unchanged (the browser keeps showing it), with its chart drawn over it
    assert slot(at, "chart-a") == ["image", "plotly_chart"] and at.get("image")[0].proto == picture
    assert slot(at, "chart-b") == ["empty", "plotly_chart"]
    at.run()
    assert len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2   # it stays interactive
    # each chart stays its slot's second element, so the browser updates it in place
    assert slot(at, "chart-a") == slot(at, "chart-b") == ["empty", "plotly_chart"]


def test_the_picture_shown_is_kept_only_on_the_same_page(shipped_folder):
    ship_first_figure(shipped_folder)
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert slot(at, "chart-a") == ["image"]
    at.session_state["page"] = "other"      # the visitor went to another page: nothing there was shown as a picture
    at.run()
    assert not at.exception and len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2


def test_without_a_matching_picture_a_first_view_draws_charts(shipped_folder):
    ship_first_figure(shipped_folder)
    (shipped_folder / "pages.json").unlink()
    for stored in (*shipped_folder.glob("*.svg"), *shipped_folder.glob("*.npz")):
        stored.rename(stored.with_name("0" * 32 + stored.suffix))               # a stale picture: another figure's
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
    assert slot(at, "chart-a") == ["empty", "plotly_chart"]     # a page with pictures: every chart in its slot
    other = AppTest.from_string(SCRIPT, default_timeout=60)
    other.session_state["page"] = "other"             # the figure's picture ships, but not for this page
    other.run()
    assert len(other.get("image")) == 0 and len(other.get("plotly_chart")) == 2 and not other.session_state[
        pictures.DRAWN]
    with pytest.raises(KeyError):
        other.get_by_key(f"{pictures.SLOT}chart-a")                   # no pictures on this page: charts, no slots


def test_capture_mode_stores_each_figure_and_names_its_container(shipped_folder, tmp_path, monkeypatch):
    fp = ship_first_figure(shipped_folder)
    captured = tmp_path / "captured"
    monkeypatch.setenv(pictures.CAPTURE, str(captured))
    at = AppTest.from_string(SCRIPT, default_timeout=60).run()
    assert not at.exception and len(at.get("image")) == 0 and len(at.get("plotly_chart")) == 2  # charts, to measure
    stored = sorted(p.stem for p in captured.glob("*.json"))
    assert fp in stored and len(stored) == 2
    assert sorted(p.stem for p in captured.glob("*.npz")) == stored           # each with the floats it is matched by
    with np.load(captured / f"{fp}.npz") as floats:
        y = np.linspace(0.0, 1.0, 50) ** 2
        assert any(np.array_equal(floats[k], y) for k in floats.files)
    spec = json.loads((captured / f"{fp}.json").read_text())
    assert spec["data"][0]["name"] == "square"
    assert at.get_by_key(f"pic-{fp}-0") is not None


FOLDED_SCRIPT = """
import numpy as np
import plotly.graph_objects as go
from app.ui import pictures
from app.ui.plots import show

import streamlit as st
pictures.begin_run("demo")
y = np.linspace(0.0, 1.0, 50) ** st.session_state.get("power", 2)
show(go.Figure(go.Scatter(x=np.arange(50), y=y, name="square")), key="chart-a")
if not pictures.first_screen():
    st.markdown("below the first screen")
    show(go.Figure(go.Bar(x=["a", "b"], y=[3, 1])), key="chart-b")
pictures.upgrade_soon()
"""


def below(at) -> bool:
    return any(m.value == "below the first screen" for m in at.markdown)


def test_a_first_view_stops_at_its_first_screen_and_the_upgrade_draws_the_rest(shipped_folder):
    ship_first_figure(shipped_folder)
    at = AppTest.from_string(FOLDED_SCRIPT, default_timeout=60).run()
    assert not at.exception and not below(at) and slot(at, "chart-a") == ["image"]
    assert at.session_state[pictures.ELIGIBLE] is True
    at.run()                                                          # the upgrade
    assert not at.exception and below(at) and len(at.get("plotly_chart")) == 2
    assert at.session_state[pictures.ELIGIBLE] is False
    # control: an interactive session draws the whole page at once
    whole = AppTest.from_string(FOLDED_SCRIPT, default_timeout=60)
    whole.session_state[pictures.INTERACTIVE] = True
    whole.run()
    assert below(whole) and whole.session_state[pictures.ELIGIBLE] is False


def test_a_first_view_cut_short_is_upgraded_even_when_no_picture_matched(shipped_folder):
    ship_first_figure(shipped_folder)
    at = AppTest.from_string(FOLDED_SCRIPT, default_timeout=60)
    at.session_state["power"] = 3                  # another figure (a seed in the URL): drawn as a chart at once
    at.run()
    assert not at.exception and not below(at) and at.session_state[pictures.DRAWN] == []
    at.run()
    assert below(at), "the rest of the page never came"


def test_capture_records_the_first_screen(shipped_folder, tmp_path, monkeypatch):
    ship_first_figure(shipped_folder)
    monkeypatch.setenv(pictures.CAPTURE, str(tmp_path / "captured"))
    at = AppTest.from_string(FOLDED_SCRIPT, default_timeout=60).run()
    assert not at.exception and not below(at) and len(list((tmp_path / "captured").glob("*.json"))) == 1
    at.run()
    assert not below(at)                           # ship time has no upgrade: it captures what a first view draws
