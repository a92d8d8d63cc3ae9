"""Split conformal prediction regions for multi-output regression, scikit-learn style.

``SplitConformalRegressor(estimator, score).fit(X, Y)`` splits (X, Y) into a fit part and a
calibration part (``cal_fraction``, a seeded permutation), fits the multi-output regressor and the
score's geometry on the fit part's residuals, and keeps the calibration scores. The region at
level alpha is {y : s(y - y_hat(x)) <= q_hat}, q_hat the ceil((n_cal + 1)(1 - alpha))-th smallest
calibration score (+inf when that rank exceeds n_cal), which gives P(Y in region) >= 1 - alpha for
exchangeable data, and <= 1 - alpha + 1/(n_cal + 1) when scores have no ties.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_rng


def conformal_rank(n: int, alpha: float) -> int:
    """ceil((n + 1)(1 - alpha)), the 1-based rank of the calibration score used as threshold.

    Parameters
    ----------
    n : int
        Number of calibration scores, >= 1.
    alpha : float
        Miscoverage level, in (0, 1).

    Returns
    -------
    int
        .. math:: k = \\lceil (n + 1)(1 - \\alpha) \\rceil,

        which exceeds ``n`` (an infinite threshold) when :math:`\\alpha < 1/(n + 1)`.

    References
    ----------
    .. [1] Vovk, Gammerman, Shafer, *Algorithmic Learning in a Random World*, 2005 (split conformal).

    Examples
    --------
    >>> conformal_rank(9, 0.1), conformal_rank(9, 0.05)
    (9, 10)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n: {n!r} is not a count of scores; allowed an integer >= 1")
    if isinstance(alpha, bool) or not np.isfinite(alpha) or not 0 < alpha < 1:
        raise ValueError(f"alpha: {alpha} is out of range; allowed (0, 1)")
    # A small tolerance so that (n + 1)(1 - alpha) = 90.000000001 from rounding still gives 90.
    return int(math.ceil((n + 1) * (1 - alpha) - 1e-9))


def conformal_quantile(scores: np.ndarray, alpha: float) -> float:
    """The split-conformal threshold: the ceil((n+1)(1-alpha))-th smallest score, or inf past n.

    Parameters
    ----------
    scores : numpy.ndarray
        The calibration scores (any shape, at least one, no NaN).
    alpha : float
        Miscoverage level, in (0, 1).

    Returns
    -------
    float
        :math:`\\hat q`, so that :math:`P(s(Y - \\hat y(X)) \\le \\hat q) \\ge 1 - \\alpha` for
        exchangeable data (and :math:`\\le 1 - \\alpha + 1/(n + 1)` without ties).

    Examples
    --------
    >>> conformal_quantile(np.arange(1.0, 10.0), 0.1), conformal_quantile(np.arange(1.0, 10.0), 0.05)
    (9.0, inf)
    """
    scores = np.sort(np.asarray(scores, float).ravel())
    if scores.size < 1 or np.any(np.isnan(scores)):
        raise ValueError(f"scores: {scores.size} scores with NaN among them or none; allowed at least one number")
    k = conformal_rank(scores.size, alpha)
    return float("inf") if k > scores.size else float(scores[k - 1])


@dataclass
class Region:
    """Prediction regions at one level: {y : score(y - centre) <= threshold} for each row of X.

    Attributes
    ----------
    centre : numpy.ndarray
        ``(m, d)`` the predictions ŷ(x), one per row of X.
    threshold : float
        The conformal threshold q̂ (inf: the whole space).
    alpha : float
        The miscoverage level.
    """

    centre: np.ndarray
    threshold: float
    alpha: float


def default_regressor():
    from sklearn.linear_model import LinearRegression

    return LinearRegression()


