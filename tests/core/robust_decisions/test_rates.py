"""The rate experiment: slope fitting, the 2/3 rate under the worst-case law, stopping, the shipped asset."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.robust_decisions import ERROR_LAWS, RateConfig, fit_slope, problem_for, rate_cell, rate_experiment
from core.robust_decisions.rates import _result
from core.robust_decisions.ship import CASES, SEED, case_key, rate_from_dict, shipped_bundle


def test_fit_slope_recovers_a_power_law_and_its_interval_covers():
    rng = np.random.default_rng(0)
    eta = np.geomspace(1e-3, 1e-1, 30)
    loss = 2.0 * eta ** (2 / 3) * np.exp(rng.normal(0, 0.05, eta.size))
    s = fit_slope(eta, loss)
    assert s.low < 2 / 3 < s.high and s.high - s.low < 0.05
    assert s.slope == pytest.approx(np.polyfit(np.log(eta), np.log(loss), 1)[0])


@pytest.mark.claim
@pytest.mark.parametrize("key", ["posted_pricing", "house_flipping"])
def test_claim_rate_under_the_searched_worst_law_is_two_thirds_and_a_fixed_radius_is_not(key):
    """Under a law found by search (not built from eps*), the theory policy's slope is near 2/3 and
    never above the bound; the control, a fixed radius, does not fall with eta."""
    cfg = RateConfig(problem=key, error_law="worst_case", n_points=5, replicates=1,
                     n_train=1000, n_val=1000, n_test=8000, eta_min=0.003, eta_max=0.3)
    result = rate_experiment(cfg, seed=3)
    theory = result.slopes["robust_theory"]
    assert 0.5 < theory.slope < 0.85
    assert np.all(result.losses["robust_theory"] <= result.bound_at(result.eta))
    assert result.slopes["robust"].slope < 0.3


@pytest.mark.claim
def test_ski_rental_rate_depends_on_the_tie_break():
    """Under Gaussian errors, following is flat at ~2.4 with "earliest_buy" and falls like eta^2 with "never_buy"."""
    cfg = dict(problem="ski_rental", error_law="gaussian", n_points=4, replicates=1, n_train=500, n_val=500,
               n_test=8000, eta_min=0.01, eta_max=0.3)
    early = rate_experiment(RateConfig(**cfg), seed=0)
    never = rate_experiment(RateConfig(tie_break="never_buy", **cfg), seed=0)
    assert abs(early.slopes["follow"].slope) < 0.2 and early.floor["follow"] > 1.0
    assert never.slopes["follow"].slope > 1.5 and never.floor["follow"] < 1e-3


def test_stopping_returns_what_was_done():
    log = ProgressLog(stop_after=3)
    cfg = RateConfig(n_points=4, replicates=2, n_train=300, n_val=300, n_test=1000, error_law="gaussian")
    result = rate_experiment(cfg, seed=0, progress=log)
    assert log.steps == [1, 2, 3] and log.totals == [8, 8, 8]
    assert result.points_done == 2  # the second point is half done; its first replicate is kept
    assert np.isfinite(result.eta[:1]).all() and np.isfinite(result.eta[1, 0]) and np.isnan(result.eta[1, 1])
    assert np.isnan(result.eta[2:]).all() and np.isfinite(result.bound[:2]).all() and np.isnan(result.bound[2:]).all()
    assert len(result.to_frame()) == 3 * len(result.losses)  # three finished runs


def test_rate_config_validates():
    with pytest.raises(ValueError, match="^eta_max: 0.01 must exceed eta_min"):
        RateConfig(eta_min=0.1, eta_max=0.01)


# One cell of every shipped case (and two more of the costliest one), at spread-out levels; the bench
# recomputes every cell of every case and reports the largest relative difference (bench/results).
CELLS = {case_key(p, tb, law): [(k % 10, (3 * k) % 5)] for k, (p, tb, law) in
         enumerate((p, tb, law) for p, tb in CASES for law in ERROR_LAWS)}
CELLS["posted_pricing/worst_case"] += [(0, 0), (9, 4)]


@pytest.mark.parametrize("case", sorted(CELLS))
def test_shipped_asset_is_what_a_fresh_run_computes(case):
    """Cells of the shipped bench-scale run, recomputed alone from their child seeds (same seed), and the
    slopes, floors and bounds recomputed from the shipped points by the same code as a fresh run."""
    shipped = rate_from_dict(shipped_bundle()[case])
    assert shipped.config == RateConfig(problem=shipped.config.problem, tie_break=shipped.config.tie_break,
                                        error_law=shipped.config.error_law)  # the default (bench) scale
    for i, r in CELLS[case]:
        cell = rate_cell(shipped.config, SEED, i, r)
        assert shipped.eta[i, r] == pytest.approx(cell.eta, rel=1e-9)
        assert set(cell.losses) == set(shipped.losses)
        for policy, loss in cell.losses.items():
            assert shipped.losses[policy][i, r] == pytest.approx(loss, rel=1e-9, abs=1e-15)
        if shipped.config.problem == "posted_pricing":
            assert shipped.ric_bound[i, r] == pytest.approx(cell.ric_bound, rel=1e-9)
        else:
            assert np.isnan(cell.ric_bound) and np.isnan(shipped.ric_bound).all()
    again = _result(shipped.config, shipped.noise, shipped.eta, shipped.losses, shipped.points_done,
                    problem_for(shipped.config.problem, shipped.config.tie_break), shipped.loss_bound_B,
                    shipped.ric_bound)
    for policy, s in shipped.slopes.items():
        for field in ("slope", "low", "high", "intercept"):
            assert getattr(s, field) == pytest.approx(getattr(again.slopes[policy], field), rel=1e-9, nan_ok=True)
        assert shipped.floor[policy] == pytest.approx(again.floor[policy], rel=1e-9)
    np.testing.assert_allclose(shipped.bound, again.bound, rtol=1e-9)


def test_control_another_seed_is_not_the_shipped_run():
    """The comparison above can fail: the same cell under another seed differs from the shipped one."""
    shipped = rate_from_dict(shipped_bundle()["house_flipping/gaussian"])
    cell = rate_cell(shipped.config, SEED + 1, 4, 2)
    assert cell.losses["robust_theory"] != pytest.approx(shipped.losses["robust_theory"][4, 2], rel=1e-6)


def test_every_case_is_shipped():
    bundle = shipped_bundle()
    assert set(bundle) == {case_key(p, tb, law) for p, tb in CASES for law in ERROR_LAWS}
