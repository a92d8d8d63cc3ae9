"""The weighted interacting particle scheme for a mean-field tilted target.

Particles follow the base model's reverse diffusion (or a guided proposal). Within the steering
window, every ``every`` steps the reward's self-consistent potential phi_t is solved on the weighted
Tweedie predictions z_i = x0_hat(x_i) (:mod:`.rewards`) and each particle's log-weight is

    log w_i = c_i + phi_t(z_i) - phi_r(i)

c_i: the log base/proposal ratio of its path since the last resampling (0 without guidance, so
log-weights accumulate between resamplings as FK steering's incremental potentials do), phi_r(i):
the potential its ancestor had when last resampled. The increments telescope, so at the end the
weights are the self-normalised importance weights of base paths for the tilt p exp(phi_0) with
phi_0 self-consistent on the final weighted measure. When the effective sample size drops below
``ess_threshold`` * n the particles are resampled. With a pointwise reward this is FK steering with
the "difference" potential (tested to be identical under the same seed).

Guidance (our choice, documented): the proposal's drift adds guidance_scale * var * grad_x phi(x0_hat(x)),
the gradient of the potential read at the Tweedie prediction taken through the prediction (central
differences of x -> phi(tweedie(x)), so the score's Jacobian is included); the exact Gaussian ratio
of base to proposal kernel enters c, so guidance changes the variance of the estimate, not its
target. The final positions are the Tweedie predictions at T_MIN.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import softmax

from core.common.config import check_choice, check_range
from core.common.progress import report
from core.common.seeding import make_rng
from core.distributional_steering import sde
from core.distributional_steering.resampling import SCHEMES, ess, resample


@dataclass
class SteeringResult:
    positions: np.ndarray          # [n, d] final samples
    weights: np.ndarray            # [n] normalised
    ess_times: np.ndarray          # diffusion times at which the potential was solved
    ess: np.ndarray                # effective sample size there (before any resampling)
    resample_times: np.ndarray
    snapshot_times: np.ndarray
    snapshots: list = field(default_factory=list)   # (positions [n, d], weights [n]) along the way
    params: dict = field(default_factory=dict)      # the final tilt's parameters (e.g. a)
    steps_done: int = 0

    def mean(self) -> np.ndarray:
        return self.weights @ self.positions

    def resampled(self, seed: int = 0) -> np.ndarray:
        """Unweighted samples drawn from the weighted particles (for plots and W1)."""
        idx = resample(np.log(self.weights + 1e-300), make_rng(seed), "systematic")
        return self.positions[idx]


def check_run(n_particles, ess_threshold, window, resampling, n_steps, every):
    check_range("n_particles", n_particles, 2, 100_000, integer=True)
    check_range("ess_threshold", ess_threshold, 0.0, 1.0)
    check_choice("resampling", resampling, SCHEMES)
    check_range("n_steps", n_steps, 10, 5000, integer=True)
    check_range("every", every, 1, n_steps, integer=True)
    lo, hi = window
    if not 0.0 <= lo < hi <= 1.0:
        raise ValueError(f"window: ({lo}, {hi}); allowed 0 <= start < end <= 1 (diffusion time, 1 = noise)")


def guidance_gradient(base, potential, x, t) -> np.ndarray:
    """grad_x of phi(x0_hat(x)) at time t, by central differences through the base's score."""
    return finite_difference_grad(lambda y: potential.at(sde.tweedie(y, base.score(y, t), t)), x)


def finite_difference_grad(fn, z, eps: float = 1e-4) -> np.ndarray:
    grad = np.empty_like(z)
    for k in range(z.shape[1]):
        e = np.zeros(z.shape[1])
        e[k] = eps
        grad[:, k] = (fn(z + e) - fn(z - e)) / (2 * eps)
    return grad


def steer(base, reward, n_particles: int = 1000, seed: int = 0, ess_threshold: float = 0.5,
          window: tuple = (0.0, 1.0), resampling: str = "systematic", guidance: bool = False,
          n_steps: int = 200, every: int = 5, guidance_scale: float = 1.0, n_snapshots: int = 20,
          progress=None) -> SteeringResult:
    check_run(n_particles, ess_threshold, window, resampling, n_steps, every)
    rng = make_rng(seed)
    grid = sde.time_grid(n_steps)
    x = rng.standard_normal((n_particles, base.dim))
    c, phi_r = np.zeros(n_particles), np.zeros(n_particles)
    logw, potential = np.zeros(n_particles), None
    ess_t, ess_v, resampled, snap_t, snaps = [], [], [], [], []
    snap_at = set(np.linspace(0, n_steps - 1, n_snapshots).round().astype(int).tolist())
    inside = lambda t: window[0] <= t <= window[1]  # noqa: E731
    for k in range(n_steps):
        t, s = grid[k], grid[k + 1]
        score = base.score(x, t)
        mean, var = sde.reverse_mean(x, score, t, s)
        noise = np.sqrt(var) * rng.standard_normal(x.shape)
        if guidance and potential is not None and inside(t):
            shift = guidance_scale * var * guidance_gradient(base, potential, x, t)
            x = mean + shift + noise
            c += ((x - mean - shift) ** 2 - (x - mean) ** 2).sum(1) / (2 * var)
        else:
            x = mean + noise
        last = k == n_steps - 1
        if last or (inside(s) and (k + 1) % every == 0):
            z = sde.tweedie(x, base.score(x, s), s)
            potential = reward.solve(z, c - phi_r, previous=potential)
            logw = c - phi_r + potential.values
            ess_t.append(s)
            ess_v.append(ess(logw))
            if not last and ess_v[-1] < ess_threshold * n_particles:
                idx = resample(logw, rng, resampling)
                x, z, phi_r, c = x[idx], z[idx], potential.values[idx], np.zeros(n_particles)
                logw = potential.values - phi_r
                resampled.append(s)
        if k in snap_at:
            snap_t.append(s)
            snaps.append(((z if last else x).copy(), softmax(logw)))
        if not report(progress, k + 1, n_steps, {"ess": ess_v[-1] if ess_v else float(n_particles)}):
            break
    # A stopped run returns where the particles are (still noisy) with their current weights.
    return SteeringResult(z if last else x, softmax(logw), np.array(ess_t), np.array(ess_v), np.array(resampled),
                          np.array(snap_t), snaps, dict(potential.params) if potential else {}, k + 1)
