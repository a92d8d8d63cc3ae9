"""quantum_ng at scale: the surrogate's accuracy, variance and cost, and the per-shot VQE comparison.

Everything runs on the paper's local ansatz (two layers of RY+RZ with brickwork CNOTs) unless
said otherwise; the CNOT staircase appears only as the labelled non-local control.

- Step sizes: each optimiser's step size is picked from a grid on tuning seeds (100, 101) at
  ``--tune-qubits`` for each model, by the mean log10 error over the budget; the evaluation seeds
  (0, 1, ...) are never used for tuning. The surrogate's gradient-descent part uses SGD's tuned size.
- Metric: per size, the relative error of the exact-expectation surrogate against the exact metric
  for k = 1..4, masked and unmasked, what the mask alone removes, and the active sets.
- Bias and variance against k at a fixed shot count T: bias^2 = ||g^(k) - g||^2, the one-dataset
  variance estimate, the empirical variance over ``--variance-repeats`` independent shadows, the
  bound's variance, MSE = bias^2 + variance and the best k (all relative to ||g||^2).
- Concentration bound: the share of 200 seeded shadow estimates (8 qubits, k = 2) whose deviation
  from the truncated metric stays under the bound's radius at delta = 0.05, and how loose it is.
- Cost and accuracy against the strongest paths, everything counted (state and shadow production
  included): the surrogate from one shadow, the surrogate with exact expectations, our exact metric,
  ``qml.adjoint_metric_tensor`` and ``qml.metric_tensor(approx="block-diag")`` on lightning.qubit,
  as ratios to the surrogate in one run, each with its metric error (the error-versus-cost frontier).
- VQE: Heisenberg and TFIM open chains at each size, the evaluation seeds, all five optimisers on
  one shot budget; the median error per cumulative shot on a grid, the mean log10 error over the
  budget (the area, lower is better) and per-seed winners.
- Page: first view (cold and warm) against an anchor, as the other benchmarks do.

- Cell cost (``--cost-qubits N``): one timed step of every optimiser at N qubits, extrapolated to a
  full-budget cell and to the whole comparison at that size, so a size too costly to run here is
  reported with what it would cost.

Partial runs: ``--only PART ...`` recomputes those parts and keeps the rest of the stored results;
the parts keyed by chain and size (tuning, metric, tradeoff, vqe) merge entry by entry, the stored
file being re-read just before writing, so disjoint chains and sizes can run as separate commands
(side by side) and add up to one result. ``runs`` lists every command, ``made_by`` says which one
measured each part and entry, and ``scale`` what is missing against the issue's scale.

    python bench/quantum_ng.py                 # the issue's scale in one command: 8, 12, 16 qubits, 5 seeds (hours)
    python bench/quantum_ng.py --only vqe --sizes 12 --models tfim     # one chain and size, merged into the rest
    python bench/quantum_ng.py --only cell_cost --cost-qubits 16       # what a 16-qubit cell costs here
    python bench/quantum_ng.py --quick         # 6 qubits, 2 seeds, small budgets, printed only (smoke test)

bench/results/quantum_ng.md opens with the commands that produced the stored numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "quantum_ng.json"
sys.path.insert(0, str(ROOT))

from bench.report import interval_text, judged, write_results  # noqa: E402
from bench.run import sweep_values  # noqa: E402
from core.quantum_ng import (LABELS, OPTIMIZERS, Ansatz, VQEConfig, exact_metric, propagate_generators,  # noqa: E402
                             run_vqe, truncation_curve)

MODELS = ("heisenberg", "tfim")
GRID = (0.025, 0.05, 0.1, 0.2, 0.4, 0.8)   # widened when the first full tuning picked both ends (0.05 and 0.4)
TUNING_SEEDS = (100, 101)
FRACTIONS = (0.25, 0.5, 1.0)
BUDGETS = {6: 1_000_000, 8: 1_500_000, 12: 600_000, 16: 150_000}   # shots per optimiser at scale 1
LAYERS = 2
ENTANGLER = "brickwork"
FIELD = {"sgd": "sgd_stepsize", "adam": "adam_stepsize", "block_qng": "qng_stepsize", "rng": "qng_stepsize",
         "surrogate": "qng_stepsize"}
CURVE_POINTS = 20
PARTS = ("tuning", "metric", "tradeoff", "tradeoff_product", "qfim_target", "target_trend", "vqe_cells",
         "shot_frontier", "shot_frontier_k", "bound", "bound_grid", "construction", "vqe", "vqe_confirm", "vqe_start",
         "cell_cost", "stationary", "stationary_confirm", "page")
# Registered with the per-shot rule's tie band (core/quantum_ng/claims.py), which was fixed after seeds 0-4 were
# seen: fresh seeds that decide per_shot_convergence once every chain of "vqe" has them (part vqe_confirm)
VQE_CONFIRM_SEEDS = (5, 6, 7, 8, 9)


def cpu_seconds() -> float:
    """CPU seconds of this process, all its threads (the clock of the cost comparison and the cell cost).

    On the shared machine these benches run on, wall time counts every other job and any time the
    process was paused; CPU time counts only the work. The tables say "CPU s".
    """
    return time.process_time()


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def area(trace, budget: int, points: int = 50) -> float:
    """Mean log10 energy error over an even grid of shot counts up to the budget."""
    grid = np.linspace(budget / points, budget, points)
    return float(np.mean([np.log10(max(trace.error_at(s), 1e-9)) for s in grid]))


def tune(model: str, base: dict, grid=GRID, seeds=TUNING_SEEDS) -> dict:
    """Best step size per optimiser (SGD first, so the surrogate's descent part can use its value)."""
    best, scores_all = {}, {}
    for opt in OPTIMIZERS:
        scores = {}
        for lr in grid:
            extra = {"sgd_stepsize": best.get("sgd", 0.2)} if opt == "surrogate" else {}
            cfg = VQEConfig(model=model, optimizers=(opt,), entangler=ENTANGLER, **base, **extra, **{FIELD[opt]: lr})
            scores[lr] = float(np.mean([area(run_vqe(cfg, seed=s).traces[opt], cfg.budget) for s in seeds]))
        best[opt] = min(scores, key=scores.get)
        scores_all[opt] = scores
        log(f"tune {model} {opt}: {scores} -> {best[opt]}")
    return best


def config_for(model: str, n: int, budget: int, steps: dict, **overrides) -> VQEConfig:
    return VQEConfig(model=model, n_qubits=n, layers=LAYERS, entangler=ENTANGLER, budget=budget,
                     sgd_stepsize=steps["sgd"], adam_stepsize=steps["adam"], **overrides)


def compare(model: str, n: int, budget: int, steps: dict, seeds) -> dict:
    """All optimisers on the same seeds and the same shot budget (one run each: their step sizes differ)."""
    rows = {key: [] for key in OPTIMIZERS}
    seconds = {key: 0.0 for key in rows}   # CPU seconds (the machine is shared); wall seconds beside them
    wall = {key: 0.0 for key in rows}
    for seed in seeds:
        base = config_for(model, n, budget, steps)
        for key in OPTIMIZERS:
            cfg = base.replace(optimizers=(key,), qng_stepsize=steps[key] if FIELD[key] == "qng_stepsize" else 0.05)
            t0 = cpu_seconds()
            trace = run_vqe(cfg, seed=seed).traces[key]
            seconds[key] += cpu_seconds() - t0
            rows[key].append(trace)
            wall[key] += trace.seconds
        log(f"{model} {n}q seed {seed}: " + ", ".join(f"{k} {rows[k][-1].error[-1]:.3f}" for k in rows))
    out = {"budget": budget, "layers": LAYERS, "entangler": ENTANGLER, "seeds": list(seeds), "optimizers": {}}
    areas = {k: [area(t, budget) for t in traces] for k, traces in rows.items()}
    grid = np.linspace(0, budget, CURVE_POINTS + 1)
    for key, traces in rows.items():
        errors = np.array([[t.error_at(f * budget) for f in FRACTIONS] for t in traces])
        curve = np.array([[t.error_at(s) for s in grid] for t in traces])
        out["optimizers"][key] = {
            "median_error": dict(zip((f"{f:.0%}" for f in FRACTIONS), np.median(errors, axis=0).tolist())),
            "error_per_shot": {"shots": grid.tolist(), "median_error": np.median(curve, axis=0).tolist(),
                               "per_seed": curve.tolist()},
            "median_log_error_area": float(np.median(areas[key])), "areas": areas[key],
            "final_errors": errors[:, -1].tolist(), "steps": [t.steps for t in traces],
            "shots_per_step": traces[0].shots_per_step, "seconds": seconds[key], "clock": "cpu",
            "wall_seconds": wall[key],
            "mean_active_fraction": float(np.nanmean([np.nanmean(t.active[1:]) for t in traces]))
            if key == "surrogate" else None}
    winners = [min(areas, key=lambda k: areas[k][i]) for i in range(len(seeds))]
    out["wins"] = {k: winners.count(k) for k in OPTIMIZERS}
    medians = {k: float(np.median(v)) for k, v in areas.items()}
    out["best_by_median_area"] = min(medians, key=medians.get)
    out["surrogate_rank"] = sorted(medians, key=medians.get).index("surrogate") + 1
    out["surrogate_ahead"] = out["best_by_median_area"] == "surrogate"
    return out


# The sweep for bench/run.py (python -m bench.run quantum_ng --grid full --engine ray): the VQE comparison, the
# longest part of this bench (85 minutes at full scale here), as one cell per chain x size x seed x optimiser.
# Step sizes are fixed in each cell ("full": the tuned ones of the stored results; "small", or before any tuning:
# SWEEP_STEPS), so cells are independent; "full" is section vqe's runs (seeds 0-4), "vqe_confirm_08q" / "_12q" /
# "_16q" the registered seeds 5-9 that decide, one grid per size (50 cells each; the largest about 11 minutes).
VQE_CONFIRM_GRIDS = {f"vqe_confirm_{n:02d}q": n for n in (8, 12, 16)}   # one grid per size: each under 20 minutes
SWEEP_GRIDS = ("small", "full", *VQE_CONFIRM_GRIDS, "target_shots", "shot_frontier", "shot_frontier_k")
TARGET_SHOTS = (500, 2_000, 8_000)   # grid target_shots: the surrogate's error against the trivial metric as T grows
SWEEP_STEPS = {"sgd": 0.2, "adam": 0.2, "block_qng": 0.05, "rng": 0.05, "surrogate": 0.05}


def sweep(grid: str) -> list:
    """Cells of the VQE comparison: ``small`` (4 qubits, 2,000 shots, 2 seeds) or ``full`` (8-16 qubits, 5 seeds)."""
    from bench.run import Cell

    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}   # tuned steps and k come from it
    if grid == "target_shots":
        from bench.quantum_ng_target import TARGET_SEEDS

        return [Cell(f"target-{n:02d}q-T{t:05d}-point{seed:02d}",
                     {"part": "qfim_target", "n": n, "k": target_k(stored, n), "snapshots": t}, seed)
                for n in (8, 12, 16) for t in TARGET_SHOTS for seed in TARGET_SEEDS]
    if grid in ("shot_frontier", "shot_frontier_k"):
        from bench.quantum_ng_budget import (FRONTIER_K_SEEDS, FRONTIER_SEEDS, FRONTIER_SIZES, PER_CIRCUIT, budget_k,
                                             full_circuits)

        if grid == "shot_frontier":
            return [Cell(f"frontier-{n:02d}q-point{seed:02d}", {"part": "shot_frontier", "n": n,
                                                                 "k": target_k(stored, n)}, seed)
                    for n in FRONTIER_SIZES for seed in FRONTIER_SEEDS]
        ks = {n: [budget_k(stored["tradeoff"][str(n)], full_circuits(Ansatz(n, LAYERS, ("RY", "RZ"), ENTANGLER).n_params)
                           * m) for m in PER_CIRCUIT] for n in FRONTIER_SIZES}
        return [Cell(f"frontier-k-{n:02d}q-point{seed:02d}", {"part": "shot_frontier", "n": n, "k": ks[n]}, seed)
                for n in FRONTIER_SIZES for seed in FRONTIER_K_SEEDS]
    if grid in VQE_CONFIRM_GRIDS:   # section vqe_confirm's runs at one size, a cell each: tuned steps, registered seeds
        n = VQE_CONFIRM_GRIDS[grid]
        return [Cell(f"confirm-{model}-{n:02d}q-seed{seed}-{key}",
                     {"model": model, "n": n, "optimizer": key, "budget": BUDGETS[n], "steps": stored["tuning"][model]},
                     seed) for model in MODELS for seed in VQE_CONFIRM_SEEDS for key in OPTIMIZERS]
    sizes, seeds = ((4,), (0, 1)) if grid == "small" else ((8, 12, 16), range(5))
    tuned = stored.get("tuning", {}) if grid == "full" else {}
    return [Cell(f"{model}-{n:02d}q-seed{seed}-{key}",
                 {"model": model, "n": n, "optimizer": key, "budget": 2_000 if grid == "small" else BUDGETS[n],
                  "steps": tuned.get(model, SWEEP_STEPS)}, seed)
            for model in MODELS for n in sizes for seed in seeds for key in OPTIMIZERS]


