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

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from core.geto_lp.grid import SeparableCost, pair_costs


def compose_stages(stages: Sequence[sp.spmatrix]) -> sp.csr_matrix:
    """The endpoint plan of a layered flow given as its stage matrices (see the module docstring)."""
    plan = sp.csr_matrix(stages[0])
    for flow in stages[1:]:
        flow = sp.csr_matrix(flow)
        leaving = np.asarray(flow.sum(axis=1)).ravel()
        share = np.divide(1.0, leaving, out=np.zeros_like(leaving), where=leaving > 0)
        plan = plan @ sp.diags(share) @ flow
    plan.eliminate_zeros()
    return plan.tocsr()


def plan_cost(plan: sp.spmatrix, shape: Sequence[int], cost: SeparableCost, spacing: Sequence[float]) -> float:
    """``<C, P>`` summed over the plan's nonzeros only (the N x N cost is never formed)."""
    coo = sp.coo_matrix(plan)
    return float(np.dot(coo.data, pair_costs(coo.row, coo.col, shape, cost, spacing)))


def flow_paths(plan: sp.spmatrix, shape: Sequence[int], top: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """The ``top`` heaviest entries of ``plan`` as the layered paths that carry them.

    Returns ``(paths, masses)``: ``paths[i]`` is the ``(d + 1, d)`` array of grid indices
    ``x, (y_1, x_2, ...), ..., y`` the mass visits, one layer per row (in a layered flow an entry's
    path is fixed by its endpoints: stage k sets coordinate k), heaviest first.
    """
    coo = sp.coo_matrix(plan)
    order = np.argsort(-coo.data, kind="stable")[:top]
    src = np.stack(np.unravel_index(coo.row[order], shape), axis=-1)
    dst = np.stack(np.unravel_index(coo.col[order], shape), axis=-1)
    d = len(shape)
    paths = np.repeat(src[:, None, :], d + 1, axis=1)
    for k in range(d):
        paths[:, k + 1:, k] = dst[:, None, k]
    return paths, coo.data[order]
