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

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from core.common.config import check_range
from core.distributional_steering.base import GaussianMixtureBase


def exponential_tilt(base: GaussianMixtureBase, a) -> GaussianMixtureBase:
    """The exponential tilt p(x) e^{a.x} / Z of a Gaussian mixture, again a Gaussian mixture.

    .. math::

        w_k' ∝ w_k exp(a.m_k + a.S_k a / 2),   m_k' = m_k + S_k a,   S_k' = S_k

    Parameters
    ----------
    base : GaussianMixtureBase
        The mixture p (diagonal covariances S_k).
    a : array_like
        The tilt, one number per dimension.

    Returns
    -------
    GaussianMixtureBase
        The tilted mixture.

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> exponential_tilt(base, [0.5]).mean().round(4)
    array([0.5871])
    """
    a = np.asarray(a, dtype=float).reshape(base.dim)
    var = base.stds**2
    logw = np.log(base.weights) + base.means @ a + 0.5 * (var * a * a).sum(1)
    return GaussianMixtureBase(np.exp(logw - logsumexp(logw)), base.means + var * a, base.stds)


@dataclass
class MeanTilt:
    """The exact mean-calibration tilt of a Gaussian mixture.

    Attributes
    ----------
    a : numpy.ndarray
        [dim] the tilt solving a = -kappa (E_a[x] - target).
    tilted : GaussianMixtureBase
        p e^{a.x} / Z, the exact target of the steering run.
    """

    a: np.ndarray
    tilted: GaussianMixtureBase


def mean_calibration_tilt(base: GaussianMixtureBase, target, kappa: float = np.inf) -> MeanTilt:
    """The exact tilted target of the mean-calibration reward R(mu) = -(kappa/2) ||E_mu[x] - target||^2.

    .. math::

        mu* ∝ p e^{a.x},   a = -kappa (E_{mu*}[x] - target)

    found as the minimiser of the convex dual |a|^2 / (2 kappa) + log Z(a) - a.target (BFGS, exact
    moments); kappa = inf is the hard constraint E[x] = target (maximum entropy).

    Parameters
    ----------
    base : GaussianMixtureBase
        The base p.
    target : array_like
        One number per dimension.
    kappa : float
        > 0, the reward's strength; inf for the hard constraint.

    Returns
    -------
    MeanTilt
        a and the tilted mixture, with E_tilted[x] = target - a / kappa.

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> exact = mean_calibration_tilt(base, [0.3])
    >>> exact.tilted.mean().round(4), exact.a.round(4)
    (array([0.3]), array([0.2438]))
    """
    if not (np.isinf(kappa) and kappa > 0):
        check_range("kappa", kappa, 0, None, low_open=True)
    target = np.asarray(target, dtype=float).reshape(base.dim)
    inv = 0.0 if not np.isfinite(kappa) else 1.0 / kappa
    var = base.stds**2

    def log_z(a):
        return logsumexp(np.log(base.weights) + base.means @ a + 0.5 * (var * a * a).sum(1))

    def grad(a):
        return inv * a + exponential_tilt(base, a).mean() - target

    res = minimize(lambda a: 0.5 * inv * a @ a + log_z(a) - a @ target, np.zeros(base.dim), jac=grad,
                   method="BFGS", options={"gtol": 1e-12})
    return MeanTilt(res.x, exponential_tilt(base, res.x))


def tempered_grid(base: GaussianMixtureBase, gamma: float, axes: list[np.ndarray]) -> np.ndarray:
    """The entropy reward's exact tilt p^(1/(1+gamma)) on a grid, normalised to sum 1.

    R(mu) = gamma H(mu) has dR/dmu = -gamma log mu, so mu* = p e^{-gamma log mu*} gives
    mu* ∝ p^(1/(1+gamma)).

    Parameters
    ----------
    base : GaussianMixtureBase
        The base p.
    gamma : float
        >= 0, the entropy weight.
    axes : list of numpy.ndarray
        One 1-D array of grid points per dimension.

    Returns
    -------
    numpy.ndarray
        The masses on the grid, shaped [len(axes[0]), ...], summing to 1.

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> x = np.linspace(-3, 3, 61)
    >>> q = tempered_grid(base, 1.0, [x])
    >>> q.shape, round(float(q.sum()), 6), bool(q[30] > tempered_grid(base, 0.0, [x])[30])
    ((61,), 1.0, True)
    """
    check_range("gamma", gamma, 0, None)
    mesh = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, base.dim)
    logq = base.log_prob(mesh) / (1.0 + gamma)
    q = np.exp(logq - logq.max())
    return (q / q.sum()).reshape([len(a) for a in axes])


def grid_points(axes: list[np.ndarray]) -> np.ndarray:
    """The points of the grid spanned by ``axes`` (one array per dimension), [prod len, dim], 'ij' order."""
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(axes))


@dataclass
class GridTilt:
    """A linear tilt p e^{a.s} of a base, solved with its moments on a grid.

    Attributes
    ----------
    a : numpy.ndarray
        [k] the tilt, one number per statistic dimension.
    density : numpy.ndarray
        The tilted masses on the grid, shaped like it, summing to 1.
    """

    a: np.ndarray
    density: np.ndarray


