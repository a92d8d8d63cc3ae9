"""Data: generated multi-output regressions with non-elliptical residuals, and two real ones.

Generated (ours): x ~ U[-1, 1]^3, y = x B + eps with B a fixed seeded (3, d) matrix, and eps from
one of the residual laws, in dimension d = 2..10:

- ``gaussian``: N(0, T), T the Toeplitz matrix 0.6^|i-j| (the elliptical control);
- ``bimodal``: s m + 0.35 z, s = +-1 with equal odds, m = 1.2 (1, ..., 1)/sqrt(d) * sqrt(2), z ~ N(0, I);
- ``banana``: eps_1 = z_1, eps_j = 0.5 z_j + 0.5 (z_(j-1)^2 - 1) for j >= 2 (each coordinate bends
  on the previous one's Gaussian factor);
- ``heteroscedastic``: (0.2 + 1.6 |x_1|) times N(0, T): elliptical at each x, the scale moves with x.

Real: scikit-learn's ``load_linnerud`` (20 rows, 3 exercise inputs, 3 physiological outputs: a
demo, too small for alpha = 0.1 calibration), and the VAR(p) regression of statsmodels'
``macrodata``: y_t = 100 * log-differences of (realgdp, realcons, realinv), x_t its p lags, which
a linear regressor fits exactly as statsmodels' VAR does (tested). Splitting a time series at
random treats its rows as exchangeable, which they are not quite: a choice of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_rng

LAWS = ("banana", "bimodal", "heteroscedastic", "gaussian")
LAW_LABELS = {"banana": "banana (curved)", "bimodal": "bimodal (two blobs)",
              "heteroscedastic": "heteroscedastic (scale moves with x)", "gaussian": "Gaussian (elliptical control)"}
N_FEATURES = 3


@dataclass
class RegressionData:
    """Fit, calibration and test splits of one multi-output regression.

    Attributes
    ----------
    X_fit, Y_fit : numpy.ndarray
        ``(n_fit, 3)`` inputs and ``(n_fit, d)`` outputs the regressor and the score are fitted on.
    X_cal, Y_cal : numpy.ndarray
        The calibration split.
    X_test, Y_test : numpy.ndarray
        The test split.
    law : str
        The residual law.
    dim : int
        The output dimension d.
    """

    X_fit: np.ndarray
    Y_fit: np.ndarray
    X_cal: np.ndarray
    Y_cal: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray
    law: str
    dim: int


def toeplitz_cov(d: int, rho: float = 0.6) -> np.ndarray:
    i = np.arange(d)
    return rho ** np.abs(i[:, None] - i[None, :])


def residual_noise(law: str, X: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of the residual law ``law`` at inputs X (n, 3) in dimension d."""
    n = len(X)
    z = rng.standard_normal((n, d))
    if law == "gaussian":
        return z @ np.linalg.cholesky(toeplitz_cov(d)).T
    if law == "bimodal":
        s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        m = 1.2 * np.sqrt(2.0) * np.ones(d) / np.sqrt(d)
        return s[:, None] * m[None, :] + 0.35 * z
    if law == "banana":
        eps = 0.5 * z.copy()
        eps[:, 0] = z[:, 0]
        eps[:, 1:] += 0.5 * (z[:, :-1] ** 2 - 1.0)
        return eps
    if law == "heteroscedastic":
        return (0.2 + 1.6 * np.abs(X[:, :1])) * (z @ np.linalg.cholesky(toeplitz_cov(d)).T)
    raise ValueError(f"law: {law!r} is not an option; allowed {', '.join(map(repr, LAWS))}")


def sample_law(law: str, d: int, n: int, seed: int, part: str = "sample") -> tuple[np.ndarray, np.ndarray]:
    """(X, Y) with n rows from the generated regression (the coefficient matrix depends on d only)."""
    B = derive_rng(0, "coefficients", d).normal(size=(N_FEATURES, d))
    rng = derive_rng(seed, part)
    X = rng.uniform(-1.0, 1.0, size=(n, N_FEATURES))
    return X, X @ B + residual_noise(law, X, d, rng)


