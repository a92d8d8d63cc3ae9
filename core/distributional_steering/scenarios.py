"""Ready-made steering problems on mixtures with exact scores, and the side-by-side comparison.

A scenario is a base mixture, a reward with its strength (lam, kappa, gamma or a variance) and the
exact tilted target to compare against. Rewards: the pointwise tilt r(x) = x_1; mean calibration
(soft, kappa) and the hard mean constraint on both coordinates (target (tx, ty)); the hard
constraint on x_1 alone, which leaves x_2 to the tilt (the check that the whole tilted measure is
hit, not only the constrained statistic); a two-moment constraint E[x_1] = tx, Var[x_1] = strength;
entropy (tempering) and kernel repulsion (width 0.5). Every target is computed on a grid
(:func:`target_density`: tilts with their moments on the grid, tempering, the repulsion fixed
point), and sampled exactly in closed form where one exists (pointwise tilt, calibration and the
constraint on both coordinates), otherwise from the grid. Distances are per-coordinate W1 (scipy),
averaged over coordinates, and the binned 2-D W1 of :mod:`.oracles` against its Monte Carlo floor.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.stats import wasserstein_distance

from core.common.config import Config, choice, param
from core.common.progress import report
from core.distributional_steering.base import GaussianMixtureBase
from core.distributional_steering.baselines import (fk_steering, gradient_guidance, particle_guidance, plugin_guidance,
                                                    unguided)
from core.distributional_steering.closed_forms import (exponential_tilt, grid_points, linear_tilt_grid,
                                                       mean_calibration_tilt, repulsion_grid, tempered_grid)
from core.distributional_steering.oracles import grid_sample, histogram_distance, monte_carlo_floor
from core.distributional_steering.resampling import SCHEMES
from core.distributional_steering.rewards import (EntropyReward, KernelRepulsion, MeanCalibration, MomentConstraint,
                                                  PointwiseReward)
from core.distributional_steering.steer import steer

BASES = {
    "mixture2d": GaussianMixtureBase([0.5, 0.3, 0.2], [[-1.0, 0.0], [1.0, 0.5], [0.0, -1.0]], [0.3, 0.3, 0.4]),
    "mixture1d": GaussianMixtureBase([0.7, 0.3], [-1.0, 1.0], [0.35, 0.35]),
}
REWARDS = ("calibration", "constraint", "constraint_x1", "moment", "tilt", "entropy", "repulsion")
GRID_AXIS = np.linspace(-4.0, 4.0, 161)   # the exact targets' grid (cell 0.05; the mixtures live in [-3, 3])
REPULSION_BANDWIDTH = 0.5
STEPS = 200   # reverse-diffusion steps of every sampler here (steer's and the baselines' default)


@dataclass(frozen=True)
class ScenarioConfig(Config):
    base: str = choice("mixture2d", tuple(BASES))
    reward: str = choice("calibration", REWARDS)
    strength: float = param(4.0, low=0.0, high=50.0, doc="lam (tilt), kappa (calibration), gamma, or Var x1 (moment)")
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
        if self.reward == "moment" and not 0 < self.strength <= 4:
            raise ValueError(f"strength: Var x1 = {self.strength:g}; allowed (0, 4] for the moment constraint")
        if self.window_start >= self.window_end:
            raise ValueError(f"window_end: {self.window_end} is not after window_start={self.window_start}; "
                             "allowed window_start < window_end")


def base_of(config: ScenarioConfig) -> GaussianMixtureBase:
    return BASES[config.base]


def target_point(config: ScenarioConfig) -> np.ndarray:
    return np.array([config.target_x, config.target_y][: base_of(config).dim])


def linear_reward(z):
    return z[:, 0]


def first_coordinate(z):
    return z[:, :1]


def first_two_moments(z):
    return np.stack([z[:, 0], z[:, 0] ** 2], 1)


def _linear_target(config: ScenarioConfig):
    """(statistic, target, kappa) of the rewards that are linear tilts, or None."""
    if config.reward == "calibration":
        return None, target_point(config), max(config.strength, 1e-6)
    if config.reward == "constraint":
        return None, target_point(config), np.inf
    if config.reward == "constraint_x1":
        return first_coordinate, np.array([config.target_x]), np.inf
    if config.reward == "moment":
        return first_two_moments, np.array([config.target_x, config.target_x**2 + config.strength]), np.inf
    return None


def make_reward(config: ScenarioConfig):
    if config.reward == "tilt":
        return PointwiseReward(linear_reward, lam=config.strength)
    if config.reward == "entropy":
        return EntropyReward(config.strength, base=base_of(config))
    if config.reward == "repulsion":
        return KernelRepulsion(config.strength, bandwidth=REPULSION_BANDWIDTH)
    statistic, target, kappa = _linear_target(config)
    if np.isfinite(kappa):
        return MeanCalibration(target, kappa=kappa, statistic=statistic)
    return MomentConstraint(target, statistic=statistic)


def target_axes(config: ScenarioConfig) -> list[np.ndarray]:
    return [GRID_AXIS] * base_of(config).dim


def target_density(config: ScenarioConfig, axes: list[np.ndarray] | None = None) -> np.ndarray:
    """The exact tilted target's masses on the grid spanned by ``axes`` (default :func:`target_axes`)."""
    base = base_of(config)
    axes = target_axes(config) if axes is None else axes
    if config.reward == "entropy":
        return tempered_grid(base, config.strength, axes)
    if config.reward == "repulsion":
        return repulsion_grid(base, config.strength, REPULSION_BANDWIDTH, axes)
    mesh = grid_points(axes)
    if config.reward == "tilt":
        logq = base.log_prob(mesh) + config.strength * mesh[:, 0]
        q = np.exp(logq - logq.max())
        return (q / q.sum()).reshape([len(a) for a in axes])
    statistic, target, kappa = _linear_target(config)
    return linear_tilt_grid(base, axes, statistic or (lambda z: z), target, kappa).density