def linear_tilt_grid(base: GaussianMixtureBase, axes: list[np.ndarray], statistic, target,
                     kappa: float = np.inf) -> GridTilt:
    """The tilt p e^{a.s} solving a = -kappa (E[s] - target) (kappa = inf: E[s] = target) on a grid.

    The moments are taken on the grid, so any statistic s works, exact up to the grid's quadrature
    error: the oracle for moment rewards on statistics other than x.

    Parameters
    ----------
    base : GaussianMixtureBase
        The base p.
    axes : list of numpy.ndarray
        One 1-D array of grid points per dimension.
    statistic : callable
        s(points [N, dim]) -> [N] or [N, k].
    target : array_like
        k numbers.
    kappa : float
        > 0, the reward's strength; inf for the hard constraint.

    Returns
    -------
    GridTilt
        a and the tilted density on the grid.

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> tilt = linear_tilt_grid(base, [np.linspace(-4, 4, 401)], lambda z: z, [0.3])
    >>> tilt.a.round(3), tilt.density.shape
    (array([0.244]), (401,))
    """
    from core.distributional_steering.rewards import solve_linear_tilt

    mesh = grid_points(axes)
    s = np.asarray(statistic(mesh), dtype=float).reshape(len(mesh), -1)
    logp = base.log_prob(mesh)
    a = solve_linear_tilt(s, logp, np.atleast_1d(np.asarray(target, dtype=float)), kappa)
    logq = logp + s @ a
    q = np.exp(logq - logq.max())
    return GridTilt(a, (q / q.sum()).reshape([len(x) for x in axes]))


def repulsion_grid(base: GaussianMixtureBase, gamma: float, bandwidth: float, axes: list[np.ndarray],
                   tol: float = 1e-10, max_iter: int = 2000) -> np.ndarray:
    """The kernel-repulsion tilt mu* proportional to p exp(-gamma int k(x, y) dmu*(y)) on a grid.

    k is the Gaussian kernel of width ``bandwidth``; it factorises over coordinates, so the smoothing
    int k(x, y) dmu(y) is one small matrix product per axis. The fixed point is found by the damped
    iteration phi <- phi + eta (F(phi) - phi), eta = 1 / (1 + gamma), halved when the residual grows
    (the map's slope is at most gamma). Returns the density normalised to sum 1, shaped like the grid.

    Parameters
    ----------
    base : GaussianMixtureBase
        The base p.
    gamma : float
        >= 0, the repulsion's strength.
    bandwidth : float
        > 0, the kernel's width.
    axes : list of numpy.ndarray
        One 1-D array of grid points per dimension.
    tol : float
        Stop when the potential's update spans less than this.
    max_iter : int
        At most this many iterations, >= 1.

    Returns
    -------
    numpy.ndarray
        mu* on the grid, shaped like it, summing to 1.

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> x = np.linspace(-3, 3, 61)
    >>> mu = repulsion_grid(base, 2.0, 0.5, [x])
    >>> round(float(mu.sum()), 6), bool((mu * x**2).sum() > (tempered_grid(base, 0.0, [x]) * x**2).sum())
    (1.0, True)
    """
    check_range("gamma", gamma, 0, None)
    check_range("bandwidth", bandwidth, 0, None, low_open=True)
    check_range("max_iter", max_iter, 1, None, integer=True)
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


def repulsion_potential(density: np.ndarray, axes: list[np.ndarray], gamma: float, bandwidth: float,
                        x) -> np.ndarray:
    """The mean-field repulsion potential phi*(x) = -gamma int k(x, y) dmu*(y) of a gridded mu*, at any points.

    With mu* from :func:`repulsion_grid` this is the exact first variation at the target, so
    softmax(b + phi*(z)) reweights particles z (base log-weights b) under the exact potential
    instead of the particles' own estimate: the paired check that separates the scheme's error from
    its samples' Monte Carlo error (issue 20). The Gaussian kernel factorises over coordinates, so
    the sum over the grid is one small product per axis.

    Parameters
    ----------
    density : numpy.ndarray
        mu* on the grid spanned by ``axes``, shaped like it (normalised here).
    axes : list of numpy.ndarray
        One 1-D array of grid points per dimension.
    gamma : float
        >= 0, the repulsion's strength.
    bandwidth : float
        > 0, the kernel's width (the reward's, for the check to mean anything).
    x : array_like
        [n, dim] points.

    Returns
    -------
    numpy.ndarray
        [n] phi*(x).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> g = np.linspace(-3, 3, 121)
    >>> mu = repulsion_grid(base, 2.0, 0.5, [g])
    >>> q = np.exp(base.log_prob(g[:, None]) + repulsion_potential(mu, [g], 2.0, 0.5, g[:, None]))
    >>> bool(np.abs(q / q.sum() - mu).max() < 1e-9)        # the fixed point: mu* = p exp(phi*) / Z
    True
    """
    check_range("gamma", gamma, 0, None)
    check_range("bandwidth", bandwidth, 0, None, low_open=True)
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(axes):
        raise ValueError(f"x: shape {x.shape}; allowed [n, {len(axes)}] (one column per grid axis)")
    out = np.asarray(density, dtype=float) / np.sum(density)
    out = out[None]                                              # [n or 1, g_1, ..., g_d], contracted axis by axis
    for k, grid in enumerate(axes):
        kern = np.exp(-0.5 * (x[:, k, None] - grid[None]) ** 2 / bandwidth**2)   # [n, g_k]
        out = np.einsum("ng,ng...->n...", kern, out) if k else np.einsum("ng,g...->n...", kern, out[0])
    return -gamma * out
