"""Entropy estimators against closed forms and SciPy: Gaussian entropy, k-NN convergence, moment matching."""

import numpy as np
import pytest
from scipy import stats

from core.common.seeding import derive_rng
from core.uncertainty_shapley import (gaussian_entropy, gaussian_total_correlation, knn_entropy, knn_total_correlation,
                                      moment_matched_cov)


def random_cov(d, seed=0):
    A = derive_rng(seed, "cov").normal(size=(d, d))
    return A @ A.T / d + 0.3 * np.eye(d)


def test_gaussian_entropy_and_total_correlation_match_scipy():
    S = random_cov(4)
    assert abs(gaussian_entropy(S) - stats.multivariate_normal(cov=S).entropy()) < 1e-12
    tc = sum(stats.norm(scale=np.sqrt(S[j, j])).entropy() for j in range(4)) - stats.multivariate_normal(cov=S).entropy()
    assert abs(gaussian_total_correlation(S) - tc) < 1e-12 and tc > 0.05
    assert abs(gaussian_total_correlation(np.diag(np.diag(S)))) < 1e-12
    with pytest.raises(ValueError, match="^cov: not positive definite"):
        gaussian_entropy(-np.eye(2))


def test_knn_entropy_converges_to_the_gaussian_closed_form():
    S = random_cov(3, seed=1)
    rng = derive_rng(0, "knn")
    L = np.linalg.cholesky(S)
    errors = {}
    for n in (200, 20000):
        est = [knn_entropy(rng.standard_normal((n, 3)) @ L.T, k=3) for _ in range(4)]
        errors[n] = abs(np.mean(est) - gaussian_entropy(S))
    assert errors[20000] < 0.025 and errors[20000] < errors[200] / 2
    # one dimension: against SciPy's spacing estimator on the same samples
    x = rng.standard_normal(4000) * 2.0
    assert abs(knn_entropy(x) - stats.differential_entropy(x)) < 0.03
    assert abs(knn_entropy(x) - stats.norm(scale=2.0).entropy()) < 0.05


def test_control_knn_on_a_non_gaussian_law_does_not_reach_the_gaussian_formula():
    """A uniform law with the same covariance has less entropy than the Gaussian: k-NN must see the gap."""
    x = derive_rng(0, "uniform").uniform(-1, 1, size=(5000, 2))
    gauss = gaussian_entropy(np.cov(x.T))
    assert abs(knn_entropy(x) - np.log(4.0)) < 0.03          # the uniform's own entropy, log of the area
    assert gauss - knn_entropy(x) > 0.25


def test_knn_total_correlation_of_a_correlated_gaussian():
    S = np.array([[1.0, 0.8], [0.8, 1.0]])
    x = derive_rng(0, "tc").standard_normal((5000, 2)) @ np.linalg.cholesky(S).T
    assert abs(knn_total_correlation(x) - gaussian_total_correlation(S)) < 0.04
    with pytest.raises(ValueError, match="^k: 10 is out of range"):
        knn_entropy(x[:10], k=10)


def test_moment_matching_is_the_law_of_total_covariance_of_the_mixture():
    rng = derive_rng(0, "mixture")
    means = rng.normal(size=(5, 2))
    covs = np.stack([random_cov(2, seed=s) for s in range(5)])
    comp = rng.integers(0, 5, size=200000)
    draws = means[comp] + np.einsum("nij,nj->ni", np.linalg.cholesky(covs)[comp], rng.standard_normal((200000, 2)))
    np.testing.assert_allclose(moment_matched_cov(means, covs), np.cov(draws.T), atol=0.03)
    assert gaussian_entropy(moment_matched_cov(means, covs)) >= knn_entropy(draws[:20000]) - 0.02   # an upper bound
