"""Gradient ascent on the regularised MCR² objective over free features, with every convergence metric.

Each step Z ← Z + η ∇F(Z) from Gaussian features (entries N(0, init_scale²), classes of equal
size). Measured each step: F, ‖∇F‖_F, the distance to 𝒳*(r) for the rank pattern r the point's
own singular values select (:func:`core.mcr2.maximisers.distance_to_maximisers`), the class
spectra and the largest cross-class subspace cosine. After the run, with r the final pattern,
F* is the closed-form value Σ_k r_k f_k(s_k⁺) (not the run's last value), so the gap F* − F, the
PL ratio ‖∇F‖²/(F* − F), the contraction gap_{t+1}/gap_t and the error-bound ratio dist/‖∇F‖
are measured against the theory's maximiser, not the run's own limit.

The tail (ours): the steps whose gap lies in [1e-9, 1e-3] and whose rank pattern is the final one,
i.e. near 𝒳* and above the float64 floor. Over it we fit the slope of log(gap) against the step,
also on each third of the tail (a linear rate has the same slope in all three), and report the
extremes of the PL ratio and of dist/‖∇F‖.

The paper's setting is the unconstrained regularised objective (the λ‖Z‖² term replaces the
sphere constraint of the original MCR²), so there is no Riemannian variant here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.config import Config, param
from core.common.progress import report
from core.common.seeding import derive_rng
from core.mcr2.maximisers import (critical_lambda, distance_to_maximisers, maximiser_value, rank_pattern,
                                  singular_value_roots, subspace_cosines)
from core.mcr2.objective import check_features, rate_reduction, rate_reduction_grad

TAIL_HIGH, TAIL_LOW = 1e-3, 1e-9
# Far from 𝒳* the alternating projection converges slowly; near it (the tail) it takes 2 or 3 iterations.
PROJECTION_ITERS = 20


@dataclass(frozen=True)
class AscentConfig(Config):
    """Gradient ascent on free features: the problem (K, d, m_k, ε², λ) and the run (η, steps, init).

    Every field is range-checked on construction, and λ must not exceed the critical λ_c of the
    problem (no nonzero maximiser exists above it).

    Examples
    --------
    >>> config = AscentConfig(dim=4, per_class=3)
    >>> config.class_sizes, round(config.eps, 4)
    (array([3, 3]), 0.7071)
    """

    n_classes: int = param(2, low=2, high=6, integer=True, doc="K")
    dim: int = param(10, low=2, high=40, integer=True, doc="feature dimension d")
    per_class: int = param(30, low=2, high=100, integer=True, doc="samples per class m_k")
    eps_sq: float = param(0.5, low=0.01, high=10.0, doc="ε², the squared quantisation error")
    lam: float = param(0.01, low=0.0, high=1.0, low_open=True, doc="regularisation λ")
    lr: float = param(0.5, low=0.0, high=5.0, low_open=True, doc="step size η")
    steps: int = param(1500, low=1, high=20_000, integer=True, doc="gradient steps T")
    init_scale: float = param(1.0, low=0.0, high=10.0, low_open=True, doc="std of the initial features")

    @property
    def eps(self) -> float:
        """ε = √(ε²)."""
        return float(np.sqrt(self.eps_sq))

    @property
    def class_sizes(self) -> np.ndarray:
        """m_k for every class (equal sizes)."""
        return np.full(self.n_classes, self.per_class)

    def validate(self) -> None:
        lam_c = float(critical_lambda(self.dim, self.class_sizes, self.eps)[0])
        if self.lam > lam_c * (1 + 1e-12):
            raise ValueError(f"lam: {self.lam:g} exceeds the critical λ_c = {lam_c:.4g} of this d, K, m_k, ε, "
                             f"where no nonzero maximiser exists; allowed (0, {lam_c:.4g}]")


@dataclass
class TailFit:
    """The log-gap fit and the bounds measured over the tail (NaN when the tail is under 9 steps).

    Attributes
    ----------
    steps : int
        Tail length.
    slope : float
        d log(gap) / d step over the whole tail (negative: linear convergence at rate e^slope).
    third_slopes : numpy.ndarray
        ``(3,)`` the same slope on each third of the tail.
    slope_spread : float
        (max − min) / |mean| of the thirds (0: exactly linear).
    pl_min : float
        Smallest PL ratio ‖∇F‖² / (F* − F) over the tail (2μ of the PL inequality).
    pl_max : float
        Largest PL ratio over the tail.
    kappa : float
        max dist / ‖∇F‖ over the tail (the error bound's constant κ).
    kappa_min : float
        min dist / ‖∇F‖ over the tail.
    contraction_min : float
        Smallest gap_{t+1} / gap_t over the tail.
    contraction_max : float
        Largest gap_{t+1} / gap_t over the tail (< 1: a linear rate).
    """

    steps: int                      # tail length
    slope: float                    # d log(gap) / d step over the whole tail
    third_slopes: np.ndarray        # the same on each third
    slope_spread: float             # (max − min) / |mean| of the thirds (0: exactly linear)
    pl_min: float
    pl_max: float
    kappa: float                    # max dist / ‖∇F‖ (the error bound's constant)
    kappa_min: float
    contraction_min: float
    contraction_max: float


@dataclass
class AscentResult:
    """A gradient-ascent run with every convergence metric per step, and its tail fit.

    Attributes
    ----------
    config : AscentConfig
        The run's configuration.
    seed : int
        The seed of the initial features.
    objective : numpy.ndarray
        ``(T+1,)`` F at every step, the start included.
    grad_norm : numpy.ndarray
        ``(T+1,)`` ‖∇F‖_F.
    distance : numpy.ndarray
        ``(T+1,)`` dist(Z, 𝒳*(r)) for each step's own rank pattern r.
    gap : numpy.ndarray
        ``(T+1,)`` F* − F, with F* the closed-form value of the final pattern.
    pl_ratio : numpy.ndarray
        ``(T+1,)`` ‖∇F‖² / gap (NaN where gap <= 0).
    bound_ratio : numpy.ndarray
        ``(T+1,)`` dist / ‖∇F‖.
    contraction : numpy.ndarray
        ``(T,)`` gap_{t+1} / gap_t.
    spectra : numpy.ndarray
        ``(T+1, K, min(d, m_k))`` squared singular values per class.
    overlap : numpy.ndarray
        ``(T+1,)`` the largest cross-class subspace cosine.
    rank_changes : numpy.ndarray
        ``(T+1,)`` bool: whether the step's rank pattern is the final one.
    ranks : numpy.ndarray
        ``(K,)`` the final rank pattern.
    predicted_s : numpy.ndarray
        ``(K,)`` s_k⁺, the maximiser's σ² per class (closed form).
    saddle_s : numpy.ndarray
        ``(K,)`` s_k⁻, the saddle root per class.
    f_star : float
        F* = Σ_k r_k f_k(s_k⁺) for the final pattern.
    steps_done : int
        Steps run (fewer than ``config.steps`` when stopped).
    final_features : numpy.ndarray
        ``(d, m)`` the last iterate.
    labels : numpy.ndarray
        ``(m,)`` class of each column.
    tail : numpy.ndarray
        ``(T+1,)`` bool: the steps fitted (gap in [1e-9, 1e-3], final rank pattern).
    fit : TailFit
        Slopes and bounds over the tail.
    """

    config: AscentConfig
    seed: int
    objective: np.ndarray           # (T+1,)
    grad_norm: np.ndarray
    distance: np.ndarray
    gap: np.ndarray                 # F* − F
    pl_ratio: np.ndarray            # ‖∇F‖² / gap
    bound_ratio: np.ndarray         # dist / ‖∇F‖
    contraction: np.ndarray         # (T,) gap_{t+1} / gap_t
    spectra: np.ndarray             # (T+1, K, min(d, m_k)) squared singular values per class
    overlap: np.ndarray             # (T+1,) largest cross-class subspace cosine
    rank_changes: np.ndarray        # (T+1,) whether the step's rank pattern is the final one
    ranks: np.ndarray               # final rank pattern
    predicted_s: np.ndarray         # s_k⁺ per class
    saddle_s: np.ndarray            # s_k⁻ per class
    f_star: float
    steps_done: int
    final_features: np.ndarray
    labels: np.ndarray
    tail: np.ndarray                # (T+1,) bool
    fit: TailFit = field(default=None)


@dataclass
class AscentTrace:
    """The per-step table of a run (what the page exports): one row per step, the tail fit beside it.

    Attributes
    ----------
    config : AscentConfig
        The run's configuration.
    seed : int
        The seed of the initial features.
    step : numpy.ndarray
        ``(T+1,)`` step numbers 0..T.
    objective, grad_norm, distance, gap, pl_ratio, bound_ratio, overlap : numpy.ndarray
        ``(T+1,)`` as in :class:`AscentResult`.
    top_sigma_sq : numpy.ndarray
        ``(T+1, K)`` each class's largest squared singular value.
    tail : numpy.ndarray
        ``(T+1,)`` bool: the steps fitted.
    ranks : numpy.ndarray
        ``(K,)`` the final rank pattern.
    predicted_s : numpy.ndarray
        ``(K,)`` s_k⁺ per class.
    f_star : float
        The closed-form F* of the final pattern.
    fit : TailFit
        Slopes and bounds over the tail.
    """

    config: AscentConfig
    seed: int
    step: np.ndarray
    objective: np.ndarray
    grad_norm: np.ndarray
    distance: np.ndarray
    gap: np.ndarray
    pl_ratio: np.ndarray
    bound_ratio: np.ndarray
    overlap: np.ndarray
    top_sigma_sq: np.ndarray        # (T+1, K) each class's largest squared singular value
    tail: np.ndarray
    ranks: np.ndarray
    predicted_s: np.ndarray
    f_star: float
    fit: TailFit


def trace_of(result: AscentResult) -> AscentTrace:
    """The exportable per-step table of ``result`` (no feature matrices, no full spectra).

    Parameters
    ----------
    result : AscentResult
        A run of :func:`ascend`.

    Returns
    -------
    AscentTrace
        One row per step, each class's top σ² instead of the full spectra, and the tail fit.

    Examples
    --------
    >>> trace = trace_of(ascend(AscentConfig(dim=4, per_class=3, steps=5), seed=0))
    >>> trace.step.tolist(), trace.top_sigma_sq.shape
    ([0, 1, 2, 3, 4, 5], (6, 2))
    """
    if not isinstance(result, AscentResult):
        raise ValueError(f"result: a {type(result).__name__}; allowed an AscentResult from ascend")
    return AscentTrace(result.config, result.seed, np.arange(result.objective.size), result.objective,
                       result.grad_norm, result.distance, result.gap, result.pl_ratio, result.bound_ratio,
                       result.overlap, result.spectra[:, :, 0], result.tail, result.ranks, result.predicted_s,
                       result.f_star, result.fit)


@dataclass
class Features:
    """Features and their labels: a starting point of :func:`ascend`.

    Attributes
    ----------
    features : numpy.ndarray
        ``(d, m)``, one column per sample.
    labels : numpy.ndarray
        ``(m,)`` class of each column, 0..K-1 in blocks of ``per_class``.
    """

    features: np.ndarray
    labels: np.ndarray


def initial_features(config: AscentConfig, seed: int) -> Features:
    """The seeded Gaussian start of :func:`ascend`: entries N(0, init_scale²), classes of equal size.

    Parameters
    ----------
    config : AscentConfig
        Gives d, K, m_k and the scale.
    seed : int
        The draw (``derive_rng(seed, "mcr2", "init")``).

    Returns
    -------
    Features
        ``(d, K m_k)`` features and their block labels.

    Examples
    --------
    >>> start = initial_features(AscentConfig(dim=4, per_class=3), seed=0)
    >>> start.features.shape, start.labels.tolist()
    ((4, 6), [0, 0, 0, 1, 1, 1])
    """
    if not isinstance(config, AscentConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed an AscentConfig")
    rng = derive_rng(seed, "mcr2", "init")
    labels = np.repeat(np.arange(config.n_classes), config.per_class)
    return Features(config.init_scale * rng.normal(size=(config.dim, labels.size)), labels)


def ascend(config: AscentConfig | None = None, seed: int = 0, progress=None, start=None) -> AscentResult:
    """Gradient ascent on F from seeded Gaussian features (or ``start = (Z, labels)``).

    Each step is :math:`Z_{t+1} = Z_t + \\eta \\nabla F(Z_t)`; near a local maximiser the paper's error
    bound :math:`\\operatorname{dist}(Z, \\mathcal X^\\star) \\le \\kappa \\lVert \\nabla F(Z) \\rVert`
    implies the PL inequality and a linear rate, which the result's tail fit measures.

    Parameters
    ----------
    config : AscentConfig
        The problem and the run; default ``AscentConfig()``.
    seed : int
        The initial features (see :func:`initial_features`).
    progress : callable, optional
        ``progress(step, total, {"objective", "grad_norm", "distance"})``; False stops the run.
    start : Features or (Z, labels), optional
        Features to start from instead of the seeded draw (the controls use it); validated like
        :func:`rate_reduction`'s inputs.

    Returns
    -------
    AscentResult
        Every metric per step, the closed-form F*, and the tail fit.

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> run = ascend(AscentConfig(dim=4, per_class=3, steps=5), seed=0)
    >>> run.steps_done, bool(np.all(np.diff(run.objective) > 0)), run.ranks
    (5, True, array([2, 2]))
    """
    config = AscentConfig() if config is None else config
    if not isinstance(config, AscentConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed an AscentConfig")
    if start is None:
        begin = initial_features(config, seed)
        Z, labels = begin.features, begin.labels
    else:
        Z, labels = (start.features, start.labels) if isinstance(start, Features) else start
        Z, labels, _ = check_features(np.array(Z, dtype=float), labels)
    eps, lam = config.eps, config.lam
    sizes = np.bincount(labels)
    roots = singular_value_roots(Z.shape[0], sizes, eps, lam)
    width = min(Z.shape[0], int(sizes.min()))
    obj, gnorm, dist, spectra, overlap, patterns = [], [], [], [], [], []

    def record(Z, grad):
        obj.append(rate_reduction(Z, labels, eps, lam))
        gnorm.append(float(np.linalg.norm(grad)))
        ranks = rank_pattern(Z, labels, eps, lam)
        patterns.append(ranks)
        dist.append(distance_to_maximisers(Z, labels, eps, lam, ranks=ranks, max_iter=PROJECTION_ITERS).distance)
        spectra.append([np.linalg.svd(Z[:, labels == c], compute_uv=False)[:width] ** 2 for c in range(sizes.size)])
        overlap.append(float(subspace_cosines(Z, labels, ranks).max()))

    grad = rate_reduction_grad(Z, labels, eps, lam)
    record(Z, grad)
    done = 0
    for step in range(1, config.steps + 1):
        Z = Z + config.lr * grad
        grad = rate_reduction_grad(Z, labels, eps, lam)
        record(Z, grad)
        done = step
        if not report(progress, step, config.steps, {"objective": obj[-1], "grad_norm": gnorm[-1],
                                                     "distance": dist[-1]}):
            break
    return _result(config, seed, Z, labels, roots, obj, gnorm, dist, spectra, overlap, patterns, done)


def _result(config, seed, Z, labels, roots, obj, gnorm, dist, spectra, overlap, patterns, done) -> AscentResult:
    sizes = np.bincount(labels)
    ranks = patterns[-1]
    f_star = maximiser_value(ranks, Z.shape[0], sizes, config.eps, config.lam)
    obj, gnorm, dist = np.array(obj), np.array(gnorm), np.array(dist)
    gap = f_star - obj
    with np.errstate(divide="ignore", invalid="ignore"):
        pl = np.where(gap > 0, gnorm**2 / gap, np.nan)
        ratio = np.where(gnorm > 0, dist / gnorm, np.nan)
        contraction = np.where(gap[:-1] > 0, gap[1:] / gap[:-1], np.nan)
    final = np.array([np.array_equal(p, ranks) for p in patterns])
    tail = final & (gap >= TAIL_LOW) & (gap <= TAIL_HIGH)
    result = AscentResult(config, int(seed), obj, gnorm, dist, gap, pl, ratio, contraction, np.array(spectra),
                          np.array(overlap), final, ranks, roots.maximiser, roots.saddle, f_star, done, Z, labels, tail)
    result.fit = fit_tail(result)
    return result


def fit_tail(result: AscentResult) -> TailFit:
    """Slopes and bounds over ``result.tail`` (NaN when the tail has fewer than 9 steps).

    Parameters
    ----------
    result : AscentResult
        A run of :func:`ascend` (its ``tail``, ``gap``, ``pl_ratio``, ``bound_ratio`` and ``contraction``).

    Returns
    -------
    TailFit
        The least-squares slope of log(gap) against the step over the tail and on each third, and
        the extremes of the PL ratio, of dist/‖∇F‖ and of the contraction there.

    Examples
    --------
    >>> fit_tail(ascend(AscentConfig(dim=4, per_class=3, steps=5), seed=0)).steps   # not near 𝒳* yet
    0
    """
    if not isinstance(result, AscentResult):
        raise ValueError(f"result: a {type(result).__name__}; allowed an AscentResult from ascend")
    idx = np.flatnonzero(result.tail)
    if idx.size < 9:
        nan = float("nan")
        return TailFit(int(idx.size), nan, np.full(3, nan), nan, nan, nan, nan, nan, nan, nan)
    logs = np.log(result.gap[idx])
    slope = float(np.polyfit(idx, logs, 1)[0])
    thirds = np.array([np.polyfit(idx[part], logs[part], 1)[0] for part in np.array_split(np.arange(idx.size), 3)])
    steps = idx[idx < result.contraction.size]
    c = result.contraction[steps[np.isin(steps + 1, idx)]]
    return TailFit(int(idx.size), slope, thirds, float(np.ptp(thirds) / abs(np.mean(thirds))),
                   float(np.nanmin(result.pl_ratio[idx])), float(np.nanmax(result.pl_ratio[idx])),
                   float(np.nanmax(result.bound_ratio[idx])), float(np.nanmin(result.bound_ratio[idx])),
                   float(np.nanmin(c)) if c.size else float("nan"), float(np.nanmax(c)) if c.size else float("nan"))
