"""Shapley values by enumeration and by permutation sampling: the axioms, brute force and shapiq's ExactComputer."""

from itertools import permutations

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.uncertainty_shapley import (AttributionConfig, EntropyGame, all_coalitions, attribute, exact_shapley,
                                      linear_gaussian, permutation_shapley, random_linear_gaussian,
                                      shapley_from_table)
from core.uncertainty_shapley.shapley import mask_index


def joint_game(model):
    game = EntropyGame(model, AttributionConfig())
    return lambda masks: game(masks).sum(-1)[:, 2]


def brute_force(table, d):
    """Shapley values as the mean marginal contribution over all d! orderings."""
    phi = np.zeros(d)
    orders = list(permutations(range(d)))
    for order in orders:
        mask = np.zeros(d, dtype=bool)
        for player in order:
            before = table[mask_index(mask)]
            mask[player] = True
            phi[player] += table[mask_index(mask)] - before
    return phi / len(orders)


def test_enumeration_equals_the_mean_over_all_orderings():
    rng = np.random.default_rng(0)
    table = rng.normal(size=2**5)
    np.testing.assert_allclose(shapley_from_table(table), brute_force(table, 5), atol=1e-12)
    assert all_coalitions(5).shape == (32, 5) and mask_index(all_coalitions(5)).tolist() == list(range(32))


def test_exact_shapley_equals_shapiq_exact_computer_on_the_joint_and_cross_games():
    from shapiq import ExactComputer

    model = random_linear_gaussian(6, 3, seed=1)
    game = EntropyGame(model, AttributionConfig())
    for reduce in (lambda t: t[:, 2], lambda t: t[:, 0] - t[:, 2]):       # joint game; TC game
        fn = lambda masks, reduce=reduce: reduce(game(masks).sum(-1))   # noqa: E731
        ours = exact_shapley(fn, 6).values
        theirs = ExactComputer(n_players=6, game=fn)("SV").get_n_order_values(1)
        np.testing.assert_allclose(ours, theirs, atol=1e-10)
        assert np.abs(ours).max() > 1e-2                                # a game with something to attribute


@pytest.mark.parametrize("game", ["marginal", "chain", "joint"])
def test_efficiency_every_game_sums_to_the_grand_minus_the_empty_coalition(game):
    model = random_linear_gaussian(7, 4, seed=2)
    a = attribute(model)
    g = ["marginal", "chain", "joint"].index(game)
    masks = np.array([np.zeros(7, bool), np.ones(7, bool)])
    v = EntropyGame(model, AttributionConfig())(masks).sum(-1)[:, g]
    assert abs(a.phi[g].sum() - (v[1] - v[0])) < 1e-10
    assert abs(v[1] - v[0]) > 0.5


def test_symmetry_exchangeable_features_get_equal_values_and_a_null_player_gets_zero():
    # X1 and X2 enter every output alike and are exchangeable in the feature law; X3 has no effect and is
    # independent of the rest: a null player in every game.
    coef = [[1.0, 1.0, 0.0, 0.5], [0.7, 0.7, 0.0, -1.0]]
    cov = np.array([[1, .4, 0, .2], [.4, 1, 0, .2], [0, 0, 1, 0], [.2, .2, 0, 1.]])
    a = attribute(linear_gaussian(coef, [[0.5, 0.2], [0.2, 0.4]], cov))
    np.testing.assert_allclose(a.phi[:, 0], a.phi[:, 1], atol=1e-12)
    np.testing.assert_allclose(a.phi[:, 2], 0.0, atol=1e-12)
    np.testing.assert_allclose(a.cross[2], 0.0, atol=1e-12)
    assert np.all(np.abs(a.phi[:, 0]) > 0.05) and abs(a.phi[2, 0] - a.phi[2, 3]) > 1e-3


def test_control_a_zero_coefficient_feature_correlated_with_others_is_not_null():
    """The game is observational: X3 tells about X1 through their correlation, so it is no null player."""
    cov = np.array([[1, 0, .8], [0, 1, 0], [.8, 0, 1.]])
    a = attribute(linear_gaussian([[1.0, 1.0, 0.0], [1.0, -1.0, 0.0]], 0.3 * np.eye(2), cov))
    assert np.all(a.phi[:, 2] < -0.05)


def test_permutation_sampling_is_efficient_and_within_its_standard_errors_of_exact():
    model = random_linear_gaussian(8, 3, seed=3)
    exact = attribute(model)
    sampled = attribute(model, AttributionConfig(method="permutation", n_permutations=300), seed=4)
    assert sampled.method == "permutation" and exact.method == "exact"
    np.testing.assert_allclose(sampled.phi.sum(1), exact.full - exact.empty, atol=1e-10)   # efficient per ordering
    z = (sampled.phi - exact.phi) / sampled.se
    assert np.all(sampled.se > 0) and np.all(np.abs(z) < 4.5) and np.mean(np.abs(z) < 2) > 0.75
    zc = (sampled.cross - exact.cross) / sampled.cross_se
    assert np.all(np.abs(zc) < 4.5)


def test_beyond_twelve_features_auto_switches_to_permutation_sampling():
    a = attribute(random_linear_gaussian(14, 2, seed=5), AttributionConfig(n_permutations=20))
    assert a.method == "permutation" and a.phi.shape == (3, 14)
    with pytest.raises(ValueError, match="^d: 13 players"):
        exact_shapley(lambda m: np.zeros(len(m)), 13)


def test_enumeration_and_sampling_stop_cleanly():
    model = random_linear_gaussian(6, 2, seed=0)
    log = ProgressLog(stop_after=3)
    assert attribute(model, progress=log) is None and log.steps == [1, 2, 3]
    log = ProgressLog(stop_after=4)
    a = attribute(model, AttributionConfig(method="permutation", n_permutations=100), progress=log)
    assert log.steps == [1, 2, 3, 4] and log.totals[0] == 50 and np.all(np.isfinite(a.phi))


def test_bad_inputs_name_the_field():
    with pytest.raises(ValueError, match="^n_permutations: 1 is out of range"):
        AttributionConfig(n_permutations=1)
    with pytest.raises(ValueError, match="^estimator: 'bogus' is not an option"):
        AttributionConfig(estimator="bogus")
    with pytest.raises(ValueError, match="^knn_k: 9 needs"):
        AttributionConfig(estimator="knn", knn_k=9, n_inner=9)
    with pytest.raises(ValueError, match="^table: 6 rows"):
        shapley_from_table(np.zeros(6))
    with pytest.raises(ValueError, match="^n_permutations: 1 is too few"):
        permutation_shapley(lambda m: np.zeros(len(m)), 3, 1)
