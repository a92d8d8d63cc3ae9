"""Exact tilted targets for Gaussian-mixture bases, the oracles the particle scheme is tested against.

- exponential tilt p(x) e^{a.x} of sum_k w_k N(m_k, S_k): weights proportional to
  w_k exp(a.m_k + a.S_k a / 2), means m_k + S_k a (S_k diagonal here);
- mean calibration: the a solving a = -kappa (E_a[x] - target), from the convex dual with exact
  moments (kappa = inf: the hard constraint E[x] = target, maximum-entropy);
- entropy tempering p^(1/(1+gamma)) on a grid (1-D and 2-D), normalised numerically.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from core.distributional_steering.base import GaussianMixtureBase


def exponential_tilt(base: GaussianMixtureBase, a) -> GaussianMixtureBase:
    a = np.asarray(a, dtype=float).reshape(base.dim)
    var = base.stds**2
    logw = np.log(base.weights) + base.means @ a + 0.5 * (var * a * a).sum(1)
    return GaussianMixtureBase(np.exp(logw - logsumexp(logw)), base.means + var * a, base.stds)


def mean_calibration_tilt(base: GaussianMixtureBase, target, kappa: float = np.inf):
    """(a, tilted base) with E_tilted[x] = target - a / kappa."""
    target = np.asarray(target, dtype=float).reshape(base.dim)
    inv = 0.0 if not np.isfinite(kappa) else 1.0 / kappa
    var = base.stds**2

    def log_z(a):
        return logsumexp(np.log(base.weights) + base.means @ a + 0.5 * (var * a * a).sum(1))

    def grad(a):
        return inv * a + exponential_tilt(base, a).mean() - target

    res = minimize(lambda a: 0.5 * inv * a @ a + log_z(a) - a @ target, np.zeros(base.dim), jac=grad,
                   method="BFGS", options={"gtol": 1e-12})
    return res.x, exponential_tilt(base, res.x)


def tempered_grid(base: GaussianMixtureBase, gamma: float, axes: list[np.ndarray]) -> np.ndarray:
    """p^(1/(1+gamma)) on the grid spanned by ``axes`` (one array per dimension), summing to 1."""
    mesh = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, base.dim)
    logq = base.log_prob(mesh) / (1.0 + gamma)
    q = np.exp(logq - logq.max())
    return (q / q.sum()).reshape([len(a) for a in axes])