def make_regression(law: str = "banana", dim: int = 2, n_fit: int = 400, n_cal: int = 400, n_test: int = 1000,
                    seed: int = 0) -> RegressionData:
    """A seeded generated regression with independent fit, calibration and test draws.

    Parameters
    ----------
    law : {"banana", "bimodal", "heteroscedastic", "gaussian"}
        The residual law (see the module docstring).
    dim : int
        Output dimension d, 1 to 20.
    n_fit : int
        Rows of the fit split, >= 2.
    n_cal : int
        Rows of the calibration split, >= 1.
    n_test : int
        Rows of the test split, >= 1.
    seed : int
        The draws (the coefficient matrix B depends on d only).

    Returns
    -------
    RegressionData
        :math:`x \\sim U[-1, 1]^3`, :math:`y = x B + \\varepsilon`, ε from ``law``, in three independent splits.

    Examples
    --------
    >>> data = make_regression("banana", dim=2, n_fit=50, n_cal=50, n_test=20, seed=0)
    >>> data.X_fit.shape, data.Y_fit.shape, data.Y_test.shape
    ((50, 3), (50, 2), (20, 2))
    """
    if law not in LAWS:
        raise ValueError(f"law: {law!r} is not an option; allowed {', '.join(map(repr, LAWS))}")
    if isinstance(dim, bool) or not (isinstance(dim, (int, np.integer)) and 1 <= dim <= 20):
        raise ValueError(f"dim: {dim!r} is out of range; allowed integers in [1, 20]")
    for name, n, low in (("n_fit", n_fit, 2), ("n_cal", n_cal, 1), ("n_test", n_test, 1)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < low:
            raise ValueError(f"{name}: {n!r} is out of range; allowed an integer >= {low}")
    parts = [sample_law(law, int(dim), int(n), seed, name) for name, n in (("fit", n_fit), ("cal", n_cal),
                                                                            ("test", n_test))]
    return RegressionData(*parts[0], *parts[1], *parts[2], law=law, dim=int(dim))


@dataclass
class RealData:
    """A real multi-output regression: inputs, outputs and their names.

    Attributes
    ----------
    X : numpy.ndarray
        ``(n, p)`` inputs.
    Y : numpy.ndarray
        ``(n, d)`` outputs.
    inputs : list of str
        The inputs' names.
    outputs : list of str
        The outputs' names.
    """

    X: np.ndarray
    Y: np.ndarray
    inputs: list
    outputs: list


def linnerud() -> RealData:
    """scikit-learn's linnerud: X (20, 3) exercises, Y (20, 3) weight, waist, pulse.

    Returns
    -------
    RealData
        20 rows; inputs Chins, Situps, Jumps; outputs Weight, Waist, Pulse.

    Examples
    --------
    >>> data = linnerud()
    >>> data.X.shape, data.outputs
    ((20, 3), ['Weight', 'Waist', 'Pulse'])
    """
    from sklearn.datasets import load_linnerud

    data = load_linnerud()
    return RealData(np.asarray(data.data, float), np.asarray(data.target, float), list(data.feature_names),
                    list(data.target_names))


MACRO_SERIES = ("realgdp", "realcons", "realinv")


def macro_var(lags: int = 2) -> RealData:
    """statsmodels' macrodata as a VAR(lags) regression: X (T - lags, 3 lags), Y (T - lags, 3).

    y_t = 100 * diff(log(series)); row t of X is (y_(t-1), ..., y_(t-lags)).

    Parameters
    ----------
    lags : int
        The VAR order p, 1 to 12.

    Returns
    -------
    RealData
        ``X`` of shape ``(T - p, 3 p)`` (lag 1's three series first), ``Y`` of shape ``(T - p, 3)``
        for realgdp, realcons, realinv, with T = 202 quarterly log-differences.

    Examples
    --------
    >>> data = macro_var(2)
    >>> data.X.shape, data.Y.shape, data.inputs[:3]
    ((200, 6), (200, 3), ['realgdp[t-1]', 'realcons[t-1]', 'realinv[t-1]'])
    """
    if isinstance(lags, bool) or not isinstance(lags, (int, np.integer)) or not 1 <= lags <= 12:
        raise ValueError(f"lags: {lags!r} is out of range; allowed an integer in [1, 12]")
    from statsmodels.datasets import macrodata

    frame = macrodata.load_pandas().data
    y = 100.0 * np.diff(np.log(frame[list(MACRO_SERIES)].to_numpy(float)), axis=0)
    X = np.hstack([y[lags - k - 1: len(y) - k - 1] for k in range(lags)])
    inputs = [f"{name}[t-{k + 1}]" for k in range(lags) for name in MACRO_SERIES]
    return RealData(X, y[lags:], inputs, list(MACRO_SERIES))


def split_real(data: RealData, n_fit: int, n_cal: int, seed: int = 0, name: str = "real") -> RegressionData:
    """A seeded random fit / calibration / test split of a real regression (the rest is the test split).

    Ours: the rows are permuted with ``derive_rng(seed, "real-split")`` and cut in that order, so each
    seed is one exchangeable draw of the three splits (for a time series such as :func:`macro_var` this
    treats the quarters as exchangeable, which they are not quite).

    Parameters
    ----------
    data : RealData
        The regression (:func:`linnerud`, :func:`macro_var`).
    n_fit : int
        Rows of the fit split, >= 2.
    n_cal : int
        Rows of the calibration split, >= 1; ``n_fit + n_cal`` must leave at least one test row.
    seed : int
        The permutation.
    name : str
        Stored as the split's ``law`` (what the data is).

    Returns
    -------
    RegressionData
        The three splits, ``dim`` the number of outputs.

    Examples
    --------
    >>> split = split_real(linnerud(), n_fit=8, n_cal=9, seed=0, name="linnerud")
    >>> split.X_fit.shape, split.Y_cal.shape, split.Y_test.shape, split.law
    ((8, 3), (9, 3), (3, 3), 'linnerud')
    """
    if not isinstance(data, RealData):
        raise ValueError(f"data: a {type(data).__name__}; allowed a RealData (linnerud(), macro_var())")
    n = len(data.X)
    for field, value, low in (("n_fit", n_fit, 2), ("n_cal", n_cal, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{field}: {value!r} is out of range; allowed an integer >= {low}")
    if n_fit + n_cal >= n:
        raise ValueError(f"n_cal: n_fit + n_cal = {n_fit + n_cal} leaves no test row of {n}; allowed n_fit + n_cal < {n}")
    order = derive_rng(seed, "real-split").permutation(n)
    fit, cal, test = order[:n_fit], order[n_fit:n_fit + n_cal], order[n_fit + n_cal:]
    return RegressionData(data.X[fit], data.Y[fit], data.X[cal], data.Y[cal], data.X[test], data.Y[test],
                          law=str(name), dim=int(data.Y.shape[1]))