def exact_target(config: ScenarioConfig, n: int = 20_000, seed: int = 99) -> np.ndarray:
    """n samples of the exact tilted target: in closed form where there is one, else from the grid."""
    base = base_of(config)
    if config.reward == "tilt":
        a = np.zeros(base.dim)
        a[0] = config.strength
        return exponential_tilt(base, a).sample(n, seed)
    if config.reward in ("calibration", "constraint"):
        kappa = config.strength if config.reward == "calibration" else np.inf
        return mean_calibration_tilt(base, target_point(config), kappa).tilted.sample(n, seed)
    return grid_sample(target_density(config), target_axes(config), n, seed)


@dataclass
class TargetCheck:
    """The whole-measure check of one run: per-coordinate moments and the binned W1 against its floor."""
    particle_mean: np.ndarray       # [d] weighted mean of the particles
    target_mean: np.ndarray         # [d] exact (grid)
    particle_sd: np.ndarray         # [d]
    target_sd: np.ndarray           # [d]
    mean_se: np.ndarray             # [d] Monte Carlo standard error of the weighted mean (target sd / sqrt(ESS))
    distance: float                 # binned W1 (ot.emd2) between the weighted particles and the target
    floor: float                    # the same for ESS exact samples of the target (median of 5 draws)
    ess: float


@dataclass
class CoordinateCheck:
    """Each coordinate's marginal against the exact target's: moments, W1 and W1's Monte Carlo floor."""
    particle_mean: np.ndarray   # [d]
    target_mean: np.ndarray     # [d]
    mean_se: np.ndarray         # [d] target sd / sqrt(ESS)
    particle_sd: np.ndarray     # [d]
    target_sd: np.ndarray       # [d]
    w1: np.ndarray              # [d] W1 between the weighted particles' marginal and the exact one (scipy)
    floor: np.ndarray           # [d] the same for ESS exact samples (median of 5 draws)
    ess: float


def check_coordinates(config: ScenarioConfig, result, density: np.ndarray | None = None,
                      seed: int = 0) -> CoordinateCheck:
    """Per-coordinate comparison with the exact target, scipy only (cheap enough for a first view)."""
    from core.common.seeding import derive_seed

    density = target_density(config) if density is None else density
    axes = target_axes(config)
    w, x = result.weights, result.positions
    n_eff = float(1.0 / (w @ w))
    m = max(int(round(n_eff)), 1)
    draws = [grid_sample(density, axes, m, derive_seed(seed, "coordinates", r)) for r in range(5)]
    out = {k: [] for k in ("pm", "tm", "ps", "ts", "w1", "floor")}
    for k, axis in enumerate(axes):
        marginal = density.sum(axis=tuple(j for j in range(len(axes)) if j != k))
        tm = marginal @ axis
        pm = w @ x[:, k]
        out["pm"].append(pm)
        out["tm"].append(tm)
        out["ps"].append(np.sqrt(w @ (x[:, k] - pm) ** 2))
        out["ts"].append(np.sqrt(marginal @ (axis - tm) ** 2))
        out["w1"].append(wasserstein_distance(x[:, k], axis, u_weights=w, v_weights=marginal))
        out["floor"].append(np.median([wasserstein_distance(d[:, k], axis, v_weights=marginal) for d in draws]))
    arr = {k: np.array(v, dtype=float) for k, v in out.items()}
    return CoordinateCheck(arr["pm"], arr["tm"], arr["ts"] / np.sqrt(n_eff), arr["ps"], arr["ts"], arr["w1"],
                           arr["floor"], n_eff)


