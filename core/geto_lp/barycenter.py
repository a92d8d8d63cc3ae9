"""``barycenter``: the exact fixed-support Wasserstein barycenter through the layered LP.

Validation (:mod:`.grid`) -> LP (:mod:`.layered`) -> HiGHS (:mod:`.solve`) -> barycenter and,
when asked, plans (:mod:`.plans`). The barycenter is the LP's ``b`` clipped at zero and rescaled
to mass 1 (the interior point leaves ``sum b`` off 1 by ~1e-9); the objective is the LP's
``sum_m lambda_m <C, P_m>`` evaluated on the returned flows.

Progress, in order: one step after the LP is built (metric ``variables``), one per solver log line
or heartbeat (see :mod:`.solve`), one per recovered plan (``plan``), and a last step at the end.
The total is an estimate, raised as the solver goes. Stopping:

- before or during the solve: ``status == "stopped"``, the barycenter is all NaN, the objective NaN
  and ``plans`` None (an unfinished LP has no barycenter to offer);
- while plans are recovered: ``status == "stopped"`` with the barycenter and objective complete and
  ``plans`` holding the plans recovered so far (fewer than M).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from core.common.config import check_choice
from core.common.progress import report
from core.geto_lp.grid import (check_histograms, check_size, check_spacing, check_weights, count_variables,
                               parse_cost)
from core.geto_lp.layered import build_layered_lp
from core.geto_lp.plans import compose_stages
from core.geto_lp.solve import SOLVERS, solve_lp

IPM_ITERATIONS_GUESS = 40  # for the progress total only; raised when the solver needs more


@dataclass
class BarycenterResult:
    """The exact barycenter, the LP's size and timings, and optionally the transport plans.

    Attributes
    ----------
    barycenter : numpy.ndarray
        ``(n_1, ..., n_d)``, mass 1; all NaN when stopped before the solve ended.
    objective : float
        :math:`\\sum_m \\lambda_m \\langle C, P_m \\rangle` on the returned flows (NaN when stopped early).
    n_variables : int
        LP columns, ``M N sum_k n_k + N``.
    n_constraints : int
        LP rows, ``M (d + 1) N - (M - 1)``.
    solve_seconds : float
        HiGHS's wall time.
    build_seconds : float
        Time to build the sparse LP.
    recover_seconds : float
        Time to compose the plans (0 without ``return_plans``).
    iterations : int
        HiGHS's iterations (interior point, simplex and crossover together).
    status : str
        "optimal" or "stopped".
    weights : numpy.ndarray
        ``(M,)`` the weights used, rescaled to sum 1.
    cost : str
        The canonical cost name.
    solver : str
        The HiGHS method.
    spacing : tuple of float
        One grid step per axis.
    plans : list of scipy.sparse.csr_matrix, optional
        ``N x N`` plan from each input to the barycenter (None unless asked; fewer than M when stopped).
    """

    barycenter: np.ndarray  # shape (n_1, ..., n_d), mass 1
    objective: float  # sum_m lambda_m <C, P_m>
    n_variables: int
    n_constraints: int
    solve_seconds: float
    build_seconds: float
    recover_seconds: float
    iterations: int
    status: str  # "optimal" or "stopped"
    weights: np.ndarray
    cost: str
    solver: str
    spacing: tuple
    plans: Optional[list] = field(default=None, repr=False)  # scipy.sparse CSR, N x N, one per input

    @property
    def shape(self) -> tuple:
        """The grid shape ``(n_1, ..., n_d)``."""
        return self.barycenter.shape

    def to_frame(self):
        """One row per grid point: its indices and its barycenter mass (the CSV export)."""
        import pandas as pd

        index = np.indices(self.barycenter.shape).reshape(self.barycenter.ndim, -1)
        frame = pd.DataFrame({f"i{k + 1}": index[k] for k in range(index.shape[0])})
        frame["mass"] = self.barycenter.reshape(-1)
        return frame


def barycenter(histograms, weights: Optional[Sequence[float]] = None, cost: str = "sqeuclidean",
               spacing: float | Sequence[float] = 1.0, solver: str = "highs-ipm", return_plans: bool = False,
               progress: Optional[Callable] = None) -> BarycenterResult:
    """The exact barycenter of ``histograms`` (shape ``(M, n_1, ..., n_d)``) on their grid.

    Solves the fixed-support barycenter problem

    .. math:: \\min_{b \\in \\Delta_N} \\sum_{m=1}^M \\lambda_m W_c(a_m, b)

    exactly, through the layered LP (:func:`build_layered_lp`) with ``M N sum_k n_k + N``
    variables instead of the classical ``M N^2 + N``.

    Parameters
    ----------
    histograms : array_like
        ``(M, n_1, ..., n_d)``, ``M >= 1``; each nonnegative with positive mass, rescaled to mass 1.
    weights : sequence of float, optional
        ``M`` nonnegative barycentric weights with a positive sum, rescaled to sum 1; uniform if None.
    cost : str
        A separable cost: "sqeuclidean", "l1" or "lp:<p>" (``0 < p <= 16``), on coordinates
        ``index * spacing``.
    spacing : float or sequence of float
        The grid step (> 0), one for every axis or one per axis.
    solver : {"highs-ipm", "highs-ds", "highs"}
        HiGHS's interior point (then crossover), dual simplex, or its own choice.
    return_plans : bool
        Also recover the ``M`` transport plans (:func:`compose_stages`).
    progress : callable, optional
        ``progress(step, total, metrics)``; returning False stops (see the module docstring).

    Returns
    -------
    BarycenterResult
        The barycenter (mass 1), its objective, the LP's size, timings and, if asked, the plans.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed ..."`` for bad histograms, weights, cost, spacing, solver or a
        problem over 20 million variables; nothing is solved then.

    References
    ----------
    .. [1] "Grid-efficient exact LP for Wasserstein barycenters" (GETO-LP), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> result = barycenter([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    >>> np.round(result.barycenter, 3), round(result.objective, 3), result.status
    (array([0., 1., 0.]), 1.0, 'optimal')
    """
    parsed = parse_cost(cost)
    hist = check_histograms(histograms)
    m_hist, shape = hist.shape[0], tuple(hist.shape[1:])
    lam = check_weights(weights, m_hist)
    steps = check_spacing(spacing, len(shape))
    check_choice("solver", solver, SOLVERS)
    check_size(m_hist, shape)

    t0 = time.perf_counter()
    lp = build_layered_lp(hist, lam, parsed, steps)
    build_seconds = time.perf_counter() - t0
    assert lp.n_variables == count_variables(m_hist, shape)
    total = 2 + IPM_ITERATIONS_GUESS + (m_hist if return_plans else 0)

    def finish(b, objective, status, solve_s=0.0, iterations=0, recover_s=0.0, plans=None):
        return BarycenterResult(b, objective, lp.n_variables, lp.n_constraints, solve_s, build_seconds, recover_s,
                                iterations, status, lam, parsed.name, solver, steps, plans)

    nan = np.full(shape, np.nan)
    if not report(progress, 1, total, {"variables": lp.n_variables}):
        return finish(nan, float("nan"), "stopped")

    sol = solve_lp(lp.c, lp.A, lp.rhs, solver, progress, step=1, total=total)
    if sol.status == "stopped":
        return finish(nan, float("nan"), "stopped", sol.seconds, sol.iterations)
    if sol.x is None:
        raise RuntimeError(f"HiGHS ended with status {sol.status!r} on a feasible, bounded LP")
    x = np.clip(sol.x, 0.0, None)
    b = lp.barycenter(x).reshape(shape)
    b = b / b.sum()
    objective = float(lp.c @ x)

    step, total = sol.last_step, max(sol.total, sol.last_step + 1 + (m_hist if return_plans else 0))
    plans, status = None, "optimal"
    t1 = time.perf_counter()
    if return_plans:
        plans = []
        for m in range(m_hist):
            plans.append(compose_stages([lp.stage_flows(x, m, k) for k in range(len(shape))]))
            step += 1
            if not report(progress, step, total, {"plan": m + 1}):
                status = "stopped"
                break
    recover_seconds = time.perf_counter() - t1
    if status == "optimal":
        report(progress, total, total, {"objective": objective})
    return finish(b, objective, status, sol.seconds, sol.iterations, recover_seconds, plans)