class SplitConformalRegressor:
    """Split-conformal regions around a multi-output regressor with a multivariate score.

    Parameters
    ----------
    estimator : scikit-learn regressor, optional
        Supporting 2-D targets (LinearRegression, KNeighborsRegressor, RandomForestRegressor, or a
        MultiOutputRegressor); LinearRegression if None.
    score : object, optional
        An unfitted score from :mod:`.scores` (``fit(R, X)``, ``score(R, X)``); the global
        ellipsoid if None.
    cal_fraction : float
        Share of the data held out for calibration, in (0, 1).
    seed : int
        Seeds the fit/calibration split.

    Attributes
    ----------
    fit_residuals_ : numpy.ndarray
        ``(n_fit, d)`` residuals the score was fitted on.
    cal_residuals_ : numpy.ndarray
        ``(n_cal, d)`` calibration residuals.
    cal_scores_ : numpy.ndarray
        ``(n_cal,)`` their scores.

    Examples
    --------
    >>> data = make_regression("banana", dim=2, n_fit=50, n_cal=50, n_test=20, seed=0)
    >>> model = SplitConformalRegressor(score=make_score("mks")).fit_split(data.X_fit, data.Y_fit,
    ...                                                                    data.X_cal, data.Y_cal)
    >>> round(model.threshold(0.1), 3), float(model.contains(data.X_test, data.Y_test, 0.1).mean())
    (15.692, 0.8)
    """

    def __init__(self, estimator=None, score=None, cal_fraction: float = 0.5, seed: int = 0):
        from core.kernel_conformal.scores import GlobalEllipsoid

        if isinstance(cal_fraction, bool) or not np.isfinite(cal_fraction) or not 0 < cal_fraction < 1:
            raise ValueError(f"cal_fraction: {cal_fraction} is out of range; allowed (0, 1)")
        self.estimator = estimator if estimator is not None else default_regressor()
        self.score = score if score is not None else GlobalEllipsoid()
        self.cal_fraction, self.seed = float(cal_fraction), int(seed)

    def fit(self, X, Y):
        X, Y = np.asarray(X, float), np.asarray(Y, float)
        if Y.ndim != 2 or len(X) != len(Y):
            raise ValueError(f"Y: shape {Y.shape} with {len(X)} inputs; allowed (n, d) with one row per input")
        order = derive_rng(self.seed, "split").permutation(len(X))
        n_cal = int(round(self.cal_fraction * len(X)))
        if n_cal < 1 or len(X) - n_cal < 2:
            raise ValueError(f"X: {len(X)} rows are too few to split; allowed at least 3")
        cal, fit = order[:n_cal], order[n_cal:]
        return self.fit_split(X[fit], Y[fit], X[cal], Y[cal])

    def fit_split(self, X_fit, Y_fit, X_cal, Y_cal):
        """Fit on a given split (the experiments draw the two parts separately)."""
        X_fit, Y_fit, X_cal, Y_cal = (np.asarray(a, float) for a in (X_fit, Y_fit, X_cal, Y_cal))
        self.estimator.fit(X_fit, Y_fit)
        self.fit_residuals_ = Y_fit - self.predict(X_fit)
        self.score.fit(self.fit_residuals_, X_fit)
        self.cal_residuals_ = Y_cal - self.predict(X_cal)
        self.cal_scores_ = np.asarray(self.score.score(self.cal_residuals_, X_cal), float)
        return self

    def predict(self, X) -> np.ndarray:
        Y = np.asarray(self.estimator.predict(np.asarray(X, float)), float)
        return Y[:, None] if Y.ndim == 1 else Y

    def threshold(self, alpha: float) -> float:
        return conformal_quantile(self.cal_scores_, alpha)

    def predict_region(self, X, alpha: float = 0.1) -> Region:
        return Region(self.predict(X), self.threshold(alpha), float(alpha))

    def test_scores(self, X, Y) -> np.ndarray:
        X = np.asarray(X, float)
        return np.asarray(self.score.score(np.asarray(Y, float) - self.predict(X), X), float)

    def contains(self, X, Y, alpha: float = 0.1) -> np.ndarray:
        """Whether each Y[i] lies in the region of X[i] at level alpha."""
        return self.test_scores(X, Y) <= self.threshold(alpha)
