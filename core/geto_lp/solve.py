"""Solving an LP in equality form with HiGHS, reporting progress and stopping on request.

We call HiGHS through ``highspy`` rather than ``scipy.optimize.linprog`` (which runs the same
solver) for two things linprog cannot do: report progress while it solves and stop mid-solve.
``highspy`` releases the GIL while it runs, so a Streamlit page stays responsive when the solve
runs in a worker thread.

- Progress: HiGHS's log goes to a callback instead of the console; each interior-point iteration
  line (``Iter  primal obj  dual obj  pinf  dinf  gap  time``) and each dual-simplex report line is
  parsed and passed to ``progress`` as metrics ``iteration``, ``primal_objective`` and, for the
  interior point, ``dual_objective`` and ``gap``. The objectives are those of the LP HiGHS solves (the
  scaled LP's, converted back to the caller's units; for the simplex, the
  presolved one), so they may differ from the final objective by a constant; they
  are for watching convergence.
  Crossover and long simplex stretches log nothing, so a heartbeat with ``seconds`` is sent at most
  every ``HEARTBEAT_S`` from HiGHS's interrupt callbacks.
- Stopping: once ``progress`` returns False no further progress call is made, and the next
  interrupt callback sets ``user_interrupt``; HiGHS returns with status "interrupted" and no usable
  solution, and we return ``x = None``.
  An interior-point iterate is not a feasible flow, so there is nothing partial worth returning.

- Stopping promptly: no callback runs during HiGHS's presolve, which takes 2 to 5 s on the page's
  largest grid (48 x 48, 4 inputs, 887,040 columns) on 2 loaded cores, so the interior point skips
  presolve above ``PRESOLVE_MAX_COLUMNS`` columns: its first interrupt callback then comes within
  about half a second, and the solve takes as long either way (about 20.5 s with and without at
  40 x 40 with 3 inputs, 385,600 columns, same optimum). Below that, presolve stays on: it saves
  10 to 30 % of the solve at 16 x 16 and 24 x 24, and lasts a fraction of a second there.

- Scaling: HiGHS's feasibility and optimality tolerances are absolute (1e-7), while a grid's
  per-pixel masses are about 1/N (1e-3 at 32 x 32) and its costs up to (n-1)^2. We therefore solve
  ``min (c/γ).y  s.t.  A y = rhs/ρ`` with ρ = max|rhs| and γ = max|c| and return ``x = ρ y``: the same
  optimum, with the tolerances relative to the largest mass and cost, which we also tighten from
  HiGHS's 1e-7 to ``FEASIBILITY_TOLERANCE`` = 1e-9 (no slower on the page's problems). Measured on the
  page's 8³ volume pair: unscaled at default tolerances the interior point ended 3.5e-6 above the
  optimum; scaled, 1.7e-7; scaled and tightened, 4e-10 from its own plan rescored with ``ot.emd2``
  (an exact network simplex), for both HiGHS methods. POT's classical LP (scipy's HiGHS at its
  default tolerances) reported 1.5e-6 *below* that optimum there: its own barycenter rescored with
  ``ot.emd2`` costs 1.8e-7 more than ours, so exactness is judged by the rescoring, not by POT's
  reported objective alone.

Solver names follow linprog's: "highs-ipm" (interior point, then crossover to a vertex, whose flows
are sparse and exact to round-off), "highs-ds" (dual simplex), "highs" (HiGHS chooses). We run
HiGHS on one thread (ours: the target is a 2-core laptop; IPX is essentially serial anyway).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp

from core.common.config import check_choice
from core.common.progress import report

SOLVERS = ("highs-ipm", "highs-ds", "highs")
HEARTBEAT_S = 0.25
FEASIBILITY_TOLERANCE = 1e-9   # HiGHS's default 1e-7 left the 8³ volume barycenter 3e-7 above its optimum
PRESOLVE_MAX_COLUMNS = 200_000  # the interior point presolves only LPs up to this many columns
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_IPM_LINE = re.compile(  # iteration, primal obj, dual obj, pinf, dinf, gap, time
    rf"^\s*(\d+)\*?\s+({_NUMBER})\s+({_NUMBER})\s+{_NUMBER}\s+{_NUMBER}\s+({_NUMBER})\s+{_NUMBER}\s*$")
_SIMPLEX_LINE = re.compile(rf"^\s*(\d+)\s+({_NUMBER})\s+(?:Pr|Du|Ph)")


@dataclass
class LPSolution:
    """What :func:`solve_lp` returns.

    Attributes
    ----------
    x : numpy.ndarray or None
        The optimal solution; None when stopped or not optimal.
    status : str
        "optimal", "stopped" or HiGHS's model status text.
    seconds : float
        Wall time of the solve.
    iterations : int
        Interior-point, simplex and crossover iterations together.
    last_step : int
        The last progress step reported.
    total : int
        The progress total, as raised during the solve.
    """

    x: Optional[np.ndarray]  # None when stopped or not optimal
    status: str  # "optimal" | "stopped" | HiGHS's model status text
    seconds: float
    iterations: int
    last_step: int  # the last progress step reported
    total: int  # the progress total, as raised during the solve


def _options(solver: str, n_cols: int = 0) -> dict:
    base = {"output_flag": True, "log_to_console": False, "threads": 1,
            "primal_feasibility_tolerance": FEASIBILITY_TOLERANCE, "dual_feasibility_tolerance": FEASIBILITY_TOLERANCE}
    if solver == "highs-ipm":   # large LPs skip presolve: it cannot be interrupted (see the module's notes)
        presolve = "off" if n_cols > PRESOLVE_MAX_COLUMNS else "choose"
        return {**base, "solver": "ipm", "run_crossover": "on", "presolve": presolve}
    if solver == "highs-ds":
        return {**base, "solver": "simplex", "simplex_strategy": 1}
    return {**base, "solver": "choose"}


def _scale(values: np.ndarray) -> float:
    """The largest magnitude in ``values`` (1 when all are zero): what the LP is divided by."""
    top = float(np.max(np.abs(values), initial=0.0))
    return top if top > 0 and np.isfinite(top) else 1.0


def solve_lp(c: np.ndarray, A, rhs: np.ndarray, solver: str = "highs-ipm",
             progress: Optional[Callable] = None, step: int = 0, total: int = 1) -> LPSolution:
    """``min c.x  s.t.  A x = rhs, x >= 0`` (``A`` a scipy CSC matrix), solved scaled (see the module's notes).

    Parameters
    ----------
    c : numpy.ndarray
        ``(n,)`` objective coefficients.
    A : scipy.sparse.csc_matrix
        ``(m, n)`` equality constraint matrix.
    rhs : numpy.ndarray
        ``(m,)`` right-hand side.
    solver : {"highs-ipm", "highs-ds", "highs"}
        Interior point then crossover, dual simplex, or HiGHS's choice.
    progress : callable, optional
        ``progress(step, total, metrics)``, called per HiGHS log line (``iteration``,
        ``primal_objective``, for the interior point ``dual_objective`` and ``gap``) and as a
        heartbeat (``seconds``); returning False interrupts HiGHS.
    step : int
        Progress steps are numbered from ``step + 1``.
    total : int
        The caller's estimate of the total, raised as needed so that a step never passes it.

    Returns
    -------
    LPSolution
        ``x`` (None unless optimal), ``status`` ("optimal", "stopped" or HiGHS's model status),
        ``seconds``, ``iterations`` and the last progress ``step`` and ``total``.

    Raises
    ------
    ValueError
        ``"solver: ...; allowed ..."`` for an unknown solver, ``"A: ..."`` when the sizes disagree.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> sol = solve_lp(np.array([1.0, 2.0]), sp.csc_matrix(np.array([[1.0, 1.0]])), np.array([1.0]))
    >>> sol.status, np.round(sol.x, 6).tolist()
    ('optimal', [1.0, 0.0])
    """
    import highspy

    check_choice("solver", solver, SOLVERS)
    if getattr(A, "ndim", 0) != 2 or A.shape != (np.size(rhs), np.size(c)):
        raise ValueError(f"A: shape {getattr(A, 'shape', None)} for {np.size(rhs)} rows and {np.size(c)} columns; "
                         "allowed a sparse matrix of shape (len(rhs), len(c))")
    A = A.tocsc() if hasattr(A, "tocsc") else sp.csc_matrix(A)
    h = highspy.Highs()
    for name, value in _options(solver, A.shape[1]).items():
        h.setOptionValue(name, value)

    n_rows, n_cols = A.shape
    c, rhs = np.asarray(c, dtype=float), np.asarray(rhs, dtype=float)
    rho, gamma = _scale(rhs), _scale(c)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n_cols, n_rows
    lp.col_cost_ = c / gamma
    lp.col_lower_ = np.zeros(n_cols)
    lp.col_upper_ = np.full(n_cols, highspy.kHighsInf)
    lp.row_lower_ = lp.row_upper_ = rhs / rho
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    h.passModel(lp)

    unit = rho * gamma   # HiGHS logs the scaled LP's objectives
    state = {"step": step, "total": total, "stop": False, "last": 0.0, "iteration": 0}
    lock = threading.Lock()
    t0 = time.perf_counter()

    def send(metrics: dict) -> None:
        with lock:
            if state["stop"]:           # stopped: no more progress calls, only the interrupt
                return
            state["step"] += 1
            state["total"] = max(state["total"], state["step"] + 1)
            state["last"] = time.perf_counter()
            if not report(progress, state["step"], state["total"], {**metrics, "seconds": state["last"] - t0}):
                state["stop"] = True

    def on_log(event) -> None:
        for line in event.message.splitlines():
            if m := _IPM_LINE.match(line):
                state["iteration"] = int(m.group(1))
                send({"iteration": int(m.group(1)), "primal_objective": unit * float(m.group(2)),
                      "dual_objective": unit * float(m.group(3)), "gap": float(m.group(4))})
            elif m := _SIMPLEX_LINE.match(line):
                state["iteration"] = int(m.group(1))
                send({"iteration": int(m.group(1)), "primal_objective": unit * float(m.group(2))})

    def on_interrupt(event) -> None:
        if not state["stop"] and time.perf_counter() - state["last"] > HEARTBEAT_S:
            send({"iteration": state["iteration"]})
        if state["stop"]:
            event.data_in.user_interrupt = True

    if progress is not None:
        h.cbLogging.subscribe(on_log)
        h.cbIpmInterrupt.subscribe(on_interrupt)
        h.cbSimplexInterrupt.subscribe(on_interrupt)
    h.run()
    seconds = time.perf_counter() - t0
    status = h.getModelStatus()
    info = h.getInfo()
    iterations = int(max(info.ipm_iteration_count, 0) + max(info.simplex_iteration_count, 0)
                     + max(info.crossover_iteration_count, 0))
    if status == highspy.HighsModelStatus.kOptimal:
        x, text = rho * np.array(h.getSolution().col_value), "optimal"
    elif state["stop"] or status == highspy.HighsModelStatus.kInterrupt:
        x, text = None, "stopped"
    else:
        x, text = None, h.modelStatusToString(status)
    return LPSolution(x, text, seconds, iterations, state["step"], state["total"])
