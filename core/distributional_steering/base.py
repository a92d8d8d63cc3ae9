"""Base models for steering: a Gaussian mixture with its exact time-dependent score.

Under the VP diffusion (:mod:`.sde`) a mixture sum_k w_k N(m_k, diag(s_k^2)) stays a mixture at every
time: p_t = sum_k w_k N(alpha_t m_k, diag(alpha_t^2 s_k^2 + sigma_t^2)), so its score is exact and
steering can be checked against closed forms with no model error. Any object with ``dim`` and
``score(x, t)`` (x [n, dim]) is a base; :mod:`.denoiser` gives learned ones.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from core.common.seeding import make_rng
from core.distributional_steering import sde


class GaussianMixtureBase:
    """A Gaussian mixture as a diffusion base model, with its exact score at every noise level.

    .. math::

        p_t = sum_k w_k N(alpha_t m_k, diag(alpha_t^2 s_k^2 + sigma_t^2))

    under the VP diffusion of :mod:`.sde`, so ``score(x, t)`` = grad log p_t(x) is exact and steering
    is checked against closed forms with no model error.

    Parameters
    ----------
    weights : array_like
        [K] nonnegative, summing to 1.
    means : array_like
        [K, dim] (or [K] for dim 1), dim 1 to 3.
    stds : array_like
        [K, dim] or [K, 1] (or [K]): positive standard deviations per component (and dimension).

    Raises
    ------
    ValueError
        For mismatched shapes, a dimension outside 1..3, weights that are negative or do not sum
        to 1, or a nonpositive std.

    Examples
    --------
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> base.dim, base.mean(), base.score(np.array([[1.0]]), t=0.5).round(3)
    (1, array([0.]), array([[-0.976]]))
    """

    def __init__(self, weights, means, stds):
        w = np.asarray(weights, dtype=float)
        m = np.asarray(means, dtype=float)
        m = m[:, None] if m.ndim == 1 else m
        s = np.asarray(stds, dtype=float)
        s = s[:, None] if s.ndim == 1 else s
        if w.ndim != 1 or len(w) == 0 or m.shape[0] != len(w) or s.shape[0] != len(w) or s.shape[1] not in (1, m.shape[1]):
            raise ValueError(f"means: {m.shape[0]} means and {s.shape[0]} stds for {w.size} weights; allowed one mean "
                             "and one std (or one std per dimension) per weight")
        s = np.broadcast_to(s, m.shape).copy()
        if m.shape[1] not in (1, 2, 3):
            raise ValueError(f"means: dimension {m.shape[1]}; allowed 1 to 3")
        if (w < 0).any() or not np.isclose(w.sum(), 1.0):
            raise ValueError(f"weights: {w.tolist()}; allowed nonnegative weights that sum to 1")
        if not (s > 0).all():
            raise ValueError("stds: must be positive; allowed > 0")
        self.weights, self.means, self.stds = w, m, s
        self.dim = m.shape[1]

    def _parts(self, x, t):
        a, v = sde.alpha(t), sde.sigma2(t)
        mean, var = a * self.means, a * a * self.stds**2 + v                 # [K, d]
        diff = x[:, None, :] - mean[None]                                      # [n, K, d]
        logp = (np.log(self.weights + 1e-300)[None] - 0.5 * (diff**2 / var + np.log(2 * np.pi * var)).sum(-1))
        return diff, var, logp

    def log_prob(self, x, t: float = 0.0) -> np.ndarray:
        """log p_t(x) for points x [n, dim] (t = 0: the data distribution)."""
        x = np.asarray(x, dtype=float).reshape(-1, self.dim)
        if t == 0.0:   # the data distribution itself (sde.alpha(0) = 1, sigma(0) = 0)
            diff = x[:, None, :] - self.means[None]
            var = self.stds**2
            logp = np.log(self.weights + 1e-300)[None] - 0.5 * (diff**2 / var + np.log(2 * np.pi * var)).sum(-1)
            return logsumexp(logp, axis=1)
        return logsumexp(self._parts(x, t)[2], axis=1)

    def score(self, x, t: float) -> np.ndarray:
        """grad_x log p_t(x), [n, dim], exact."""
        diff, var, logp = self._parts(x, t)
        r = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))             # responsibilities [n, K]
        return -(r[:, :, None] * diff / var[None]).sum(1)

    def sample(self, n: int, seed: int) -> np.ndarray:
        """n exact samples [n, dim] of p_0, seeded."""
        rng = make_rng(seed)
        k = rng.choice(len(self.weights), size=n, p=self.weights)
        return self.means[k] + self.stds[k] * rng.standard_normal((n, self.dim))

    def mean(self) -> np.ndarray:
        """E_p[x], [dim]."""
        return self.weights @ self.means
