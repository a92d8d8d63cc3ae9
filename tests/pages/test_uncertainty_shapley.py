"""The uncertainty_shapley page through AppTest: the shipped attributions, the three games, the live offers."""

import numpy as np

from core.uncertainty_shapley.ship import shipped_views
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("uncertainty_shapley", timeout=60, **params)


def trace(fig, name):
    return next(t for t in fig["data"] if t.get("name") == name)


def test_default_view_draws_the_shipped_games_cross_terms_and_chain_rule():
    at = open_page()
    assert at.title[0].value == "Shapley values for multivariate uncertainty"
    shipped = shipped_views()["attributions"]["macro_linear"]
    charts = apptest.charts(at)
    assert {"chart-games", "chart-cross", "chart-chain", "chart-error"} <= set(charts)
    games = charts["chart-games"]
    assert [t["name"] for t in games["data"]] == ["marginal Σⱼ H(Yⱼ | X_S)", "chain Σⱼ H(Yⱼ | Yⱼ₋₁…, X_S)",
                                                   "joint H(Y | X_S)"]
    for g, t in enumerate(games["data"]):
        np.testing.assert_allclose(apptest.values(t), shipped["phi"][g])
    np.testing.assert_allclose(apptest.values(charts["chart-cross"]["data"][0]), shipped["cross"])
    chain = charts["chart-chain"]
    parts = [apptest.values(t) for t in chain["data"] if t["name"].startswith("H(")]
    assert len(parts) == 4
    np.testing.assert_allclose(np.sum(parts, axis=0), apptest.values(trace(chain, "joint φᵢ (sum)")), atol=1e-12)
    tc = next(m for m in at.metric if m.label.startswith("TC(Y)"))
    assert tc.value.startswith(f"{shipped['tc_prior'] - shipped['tc_conditional']:.3f}")
    assert "shipped attribution" in " ".join(c.value for c in at.caption)
    assert any(b.label == "Measure the estimators" for b in at.button)


def test_a_torch_model_shows_its_shipped_view_and_offers_retraining():
    at = open_page(model="Macrodata: torch forecaster, diagonal covariance")
    shipped = shipped_views()["attributions"]["macro_torch_diagonal"]
    np.testing.assert_allclose(apptest.values(apptest.charts(at)["chart-games"]["data"][2]), shipped["phi"][2])
    assert abs(shipped["tc_conditional"]) < 1e-9        # a diagonal head has no dependence left given all features
    assert any(b.label == "Train and attribute" for b in at.button)


def test_changed_estimator_offers_a_live_run_and_closed_form_on_a_network_is_an_error():
    at = open_page(estimator="k-NN (Kozachenko–Leonenko)")
    assert any(b.label == "Compute these attributions" for b in at.button)
    at = open_page(method="permutation sampling (200 orderings, ±2 s.e.)")
    assert any(b.label == "Compute these attributions" for b in at.button)
    assert "shipped attribution" in " ".join(c.value for c in at.caption)     # until the visitor runs it
    at = open_page(model="Macrodata: torch forecaster, full covariance", estimator="closed form (linear-Gaussian)")
    assert at.error and at.error[0].value.startswith("estimator: 'closed_form' needs a linear-Gaussian model")
