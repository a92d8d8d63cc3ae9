"""Ready-made steering problems on mixtures with exact scores, and the side-by-side comparison.

A scenario is a base mixture, a reward with its strength (lam, kappa or gamma) and, where one exists,
the exact tilted target to compare against: exponential tilt for the pointwise reward r(x) = x_1,
the self-consistent linear tilt for mean calibration and the moment constraint (target (tx, ty)),
tempering on a grid for the entropy. Kernel repulsion has no closed form; it is compared with
particle guidance by spread. Distances are per-coordinate W1 (scipy), averaged over coordinates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.stats import wasserstein_distance

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import make_rng
from core.distributional_steering.base import GaussianMixtureBase
from core.distributional_steering.baselines import fk_steering, gradient_guidance, particle_guidance, unguided
from core.distributional_steering.closed_forms import exponential_tilt, mean_calibration_tilt, tempered_grid
from core.distributional_steering.resampling import SCHEMES
from core.distributional_steering.rewards import (EntropyReward, KernelRepulsion, MeanCalibration, MomentConstraint,
                                                  PointwiseReward)
from core.distributional_steering.steer import steer

BASES = {
    "mixture2d": GaussianMixtureBase([0.5, 0.3, 0.2], [[-1.0, 0.0], [1.0, 0.5], [0.0, -1.0]], [0.3, 0.3, 0.4]),
    "mixture1d": GaussianMixtureBase([0.7, 0.3], [-1.0, 1.0], [0.35, 0.35]),
}
REWARDS = ("calibration", "constraint", "tilt", "entropy", "repulsion")
REPULSION_BANDWIDTH = 0.5
STEPS = 200   # reverse-diffusion steps of every sampler here (steer's and the baselines' default)


@dataclass(frozen=True)
class ScenarioConfig(Config):
    base: str = choice("mixture2d", tuple(BASES))
    reward: str = choice("calibration", REWARDS)
    strength: float = param(4.0, low=0.0, high=50.0, doc="lam (tilt), kappa (calibration) or gamma")
    target_x: float = param(0.8, low=-3.0, high=3.0)
    target_y: float = param(0.3, low=-3.0, high=3.0)
    n_particles: int = param(1000, low=50, high=8000, integer=True)
    ess_threshold: float = param(0.5, low=0.0, high=1.0)
    window_start: float = param(0.0, low=0.0, high=1.0)
    window_end: float = param(1.0, low=0.0, high=1.0)
    resampling: str = choice("systematic", SCHEMES)
    guidance: bool = choice(False, (False, True))

    def validate(self) -> None:
        if self.reward == "calibration" and self.strength <= 0:
            raise ValueError(f"strength: kappa = {self.strength:g} gives no calibration; allowed (0, 50] for the "
                             "calibration reward")
        if self.window_start >= self.window_end:
            raise ValueError(f"window_end: {self.window_end} is not after window_start={self.window_start}; "
                             "allowed window_start < window_end")


def base_of(config: ScenarioConfig) -> GaussianMixtureBase:
    return BASES[config.base]


def target_point(config: ScenarioConfig) -> np.ndarray:
    return np.array([config.target_x, config.target_y][: base_of(config).dim])


def linear_reward(z):
    return z[:, 0]


def make_reward(config: ScenarioConfig):
    if config.reward == "tilt":
        return PointwiseReward(linear_reward, lam=config.strength)
    if config.reward == "calibration":
        return MeanCalibration(target_point(config), kappa=max(config.strength, 1e-6))
    if config.reward == "constraint":
        return MomentConstraint(target_point(config))
    if config.reward == "entropy":
        return EntropyReward(config.strength)
    return KernelRepulsion(config.strength, bandwidth=REPULSION_BANDWIDTH)


def exact_target(config: ScenarioConfig, n: int = 20_000, seed: int = 99) -> np.ndarray | None:
    """Samples of the exact tilted target, or None where there is no closed form (repulsion)."""
    base = base_of(config)
    if config.reward == "tilt":
        a = np.zeros(base.dim)
        a[0] = config.strength
        return exponential_tilt(base, a).sample(n, seed)
    if config.reward in ("calibration", "constraint"):
        kappa = config.strength if config.reward == "calibration" else np.inf
        return mean_calibration_tilt(base, target_point(config), kappa)[1].sample(n, seed)
    if config.reward == "entropy":
        axes = [np.linspace(-4, 4, 201)] * base.dim
        q = tempered_grid(base, config.strength, axes).ravel()
        mesh = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, base.dim)
        rng = make_rng(seed)
        cell = axes[0][1] - axes[0][0]
        return mesh[rng.choice(len(q), size=n, p=q)] + rng.uniform(-cell / 2, cell / 2, (n, base.dim))
    return None


def target_density(config: ScenarioConfig, axes: list[np.ndarray]) -> np.ndarray | None:
    """The exact tilted target's density on the grid spanned by ``axes`` (normalised to sum 1), or None."""
    base = base_of(config)
    if config.reward == "entropy":
        return tempered_grid(base, config.strength, axes)
    if config.reward == "tilt":
        a = np.zeros(base.dim)
        a[0] = config.strength
        tilted = exponential_tilt(base, a)
    elif config.reward in ("calibration", "constraint"):
        kappa = config.strength if config.reward == "calibration" else np.inf
        tilted = mean_calibration_tilt(base, target_point(config), kappa)[1]
    else:
        return None
    mesh = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, base.dim)
    q = np.exp(tilted.log_prob(mesh))
    return (q / q.sum()).reshape([len(a) for a in axes])


