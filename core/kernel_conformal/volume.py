"""Region volumes: exact for ellipsoids and boxes, Monte Carlo (with its standard error) for MKS.

The ellipsoid {r : ||Sigma^(-1/2) r|| <= q} has volume V_d q^d sqrt(det Sigma), V_d = pi^(d/2) /
Gamma(d/2 + 1). A residual-space region {r : s(r) <= q} of MKS is estimated by importance
sampling (ours): draw r from a defensive mixture g = 1/2 KDE (Gaussians of covariance tau^2 S at the
fit residuals, S their covariance, tau = 0.5 by default) + 1/2 multivariate Student-t (3 degrees
of freedom, scale 4 S, at their mean), and average 1{s(r) <= q} / g(r). It is unbiased for every
region (g > 0 everywhere), its variance is finite for bounded regions, and unlike a bounding box
it keeps working in dimension 10. A threshold at or above the score's plateau means the region is
unbounded: its volume is reported as inf.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import multivariate_t

from core.common.seeding import derive_rng


def log_unit_ball(d: int) -> float:
    return 0.5 * d * np.log(np.pi) - gammaln(d / 2 + 1)


def ellipsoid_volume(Sigma: np.ndarray, q: float) -> np.ndarray:
    """V_d q^d sqrt(det Sigma) for one (d, d) or a stack (m, d, d) of shape matrices.

    Parameters
    ----------
    Sigma : numpy.ndarray
        ``(d, d)`` or ``(m, d, d)`` positive definite shape matrices.
    q : float
        The threshold, >= 0 (inf gives an infinite volume).

    Returns
    -------
    float or numpy.ndarray
        The volume of :math:`\\{r : \\lVert \\Sigma^{-1/2} r \\rVert \\le q\\}`,

        .. math:: V_d\\, q^d \\sqrt{\\det \\Sigma}, \\qquad V_d = \\frac{\\pi^{d/2}}{\\Gamma(d/2 + 1)},

        a scalar for one matrix, ``(m,)`` for a stack.

    Examples
    --------
    >>> round(float(ellipsoid_volume(np.eye(2), 1.0)), 4), ellipsoid_volume(np.stack([np.eye(2), 4 * np.eye(2)]), 1.0)
    (3.1416, array([ 3.1416, 12.5664]))
    """
    Sigma = np.asarray(Sigma, float)
    if Sigma.ndim not in (2, 3) or Sigma.shape[-1] != Sigma.shape[-2] or not np.all(np.isfinite(Sigma)):
        raise ValueError(f"Sigma: shape {Sigma.shape}; allowed a finite (d, d) or (m, d, d) array")
    if isinstance(q, bool) or np.isnan(q) or q < 0:
        raise ValueError(f"q: {q!r} is not a threshold; allowed a number >= 0 or inf")
    d = Sigma.shape[-1]
    if not np.isfinite(q):
        return np.full(Sigma.shape[:-2], np.inf) if Sigma.ndim > 2 else np.inf
    _, logdet = np.linalg.slogdet(Sigma)
    return np.exp(log_unit_ball(d) + d * np.log(q) + 0.5 * logdet)


def box_volume(half_widths: np.ndarray) -> float:
    return float(np.prod(2.0 * np.asarray(half_widths, float)))


@dataclass
class MonteCarloVolume:
    """An importance-sampling estimate of a region's volume.

    Attributes
    ----------
    volume : float
        The estimate (inf for an unbounded region).
    std_error : float
        Its standard error (NaN for an unbounded region).
    n_samples : int
        Proposal draws used (0 for an unbounded region).
    inside_share : float
        Share of the draws inside the region.
    """

    volume: float
    std_error: float
    n_samples: int
    inside_share: float


class MixtureProposal:
    """The defensive mixture g of the module docstring, fitted to residuals R (n, d)."""

    def __init__(self, R: np.ndarray, tau: float = 0.5, t_scale: float = 4.0, df: float = 3.0):
        R = np.asarray(R, float)
        self.R, self.d = R, R.shape[1]
        S = np.atleast_2d(np.cov(R.T)) + 1e-9 * np.eye(self.d)
        self.L = np.linalg.cholesky(tau**2 * S)
        self.log_det_kde = 2.0 * np.log(np.diag(self.L)).sum()
        self.t = multivariate_t(loc=R.mean(axis=0), shape=t_scale * S, df=df)

    def sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        from_kde = rng.random(m) < 0.5
        out = np.empty((m, self.d))
        k = int(from_kde.sum())
        centres = self.R[rng.integers(0, len(self.R), k)]
        out[from_kde] = centres + rng.standard_normal((k, self.d)) @ self.L.T
        out[~from_kde] = self.t.rvs(size=m - k, random_state=rng).reshape(m - k, self.d)
        return out

    def log_density(self, Z: np.ndarray, batch: int = 2048) -> np.ndarray:
        Linv = np.linalg.inv(self.L)
        log_kde = np.empty(len(Z))
        const = -0.5 * self.d * np.log(2 * np.pi) - 0.5 * self.log_det_kde - np.log(len(self.R))
        for s in range(0, len(Z), batch):
            diff = (Z[s:s + batch, None, :] - self.R[None, :, :]) @ Linv.T
            log_kde[s:s + batch] = logsumexp(-0.5 * np.sum(diff**2, axis=-1), axis=1) + const
        return np.logaddexp(log_kde, self.t.logpdf(Z).reshape(-1)) - np.log(2.0)


def monte_carlo_volume(score_fn, threshold: float, R_fit: np.ndarray, n_samples: int = 20_000, seed: int = 0,
                       plateau: float = np.inf) -> MonteCarloVolume:
    """Importance-sampling volume of {r : score_fn(r) <= threshold} and its standard error.

    Parameters
    ----------
    score_fn : callable
        Maps an (m, d) array of residuals to m scores.
    threshold : float
        The region's threshold q.
    R_fit : numpy.ndarray
        ``(n, d)`` residuals the proposal is fitted to (the score's fit residuals), n >= 2.
    n_samples : int
        Proposal draws, >= 2.
    seed : int
        The draws (``derive_rng(seed, "volume")``).
    plateau : float
        The score's limit far from the data; q >= plateau returns an infinite volume.

    Returns
    -------
    MonteCarloVolume
        The unbiased estimate

        .. math:: \\widehat{\\mathrm{vol}} = \\frac1M \\sum_{i=1}^M \\frac{\\mathbf 1\\{s(r_i) \\le q\\}}{g(r_i)},
                  \\qquad r_i \\sim g,

        with g the KDE/Student-t mixture, and its standard error.

    Examples
    --------
    >>> R = np.random.default_rng(0).normal(size=(100, 2))
    >>> disk = monte_carlo_volume(lambda Z: np.linalg.norm(Z, axis=1), 1.0, R, n_samples=4000, seed=0)
    >>> round(disk.volume, 2), bool(abs(disk.volume - np.pi) < 3 * disk.std_error)
    (3.18, True)
    """
    if not callable(score_fn):
        raise ValueError(f"score_fn: a {type(score_fn).__name__}; allowed a callable mapping residuals to scores")
    R_fit = np.asarray(R_fit, float)
    if R_fit.ndim != 2 or R_fit.shape[0] < 2 or not np.all(np.isfinite(R_fit)):
        raise ValueError(f"R_fit: shape {R_fit.shape}; allowed a finite (n, d) array with n >= 2")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 2:
        raise ValueError(f"n_samples: {n_samples!r} is out of range; allowed an integer >= 2")
    if isinstance(threshold, bool) or np.isnan(threshold):
        raise ValueError(f"threshold: {threshold!r} is not a number; allowed a number or inf")
    if not np.isfinite(threshold) or threshold >= plateau:
        return MonteCarloVolume(float("inf"), float("nan"), 0, float("nan"))
    proposal = MixtureProposal(R_fit)
    Z = proposal.sample(int(n_samples), derive_rng(seed, "volume"))
    inside = np.asarray(score_fn(Z)) <= threshold
    w = np.where(inside, np.exp(-proposal.log_density(Z)), 0.0)
    return MonteCarloVolume(float(w.mean()), float(w.std(ddof=1) / np.sqrt(len(w))), int(len(w)), float(inside.mean()))
