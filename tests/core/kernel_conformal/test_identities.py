"""MKS and its baselines against independent references: scikit-learn's GP, closed forms, MAPIE, statsmodels."""

import numpy as np
import pytest

from core.common.seeding import derive_rng
from core.kernel_conformal import (CompareConfig, GlobalEllipsoid, MapieScore, MultivariateKernelScore,
                                   SplitConformalRegressor, conformal_quantile, ellipsoid_volume, macro_var,
                                   make_regression, monte_carlo_volume)
from core.kernel_conformal.data import MACRO_SERIES


def residuals(n=120, d=3, seed=0):
    rng = derive_rng(seed, "residuals")
    return rng.standard_normal((n, d)) @ rng.normal(size=(d, d)), rng.standard_normal((25, d))


@pytest.mark.parametrize("lam", [1e-3, 0.1, 2.0])
def test_linear_kernel_mks_is_the_regularised_mahalanobis_distance(lam):
    R, Q = residuals()
    S = np.cov(R.T, bias=True)
    c = Q - R.mean(axis=0)
    ref = np.einsum("ij,ij->i", c @ np.linalg.inv(S + lam * np.eye(3)), c)
    got = MultivariateKernelScore("linear", lam=lam).fit(R).score(Q)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-10)
    # control: the unbiased covariance is a different score
    ub = np.einsum("ij,ij->i", c @ np.linalg.inv(np.cov(R.T) + lam * np.eye(3)), c)
    assert np.max(np.abs(got - ub)) > 1e-4


@pytest.mark.parametrize("kernel,sk", [("rbf", "RBF"), ("laplace", "Matern")])
def test_uncentred_mks_is_the_gp_posterior_variance(kernel, sk):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, Matern

    R, Q = residuals()
    h, lam = 0.9, 0.01
    k = RBF(h) if sk == "RBF" else Matern(h, nu=0.5)
    gp = GaussianProcessRegressor(k, alpha=len(R) * lam, optimizer=None).fit(R, np.zeros(len(R)))
    _, sd = gp.predict(Q, return_std=True)
    mks = MultivariateKernelScore(kernel, bandwidth=h, lam=lam, centred=False).fit(R)
    np.testing.assert_allclose(lam * mks.score(Q), sd**2, atol=1e-12)
    centred = MultivariateKernelScore(kernel, bandwidth=h, lam=lam, centred=True).fit(R)
    assert np.max(np.abs(lam * centred.score(Q) - sd**2)) > 1e-3   # the centred score is not the GP variance


def test_centred_mks_decomposes_into_mmd_minus_kpca_correction_and_tends_to_its_plateau():
    R, Q = residuals()
    m = MultivariateKernelScore("rbf", bandwidth=1.0, lam=0.05).fit(R)
    K = np.exp(-((R[:, None] - R[None]) ** 2).sum(-1) / 2)
    kq = np.exp(-((Q[:, None] - R[None]) ** 2).sum(-1) / 2)
    mmd2 = 1 - 2 * kq.mean(1) + K.mean()
    H = np.eye(len(R)) - 1.0 / len(R)
    Kt = H @ K @ H
    kt = kq - kq.mean(1, keepdims=True) - K.mean(0) + K.mean()
    corr = np.einsum("ij,ij->i", kt, np.linalg.solve(Kt + len(R) * 0.05 * np.eye(len(R)), kt.T).T)
    np.testing.assert_allclose(m.score(Q), (mmd2 - corr) / 0.05, rtol=1e-8)
    np.testing.assert_allclose(m.score(1e3 * Q), m.plateau(), rtol=1e-10)
    assert m.score(Q).max() < m.plateau()


def test_global_ellipsoid_equals_mapies_constant_sigma_score():
    data = make_regression("banana", 3, 150, 150, 10, seed=3)
    model = SplitConformalRegressor(score=GlobalEllipsoid()).fit_split(data.X_fit, data.Y_fit, data.X_cal,
                                                                      data.Y_cal)
    mapie = MapieScore(learned=False).fit(model.fit_residuals_, data.X_fit)
    ours = model.score.score(model.cal_residuals_)
    theirs = mapie.score(model.cal_residuals_, data.X_cal)
    assert np.max(np.abs(ours - theirs)) < 1e-12
    assert np.max(np.abs(ours - np.linalg.norm(model.cal_residuals_, axis=1))) > 1e-2   # not the Euclidean norm


