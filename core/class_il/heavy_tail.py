"""E_CF under heavy-tailed gradient noise: the tail-index estimator and error against the budget K.

The paper's claim: with gradient noise of tail index α ∈ (1, 2], the optimisation part of the
excess risk falls as ``E_CF ∝ K^{−(α−1)/α}`` in the number of steps K, and gradient clipping
steepens the rate. Our setting (the abstract does not give the paper's): SGD with a constant step
on a d-dimensional quadratic ``½ (θ − θ*)ᵀ H (θ − θ*)`` (H diagonal, eigenvalues 0.5..2; the
prototype/readout estimation a CF-optimal learner solves), Polyak–Ruppert averaging, noise added
to each gradient coordinate; E_CF(K) is the median over repeats of ‖θ̄_K − θ*‖ (the mean of a
heavy-tailed error is dominated by rare draws). Clipping rescales the stochastic gradient to norm
at most ``clip``. The noise is symmetric α-stable (``scipy.stats.levy_stable``) or, a law not built
from the theory's own constants, Student-t with ``df = α`` (same tail index, not stable).

The tail index is estimated with Mohammadi et al.'s estimator as used by Simsekli et al. (2019):
``K1 = ⌊√n⌋``, Y = row sums of the first K1² samples as a K1 × K1 array,
``1/α̂ = (mean log|Y| − mean log|X|) / log K1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_rng, derive_seed

NOISES = ("stable", "student")


def tail_index(samples) -> float:
    """Mohammadi's estimator of the tail index α of i.i.d. symmetric samples (flattened).

    Parameters
    ----------
    samples : array
        At least 16 values.

    Returns
    -------
    float
        ``α̂ = log K1 / (mean log|Y| − mean log|X|)``, K1 = ⌊√n⌋, Y the sums of K1 blocks of K1.

    Examples
    --------
    >>> x = np.random.default_rng(0).standard_normal(40000)   # Gaussian: α = 2
    >>> bool(abs(tail_index(x) - 2.0) < 0.1)
    True
    """
    x = np.asarray(samples, dtype=float).ravel()
    k1 = int(np.floor(np.sqrt(len(x))))
    if k1 < 4:
        raise ValueError(f"samples: {len(x)} values; allowed at least 16")
    x = x[:k1 * k1]
    x = x[x != 0] if np.any(x == 0) else x
    k1 = int(np.floor(np.sqrt(len(x))))
    x = x[:k1 * k1]
    y = x.reshape(k1, k1).sum(axis=1)
    inv = (np.mean(np.log(np.abs(y))) - np.mean(np.log(np.abs(x)))) / np.log(k1)
    return float(1.0 / inv)


def heavy_noise(alpha: float, size, law: str, seed: int) -> np.ndarray:
    """Symmetric noise of tail index ``alpha``: α-stable (scipy) or Student-t with ``df = alpha``."""
    rng = derive_rng(seed, "noise", law)
    if law == "stable":
        from scipy.stats import levy_stable

        if alpha >= 2.0:
            return rng.standard_normal(size) * np.sqrt(2.0)   # the α = 2 stable law is N(0, 2)
        return levy_stable.rvs(alpha, 0.0, size=size, random_state=rng)
    if law == "student":
        return rng.standard_t(alpha, size)
    raise ValueError(f"noise: {law!r} is not an option; allowed {', '.join(map(repr, NOISES))}")


@dataclass(frozen=True)
class HeavyTailConfig(Config):
    """Settings of :func:`ecf_curve`: the noise, the quadratic's dimension, the budget and clipping."""

    alpha: float = param(1.5, low=1.1, high=2.0, doc="tail index of the gradient noise")
    noise: str = choice("stable", NOISES, doc="noise law")
    dim: int = param(4, low=1, high=32, integer=True, doc="dimension of θ")
    k_max: int = param(4096, low=128, high=65536, integer=True, doc="largest step budget K")
    n_repeats: int = param(300, low=20, high=5000, integer=True, doc="independent runs (median over them)")
    step: float = param(0.25, low=1e-3, high=0.9, doc="constant SGD step (times 1/λ_max(H) = 0.5)")
    clip: float = param(1.0, low=1e-2, high=100.0, doc="gradient-norm clipping threshold of the clipped run")
    k_fit_min: int = param(64, low=2, high=4096, integer=True, doc="smallest K in the slope fit")


