"""The forecasting data: statsmodels' US macrodata, inflation 1 to H quarters ahead from this quarter's indicators.

The outcome is ordered: Y_h is CPI inflation (annualised %, the dataset's ``infl``) h quarters
ahead, h = 1..H, the multi-step forecast whose components are dependent. The six features are
known at quarter t: inflation now and one quarter back, unemployment, the 3-month T-bill rate,
real GDP growth and M1 growth (annualised log growth, %). ``realint`` is left out because it is
the T-bill rate minus inflation (a collinear feature). The split is chronological: the first
``train_fraction`` of the quarters fit the models, the rest score them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.uncertainty_shapley.models import FeatureLaw, LinearGaussian

FEATURES = ("infl_t", "infl_t-1", "unemp_t", "tbill_t", "gdp_growth_t", "m1_growth_t")


@dataclass
class ForecastData:
    """Features and outcomes by quarter, split chronologically.

    Attributes
    ----------
    X_train : ndarray, shape (n_train, 6)
        The features (:data:`FEATURES`) at the training forecast origins t.
    Y_train : ndarray, shape (n_train, D)
        Inflation at t + 1 .. t + D.
    X_test : ndarray, shape (n_test, 6)
        The features at the later, held-out origins.
    Y_test : ndarray, shape (n_test, D)
        Their outcomes.
    quarters_train : ndarray, shape (n_train,)
        Each training origin's date, year + (quarter - 1) / 4.
    quarters_test : ndarray, shape (n_test,)
        Each held-out origin's date.
    feature_names : list of str
        :data:`FEATURES`.
    output_names : list of str
        ``infl_t+1`` .. ``infl_t+D``.
    """

    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray
    quarters_train: np.ndarray
    quarters_test: np.ndarray
    feature_names: list
    output_names: list


def macro_forecast(horizon: int = 4, train_fraction: float = 0.8) -> ForecastData:
    """Inflation h = 1..``horizon`` quarters ahead from the six indicators (see the module docstring).

    Parameters
    ----------
    horizon : int
        Output dimension D, 2 to 8.
    train_fraction : float
        Share of the quarters (in time order) used for fitting, in [0.5, 0.95].

    Returns
    -------
    ForecastData
        The chronological split (training quarters first).

    Examples
    --------
    >>> data = macro_forecast(horizon=2)
    >>> data.X_train.shape, data.Y_train.shape, bool(data.quarters_train.max() < data.quarters_test.min())
    ((159, 6), (159, 2), True)
    """
    from statsmodels.datasets import macrodata    # the dataset alone: statsmodels.api costs seconds to import

    horizon = check_range("horizon", horizon, 2, 8, integer=True)
    train_fraction = check_range("train_fraction", train_fraction, 0.5, 0.95)
    df = macrodata.load_pandas().data
    infl = df["infl"].to_numpy(float)
    gdp = 400 * np.diff(np.log(df["realgdp"].to_numpy(float)), prepend=np.nan)
    m1 = 400 * np.diff(np.log(df["m1"].to_numpy(float)), prepend=np.nan)
    t = np.arange(2, len(df) - horizon)     # t - 1 >= 1 (the first quarter's growth is undefined)
    X = np.column_stack([infl[t], infl[t - 1], df["unemp"].to_numpy(float)[t], df["tbilrate"].to_numpy(float)[t],
                         gdp[t], m1[t]])
    Y = np.column_stack([infl[t + h] for h in range(1, horizon + 1)])
    when = (df["year"].to_numpy(float) + (df["quarter"].to_numpy(float) - 1) / 4)[t]
    n = int(round(train_fraction * len(t)))
    return ForecastData(X[:n], Y[:n], X[n:], Y[n:], when[:n], when[n:], list(FEATURES),
                        [f"infl_t+{h}" for h in range(1, horizon + 1)])


def fit_linear_forecaster(data: ForecastData, ridge: float = 1e-6) -> LinearGaussian:
    r"""Direct multi-step linear-Gaussian forecaster: least squares per horizon, full residual covariance.

    :math:`\hat B = \arg\min \|Y - c - BX\|^2 + \text{ridge}\,\|B\|^2` (features centred), and
    :math:`\Sigma_\varepsilon` the residuals' covariance (maximum likelihood), so the joint
    predictive carries the dependence between horizons; the feature law is the training features'
    Gaussian fit, and the background is the training features.

    Parameters
    ----------
    data : ForecastData
        Fitted on its training quarters only.
    ridge : float
        The ridge penalty on the coefficients, in [0, 1e6] (a tiny one keeps collinear features solvable).

    Returns
    -------
    LinearGaussian
        Coefficients (D, 6), intercept and residual covariance, with the features' law and background.

    Examples
    --------
    >>> m = fit_linear_forecaster(macro_forecast())
    >>> m.coef.shape, m.noise_cov.shape, bool(np.allclose(m.noise_cov, m.noise_cov.T))
    ((4, 6), (4, 4), True)
    """
    ridge = check_range("ridge", ridge, 0.0, 1e6)
    X, Y = data.X_train, data.Y_train
    mx, my = X.mean(0), Y.mean(0)
    Xc, Yc = X - mx, Y - my
    B = np.linalg.solve(Xc.T @ Xc + ridge * np.eye(X.shape[1]), Xc.T @ Yc).T
    resid = Yc - Xc @ B.T
    noise = resid.T @ resid / len(X)
    return LinearGaussian(B, my - B @ mx, noise, FeatureLaw.fit(X), X.copy(), data.feature_names,
                          data.output_names, name="linear-Gaussian forecaster")


def gaussian_nll(model, X, Y) -> float:
    r"""Mean negative log-likelihood (nats per row) of ``Y`` under the Gaussian predictive ``model.predict(X)``.

    .. math:: \frac1n\sum_t \tfrac12\bigl(r_t^\top\Sigma_t^{-1}r_t + \log\det\Sigma_t + D\log 2\pi\bigr),
              \quad r_t = y_t - \mu_t.

    Parameters
    ----------
    model : LinearGaussian or GaussianForecaster
        Anything with ``predict(X) -> (mean (n, D), cov (n, D, D))``.
    X : array_like, shape (n, d)
        Features.
    Y : array_like, shape (n, D)
        Outcomes.

    Returns
    -------
    float
        The mean NLL in nats (lower is better).

    Examples
    --------
    >>> from core.uncertainty_shapley.models import linear_gaussian
    >>> m = linear_gaussian([[1.0]], [[1.0]], n_background=2)
    >>> round(gaussian_nll(m, np.zeros((1, 1)), np.zeros((1, 1))), 4)    # ½ log 2π
    0.9189
    """
    mean, cov = model.predict(X)
    r = np.asarray(Y, dtype=float) - mean
    L = np.linalg.cholesky(cov)
    z = np.linalg.solve(L, r[..., None])[..., 0]
    logdet = 2 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(-1)
    return float(np.mean(0.5 * (z**2).sum(-1) + 0.5 * logdet + 0.5 * Y.shape[1] * np.log(2 * np.pi)))
