"""Baselines with the same reverse diffusion and random stream as :func:`.steer.steer`.

- ``unguided``: the base model's own samples.
- ``gradient_guidance``: the reward's potential, solved on the current (unweighted) particles, added
  to the drift as in :mod:`.steer`, with no weights: the common recipe, biased for the tilted target.
- ``fk_steering``: Feynman-Kac steering for a pointwise reward (Singhal et al.), written out on its
  own: incremental potentials G = exp(lam (r(z_t) - r(z_prev))) multiply into the running weight
  between resamplings (the "difference" potential), resampling when ESS < threshold * n.
- ``particle_guidance``: batch repulsion in the drift (Corso et al.): each particle's Tweedie
  prediction is pushed down the gradient of gamma * mean_j k(z_i, z_j); no weights.
- ``plugin_guidance``: the framework's guided proposal with the weights dropped and the potential
  read, every step, as the first variation dR/dmu at the current unweighted batch (no
  self-consistent solve). For R = -(gamma/2) E k(X, X') (:class:`.rewards.KernelRepulsion`) and
  the Jacobian d x0_hat / dx taken as 1/alpha_t ("isotropic") it is particle guidance step for step
  (tested): particle guidance is the framework's proposal for the repulsion reward, and the
  framework's weights are what turn it into a sampler of the mean-field target
  mu* proportional to p exp(-gamma int k(., y) dmu*(y)).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from scipy.special import softmax

from core.common.progress import report
from core.common.seeding import make_rng
from core.distributional_steering import sde
from core.distributional_steering.resampling import ess, resample
from core.distributional_steering.steer import SteeringResult, check_run, finite_difference_grad, guidance_gradient


def _run(base, n_particles, seed, n_steps, drift=None, progress=None):
    """Reverse diffusion with an optional extra drift(x, z, t) -> [n, d] (scaled by the step's
    variance); final Tweedie positions. A stop (``progress`` returning False) returns the current
    Tweedie predictions at once."""
    rng = make_rng(seed)
    grid = sde.time_grid(n_steps)
    x = rng.standard_normal((n_particles, base.dim))
    s = grid[0]
    for k in range(n_steps):
        t, s = grid[k], grid[k + 1]
        score = base.score(x, t)
        mean, var = sde.reverse_mean(x, score, t, s)
        extra = 0.0 if drift is None else var * drift(x, sde.tweedie(x, score, t), t)
        x = mean + extra + np.sqrt(var) * rng.standard_normal(x.shape)
        if not report(progress, k + 1, n_steps, {}):
            break
    return sde.tweedie(x, base.score(x, s), s)


def _uniform(positions):
    n = len(positions)
    return SteeringResult(positions, np.full(n, 1.0 / n), np.array([]), np.array([]), np.array([]), np.array([]))


def unguided(base, n_particles: int = 1000, seed: int = 0, n_steps: int = 200, progress=None) -> SteeringResult:
    return _uniform(_run(base, n_particles, seed, n_steps, progress=progress))


def gradient_guidance(base, reward, n_particles: int = 1000, seed: int = 0, n_steps: int = 200,
                      scale: float = 1.0, every: int = 5, progress=None) -> SteeringResult:
    """The potential is re-solved on the unweighted particles every ``every`` steps, as in steer."""
    state = {"step": 0, "potential": None}

    def drift(x, z, t):
        if state["step"] % every == 0:
            state["potential"] = reward.solve(z, np.zeros(len(z)))
        state["step"] += 1
        return scale * guidance_gradient(base, state["potential"], x, t)
    return _uniform(_run(base, n_particles, seed, n_steps, drift, progress))


def particle_guidance(base, gamma: float, bandwidth: float = 0.5, n_particles: int = 1000, seed: int = 0,
                      n_steps: int = 200, progress=None) -> SteeringResult:
    def drift(x, z, t):
        k = np.exp(-0.5 * cdist(z, z, "sqeuclidean") / bandwidth**2)
        # -grad_z of gamma * mean_j k(z_i, z_j) = gamma/h^2 mean_j k_ij (z_i - z_j), carried to x by
        # 1/alpha_t (d z / d x ~ 1/alpha_t)
        push = (k.sum(1)[:, None] * z - k @ z) / len(z)
        return gamma * push / bandwidth**2 / sde.alpha(t)
    return _uniform(_run(base, n_particles, seed, n_steps, drift, progress))


def plugin_guidance(base, reward, n_particles: int = 1000, seed: int = 0, n_steps: int = 200, scale: float = 1.0,
                    jacobian: str = "isotropic", progress=None) -> SteeringResult:
    """Unweighted sampling with the drift scale * var * grad_x phi(x0_hat(x)), phi = reward.first_variation
    at the current batch with equal weights; ``jacobian`` "isotropic" carries grad_z to x by 1/alpha_t,
    "tweedie" differentiates through the score as :func:`.steer.guidance_gradient` does."""
    if jacobian not in ("isotropic", "tweedie"):
        raise ValueError(f"jacobian: {jacobian!r} is not an option; allowed 'isotropic' or 'tweedie'")

    def drift(x, z, t):
        potential = reward.first_variation(z, np.full(len(z), 1.0 / len(z)))
        if jacobian == "tweedie":
            return scale * guidance_gradient(base, potential, x, t)
        return scale * finite_difference_grad(potential.at, z) / sde.alpha(t)
    return _uniform(_run(base, n_particles, seed, n_steps, drift, progress))


def fk_steering(base, fn, lam: float, n_particles: int = 1000, seed: int = 0, ess_threshold: float = 0.5,
                window: tuple = (0.0, 1.0), resampling: str = "systematic", n_steps: int = 200,
                every: int = 5, progress=None) -> SteeringResult:
    check_run(n_particles, ess_threshold, window, resampling, n_steps, every)
    rng = make_rng(seed)
    grid = sde.time_grid(n_steps)
    x = rng.standard_normal((n_particles, base.dim))
    logw, r_prev = np.zeros(n_particles), np.zeros(n_particles)
    ess_t, ess_v, resampled = [], [], []
    for k in range(n_steps):
        t, s = grid[k], grid[k + 1]
        mean, var = sde.reverse_mean(x, base.score(x, t), t, s)
        x = mean + np.sqrt(var) * rng.standard_normal(x.shape)
        last = k == n_steps - 1
        if last or (window[0] <= s <= window[1] and (k + 1) % every == 0):
            z = sde.tweedie(x, base.score(x, s), s)
            r = lam * np.asarray(fn(z), dtype=float)
            logw = logw + (r - r_prev)          # multiply the increment into the running weight
            r_prev = r
            ess_t.append(s)
            ess_v.append(ess(logw))
            if not last and ess_v[-1] < ess_threshold * n_particles:
                idx = resample(logw, rng, resampling)
                x, r_prev, logw = x[idx], r_prev[idx], np.zeros(n_particles)
                resampled.append(s)
        if not report(progress, k + 1, n_steps, {}):
            if not last:   # a stop returns the current predictions with their weights
                z = sde.tweedie(x, base.score(x, s), s)
            break
    return SteeringResult(z, softmax(logw), np.array(ess_t), np.array(ess_v), np.array(resampled), np.array([]))
