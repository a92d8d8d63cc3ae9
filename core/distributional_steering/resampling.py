"""Resampling of weighted particles (the SMC step) and the effective sample size."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

SCHEMES = ("systematic", "stratified", "multinomial")


def ess(logw: np.ndarray) -> float:
    """Kish's effective sample size 1 / sum w_i^2 of the normalised weights."""
    return float(np.exp(2 * logsumexp(logw) - logsumexp(2 * logw)))


def resample(logw: np.ndarray, rng: np.random.Generator, scheme: str = "systematic") -> np.ndarray:
    """Indices of the particles to keep: n draws with probabilities softmax(logw)."""
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
