"""Distribution-level rewards R(mu), their first variations, and the self-consistent tilt.

The steering target (our reading of the paper's mean-field tilted measure) maximises R(mu) - KL(mu || p):

    mu*(x)  proportional to  p(x) exp(phi(x)),   phi = dR/dmu [mu*]      (self-consistent)

On particles z_i with base log-weights b_i (log dP/dQ of their lineage), mu is the weighted empirical
measure sum_i softmax(b + phi)_i delta_{z_i}, and ``solve(z, b)`` returns the phi that is consistent
with it, as a :class:`Potential` (values at the particles, and ``at(x)`` elsewhere with the solved
state frozen, for guidance gradients).

| reward | R(mu) | dR/dmu(x) | how the tilt is solved |
|---|---|---|---|
| PointwiseReward(fn, lam) | lam E[fn] | lam fn(x) | no self-consistency needed |
| MeanCalibration(target, kappa) | -(kappa/2) ||E[s] - target||^2 | -kappa (E[s] - target) . s(x) = a . s(x) | convex dual, Newton (trust-exact) |
| MomentConstraint(target) | hard E[s] = target | a . s(x) | maximum-entropy dual, Newton |
| EntropyReward(gamma, h) | gamma H(mu) | -gamma log mu(x) (+ const) | closed form -gamma/(1+gamma) log p, KDE for p |
| KernelRepulsion(gamma, h) | -(gamma/2) E k(X, X') | -gamma E_mu k(x, X) | damped fixed point |
| MMDToTarget(samples, kappa, h) | -(kappa/2) MMD^2(mu, nu) | -kappa (E_mu k(x,X) - E_nu k(x,Y)) | damped fixed point |

Why not the plain fixed point: for mean calibration the map a -> -kappa (E_a[s] - target) has slope
-kappa Var_a(s); plugging the current measure into phi once (``naive=True``, kept for the demo)
oscillates and diverges when kappa Var > 1. The dual F(a) = |a|^2/(2 kappa) + log Z(a) - a.target is
convex with gradient a/kappa + E_a[s] - target, so Newton finds the root whatever kappa Var is. For the entropy the
fixed point is explicit: mu = p e^phi with phi = -gamma log mu gives phi = -gamma/(1+gamma) log p, and
p is a weighted KDE of the particles under their base weights softmax(b) (the KDE's smoothing makes
the tempered variance slightly low: for a Gaussian, 1/v = 1 - gamma/(1+gamma)/(1+h^2)). The other
kernel rewards use a damped iteration phi <- phi + eta (F(phi) - phi) with eta = 1/(1 + slope bound),
halved whenever the residual grows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.optimize import minimize
from scipy.spatial.distance import cdist
from scipy.special import logsumexp, softmax

from core.common.config import check_range


@dataclass
class Potential:
    values: np.ndarray                      # phi at the particles it was solved on
    at: Callable[[np.ndarray], np.ndarray]  # phi at other points, solved state frozen
    params: dict = field(default_factory=dict)


def _stat(statistic, z):
    s = np.asarray(statistic(z) if statistic is not None else z, dtype=float)
    return s.reshape(len(z), -1)


class PointwiseReward:
    """R(mu) = lam E_mu[fn]: linear in mu, so the tilt is the pointwise p exp(lam fn) (FK steering)."""

    name = "pointwise"

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], lam: float = 1.0):
        self.fn, self.lam = fn, check_range("lam", lam, -1e3, 1e3)

    def solve(self, z, base_logw, previous=None) -> Potential:
        at = lambda x: self.lam * np.asarray(self.fn(x), dtype=float).reshape(len(x))  # noqa: E731
        return Potential(at(z), at)


class MeanCalibration:
    """R(mu) = -(kappa/2) ||E_mu[s] - target||^2 with s = ``statistic`` (identity by default)."""

    name = "mean calibration"

    def __init__(self, target, kappa: float, statistic=None, naive: bool = False):
        self.target = np.atleast_1d(np.asarray(target, dtype=float))
        if not np.isfinite(self.target).all():
            raise ValueError("target: must be finite; allowed real numbers")
        self.kappa = check_range("kappa", kappa, 0, 1e6, low_open=True) if np.isfinite(kappa) else np.inf
        self.statistic, self.naive = statistic, naive

    def _check(self, s):
        if s.shape[1] != self.target.size:
            raise ValueError(f"target: {self.target.size} values for a statistic of dimension {s.shape[1]}; "
                             f"allowed {s.shape[1]} values")

    def solve(self, z, base_logw, previous=None) -> Potential:
        s = _stat(self.statistic, z)
        self._check(s)
        b = np.asarray(base_logw, dtype=float)
        if self.naive:   # one plug-in step from the previous tilt: the iteration the docstring warns about
            a_prev = previous.params["a"] if previous is not None else np.zeros(s.shape[1])
            w = softmax(b + s @ a_prev)
            a = -self.kappa * (w @ s - self.target)
        else:
            a = solve_linear_tilt(s, b, self.target, self.kappa)
        w = softmax(b + s @ a)
        at = lambda x: _stat(self.statistic, x) @ a  # noqa: E731
        return Potential(s @ a, at, {"a": a, "mean": w @ s})


class MomentConstraint(MeanCalibration):
    """E_mu[s] = target exactly: maximum-entropy reweighting (the kappa -> infinity limit)."""

    name = "moment constraint"

    def __init__(self, target, statistic=None):
        super().__init__(target, np.inf, statistic)


def solve_linear_tilt(s: np.ndarray, b: np.ndarray, target: np.ndarray, kappa: float) -> np.ndarray:
    """The root a of a/kappa + E_{softmax(b + s a)}[s] - target, by Newton on the convex dual.

    With kappa = inf this is the maximum-entropy dual log Z(a) - a.target; when the target lies
    outside the particles' hull (no root) a small ridge keeps a finite and the closest mean is used.
    """
    inv = 0.0 if not np.isfinite(kappa) else 1.0 / kappa
    ridge = max(inv, 1e-8)

    memo = {}

    def parts(a):   # f, gradient and Hessian share one softmax; scipy asks for them separately
        key = a.tobytes()
        if key not in memo:
            logits = b + s @ a
            w = softmax(logits)
            mean = w @ s
            f = 0.5 * ridge * a @ a + logsumexp(logits) - logsumexp(b) - a @ target
            cov = (s - mean).T @ ((s - mean) * w[:, None])
            memo.clear()
            memo[key] = (f, ridge * a + mean - target, cov + ridge * np.eye(len(a)))
        return memo[key]

    res = minimize(lambda a: parts(a)[0], np.zeros(s.shape[1]), jac=lambda a: parts(a)[1],
                   hess=lambda a: parts(a)[2], method="trust-exact", options={"gtol": 1e-10, "maxiter": 60})
    return res.x


def _kernel(x, y, h):
    return np.exp(-0.5 * cdist(x, y, "sqeuclidean").astype(np.float32) / np.float32(h * h))


def _bandwidth(z, w, h):
    if h is not None:
        return h
    sd = np.sqrt(np.average((z - np.average(z, axis=0, weights=w)) ** 2, axis=0, weights=w).mean())
    return 0.5 * sd * len(z) ** (-1 / (z.shape[1] + 4))   # half of Scott's rule: less smoothing bias


def damped_fixed_point(b, update, slope: float, tol: float = 1e-7, max_iter: int = 500):
    """phi with phi = update(softmax(b + phi)), by phi <- phi + eta (update - phi), eta = 1/(1 + slope)."""
    phi = np.zeros_like(b)
    eta, last = 1.0 / (1.0 + slope), np.inf
    for _ in range(max_iter):
        step = update(softmax(b + phi)) - phi
        residual = np.abs(step - step.mean()).max()   # phi is defined up to a constant
        if residual < tol:
            break
        if residual > last:
            eta *= 0.5
        phi, last = phi + eta * step, residual
    return phi


class _KernelReward:
    def _gram(self, z, b):
        self.h = _bandwidth(z, softmax(b), self.bandwidth)
        return _kernel(z, z, self.h)


class EntropyReward(_KernelReward):
    """R(mu) = gamma H(mu): the tilt tempers the base, mu* proportional to p^(1/(1 + gamma))."""

    name = "entropy"

    def __init__(self, gamma: float, bandwidth: float | None = None):
        self.gamma = check_range("gamma", gamma, 0, 100)
        self.bandwidth = None if bandwidth is None else check_range("bandwidth", bandwidth, 0, 1e3, low_open=True)

    def solve(self, z, base_logw, previous=None) -> Potential:
        b = np.asarray(base_logw, dtype=float)
        w_base, c = softmax(b), self.gamma / (1.0 + self.gamma)
        gram, h = self._gram(z, b), self.h
        density = gram @ w_base      # leave-one-out was tried: isolated particles then get p = 0 and all weight
        at = lambda x: -c * np.log(_kernel(np.asarray(x), z, h) @ w_base + 1e-300)  # noqa: E731
        return Potential(-c * np.log(density + 1e-300), at, {"bandwidth": h})


class KernelRepulsion(_KernelReward):
    """R(mu) = -(gamma/2) E k(X, X'): pushes mass apart (diversity), a Gaussian kernel of width h."""

    name = "kernel repulsion"

    def __init__(self, gamma: float, bandwidth: float | None = None):
        self.gamma = check_range("gamma", gamma, 0, 1e3)
        self.bandwidth = None if bandwidth is None else check_range("bandwidth", bandwidth, 0, 1e3, low_open=True)

    def solve(self, z, base_logw, previous=None) -> Potential:
        b = np.asarray(base_logw, dtype=float)
        gram = self._gram(z, b)
        phi = damped_fixed_point(b, lambda w: -self.gamma * (gram @ w), slope=self.gamma)
        w, h = softmax(b + phi), self.h
        at = lambda x: -self.gamma * (_kernel(np.asarray(x), z, h) @ w)  # noqa: E731
        return Potential(phi, at, {"bandwidth": h})


class MMDToTarget(_KernelReward):
    """R(mu) = -(kappa/2) MMD^2(mu, nu) to target samples y ~ nu, Gaussian kernel of width h."""

    name = "MMD to target"

    def __init__(self, target_samples, kappa: float, bandwidth: float = 0.5):
        self.y = np.asarray(target_samples, dtype=float)
        if self.y.ndim != 2 or len(self.y) < 2:
            raise ValueError(f"target_samples: shape {self.y.shape}; allowed [m >= 2, dim]")
        self.kappa = check_range("kappa", kappa, 0, 1e4)
        self.bandwidth = check_range("bandwidth", bandwidth, 0, 1e3, low_open=True)

    def solve(self, z, base_logw, previous=None) -> Potential:
        b = np.asarray(base_logw, dtype=float)
        gram = self._gram(z, b)
        pull = _kernel(z, self.y, self.h).mean(1)
        phi = damped_fixed_point(b, lambda w: -self.kappa * (gram @ w - pull), slope=self.kappa)
        w, h, y = softmax(b + phi), self.h, self.y
        at = lambda x: -self.kappa * (_kernel(np.asarray(x), z, h) @ w - _kernel(np.asarray(x), y, h).mean(1))  # noqa: E731
        return Potential(phi, at, {"bandwidth": h})
