"""Transport plans read off the layered flows, and the exact cost of a sparse plan.

A solution of the layered LP gives, for input ``m``, ``d`` stage flows ``F_1, ..., F_d`` (sparse
``N x N``: entry ``(z, z')`` is the flow on the arc ``z -> z'``). We decompose the flow into paths
by letting the mass arriving at a node of layer ``k`` leave it in the proportions of that node's
outgoing flows (a Markov composition)::

    P = F_1 D_1^+ F_2 D_2^+ ... F_d,     D_k = diag(flow leaving layer k's nodes),  0^+ = 0

Every path ``x -> z^1 -> ... -> z^d = y`` changes coordinate ``k`` only in stage ``k``, so it costs
exactly ``c(x, y)`` for a separable cost; hence ``<C, P>`` equals the layered flow's cost, ``P``'s
row sums are the input and its column sums the barycenter (up to the solver's round-off). No
further optimisation is done: the plan is optimal because the flow is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from core.geto_lp.grid import SeparableCost, pair_costs


@dataclass
class FlowPaths:
    """The heaviest entries of a plan as the layered paths that carry them, heaviest first.

    Attributes
    ----------
    paths : numpy.ndarray
        ``(K, d + 1, d)`` integer grid indices: ``paths[i, l]`` is where entry ``i``'s mass sits in
        layer ``l``, from the source ``x`` (layer 0) to the target ``y`` (layer ``d``).
    masses : numpy.ndarray
        ``(K,)`` the mass of each entry.
    """

    paths: np.ndarray
    masses: np.ndarray


def compose_stages(stages: Sequence[sp.spmatrix]) -> sp.csr_matrix:
    """The endpoint plan of a layered flow given as its stage matrices (see the module docstring).

    Parameters
    ----------
    stages : sequence of scipy.sparse matrices
        The ``d`` stage flows ``F_1, ..., F_d``, each ``N x N`` and nonnegative; entry ``(z, z')`` is
        the flow on the arc ``z -> z'``.

    Returns
    -------
    scipy.sparse.csr_matrix
        The ``N x N`` plan

        .. math:: P = F_1 D_1^{+} F_2 D_2^{+} \\cdots F_d,

        with :math:`D_k` the diagonal of the flow leaving layer ``k``'s nodes and :math:`0^+ = 0`.

    References
    ----------
    .. [1] "Grid-efficient exact LP for Wasserstein barycenters" (GETO-LP), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> first = sp.csr_matrix(np.array([[0.0, 1.0], [0.0, 0.0]]))   # 1 unit from 0 to 1
    >>> second = sp.csr_matrix(np.array([[0.0, 0.0], [0.5, 0.5]]))  # leaves 1 half to 0, half to 1
    >>> compose_stages([first, second]).toarray()
    array([[0.5, 0.5],
           [0. , 0. ]])
    """
    plan = sp.csr_matrix(stages[0])
    for flow in stages[1:]:
        flow = sp.csr_matrix(flow)
        leaving = np.asarray(flow.sum(axis=1)).ravel()
        share = np.divide(1.0, leaving, out=np.zeros_like(leaving), where=leaving > 0)
        plan = plan @ sp.diags(share) @ flow
    plan.eliminate_zeros()
    return plan.tocsr()


def plan_cost(plan: sp.spmatrix, shape: Sequence[int], cost: SeparableCost, spacing: Sequence[float]) -> float:
    """``<C, P>`` summed over the plan's nonzeros only (the N x N cost is never formed).

    Parameters
    ----------
    plan : scipy.sparse matrix or numpy.ndarray
        ``N x N`` transport plan between two histograms on the grid ``shape``.
    shape : sequence of int
        The grid ``(n_1, ..., n_d)`` with ``N = prod(shape)``.
    cost : SeparableCost
        The ground cost (from :func:`parse_cost`).
    spacing : sequence of float
        One grid step per axis.

    Returns
    -------
    float
        .. math:: \\langle C, P \\rangle = \\sum_{(i, j):\\, P_{ij} \\ne 0} P_{ij}\\, c(x_i, y_j).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> plan = sp.csr_matrix(np.array([[0.0, 0.5], [0.5, 0.0]]))
    >>> plan_cost(plan, (2,), parse_cost("sqeuclidean"), (2.0,))
    4.0
    """
    coo = sp.coo_matrix(plan)
    return float(np.dot(coo.data, pair_costs(coo.row, coo.col, shape, cost, spacing)))


def flow_paths(plan: sp.spmatrix, shape: Sequence[int], top: int = 60) -> FlowPaths:
    """The ``top`` heaviest entries of ``plan`` as the layered paths that carry them.

    Parameters
    ----------
    plan : scipy.sparse matrix or numpy.ndarray
        ``N x N`` transport plan on the grid ``shape``.
    shape : sequence of int
        The grid ``(n_1, ..., n_d)``.
    top : int
        How many entries to return, ``>= 1`` (fewer when the plan has fewer nonzeros).

    Returns
    -------
    FlowPaths
        ``paths[i]`` is the ``(d + 1, d)`` array of grid indices ``x, (y_1, x_2, ...), ..., y`` the
        mass visits, one layer per row (in a layered flow an entry's path is fixed by its endpoints:
        stage k sets coordinate k), heaviest first; ``masses[i]`` its mass.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> plan = sp.csr_matrix(np.array([[0.0, 0.0, 0.0, 0.7], [0.3, 0.0, 0.0, 0.0],
    ...                                [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]))
    >>> found = flow_paths(plan, (2, 2), top=1)
    >>> found.paths[0].tolist(), found.masses.tolist()
    ([[0, 0], [1, 0], [1, 1]], [0.7])
    """
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top: {top!r} is not a count of entries; allowed an integer >= 1")
    coo = sp.coo_matrix(plan)
    order = np.argsort(-coo.data, kind="stable")[:top]
    src = np.stack(np.unravel_index(coo.row[order], shape), axis=-1)
    dst = np.stack(np.unravel_index(coo.col[order], shape), axis=-1)
    d = len(shape)
    paths = np.repeat(src[:, None, :], d + 1, axis=1)
    for k in range(d):
        paths[:, k + 1:, k] = dst[:, None, k]
    return FlowPaths(paths, coo.data[order])