def check_target(config: ScenarioConfig, result, density: np.ndarray | None = None, seed: int = 0) -> TargetCheck:
    """Compare a run's weighted particles with the exact target on every coordinate and as a whole."""
    density = target_density(config) if density is None else density
    axes = target_axes(config)
    mesh, q = grid_points(axes), density.ravel()
    w, x = result.weights, result.positions
    mean_t = q @ mesh
    sd_t = np.sqrt(q @ (mesh - mean_t) ** 2)
    mean_p = w @ x
    sd_p = np.sqrt(w @ (x - mean_p) ** 2)
    n_eff = float(1.0 / (w @ w))
    return TargetCheck(mean_p, mean_t, sd_p, sd_t, sd_t / np.sqrt(n_eff), histogram_distance(x, w, density, axes),
                       monte_carlo_floor(density, axes, n_eff, seed=seed), n_eff)


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


@dataclass
class MethodComparison:
    """The page's baseline table: one row per method that finished, then the exact target's.

    Attributes
    ----------
    rows : list
        One dict per method: "method", "seconds", "ESS", "spread", "mean x1" (...), "W1 to target",
        "binned W1 / floor"; the last row is the exact target's unless the run was stopped.
    stopped : bool
        The progress callback stopped the run: later methods and the exact-target row are missing.
    """

    rows: list
    stopped: bool = False

    def row(self, method: str) -> dict | None:
        """The row of ``method``, or None if it did not run."""
        return next((row for row in self.rows if row["method"] == method), None)

    def to_frame(self):
        """The rows as a table (pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows)


def compare(config: ScenarioConfig, seed: int = 0, progress=None) -> MethodComparison:
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
    density = target_density(config)
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
        row["W1 to target"] = distance(result.positions, w, exact)
        row["binned W1 / floor"] = (histogram_distance(result.positions, w, density, target_axes(config))
                                    / monte_carlo_floor(density, target_axes(config), row["ESS"], seed=seed))
        rows.append(row)
    if exact is not None and not chain.stopped:
        rows.append({"method": "exact target", "seconds": float("nan"), "ESS": float("nan"),
                     "spread": spread(exact, np.full(len(exact), 1 / len(exact))),
                     **{f"mean x{k + 1}": float(v) for k, v in enumerate(exact.mean(0))}, "W1 to target": 0.0,
                     "binned W1 / floor": float("nan")})
    return MethodComparison(rows, chain.stopped)


BATCH_PARTICLES = 500


@dataclass
class BatchComparison:
    """Particle guidance against the framework's proposal and weighted scheme for kernel repulsion.

    Attributes
    ----------
    rows : list
        One dict per finished sampler: "method", "ESS", "spread", "binned W1", "floor".
    max_gap : float
        Largest |difference| between particle guidance's and the unweighted framework proposal's
        samples (NaN unless both ran).
    gamma : float
        The repulsion's strength.
    n_particles : int
        Particles per sampler.
    stopped : bool
        The progress callback stopped the run.
    """

    rows: list
    max_gap: float
    gamma: float
    n_particles: int
    stopped: bool

    def to_frame(self):
        """The rows as a table (pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows)


