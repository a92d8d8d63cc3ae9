"""Side-by-side runs: GETO-LP against POT's classical LP and two entropic barycenters.

Every method's barycenter is scored the same way, exactly: ``sum_m lambda_m ot.emd2(a_m, b, C)``
with ``b`` rescaled to mass 1 and ``C`` the dense ground cost (:func:`exact_objective`). That is the
objective of the barycenter problem at ``b``, so an exact solver scores the optimum and any other
``b`` scores more; the gap to exact is ``(score - optimum) / optimum``.

- ``pot_lp``: ``ot.lp.barycenter`` (the classical LP, ``M N^2 + N`` variables, HiGHS via linprog),
  with the same HiGHS method as GETO-LP (``solver``), so both LPs meet the same solver.
- ``sinkhorn``: ``ot.bregman.barycenter`` (iterative Bregman projections, dense kernel).
- ``convolutional``: ``ot.bregman.convolutional_barycenter2d`` (2-D only; its cost is squared
  Euclidean on ``linspace(0, 1, n_k)`` per axis, applied as a separable convolution).

POT is imported inside the functions that use it (it imports torch when torch is installed), so a
GETO-LP-only comparison (``methods=("geto_lp",), rescore_exact=False``) never loads it; the
baselines alone run through :func:`run_baselines`, one progress step per method.

Our choices: the entropic ``reg`` is in units of the cost of crossing one axis of the grid,
``(spacing (n_max - 1))^p``: the dense Sinkhorn gets ``C / that`` and the convolutional solver, whose
cost already spans [0, 1] per axis, gets ``reg`` as is, so both see the same blur on a square grid.
Both iterate on kernels (fast) unless the largest scaled cost over ``reg`` exceeds 600, where the
kernel would underflow and they switch to log-domain iterations. The dense one also switches to the
log domain for non-uniform weights: in POT 0.9.7 ``method="sinkhorn"`` (and "sinkhorn_stabilized")
converge to a wrong barycenter when the weights are not uniform (its scaling starts from the
unweighted geometric mean, which the updates then preserve); we measured a 2e-3 max difference from
the log-domain and convolutional results on 10 x 10 digits, and POT's pull request #870 reports it.
Memory is the rise of the process's peak resident memory during the call (:func:`measured`), which
counts HiGHS's C++ memory too. It is process-wide, so one run at a time measures it (a run that
overlaps another reports NaN), and another page working at the same moment would add to it.
(Not ``tracemalloc``: it slows POT's LP four-fold.)
"""

from __future__ import annotations

import ctypes
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np

from core.common.config import check_choice, check_range
from core.common.progress import report
from core.geto_lp.barycenter import BarycenterResult, barycenter
from core.geto_lp.solve import SOLVERS
from core.geto_lp.grid import (check_histograms, check_spacing, check_weights, cost_matrix,
                               count_classical_variables, count_variables, parse_cost)

METHODS = ("geto_lp", "pot_lp", "sinkhorn", "convolutional")
LABELS = {"geto_lp": "GETO-LP (layered, exact)", "pot_lp": "POT ot.lp.barycenter (classical LP)",
          "sinkhorn": "POT ot.bregman.barycenter (entropic)",
          "convolutional": "POT convolutional_barycenter2d (entropic)"}
POT_LP_MAX_VARIABLES = 1_200_000  # the classical LP beyond this takes minutes and GBs on a laptop
DENSE_MAX_POINTS = 4096  # dense N x N cost matrices (134 MB at this size) for emd2 and Sinkhorn
UNDERFLOW = 600.0  # exp(-600) ~ 1e-261: kernels beyond it underflow, so iterate in the log domain
_MEASURE = threading.Lock()


