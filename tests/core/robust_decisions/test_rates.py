"""The rate experiment: slope fitting, the 2/3 rate under the worst-case law, stopping, the shipped asset."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.robust_decisions import RateConfig, fit_slope, rate_experiment
from core.robust_decisions.assets import shipped_rates


def test_fit_slope_recovers_a_power_law_and_its_interval_covers():
    rng = np.random.default_rng(0)
    eta = np.geomspace(1e-3, 1e-1, 30)
    loss = 2.0 * eta ** (2 / 3) * np.exp(rng.normal(0, 0.05, eta.size))
    s = fit_slope(eta, loss)
    assert s.low < 2 / 3 < s.high and s.high - s.low < 0.05
    assert s.slope == pytest.approx(np.polyfit(np.log(eta), np.log(loss), 1)[0])


def test_pricing_worst_case_rate_is_two_thirds_and_follow_has_a_floor():
    cfg = RateConfig(problem="posted_pricing", error_law="three_point", n_points=5, replicates=1,
                     n_train=1000, n_val=1000, n_test=8000, eta_min=0.003, eta_max=0.3)
    result = rate_experiment(cfg, seed=3)
    theory = result.slopes["robust_theory"]
    assert 0.55 < theory.slope < 0.8
    assert result.slopes["follow"].slope < 0.25 and result.floor["follow"] > 1.0
    assert np.all(result.losses["robust_theory"] <= result.bound[:, None])


def test_stopping_returns_what_was_done():
    log = ProgressLog(stop_after=3)
    cfg = RateConfig(n_points=4, replicates=2, n_train=300, n_val=300, n_test=1000)
    result = rate_experiment(cfg, seed=0, progress=log)
    assert log.steps == [1, 2, 3] and log.totals == [8, 8, 8]
    assert result.points_done == 2  # the second point is half done; its first replicate is kept
    assert np.isfinite(result.eta[:1]).all() and np.isfinite(result.eta[1, 0]) and np.isnan(result.eta[1, 1])
    assert np.isnan(result.eta[2:]).all() and np.isfinite(result.bound[:2]).all() and np.isnan(result.bound[2:]).all()
    assert len(result.to_frame()) == 3 * len(result.losses)  # three finished runs


def test_rate_config_validates():
    with pytest.raises(ValueError, match="^eta_max: 0.01 must exceed eta_min"):
        RateConfig(eta_min=0.1, eta_max=0.01)


def test_shipped_asset_is_what_the_code_computes():
    shipped = shipped_rates("house_flipping", "three_point")
    fresh = rate_experiment(RateConfig(problem="house_flipping", error_law="three_point"), seed=0)
    np.testing.assert_allclose(shipped.eta, fresh.eta, rtol=1e-9)
    for policy in fresh.losses:
        np.testing.assert_allclose(shipped.losses[policy], fresh.losses[policy], rtol=1e-9)
        assert shipped.slopes[policy].slope == pytest.approx(fresh.slopes[policy].slope, rel=1e-9)