def run(config: ScenarioConfig, seed: int = 0, progress=None):
    return steer(base_of(config), make_reward(config), config.n_particles, seed=seed,
                 ess_threshold=config.ess_threshold, window=(config.window_start, config.window_end),
                 resampling=config.resampling, guidance=config.guidance, progress=progress)


def distance(positions, weights, exact) -> float:
    return float(np.mean([wasserstein_distance(positions[:, k], exact[:, k], u_weights=weights)
                          for k in range(positions.shape[1])]))


def spread(positions, weights) -> float:
    centred = positions - weights @ positions
    return float(np.sqrt(weights @ (centred**2).sum(1)))


class _Chain:
    """One progress callback over several runs: run i's steps follow run i - 1's, Stop ends them all."""

    def __init__(self, progress, total: int):
        self.progress, self.total, self.offset, self.stopped = progress, total, 0, False

    def __call__(self, step: int, _total: int, metrics: dict) -> bool:
        if not report(self.progress, self.offset + step, self.total, metrics):
            self.stopped = True
        return not self.stopped


def compare(config: ScenarioConfig, seed: int = 0, progress=None) -> list[dict]:
    """The scheme and the baselines that apply, each with its mean, W1 to the target, spread, ESS, time.

    ``progress`` sees every method's diffusion steps one after another; a stop ends the method that
    is running and skips the rest, so the rows hold the methods that finished (and no exact-target row).
    """
    base, reward, n = base_of(config), make_reward(config), config.n_particles
    window = (config.window_start, config.window_end)
    methods = {"mean-field particles": lambda p: run(config, seed, progress=p),
               "unguided": lambda p: unguided(base, n, seed, progress=p),
               "gradient guidance only": lambda p: gradient_guidance(base, reward, n, seed, progress=p)}
    if config.reward == "tilt":
        methods["FK steering"] = lambda p: fk_steering(base, linear_reward, config.strength, n, seed,
                                                       config.ess_threshold, window, config.resampling, progress=p)
    if config.reward in ("repulsion", "entropy"):
        methods["particle guidance"] = lambda p: particle_guidance(base, config.strength, REPULSION_BANDWIDTH, n,
                                                                   seed, progress=p)
    exact = exact_target(config)
    chain = _Chain(progress, STEPS * len(methods))
    rows = []
    for i, (name, fn) in enumerate(methods.items()):
        chain.offset = i * STEPS
        t = time.perf_counter()
        result = fn(chain)
        if chain.stopped:
            break
        seconds = time.perf_counter() - t
        w = result.weights
        row = {"method": name, "seconds": seconds, "ESS": float(1.0 / (w @ w)), "spread": spread(result.positions, w)}
        row.update({f"mean x{k + 1}": float(v) for k, v in enumerate(w @ result.positions)})
        row["W1 to target"] = distance(result.positions, w, exact) if exact is not None else float("nan")
        rows.append(row)
    if exact is not None and not chain.stopped:
        rows.append({"method": "exact target", "seconds": float("nan"), "ESS": float("nan"),
                     "spread": spread(exact, np.full(len(exact), 1 / len(exact))),
                     **{f"mean x{k + 1}": float(v) for k, v in enumerate(exact.mean(0))}, "W1 to target": 0.0})
    return rows


def steer_foldedness(target: float, n_particles: int = 500, seed: int = 0, progress=None) -> dict:
    """The protein task: the hard constraint E[foldedness] = target through the shipped learned denoiser,
    with the denoiser's own samples and the max-ent reweighted reference sample for comparison.

    ``progress`` sees the steered run's steps, then the unguided run's; after a stop the result holds
    ``"stopped": True`` and only what was done (the unguided comparison is skipped).
    """
    from core.distributional_steering.protein import foldedness, load_protein, maxent_reweight, native_structure

    base, reference = load_protein()
    f_ref = foldedness(reference)
    reference_weights = maxent_reweight(f_ref, target)      # validates the target against the reference range
    reward = MomentConstraint([target], statistic=lambda z: foldedness(z)[:, None])
    chain = _Chain(progress, 2 * STEPS)
    result = steer(base, reward, n_particles, seed=seed, progress=chain)
    f = foldedness(result.positions)
    top = np.argsort(result.weights)[::-1][:3]
    out = {"steered": f, "weights": result.weights, "steered_mean": float(result.weights @ f),
           "ess": float(1 / (result.weights @ result.weights)), "reference": f_ref,
           "reference_weights": reference_weights, "native": native_structure().reshape(-1, 3),
           "shown": [result.positions[i].reshape(-1, 3) for i in top], "shown_foldedness": [float(f[i]) for i in top],
           "stopped": chain.stopped, "base": None, "base_mean": float("nan")}
    if not chain.stopped:
        chain.offset = STEPS
        base_run = unguided(base, n_particles, seed, progress=chain)
        if not chain.stopped:
            out["base"] = foldedness(base_run.positions)
            out["base_mean"] = float(out["base"].mean())
    out["stopped"] = chain.stopped
    return out
