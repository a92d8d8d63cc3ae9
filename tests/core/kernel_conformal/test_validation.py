"""Every public entry point refuses bad input with the field named, before doing anything."""

import numpy as np
import pytest

import core.kernel_conformal as kc

R = np.random.default_rng(0).normal(size=(30, 2))
SMALL = kc.CompareConfig(n_fit=40, n_cal=40, n_test=40, mc_samples=1000)


@pytest.mark.parametrize("call, field", [
    (lambda: kc.kernel_matrix(R, R, "rbf", 0.0), "bandwidth"),
    (lambda: kc.kernel_matrix(R, R[:, :1], "rbf", 1.0), "B"),
    (lambda: kc.kernel_matrix(np.ones(3), R, "rbf", 1.0), "A"),
    (lambda: kc.kernel_matrix(R, R, "cosine", 1.0), "kernel"),
    (lambda: kc.median_distance(R, max_points=1), "max_points"),
    (lambda: kc.effective_rank(np.array([[1.0]])), "eigenvalues"),
    (lambda: kc.effective_dimension(np.ones(3), 0.0), "lam"),
    (lambda: kc.LocalEllipsoid(k=1), "k"),
    (lambda: kc.LocalEllipsoid(mix=1.5), "mix"),
    (lambda: kc.MapieScore(epochs=0), "epochs"),
    (lambda: kc.make_score("box"), "name"),
    (lambda: kc.make_score("ellipsoid", lam=-1.0), "lam"),
    (lambda: kc.make_score("mks", mapie_epochs=0), "mapie_epochs"),
    (lambda: kc.conformal_rank(0, 0.1), "n"),
    (lambda: kc.conformal_quantile(np.array([]), 0.1), "scores"),
    (lambda: kc.make_regression(n_fit=1), "n_fit"),
    (lambda: kc.make_regression(n_test=0), "n_test"),
    (lambda: kc.macro_var(0), "lags"),
    (lambda: kc.split_real(R, 5, 5), "data"),
    (lambda: kc.split_real(kc.linnerud(), 1, 5), "n_fit"),
    (lambda: kc.split_real(kc.linnerud(), 10, 10), "n_cal"),
    (lambda: kc.real_data_check(kc.linnerud(), n_fit=8, n_cal=9, n_splits=0), "n_splits"),
    (lambda: kc.real_data_check(kc.linnerud(), {"alpha": 0.2}, n_fit=8, n_cal=9), "config"),
    (lambda: kc.compare_scores({"dim": 2}), "config"),
    (lambda: kc.compare_scores(SMALL, data=(R, R)), "data"),
    (lambda: kc.sweep(SMALL, "dim", (2, 3), n_seeds=0), "n_seeds"),
    (lambda: kc.sweep(SMALL, "alpha", (0.1, 0.9)), "alpha"),
    (lambda: kc.coverage_check(alphas=(0.1, 1.0)), "alphas"),
    (lambda: kc.coverage_check(n_seeds=0), "n_seeds"),
    (lambda: kc.coverage_check(scores=("mks", "box")), "scores"),
    (lambda: kc.coverage_check(regressor="svm"), "regressor"),
    (lambda: kc.coverage_check(n_cal=0), "n_cal"),
    (lambda: kc.make_regressor("svm"), "regressor"),
    (lambda: kc.ellipsoid_volume(np.ones((2, 3)), 1.0), "Sigma"),
    (lambda: kc.ellipsoid_volume(np.eye(2), -1.0), "q"),
    (lambda: kc.monte_carlo_volume(None, 1.0, R), "score_fn"),
    (lambda: kc.monte_carlo_volume(np.sum, 1.0, R, n_samples=1), "n_samples"),
    (lambda: kc.monte_carlo_volume(np.sum, 1.0, R[:1]), "R_fit"),
    (lambda: kc.region_view(SMALL, grid=3), "grid"),
    (lambda: kc.region_view(SMALL, n_test_shown=0), "n_test_shown"),
    (lambda: kc.region_view(SMALL.replace(dim=3)), "dim"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        call()


def test_a_sweep_with_one_bad_value_runs_nothing():
    from core.common.progress import ProgressLog

    log = ProgressLog()
    with pytest.raises(ValueError, match="^alpha: "):
        kc.sweep(SMALL, "alpha", (0.1, 0.9), n_seeds=1, progress=log)
    assert log.steps == []
