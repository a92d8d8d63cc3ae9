"""The page's first views, shipped: each kind's default problem, solved and compared once, as arrays.

A first view must not pay for POT (which imports torch), scikit-learn, HiGHS or PyVista, so each
kind's default view (:data:`.problems.DEFAULTS`, equal weights, squared Euclidean cost, dual
simplex, ``reg`` 0.01, seed 0) is written to ``assets/geto_lp/<kind>.npz``: the inputs, GETO-LP's
result with its plans, and every baseline's scored run. Timings and memory in it are those measured
when it was made. Regenerate with

    python -m core.geto_lp.ship
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.geto_lp.barycenter import BarycenterResult
from core.geto_lp.baselines import Comparison, SolverRun
from core.geto_lp.grid import check_weights
from core.geto_lp.problems import DEFAULTS, KINDS, Problem, problem_inputs

ASSETS = asset_dir("geto_lp")
SEED, COST, SOLVER, REG = 0, "sqeuclidean", "highs-ds", 0.01
POT_LP_LIMIT, DENSE_LIMIT = 150_000, 1_728      # the page's limits for POT's classical LP and dense costs


@dataclass
class ShippedView:
    """One shipped view: the settings it answers, its inputs and the comparison made from them."""

    kind: str
    items: tuple
    size: int
    seed: int
    weights: np.ndarray
    cost: str
    solver: str
    reg: float
    problem: Problem
    comparison: Comparison

    def matches(self, kind, items, size, seed, weights, cost, solver, reg) -> bool:
        """Whether a view with these settings is this one (the seed counts only where inputs use it)."""
        from core.geto_lp.problems import SEEDED

        return (kind == self.kind and tuple(map(str, items)) == tuple(map(str, self.items)) and size == self.size
                and (kind not in SEEDED or seed == self.seed) and cost == self.cost and solver == self.solver
                and float(reg) == self.reg and len(weights) == len(self.weights)
                and np.allclose(weights, self.weights, atol=1e-9))


def default_settings(kind: str) -> dict:
    items, size = DEFAULTS[kind]
    return {"kind": kind, "items": tuple(items), "size": size, "seed": SEED,
            "weights": check_weights([1.0] * len(items), len(items)), "cost": COST, "solver": SOLVER, "reg": REG}


def make_view(kind: str) -> ShippedView:
    """Solve and compare ``kind``'s default view (POT and HiGHS run here, once)."""
    from core.geto_lp.baselines import compare_solvers

    compare_solvers(np.ones((2, 4, 4)), solver=SOLVER)   # imports HiGHS and POT first: timings leave them out
    s = default_settings(kind)
    problem = problem_inputs(kind, s["items"], s["size"], s["seed"])
    comparison = compare_solvers(problem.histograms, s["weights"], s["cost"], problem.spacing, s["reg"],
                                 solver=s["solver"], pot_max_variables=POT_LP_LIMIT, dense_max_points=DENSE_LIMIT)
    return ShippedView(**s, problem=problem, comparison=comparison)


RESULT_ARRAYS = ("barycenter", "weights", "plans")
RUN_ARRAYS = ("barycenter",)


def save_view(view: ShippedView, directory: Path = ASSETS) -> Path:
    """Write ``view`` to ``directory/<kind>.npz`` (compressed arrays, a JSON header; no pickles)."""
    result, runs = view.comparison.result, view.comparison.runs
    arrays = {"histograms": view.problem.histograms, "barycenter": result.barycenter, "weights": result.weights}
    for m, plan in enumerate(result.plans):
        plan = plan.tocsr()
        arrays.update({f"plan{m}_data": plan.data, f"plan{m}_indices": plan.indices, f"plan{m}_indptr": plan.indptr})
    for run in runs:
        if run.barycenter is not None:
            arrays[f"run_{run.method}"] = run.barycenter
    header = {
        "settings": {"kind": view.kind, "items": [str(i) for i in view.items], "size": view.size, "seed": view.seed,
                     "weights": np.asarray(view.weights).tolist(), "cost": view.cost, "solver": view.solver,
                     "reg": view.reg},
        "labels": view.problem.labels, "spacing": view.problem.spacing,
        "result": {f.name: _plain(getattr(result, f.name)) for f in fields(result) if f.name not in RESULT_ARRAYS},
        "plans": len(result.plans),
        "runs": [{k: _plain(v) for k, v in asdict(run).items() if k not in RUN_ARRAYS} for run in runs],
        "made_by": "python -m core.geto_lp.ship",
    }
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{view.kind}.npz"
    np.savez_compressed(path, header=np.array(json.dumps(header)), **arrays)
    return path


def load_view(kind: str, directory: Path = ASSETS) -> ShippedView | None:
    """The shipped default view of ``kind``, or None when it has not been shipped."""
    import scipy.sparse as sp

    path = Path(directory) / f"{kind}.npz"
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as z:
        header = json.loads(str(z["header"]))
        n = z["barycenter"].size
        plans = [sp.csr_matrix((z[f"plan{m}_data"], z[f"plan{m}_indices"], z[f"plan{m}_indptr"]), shape=(n, n))
                 for m in range(header["plans"])]
        r = header["result"]
        result = BarycenterResult(barycenter=z["barycenter"], weights=z["weights"], plans=plans,
                                  **{**r, "spacing": tuple(r["spacing"])})
        runs = [SolverRun(**run, barycenter=z.get(f"run_{run['method']}")) for run in header["runs"]]
        problem = Problem(z["histograms"], list(header["labels"]), float(header["spacing"]))
    s = header["settings"]
    items = tuple(int(i) if kind in ("digits", "volumes") else i for i in s["items"])
    return ShippedView(kind, items, int(s["size"]), int(s["seed"]), np.asarray(s["weights"]), s["cost"], s["solver"],
                       float(s["reg"]), problem, Comparison(result, runs))


def _plain(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, (tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return value


if __name__ == "__main__":
    for name in KINDS:
        print(f"wrote {save_view(make_view(name))}")
