"""The hebbian_memory page through AppTest: the shipped first view, its numbers, and its controls."""

import numpy as np

from core.hebbian_memory.ship import shipped_summary, shipped_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("hebbian_memory", timeout=60, **params)


def test_default_view_draws_the_shipped_geometry_recall_and_surprise():
    at = open_page()
    assert at.title[0].value == "Hebbian ordinal geometry in working memory"
    view, summary = shipped_view(), shipped_summary()
    charts = apptest.charts(at)
    chunk1 = next(t for t in charts["chart-geometry"]["data"] if t.get("name") == "chunk 1")
    np.testing.assert_allclose(apptest.values(chunk1, "x"), view["geom_coords"][0][:3, 0])
    bars = charts["chart-recall"]["data"][0]
    np.testing.assert_allclose(apptest.values(bars, "y"),
                               [summary["recall"][n]["accuracy"] for n in ("plastic", "nonplastic", "lstm")])
    surprise = next(t for t in charts["chart-surprise"]["data"] if t.get("name") == "trained predictor")
    np.testing.assert_allclose(apptest.values(surprise, "y"), view["surprise"])
    heat = charts["chart-trace"]["data"][0]
    np.testing.assert_allclose(apptest.values(heat, "z"), view["trace"][8].astype(float), atol=1e-3)
    text = " ".join(m.value for m in at.markdown)
    assert f"{summary['geometry']['plastic']['cos_axes']:.2f}" in text
    assert any(b.label == "Run transfer" for b in at.button)
    metrics = {m.label: float(m.value) for m in at.metric}
    assert abs(metrics["Hebb-RNN"] - summary["recall"]["plastic"]["accuracy"]) < 0.006 and metrics["Hebb-RNN"] > 0.8
    assert metrics["α = 0 RNN"] < summary["recall"]["nonplastic"]["chance"] + 0.1


def test_a_linked_view_shows_the_control_network_in_3d_at_another_step():
    at = open_page(network="Untrained Hebb-RNN (control)", view="3-D", step="3")
    charts = apptest.charts(at)
    assert charts["chart-geometry"]["data"][0]["type"] == "scatter3d"
    assert "untrained Hebb-RNN" in " ".join(c.value for c in at.caption)
    assert "step 3" in charts["chart-trace"]["layout"]["title"]["text"]
    text = " ".join(m.value for m in at.markdown)
    assert f"{shipped_summary()['geometry']['untrained']['top2']:.0%}" in text