def batch_level(config: ScenarioConfig, seed: int = 0, n_particles: int = BATCH_PARTICLES,
                progress=None) -> BatchComparison:
    """Particle guidance as the framework's proposal for kernel repulsion (gamma = config.strength).

    Four samplers, ``n_particles`` particles, the same seed: particle guidance (Corso et al.); the
    framework's plug-in proposal (first variation at the unweighted batch, Jacobian 1/alpha_t, no
    weights), which should coincide with it; the weighted scheme on the base proposal; the weighted
    scheme on its guided proposal. Each against the exact mean-field repulsion target on the grid
    (binned W1 and its Monte Carlo floor). ``progress`` sees all four runs' steps; a stop returns
    the rows that finished with ``stopped`` True.
    """
    from core.common.config import check_range

    check_range("n_particles", n_particles, 2, 100_000, integer=True)
    base, gamma, n = base_of(config), config.strength, n_particles
    reward = KernelRepulsion(gamma, bandwidth=REPULSION_BANDWIDTH)
    cfg = ScenarioConfig(base=config.base, reward="repulsion", strength=gamma)
    density, axes = target_density(cfg), target_axes(cfg)
    methods = {"particle guidance": lambda p: particle_guidance(base, gamma, REPULSION_BANDWIDTH, n, seed, progress=p),
               "framework proposal, unweighted": lambda p: plugin_guidance(base, reward, n, seed, progress=p),
               "mean-field particles": lambda p: steer(base, reward, n, seed=seed, every=10, progress=p),
               "mean-field particles, guided": lambda p: steer(base, reward, n, seed=seed, every=10, guidance=True,
                                                               progress=p)}
    chain = _Chain(progress, STEPS * len(methods))
    rows, positions = [], {}
    for i, (name, fn) in enumerate(methods.items()):
        chain.offset = i * STEPS
        result = fn(chain)
        if chain.stopped:
            break
        w = result.weights
        ess = float(1.0 / (w @ w))
        positions[name] = result.positions
        rows.append({"method": name, "ESS": ess, "spread": spread(result.positions, w),
                     "binned W1": histogram_distance(result.positions, w, density, axes),
                     "floor": monte_carlo_floor(density, axes, ess, seed=seed)})
    gap = (float(np.abs(positions["particle guidance"] - positions["framework proposal, unweighted"]).max())
           if len(positions) >= 2 else float("nan"))
    return BatchComparison(rows, gap, float(gamma), int(n), chain.stopped)


@dataclass
class FoldednessRun:
    """The protein task's run: steered foldedness against the denoiser's own and the max-ent reference.

    Attributes
    ----------
    steered : numpy.ndarray
        [n] foldedness of the steered particles.
    weights : numpy.ndarray
        [n] their normalised weights.
    steered_mean : float
        The weighted mean foldedness (the target, by construction, unless stopped).
    ess : float
        The steered particles' effective sample size.
    reference : numpy.ndarray
        [N] foldedness of the shipped Langevin reference conformations.
    reference_weights : numpy.ndarray
        [N] their max-ent weights for the target (the ground truth).
    native : numpy.ndarray
        [12, 3] the native structure.
    shown : numpy.ndarray
        [3, 12, 3] the three heaviest steered conformations.
    shown_foldedness : numpy.ndarray
        [3] their foldedness.
    stopped : bool
        The progress callback stopped the run (the unguided comparison is then skipped).
    base : numpy.ndarray or None
        [n] foldedness of the denoiser's own samples; None if skipped.
    base_mean : float
        Their mean (NaN if skipped).
    """

    steered: np.ndarray
    weights: np.ndarray
    steered_mean: float
    ess: float
    reference: np.ndarray
    reference_weights: np.ndarray
    native: np.ndarray
    shown: np.ndarray
    shown_foldedness: np.ndarray
    stopped: bool
    base: np.ndarray | None
    base_mean: float


def steer_foldedness(target: float, n_particles: int = 500, seed: int = 0, progress=None) -> FoldednessRun:
    """The protein task: the hard constraint E[foldedness] = target through the shipped learned denoiser,
    with the denoiser's own samples and the max-ent reweighted reference sample for comparison.

    ``progress`` sees the steered run's steps, then the unguided run's; after a stop the result has
    ``stopped`` True and only what was done (the unguided comparison is skipped).
    """
    from core.common.config import check_range

    check_range("n_particles", n_particles, 2, 100_000, integer=True)
    from core.distributional_steering.protein import foldedness, load_protein, maxent_reweight, native_structure

    protein = load_protein()
    base, reference = protein.base, protein.reference
    f_ref = foldedness(reference)
    reference_weights = maxent_reweight(f_ref, target)      # validates the target against the reference range
    reward = MomentConstraint([target], statistic=lambda z: foldedness(z)[:, None])
    chain = _Chain(progress, 2 * STEPS)
    result = steer(base, reward, n_particles, seed=seed, progress=chain)
    f = foldedness(result.positions)
    top = np.argsort(result.weights)[::-1][:3]
    out = FoldednessRun(f, result.weights, float(result.weights @ f), float(1 / (result.weights @ result.weights)),
                        f_ref, reference_weights, native_structure().reshape(-1, 3),
                        np.stack([result.positions[i].reshape(-1, 3) for i in top]), f[top].astype(float),
                        chain.stopped, None, float("nan"))
    if not chain.stopped:
        chain.offset = STEPS
        base_run = unguided(base, n_particles, seed, progress=chain)
        if not chain.stopped:
            out.base = foldedness(base_run.positions)
            out.base_mean = float(out.base.mean())
    out.stopped = chain.stopped
    return out
