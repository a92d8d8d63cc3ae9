"""Entry points that bypass a Config check their arguments first: the field is named, nothing is computed."""

import numpy as np
import pytest

from core.uncertainty_shapley import (all_coalitions, entropy_terms_from_cov, estimator_error, exact_shapley,
                                      fit_linear_forecaster, linear_gaussian, macro_forecast, permutation_shapley,
                                      random_linear_gaussian, shared_input_model)
from core.uncertainty_shapley.views import view_config


def never_called(masks):
    raise AssertionError("the game was evaluated before the arguments were checked")


def test_estimator_error_checks_sizes_before_any_work(monkeypatch):
    import core.uncertainty_shapley.views as views

    monkeypatch.setattr(views, "load_model", lambda key: pytest.fail("a model was built before the check"))
    with pytest.raises(ValueError, match=r"^n_inner: 1 is out of range; allowed integers in \[2, 20000\]"):
        estimator_error("shared_input", n_inner=(16, 1))
    with pytest.raises(ValueError, match="^n_outer: 0 is out of range"):
        estimator_error("shared_input", n_outer=0)
    with pytest.raises(ValueError, match="^n_seeds: expected an integer"):
        estimator_error("shared_input", n_seeds=1.5)


def test_model_builders_check_their_arguments():
    with pytest.raises(ValueError, match="^d: 0 is out of range"):
        random_linear_gaussian(0, 2)
    with pytest.raises(ValueError, match=r"^feature_correlation: 1 is out of range; allowed in \(-1, 1\)"):
        random_linear_gaussian(4, 2, feature_correlation=1.0)
    with pytest.raises(ValueError, match="^noise: -0.5 is out of range"):
        shared_input_model(noise=-0.5)
    with pytest.raises(ValueError, match="^n_background: 0 is out of range"):
        linear_gaussian([[1.0]], [[1.0]], n_background=0)
    data = macro_forecast()
    before = data.X_train.copy()
    with pytest.raises(ValueError, match="^ridge: -5 is out of range"):
        fit_linear_forecaster(data, ridge=-5)
    np.testing.assert_array_equal(data.X_train, before)


def test_shapley_routines_check_before_evaluating_the_game():
    with pytest.raises(ValueError, match="^d: expected an integer"):
        exact_shapley(never_called, 2.5)
    with pytest.raises(ValueError, match="^d: 13 players is too many"):
        exact_shapley(never_called, 13)
    with pytest.raises(ValueError, match="^n_permutations: expected an integer"):
        permutation_shapley(never_called, 3, n_permutations=10.5)
    with pytest.raises(ValueError, match="^d: 0 is out of range"):
        permutation_shapley(never_called, 0)
    with pytest.raises(ValueError, match="^d: -1 is out of range"):
        all_coalitions(-1)
    with pytest.raises(ValueError, match="^lag: 0 is out of range"):
        entropy_terms_from_cov(np.eye(2), lag=0)


def test_the_pages_config_refuses_a_closed_form_for_a_network():
    assert view_config("macro_linear").estimator == "closed_form"
    assert view_config("macro_torch_diagonal", "knn", "permutation", 2).chain_lag == 2
    with pytest.raises(ValueError, match="^estimator: 'closed_form' needs a linear-Gaussian model"):
        view_config("macro_torch_full", "closed_form")
    with pytest.raises(ValueError, match="^model: 'bogus' is not an option"):
        view_config("bogus")
    with pytest.raises(ValueError, match="^chain_lag: 0 is out of range"):
        view_config("macro_linear", chain_lag=0)