def run_cell(cell):
    """One optimiser on one chain and seed: its error at the budget's fractions and its log-error area."""
    from bench.run import CellOutput

    p = cell.params
    if p.get("part") in ("qfim_target", "shot_frontier"):   # a metric estimate at one parameter point
        from bench.quantum_ng_budget import frontier_point
        from bench.quantum_ng_target import shots_point

        t0 = cpu_seconds()
        values = (shots_point(p["n"], p["k"], p["snapshots"], cell.seed, TARGET_SHOTS[0], LAYERS, ENTANGLER)
                  if p["part"] == "qfim_target"
                  else frontier_point(Ansatz(p["n"], LAYERS, ("RY", "RZ"), ENTANGLER), cell.seed, p["k"]))
        return CellOutput(values=values, measured={"seconds": cpu_seconds() - t0})
    steps = p["steps"]
    cfg = config_for(p["model"], p["n"], p["budget"], steps).replace(
        optimizers=(p["optimizer"],), qng_stepsize=steps[p["optimizer"]] if FIELD[p["optimizer"]] == "qng_stepsize"
        else 0.05)
    trace = run_vqe(cfg, seed=cell.seed).traces[p["optimizer"]]
    values = {"model": p["model"], "n": p["n"], "optimizer": p["optimizer"], "seed": cell.seed,
              "errors": {f"{f:.0%}": trace.error_at(f * p["budget"]) for f in FRACTIONS},
              "log_error_area": area(trace, p["budget"]), "steps": trace.steps, "shots_per_step": trace.shots_per_step}
    return CellOutput(values=values, measured={"seconds": trace.seconds})


def cases_from_cells(rows: list) -> dict:
    """The cells of the vqe_confirm grids as section vqe_confirm's chains hold them: per chain, its seeds and each
    optimiser's areas and steps in seed order."""
    cases = {}
    for r in sorted(rows, key=lambda r: (r["model"], r["n"], r["seed"])):
        case = cases.setdefault(case_name(r["model"], r["n"]), {"seeds": [], "optimizers": {}})
        if r["seed"] not in case["seeds"]:
            case["seeds"].append(r["seed"])
        o = case["optimizers"].setdefault(r["optimizer"], {"areas": [], "steps": []})
        o["areas"].append(r["log_error_area"])
        o["steps"].append(r["steps"])
    return cases


def vqe_trend(result: dict) -> dict:
    """The surrogate's lead over SGD and over block-diagonal QNG (the two strongest baselines) as the chain grows:
    per size, the mean over chains of the per-seed lead (the judged seeds, as the rule reads them), and the
    surrogate's steps within the budget, which fall with the size."""
    from core.quantum_ng.claims import judged_cases, seed_leads

    cases = cases_from_cells(result["vqe_cells"]) if "vqe_cells" in result else judged_cases(result)
    rows = []
    for n in sorted({case_parts(c)[1] for c in cases}):
        mine = [c for name, c in cases.items() if case_parts(name)[1] == n]
        rows.append([n, float(np.mean([c["optimizers"]["surrogate"]["steps"] for c in mine])),
                     *(float(np.mean([np.mean(seed_leads(c, k)) for c in mine])) for k in ("sgd", "block_qng"))])
    return {"trend": rows, "trend_columns": ["qubits", "surrogate steps in the budget", "lead over SGD (decades)",
                                             "lead over block-diagonal QNG (decades)"]}


def case_parts(case: str) -> tuple[str, int]:
    """("heisenberg", 8) from "heisenberg 8q"."""
    model, size = case.split(" ")
    return model, int(size.rstrip("q"))


