"""core/occupancy_irl/features.py: the linear reward class, its two methods, and the MaxEnt optimum they reach
(checked against scipy's BFGS on the dual)."""

import numpy as np
import pytest
from scipy.optimize import minimize

from core.occupancy_irl.experiment import dual_gradient_gaps, make_problem
from core.occupancy_irl.features import feature_study, natural_gaps, random_features, representation_residual
from core.occupancy_irl.mdp import random_mdp
from core.occupancy_irl.soft import fisher, occupancy, shaping_basis, soft_solve

MDP = random_mdp(6, 3, 0.9, seed=11)
PROB = make_problem(MDP, beta=1.0)
PHI = random_features(MDP, 5, seed=3)


def _rho(w):
    return occupancy(MDP, soft_solve(MDP, (PHI @ w).reshape(6, 3)).policy)


def test_features_are_unit_columns_and_bad_sizes_name_the_field():
    assert PHI.shape == (18, 5) and np.allclose(np.linalg.norm(PHI, axis=0), 1)
    for d in (0, 18):
        with pytest.raises(ValueError, match="d: .* allowed 1 <= d < 18"):
            random_features(MDP, d, seed=0)


def test_the_residual_is_zero_inside_the_class_plus_shaping_and_not_for_log_pi_e():
    inside = (PHI @ np.array([1.0, -2, 0.5, 0, 3]) + shaping_basis(MDP) @ np.arange(6.0)).reshape(6, 3)
    assert representation_residual(MDP, PHI, inside) < 1e-12
    assert representation_residual(MDP, PHI, PROB.r_target) > 0.1


def test_the_preconditioned_step_reaches_the_maxent_optimum_that_bfgs_finds_and_it_is_not_the_expert():
    def dual(w):   # (1 - gamma) p0 . V(Phi w) - w . Phi^T rho_E, whose gradient is Phi^T (rho_w - rho_E)
        r = (PHI @ w).reshape(6, 3)
        return (1 - MDP.gamma) * MDP.p0 @ soft_solve(MDP, r).V - w @ (PHI.T @ PROB.rho_expert.ravel())

    ref = minimize(dual, np.zeros(5), jac=lambda w: PHI.T @ (_rho(w) - PROB.rho_expert).ravel(), method="BFGS",
                   options={"gtol": 1e-12})
    gaps = natural_gaps(MDP, PHI, PROB.rho_expert, PROB.rho_expert, [0.5, 1.0], 60)
    assert gaps[:, -1].max() < 1e-9                          # both reach the feature-matching optimum
    # the run's own optimum is BFGS's: replay eta = 1 (Newton) and compare occupancies
    w = np.zeros(5)
    for _ in range(30):
        r = (PHI @ w).reshape(6, 3)
        rho = occupancy(MDP, soft_solve(MDP, r).policy)
        w = w - np.linalg.lstsq(PHI.T @ fisher(MDP, r) @ PHI, PHI.T @ (rho - PROB.rho_expert).ravel(), rcond=None)[0]
    assert np.abs(_rho(w) - _rho(ref.x)).sum() < 1e-6
    assert np.abs(_rho(w) - PROB.rho_expert).sum() > 1e-3    # the class cannot hold the expert: only features match


def test_the_contraction_near_the_optimum_is_one_minus_eta():
    gaps = natural_gaps(MDP, PHI, PROB.rho_expert, PROB.rho_expert, [0.3, 0.5, 0.8], 60)
    for eta, g in zip((0.3, 0.5, 0.8), gaps):
        tail = g[(g < 1e-3) & (g > 1e-10)]
        assert np.median(tail[1:] / tail[:-1]) == pytest.approx(1 - eta, abs=0.02)


def test_the_gradient_stops_at_the_tolerance_and_drops_a_diverging_step():
    out = dual_gradient_gaps(PROB, [8.0, 1e6], 3000, 1e-6, phi=PHI)
    finite = out[0][np.isfinite(out[0])]
    assert finite[-1] <= 1e-6 < finite[-2] and np.isnan(out[0, len(finite):]).all()
    assert np.nanmin(out[1]) > 1e-6 and np.isnan(out[1, -100:]).all()   # a huge step never gets there and is stopped


def test_the_study_reports_wins_rates_and_a_control_that_never_reaches_the_expert():
    s = feature_study(2, 6, 3, 5, etas=(0.5,), steps=(4.0, 16.0, 64.0), max_iters=800, natural_iters=80, seed=5)
    for row in s["rows"]:
        assert row["residual"] > 0.05 and row["iters_natural"]["0.5"] < np.inf
        assert row["rate_natural"]["0.5"] == pytest.approx(0.5, abs=0.1)
        assert row["control_iters"] == np.inf and row["control_min_gap"] > 1e-3
