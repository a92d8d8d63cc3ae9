"""The variance side of the k trade-off, the concentration bound and RNG's expected metric, each with its control.

Claim tests: the one-dataset variance estimate agrees with the empirical variance over seeds (the
plug-in variance that ignores the product-of-means term does not); the finite-shot bound holds on
at least 95 % of 200 seeded estimates at delta = 0.05 (measured against the exact metric instead of
the truncated one it bounds, it fails); RNG's Fisher metric with a global Haar unitary averages to
the exact metric (with local Haar gates, the project's former choice, it does not).
"""

import numpy as np
import pytest
from scipy import stats

from core.quantum_ng import Ansatz, Chain, ShotOracle, exact_metric, propagate_generators, shadow_metric
from core.quantum_ng.estimation import bias_variance_curve, concentration_bound, shadow_variance
from core.quantum_ng.metric import metric_from_generators
from core.quantum_ng.shadows import acquire_shadow
from core.quantum_ng.simulate import final_state

pytestmark = pytest.mark.claim

ANSATZ = Ansatz(4, 2, ("RY", "RZ"), "brickwork")
PARAMS = ANSATZ.random_params(1)
SEEDS = range(200)
T = 200


@pytest.fixture(scope="module")
def k2_draws():
    """200 independent shadows of T snapshots: the weight-2 estimate and its one-dataset variance estimates."""
    gens = propagate_generators(ANSATZ, PARAMS, 2)
    truncated = metric_from_generators(gens, final_state(ANSATZ, PARAMS), mask=True)
    estimates, variances, plug_in = [], [], []
    for seed in SEEDS:
        shadow = acquire_shadow(ANSATZ, PARAMS, T, seed=seed)
        estimates.append(shadow_metric(gens, shadow, mask=True))
        variances.append(shadow_variance(gens, shadow, mask=True).sum())
        plug_in.append(shadow_variance(gens, shadow, mask=True, plug_in=True).sum())
    return gens, truncated, np.stack(estimates), np.array(variances), np.array(plug_in)


def bootstrap_interval(estimates: np.ndarray, level: float = 0.99, draws: int = 2000) -> tuple[float, float]:
    """Percentile bootstrap interval (over seeds) of the total variance sum_ij Var(ĝ_ij)."""
    rng = np.random.default_rng(0)
    totals = [estimates[rng.integers(0, len(estimates), len(estimates))].var(axis=0, ddof=1).sum()
              for _ in range(draws)]
    return tuple(np.quantile(totals, [(1 - level) / 2, (1 + level) / 2]))


def test_one_dataset_variance_estimate_matches_the_variance_over_seeds(k2_draws):
    _, _, estimates, variances, plug_in = k2_draws
    low, high = bootstrap_interval(estimates)
    assert low <= variances.mean() <= high
    assert not low <= plug_in.mean() <= high      # control: Var(B) / T alone misses the product-of-means term
    # a single dataset's estimate is itself usable: most lie within a factor 1.5 of the empirical value
    empirical = estimates.var(axis=0, ddof=1).sum()
    assert np.mean(np.abs(np.log(variances / empirical)) < np.log(1.5)) > 0.9


def test_concentration_bound_holds_at_its_confidence_and_not_against_the_wrong_target(k2_draws):
    gens, truncated, estimates, _, _ = k2_draws
    bound = concentration_bound(gens, T, delta=0.05, mask=True)
    deviation = np.linalg.norm(estimates - truncated, axis=(1, 2))
    assert np.mean(deviation <= bound.radius) >= 0.95
    assert bound.variance >= estimates.var(axis=0, ddof=1).sum()    # it bounds E||ĝ - g^(k)||², not only the tail
    # the radius shrinks as 1/sqrt(T) at large T (the U-statistic's 1/T^2 part fades)
    big = [concentration_bound(gens, t, 0.05).radius for t in (10_000, 40_000)]
    assert big[0] / big[1] == pytest.approx(2.0, rel=0.01)

    # control: the bound is about estimation only; against the exact metric, at weight 1 and a large T
    # (radius below the truncation bias), it must fail
    g1 = propagate_generators(ANSATZ, PARAMS, 1)
    exact = exact_metric(ANSATZ, PARAMS)
    t_big = 5000
    b1 = concentration_bound(g1, t_big, delta=0.05)
    own = metric_from_generators(g1, final_state(ANSATZ, PARAMS), mask=True)
    draws = [shadow_metric(g1, acquire_shadow(ANSATZ, PARAMS, t_big, seed=seed), mask=True) for seed in range(40)]
    assert np.mean([np.linalg.norm(d - own) <= b1.radius for d in draws]) >= 0.95
    assert np.mean([np.linalg.norm(d - exact) <= b1.radius for d in draws]) < 0.95


def test_bias_variance_curve_splits_the_error_and_finds_its_best_k():
    exact = exact_metric(ANSATZ, PARAMS)
    # two brickwork layers on 4 qubits: no string outgrows weight 3, so k = 3 is already exact
    curve = bias_variance_curve(ANSATZ, PARAMS, [1, 2, 3], snapshots=300, mask=False, seed=3, exact=exact)
    assert curve.k.tolist() == [1, 2, 3]
    assert curve.bias2[-1] < 1e-20 and np.all(np.diff(curve.bias2) < 0)   # the full light cone is exact
    assert np.all(np.diff(curve.variance) > 0)             # larger k: more, heavier strings, more variance
    assert np.all(np.diff(curve.variance_bound) > 0) and np.all(curve.variance_bound >= curve.variance)
    np.testing.assert_allclose(curve.mse, curve.bias2 + curve.variance)
    assert int(curve.best_k) == curve.k[np.argmin(curve.mse)]
    # with ten times the snapshots the variance falls tenfold and the best k can only move up
    more = bias_variance_curve(ANSATZ, PARAMS, [1, 2, 3], snapshots=3000, mask=False, seed=3, exact=exact)
    np.testing.assert_allclose(more.variance[1:] / curve.variance[1:], 0.1, rtol=0.35)
    assert int(more.best_k) >= int(curve.best_k)


def test_random_fisher_with_a_global_haar_unitary_averages_to_the_metric():
    ansatz = Ansatz(3, 2, ("RY", "RZ"), "brickwork")
    params = ansatz.random_params(3)
    exact = exact_metric(ansatz, params)
    H = Chain("heisenberg", 3).hamiltonian()
    iu = np.triu_indices(ansatz.n_params)
    threshold = stats.norm.ppf(1 - 0.001 / (2 * iu[0].size))   # Bonferroni over the distinct entries
    worst = {}
    for global_haar in (True, False):
        oracle = ShotOracle(ansatz, H, None, seed=5)
        draws = np.stack([oracle.random_fisher_metric(params, global_haar=global_haar) for _ in range(200)])
        z = (draws.mean(0) - exact)[iu] / (draws.std(0, ddof=1)[iu] / np.sqrt(len(draws)) + 1e-15)
        worst[global_haar] = np.abs(z).max()
    assert worst[True] < threshold
    assert worst[False] > threshold    # control: local Haar gates with the same F / 2 are biased


def test_bound_inputs_name_the_field():
    gens = propagate_generators(ANSATZ, PARAMS, 2)
    with pytest.raises(ValueError, match="^delta: "):
        concentration_bound(gens, 100, delta=0.0)
    with pytest.raises(ValueError, match="^snapshots: "):
        concentration_bound(gens, 1)