def start_errors(case: str, c: dict, seeds=None) -> dict:
    """The trivial method on chain ``case``: per seed of ``c`` (a vqe entry) and of the confirmatory seeds, the
    exact energy error at the start every optimiser shares, held over the whole budget: log10 error as its area."""
    from core.quantum_ng.simulate import energy

    model, n = case_parts(case)
    cfg = config_for(model, n, c["budget"], {"sgd": 0.1, "adam": 0.1})
    ansatz, H, e0 = cfg.ansatz(), cfg.chain.hamiltonian(), cfg.chain.ground_energy()
    seeds = sorted({*c["seeds"], *VQE_CONFIRM_SEEDS}) if seeds is None else seeds
    out = {}
    for seed in seeds:
        out[str(seed)] = float(np.log10(max(energy(ansatz, H, cfg.start(seed)) - e0, 1e-9)))
    return {"log_error_area": out}


def cell_cost(n: int, steps: dict, seeds: int, model: str = "heisenberg", optimizers=OPTIMIZERS) -> dict:
    """What one VQE cell (one optimiser, one seed, the full budget) costs at ``n`` qubits, from one timed step each.

    Every optimiser takes one step from a common start on the ``model`` chain; the cell's time is that
    step's time (plus the exact energy the trace records) times the steps the budget allows. The
    full comparison at this size is that, summed over the optimisers, times 2 chains and ``seeds``;
    with only some ``optimizers`` timed, the others are counted at the cheapest timed cell (every
    optimiser pays the same parameter-shift gradient, so SGD's cell is a lower bound on each).
    """
    from core.quantum_ng import ShotOracle

    cfg = config_for(model, n, BUDGETS[n], steps)
    ansatz, H = cfg.ansatz(), cfg.chain.hamiltonian()
    out = {"n_qubits": n, "model": model, "budget": BUDGETS[n], "n_params": ansatz.n_params, "clock": "cpu",
           "optimizers": {}}
    ShotOracle(ansatz, H, cfg.shots, seed=0).gradient(ansatz.random_params(0))   # warm the devices and imports
    for key in optimizers:
        oracle = ShotOracle(ansatz, H, cfg.shots, seed=0)
        costs = oracle.planned_costs(cfg.snapshots)
        extra = {"block_qng": "block_diag", "rng": "random_fisher", "surrogate": "shadow"}.get(key)
        per_step = costs["gradient"][1] + (costs[extra][1] if extra else 0)
        t0 = cpu_seconds()
        params = cfg.replace(qng_stepsize=steps[key] if FIELD[key] == "qng_stepsize" else 0.05).optimizer(key).step(
            ansatz.random_params(0), oracle)
        oracle.energy(params)
        seconds = cpu_seconds() - t0
        n_steps = -(-BUDGETS[n] // per_step)
        out["optimizers"][key] = {"step_seconds": seconds, "shots_per_step": int(per_step), "steps": int(n_steps),
                                  "cell_seconds": seconds * n_steps}
        log(f"cell cost {n}q {key}: {seconds:.1f} s a step, {n_steps} steps")
    out["cells"] = len(OPTIMIZERS) * len(MODELS) * seeds
    cells = [o["cell_seconds"] for o in out["optimizers"].values()]
    out["timed"] = list(optimizers)
    out["comparison_seconds"] = len(MODELS) * seeds * (sum(cells) + (len(OPTIMIZERS) - len(cells)) * min(cells))
    return out


def metric_accuracy(n: int, ks=range(1, 5)) -> dict:
    out = {}
    for entangler in ("brickwork", "cnot_chain"):
        ansatz = Ansatz(n, LAYERS, ("RY", "RZ"), entangler)
        params = ansatz.random_params(0)
        ks_here = [k for k in ks if k <= n]
        curve = truncation_curve(ansatz, params, ks_here)
        gens = [propagate_generators(ansatz, params, k) for k in ks_here]
        out[entangler] = {"k": curve.k.tolist(), "error_masked": curve.error_masked.tolist(),
                          "error_unmasked": curve.error_unmasked.tolist(),
                          "error_mask": curve.error_mask.tolist(), "strings": curve.strings.tolist(),
                          "kept_entries": curve.kept_entries.tolist(),
                          "active_nonzero": [int(g.active(0.0).sum()) for g in gens],
                          "active_half_norm": [int(g.active(0.5).sum()) for g in gens], "n_params": ansatz.n_params,
                          "role": "local, the paper's setting" if entangler == "brickwork" else "non-local control"}
        log(f"metric {n}q {entangler}: masked {np.round(curve.error_masked, 3)}, "
            f"mask alone {np.round(curve.error_mask, 3)}")
    return out


def tradeoff(n: int, snapshots: int, repeats: int, ks=range(1, 5), mask: bool = True,
             entangler: str = ENTANGLER) -> dict:
    """Bias^2, variance (one-dataset estimate, empirical over ``repeats`` shadows, bound) and MSE against k
    (``entangler="none"``: the product-state null, with no structure beyond weight 1 for a larger k to capture)."""
    from core.common.seeding import derive_seed
    from core.quantum_ng.estimation import bias_variance_curve
    from core.quantum_ng.shadows import acquire_shadow, shadow_metric

    ansatz = Ansatz(n, LAYERS, ("RY", "RZ"), entangler)
    params = ansatz.random_params(0)
    exact = exact_metric(ansatz, params)
    norm2 = float(np.sum(exact ** 2))
    ks = [k for k in ks if k <= n]
    curve = bias_variance_curve(ansatz, params, ks, snapshots, mask=mask, seed=derive_seed(0, "tradeoff"), exact=exact)
    gens = [propagate_generators(ansatz, params, k) for k in ks]
    draws = {k: [] for k in ks}
    for r in range(repeats):
        shadow = acquire_shadow(ansatz, params, snapshots, seed=derive_seed(r, "tradeoff repeat"))
        for k, g in zip(ks, gens):
            draws[k].append(shadow_metric(g, shadow, mask=mask))
    emp_var = [float(np.stack(draws[k]).var(axis=0, ddof=1).sum()) / norm2 for k in ks]
    emp_mse = [float(np.mean([np.sum((d - exact) ** 2) for d in draws[k]])) / norm2 for k in ks]
    out = {"n_qubits": n, "layers": LAYERS, "entangler": entangler, "snapshots": snapshots, "repeats": repeats,
           "mask": mask, "k": ks, "bias2": curve.bias2.tolist(), "variance_estimate": curve.variance.tolist(),
           "variance_empirical": emp_var, "variance_bound": curve.variance_bound.tolist(),
           "mse": curve.mse.tolist(), "mse_empirical": emp_mse, "best_k": int(curve.best_k),
           "best_k_empirical": int(ks[int(np.argmin(emp_mse))])}
    log(f"tradeoff {n}q T={snapshots}: bias2 {np.round(out['bias2'], 3)}, var {np.round(emp_var, 3)}, "
        f"best k {out['best_k']} (empirical {out['best_k_empirical']})")
    return out


def target_k(result: dict, n: int) -> int:
    """Section qfim_target's k at ``n`` qubits: the tradeoff section's best k on its own parameter point (seed 0),
    2 where that section has not run at this size."""
    t = result.get("tradeoff", {})
    return int((t.get(n) or t.get(str(n)) or {}).get("best_k_empirical", 2))


def bound_check(n: int = 8, k: int = 2, snapshots: int = 500, seeds: int = 200, delta: float = 0.05) -> dict:
    """Section ``bound``: the first setting (shadow seeds 0 to seeds - 1), at parameter point 0."""
    from bench.quantum_ng_bound import bound_setting

    ansatz = Ansatz(n, LAYERS, ("RY", "RZ"), ENTANGLER)
    params = ansatz.random_params(0)
    out = bound_setting(ansatz, params, exact_metric(ansatz, params), k, snapshots, range(seeds), delta)
    log(f"bound: {out}")
    return out


def construction_time(n: int = 16, k: int = 2, snapshots: int = 500) -> dict:
    """Every path to the metric at n qubits, everything counted (CPU seconds), with its error against the exact metric."""
    import pennylane as qml
    from pennylane import numpy as pnp

    from core.quantum_ng.metric import metric_from_generators, relative_error
    from core.quantum_ng.shadows import acquire_shadow, shadow_metric
    from core.quantum_ng.simulate import final_state

    ansatz = Ansatz(n, LAYERS, ("RY", "RZ"), ENTANGLER)
    params = ansatz.random_params(0)
    P = ansatz.n_params
    final_state(ansatz, params)  # warm lightning
    methods = {}

    t0 = cpu_seconds()
    gens = propagate_generators(ansatz, params, k)
    shadow = acquire_shadow(ansatz, params, snapshots, seed=0)   # simulates the state, then samples T snapshots
    from_shadow = shadow_metric(gens, shadow, mask=True)
    methods["surrogate_shadow"] = {"seconds": cpu_seconds() - t0, "metric": from_shadow,
                                   "hardware_circuits": snapshots, "hardware_shots": snapshots}
    t0 = cpu_seconds()
    gens = propagate_generators(ansatz, params, k)
    surrogate = metric_from_generators(gens, final_state(ansatz, params), mask=True)
    methods["surrogate_exact_expectations"] = {"seconds": cpu_seconds() - t0, "metric": surrogate,
                                               "hardware_circuits": None, "hardware_shots": None}
    t0 = cpu_seconds()
    exact = exact_metric(ansatz, params)
    methods["exact_ours"] = {"seconds": cpu_seconds() - t0, "metric": exact,
                             "hardware_circuits": P * (P + 1) // 2, "hardware_shots": None}

    def qnode():
        @qml.qnode(qml.device("lightning.qubit", wires=n))
        def circuit(p):
            ansatz.apply(p)
            return qml.expval(qml.PauliZ(0))

        return circuit

    p = pnp.array(params, requires_grad=True)
    t0 = cpu_seconds()
    adjoint = np.asarray(qml.adjoint_metric_tensor(qnode())(p))
    methods["adjoint_metric_tensor"] = {"seconds": cpu_seconds() - t0, "metric": adjoint,
                                        "hardware_circuits": None, "hardware_shots": None}
    t0 = cpu_seconds()
    block = np.asarray(qml.metric_tensor(qnode(), approx="block-diag")(p))
    methods["block_diag_metric_tensor"] = {"seconds": cpu_seconds() - t0, "metric": block,
                                           "hardware_circuits": LAYERS * 2, "hardware_shots": None}
    base = methods["surrogate_shadow"]["seconds"]
    out = {"n_qubits": n, "n_params": P, "k": k, "snapshots": snapshots, "entangler": ENTANGLER, "clock": "cpu",
           "methods": {}}
    for name, m in methods.items():
        out["methods"][name] = {"seconds": m["seconds"], "relative_error": relative_error(m["metric"], exact),
                                "seconds_over_surrogate_shadow": m["seconds"] / base,
                                "hardware_circuits": m["hardware_circuits"]}
    out["exact_matches_adjoint"] = float(np.abs(exact - adjoint).max())
    # the surrogate at other k: where it sits on the frontier
    out["surrogate_by_k"] = []
    for kk in range(1, min(n, 4) + 1):
        t0 = cpu_seconds()
        g = propagate_generators(ansatz, params, kk)
        sh = acquire_shadow(ansatz, params, snapshots, seed=0)
        est = shadow_metric(g, sh, mask=True)
        out["surrogate_by_k"].append({"k": kk, "seconds": cpu_seconds() - t0,
                                      "relative_error": relative_error(est, exact)})
    log("construction: " + ", ".join(f"{k} {v['seconds']:.2f} s err {v['relative_error']:.2f}"
                                     for k, v in out["methods"].items()))
    return out


STATIONARY_SHOTS = (50, 200, 800)               # shots per circuit: the noise whose neighbourhood must shrink
STATIONARY_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)   # each optimiser's step, tuned on TUNING_SEEDS (0.3 alone let Adam pick its end)
STATIONARY_SEEDS = (0, 1, 2, 3, 4, 5)           # evaluation seeds (not the tuning seeds)
STATIONARY_OPTIMIZERS = ("surrogate", "sgd", "adam", "block_qng")
RANDOM_WALK = "random_directions"               # the null: the surrogate's step lengths in random directions
# Registered after the 6 seeds above gave the surrogate's settled norm -1.74 [-2.60, -0.88] decades under its start
# (sd 0.82: power 0.43 against a tenth, 12 seeds for 0.8): 16 fresh seeds (power 0.92) decide once stored, the
# stored steps kept (two looks, at most 0.05 one-sided over both)
STATIONARY_CONFIRM_SEEDS = tuple(range(6, 22))


def _settled(norms: list, steps: int) -> float:
    """The norm a run settles at: the mean over the last third of its ``steps``."""
    return float(np.mean(norms[-(steps // 3):]))


def _stationary_run(ansatz, H, key: str, step: float, S: int, seed: int, steps: int) -> list:
    """Exact squared gradient norms along one run of ``key`` (or RANDOM_WALK) at ``S`` shots per circuit."""
    from core.common.seeding import derive_rng, derive_seed
    from core.quantum_ng import ShotOracle
    from core.quantum_ng.optimizers import make_optimizer
    from core.quantum_ng.simulate import energy_and_gradient

    oracle = ShotOracle(ansatz, H, S, seed=derive_seed(seed, "stationary", S))
    base = "surrogate" if key == RANDOM_WALK else key
    extra = {"lam": 0.05, "k": 2, "snapshots": 5 * S, "gd_stepsize": step} if base == "surrogate" else \
        {"lam": 0.05} if base == "block_qng" else {}
    opt = make_optimizer(base, stepsize=step, **extra)
    rng = derive_rng(seed, "random directions", S)
    params = ansatz.random_params(derive_seed(seed, "stationary start"))
    norms = []
    for _ in range(steps + 1):
        norms.append(float(np.sum(energy_and_gradient(ansatz, H, params)[1] ** 2)))
        moved = opt.step(params, oracle)
        if key == RANDOM_WALK:                 # the same length, a random direction: no descent left
            u = rng.standard_normal(len(params))
            moved = params + np.linalg.norm(np.asarray(moved) - params) * u / np.linalg.norm(u)
        params = np.asarray(moved, float)
    return norms


def stationarity(n: int = 4, steps: int = 40, shots=STATIONARY_SHOTS, seeds=STATIONARY_SEEDS,
                 grid=STATIONARY_GRID, optimizers=STATIONARY_OPTIMIZERS) -> dict:
    """Each optimiser run long on a small chain: the exact squared gradient norm it settles at, against the shots.

    Every optimiser's step is tuned first on TUNING_SEEDS (the mean over those seeds and the shot counts of log10
    of the settled norm, on the same shots and steps); then, on the evaluation ``seeds``, per seed: the settled
    norm (mean over the last third of the steps) at each shot count, the starting norm, and the slope of log10
    settled norm over log10 shots (the neighbourhood shrinks as the noise falls: slope < 0). The null
    (RANDOM_WALK) takes the tuned surrogate's step lengths in random directions. The guarantee's radius is not in
    the abstract, so the neighbourhood is judged against the start (a tenth of it) and by how it shrinks.
    """
    from core.quantum_ng import Chain

    H = Chain("heisenberg", n).hamiltonian()
    ansatz = Ansatz(n, LAYERS, ("RY", "RZ"), ENTANGLER)
    tuned, scores = {}, {}   # SGD, Adam, block-diagonal QNG, the surrogate: each one's best step
    for key in optimizers:
        scores[key] = {str(lr): float(np.mean([np.log10(_settled(_stationary_run(ansatz, H, key, lr, S, seed, steps),
                                                                 steps))
                                               for seed in TUNING_SEEDS for S in shots])) for lr in grid}
        tuned[key] = float(min(grid, key=lambda lr: scores[key][str(lr)]))
        log(f"stationarity tune {key}: {scores[key]} -> {tuned[key]}")
    return {"n_qubits": n, "steps": steps, "shots": list(shots), "seeds": list(seeds), "tail": steps // 3,
            "tuning_seeds": list(TUNING_SEEDS), "grid": list(grid), "tuned": tuned, "tuning_scores": scores,
            "optimizers": stationary_runs(ansatz, H, tuned, seeds, shots, steps)}


def stationary_runs(ansatz, H, tuned: dict, seeds, shots, steps: int) -> dict:
    """Each tuned optimiser, and the null, on the evaluation ``seeds``: per seed the starting norm, the settled norm
    at each shot count and the slope of log10 settled norm over log10 shots."""
    runs = {}
    for key in (*tuned, RANDOM_WALK):
        step = tuned["surrogate" if key == RANDOM_WALK else key]
        rows = []
        for seed in seeds:
            by_shots = {S: _stationary_run(ansatz, H, key, step, S, seed, steps) for S in shots}
            tails = [_settled(by_shots[S], steps) for S in shots]
            rows.append({"seed": seed, "initial": by_shots[shots[0]][0], "tail": tails,
                         "slope": float(np.polyfit(np.log10(shots), np.log10(tails), 1)[0])})
        runs[key] = {"step": step, "runs": rows}
        log(f"stationarity {key} (step {step}): slopes " + ", ".join(f"{r['slope']:+.2f}" for r in rows))
    return runs


def stationarity_confirm(stored: dict, seeds=STATIONARY_CONFIRM_SEEDS) -> dict:
    """The registered confirmatory run: the stored part's tuned steps (no tuning again), the same chain, shots and
    steps, on the fresh ``seeds``."""
    from core.quantum_ng import Chain

    n, steps, shots = stored["n_qubits"], stored["steps"], tuple(stored["shots"])
    ansatz = Ansatz(n, LAYERS, ("RY", "RZ"), ENTANGLER)
    return {**{k: stored[k] for k in ("n_qubits", "steps", "shots", "tail", "tuning_seeds", "grid", "tuned")},
            "seeds": list(seeds), "tuned_in": "stationary",
            "optimizers": stationary_runs(ansatz, Chain("heisenberg", n).hamiltonian(), stored["tuned"], seeds, shots,
                                          steps)}


def stationary_power(st: dict) -> tuple[float, int]:
    """The claim's test (log10 settled / start wholly below -1) on these seeds: its power at their mean, and the
    seeds it needs for 0.8 (what the confirmatory run was sized by)."""
    from core.common.calibration import observed_power

    runs = st["optimizers"]["surrogate"]["runs"]
    return observed_power([-1.0 - np.log10(x["tail"][-1] / x["initial"]) for x in runs])


def stationary_text(st: dict) -> tuple[str, str]:
    """The stationary part's figure and detail: each optimiser's tuned step, settled norms and slopes per seed."""
    def row(key):
        runs = st["optimizers"][key]["runs"]
        ratio = [np.log10(x["tail"][-1] / x["initial"]) for x in runs]
        return (f"{key} (step {st['optimizers'][key]['step']:g}): log10 settled / start at {st['shots'][-1]} shots "
                + interval_text(ratio) + ", slope over shots " + interval_text([x["slope"] for x in runs])
                + "; median settled norm " + ", ".join(f"{np.median([x['tail'][i] for x in runs]):.3g}"
                                                       for i in range(len(st["shots"]))))
    sur = st["optimizers"]["surrogate"]["runs"]
    figure = (f"surrogate: settled |∇E|² / start {interval_text([np.log10(x['tail'][-1] / x['initial']) for x in sur])} "
              f"(log10), slope over shots {interval_text([x['slope'] for x in sur])}")
    detail = (f"Each optimiser run {st['steps']} steps on the {st['n_qubits']}-qubit Heisenberg chain at "
              f"{', '.join(map(str, st['shots']))} shots per circuit (the surrogate's shadow 5 snapshots per shot), "
              f"its step tuned from {', '.join(f'{g:g}' for g in st['grid'])} on seeds "
              f"{', '.join(map(str, st['tuning_seeds']))} (mean log10 settled norm over those seeds and the shot "
              f"counts), judged on seeds {', '.join(map(str, st['seeds']))}: the exact squared gradient norm settled "
              f"over the last {st['tail']} steps, against its start, and its slope over log10 shots (95 % t "
              "intervals over seeds). " + "; ".join(row(k) for k in st["optimizers"]) + ". The abstract gives no "
              "radius to compare with, so the neighbourhood is judged against a tenth of the start and by how it "
              "shrinks as the noise falls; smoothness is not checked.")
    return figure, detail


def page_timings() -> dict:
    from bench.timing import page_timings as page_timings_of

    timings = page_timings_of("../pages/quantum_ng.py", 3)
    timings["first_view_warm"]["budget_s"], timings["first_view_cold"]["budget_s"] = 2.0, None
    return timings


def table(result: dict) -> str:
    a = result["args"]
    runs = result.get("runs") or [{"command": result["command"], "parts": "all", "seconds": result["seconds"]}]
    sc = scale_of(result)
    lines = ["Runs (each part comes from the last run that measured it; chains and sizes merge):", ""]
    lines += [f"- `{r['command']}`: {', '.join(r['parts']) if isinstance(r['parts'], list) else r['parts']}"
              + (f", {r['seconds'] / 60:.1f} min" if r.get("seconds") else "") for r in runs]
    lines += ["", "Times are CPU seconds of one process (OMP_NUM_THREADS=1) on a 2-core machine, wall seconds beside them "
              f"where shown. Ansatz: {LAYERS} layers "
              f"RY+RZ, {ENTANGLER} (local)."
              + (f" Reduced from the issue's scale (8, 12, 16 qubits, both chains, 5 seeds, budgets x 1): not run "
                 f"{', '.join(sc['missing']) or 'none'}; fewer seeds or shots: {', '.join(sc['short']) or 'none'}."
                 if sc.get("reduced") else " The issue's full scale."), "",
             "## VQE: energy error per cumulative shot (median over seeds)", "",
             "| chain | optimiser | error at 25 % | at 50 % | at 100 % of the budget | mean log10 error (area) | wins | steps | shots/step |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case, c in result["vqe"].items():
        for key, o in c["optimizers"].items():
            e = o["median_error"]
            lines.append(f"| {case} ({c['budget'] / 1e6:g} M shots) | {LABELS[key]} | {e['25%']:.3f} | {e['50%']:.3f} | "
                         f"{e['100%']:.3f} | {o['median_log_error_area']:.3f} | {c['wins'].get(key, '–')} | "
                         f"{int(np.median(o['steps']))} | {o['shots_per_step']:,} |")
    lines += ["", "Paper's claim (the surrogate has the lowest median log-error area):", ""]
    lines += [f"- {case}: best is {LABELS[c['best_by_median_area']]}; the surrogate ranks {c['surrogate_rank']} of 5; "
              f"claim {'holds' if c['surrogate_ahead'] else 'does not hold'}" for case, c in result["vqe"].items()]
    lines += ["", "## Metric: relative error of the surrogate (exact expectations) against the exact metric", "",
              "| qubits | ansatz | k | masked | unmasked | mask alone | active (nonzero) | active (≥ 50 % norm) | strings |",
              "|---|---|---|---|---|---|---|---|---|"]
    for n, per in result["metric"].items():
        for ans, m in per.items():
            for i, k in enumerate(m["k"]):
                lines.append(f"| {n} | {ans} ({m['role']}) | {k} | {m['error_masked'][i]:.3f} | {m['error_unmasked'][i]:.3f} | "
                             f"{m['error_mask'][i]:.3f} | {m['active_nonzero'][i]}/{m['n_params']} | "
                             f"{m['active_half_norm'][i]}/{m['n_params']} | {m['strings'][i]} |")
    lines += ["", "## Bias and variance against k at a fixed shot count (relative to ‖g‖², masked, brickwork)", "",
              "| qubits | T | k | bias² | variance (one-dataset estimate) | variance (empirical) | variance bound | MSE | MSE (empirical) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for n, t in result["tradeoff"].items():
        for i, k in enumerate(t["k"]):
            best = " **best**" if k == t["best_k_empirical"] else ""
            lines.append(f"| {n} | {t['snapshots']} | {k}{best} | {t['bias2'][i]:.3f} | {t['variance_estimate'][i]:.3f} | "
                         f"{t['variance_empirical'][i]:.3f} | {t['variance_bound'][i]:.3g} | {t['mse'][i]:.3f} | "
                         f"{t['mse_empirical'][i]:.3f} |")
    b = result["bound"]
    lines += ["", f"## Concentration bound ({b['n_qubits']} qubits, k = {b['k']}, T = {b['snapshots']}, "
              f"delta = {b['delta']}, {b['seeds']} seeds)", "",
              f"Radius {b['radius']:.3f} (‖g‖ = {b['metric_norm']:.3f}); the deviation from the truncated metric stays "
              f"under it on {b['share_within']:.0%} of the estimates; the empirical {1 - b['delta']:.0%} quantile is "
              f"{b['quantile_deviation']:.3f}, so the bound is {b['looseness']:.1f}x loose. Against the exact metric "
              f"(the misspecified target) it holds on {b['share_within_against_exact']:.0%}."]
    if "construction" in result:
        t = result["construction"]
        lines += ["", f"## Cost and accuracy at {t['n_qubits']} qubits, {t['n_params']} parameters, k = {t['k']}, "
                  f"T = {t['snapshots']} (everything counted)", "",
                  f"| path | {'CPU s' if t.get('clock') == 'cpu' else 'seconds (wall)'} | × the surrogate from one shadow | relative error | circuits on hardware |", "|---|---|---|---|---|"]
        for name, m in t["methods"].items():
            hw = "–" if m["hardware_circuits"] is None else f"{m['hardware_circuits']:,}"
            lines.append(f"| {name.replace('_', ' ')} | {m['seconds']:.3f} | {m['seconds_over_surrogate_shadow']:.2f} | "
                         f"{m['relative_error']:.3f} | {hw} |")
        lines += ["", "Surrogate from one shadow at each k: " + "; ".join(
            f"k = {p['k']}: {p['seconds']:.2f} s, error {p['relative_error']:.2f}" for p in t["surrogate_by_k"])]
    if "cell_cost" in result:
        cc = result["cell_cost"]
        lines += ["", f"## What one VQE cell costs at {cc['n_qubits']} qubits ({cc['model']}, {cc['n_params']} parameters, "
                  f"{cc['budget']:,} shots, one step timed in CPU seconds)", "",
                  "| optimiser | CPU s a step | shots a step | steps in the budget | CPU s a cell |", "|---|---|---|---|---|"]
        lines += [f"| {LABELS[k]} | {o['step_seconds']:.1f} | {o['shots_per_step']:,} | {o['steps']} | {o['cell_seconds']:.0f} |"
                  for k, o in cc["optimizers"].items()]
        untimed = [LABELS[k] for k in OPTIMIZERS if k not in cc.get("timed", OPTIMIZERS)]
        lines += ([""] + [f"Not timed: {', '.join(untimed)}; counted at the cheapest timed cell (each pays the same "
                          "parameter-shift gradient)."] if untimed else [])
        lines += ["", f"The comparison at this size ({cc['cells']} cells: 5 optimisers x 2 chains x seeds) would take "
                  f"{cc['comparison_seconds'] / 3600:.1f} CPU hours on one core here."]
    if "page" in result:
        lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
        lines += [f"| {k} | {v['median_s']:.3f} | {v['ratio_to_anchor']:.2f} |" for k, v in result["page"].items()
                  if k != "anchor_first_render"]
    lines += ["", f"Step sizes tuned on seeds {', '.join(map(str, TUNING_SEEDS))} at {a['tune_qubits']} qubits: " +
              "; ".join(f"{m}: " + ", ".join(f"{k} {v:g}" for k, v in s.items()) for m, s in result["tuning"].items())]
    return "\n".join(lines) + "\n"


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 12, 16], help="chain lengths for VQE and metrics")
    parser.add_argument("--seeds", type=int, default=5, help="evaluation seeds 0..N-1")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS),
                        help="chains for tuning and VQE (a partial run merges its chains into the stored ones)")
    parser.add_argument("--cost-qubits", type=int, default=0,
                        help="time one step of every optimiser at this size and extrapolate a full cell (0: skip)")
    parser.add_argument("--budget-scale", type=float, default=1.0, help="multiplies every shot budget")
    parser.add_argument("--tune-qubits", type=int, default=6)
    parser.add_argument("--tune-grid", type=float, nargs="+", default=list(GRID))
    parser.add_argument("--cost-optimizers", nargs="+", choices=OPTIMIZERS, default=list(OPTIMIZERS),
                        help="the optimisers whose step --cost-qubits times")
    parser.add_argument("--construct-qubits", type=int, default=16, help="size of the cost comparison (0: skip)")
    parser.add_argument("--snapshots", type=int, default=500, help="T for the trade-off and the cost comparison")
    parser.add_argument("--variance-repeats", type=int, default=50, help="independent shadows for the empirical variance")
    parser.add_argument("--bound-seeds", type=int, default=200)
    parser.add_argument("--no-page", action="store_true", help="skip the page timings")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=None,
                        help="recompute only these parts, keeping the rest of bench/results/quantum_ng.json")
    parser.add_argument("--quick", action="store_true", help="6 qubits, 2 seeds, small budgets, printed only")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.seeds, args.budget_scale, args.construct_qubits, args.cost_qubits = [6], 2, 0.2, 8, 0
        args.variance_repeats, args.bound_seeds, args.no_page, args.tune_grid = 10, 40, True, [0.1, 0.4]
    for n in args.sizes:
        if n not in BUDGETS:
            raise SystemExit(f"--sizes: {n} has no budget; allowed {', '.join(map(str, BUDGETS))}")
    return args


KEYED = ("tuning", "metric", "tradeoff", "qfim_target", "vqe", "vqe_confirm", "vqe_start")   # parts keyed by chain and size: a partial run merges into them
FULL_SCALE = {"sizes": (8, 12, 16), "seeds": 5, "budget_scale": 1.0}


def case_name(model: str, n: int) -> str:
    return f"{model} {n}q"


def than(ratio: float) -> str:
    """How the surrogate's time compares with a path that takes ``ratio`` times as long: "18.6× less than",
    or "3.3× more than" where the path is the faster one."""
    return f"{ratio:.1f}× less than" if ratio >= 1 else f"{1 / ratio:.1f}× more than"


def _size_order(key: str):
    """Sort key of a keyed part's entry: "heisenberg 8q" (vqe), "8" (metric, tradeoff), "tfim" (tuning)."""
    model, _, n = key.rpartition(" ")
    if model:
        return int(n.rstrip("q")), model
    return (int(key), "") if key.isdigit() else (0, key)


def merge_into_stored(fresh: dict, parts: set, run: dict, path: Path) -> dict:
    """The stored results with this run's parts merged in: chain/size-keyed parts entry by entry, the rest whole.

    The stored file is read here, just before writing, so partial runs of disjoint chains and sizes
    (``--only vqe --sizes 12 --models tfim``) can run side by side and each adds its entries.
    """
    stored = json.loads(path.read_text()) if path.exists() else {}
    merged = {k: v for k, v in stored.items() if k not in ("claims", "verdicts", "measured_at")}
    made_by = merged.setdefault("made_by", {})   # part (or "part entry") -> the command that measured it
    for part in PARTS:
        if part in KEYED:
            for key in merged.get(part, {}):
                made_by.setdefault(f"{part} {key}", stored.get("command"))
        elif part in merged:
            made_by.setdefault(part, stored.get("command"))
    for part in parts:
        if part not in fresh:
            continue
        if part in KEYED:
            entries = {**merged.get(part, {}), **{str(k): v for k, v in fresh[part].items()}}
            merged[part] = dict(sorted(entries.items(), key=lambda kv: _size_order(kv[0])))
            made_by.update({f"{part} {k}": run["command"] for k in fresh[part]})
        else:
            merged[part] = fresh[part]
            made_by[part] = run["command"]
    legacy = [{"command": stored["command"], "parts": "all", "seconds": stored.get("seconds")}] if (
        "command" in stored and "runs" not in stored) else []
    merged["runs"] = stored.get("runs", legacy) + [run]
    return merged


def scale_of(result: dict) -> dict:
    """What the VQE comparison covered against the issue's scale (8, 12, 16 qubits, both chains, 5 seeds, budgets x 1)."""
    vqe = result.get("vqe", {})
    missing, short = [], []
    for n in FULL_SCALE["sizes"]:
        for model in MODELS:
            c = vqe.get(case_name(model, n))
            if c is None:
                missing.append(case_name(model, n))
            elif len(c["seeds"]) < FULL_SCALE["seeds"] or c.get("budget_scale", c["budget"] / BUDGETS[n]) < 1:
                short.append(case_name(model, n))
    return {"reduced": bool(missing or short), "missing": missing, "short": short}


def main(argv=None) -> int:
    args = parse(argv)
    t_start = time.perf_counter()
    seeds = list(range(args.seeds))
    budgets = {n: max(1_000, int(BUDGETS[n] * args.budget_scale)) for n in args.sizes}
    command = " ".join(["python bench/quantum_ng.py", *(argv if argv is not None else sys.argv[1:])])
    path = RESULTS
    parts = set(args.only or PARTS)
    stored = {}
    if args.only and path.exists():   # the parts not recomputed (the tuned step sizes among them) come from the file
        stored = json.loads(path.read_text())
    result = {k: v for k, v in stored.items() if k not in ("claims", "verdicts", "measured_at")}
    tune_budget = max(1_000, int(BUDGETS[6] * args.budget_scale))
    tuning_base = dict(n_qubits=args.tune_qubits, layers=LAYERS, budget=tune_budget)
    if "tuning" in parts:
        result["tuning"] = {m: tune(m, tuning_base, tuple(args.tune_grid)) for m in args.models}
    if "metric" in parts:
        result["metric"] = {n: metric_accuracy(n) for n in args.sizes}
    if "tradeoff" in parts:
        result["tradeoff"] = {n: tradeoff(n, args.snapshots, args.variance_repeats) for n in args.sizes}
    if "tradeoff_product" in parts:   # k_bias_variance's null: a product-state ansatz, 8 qubits
        result["tradeoff_product"] = {8: tradeoff(8, args.snapshots, args.variance_repeats, entangler="none")}
    if "vqe_cells" in parts:
        result["vqe_cells"] = [row for grid in VQE_CONFIRM_GRIDS for row in sweep_values(KEY, grid)[0]]
    if "qfim_target" in parts:
        from bench.quantum_ng_target import qfim_target

        result["qfim_target"] = {n: qfim_target(n, target_k(result, n), args.snapshots, LAYERS, ENTANGLER, log=log)
                                 for n in args.sizes}
    if "target_trend" in parts:
        from bench.quantum_ng_target import shots_trend

        result["target_trend"] = shots_trend(sweep_values(KEY, "target_shots")[0])
    for grid in {"shot_frontier", "shot_frontier_k"} & parts:   # the first look, and the registered run that decides
        from bench.quantum_ng_budget import shot_frontier

        result[grid] = shot_frontier(sweep_values(KEY, grid)[0], log=log)
    if "bound" in parts:
        result["bound"] = bound_check(n=min(8, max(args.sizes)), snapshots=args.snapshots, seeds=args.bound_seeds)
    if "bound_grid" in parts:
        from bench.quantum_ng_bound import bound_grid

        result["bound_grid"] = bound_grid(min(8, max(args.sizes)), LAYERS, ENTANGLER, seeds=args.bound_seeds, log=log)
    if "construction" in parts and args.construct_qubits:
        result["construction"] = construction_time(args.construct_qubits, 2, args.snapshots)
    if "vqe" in parts:
        result["vqe"] = {}
        for n in args.sizes:
            for m in args.models:
                case = compare(m, n, budgets[n], result["tuning"][m], seeds)
                case["budget_scale"] = args.budget_scale
                result["vqe"][case_name(m, n)] = case
    if "vqe_confirm" in parts:
        result["vqe_confirm"] = {case_name(m, n): {**compare(m, n, budgets[n], result["tuning"][m], VQE_CONFIRM_SEEDS),
                                                   "budget_scale": args.budget_scale}
                                 for n in args.sizes for m in args.models}
    if "vqe_start" in parts:
        result["vqe_start"] = {case: start_errors(case, c) for case, c in result["vqe"].items()}
    if "cell_cost" in parts and args.cost_qubits:
        result["cell_cost"] = cell_cost(args.cost_qubits, result["tuning"]["heisenberg"], args.seeds,
                                        optimizers=tuple(args.cost_optimizers))
    if "stationary" in parts:
        result["stationary"] = stationarity(seeds=STATIONARY_SEEDS[:2] if args.quick else STATIONARY_SEEDS,
                                            steps=30 if args.quick else 40)
    if "stationary_confirm" in parts and not args.quick:
        result["stationary_confirm"] = stationarity_confirm(result["stationary"])
    if "page" in parts and not args.no_page:
        result["page"] = page_timings()
    run = {"command": command, "parts": sorted(parts), "sizes": args.sizes, "models": list(args.models),
           "seeds": args.seeds, "budget_scale": args.budget_scale, "seconds": time.perf_counter() - t_start}
    if not args.quick:
        result = merge_into_stored(result, parts, run, path)
    result["args"] = vars(args)
    result["command"] = command
    result["seconds"] = sum(r.get("seconds") or 0.0 for r in result.get("runs", [run]))
    scale = scale_of(result)
    result["reduced"], result["scale"] = scale["reduced"], scale
    result["seeds"] = sorted({s for c in result.get("vqe", {}).values() for s in c["seeds"]})
    result["sizes"] = {n: {"layers": LAYERS, "budget": c["budget"], "budget_scale": c.get("budget_scale")}
                       for key, c in result.get("vqe", {}).items() for n in [key.rpartition(" ")[2].rstrip("q")]}
    checks = {"surrogate_exact_at_full_weight": all(
        per[a]["error_unmasked"][-1] < 1e-9 for per in [metric_accuracy(4)] for a in per)}
    if "construction" in result:
        c = result["construction"]
        checks["exact_metric_matches_adjoint_metric_tensor"] = c["exact_matches_adjoint"] < 1e-8
    checks["bound_holds_at_its_confidence"] = result["bound"]["share_within"] >= 1 - result["bound"]["delta"]
    if "page" in result:
        checks["first_view_warm_under_2s"] = result["page"]["first_view_warm"]["median_s"] < 2.0
    result["checks"] = checks
    result["claim"] = {case: c["surrogate_ahead"] for case, c in result["vqe"].items()}
    result["vqe_trend"] = vqe_trend(result)
    if args.quick:
        print(table(result))
        for v in verdicts(result):
            print(f"- {v.claim_id}: {v.status}: {v.figure}")
        return 0
    return write_results("quantum_ng", result, table(result), verdicts=verdicts)


KEY = "quantum_ng"
COMMAND = "python bench/quantum_ng.py"


def lead_kind(lead: list) -> str:
    """A paired lead's reading with the tie band: ahead or behind (interval clear of 0), a tie (inside the band),
    else undecided."""
    from core.common.decisions import PairedT
    from core.quantum_ng.claims import TIE_BAND

    out = PairedT(0.0).decide(lead)
    if out.low > 0:
        return "ahead"
    if out.high < 0:
        return "behind"
    return "tie" if -TIE_BAND < out.low and out.high < TIE_BAND else "undecided"


def per_shot_text(result: dict, ranks: str, scale: str, ahead: int, chains: int) -> tuple[str, str]:
    """The per-shot claim's figure (the judged seeds' paired leads, read with the tie band) and its detail."""
    from core.quantum_ng.claims import TIE_BAND, VQE_JUDGED, judged_cases, seed_leads

    cases = judged_cases(result)
    kinds = {(name, k): lead_kind(seed_leads(c, k)) for name, c in cases.items() for k in ("sgd", "adam", "block_qng", "rng")}
    count = {k: sum(v == k for v in kinds.values()) for k in ("ahead", "tie", "undecided", "behind")}
    seeds = sorted({s for c in cases.values() for s in c["seeds"]})
    per_chain = "; ".join(f"{name}: " + ", ".join(f"{LABELS[k]} {interval_text(seed_leads(c, k), 3)} ({kinds[(name, k)]})"
                                                 for k in ("sgd", "adam", "block_qng", "rng"))
                          for name, c in cases.items())
    figure = (f"surrogate ahead in {count['ahead']}, tied in {count['tie']}, undecided in {count['undecided']}, "
              f"behind in {count['behind']} of {len(kinds)} chain-baseline pairs")
    trend = result.get("vqe_trend", {}).get("trend", [])
    detail = (f"Each baseline's log-error area (mean log10 energy error over the shot budget, brickwork ansatz, every "
              f"shot counted, step sizes tuned on separate seeds) minus the surrogate's, paired by seed (seeds "
              f"{', '.join(map(str, seeds))}{', the registered fresh ones' if VQE_JUDGED in result and cases is result[VQE_JUDGED] else ''}): "
              f"95 % t interval; ahead or behind where it clears 0, a tie inside ±{TIE_BAND:g} decades. {per_chain}. "
              + ("As the chain grows (qubits: surrogate steps in the budget, lead over SGD, over block-diagonal QNG): "
                 + "; ".join(f"{n}: {st:.0f}, {a:+.3f}, {b:+.3f}" for n, st, a, b in trend) + ". " if trend else "")
              + f"The earlier reading (lowest median area; {ahead} of {chains} chains): {ranks}. Scale: {scale}. RNG "
              "uses a global Haar unitary up to 10 qubits, local Haar gates above.")
    return figure, detail


def describe(result: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``result`` alone; its rule in
    ``core.quantum_ng.claims`` decides its status."""
    scale = "; ".join(f"{case} {len(c['seeds'])} seeds, {c['budget']:,} shots"
                      + (f" ({int(np.median(c['optimizers']['surrogate']['steps']))} surrogate steps)"
                         if c["optimizers"]["surrogate"].get("steps") else "")
                      for case, c in result["vqe"].items())
    sc = scale_of(result)
    if sc.get("reduced"):
        scale += " (reduced from the issue's 8/12/16 qubits, 5 seeds, full budgets"
        scale += f"; not run: {', '.join(sc['missing'])}" if sc.get("missing") else ""
        cost = result.get("cell_cost")
        if cost and sc.get("missing"):
            scale += (f"; measured here in CPU time, one {cost['n_qubits']}-qubit cell takes "
                      f"{min(o['cell_seconds'] for o in cost['optimizers'].values()) / 60:.1f} to "
                      f"{max(o['cell_seconds'] for o in cost['optimizers'].values()) / 60:.1f} min and the "
                      f"{cost['cells']} cells {cost['comparison_seconds'] / 3600:.1f} CPU hours")
        scale += ")"
    ahead = result["claim"]

    def rank(case: str, c: dict) -> str:
        areas = {k: o["median_log_error_area"] for k, o in c["optimizers"].items()}
        other = min((k for k in areas if k != "surrogate"), key=areas.get)
        return (f"{case}: surrogate {c['surrogate_rank']} of 5, best {LABELS[c['best_by_median_area']]} "
                f"(area {areas['surrogate']:.3f} against {LABELS[other]}'s {areas[other]:.3f}; lowest on "
                f"{c['wins'].get('surrogate', 0)} of {len(c['seeds'])} seeds)")

    ranks = "; ".join(rank(case, c) for case, c in result["vqe"].items())
    out = {"per_shot_convergence": per_shot_text(result, ranks, scale, sum(ahead.values()), len(ahead))}

    c = result.get("construction")
    out["targets_qfim"] = (
        "surrogate at k = n against the exact metric" + (f"; exact metric = qml.adjoint_metric_tensor to "
                                                         f"{c['exact_matches_adjoint']:.0e}" if c else ""),
        "With every Pauli string kept (k = n, no mask, exact expectations) the surrogate is compared with the exact "
        "metric (4 qubits, both ansätze, when the bench ran)" + (f", and our exact metric with PennyLane's adjoint "
                                                                 f"metric tensor at {c['n_qubits']} qubits (largest "
                                                                 f"difference {c['exact_matches_adjoint']:.0e})"
                                                                 if c else "")
        + ". The support-overlap mask is exact only on product states: on brickwork it alone removes " + ", ".join(
            f"{m['brickwork']['error_mask'][-1]:.2f} at {q} qubits" for q, m in result["metric"].items())
        + " of ‖g‖ at k = 4.")
    if "qfim_target" in result:
        from bench.quantum_ng_target import target_text

        figure, detail = target_text(result)
        out["targets_qfim"] = (figure, detail + " " + out["targets_qfim"][1])

    tr = result["tradeoff"]
    ratio = {q: [e / v for e, v in zip(t["variance_estimate"], t["variance_empirical"]) if v > 0] for q, t in tr.items()}
    out["k_bias_variance"] = (
        "k = 1 → 4: " + "; ".join(f"{q} qubits bias² {t['bias2'][0]:.2f} → {t['bias2'][-1]:.2f}, variance "
                                   f"{t['variance_empirical'][0]:.3f} → {t['variance_empirical'][-1]:.3f}"
                                   for q, t in tr.items()),
        "At T = " + ", ".join(f"{t['snapshots']}" for t in list(tr.values())[:1]) + " snapshots: "
        + "; ".join(f"{q} qubits bias² " + " → ".join(f"{b:.2f}" for b in t["bias2"]) + ", variance "
                    + " → ".join(f"{v:.3f}" for v in t["variance_empirical"]) + f" (empirical over {t['repeats']} "
                    f"shadows), best k by MSE {t['best_k_empirical']}" for q, t in tr.items())
        + " over k = " + ", ".join(f"{k}" for k in list(tr.values())[0]["k"]) + ". The one-dataset variance "
        "estimate over the empirical one: " + "; ".join(f"{q} qubits {min(r):.2f} to {max(r):.2f}"
                                                       for q, r in ratio.items() if r) + ".")
    for q, t in result.get("tradeoff_product", {}).items():   # the null: nothing beyond weight 1 to capture
        figure, detail = out["k_bias_variance"]
        out["k_bias_variance"] = (figure, detail + f" Null, a product-state ansatz ({q} qubits, no entangler): bias² "
                                  + " → ".join(f"{b:.2g}" for b in t["bias2"]) + ", variance "
                                  + " → ".join(f"{v:.3f}" for v in t["variance_empirical"])
                                  + ": flat, as no structure lies beyond weight 1.")

    if c:
        m = c["methods"]
        sur = m["surrogate_shadow"]
        faster_adjoint = m["adjoint_metric_tensor"]["seconds"] / sur["seconds"]
        vs_exact = m["exact_ours"]["seconds"] / sur["seconds"]
        vs_block = m["block_diag_metric_tensor"]["seconds"] / sur["seconds"]
        unit = "CPU s" if c.get("clock") == "cpu" else "s (wall)"
        out["practical_estimation"] = (
            f"{faster_adjoint:.0f}× faster than qml.adjoint_metric_tensor, error {sur['relative_error']:.2f}",
            f"At {c['n_qubits']} qubits, k = {c['k']}, T = {c['snapshots']}, state and shadow production counted: the "
            f"surrogate from one shadow takes {sur['seconds']:.2f} {unit}, {than(faster_adjoint)} the adjoint metric "
            f"tensor, {than(vs_exact)} our exact metric and {than(vs_block)} block-diagonal metric_tensor on lightning "
            f"(error {m['block_diag_metric_tensor']['relative_error']:.2f} against the surrogate's "
            f"{sur['relative_error']:.2f}). Every path, {unit} and metric error: "
            + "; ".join(f"{name.replace('_', ' ')} {o['seconds']:.2f}, {o['relative_error']:.2f}" for name, o in m.items())
            + f". On hardware it needs {c['snapshots']} single-shot snapshots against "
            f"{m['exact_ours']['hardware_circuits']:,} circuits for the full QFIM.")
    else:
        out["practical_estimation"] = ("", "This run skipped the cost comparison (--construct-qubits 0).")
    if "shot_frontier" in result:
        from bench.quantum_ng_budget import frontier_text

        from core.quantum_ng.claims import FRONTIER_JUDGED

        figure, detail = frontier_text(result)
        if FRONTIER_JUDGED in result:   # the registered run with k per budget decides; the first look follows
            figure, judged = frontier_text(result, FRONTIER_JUDGED)
            detail = (f"Registered after the first look, with k chosen per budget from the tradeoff section's point 0, "
                      f"on fresh points (it decides): {judged} First look, k fixed at its T = 500 choice: {detail}")
        out["practical_estimation"] = (figure, detail + " In CPU seconds of simulation (a reference): "
                                       + out["practical_estimation"][1])

    from bench.quantum_ng_bound import bound_text

    out["concentration_bound"] = bound_text(result)
    st = result.get("stationary")
    if st and "optimizers" in st:
        confirm = result.get("stationary_confirm")
        figure, detail = stationary_text(confirm or st)
        if confirm:
            first = stationary_text(st)
            power, needed = stationary_power(st)
            detail = (f"Confirmatory seeds {', '.join(map(str, confirm['seeds']))}, registered after the first look "
                      f"and run with its tuned steps (they decide): {detail} First look (section stationary, seeds "
                      f"{', '.join(map(str, st['seeds']))}; power {power:.2f} against a tenth of the start at its "
                      f"mean, {needed} seeds for 0.8): {first[0]}.")
        out["stationary_convergence"] = (figure, detail)
    else:
        out["stationary_convergence"] = ("", "This run skipped the long runs (the stationary part).")
    return out


def command(result: dict) -> str:
    """The commands that made the stored runs (``made_by``), else the bench's own."""
    made_by = [c for c in dict.fromkeys((result.get("made_by") or {}).values()) if c]
    return " && ".join(made_by) if made_by else result.get("command", COMMAND)


verdicts = judged(KEY, describe, command)

if __name__ == "__main__":
    sys.exit(main())
