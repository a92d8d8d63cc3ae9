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
    """V_d q^d sqrt(det Sigma) for one (d, d) or a stack (m, d, d) of shape matrices."""
    Sigma = np.asarray(Sigma, float)
    d = Sigma.shape[-1]
    if not np.isfinite(q):
        return np.full(Sigma.shape[:-2], np.inf) if Sigma.ndim > 2 else np.inf
    _, logdet = np.linalg.slogdet(Sigma)
    return np.exp(log_unit_ball(d) + d * np.log(q) + 0.5 * logdet)


def box_volume(half_widths: np.ndarray) -> float:
    return float(np.prod(2.0 * np.asarray(half_widths, float)))


@dataclass
class MonteCarloVolume:
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
    score_fn : callable mapping an (m, d) array of residuals to m scores.
    threshold : the region's threshold q.
    R_fit : residuals the proposal is fitted to (the score's fit residuals).
    plateau : the score's limit far from the data; q >= plateau returns an infinite volume.
    """
    if not np.isfinite(threshold) or threshold >= plateau:
        return MonteCarloVolume(float("inf"), float("nan"), 0, float("nan"))
    proposal = MixtureProposal(R_fit)
    Z = proposal.sample(int(n_samples), derive_rng(seed, "volume"))
    inside = np.asarray(score_fn(Z)) <= threshold
    w = np.where(inside, np.exp(-proposal.log_density(Z)), 0.0)
    return MonteCarloVolume(float(w.mean()), float(w.std(ddof=1) / np.sqrt(len(w))), int(len(w)), float(inside.mean()))
