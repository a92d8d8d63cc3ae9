"""Resampling of weighted particles (the SMC step) and the effective sample size."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from core.common.config import check_choice

SCHEMES = ("systematic", "stratified", "multinomial")


def ess(logw: np.ndarray) -> float:
    """Kish's effective sample size of log-weights.

    .. math::

        ESS = (sum_i w_i)^2 / sum_i w_i^2 = 1 / sum_i wbar_i^2,   wbar = softmax(logw)

    Parameters
    ----------
    logw : numpy.ndarray
        [n] unnormalised log-weights.

    Returns
    -------
    float
        In [1, n]: n for equal weights, 1 when one particle holds all the weight.

    References
    ----------
    Kish, "Survey sampling", 1965.

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import ess
    >>> round(ess(np.zeros(10)), 6), round(ess(np.log([1.0, 1.0, 1e-12, 1e-12])), 6)
    (10.0, 2.0)
    """
    return float(np.exp(2 * logsumexp(logw) - logsumexp(2 * logw)))


def resample(logw: np.ndarray, rng: np.random.Generator, scheme: str = "systematic") -> np.ndarray:
    """Indices of the particles to keep: n draws with probabilities softmax(logw).

    Parameters
    ----------
    logw : numpy.ndarray
        [n] unnormalised log-weights.
    rng : numpy.random.Generator
        The generator drawn from.
    scheme : str
        "systematic" (one uniform, n evenly spaced points), "stratified" (one uniform per stratum)
        or "multinomial" (n independent draws).

    Returns
    -------
    numpy.ndarray
        [n] ancestor indices, nondecreasing; each particle i appears about n wbar_i times.

    Raises
    ------
    ValueError
        For an unknown scheme.

    References
    ----------
    Douc, Cappé and Moulines, "Comparison of resampling schemes for particle filtering", 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import resample
    >>> resample(np.log([0.5, 0.25, 0.25, 1e-12]), np.random.default_rng(0))
    array([0, 0, 1, 2])
    """
    check_choice("scheme", scheme, SCHEMES)
    n = len(logw)
    cdf = np.cumsum(np.exp(logw - logsumexp(logw)))
    cdf[-1] = 1.0
    if scheme == "systematic":
        u = (rng.random() + np.arange(n)) / n
    elif scheme == "stratified":
        u = (rng.random(n) + np.arange(n)) / n
    else:
        u = np.sort(rng.random(n))
    return np.minimum(np.searchsorted(cdf, u, side="right"), n - 1)
