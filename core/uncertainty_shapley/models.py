"""Models with a Gaussian predictive p(y | x) and a Gaussian law of their features.

Every model answers ``predict(X) -> (mean (n, D), cov (n, D, D))`` and carries ``law`` (the
features' Gaussian law, used to fill in the features a coalition leaves out) and ``background``
(rows of observed features, the points a global attribution averages over). The linear-Gaussian
model also has the closed form of every coalition's predictive covariance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.config import check_range
from core.common.seeding import derive_rng


def psd_sqrt(cov: np.ndarray) -> np.ndarray:
    """A matrix root ``R`` with ``R @ R.T == cov`` that tolerates a singular (collinear) covariance."""
    w, v = np.linalg.eigh(0.5 * (cov + cov.T))
    return v * np.sqrt(np.clip(w, 0.0, None))


@dataclass
class FeatureLaw:
    r"""The features' Gaussian law :math:`X \sim \mathcal N(m, \Sigma_X)`.

    A coalition S keeps :math:`x_S` and fills the rest from the conditional law
    :math:`X_{\bar S} \mid x_S \sim \mathcal N(m_{\bar S} + K(x_S - m_S),\ \Sigma_{\bar S\bar S} - K\Sigma_{S\bar S})`,
    :math:`K = \Sigma_{\bar S S}\Sigma_{SS}^{-1}` (the observational, "conditional" game).

    Attributes
    ----------
    mean : ndarray, shape (d,)
        The features' mean :math:`m`.
    cov : ndarray, shape (d, d)
        Their covariance :math:`\Sigma_X` (positive semi-definite; collinear features are allowed).

    Examples
    --------
    >>> law = FeatureLaw(np.zeros(2), np.array([[1.0, 0.5], [0.5, 1.0]]))
    >>> K, cond = law.conditional([True, False])     # X2 given X1
    >>> K, cond
    (array([[0.5]]), array([[0.75]]))
    """

    mean: np.ndarray
    cov: np.ndarray

    def conditional(self, mask) -> tuple[np.ndarray, np.ndarray]:
        """``(K, cov)`` of the left-out features given the kept ones (``mask``: the coalition)."""
        mask = np.asarray(mask, dtype=bool)
        s, r = np.flatnonzero(mask), np.flatnonzero(~mask)
        if len(s) == 0:
            return np.zeros((len(r), 0)), self.cov[np.ix_(r, r)]
        K = np.linalg.lstsq(self.cov[np.ix_(s, s)], self.cov[np.ix_(s, r)], rcond=1e-12)[0].T
        cond = self.cov[np.ix_(r, r)] - K @ self.cov[np.ix_(s, r)]
        return K, 0.5 * (cond + cond.T)

    @classmethod
    def fit(cls, X) -> "FeatureLaw":
        X = np.asarray(X, dtype=float)
        return cls(X.mean(0), np.cov(X.T, bias=True).reshape(X.shape[1], X.shape[1]))


@dataclass
class LinearGaussian:
    r"""Multivariate linear-Gaussian regression :math:`Y = c + BX + \varepsilon`, :math:`\varepsilon\sim\mathcal N(0,\Sigma_\varepsilon)`.

    With Gaussian features, the predictive given a coalition S is Gaussian with covariance
    :math:`B_{\bar S}\,\Sigma_{\bar S\mid S}\,B_{\bar S}^\top + \Sigma_\varepsilon`, independent of
    :math:`x_S`, so every game value has a closed form (:meth:`closed_form_cov`).

    Attributes
    ----------
    coef : ndarray, shape (D, d)
        The coefficients :math:`B`.
    intercept : ndarray, shape (D,)
        The intercept :math:`c`.
    noise_cov : ndarray, shape (D, D)
        The noise covariance :math:`\Sigma_\varepsilon` (positive definite).
    law : FeatureLaw
        The features' Gaussian law, which fills in left-out features.
    background : ndarray, shape (n, d)
        Observed feature rows a global attribution averages over.
    feature_names : list of str
        One per feature (``X1``, ``X2``, ... if not given).
    output_names : list of str
        One per output component (``Y1``, ``Y2``, ... if not given).
    name : str
        A label for results and figures.

    Examples
    --------
    >>> m = linear_gaussian([[1.0, 0.0]], [[0.5]], n_background=4)
    >>> m.closed_form_cov([False, True])        # X1 unknown: its unit variance adds to the noise
    array([[1.5]])
    """

    coef: np.ndarray                 # (D, d)
    intercept: np.ndarray            # (D,)
    noise_cov: np.ndarray            # (D, D)
    law: FeatureLaw
    background: np.ndarray           # (n, d)
    feature_names: list = field(default_factory=list)
    output_names: list = field(default_factory=list)
    name: str = "linear-Gaussian"

    def __post_init__(self) -> None:
        D, d = np.shape(self.coef)
        self.feature_names = list(self.feature_names) or [f"X{i + 1}" for i in range(d)]
        self.output_names = list(self.output_names) or [f"Y{j + 1}" for j in range(D)]

    @property
    def n_features(self) -> int:
        return self.coef.shape[1]

    @property
    def n_outputs(self) -> int:
        return self.coef.shape[0]

    def predict(self, X) -> tuple[np.ndarray, np.ndarray]:
        X = np.asarray(X, dtype=float)
        mean = X @ self.coef.T + self.intercept
        return mean, np.broadcast_to(self.noise_cov, (len(X),) + self.noise_cov.shape)

    def closed_form_cov(self, mask) -> np.ndarray:
        """Covariance of Y given the features in ``mask`` (the others integrated out under ``law``)."""
        mask = np.asarray(mask, dtype=bool)
        _, cond = self.law.conditional(mask)
        Br = self.coef[:, ~mask]
        return Br @ cond @ Br.T + self.noise_cov


def linear_gaussian(coef, noise_cov, feature_cov=None, *, feature_mean=None, n_background: int = 64, seed: int = 0,
                    feature_names=(), output_names=(), name: str = "linear-Gaussian") -> LinearGaussian:
    """A :class:`LinearGaussian` from its coefficients, with background rows drawn from the feature law.

    Parameters
    ----------
    coef : array_like, shape (D, d)
        The coefficients B (a 1-D array is one output).
    noise_cov : array_like, shape (D, D)
        The noise covariance, positive definite.
    feature_cov : array_like, shape (d, d), optional
        The features' covariance, positive semi-definite (identity if None).
    feature_mean : array_like, shape (d,), optional
        The features' mean (zero if None).
    n_background : int
        Background rows drawn from the feature law, 1 to 100000.
    seed : int
        Seeds the background rows.
    feature_names : sequence of str
        Names of the features (default ``X1..Xd``).
    output_names : sequence of str
        Names of the outputs (default ``Y1..YD``).
    name : str
        The model's label.

    Returns
    -------
    LinearGaussian
        The model, with a zero intercept.

    Examples
    --------
    >>> m = linear_gaussian([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]], 0.5 * np.eye(2), n_background=8)
    >>> m.n_features, m.n_outputs, m.background.shape
    (3, 2, (8, 3))
    """
    n_background = check_range("n_background", n_background, 1, 100_000, integer=True)
    coef = np.atleast_2d(np.asarray(coef, dtype=float))
    D, d = coef.shape
    noise_cov = np.asarray(noise_cov, dtype=float).reshape(D, D)
    feature_cov = np.eye(d) if feature_cov is None else np.asarray(feature_cov, dtype=float).reshape(d, d)
    mean = np.zeros(d) if feature_mean is None else np.asarray(feature_mean, dtype=float)
    if np.linalg.eigvalsh(noise_cov).min() <= 0:
        raise ValueError("noise_cov: not positive definite; allowed symmetric positive-definite matrices")
    if np.linalg.eigvalsh(feature_cov).min() < -1e-12:
        raise ValueError("feature_cov: not positive semi-definite; allowed symmetric PSD matrices")
    rng = derive_rng(seed, "background")
    background = mean + rng.standard_normal((n_background, d)) @ psd_sqrt(feature_cov).T
    return LinearGaussian(coef, np.zeros(D), noise_cov, FeatureLaw(mean, feature_cov), background,
                          list(feature_names), list(output_names), name)


def random_linear_gaussian(d: int = 6, D: int = 3, seed: int = 0, feature_correlation: float = 0.3) -> LinearGaussian:
    r"""A random linear-Gaussian model: dense coefficients, correlated features, correlated noise.

    Coefficients are standard normal, each kept with probability 0.7; the noise covariance is
    :math:`0.3\,(AA^\top/D + I/2)` with :math:`A` standard normal; the features have the AR(1)
    correlation :math:`\rho^{|i-j|}`, :math:`\rho` = ``feature_correlation``; 64 background rows.

    Parameters
    ----------
    d : int
        Number of features, 1 to 64.
    D : int
        Number of output components, 1 to 32.
    seed : int
        Seeds the coefficients, the noise and the background rows.
    feature_correlation : float
        :math:`\rho`, in (-1, 1).

    Returns
    -------
    LinearGaussian

    Examples
    --------
    >>> m = random_linear_gaussian(4, 2, seed=0)
    >>> m.coef.shape, bool(np.all(np.linalg.eigvalsh(m.noise_cov) > 0))
    ((2, 4), True)
    """
    d = check_range("d", d, 1, 64, integer=True)
    D = check_range("D", D, 1, 32, integer=True)
    feature_correlation = check_range("feature_correlation", feature_correlation, -1.0, 1.0, low_open=True,
                                      high_open=True)
    rng = derive_rng(seed, "random_linear_gaussian")
    coef = rng.normal(size=(D, d)) * (rng.random((D, d)) < 0.7)
    A = rng.normal(size=(D, D))
    noise = 0.3 * (A @ A.T / D + 0.5 * np.eye(D))
    idx = np.arange(d)
    feat = feature_correlation ** np.abs(idx[:, None] - idx[None, :])
    return linear_gaussian(coef, noise, feat, seed=seed, name=f"random linear-Gaussian (d={d}, D={D})")
