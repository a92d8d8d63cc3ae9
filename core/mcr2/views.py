"""The far-point control: the error-bound ratio next to a strict saddle, far from every maximiser.

:func:`core.mcr2.maximisers.saddle_point` builds a critical point with orthogonal class subspaces,
the maximiser's σ⁺ on d − 1 directions shared out between the classes, and one more direction of
class 0 at the saddle root σ⁻. Its gradient vanishes, yet its distance to the nearest maximiser
set 𝒳*(r) (that direction at 0) is σ⁻: so at points δ-close to it, dist/‖∇F‖ grows like 1/δ and no
local constant κ can hold there. Ours: the perturbation is seeded Gaussian noise of norm δ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_rng
from core.mcr2.ascent import AscentConfig
from core.mcr2.maximisers import distance_to_maximisers, saddle_point
from core.mcr2.objective import rate_reduction_grad

DELTAS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5)


@dataclass
class SaddleProbe:
    """The error-bound ratio at perturbations of a strict saddle (the far-point control).

    Attributes
    ----------
    deltas : numpy.ndarray
        ``(P,)`` perturbation norms δ.
    distance : numpy.ndarray
        ``(P,)`` dist(Z, 𝒳*(r)) at each perturbed point.
    grad_norm : numpy.ndarray
        ``(P,)`` ‖∇F‖ there.
    ratio : numpy.ndarray
        ``(P,)`` dist / ‖∇F‖: grows like 1/δ, so no local κ holds at the saddle.
    saddle_grad_norm : float
        ‖∇F‖ at the saddle itself (0 up to rounding).
    saddle_distance : float
        Its distance to 𝒳*(r): σ⁻ in exact arithmetic.
    ranks : numpy.ndarray
        ``(K,)`` the rank pattern r of the nearest maximiser set.
    """

    deltas: np.ndarray          # perturbation norms
    distance: np.ndarray        # dist(Z, 𝒳*(r)) at each perturbed point
    grad_norm: np.ndarray
    ratio: np.ndarray           # dist / ‖∇F‖
    saddle_grad_norm: float     # ‖∇F‖ at the saddle itself (0 up to rounding)
    saddle_distance: float      # σ⁻ in exact arithmetic
    ranks: np.ndarray


def saddle_ranks(config: AscentConfig) -> np.ndarray:
    """d − 1 maximiser directions shared as evenly as the class sizes allow (class 0 keeps one free)."""
    ranks = np.zeros(config.n_classes, dtype=int)
    caps = config.class_sizes.copy()
    caps[0] -= 1
    for i in range(config.dim - 1):
        order = [c for c in np.argsort(ranks, kind="stable") if ranks[c] < caps[c]]
        if not order:
            break
        ranks[order[0]] += 1
    return ranks


def saddle_probe(config: AscentConfig | None = None, seed: int = 0, deltas=DELTAS) -> SaddleProbe:
    """dist/‖∇F‖ at δ-perturbations of a strict saddle (see the module docstring).

    Parameters
    ----------
    config : AscentConfig, optional
        The problem (d, K, m_k, ε, λ); default ``AscentConfig()``.
    seed : int
        The saddle's subspaces and the perturbation's direction.
    deltas : sequence of float
        Perturbation norms, each > 0 and finite.

    Returns
    -------
    SaddleProbe
        Distance, gradient norm and their ratio at each δ, and the saddle's own values.

    Examples
    --------
    >>> probe = saddle_probe(AscentConfig(dim=4, per_class=3), seed=0, deltas=(1e-2, 1e-4))
    >>> bool(probe.ratio[1] > 50 * probe.ratio[0]), round(probe.saddle_distance, 4)
    (True, 0.0759)
    """
    config = AscentConfig() if config is None else config
    if not isinstance(config, AscentConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed an AscentConfig")
    try:
        values = np.asarray(deltas, dtype=float)
    except (TypeError, ValueError):
        values = np.asarray([np.nan])
    if values.ndim != 1 or values.size < 1 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"deltas: {deltas!r} is not a list of perturbation norms; allowed numbers > 0")
    ranks = saddle_ranks(config)
    point = saddle_point(config.dim, config.class_sizes, config.eps, config.lam, ranks, seed=seed)
    Z0, labels, ranks = point.features, point.labels, point.ranks
    rng = derive_rng(seed, "mcr2", "saddle-noise")
    noise = rng.normal(size=Z0.shape)
    noise /= np.linalg.norm(noise)
    dist, grad = [], []
    for delta in deltas:
        Z = Z0 + delta * noise
        dist.append(distance_to_maximisers(Z, labels, config.eps, config.lam, ranks=ranks).distance)
        grad.append(float(np.linalg.norm(rate_reduction_grad(Z, labels, config.eps, config.lam))))
    dist, grad = np.array(dist), np.array(grad)
    return SaddleProbe(np.array(deltas, dtype=float), dist, grad, dist / grad,
                       float(np.linalg.norm(rate_reduction_grad(Z0, labels, config.eps, config.lam))),
                       distance_to_maximisers(Z0, labels, config.eps, config.lam, ranks=ranks).distance, ranks)
