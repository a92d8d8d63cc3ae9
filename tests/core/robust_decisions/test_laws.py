"""Error laws: their RMSE, the worst-case search against a direct evaluation, and the search's claim."""

import numpy as np
import pytest

from core.robust_decisions import (PROBLEMS, SettingConfig, average_excess, expected_excess, make_setting,
                                   three_point_law, worst_case_law)
from core.robust_decisions.contextual import draw_errors, searched_law, typical_range
from core.robust_decisions.laws import RADIUS_SPREAD

pytestmark = pytest.mark.claim


def states_for(problem, n=2000):
    lo, hi = typical_range(problem)
    return np.random.default_rng(0).uniform(lo, hi, n)


def theory_eps(problem, eta, state_max=10.0):
    return float(problem.theory_eps(eta, problem.loss_bound(state_max)))


@pytest.mark.parametrize("key", list(PROBLEMS))
def test_the_searched_law_has_mean_zero_and_the_requested_rmse(key):
    problem = PROBLEMS[key]
    lo, hi = typical_range(problem)
    for eta in (0.002, 0.05, 0.4):
        law = worst_case_law(problem, eta, states_for(problem), theory_eps(problem, eta), width=(hi - lo) / 2)
        assert law.probs.min() >= 0 and law.probs.sum() == pytest.approx(1.0)
        assert law.mean == pytest.approx(0.0, abs=1e-12) and law.rmse == pytest.approx(eta, rel=1e-9)
        sample = law.sample(200_000, np.random.default_rng(1))
        assert set(np.unique(sample)) <= set(law.points)
        assert np.sqrt(np.mean(sample**2)) == pytest.approx(eta, rel=0.05)


@pytest.mark.parametrize("key", list(PROBLEMS))
def test_the_separable_objective_equals_a_direct_evaluation_and_beats_random_laws(key):
    """The search's value is the policy's loss under the law it returns, computed point by point;
    no law drawn at random from the same family does better than the grid's best (to a grid step)."""
    problem = PROBLEMS[key]
    lo, hi = typical_range(problem)
    states, eta = states_for(problem), 0.03
    eps = theory_eps(problem, eta)
    actions = problem.robust_action(states, eps)
    law = worst_case_law(problem, eta, states, eps, width=(hi - lo) / 2)
    assert expected_excess(problem, actions, states, law) == pytest.approx(law.objective, rel=1e-9)
    rng = np.random.default_rng(2)
    for _ in range(200):
        d1 = float(np.exp(rng.uniform(np.log(eta / 100), np.log((hi - lo) / 2))))
        d2 = float(np.exp(rng.uniform(np.log(max(eta / 100, eta**2 / d1)), np.log((hi - lo) / 2))))
        p1, p2 = eta**2 / (d1 * (d1 + d2)), eta**2 / (d2 * (d1 + d2))
        candidate = type(law)(np.array([-d1, 0.0, d2]), np.array([p1, 1 - p1 - p2, p2]))
        assert expected_excess(problem, actions, states, candidate) <= 1.06 * law.objective


@pytest.mark.parametrize("key", list(PROBLEMS))
def test_the_search_finds_a_law_at_least_as_bad_as_the_three_point_law(key):
    """In the surrogate the search maximises over, and in the contextual experiment itself."""
    problem = PROBLEMS[key]
    lo, hi = typical_range(problem)
    states = states_for(problem)
    for eta in (0.003, 0.03, 0.3):
        eps = theory_eps(problem, eta)
        actions = problem.robust_action(states, eps)
        found = worst_case_law(problem, eta, states, eps, width=(hi - lo) / 2)
        three = three_point_law(eta, max(eta, 1.25 * eps))
        assert found.objective >= expected_excess(problem, actions, states, three)
    for noise in (0.01, 0.1):
        cfg = dict(problem=key, noise=noise, n_train=1000, n_val=1000, n_test=8000)
        worst = make_setting(SettingConfig(error_law="worst_case", **cfg), seed=0)
        three = make_setting(SettingConfig(error_law="three_point", **cfg), seed=0)
        assert average_excess(worst, "robust_theory").mean >= average_excess(three, "robust_theory").mean
        assert worst.law is not None and three.law is None


def test_control_against_follow_the_search_finds_the_constant_cliff():
    """Searched against eps = 0 (following the prediction) in pricing, the worst law costs about
    the average value at every eta: the brittleness, found by the same search."""
    problem = PROBLEMS["posted_pricing"]
    states = states_for(problem)
    follow = problem.follow_prediction(states)
    values = [expected_excess(problem, follow, states, worst_case_law(problem, eta, states, 0.0, width=3.0))
              for eta in (0.001, 0.01, 0.1)]
    np.testing.assert_allclose(values, states.mean(), rtol=0.05)
    robust = [worst_case_law(problem, eta, states, theory_eps(problem, eta), width=3.0).objective
              for eta in (0.001, 0.01, 0.1)]
    assert robust[0] < 0.1 * robust[2] < 0.1 * values[2]


def test_searched_law_guards_the_spread_of_theory_radii_of_its_setting():
    problem = PROBLEMS["house_flipping"]
    states = states_for(problem)
    law = searched_law(problem, 0.05, 10.0, states)
    radii = [theory_eps(problem, rho * 0.05) for rho in RADIUS_SPREAD]
    direct = worst_case_law(problem, 0.05, states, radii, width=3.0)
    np.testing.assert_array_equal(law.points, direct.points)
    # Its mass sits outside every radius it guards against, so an estimate of eta off by 30% still pays.
    assert max(abs(law.points[0]), law.points[2]) > max(radii)


def test_student_t_law_has_the_rmse_and_heavier_tails_than_gaussian():
    problem, rng = PROBLEMS["posted_pricing"], np.random.default_rng(3)
    t = draw_errors(2_000_000, 0.1, "student_t", problem, 10.0, 0.25, rng)
    g = draw_errors(2_000_000, 0.1, "gaussian", problem, 10.0, 0.25, rng)
    assert np.sqrt(np.mean(t**2)) == pytest.approx(0.1, rel=0.05)
    assert np.mean(np.abs(t) > 0.4) > 5 * np.mean(np.abs(g) > 0.4)


def test_an_unknown_law_is_refused():
    with pytest.raises(ValueError, match="^error_law: 'cauchy' is not an option"):
        draw_errors(10, 0.1, "cauchy", PROBLEMS["posted_pricing"], 10.0, 0.25, np.random.default_rng(0))
