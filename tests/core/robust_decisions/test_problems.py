"""Closed forms against a brute-force minimax, and the problems' defining properties."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from core.robust_decisions import (PROBLEMS, HouseFlipping, PostedPricing, SkiRental, grid_minimax, make_problem,
                                   problem_for)

N_GRID = 801
# Every problem, and ski rental under its second optimal tie-break as well.
INSTANCES = {**PROBLEMS, "ski_rental:never_buy": problem_for("ski_rental", "never_buy")}


def random_instances(problem, rng, n=60):
    low, high = problem.state_domain()
    top = min(high, 20.0)
    for _ in range(n):
        s_hat = rng.uniform(low, top)
        eps = rng.choice([0.0, rng.uniform(0, 0.5), rng.uniform(0, 6.0)])
        yield float(s_hat), float(eps)


@pytest.mark.parametrize("key", list(INSTANCES))
def test_closed_form_matches_brute_force_minimax(key):
    problem = INSTANCES[key]
    rng = np.random.default_rng(7)
    for s_hat, eps in random_instances(problem, rng):
        low, high = (float(x) for x in problem.ball(s_hat, eps))
        a_lo, a_hi = problem.action_grid_range(low, high)
        # One grid step in states and actions, times the loss's slope (<= 1 per unit here).
        tol = 2.5 * ((high - low) / (N_GRID - 1) + (a_hi - a_lo) / (N_GRID - 1)) + 1e-12
        brute = grid_minimax(problem, s_hat, eps, N_GRID, N_GRID).worst
        gap = float(problem.robust_gap(s_hat, eps))
        assert gap == pytest.approx(brute, abs=tol), (s_hat, eps)
        # The closed-form action really attains the gap over a much finer grid of states.
        states = np.linspace(low, high, 20_001)
        worst = problem.excess_loss(problem.robust_action(s_hat, eps), states).max()
        assert worst <= gap + 1e-9
        assert worst >= gap - 2 * (high - low) / 20_000 - 1e-9


@pytest.mark.parametrize("key", list(INSTANCES))
def test_excess_loss_is_nonnegative_and_zero_at_the_best_action(key):
    problem = INSTANCES[key]
    rng = np.random.default_rng(1)
    low, high = problem.state_domain()
    s = rng.uniform(low, min(high, 20.0), 500)
    a = rng.uniform(0, min(high, 25.0), 500)
    assert (problem.excess_loss(a[:, None], s[None, :]) >= 0).all()
    np.testing.assert_array_equal(problem.excess_loss(problem.best_action(s), s), 0.0)
    np.testing.assert_array_equal(problem.follow_prediction(s), problem.best_action(s))


@pytest.mark.parametrize("key", list(INSTANCES))
def test_vectorised_equals_scalar(key):
    problem = INSTANCES[key]
    s_hat = np.array([[1.0, 4.0, 7.5], [2.0, 9.0, 5.0]])
    eps = np.array([0.0, 0.4, 3.0])
    actions = problem.robust_action(s_hat, eps)
    assert actions.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            assert actions[i, j] == float(problem.robust_action(s_hat[i, j], eps[j]))
            assert problem.robust_gap(s_hat, eps)[i, j] == float(problem.robust_gap(s_hat[i, j], eps[j]))


def test_pricing_closed_form_in_terms_of_the_prediction():
    p = PostedPricing()
    for v_hat, eps in [(5.0, 0.5), (5.0, 5 / 3), (5.0, 2.0), (3.0, 4.0)]:
        expected = (v_hat - eps, 2 * eps) if eps <= v_hat / 3 else ((v_hat + eps) / 2, (v_hat + eps) / 2)
        assert float(p.robust_action(v_hat, eps)) == pytest.approx(expected[0])
        assert float(p.robust_gap(v_hat, eps)) == pytest.approx(expected[1])


@pytest.mark.parametrize("key, s_hat, just_past", [("posted_pricing", 5.0, -1e-6), ("ski_rental", 5.0, 1e-6),
                                                   ("house_flipping", 5.0, 1e-6)])
def test_following_the_prediction_is_brittle_and_robust_is_not(key, s_hat, just_past):
    """A state a hair from the prediction costs follow-the-prediction a constant; robust pays <= c*eps."""
    problem = PROBLEMS[key]
    cliff = float(problem.excess_loss(problem.follow_prediction(s_hat), s_hat + just_past))
    assert cliff > 4.9  # the value (5), the buy cost (10) or the margin R - s (5)
    for eps in (0.1, 0.01, 0.001):
        assert float(problem.robust_gap(s_hat, eps)) <= problem.gap_slope * eps + 1e-12


def test_house_flipping_is_pricing_mirrored_about_the_resale_value():
    R = 10.0
    house, pricing = HouseFlipping(R), PostedPricing()
    rng = np.random.default_rng(3)
    a, s = rng.uniform(0, R, 400), rng.uniform(0, R, 400)
    np.testing.assert_allclose(house.excess_loss(a, s), pricing.excess_loss(R - a, R - s))
    for s_hat, eps in zip(rng.uniform(1, R, 50), rng.uniform(0, 1, 50)):
        if s_hat - eps >= 0:  # then the mirrored pricing ball is not clipped either
            assert float(house.robust_gap(s_hat, eps)) == pytest.approx(float(pricing.robust_gap(R - s_hat, eps)))
            assert float(house.robust_action(s_hat, eps)) == pytest.approx(R - float(pricing.robust_action(R - s_hat, eps)))


def test_ski_rental_costs_and_both_tie_breaks():
    early, never = SkiRental(buy_cost=10.0), SkiRental(buy_cost=10.0, tie_break="never_buy")
    assert float(early.loss(4.0, 3.0)) == 3.0 and float(early.loss(4.0, 6.0)) == 14.0
    assert float(early.follow_prediction(4.0)) == 4.0  # rent for the predicted season, buy if it runs over
    assert float(never.follow_prediction(4.0)) == np.inf  # the other optimal action: never buy
    for ski in (early, never):
        assert float(ski.follow_prediction(12.0)) == 0.0  # a long season: buying at once is the only optimum
        assert float(ski.loss(ski.follow_prediction(4.0), 4.0)) == 4.0  # both are optimal for s = 4
        assert float(ski.robust_gap(9.5, 1.0)) == pytest.approx(0.5)
    assert float(early.robust_action(4.0, 1.0)) == 5.0  # the earliest day that never buys inside the ball
    assert float(never.robust_action(4.0, 1.0)) == np.inf
    assert float(never.robust_gap(4.0, 1.0)) == float(early.robust_gap(4.0, 1.0)) == 0.0


def test_ski_rental_brittleness_depends_on_the_tie_break():
    """Under "earliest_buy" a season a hair longer than predicted costs b; under "never_buy" following
    the prediction is 1-Lipschitz in the error, so the same tiny error costs almost nothing."""
    early, never = SkiRental(buy_cost=10.0), SkiRental(buy_cost=10.0, tie_break="never_buy")
    s_hat = np.linspace(0.5, 19.5, 400)
    for r in (0.1, 0.01, 0.001):
        offsets = np.linspace(-r, r, 41)
        states = np.clip(s_hat[:, None] + offsets[None, :], 0, None)
        worst_early = early.excess_loss(early.follow_prediction(s_hat)[:, None], states).max(axis=1)
        worst_never = never.excess_loss(never.follow_prediction(s_hat)[:, None], states).max(axis=1)
        assert worst_early[s_hat < 10 - r].min() >= 10.0 - r     # every ŝ < b has the cliff, whatever r
        assert worst_never.max() <= r + 1e-9                     # never more than the error itself


def test_ski_rental_tie_break_is_validated():
    with pytest.raises(ValueError, match="^tie_break: 'latest' is not an option; allowed 'earliest_buy', 'never_buy'$"):
        SkiRental(tie_break="latest")
    with pytest.raises(ValueError, match="^tie_break: 'latest' is not an option"):
        problem_for("ski_rental", "latest")
    assert problem_for("posted_pricing", "never_buy") is PROBLEMS["posted_pricing"]  # unique optimum: no tie


@pytest.mark.parametrize("key", list(PROBLEMS))
def test_theory_eps_minimises_the_bound(key):
    problem = PROBLEMS[key]
    for eta, B in [(0.01, 10.0), (0.2, 3.0)]:
        objective = lambda e: problem.gap_slope * e + B * eta**2 / e**2  # noqa: E731
        numeric = minimize_scalar(objective, bounds=(1e-6, 100), method="bounded", options={"xatol": 1e-10}).x
        assert float(problem.theory_eps(eta, B)) == pytest.approx(numeric, rel=1e-4)
        assert float(problem.bound_value(eta, B)) == pytest.approx(objective(numeric), rel=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: PROBLEMS["posted_pricing"].robust_action(5.0, -0.1), r"^eps: -0\.1 is out of range; allowed finite numbers >= 0$"),
    (lambda: PROBLEMS["posted_pricing"].robust_gap(5.0, float("nan")), r"^eps: NaN is not allowed"),
    (lambda: PROBLEMS["posted_pricing"].robust_action(-1.0, 0.1), r"^prediction: -1 is outside the buyer's value domain; allowed \[0, inf\]$"),
    (lambda: PROBLEMS["house_flipping"].robust_action(12.0, 0.1), r"^prediction: 12 is outside the seller's reserve price domain; allowed \[0, 10\]$"),
    (lambda: PROBLEMS["ski_rental"].excess_loss(1.0, float("nan")), r"^state: NaN is not allowed"),
    (lambda: SkiRental(buy_cost=0.0), r"^buy_cost: 0 is out of range; allowed > 0$"),
    (lambda: SkiRental(buy_cost=-2), r"^buy_cost: -2 is out of range; allowed > 0$"),
    (lambda: HouseFlipping(resale_value=float("nan")), r"^resale_value: nan is not finite"),
    (lambda: make_problem("newsvendor"), r"^problem: 'newsvendor' is not an option"),
])
def test_bad_input_is_refused_with_the_field_and_range(call, message):
    with pytest.raises(ValueError, match=message):
        call()
