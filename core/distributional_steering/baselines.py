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

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import make_rng
from core.distributional_steering import sde
from core.distributional_steering.resampling import ess, resample
from core.distributional_steering.steer import SteeringResult, check_run, finite_difference_grad, guidance_gradient


def _run(base, n_particles, seed, n_steps, drift=None, progress=None):
    """Reverse diffusion with an optional extra drift(x, z, t) -> [n, d] (scaled by the step's
    variance); final Tweedie positions. A stop (``progress`` returning False) returns the current
    Tweedie predictions at once."""
    check_range("n_particles", n_particles, 2, 100_000, integer=True)
    check_range("n_steps", n_steps, 10, 5000, integer=True)
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
    """The base model's own samples: its reverse diffusion, no reward.

    Parameters
    ----------
    base : object
        A base model with ``dim`` and ``score(x, t)``.
    n_particles : int
        n, 2..100000.
    seed : int
        Seeds the noise (the same stream as :func:`.steer.steer`).
    n_steps : int
        Reverse Euler-Maruyama steps, 10..5000.
    progress : callable, optional
        ``progress(step, n_steps, {})`` after every step; returning False stops and returns the current
        Tweedie predictions.

    Returns
    -------
    SteeringResult
        The final Tweedie predictions with uniform weights (no ESS or resampling history).

    Examples
    --------
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> result = unguided(base, n_particles=500, n_steps=50, seed=0)
    >>> result.positions.shape, bool(abs(result.mean()[0]) < 0.2)
    ((500, 1), True)
    """
    return _uniform(_run(base, n_particles, seed, n_steps, progress=progress))


def gradient_guidance(base, reward, n_particles: int = 1000, seed: int = 0, n_steps: int = 200,
                      scale: float = 1.0, every: int = 5, progress=None) -> SteeringResult:
    """Gradient guidance without weights: the common recipe, biased for the tilted target.

    The reward's potential is re-solved on the unweighted particles every ``every`` steps, as in
    :func:`.steer.steer`, and scale * var * grad_x phi(x0_hat(x)) is added to the drift.

    Parameters
    ----------
    base : object
        A base model with ``dim`` and ``score(x, t)``.
    reward : object
        A reward with ``solve(z, base_logw)`` (:mod:`.rewards`).
    n_particles : int
        n, 2..100000.
    seed : int
        Seeds the noise (the same stream as :func:`.steer.steer`).
    n_steps : int
        Reverse Euler-Maruyama steps, 10..5000.
    scale : float
        The guidance's multiplier, in [0, 1000].
    every : int
        Steps between solves, 1..n_steps.
    progress : callable, optional
        ``progress(step, n_steps, {})`` after every step; returning False stops and returns the current
        Tweedie predictions.

    Returns
    -------
    SteeringResult
        The final Tweedie predictions with uniform weights (no ESS or resampling history).

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> from core.distributional_steering import MeanCalibration, mean_calibration_tilt
    >>> result = gradient_guidance(base, MeanCalibration([0.6], kappa=4.0), n_particles=200, n_steps=50)
    >>> exact = mean_calibration_tilt(base, [0.6], kappa=4.0).tilted.mean()
    >>> round(float(result.mean()[0]), 2), round(float(exact[0]), 2)     # overshoots the tilted target
    (0.58, 0.5)
    """
    check_range("scale", scale, 0, 1e3)
    check_range("every", every, 1, n_steps, integer=True)
    state = {"step": 0, "potential": None}

    def drift(x, z, t):
        if state["step"] % every == 0:
            state["potential"] = reward.solve(z, np.zeros(len(z)))
        state["step"] += 1
        return scale * guidance_gradient(base, state["potential"], x, t)
    return _uniform(_run(base, n_particles, seed, n_steps, drift, progress))


def particle_guidance(base, gamma: float, bandwidth: float = 0.5, n_particles: int = 1000, seed: int = 0,
                      n_steps: int = 200, progress=None) -> SteeringResult:
    """Particle guidance (Corso et al.): batch repulsion in the drift, no weights.

    Each particle's Tweedie prediction is pushed down the gradient of gamma * mean_j k(z_i, z_j)
    (Gaussian kernel of width ``bandwidth``), carried to x by 1/alpha_t.

    Parameters
    ----------
    base : object
        A base model with ``dim`` and ``score(x, t)``.
    gamma : float
        The repulsion's strength, in [0, 1000].
    bandwidth : float
        The kernel's width, > 0.
    n_particles : int
        n, 2..100000.
    seed : int
        Seeds the noise (the same stream as :func:`.steer.steer`).
    n_steps : int
        Reverse Euler-Maruyama steps, 10..5000.
    progress : callable, optional
        ``progress(step, n_steps, {})`` after every step; returning False stops and returns the current
        Tweedie predictions.

    Returns
    -------
    SteeringResult
        The final Tweedie predictions with uniform weights (no ESS or resampling history).

    References
    ----------
    Corso, Xu, De Bortoli, Barzilay and Jaakkola, "Particle guidance: non-i.i.d. diverse sampling with
    diffusion models", ICLR 2024; recovered as the framework's unweighted proposal in A mean-field
    framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> plain = unguided(base, n_particles=200, n_steps=20).positions.std()
    >>> bool(particle_guidance(base, 2.0, n_particles=200, n_steps=20).positions.std() > plain)
    True
    """
    check_range("gamma", gamma, 0, 1e3)
    check_range("bandwidth", bandwidth, 0, 1e3, low_open=True)

    def drift(x, z, t):
        k = np.exp(-0.5 * cdist(z, z, "sqeuclidean") / bandwidth**2)
        # -grad_z of gamma * mean_j k(z_i, z_j) = gamma/h^2 mean_j k_ij (z_i - z_j), carried to x by
        # 1/alpha_t (d z / d x ~ 1/alpha_t)
        push = (k.sum(1)[:, None] * z - k @ z) / len(z)
        return gamma * push / bandwidth**2 / sde.alpha(t)
    return _uniform(_run(base, n_particles, seed, n_steps, drift, progress))


