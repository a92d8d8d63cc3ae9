"""Classical shadows: PennyLane's estimator, unbiasedness over seeds, and variance falling as 1/T."""

import numpy as np
import pennylane as qml
import pytest
from scipy import stats

from core.quantum_ng import Ansatz, acquire_shadow, propagate_generators, shadow_metric, snapshot_values
from core.quantum_ng.metric import metric_from_generators
from core.quantum_ng.propagation import wire_bit
from core.quantum_ng.simulate import final_state

ANSATZ = Ansatz(4, 2, ("RY", "RZ"), "cnot_chain")
PARAMS = ANSATZ.random_params(2)


def masks(word: dict, n: int):
    x = z = np.uint64(0)
    for wire, letter in word.items():
        b = wire_bit(n, wire)
        x |= b if letter in "XY" else np.uint64(0)
        z |= b if letter in "YZ" else np.uint64(0)
    return np.array([x]), np.array([z])


@pytest.mark.parametrize("word", [{0: "Z", 1: "X"}, {2: "Y"}, {0: "X", 1: "Y", 3: "Z"}, {1: "Z", 2: "Z"}])
def test_single_string_estimates_are_pennylanes(word):
    shadow = acquire_shadow(ANSATZ, PARAMS, 3000, seed=1)
    observable = qml.pauli.PauliWord(word).operation()
    theirs = qml.ClassicalShadow(shadow.bits, shadow.recipes).expval(observable, k=1)
    ours = snapshot_values(shadow, *masks(word, 4), mean=True)[0]
    assert ours == pytest.approx(float(theirs), abs=1e-12)


def test_acquisition_is_seeded_and_uses_pennylanes_encoding():
    a, b = acquire_shadow(ANSATZ, PARAMS, 500, seed=7), acquire_shadow(ANSATZ, PARAMS, 500, seed=7)
    c = acquire_shadow(ANSATZ, PARAMS, 500, seed=8)
    assert np.array_equal(a.bits, b.bits) and np.array_equal(a.recipes, b.recipes)
    assert not np.array_equal(a.recipes, c.recipes)
    assert set(np.unique(a.recipes)) == {0, 1, 2} and set(np.unique(a.bits)) <= {0, 1}
    # every basis is drawn a third of the time (chi-square test; p > 1e-4 unless the sampler is off)
    counts = np.bincount(a.recipes.ravel(), minlength=3)
    assert stats.chisquare(counts).pvalue > 1e-4


def estimates(k, snapshots, seeds, mask=True):
    gens = propagate_generators(ANSATZ, PARAMS, k)
    return gens, np.stack([shadow_metric(gens, acquire_shadow(ANSATZ, PARAMS, snapshots, seed=s), mask=mask)
                           for s in seeds])


@pytest.mark.parametrize("k,mask", [(2, True), (3, False)])
def test_shadow_metric_is_unbiased_over_seeds(k, mask):
    gens, draws = estimates(k, 200, range(80), mask)
    target = metric_from_generators(gens, final_state(ANSATZ, PARAMS), mask)
    iu = np.triu_indices(ANSATZ.n_params)
    kept = np.abs(draws.std(axis=0))[iu] > 0
    mean, se = draws.mean(axis=0)[iu][kept], draws.std(axis=0, ddof=1)[iu][kept] / np.sqrt(len(draws))
    z = (mean - target[iu][kept]) / se
    # Bonferroni over the m entries (valid whatever their correlation): for an unbiased estimator
    # every |z| stays under t_{1 - 0.001/(2m)} with probability >= 0.999.
    m = z.size
    assert np.abs(z).max() < stats.t.ppf(1 - 0.001 / (2 * m), df=len(draws) - 1)
    # entries outside the retained pairs are exactly zero in every draw
    if mask:
        assert np.all(draws[:, ~gens.overlap_mask()] == 0)


def test_variance_falls_as_one_over_T():
    sizes = np.array([100, 300, 900])
    gens = propagate_generators(ANSATZ, PARAMS, 2)
    target = metric_from_generators(gens, final_state(ANSATZ, PARAMS), True)
    mse, se = [], []
    for T in sizes:
        errs = np.array([np.sum((shadow_metric(gens, acquire_shadow(ANSATZ, PARAMS, int(T), seed=10_000 + s)) - target) ** 2)
                         for s in range(40)])
        mse.append(errs.mean())
        se.append(errs.std(ddof=1) / np.sqrt(errs.size))
    mse, se = np.array(mse), np.array(se)
    # Weighted least squares of log MSE on log T, each point weighted by its delta-method variance
    # (se / mse)^2 from the 40 replicates. The first term of the estimator has variance exactly
    # proportional to 1/T; the U-statistic adds a 1/T^2 part, negligible from T = 100 on.
    x, y, w = np.log(sizes), np.log(mse), (mse / se) ** 2
    xc = x - np.average(x, weights=w)
    slope = np.sum(w * xc * (y - np.average(y, weights=w))) / np.sum(w * xc**2)
    slope_se = 1.0 / np.sqrt(np.sum(w * xc**2))
    assert slope_se < 0.1                       # the test can tell -1 from -1/2 or -2
    assert abs(slope + 1) < 4 * slope_se, (slope, slope_se)


def test_the_plug_in_product_of_means_would_be_biased():
    """Why the U-statistic: subtracting mean(A_i) mean(A_j) instead leaves a -Cov/T bias the test sees."""
    from core.quantum_ng.shadows import generator_snapshots

    gens = propagate_generators(ANSATZ, PARAMS, 2)
    target = metric_from_generators(gens, final_state(ANSATZ, PARAMS), True)
    T = 40  # small T makes the 1/T bias large
    diag_bias_u, diag_bias_plugin = [], []
    for s in range(150):
        shadow = acquire_shadow(ANSATZ, PARAMS, T, seed=50_000 + s)
        unbiased = shadow_metric(gens, shadow)
        A = generator_snapshots(gens, shadow)
        u_stat = (np.outer(A.sum(0), A.sum(0)) - A.T @ A) / (T * (T - 1))
        plug_in = unbiased + u_stat - np.outer(A.mean(0), A.mean(0))
        diag_bias_u.append(np.trace(unbiased - target))
        diag_bias_plugin.append(np.trace(plug_in - target))
    u, p = np.array(diag_bias_u), np.array(diag_bias_plugin)
    # the plug-in trace is low by sum_i Var(A_i)/T > 0; ours is centred on zero
    assert abs(u.mean()) < 4 * u.std(ddof=1) / np.sqrt(u.size)
    assert p.mean() < -4 * p.std(ddof=1) / np.sqrt(p.size)
