"""The driving_world_model page through AppTest: the shipped first view and the live run's controls."""

import numpy as np

from core.driving_world_model.views import shipped_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("driving_world_model", timeout=60, **params)


def test_default_view_draws_the_shipped_curves_fan_probes_and_rollout():
    at = open_page()
    assert at.title[0].value == "Hierarchical driving world model"
    view = shipped_view()
    charts = apptest.charts(at)
    assert {"chart-rollout", "chart-horizon", "chart-fan", "chart-probes"} <= set(charts)
    horizon = charts["chart-horizon"]["data"]
    assert len(horizon) == len(view.variants)
    np.testing.assert_allclose(apptest.values(horizon[0], "y"), view.iou[0], rtol=1e-6)
    fan = charts["chart-fan"]["data"]
    np.testing.assert_allclose(apptest.values(fan[0], "y"), view.fan_generated[0], rtol=1e-6)
    assert len(charts["chart-rollout"]["frames"]) == view.gt_frames.shape[1]
    assert any(b.label == "Fine-tune with teacher forcing" for b in at.button)
    table = at.table[0].value
    assert np.allclose(table["steering ρ"].to_numpy(dtype=float), np.round(view.spearman, 3))


def test_url_controls_pick_the_rollout_and_curve_and_a_bad_link_value_is_reported():
    at = open_page(variant="hierarchical DF→TF", metric="MSE", episode="1")
    view = shipped_view()
    charts = apptest.charts(at)
    assert "hierarchical DF→TF" in charts["chart-rollout"]["layout"]["title"]["text"]
    np.testing.assert_allclose(apptest.values(charts["chart-horizon"]["data"][1], "y"), view.mse[1], rtol=1e-6)
    bad = open_page(ctx_noise="0.9")
    assert any("ctx_noise" in w.value for w in bad.warning)
