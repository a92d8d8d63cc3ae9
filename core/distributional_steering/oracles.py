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

from core.common.config import check_range
from core.common.seeding import derive_rng, derive_seed
from core.distributional_steering.closed_forms import grid_points

SPAN, BINS = (-3.0, 3.0), 20


def grid_sample(density: np.ndarray, axes: list[np.ndarray], n: int, seed: int) -> np.ndarray:
    """Exact samples of a gridded density: cells drawn by mass, then uniform within the cell.

    Parameters
    ----------
    density : numpy.ndarray
        Nonnegative masses on the grid spanned by ``axes`` (normalised here).
    axes : list of numpy.ndarray
        One evenly spaced 1-D array of grid points per dimension.
    n : int
        Samples, >= 1.
    seed : int
        Seeds the draw (a child generator is derived from it).

    Returns
    -------
    numpy.ndarray
        [n, dim] samples.

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase, tempered_grid
    >>> x = np.linspace(-3, 3, 61)
    >>> density = tempered_grid(GaussianMixtureBase([1.0], [[0.0]], [[1.0]]), 0.0, [x])   # N(0, 1) on a grid
    >>> sample = grid_sample(density, [x], 4000, seed=0)
    >>> sample.shape, round(float(sample.std()), 1)
    ((4000, 1), 1.0)
    """
    check_range("n", n, 1, None, integer=True)
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

    .. math::

        W1 = min_P sum_ij P_ij |c_i - c_j|   over couplings P of the two histograms

    Parameters
    ----------
    positions : numpy.ndarray
        [n, dim] particles.
    weights : numpy.ndarray
        [n] their weights, summing to 1.
    density : numpy.ndarray
        The target's masses on the grid spanned by ``axes`` (summing to 1).
    axes : list of numpy.ndarray
        One 1-D array of grid points per dimension.
    bins : int
        Bins per axis of the coarse grid both measures are binned on, >= 1.
    span : tuple
        (low, high) of that grid on every axis; points outside are clipped into the edge bins.

    Returns
    -------
    float
        The W1 between the binned measures (0 when they bin alike).

    References
    ----------
    Flamary et al., "POT: Python Optimal Transport", JMLR 2021 (``ot.emd2``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase, tempered_grid
    >>> x = np.linspace(-3, 3, 61)
    >>> density = tempered_grid(GaussianMixtureBase([1.0], [[0.0]], [[1.0]]), 0.0, [x])   # N(0, 1) on a grid
    >>> exact = grid_sample(density, [x], 4000, seed=0)
    >>> shifted = exact + 1.0
    >>> uniform = np.full(4000, 1 / 4000)
    >>> d0, d1 = histogram_distance(exact, uniform, density, [x]), histogram_distance(shifted, uniform, density, [x])
    >>> bool(d0 < 0.1 < d1)
    True
    """
    check_range("bins", bins, 1, 1000, integer=True)
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
    """The Monte Carlo floor: median :func:`histogram_distance` of n exact samples of the target.

    What a perfect sampler with n samples gets; compared with a weighted run, n is its ESS.

    Parameters
    ----------
    density : numpy.ndarray
        The target's masses on the grid spanned by ``axes``.
    axes : list of numpy.ndarray
        One 1-D array of grid points per dimension.
    n : int
        Samples per draw (rounded, at least 1).
    seed : int
        Seeds the draws.
    repeats : int
        Draws, >= 1; the median is returned.
    bins : int
        Bins per axis.
    span : tuple
        (low, high) of the binning grid.

    Returns
    -------
    float
        The median W1 over the draws.

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import GaussianMixtureBase, tempered_grid
    >>> x = np.linspace(-3, 3, 61)
    >>> density = tempered_grid(GaussianMixtureBase([1.0], [[0.0]], [[1.0]]), 0.0, [x])   # N(0, 1) on a grid
    >>> bool(monte_carlo_floor(density, [x], 100) > monte_carlo_floor(density, [x], 10_000))
    True
    """
    check_range("repeats", repeats, 1, 1000, integer=True)
    n = max(int(round(n)), 1)
    values = [histogram_distance(grid_sample(density, axes, n, seed=derive_seed(seed, "floor", r)),
                                 np.full(n, 1.0 / n), density, axes, bins, span) for r in range(repeats)]
    return float(np.median(values))
