"""The layered-flow LP for the fixed-support barycenter, built directly as a sparse matrix.

The classical LP (POT's ``ot.lp.barycenter``) has one variable per pair of grid points and input:
``M N^2 + N``. For a cost that splits over the axes, ``c(x, y) = sum_k c_k(x_k, y_k)``, each
coupling can instead be routed through ``d`` stages that move mass along one axis at a time.

Layers ``0..d`` are copies of the grid. Stage ``k`` (from layer ``k-1`` to layer ``k``) has an arc
``x -> x[k <- t]`` for every point ``x`` and every ``t`` in ``G_k`` (the self-arc ``t = x_k``
included) with cost ``c_k(x_k, t)``; its flow is ``f_m^k(x, t) >= 0``. With ``b >= 0`` the
barycenter, the LP is::

    min   sum_m lambda_m sum_k sum_{x, t} c_k(x_k, t) f_m^k(x, t)
    s.t.  in_l(y) - out_l(y) = s_l(y)     for every input m, layer l = 0..d, point y
    where out_0 = sum_t f_m^1(y, t), in_0 = 0, s_0 = -a_m(y)
          in_l(y) = sum_s f_m^l(y[l <- s], y_l),  out_l = sum_t f_m^{l+1}(y, t), s_l = 0  (0 < l < d)
          in_d(y) = sum_s f_m^d(y[d <- s], y_d),  out_d = b(y),                  s_d = 0

It is exact (our derivation, checked against POT in the tests): routing a plan's unit from ``x``
to ``y`` along ``x -> (y_1, x_2, ...) -> ... -> y`` costs ``c(x, y)``, so the LP is no worse than
the classical one; conversely every path of a layered flow changes coordinate ``k`` only in stage
``k``, so it costs exactly ``c`` of its endpoints, and decomposing the flow into paths gives a plan
of the same cost (:mod:`core.geto_lp.plans`). Convexity of ``c_k`` is not needed.

Sizes: ``M N sum_k n_k + N`` variables (``M d N^{1+1/d} + N`` on a cube), ``M (d+1) N`` rows,
two nonzeros per flow and ``M`` per barycenter entry. Summing block ``m``'s rows gives
``sum_y b(y) = 1`` for every ``m``: ``M - 1`` rows are redundant. We drop the last-layer row of
point 0 for every ``m >= 1`` (as POT drops one column-sum row), because HiGHS's presolve otherwise
sees input masses that differ by ~1e-16 and can declare the LP infeasible.

Variable order (ours): block ``m`` then stage ``k`` then point ``x`` (C order) then target ``t``,
and ``b`` last; rows: block ``m`` then layer ``l`` then point ``y``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from core.geto_lp.grid import SeparableCost


@dataclass
class LayeredLP:
    """``min c.x  s.t.  A x = rhs, x >= 0`` with the layout needed to read the flows back.

    Attributes
    ----------
    shape : tuple of int
        The grid ``(n_1, ..., n_d)``.
    n_hist : int
        Number of inputs ``M``.
    c : numpy.ndarray
        ``(n_variables,)`` objective: ``lambda_m c_k(x_k, t)`` per flow, 0 per barycenter entry.
    A : scipy.sparse.csc_matrix
        ``(n_constraints, n_variables)`` flow-conservation rows (the ``M - 1`` redundant ones dropped).
    rhs : numpy.ndarray
        ``(n_constraints,)`` right-hand side: ``-a_m`` on layer 0, zero elsewhere.
    stage_offsets : numpy.ndarray
        ``(M, d)`` integers: where the flow ``f_m^k`` starts in the variable vector.
    b_offset : int
        Where the barycenter ``b`` starts in the variable vector (its last ``N`` entries).
    """

    shape: tuple[int, ...]
    n_hist: int
    c: np.ndarray
    A: sp.csc_matrix
    rhs: np.ndarray
    stage_offsets: np.ndarray  # (M, d): where f_m^k starts in x
    b_offset: int

    @property
    def n_points(self) -> int:
        return math.prod(self.shape)

    @property
    def n_variables(self) -> int:
        return self.A.shape[1]

    @property
    def n_constraints(self) -> int:
        return self.A.shape[0]

    def stage_flows(self, x: np.ndarray, m: int, k: int) -> sp.csr_matrix:
        """Stage ``k`` of input ``m`` as an ``N x N`` matrix: entry ``(x, x[k <- t])`` = flow."""
        n, nk = self.n_points, self.shape[k]
        start = self.stage_offsets[m, k]
        values = np.clip(x[start:start + n * nk], 0.0, None)
        tails, heads = stage_arcs(self.shape, k)
        return sp.csr_matrix((values, (tails, heads)), shape=(n, n))

    def barycenter(self, x: np.ndarray) -> np.ndarray:
        return x[self.b_offset:self.b_offset + self.n_points]


def stage_arcs(shape: tuple[int, ...], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Tails and heads (flat indices) of stage ``k``'s arcs, in the variable order."""
    n, nk = math.prod(shape), shape[k]
    stride = math.prod(shape[k + 1:])
    points = np.arange(n)
    coord = (points // stride) % nk
    tails = np.repeat(points, nk)
    t = np.tile(np.arange(nk), n)
    heads = tails + (t - np.repeat(coord, nk)) * stride
    return tails, heads


def stage_costs(shape: tuple[int, ...], k: int, cost: SeparableCost, spacing: float) -> np.ndarray:
    """``c_k(x_k, t)`` for every arc of stage ``k``, in the variable order."""
    n, nk = math.prod(shape), shape[k]
    stride = math.prod(shape[k + 1:])
    coord = (np.arange(n) // stride) % nk
    return cost.axis_matrix(nk, spacing)[coord].reshape(-1)


def build_layered_lp(histograms: np.ndarray, weights: np.ndarray, cost: SeparableCost,
                     spacing: tuple[float, ...]) -> LayeredLP:
    """The layered LP of the module docstring for validated inputs, as one sparse matrix.

    Parameters
    ----------
    histograms : numpy.ndarray
        ``(M, n_1, ..., n_d)``, each of mass 1 (as :func:`check_histograms` returns them).
    weights : numpy.ndarray
        ``(M,)`` barycentric weights summing to 1.
    cost : SeparableCost
        The separable ground cost (:func:`parse_cost`).
    spacing : tuple of float
        One grid step per axis.

    Returns
    -------
    LayeredLP
        ``min c.x  s.t.  A x = rhs, x >= 0`` with ``M N sum_k n_k + N`` variables
        (:func:`count_variables`) and ``M (d + 1) N - (M - 1)`` rows:

        .. math::

            \\min_{f \\ge 0,\\, b \\ge 0} \\sum_m \\lambda_m \\sum_k \\sum_{x, t} c_k(x_k, t)\\, f_m^k(x, t)
            \\quad \\text{s.t. flow conservation from } a_m \\text{ (layer 0) to } b \\text{ (layer } d).

    Notes
    -----
    No validation here: :func:`barycenter` validates and calls this.

    References
    ----------
    .. [1] "Grid-efficient exact LP for Wasserstein barycenters" (GETO-LP), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> hist = check_histograms(np.ones((2, 3, 3)))
    >>> lp = build_layered_lp(hist, np.array([0.5, 0.5]), parse_cost("l1"), (1.0, 1.0))
    >>> lp.n_variables == count_variables(2, (3, 3)), lp.A.shape
    (True, (53, 117))
    """
    m_hist, shape = histograms.shape[0], tuple(histograms.shape[1:])
    d, n = len(shape), math.prod(shape)
    per_block = n * sum(shape)
    n_rows_block = (d + 1) * n

    arcs = [stage_arcs(shape, k) for k in range(d)]
    unit_costs = [stage_costs(shape, k, cost, spacing[k]) for k in range(d)]
    offsets = np.zeros((m_hist, d), dtype=np.int64)

    rows, cols, vals, c_parts = [], [], [], []
    col = 0
    for m in range(m_hist):
        row0 = m * n_rows_block
        for k in range(d):
            tails, heads = arcs[k]
            count = tails.size
            offsets[m, k] = col
            idx = np.arange(col, col + count)
            rows += [row0 + k * n + tails, row0 + (k + 1) * n + heads]  # out of layer k, into layer k+1
            cols += [idx, idx]
            vals += [np.full(count, -1.0), np.ones(count)]
            c_parts.append(weights[m] * unit_costs[k])
            col += count
        assert col == (m + 1) * per_block
    b_offset = col
    for m in range(m_hist):  # b(y) leaves the last layer of every block
        rows.append(m * n_rows_block + d * n + np.arange(n))
        cols.append(b_offset + np.arange(n))
        vals.append(np.full(n, -1.0))
    c_parts.append(np.zeros(n))

    n_cols = b_offset + n
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(m_hist * n_rows_block, n_cols))
    rhs = np.zeros(m_hist * n_rows_block)
    for m in range(m_hist):
        rhs[m * n_rows_block:m * n_rows_block + n] = -histograms[m].reshape(-1)

    keep = np.ones(A.shape[0], dtype=bool)
    keep[[m * n_rows_block + d * n for m in range(1, m_hist)]] = False  # the M - 1 redundant rows
    return LayeredLP(shape, m_hist, np.concatenate(c_parts), A[keep].tocsc(), rhs[keep], offsets, b_offset)
