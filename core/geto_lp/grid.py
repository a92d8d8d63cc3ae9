"""Grids, separable costs and the validation of a barycenter problem's inputs.

A problem lives on the regular grid ``G_1 x ... x G_d`` with ``G_k = {0, ..., n_k - 1}``; a point's
coordinates are its indices times ``spacing`` (one number, or one per axis). Points are numbered in
C order (``np.ravel_multi_index``), so a histogram of shape ``(n_1, ..., n_d)`` and its ravel agree.

Only costs that split into a sum over the axes are accepted, because the layered LP is exact only
for them (see :mod:`core.geto_lp.layered`)::

    "sqeuclidean"  c(x, y) = sum_k (h_k |x_k - y_k|)^2
    "l1"           c(x, y) = sum_k  h_k |x_k - y_k|
    "lp:<p>"       c(x, y) = sum_k (h_k |x_k - y_k|)^p      for 0 < p <= 16

Plain Euclidean distance, L-infinity and the like are refused by name, with the reason.

Our choices: histograms are rescaled to mass 1 each (the LP needs equal masses, and images such as
digits are not normalised), and weights are rescaled to sum to 1. Validation copies its inputs, so
nothing the caller passed is ever modified, whether the call succeeds or fails.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Sequence

import numpy as np

SEPARABLE = "'sqeuclidean', 'l1', 'lp:<p>' with 0 < p <= 16"
NOT_SEPARABLE = ("euclidean", "l2", "linf", "chebyshev", "minkowski", "cosine")
MAX_P = 16.0
MAX_VARIABLES = 20_000_000


@dataclass(frozen=True)
class SeparableCost:
    """``c(x, y) = sum_k (spacing_k |x_k - y_k|)^p``: the name and its exponent.

    Attributes
    ----------
    name : str
        The canonical name: "sqeuclidean", "l1" or "lp:<p>".
    p : float
        The exponent applied to each axis's distance, in (0, 16].
    """

    name: str
    p: float

    def axis_matrix(self, n: int, spacing: float) -> np.ndarray:
        """The ``n x n`` cost along one axis: ``(spacing |s - t|)^p``."""
        idx = np.arange(n, dtype=float)
        return (spacing * np.abs(idx[:, None] - idx[None, :])) ** self.p


def parse_cost(cost: object) -> SeparableCost:
    """A :class:`SeparableCost` from its name, or a ``ValueError`` naming what is allowed.

    Parameters
    ----------
    cost : str
        "sqeuclidean" (:math:`p = 2`), "l1" (:math:`p = 1`) or "lp:<p>" with :math:`0 < p \\le 16`;
        case and surrounding blanks are ignored. Non-separable costs ("euclidean", "linf", ...) are
        refused with the reason.

    Returns
    -------
    SeparableCost
        The cost's canonical name and its per-axis exponent :math:`p`, for
        :math:`c(x, y) = \\sum_k (h_k |x_k - y_k|)^p`.

    Raises
    ------
    ValueError
        ``"cost: ...; allowed ..."`` for anything else.

    References
    ----------
    .. [1] "Grid-efficient exact LP for Wasserstein barycenters" (GETO-LP), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> parse_cost("lp:1.5")
    SeparableCost(name='lp:1.5', p=1.5)
    >>> parse_cost("sqeuclidean").p
    2.0
    """
    if not isinstance(cost, str):
        raise ValueError(f"cost: expected a name, got {cost!r}; allowed {SEPARABLE}")
    name = cost.strip().lower()
    if name == "sqeuclidean":
        return SeparableCost("sqeuclidean", 2.0)
    if name == "l1":
        return SeparableCost("l1", 1.0)
    if name.startswith("lp:"):
        try:
            p = float(name[3:])
        except ValueError:
            raise ValueError(f"cost: {cost!r} has no number after 'lp:'; allowed {SEPARABLE}") from None
        if not (math.isfinite(p) and 0.0 < p <= MAX_P):
            raise ValueError(f"cost: exponent {p:g} in {cost!r} is out of range; allowed {SEPARABLE}")
        return SeparableCost(f"lp:{p:g}", p)
    if name in NOT_SEPARABLE:
        raise ValueError(f"cost: {cost!r} is not separable along the grid axes, so the layered LP would not be "
                         f"exact for it; allowed {SEPARABLE}")
    raise ValueError(f"cost: {cost!r} is not a known cost; allowed {SEPARABLE}")


def check_spacing(spacing: object, d: int) -> tuple[float, ...]:
    """One positive grid step per axis (a single number applies to every axis)."""
    allowed = f"a number > 0 or {d} numbers > 0 (one per axis)"
    values = [spacing] if isinstance(spacing, numbers.Real) else spacing
    try:
        values = [v for v in values]  # type: ignore[union-attr]
    except TypeError:
        raise ValueError(f"spacing: expected a number, got {spacing!r}; allowed {allowed}") from None
    if len(values) not in (1, d):
        raise ValueError(f"spacing: {len(values)} values for a {d}-D grid; allowed {allowed}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)) or float(v) <= 0:
            raise ValueError(f"spacing: {v!r} is not a positive number; allowed {allowed}")
        out.append(float(v))
    return tuple(out * d) if len(out) == 1 else tuple(out)


def check_histograms(histograms: object) -> np.ndarray:
    """A float copy of shape ``(M, n_1, ..., n_d)``, each histogram rescaled to mass 1.

    Parameters
    ----------
    histograms : array_like or sequence of arrays
        ``M >= 1`` nonnegative, finite histograms on one common ``d``-dimensional grid (``d >= 1``),
        each with positive total mass; a list of equally shaped arrays is stacked.

    Returns
    -------
    numpy.ndarray
        A new float array of shape ``(M, n_1, ..., n_d)`` whose histograms each sum to 1; the input
        is never modified.

    Raises
    ------
    ValueError
        ``"histograms: ...; allowed ..."`` for a bad shape, negative, non-finite or all-zero mass.

    Examples
    --------
    >>> check_histograms([[1.0, 3.0], [2.0, 2.0]])
    array([[0.25, 0.75],
           [0.5 , 0.5 ]])
    """
    allowed_shape = "an array of shape (M, n_1, ..., n_d) with M >= 1 and d >= 1"
    if isinstance(histograms, (list, tuple)):
        parts = [np.asarray(h) for h in histograms]
        if not parts:
            raise ValueError(f"histograms: none given; allowed {allowed_shape}")
        for i, part in enumerate(parts[1:], start=1):
            if part.shape != parts[0].shape:
                raise ValueError(f"histograms: histogram {i} has shape {part.shape} but histogram 0 has "
                                 f"{parts[0].shape}; allowed one common grid shape")
        histograms = np.stack(parts)
    try:
        array = np.array(histograms, dtype=float)  # a copy: the caller's array is never touched
    except (TypeError, ValueError):
        raise ValueError(f"histograms: not an array of numbers; allowed {allowed_shape}") from None
    if array.ndim < 2 or array.shape[0] < 1 or min(array.shape) < 1:
        raise ValueError(f"histograms: shape {array.shape}; allowed {allowed_shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("histograms: contains NaN or infinite values; allowed finite nonnegative masses")
    flat = array.reshape(array.shape[0], -1)
    for i, h in enumerate(flat):
        if h.min() < 0:
            raise ValueError(f"histograms: histogram {i} has negative mass (minimum {h.min():.3g}); "
                             "allowed nonnegative values")
        if h.sum() <= 0:
            raise ValueError(f"histograms: histogram {i} is all zero; allowed histograms with positive total mass")
    flat /= flat.sum(axis=1, keepdims=True)
    return array


def check_weights(weights: object, m: int) -> np.ndarray:
    """Barycentric weights: ``m`` nonnegative numbers rescaled to sum to 1 (uniform if None)."""
    allowed = f"{m} nonnegative numbers with a positive sum"
    if weights is None:
        return np.full(m, 1.0 / m)
    try:
        w = np.array(weights, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"weights: not a list of numbers; allowed {allowed}") from None
    if w.size != m:
        raise ValueError(f"weights: {w.size} weights for {m} histograms; allowed {allowed}")
    if not np.all(np.isfinite(w)) or w.min() < 0 or w.sum() <= 0:
        raise ValueError(f"weights: {np.round(w, 6).tolist()} is not valid; allowed {allowed}")
    return w / w.sum()


def _check_counts(m: object, shape: object) -> tuple[int, tuple[int, ...]]:
    """``m`` and ``shape`` as ints, or a ``ValueError`` naming the field."""
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        raise ValueError(f"m: {m!r} is not a number of histograms; allowed an integer >= 1")
    try:
        dims = tuple(shape)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"shape: {shape!r} is not a grid shape; allowed a sequence of integers >= 1") from None
    if not dims or any(isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1 for n in dims):
        raise ValueError(f"shape: {shape!r} is not a grid shape; allowed a sequence of integers >= 1")
    return int(m), tuple(int(n) for n in dims)


def count_variables(m: int, shape: Sequence[int]) -> int:
    """Variables of the layered LP: ``M * N * sum_k n_k`` flows plus ``N`` barycenter masses.

    Parameters
    ----------
    m : int
        Number of input histograms, ``M >= 1``.
    shape : sequence of int
        The grid ``(n_1, ..., n_d)``, every ``n_k >= 1``.

    Returns
    -------
    int
        .. math:: M N \\sum_k n_k + N, \\qquad N = \\prod_k n_k,

        that is :math:`M d N^{1 + 1/d} + N` on a cube, against :math:`M N^2 + N` for the classical LP
        (:func:`count_classical_variables`).

    References
    ----------
    .. [1] "Grid-efficient exact LP for Wasserstein barycenters" (GETO-LP), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> count_variables(2, (4, 4))
    272
    >>> count_variables(2, (4, 4)) < count_classical_variables(2, (4, 4))
    True
    """
    m, dims = _check_counts(m, shape)
    n = math.prod(dims)
    return m * n * sum(dims) + n


def count_classical_variables(m: int, shape: Sequence[int]) -> int:
    """Variables of the classical barycenter LP (POT's ``ot.lp.barycenter``): ``M N^2 + N``.

    Parameters
    ----------
    m : int
        Number of input histograms, ``M >= 1``.
    shape : sequence of int
        The grid ``(n_1, ..., n_d)``, every ``n_k >= 1``.

    Returns
    -------
    int
        One coupling entry per pair of grid points and input, plus the ``N`` barycenter masses.

    Examples
    --------
    >>> count_classical_variables(2, (4, 4))
    528
    """
    m, dims = _check_counts(m, shape)
    n = math.prod(dims)
    return m * n * n + n


def check_size(m: int, shape: Sequence[int]) -> None:
    count = count_variables(m, shape)
    if count > MAX_VARIABLES:
        raise ValueError(f"histograms: {m} histograms on a {'x'.join(map(str, shape))} grid need {count:,} LP "
                         f"variables; allowed at most {MAX_VARIABLES:,}")


def grid_points(shape: Sequence[int], spacing: Sequence[float]) -> np.ndarray:
    """``(N, d)`` coordinates of the grid points, in C order."""
    axes = [np.arange(n) * h for n, h in zip(shape, spacing)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(shape))


def cost_matrix(shape: Sequence[int], cost: str | SeparableCost = "sqeuclidean",
                spacing: float | Sequence[float] = 1.0) -> np.ndarray:
    """The dense ``N x N`` ground cost (for POT's solvers and for checks; O(N^2) memory).

    Parameters
    ----------
    shape : sequence of int
        The grid ``(n_1, ..., n_d)``, every ``n_k >= 1``.
    cost : str or SeparableCost
        A separable cost (see :func:`parse_cost`).
    spacing : float or sequence of float
        The grid step, one for every axis or one per axis, each > 0.

    Returns
    -------
    numpy.ndarray
        ``(N, N)``, points in C order:

        .. math:: C_{ij} = \\sum_k (h_k |x^{(i)}_k - x^{(j)}_k|)^p,

        with coordinates ``index * spacing``.

    Examples
    --------
    >>> cost_matrix((3,), "sqeuclidean", 0.5)
    array([[0.  , 0.25, 1.  ],
           [0.25, 0.  , 0.25],
           [1.  , 0.25, 0.  ]])
    """
    cost = cost if isinstance(cost, SeparableCost) else parse_cost(cost)
    _, shape = _check_counts(1, shape)
    spacing = check_spacing(spacing, len(shape))
    points = grid_points(shape, spacing)
    total = np.zeros((points.shape[0], points.shape[0]))
    for k in range(len(shape)):
        total += np.abs(points[:, None, k] - points[None, :, k]) ** cost.p
    return total


def pair_costs(rows: np.ndarray, cols: np.ndarray, shape: Sequence[int], cost: SeparableCost,
               spacing: Sequence[float]) -> np.ndarray:
    """``c(x_i, y_j)`` for flat indices ``rows[i], cols[i]`` without forming the N x N matrix."""
    ri, ci = np.unravel_index(rows, shape), np.unravel_index(cols, shape)
    total = np.zeros(len(rows))
    for k, h in enumerate(spacing):
        total += (h * np.abs(ri[k] - ci[k])) ** cost.p
    return total
