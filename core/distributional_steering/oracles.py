"""Distances between weighted particles and an exact gridded target, and their Monte Carlo floor.

The check the scheme is held to is a transport distance between the whole weighted sample and the
exact target, not only the statistic a reward constrains. Our choices: both measures are binned on
the same coarse grid (``bins`` per axis over ``span``, points outside clipped into the edge bins)
and compared with the exact earth mover's distance (``ot.emd2``) under the Euclidean ground cost
between bin centres, a W1 at the bins' resolution. The Monte Carlo floor is the same distance for
exact samples of the target, as many as the particles' effective sample size (Kish's 1 / sum w^2),
so "within k times the floor" means "as close as k times what a perfect sampler of that size gets".
"""

from __future__ import annotations

import numpy as np

from core.common.seeding import derive_rng, derive_seed
from core.distributional_steering.closed_forms import grid_points

SPAN, BINS = (-3.0, 3.0), 20


def grid_sample(density: np.ndarray, axes: list[np.ndarray], n: int, seed: int) -> np.ndarray:
    """n samples [n, dim] of a gridded density (cells drawn by mass, then uniform within the cell)."""
    rng = derive_rng(seed, "grid_sample")
    mesh = grid_points(axes)
    p = np.asarray(density, dtype=float).ravel()
    idx = rng.choice(len(p), size=n, p=p / p.sum())
    cells = np.array([x[1] - x[0] for x in axes])
    return mesh[idx] + rng.uniform(-0.5, 0.5, (n, len(axes))) * cells


def _binned(points: np.ndarray, weights: np.ndarray, bins: int, span) -> np.ndarray:
    edges = np.linspace(span[0], span[1], bins + 1)
    inner = np.clip(points, edges[0] + 1e-12, edges[-1] - 1e-12)
    hist, _ = np.histogramdd(inner, bins=[edges] * points.shape[1], weights=weights)
    return hist.ravel() / hist.sum()


def histogram_distance(positions, weights, density, axes, bins: int = BINS, span=SPAN) -> float:
    """W1 (exact EMD, ``ot.emd2``) between the binned weighted particles and the binned exact target.

    Parameters
    ----------
    positions : array [n, dim]
    weights : array [n], summing to 1
    density : array, the target's masses on the grid spanned by ``axes`` (summing to 1)
    axes : list of 1-D arrays, one per dimension
    bins, span : the coarse grid both measures are binned on

    Returns
    -------
    float : sum_ij P_ij |c_i - c_j| for the optimal coupling P of the two histograms.
    """
    import ot

    positions = np.asarray(positions, dtype=float).reshape(len(positions), -1)
    dim = positions.shape[1]
    edges = np.linspace(span[0], span[1], bins + 1)
    centres = grid_points([(edges[:-1] + edges[1:]) / 2] * dim)
    a = _binned(positions, np.asarray(weights, dtype=float), bins, span)
    b = _binned(grid_points(axes), np.asarray(density, dtype=float).ravel(), bins, span)
    return float(ot.emd2(a, b, ot.dist(centres, centres, metric="euclidean")))


def monte_carlo_floor(density, axes, n: int, seed: int = 0, repeats: int = 5, bins: int = BINS,
                      span=SPAN) -> float:
    """Median of :func:`histogram_distance` for n exact samples of the target over ``repeats`` draws."""
    n = max(int(round(n)), 1)
    values = [histogram_distance(grid_sample(density, axes, n, seed=derive_seed(seed, "floor", r)),
                                 np.full(n, 1.0 / n), density, axes, bins, span) for r in range(repeats)]
    return float(np.median(values))