def test_conformal_quantile_is_the_ceil_rank_order_statistic():
    s = derive_rng(1, "q").random(39)
    assert conformal_quantile(s, 0.1) == np.sort(s)[35]        # ceil(40 * 0.9) = 36-th smallest
    assert conformal_quantile(s, 0.2) == np.sort(s)[31]
    assert conformal_quantile(s, 0.02) == np.inf                # ceil(40 * 0.98) = 40 > 39
    assert conformal_quantile(s, 0.1) > np.quantile(s, 0.9)     # the uncorrected quantile is lower


def test_monte_carlo_volume_matches_the_exact_ellipsoid_in_2_and_8_dimensions():
    for d in (2, 8):
        R = residuals(200, d, seed=d)[0]
        e = GlobalEllipsoid().fit(R)
        q = conformal_quantile(e.score(R), 0.1)
        mc = monte_carlo_volume(e.score, q, R, 8000, seed=0)
        exact = ellipsoid_volume(e.Sigma_, q)
        assert abs(mc.volume - exact) < 4 * mc.std_error and mc.std_error < 0.1 * exact


def test_var_residuals_match_statsmodels():
    from sklearn.linear_model import LinearRegression
    from statsmodels.datasets import macrodata
    from statsmodels.tsa.api import VAR

    data = macro_var(2)
    X, Y = data.X, data.Y
    ours = Y - LinearRegression().fit(X, Y).predict(X)
    y = 100 * np.diff(np.log(macrodata.load_pandas().data[list(MACRO_SERIES)].to_numpy(float)), axis=0)
    np.testing.assert_allclose(ours, np.asarray(VAR(y).fit(2).resid), atol=1e-10)


def test_real_splits_partition_the_rows_and_the_check_runs_one_comparison_per_split():
    from core.common.progress import ProgressLog
    from core.kernel_conformal import CompareConfig, linnerud, real_data_check, split_real

    data = macro_var(2)
    s = split_real(data, 100, 60, seed=4, name="macro")
    rows = np.vstack([s.X_fit, s.X_cal, s.X_test])
    assert rows.shape == data.X.shape and s.Y_test.shape == (40, 3)
    np.testing.assert_array_equal(np.sort(rows, axis=0), np.sort(data.X, axis=0))   # every row once
    assert not np.array_equal(split_real(data, 100, 60, seed=5).X_fit, s.X_fit)
    log = ProgressLog(stop_after=2)
    check = real_data_check(linnerud(), CompareConfig(alpha=0.2, mc_samples=1000), n_fit=8, n_cal=9, n_splits=5,
                            progress=log)
    assert check.done == 2 and log.steps == [1, 2] and np.all(np.isnan(check.coverage[2:]))
    assert check.exact == pytest.approx(8 / 10) and np.all((check.coverage[:2] >= 0) & (check.coverage[:2] <= 1))


@pytest.mark.parametrize("field,value,message", [("dim", 11, "dim:"), ("alpha", 0.0, "alpha:"), ("lam", 0.0, "lam:"),
                                                 ("law", "cauchy", "law:"), ("kernel", "poly", "kernel:"),
                                                 ("n_cal", 20, "n_cal:")])
def test_bad_config_names_the_field(field, value, message):
    kwargs = {"alpha": 0.02} if field == "n_cal" else {}
    with pytest.raises(ValueError, match=message):
        CompareConfig(**{field: value, **kwargs})


def test_bad_score_arguments_name_the_field():
    with pytest.raises(ValueError, match="lam:"):
        MultivariateKernelScore(lam=-1)
    with pytest.raises(ValueError, match="R:"):
        MultivariateKernelScore().fit(np.zeros(5))
    with pytest.raises(ValueError, match="alpha:"):
        conformal_quantile(np.arange(5.0), 1.0)
