"""The three games: the cross-component term as conditional total correlation, the hierarchy, the chain rule."""

import numpy as np
import pytest

from core.common.seeding import derive_rng
from core.uncertainty_shapley import (AttributionConfig, EntropyGame, all_coalitions, attribute,
                                      conditional_total_correlation, gaussian_total_correlation, linear_gaussian,
                                      random_linear_gaussian, shapley_from_table)

pytestmark = pytest.mark.claim


def two_output(coef, noise_corr=0.0, feature_cov=None, noise=0.5):
    return linear_gaussian(coef, noise * np.array([[1, noise_corr], [noise_corr, 1]]), feature_cov)


@pytest.mark.parametrize("seed", [0, 1])
def test_cross_term_is_the_shapley_value_of_conditional_total_correlation(seed):
    model = random_linear_gaussian(6, 3, seed=seed)
    a = attribute(model)
    masks = all_coalitions(6)
    tc = np.array([gaussian_total_correlation(model.closed_form_cov(m)) for m in masks])   # its own formula
    np.testing.assert_allclose(a.cross, shapley_from_table(tc), atol=1e-10)
    # efficiency of the TC game: sum c = TC(Y | X) - TC(Y), so the dependence explained, -c, sums to TC(Y) - TC(Y | X)
    assert abs(a.cross.sum() - (tc[-1] - tc[0])) < 1e-10
    assert abs(-a.cross.sum() - (a.tc_prior - a.tc_conditional)) < 1e-10
    assert abs(a.tc_prior - tc[0]) < 1e-10 and abs(a.tc_prior - a.tc_conditional) > 0.01   # not TC(Y) alone


def test_shared_input_with_diagonal_noise_explains_dependence_away():
    """Y1 = X1 + e1, Y2 = X1 + e2: conditioning on X1 removes I(Y1; Y2) = -log(1 - rho^2)/2, rho = 1/(1 + 0.5)."""
    a = attribute(two_output([[1.0], [1.0]]))
    mi = -0.5 * np.log(1 - (1 / 1.5) ** 2)
    assert abs(a.tc_prior - mi) < 1e-12 and abs(a.tc_conditional) < 1e-12
    assert abs(a.cross[0] + mi) < 1e-12          # c_1 = TC(Y | X1) - TC(Y) = -I(Y1; Y2)
    assert -a.cross[0] > 0                       # the dependence X1 accounts for (the c_1 > 0)


def test_independent_outputs_with_disjoint_inputs_have_no_cross_term_and_correlated_noise_does():
    none = attribute(two_output([[1.0, 0.0], [0.0, 1.0]]))
    np.testing.assert_allclose(none.cross, 0.0, atol=1e-12)
    assert np.all(none.phi[0] < -0.1)             # yet each feature reduces uncertainty
    control = attribute(two_output([[1.0, 0.0], [0.0, 1.0]], noise_corr=0.6))
    assert np.all(control.cross > 0.02)           # knowing X_i sharpens Y_i, raising the noise's share of the dependence


def test_hierarchy_marginal_over_chain_over_joint_and_the_lag_limits():
    model = random_linear_gaussian(5, 4, seed=3)
    masks = all_coalitions(5)
    v = {lag: EntropyGame(model, AttributionConfig(chain_lag=lag))(masks).sum(-1) for lag in (1, 2, 3)}
    assert np.all(v[1][:, 0] >= v[1][:, 1] - 1e-12) and np.all(v[1][:, 1] >= v[1][:, 2] - 1e-12)
    assert np.all(v[1][:, 1] >= v[2][:, 1] - 1e-12)
    np.testing.assert_allclose(v[3][:, 1], v[3][:, 2], atol=1e-10)      # lag D - 1: the chain is the joint game
    assert np.max(v[1][:, 1] - v[1][:, 2]) > 1e-3                      # lag 1 is not


