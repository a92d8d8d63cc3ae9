"""Exact tilted targets for Gaussian-mixture bases, the oracles the particle scheme is tested against.

- exponential tilt p(x) e^{a.x} of sum_k w_k N(m_k, S_k): weights proportional to
  w_k exp(a.m_k + a.S_k a / 2), means m_k + S_k a (S_k diagonal here);
- mean calibration: the a solving a = -kappa (E_a[x] - target), from the convex dual with exact
  moments (kappa = inf: the hard constraint E[x] = target, maximum-entropy);
- entropy tempering p^(1/(1+gamma)) on a grid (1-D and 2-D), normalised numerically;
- any linear tilt p e^{a.s} (a moment constraint on any statistic s, soft or hard) with its moments
  taken on a grid, and the kernel-repulsion fixed point on a grid (the kernel factorises over axes).
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


def grid_points(axes: list[np.ndarray]) -> np.ndarray:
    """The points of the grid spanned by ``axes`` (one array per dimension), [prod len, dim], 'ij' order."""
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(axes))


def linear_tilt_grid(base: GaussianMixtureBase, axes: list[np.ndarray], statistic, target, kappa: float = np.inf):
    """(a, density) of the tilt p e^{a.s} solving a = -kappa (E[s] - target) (kappa = inf: E[s] = target),
    with the moments taken on the grid: any statistic, exact up to the grid's quadrature error.

    The density is normalised to sum 1 over the grid and shaped like the grid.
    """
    from core.distributional_steering.rewards import solve_linear_tilt

    mesh = grid_points(axes)
    s = np.asarray(statistic(mesh), dtype=float).reshape(len(mesh), -1)
    logp = base.log_prob(mesh)
    a = solve_linear_tilt(s, logp, np.atleast_1d(np.asarray(target, dtype=float)), kappa)
    logq = logp + s @ a
    q = np.exp(logq - logq.max())
    return a, (q / q.sum()).reshape([len(x) for x in axes])


def repulsion_grid(base: GaussianMixtureBase, gamma: float, bandwidth: float, axes: list[np.ndarray],
                   tol: float = 1e-10, max_iter: int = 2000) -> np.ndarray:
    """The kernel-repulsion tilt mu* proportional to p exp(-gamma int k(x, y) dmu*(y)) on a grid.

    k is the Gaussian kernel of width ``bandwidth``; it factorises over coordinates, so the smoothing
    int k(x, y) dmu(y) is one small matrix product per axis. The fixed point is found by the damped
    iteration phi <- phi + eta (F(phi) - phi), eta = 1 / (1 + gamma), halved when the residual grows
    (the map's slope is at most gamma). Returns the density normalised to sum 1, shaped like the grid.
    """
    shape = [len(x) for x in axes]
    logp = base.log_prob(grid_points(axes)).reshape(shape)
    kernels = [np.exp(-0.5 * (x[:, None] - x[None]) ** 2 / bandwidth**2) for x in axes]

    def smooth(mu):
        out = mu
        for axis, k in enumerate(kernels):
            out = np.moveaxis(np.tensordot(k, np.moveaxis(out, axis, 0), axes=1), 0, axis)
        return out

    def measure(phi):
        logq = logp + phi
        q = np.exp(logq - logq.max())
        return q / q.sum()

    phi, eta, last = np.zeros(shape), 1.0 / (1.0 + gamma), np.inf
    for _ in range(max_iter):
        step = -gamma * smooth(measure(phi)) - phi
        residual = float(np.ptp(step))
        if residual < tol:
            break
        if residual > last:
            eta *= 0.5
        phi, last = phi + eta * step, residual
    return measure(phi)