@dataclass
class SolverRun:
    """One method's run on one problem, its barycenter scored exactly.

    Attributes
    ----------
    method : str
        One of ``METHODS``.
    label : str
        Its display name (``LABELS``).
    status : str
        "ok", "stopped" or "skipped: <reason>".
    barycenter : numpy.ndarray or None
        ``(n_1, ..., n_d)`` with mass 1; None when skipped.
    objective : float
        :math:`\\sum_m \\lambda_m` ``ot.emd2(a_m, b, C)``, exact (NaN when skipped).
    reported_objective : float
        What the solver itself reports (NaN for the entropic methods).
    n_variables : int
        LP variables, or the entropic method's unknowns (its scalings, ``M N``).
    seconds : float
        Wall time of the call.
    peak_memory_mb : float
        Rise of the process's peak RSS during the call (NaN where not measurable).
    gap_to_exact : float
        ``(objective - optimum) / optimum`` against GETO-LP's optimum (filled by :func:`compare_solvers`).
    """

    method: str
    label: str
    status: str  # "ok" or "skipped: <reason>"
    barycenter: Optional[np.ndarray]
    objective: float  # exact, by ot.emd2 (NaN when skipped)
    reported_objective: float  # what the solver itself reports (NaN for entropic methods)
    n_variables: int  # LP variables, or the entropic method's unknowns (scalings: M N)
    seconds: float
    peak_memory_mb: float
    gap_to_exact: float = float("nan")  # filled by compare_solvers


@dataclass
class Measurement:
    """What a call returned, how long it took and how much the process's peak memory rose.

    Attributes
    ----------
    value : object
        The call's return value.
    seconds : float
        Wall time of the call.
    peak_memory_mb : float
        Rise of the process's peak resident memory during the call, in MB (NaN where not measurable).
    """

    value: Any
    seconds: float
    peak_memory_mb: float


def measured(fn: Callable, *args, **kwargs) -> Measurement:
    """``fn(*args, **kwargs)``, its wall time and the rise of the process's peak RSS during it, in MB.

    Linux only for the memory (``/proc/self/clear_refs`` resets the peak; elsewhere it is NaN). The
    peak is process-wide: it counts HiGHS's C++ memory too, and anything other threads allocate.
    While another measurement is running (another page's solve), this one is timed only and its
    memory is NaN, rather than waiting for the other or resetting its peak.

    Parameters
    ----------
    fn : callable
        The function to call.
    *args
        Its positional arguments.
    **kwargs
        Its keyword arguments.

    Returns
    -------
    Measurement
        ``value`` (what ``fn`` returned), ``seconds`` and ``peak_memory_mb``.

    Examples
    --------
    >>> run = measured(sum, [1, 2, 3])
    >>> run.value, run.seconds >= 0
    (6, True)
    """
    owner = _MEASURE.acquire(blocking=False)
    try:
        before = _reset_peak_rss() if owner else None
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        seconds = time.perf_counter() - t0
        peak = _status_kb("VmHWM") if owner else None
    finally:
        if owner:
            _MEASURE.release()
    rise = max(peak - before, 0) / 1024 if before is not None and peak is not None else float("nan")
    return Measurement(out, seconds, rise)