@dataclass
class HeavyTailCurve:
    """E_CF against K with and without clipping, the fitted log-log slopes, the theory and α̂.

    Attributes
    ----------
    K : numpy.ndarray
        The step budgets measured.
    error, error_clipped : numpy.ndarray
        Median ‖θ̄_K − θ*‖ without and with gradient clipping.
    slope, slope_clipped : float
        Log-log slopes of the two curves over ``K >= k_fit_min``.
    theory_slope : float
        ``−(α − 1)/α``.
    alpha : float
        The noise's tail index.
    alpha_hat : float
        Mohammadi's estimate of it from the first noise draws.
    """

    K: np.ndarray
    error: np.ndarray
    error_clipped: np.ndarray
    slope: float
    slope_clipped: float
    theory_slope: float
    alpha: float
    alpha_hat: float


def loglog_slope(K, err, k_min: int = 1) -> float:
    """Least-squares slope of log(err) on log(K) over ``K >= k_min``."""
    K, err = np.asarray(K, dtype=float), np.asarray(err, dtype=float)
    keep = (K >= k_min) & (err > 0)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(K[keep]), np.log(err[keep]), 1)[0])


def ecf_curve(config: HeavyTailConfig | None = None, seed: int = 0, progress=None) -> HeavyTailCurve:
    """Averaged SGD on a quadratic under heavy-tailed gradient noise, with and without clipping.

    Parameters
    ----------
    config : HeavyTailConfig, optional
        Noise, dimension, budget, step, clipping threshold and fit range.
    seed : int
        Seed of the start and the noise.
    progress : callable, optional
        ``progress(step, total, metrics)`` after each chunk of 256 steps; False stops the run.

    Returns
    -------
    HeavyTailCurve
        ``error[i]`` = median over repeats of ‖θ̄_K − θ*‖ at ``K[i]`` (unclipped), ``error_clipped``
        the same with clipped gradients, slopes fitted over ``K >= k_fit_min``, theory ``−(α−1)/α``.

    Examples
    --------
    >>> c = ecf_curve(HeavyTailConfig(alpha=1.5, n_repeats=50, k_max=512))
    >>> round(c.theory_slope, 3), bool(c.error[-1] < c.error[0])
    (-0.333, True)
    """
    c = config or HeavyTailConfig()
    K = np.unique(np.geomspace(8, c.k_max, 14).astype(int))
    h = np.linspace(0.5, 2.0, c.dim) if c.dim > 1 else np.ones(1)
    eta = c.step / h.max()
    rng = derive_rng(seed, "start")
    e0 = rng.standard_normal((c.n_repeats, c.dim))   # θ_0 − θ*
    e = {False: e0.copy(), True: e0.copy()}
    avg = {False: np.zeros_like(e0), True: np.zeros_like(e0)}
    out = {False: [], True: []}
    chunk = 256
    first_noise = None
    done, total = 0, c.k_max
    stopped = False
    while done < total and not stopped:
        n = min(chunk, total - done)
        xi = heavy_noise(c.alpha, (n, c.n_repeats, c.dim), c.noise, derive_seed(seed, "chunk", done))
        if first_noise is None:
            first_noise = xi.ravel()
        for j in range(n):
            k = done + j + 1
            for clipped in (False, True):
                g = h * e[clipped] + xi[j]
                if clipped:
                    norm = np.linalg.norm(g, axis=1, keepdims=True)
                    g = g * np.minimum(1.0, c.clip / np.maximum(norm, 1e-300))
                e[clipped] = e[clipped] - eta * g
                avg[clipped] += (e[clipped] - avg[clipped]) / k
            if k in K:
                for clipped in (False, True):
                    out[clipped].append(float(np.median(np.linalg.norm(avg[clipped], axis=1))))
        done += n
        stopped = not report(progress, done, total, {"error": out[False][-1] if out[False] else np.nan})
    Ks = K[:len(out[False])]
    a_hat = tail_index(first_noise) if first_noise is not None and len(first_noise) >= 16 else float("nan")
    return HeavyTailCurve(Ks, np.array(out[False]), np.array(out[True]), loglog_slope(Ks, out[False], c.k_fit_min),
                          loglog_slope(Ks, out[True], c.k_fit_min), -(c.alpha - 1) / c.alpha, c.alpha, a_hat)