def plugin_guidance(base, reward, n_particles: int = 1000, seed: int = 0, n_steps: int = 200, scale: float = 1.0,
                    jacobian: str = "isotropic", progress=None) -> SteeringResult:
    """The framework's guided proposal with the weights dropped and the plug-in first variation.

    Unweighted sampling with the drift scale * var * grad_x phi(x0_hat(x)), phi = reward.first_variation
    at the current batch with equal weights; ``jacobian`` "isotropic" carries grad_z to x by 1/alpha_t,
    "tweedie" differentiates through the score as :func:`.steer.guidance_gradient` does. For
    :class:`.rewards.KernelRepulsion` with "isotropic" it is :func:`particle_guidance` step for step.

    Parameters
    ----------
    base : object
        A base model with ``dim`` and ``score(x, t)``.
    reward : object
        A reward with ``first_variation(z, weights)`` (:class:`.rewards.KernelRepulsion`).
    n_particles : int
        n, 2..100000.
    seed : int
        Seeds the noise (the same stream as :func:`.steer.steer`).
    n_steps : int
        Reverse Euler-Maruyama steps, 10..5000.
    scale : float
        The drift's multiplier, in [0, 1000].
    jacobian : str
        "isotropic" or "tweedie".
    progress : callable, optional
        ``progress(step, n_steps, {})`` after every step; returning False stops and returns the current
        Tweedie predictions.

    Returns
    -------
    SteeringResult
        The final Tweedie predictions with uniform weights (no ESS or resampling history).

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> from core.distributional_steering import KernelRepulsion
    >>> a = plugin_guidance(base, KernelRepulsion(2.0, bandwidth=0.5), n_particles=100, n_steps=20)
    >>> b = particle_guidance(base, 2.0, bandwidth=0.5, n_particles=100, n_steps=20)
    >>> bool(np.allclose(a.positions, b.positions))
    True
    """
    check_range("scale", scale, 0, 1e3)
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
    """Feynman-Kac steering for a pointwise reward (Singhal et al.), written out on its own.

    Incremental potentials G = exp(lam (r(z_t) - r(z_prev))) multiply into the running weight between
    resamplings (the "difference" potential); resampling when ESS < ess_threshold * n. It samples
    p exp(lam r), what :func:`.steer.steer` gives for :class:`.rewards.PointwiseReward`.

    Parameters
    ----------
    base : object
        A base model with ``dim`` and ``score(x, t)``.
    fn : callable
        r(z [n, d]) -> [n], the pointwise reward.
    lam : float
        Its weight.
    n_particles : int
        n, 2..100000.
    seed : int
        Seeds the noise (the same stream as :func:`.steer.steer`).
    ess_threshold : float
        In [0, 1].
    window : tuple
        (start, end) in diffusion time where the potentials are read.
    resampling : str
        "systematic", "stratified" or "multinomial".
    n_steps : int
        Reverse Euler-Maruyama steps, 10..5000.
    every : int
        Steps between reads, 1..n_steps.
    progress : callable, optional
        ``progress(step, n_steps, {})`` after every step; returning False stops and returns the current
        Tweedie predictions.

    Returns
    -------
    SteeringResult
        The weighted particles and the ESS and resampling history.

    References
    ----------
    Singhal, Horvitz, Teehan, Ren, Yu, Cho and Ranganath, "A general framework for inference-time
    scaling and steering of diffusion models" (FK steering), 2025.

    Examples
    --------
    >>> from core.distributional_steering import GaussianMixtureBase
    >>> base = GaussianMixtureBase([0.5, 0.5], [[-1.0], [1.0]], [[0.5], [0.5]])
    >>> from core.distributional_steering import PointwiseReward
    >>> fk = fk_steering(base, lambda z: z[:, 0], lam=1.0, n_particles=200, n_steps=20, seed=3)
    >>> ours = steer(base, PointwiseReward(lambda z: z[:, 0], 1.0), n_particles=200, n_steps=20, seed=3)
    >>> bool(np.allclose(fk.positions, ours.positions) and np.allclose(fk.weights, ours.weights))
    True
    """
    check_range("lam", lam, -1e3, 1e3)
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
