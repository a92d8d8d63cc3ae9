"""The macrodata forecasters: least squares against scikit-learn, numpy inference against torch, the shipped files."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.uncertainty_shapley import (AttributionConfig, ForecasterConfig, attribute, fit_linear_forecaster,
                                      gaussian_nll, load_forecaster, macro_forecast, train_forecaster)
from core.uncertainty_shapley.ship import shipped_views
from core.uncertainty_shapley.views import ASSETS, attribution_view


@pytest.fixture(scope="module")
def data():
    return macro_forecast()


def test_macro_data_is_split_in_time_and_targets_are_future_inflation(data):
    assert data.X_train.shape == (158, 6) and data.Y_train.shape == (158, 4) and len(data.X_test) == 39
    assert data.quarters_train.max() < data.quarters_test.min()
    # Y_{t, h} is infl at t + h, and feature 0 is infl at t: the h = 1 target of row r is feature 0 of row r + 1
    np.testing.assert_allclose(data.Y_train[:-1, 0], data.X_train[1:, 0])
    np.testing.assert_allclose(data.Y_train[:-4, 3], data.X_train[4:, 0])
    with pytest.raises(ValueError, match="^horizon: 9 is out of range"):
        macro_forecast(horizon=9)


def test_linear_forecaster_is_least_squares_with_the_residual_covariance(data):
    from sklearn.linear_model import LinearRegression

    model = fit_linear_forecaster(data, ridge=0.0)
    sk = LinearRegression().fit(data.X_train, data.Y_train)
    np.testing.assert_allclose(model.coef, sk.coef_, atol=1e-8)
    np.testing.assert_allclose(model.intercept, sk.intercept_, atol=1e-7)
    resid = data.Y_train - sk.predict(data.X_train)
    np.testing.assert_allclose(model.noise_cov, np.cov(resid.T, bias=True), atol=1e-8)
    shuffled = data.Y_train[np.random.default_rng(0).permutation(len(data.Y_train))]       # control: targets shuffled
    assert gaussian_nll(model, data.X_train, data.Y_train) < gaussian_nll(model, data.X_train, shuffled) - 2


@pytest.mark.parametrize("head", ["full", "diagonal"])
def test_numpy_inference_reproduces_torchs_validation_likelihood_and_training_beats_the_initialisation(head, data):
    config = ForecasterConfig(head=head, epochs=200)
    trained = train_forecaster(config, seed=0, data=data)
    n_fit = len(data.X_train) - int(round(0.2 * len(data.X_train)))
    m = trained.model
    ours = gaussian_nll(m, data.X_train[n_fit:], data.Y_train[n_fit:]) - np.log(m.y_scale).sum()
    assert abs(ours - trained.val_nll.min()) < 1e-8          # torch's MultivariateNormal.log_prob on the best weights
    cov = m.predict(data.X_test)[1]
    off = np.abs(cov - np.einsum("nii->ni", cov)[:, :, None] * np.eye(4)).max()
    assert (off > 1e-3) if head == "full" else (off == 0.0)
    untrained = train_forecaster(config.replace(epochs=1), seed=0, data=data)      # control: the initialisation
    assert trained.val_nll.min() < untrained.val_nll.min() - 0.5


def test_training_stops_cleanly():
    log = ProgressLog(stop_after=3)
    trained = train_forecaster(ForecasterConfig(epochs=300), seed=1, progress=log)
    assert log.steps == [10, 20, 30] and len(trained.epochs) == 3 and np.isfinite(trained.test_nll)
    from core.uncertainty_shapley import train_and_attribute

    log = ProgressLog(stop_after=2)
    run = train_and_attribute("diagonal", seed=1, progress=log)
    assert log.steps == [1, 2] and run.attribution is None and len(run.epochs) == 2


def test_shipped_checkpoints_and_views_recompute():
    views = shipped_views()
    for key in ("macro_linear", "shared_input"):
        shipped = views["attributions"][key]
        again = attribution_view(key, seed=views["seed"])
        np.testing.assert_allclose(again.phi, shipped["phi"], atol=1e-10)
        np.testing.assert_allclose(again.cross, shipped["cross"], atol=1e-10)
    loaded = load_forecaster(ASSETS / "forecaster_full")
    model, meta = loaded.model, loaded.metadata
    assert meta["seed"] == 0 and model.n_features == 6
    a = attribute(model, AttributionConfig(estimator="moment_matching"), seed=views["seed"])
    np.testing.assert_allclose(a.phi, views["attributions"]["macro_torch_full"]["phi"], atol=1e-9)
    data = macro_forecast()
    assert abs(gaussian_nll(model, data.X_test, data.Y_test) - meta["test_nll"]) < 1e-9


def test_estimator_error_stops_cleanly_and_bad_names_are_refused():
    from core.uncertainty_shapley import estimator_error, load_model

    log = ProgressLog(stop_after=2)
    e = estimator_error("shared_input", n_inner=(8, 32), estimators=("moment_matching", "mean_imputation"),
                        progress=log)
    assert log.steps == [1, 2] and np.all(np.isfinite(e.value_error[0])) and np.all(np.isnan(e.value_error[1]))
    assert e.value_error[0, 1] < e.value_error[0, 0]
    with pytest.raises(ValueError, match="^model: 'macro_torch_full' is not an option"):
        estimator_error("macro_torch_full")
    with pytest.raises(ValueError, match="^model: 'bogus' is not an option"):
        load_model("bogus")
    with pytest.raises(ValueError, match="^head: 'sparse' is not an option"):
        ForecasterConfig(head="sparse")