def _status_kb(field: str) -> Optional[int]:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _release_free_heap() -> None:
    """Hand the allocator's free pages back to the kernel (glibc ``malloc_trim(0)``), where there is glibc.

    Without it, memory that earlier work freed stays resident in the heap and a later solve that reuses
    it raises no peak at all: in a long-lived process (a server, a test worker) the second identical
    measurement read 0 MB.
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _reset_peak_rss() -> Optional[int]:
    """Reset the peak RSS to the current RSS; the current RSS in kB, or None where unsupported."""
    _release_free_heap()
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        return None
    return _status_kb("VmRSS")


def exact_objective(histograms, b: np.ndarray, weights=None, cost: str = "sqeuclidean",
                    spacing: float | Sequence[float] = 1.0, C: Optional[np.ndarray] = None) -> float:
    """``sum_m lambda_m ot.emd2(a_m, b / sum(b), C)``: the barycenter objective at ``b``, exactly.

    Parameters
    ----------
    histograms : array_like
        ``(M, n_1, ..., n_d)`` inputs, each rescaled to mass 1 (see :func:`check_histograms`).
    b : numpy.ndarray
        A candidate barycenter with ``N = prod(n_k)`` entries (any shape), nonnegative with positive
        mass; negative round-off is clipped and it is rescaled to mass 1.
    weights : sequence of float, optional
        ``M`` nonnegative weights, rescaled to sum 1; uniform if None.
    cost : str
        A separable cost (:func:`parse_cost`), used when ``C`` is None.
    spacing : float or sequence of float
        The grid step, used when ``C`` is None.
    C : numpy.ndarray, optional
        The dense ``N x N`` ground cost, when the caller already has it (:func:`cost_matrix`).

    Returns
    -------
    float
        .. math:: \\sum_m \\lambda_m \\min_{P \\in \\Pi(a_m, b)} \\langle C, P \\rangle,

        each term solved exactly by POT's network simplex (``ot.emd2``). It is minimal, and equal
        to :func:`barycenter`'s objective, at the exact barycenter.

    Examples
    --------
    >>> hist = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> round(exact_objective(hist, np.array([0.0, 1.0, 0.0])), 3), round(exact_objective(hist, np.ones(3)), 3)
    (1.0, 1.667)
    """
    import ot

    hist = check_histograms(histograms)
    shape = hist.shape[1:]
    lam = check_weights(weights, hist.shape[0])
    b = np.asarray(b, dtype=float).reshape(-1)
    if b.size != math.prod(shape) or not np.all(np.isfinite(b)) or np.clip(b, 0.0, None).sum() <= 0:
        raise ValueError(f"b: {b.size} entries for a grid of {math.prod(shape)} points; allowed a finite array "
                         "of that size with positive mass")
    b = np.clip(b, 0.0, None)
    b = np.ascontiguousarray(b / b.sum())
    C = cost_matrix(shape, cost, spacing) if C is None else C
    flat = hist.reshape(hist.shape[0], -1)
    return float(sum(lam[m] * ot.emd2(np.ascontiguousarray(flat[m]), b, C, numItermax=10_000_000)
                     for m in range(hist.shape[0]) if lam[m] > 0))


def axis_scale(shape: Sequence[int], cost: str, spacing) -> float:
    """The cost of crossing the longest axis: the unit of ``reg``."""
    p = parse_cost(cost).p
    steps = check_spacing(spacing, len(shape))
    return max((h * (n - 1)) ** p for n, h in zip(shape, steps)) or 1.0


def _skipped(method: str, reason: str, n_variables: int = 0) -> SolverRun:
    return SolverRun(method, LABELS[method], f"skipped: {reason}", None, float("nan"), float("nan"), n_variables,
                     float("nan"), float("nan"))


@dataclass
class Comparison:
    """GETO-LP's full result (plans included) and one scored run per method, GETO-LP first.

    Attributes
    ----------
    result : BarycenterResult
        GETO-LP's result, with its plans.
    runs : list of SolverRun
        One scored run per method, GETO-LP first.
    """

    result: BarycenterResult
    runs: list

    @property
    def by_method(self) -> dict:
        """The runs by method name."""
        return {run.method: run for run in self.runs}


def run_method(method: str, histograms, weights=None, cost: str = "sqeuclidean", spacing=1.0, reg: float = 0.01,
               C: Optional[np.ndarray] = None, pot_max_variables: int = POT_LP_MAX_VARIABLES,
               dense_max_points: int = DENSE_MAX_POINTS, solver: str = "highs-ipm") -> SolverRun:
    """One method on one problem, timed, its barycenter scored exactly (or skipped, with the reason).

    Parameters
    ----------
    method : str
        One of ``METHODS``: "geto_lp", "pot_lp", "sinkhorn" or "convolutional".
    histograms : array_like
        ``(M, n_1, ..., n_d)`` inputs (see :func:`barycenter`).
    weights : sequence of float, optional
        Barycentric weights; uniform if None.
    cost : str
        A separable cost (:func:`parse_cost`).
    spacing : float or sequence of float
        The grid step.
    reg : float
        Entropic regularisation in [1e-4, 10], in units of the cost of crossing one grid axis.
    C : numpy.ndarray, optional
        The dense ground cost, when the caller already has it.
    pot_max_variables : int
        Above this many classical-LP variables (``M N^2 + N``) "pot_lp" is skipped; >= 0.
    dense_max_points : int
        Above this many grid points the dense ``N x N`` methods are skipped, and GETO-LP's
        barycenter is not rescored with ``ot.emd2``; >= 0.
    solver : {"highs-ipm", "highs-ds", "highs"}
        The HiGHS method of both LPs.

    Returns
    -------
    SolverRun
        The run, with ``status`` "ok" or "skipped: <reason>".

    Examples
    --------
    >>> hist = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> run = run_method("geto_lp", hist, dense_max_points=0)   # no rescoring: POT is not imported
    >>> run.status, np.round(run.barycenter, 3), round(run.objective, 3)
    ('ok', array([0., 1., 0.]), 1.0)
    >>> run_method("convolutional", hist).status
    'skipped: it works on 2-D grids with the squared Euclidean cost only'
    """
    check_choice("method", method, METHODS)
    check_choice("solver", solver, SOLVERS)
    check_range("reg", reg, 1e-4, 10.0)
    check_range("pot_max_variables", pot_max_variables, 0, None, integer=True)
    check_range("dense_max_points", dense_max_points, 0, None, integer=True)
    if method == "geto_lp":
        hist = check_histograms(histograms)
        run = measured(barycenter, hist, weights, cost, spacing, solver)
        return _scored_geto(run.value, run.seconds, run.peak_memory_mb, hist, C, dense_max_points)
    return _run_baseline(method, histograms, weights, cost, spacing, reg, C, pot_max_variables, dense_max_points,
                         solver)


def _scored_geto(result: BarycenterResult, seconds: float, peak: float, hist: np.ndarray, C, dense_max_points,
                 rescore: bool = True):
    n = result.barycenter.size
    if result.status != "optimal":      # stopped: nothing more is computed, not even the exact score
        finished = result.plans is not None
        return SolverRun("geto_lp", LABELS["geto_lp"], "stopped", result.barycenter if finished else None,
                         result.objective, result.objective, result.n_variables, seconds, peak)
    if rescore and n <= dense_max_points:  # score it like the others, although its own objective is already exact
        objective = exact_objective(hist, result.barycenter, result.weights, result.cost, result.spacing, C)
    else:
        objective = result.objective
    return SolverRun("geto_lp", LABELS["geto_lp"], "ok", result.barycenter, objective, result.objective,
                     result.n_variables, seconds, peak)


def _skip_reason(method, m_hist, shape, cost, pot_max_variables, dense_max_points):
    """Why ``method`` does not run on this problem (None when it runs), and its variable count."""
    n = math.prod(shape)
    if method == "convolutional" and (len(shape) != 2 or parse_cost(cost).name != "sqeuclidean"):
        return "it works on 2-D grids with the squared Euclidean cost only", 0
    classical = count_classical_variables(m_hist, shape)
    if method == "pot_lp" and classical > pot_max_variables:
        return f"the classical LP needs M N^2 + N = {classical:,} variables; limit {pot_max_variables:,}", classical
    if n > dense_max_points:
        return f"N = {n:,} grid points; dense N x N costs are limited to N <= {dense_max_points:,}", 0
    return None, 0


def _run_baseline(method, histograms, weights, cost, spacing, reg, C, pot_max_variables, dense_max_points,
                  solver="highs-ipm"):
    reg = check_range("reg", reg, 1e-4, 10.0)
    parsed = parse_cost(cost)
    hist = check_histograms(histograms)
    m_hist, shape = hist.shape[0], tuple(hist.shape[1:])
    lam = check_weights(weights, m_hist)
    n = math.prod(shape)
    A = np.ascontiguousarray(hist.reshape(m_hist, -1).T)
    reason, n_var = _skip_reason(method, m_hist, shape, cost, pot_max_variables, dense_max_points)
    if reason is not None:
        return _skipped(method, reason, n_var)
    import ot

    C = cost_matrix(shape, parsed, spacing) if C is None else C
    if method == "pot_lp":
        run = measured(ot.lp.barycenter, A, C, lam, log=True, solver=solver)
        (b, log), seconds, peak = run.value, run.seconds, run.peak_memory_mb
        reported, n_var = float(log.fun), count_classical_variables(m_hist, shape)
    elif method == "sinkhorn":
        scaled = C / axis_scale(shape, cost, spacing)
        uniform = bool(np.allclose(lam, lam[0]))
        kind = "sinkhorn" if uniform and scaled.max() / reg < UNDERFLOW else "sinkhorn_log"
        run = measured(ot.bregman.barycenter, A, scaled, reg, weights=lam, method=kind, numItermax=2000,
                       stopThr=1e-7, warn=False)
        b, seconds, peak = run.value, run.seconds, run.peak_memory_mb
        reported, n_var = float("nan"), m_hist * n
    else:
        kind = "sinkhorn" if 1.0 / reg < UNDERFLOW else "sinkhorn_log"  # per-axis cost spans [0, 1]
        run = measured(ot.bregman.convolutional_barycenter2d, hist, reg, weights=lam, method=kind, numItermax=2000,
                       stopThr=1e-7, warn=False)
        b, seconds, peak = run.value, run.seconds, run.peak_memory_mb
        reported, n_var = float("nan"), m_hist * n
    b = np.clip(np.asarray(b, dtype=float).reshape(shape), 0.0, None)
    b = b / b.sum()
    objective = exact_objective(hist, b, lam, cost, spacing, C)
    return SolverRun(method, LABELS[method], "ok", b, objective, reported, n_var, seconds, peak)


@dataclass
class Baselines:
    """The baselines' scored runs, in the order asked; ``stopped`` when a Stop left some out.

    Attributes
    ----------
    runs : list of SolverRun
        One scored run per baseline that ran, in the order asked.
    stopped : bool
        True when a Stop left some baselines out.
    """

    runs: list
    stopped: bool = False


def _gap(objective: float, optimum: float) -> float:
    return (objective - optimum) / optimum if optimum > 0 else objective - optimum


def run_baselines(histograms, optimum: float, weights=None, cost: str = "sqeuclidean", spacing=1.0,
                  reg: float = 0.01, methods: Sequence[str] = ("pot_lp", "sinkhorn", "convolutional"),
                  solver: str = "highs-ipm", pot_max_variables: int = POT_LP_MAX_VARIABLES,
                  dense_max_points: int = DENSE_MAX_POINTS, progress: Optional[Callable] = None, step: int = 0,
                  total: Optional[int] = None) -> Baselines:
    """POT's solvers on one problem, one after the other, each scored exactly against ``optimum``.

    Parameters
    ----------
    histograms : array (M, n_1, ..., n_d)
        The inputs (see :func:`barycenter`).
    optimum : float
        The exact barycenter objective (GETO-LP's); each run's ``gap_to_exact`` is
        ``(objective - optimum) / optimum``.
    weights, cost, spacing, reg
        As in :func:`compare_solvers`.
    methods : sequence of str
        Baselines among ``METHODS`` ("geto_lp" is ignored here).
    solver, pot_max_variables, dense_max_points
        As in :func:`compare_solvers`.
    progress : callable, optional
        One step once POT is imported (importing it imports torch when installed: seconds on a cold
        process; skipped when every method is skipped at this size), then one per method, numbered
        from ``step + 1``. Returning False stops before the
        next method; a method already running (POT's LP, Sinkhorn) cannot be interrupted.
    step, total : int
        Where the steps start, and the caller's total (raised to fit these steps).

    Returns
    -------
    Baselines
        The scored runs, in the order asked, and whether a Stop left some out.

    Examples
    --------
    >>> hist = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> done = run_baselines(hist, optimum=1.0, methods=("convolutional",))   # 1-D: skipped, with the reason
    >>> [run.status for run in done.runs], done.stopped
    (['skipped: it works on 2-D grids with the squared Euclidean cost only'], False)
    """
    for method in methods:
        check_choice("method", method, METHODS)
    check_choice("solver", solver, SOLVERS)
    check_range("reg", reg, 1e-4, 10.0)
    check_range("optimum", optimum, 0.0, None)
    check_range("pot_max_variables", pot_max_variables, 0, None, integer=True)
    check_range("dense_max_points", dense_max_points, 0, None, integer=True)
    parse_cost(cost)
    others = [m for m in dict.fromkeys(methods) if m != "geto_lp"]
    total = max(total or 0, step + 1 + len(others))
    hist = check_histograms(histograms)
    shape = tuple(hist.shape[1:])
    n = math.prod(shape)
    C = cost_matrix(shape, cost, spacing) if n <= dense_max_points else None
    t0 = time.perf_counter()
    if any(_skip_reason(m, hist.shape[0], shape, cost, pot_max_variables, dense_max_points)[0] is None
           for m in others):
        import ot  # noqa: F401  (here, not at the top: POT imports torch, which a first view must not pay for)
    if not report(progress, step + 1, total, {"import_seconds": time.perf_counter() - t0}):
        return Baselines([], stopped=bool(others))
    runs = []
    for i, method in enumerate(others):
        run = _run_baseline(method, hist, weights, cost, spacing, reg, C, pot_max_variables, dense_max_points, solver)
        run.gap_to_exact = _gap(run.objective, optimum)
        runs.append(run)
        if not report(progress, step + 2 + i, total, {"baseline_seconds": run.seconds}):
            break
    return Baselines(runs, stopped=len(runs) < len(others))


def compare_solvers(histograms, weights=None, cost: str = "sqeuclidean", spacing=1.0, reg: float = 0.01,
                    methods: Sequence[str] = METHODS, solver: str = "highs-ipm",
                    pot_max_variables: int = POT_LP_MAX_VARIABLES, dense_max_points: int = DENSE_MAX_POINTS,
                    rescore_exact: bool = True, progress: Optional[Callable] = None) -> Comparison:
    """GETO-LP with its plans, then every other method in ``methods``, each scored exactly.

    Parameters
    ----------
    histograms : array (M, n_1, ..., n_d)
    weights, cost, spacing
        As in :func:`core.geto_lp.barycenter`.
    reg : float
        Entropic regularisation, in units of the cost of crossing the grid along one axis.
    methods : sequence of str
        Among ``METHODS``; GETO-LP always runs, first.
    solver : str
        The HiGHS method of both LPs.
    pot_max_variables, dense_max_points : int
        Above these sizes POT's classical LP, and the dense N x N methods, are skipped (with the reason).
    rescore_exact : bool
        Score GETO-LP's barycenter again with ``ot.emd2`` like the others (a check: its LP objective is
        already exact). With False and no baseline in ``methods``, POT is never imported.
    progress : callable, optional
        GETO-LP forwards its own progress (:func:`core.geto_lp.barycenter`), then
        :func:`run_baselines` adds one step for importing POT and one per baseline.

    Returns
    -------
    Comparison
        Stopping during GETO-LP returns its stopped result and no baselines; stopping later returns
        the runs done so far, and nothing runs after the stop.

    References
    ----------
    .. [1] "Grid-efficient exact LP for Wasserstein barycenters" (GETO-LP), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> hist = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> done = compare_solvers(hist, methods=("geto_lp",), rescore_exact=False)   # POT is not imported
    >>> [run.method for run in done.runs], len(done.result.plans), round(done.runs[0].gap_to_exact, 3)
    (['geto_lp'], 2, 0.0)
    """
    for method in methods:
        check_choice("method", method, METHODS)
    check_choice("solver", solver, SOLVERS)
    check_range("reg", reg, 1e-4, 10.0)
    check_range("pot_max_variables", pot_max_variables, 0, None, integer=True)
    check_range("dense_max_points", dense_max_points, 0, None, integer=True)
    parse_cost(cost)
    hist = check_histograms(histograms)
    others = [m for m in dict.fromkeys(methods) if m != "geto_lp"]
    shape = tuple(hist.shape[1:])
    n = math.prod(shape)
    rescore = rescore_exact and n <= dense_max_points
    C = cost_matrix(shape, cost, spacing) if rescore else None
    extra = len(others) + 1 if others else 0     # importing POT, then one step per baseline

    last = {"step": 0, "total": 1, "stopped": False}

    def geto_progress(step, total, metrics):  # GETO-LP's steps, with room left for the baselines
        last.update(step=step, total=total + extra)
        keep_going = report(progress, step, total + extra, metrics)
        last["stopped"] = not keep_going
        return keep_going

    run = measured(barycenter, hist, weights, cost, spacing, solver, return_plans=True,
                   progress=geto_progress if progress is not None else None)
    result = run.value
    runs = [_scored_geto(result, run.seconds, run.peak_memory_mb, hist, C, dense_max_points, rescore)]
    if result.status == "optimal" and others and not last["stopped"]:
        assert result.n_variables == count_variables(hist.shape[0], shape)
        baselines = run_baselines(hist, runs[0].objective, weights, cost, spacing, reg, others, solver,
                                  pot_max_variables, dense_max_points, progress, step=last["step"],
                                  total=last["total"])
        runs += baselines.runs
    optimum = runs[0].objective
    runs[0].gap_to_exact = _gap(runs[0].objective, optimum)
    return Comparison(result, runs)