def test_chain_rule_components_sum_to_the_joint_attribution_in_either_order():
    model = random_linear_gaussian(6, 3, seed=4)
    a = attribute(model)
    masks = all_coalitions(6)
    logdet = np.array([0.5 * np.linalg.slogdet(2 * np.pi * np.e * model.closed_form_cov(m))[1] for m in masks])
    np.testing.assert_allclose(a.components[2].sum(-1), shapley_from_table(logdet), atol=1e-10)
    rev = linear_gaussian(model.coef[::-1], model.noise_cov[::-1, ::-1], model.law.cov)
    b = attribute(rev)
    np.testing.assert_allclose(b.phi[2], a.phi[2], atol=1e-10)           # the joint game ignores the order
    assert np.abs(b.components[2][:, ::-1] - a.components[2]).max() > 1e-2   # its split by component does not
    # control: the marginal terms' sum misses the joint attribution by exactly the cross-component term
    np.testing.assert_allclose(a.components[0].sum(-1) - a.phi[2], a.cross, atol=1e-12)
    assert np.abs(a.cross).max() > 1e-2


def test_dependence_is_invisible_to_the_componentwise_game():
    """Same conditional marginals for every coalition, different noise dependence: only c tells them apart."""
    coef = [[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]]
    a, b = attribute(two_output(coef)), attribute(two_output(coef, noise_corr=0.8))
    assert np.abs(a.phi[0] - b.phi[0]).max() < 1e-12        # control: the marginal game cannot see it
    assert np.abs(a.cross - b.cross).max() > 0.05 and np.abs(a.phi[2] - b.phi[2]).max() > 0.05


def test_sample_estimators_approach_the_closed_form_and_mean_imputation_does_not():
    model = random_linear_gaussian(4, 2, seed=6)
    exact = attribute(model)
    mm = attribute(model, AttributionConfig(estimator="moment_matching", n_inner=2000, n_outer=4))
    knn = attribute(model, AttributionConfig(estimator="knn", n_inner=1500, n_outer=2))
    plug = attribute(model, AttributionConfig(estimator="mean_imputation", n_outer=4))
    assert np.abs(mm.phi - exact.phi).max() < 0.03
    assert np.abs(knn.phi - exact.phi).max() < 0.08
    assert np.abs(plug.phi - exact.phi).max() > 0.3
    assert np.all(plug.empty < exact.empty - 0.3)           # the plug-in ignores the left-out features' spread


def test_closed_form_needs_a_linear_gaussian_model():
    from core.uncertainty_shapley.views import load_model

    with pytest.raises(ValueError, match="^estimator: 'closed_form' needs a linear-Gaussian model"):
        EntropyGame(load_model("macro_torch_full"), AttributionConfig())


def test_closed_form_predictive_matches_simulation_and_conditional_tc_its_ends():
    """Cov(Y | X_S) from the closed form against Y simulated with X_S held fixed and the rest drawn."""
    model = random_linear_gaussian(4, 3, seed=8)
    rng = derive_rng(0, "simulate")
    mask = np.array([True, False, True, False])
    x = model.law.mean + np.linalg.cholesky(model.law.cov) @ rng.standard_normal(4)
    K, cond = model.law.conditional(mask)
    n = 200000
    X = np.tile(x, (n, 1))
    X[:, ~mask] = (model.law.mean[~mask] + K @ (x[mask] - model.law.mean[mask])
                   + rng.standard_normal((n, 2)) @ np.linalg.cholesky(cond).T)
    Y = X @ model.coef.T + rng.standard_normal((n, 3)) @ np.linalg.cholesky(model.noise_cov).T
    np.testing.assert_allclose(np.cov(Y.T), model.closed_form_cov(mask), atol=0.03)
    ends = conditional_total_correlation(model, np.array([np.zeros(4, bool), np.ones(4, bool)]))
    Yall = rng.standard_normal((n, 4)) @ np.linalg.cholesky(model.law.cov).T @ model.coef.T \
        + rng.standard_normal((n, 3)) @ np.linalg.cholesky(model.noise_cov).T
    assert abs(ends[0] - gaussian_total_correlation(np.cov(Yall.T))) < 0.01          # TC(Y)
    assert abs(ends[1] - gaussian_total_correlation(model.noise_cov)) < 1e-12        # TC(Y | X): the noise's
