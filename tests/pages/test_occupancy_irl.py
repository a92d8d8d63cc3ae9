"""The occupancy_irl page through AppTest: the shipped first view, its numbers, and a changed control."""

import numpy as np

from core.occupancy_irl.ship import shipped_run
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("occupancy_irl", timeout=60, **params)


def test_default_view_draws_the_shipped_gaps_maps_and_mirror_view():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Occupancy-space reward updates for IRL"
    run = shipped_run()
    charts = apptest.charts(at)
    assert {"chart-gap", "chart-maps", "chart-mirror"} <= set(charts)
    gap = charts["chart-gap"]
    interp = next(t for t in gap["data"] if t["name"].startswith("interpolation"))
    dual = next(t for t in gap["data"] if t["name"].startswith("dual gradient"))
    np.testing.assert_allclose(apptest.values(interp), np.maximum(run.gap_interp, 1e-16))
    np.testing.assert_allclose(apptest.values(dual), run.gap_dual)
    assert gap["layout"]["yaxis"]["type"] == "log"
    maps = charts["chart-maps"]["data"]
    assert len(maps) == 6      # per column: occupancy, then reward; columns dual, interpolation, expert
    np.testing.assert_allclose(apptest.values(maps[4], "z"), run.rho_expert.sum(-1).reshape(5, 5))
    np.testing.assert_allclose(apptest.values(maps[2], "z"), run.occupancy_interp[3].sum(-1).reshape(5, 5))
    first = next(float(m.value) for m in at.metric if m.label.startswith("One-step gap ratio"))
    assert abs(first - run.gap_interp[1] / run.gap_interp[0]) < 1e-3 and first < 1 - 0.3 + 0.05
    text = " ".join(m.value for m in at.markdown)
    assert "Iterations to 1e-6" in text and "shipped run" in " ".join(c.value for c in at.caption)


def test_the_iteration_slider_moves_the_maps():
    at = open_page(k="10")
    run = shipped_run()
    maps = apptest.charts(at)["chart-maps"]["data"]
    np.testing.assert_allclose(apptest.values(maps[0], "z"), run.occupancy_dual[10].sum(-1).reshape(5, 5))


def test_a_changed_control_offers_a_live_run_instead_of_the_shipped_view():
    at = open_page(env="random MDP", eta="0.6")
    assert not at.exception
    assert any(b.label == "Run both methods" for b in at.button)
    assert "shipped run" in " ".join(c.value for c in at.caption)      # until the visitor runs it
    at.button(key=next(b.key for b in at.button if b.label == "Run both methods")).click().run()
    for _ in range(30):
        if "your run" in " ".join(c.value for c in at.caption):
            break
        at.run()
    assert "your run" in " ".join(c.value for c in at.caption)
    gap = apptest.charts(at)["chart-gap"]
    interp = next(t for t in gap["data"] if t["name"].startswith("interpolation"))
    assert apptest.values(interp)[-1] < 1e-6 and interp["name"] == "interpolation (η = 0.6)"
