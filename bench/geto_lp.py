"""geto_lp at scale: the layered LP against POT's classical LP and entropic barycenters on 2-D grids.

- Grids 16², 24², 32², 48², 64² with M = 3 inputs (scikit-learn digits 0, 3 and 8, upsampled),
  squared Euclidean cost, uniform weights. Every solver call runs in a fresh Python process, so
  its time and memory are its own: time is the call's wall clock; memory is the rise of the
  process's peak RSS during the call (``core.geto_lp.measured``, HiGHS included) and the
  process's lifetime peak RSS (``ru_maxrss``, imports included).
- GETO-LP: one ``barycenter(..., solver="highs-ipm", return_plans=True)`` call; its time is the
  whole call (validation, LP build, HiGHS, plan recovery; each part is recorded too), and its
  barycenter is re-scored with ``ot.emd2`` (N <= 4096, every grid here).
- POT's classical LP where it fits (M N^2 + N <= 1.2 M variables, i.e. up to 24²); beyond, the
  reason is recorded.
- Entropic: POT's convolutional barycenter at reg 0.01 and 0.002 on every grid, and the dense
  ``ot.bregman.barycenter`` at reg 0.01 up to 32² (its N x N kernel); each scored exactly with
  ``ot.emd2``, so the gap to GETO-LP's optimum is exact.
- The page: its first view (cold process, and after the shell's warm-up) next to an anchor.

- The null of memory_and_speed (``--line-null``): the digits' masses on a line of 256 and 576 points
  (d = 1, where GETO-LP has the classical variable count), GETO-LP against POT's LP in fresh processes.
- Applications (``--applications``, bench/geto_lp_applications.py): 3-D volumes and colour palettes,
  GETO-LP against the classical LP solved tightly (POT's LP reported) and the Euclidean average,
  measured alone and merged in.

    python bench/geto_lp.py                  # writes bench/results/geto_lp.json and .md (about 10 minutes on 2 cores)
    python bench/geto_lp.py --applications   # only the applications section (about 8 minutes on 2 cores)
    python bench/geto_lp.py --line-null      # only memory_and_speed's null, d = 1 (about 8 minutes)
"""

from __future__ import annotations

import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import judged, write_results  # noqa: E402

GRIDS = (16, 24, 32, 48, 64)
DIGITS = (0, 3, 8)
POT_LP_MAX_VARIABLES = 1_200_000
DENSE_GRIDS = (16, 24, 32)     # dense random inputs against POT's LP, 32² included (3.1 M variables)
DENSE_POT_MAX_VARIABLES = 3_200_000
DENSE_SEED = 18
DENSE_SINKHORN_MAX_N = 32
PAGE = "../pages/geto_lp.py"


def inputs(n: int, kind: str = "digits", seed: int = DENSE_SEED):
    """The bench's M = 3 inputs on an n x n grid: upsampled digits, or dense random images (seeded)."""
    import numpy as np

    from core.common.seeding import derive_rng
    from core.geto_lp import digit_image

    if kind == "dense":   # every pixel carries mass: the hardest case for absolute solver tolerances
        return derive_rng(seed, n).random((len(DIGITS), n, n)) + 1e-3
    if kind == "line":    # the same masses on a line of n * n points: d = 1, where GETO-LP has the classical count
        return np.stack([digit_image(d, n).reshape(-1) for d in DIGITS])
    return np.stack([digit_image(d, n) for d in DIGITS])


def run_case(case: dict) -> dict:
    """One solver on one grid, in this (fresh) process."""
    from core.geto_lp import barycenter, measured, run_method

    hist = inputs(case["n"], case.get("inputs", "digits"), case.get("seed", DENSE_SEED))
    method = case["method"]
    if method == "geto_lp":
        run = measured(barycenter, hist, solver="highs-ipm", return_plans=True)
        result, seconds, rise = run.value, run.seconds, run.peak_memory_mb
        out = {"seconds": seconds, "rss_rise_mb": rise, "objective": result.objective,
               "n_variables": result.n_variables, "n_constraints": result.n_constraints,
               "build_seconds": result.build_seconds, "solve_seconds": result.solve_seconds,
               "recover_plans_seconds": result.recover_seconds, "iterations": result.iterations,
               "plan_nonzeros": [int(p.nnz) for p in result.plans]}
        if case["score"]:
            from core.geto_lp import exact_objective

            t0 = time.perf_counter()
            out["emd2_objective"] = exact_objective(hist, result.barycenter)
            out["emd2_seconds"] = time.perf_counter() - t0
    else:
        run = run_method(method, hist, reg=case.get("reg", 0.01),
                         pot_max_variables=case.get("pot_max_variables", POT_LP_MAX_VARIABLES))
        out = {"status": run.status, "seconds": run.seconds, "rss_rise_mb": run.peak_memory_mb,
               "objective": run.objective, "reported_objective": run.reported_objective,
               "n_variables": run.n_variables}
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}


# The sweep for bench/run.py (python -m bench.run geto_lp [--grid full] [--engine ray]): every solver on every
# grid as an independent cell, digits and seeded dense inputs; the same cases main() runs one process each.
SWEEP_GRIDS = ("small", "medium", "full")
SWEEP_SEEDS = {"small": (1, 2), "medium": (DENSE_SEED, 19, 20), "full": (DENSE_SEED, 19, 20)}
SWEEP_SIZES = {"small": ((6, 8), (6,)), "medium": ((12, 16, 20), (12, 16)), "full": (GRIDS, DENSE_GRIDS)}
MEASURED = ("seconds", "rss_rise_mb", "peak_rss_mb", "build_seconds", "solve_seconds", "recover_plans_seconds",
            "emd2_seconds")


def sweep(grid: str) -> list:
    """The cells of a sweep grid: ``small`` (6² and 8², seconds in all), ``medium`` (12² to 20², about a minute
    here: the size at which engines are compared) or ``full`` (the bench's grids)."""
    from bench.run import Cell

    sizes, dense_sizes = SWEEP_SIZES[grid]
    cells = []
    for n in sizes:
        cells.append(Cell(f"digits-{n:02d}-geto_lp", {"method": "geto_lp", "n": n, "score": True}))
        if len(DIGITS) * n**4 + n * n <= POT_LP_MAX_VARIABLES:
            cells.append(Cell(f"digits-{n:02d}-pot_lp", {"method": "pot_lp", "n": n}))
        for reg in {"small": (0.05,), "medium": (0.01,), "full": (0.01, 0.002)}[grid]:
            cells.append(Cell(f"digits-{n:02d}-convolutional-{reg}", {"method": "convolutional", "n": n, "reg": reg}))
    for n in dense_sizes:
        for seed in SWEEP_SEEDS[grid]:
            for method in ("geto_lp", "pot_lp"):
                params = {"method": method, "n": n, "inputs": "dense", "score": method == "geto_lp",
                          "pot_max_variables": DENSE_POT_MAX_VARIABLES}
                cells.append(Cell(f"dense-{n:02d}-seed{seed}-{method}", params, seed))
    return cells


def run_cell(cell):
    """One cell in this process: the solver's numbers as ``values``, its time and memory as ``measured``."""
    from bench.run import CellOutput

    case = dict(cell.params, **({"seed": cell.seed} if cell.seed is not None else {}))
    out = run_case(case)
    return CellOutput(values={k: v for k, v in out.items() if k not in MEASURED},
                      measured={k: v for k, v in out.items() if k in MEASURED})


def in_subprocess(case: dict) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--case", json.dumps(case)], cwd=ROOT, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        return {"status": f"failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def grid_results() -> dict:
    out = {}
    for n in GRIDS:
        m, big_n = len(DIGITS), n * n
        row = {"N": big_n, "geto_variables": m * big_n * 2 * n + big_n, "classical_variables": m * big_n**2 + big_n}
        print(f"{n}x{n}: GETO-LP ...", flush=True)
        row["geto_lp"] = in_subprocess({"method": "geto_lp", "n": n, "score": True})
        if row["classical_variables"] <= POT_LP_MAX_VARIABLES:
            print(f"{n}x{n}: POT classical LP ...", flush=True)
            row["pot_lp"] = in_subprocess({"method": "pot_lp", "n": n})
        else:
            row["pot_lp"] = {"status": f"skipped: the classical LP needs M N^2 + N = {row['classical_variables']:,} "
                                       f"variables (limit {POT_LP_MAX_VARIABLES:,}: at 24x24 it already takes "
                                       "the time and memory recorded above)"}
        for reg in (0.01, 0.002):
            print(f"{n}x{n}: convolutional reg {reg} ...", flush=True)
            row[f"convolutional_{reg}"] = in_subprocess({"method": "convolutional", "n": n, "reg": reg})
        if n <= DENSE_SINKHORN_MAX_N:
            print(f"{n}x{n}: dense Sinkhorn ...", flush=True)
            row["sinkhorn_0.01"] = in_subprocess({"method": "sinkhorn", "n": n, "reg": 0.01})
        else:
            row["sinkhorn_0.01"] = {"status": f"skipped: the dense N x N kernel beyond {DENSE_SINKHORN_MAX_N}² "
                                              "(the convolutional rows solve the same entropic problem)"}
        exact = row["geto_lp"].get("objective")
        for key, run in row.items():
            if isinstance(run, dict) and key != "geto_lp" and exact and run.get("status") == "ok":
                run["gap_to_exact"] = (run["objective"] - exact) / exact
        out[f"{n}x{n}"] = row
    return out


def dense_results() -> dict:
    """Dense random inputs: GETO-LP against POT's classical LP up to 32², where tolerances bite."""
    out = {}
    for n in DENSE_GRIDS:
        print(f"{n}x{n} dense: GETO-LP and POT's LP ...", flush=True)
        geto = in_subprocess({"method": "geto_lp", "n": n, "score": True, "inputs": "dense"})
        pot = in_subprocess({"method": "pot_lp", "n": n, "inputs": "dense", "pot_max_variables": DENSE_POT_MAX_VARIABLES})
        row = {"geto_lp": geto, "pot_lp": pot}
        if geto.get("objective") and geto.get("emd2_objective"):
            row["rescoring_gap"] = (geto["emd2_objective"] - geto["objective"]) / geto["objective"]
        if geto.get("objective") and pot.get("status") == "ok":     # POT's barycenter, rescored with ot.emd2
            row["relative_gap"] = (geto["objective"] - pot["objective"]) / pot["objective"]
            row["speed_up"] = pot["seconds"] / geto["seconds"]
        out[f"{n}x{n}"] = row
    return out


def page() -> dict:
    from bench.timing import page_timings

    timings = page_timings(PAGE, repeats=3)
    timings["first_view_warm"]["budget_s"], timings["first_view_cold"]["budget_s"] = 2.0, None
    return timings


def default_solve() -> dict:
    """The page's default problem (digits 0 and 3 on 12 x 12), solved five times in this process."""
    import numpy as np

    from core.geto_lp import barycenter, digit_image

    hist = np.stack([digit_image(d, 12) for d in (0, 3)])
    barycenter(hist)  # imports and first-call costs
    times = [barycenter(hist, return_plans=True).solve_seconds for _ in range(5)]
    return {"median_solve_s": sorted(times)[2], "samples_s": times}


def fmt(value, spec=".3f"):
    return format(value, spec) if isinstance(value, (int, float)) else "—"


def table(result: dict) -> str:
    lines = ["| grid | GETO vars | classical vars | GETO time (s) | GETO RSS rise (MB) | POT LP time (s) | "
             "POT RSS rise (MB) | speed-up | exact objective | conv. gap (reg 0.01) | conv. gap (reg 0.002) | "
             "Sinkhorn gap (0.01) |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for grid, row in result["grids"].items():
        g, p = row["geto_lp"], row["pot_lp"]
        speed = p["seconds"] / g["seconds"] if "seconds" in p and p.get("status") == "ok" else None
        pot_time = fmt(p.get("seconds")) if p.get("status") == "ok" else "skipped"
        lines.append(
            f"| {grid} | {row['geto_variables']:,} | {row['classical_variables']:,} | {fmt(g.get('seconds'), '.2f')} | "
            f"{fmt(g.get('rss_rise_mb'), '.0f')} | {pot_time} | {fmt(p.get('rss_rise_mb'), '.0f')} | "
            f"{fmt(speed, '.1f')}{'×' if speed else ''} | {fmt(g.get('objective'), '.6f')} | "
            f"{fmt(row['convolutional_0.01'].get('gap_to_exact'), '+.2%')} | "
            f"{fmt(row['convolutional_0.002'].get('gap_to_exact'), '+.2%')} | "
            f"{fmt(row['sinkhorn_0.01'].get('gap_to_exact'), '+.2%')} |")
    lines += ["", "Skipped runs: " + "; ".join(f"{grid} {key}: {run['status']}" for grid, row in result["grids"].items()
                                               for key, run in row.items()
                                               if isinstance(run, dict) and str(run.get("status", "")).startswith(
                                                   ("skipped", "failed"))), ""]
    lines += ["Dense random inputs (3 images, every pixel with mass), GETO-LP against POT's classical LP:", "",
              "| grid | GETO objective | its plans rescored (ot.emd2) | POT LP, rescored | POT LP, reported | "
              "gap to POT | GETO time (s) | POT LP time (s) | speed-up |",
              "|---|---|---|---|---|---|---|---|---|"]
    for grid, row in result.get("dense", {}).items():
        g, p = row["geto_lp"], row["pot_lp"]
        lines.append(f"| {grid} | {fmt(g.get('objective'), '.9f')} | {fmt(g.get('emd2_objective'), '.9f')} | "
                     f"{fmt(p.get('objective'), '.9f')} | {fmt(p.get('reported_objective'), '.9f')} | "
                     f"{fmt(row.get('relative_gap'), '+.1e')} | {fmt(g.get('seconds'), '.2f')} | "
                     f"{fmt(p.get('seconds'), '.1f') if p.get('status') == 'ok' else p.get('status', '—')} | "
                     f"{fmt(row.get('speed_up'), '.1f')}{'×' if row.get('speed_up') else ''} |")
    lines += ["", "| page timing | median (s) | ratio to anchor | budget (s) |", "|---|---|---|---|"]
    for name, t in result["page"].items():
        if name != "anchor_first_render":
            lines.append(f"| {name} | {t['median_s']:.3f} | {t['ratio_to_anchor']:.2f} | {t.get('budget_s') or ''} |")
    lines.append(f"| anchor first render | {result['page']['anchor_first_render']['median_s']:.3f} | 1.00 | |")
    lines.append(f"| default solve (2 digits, 12×12) | {result['default_solve']['median_solve_s']:.3f} | | 1.0 |")
    if result.get("applications"):
        from bench.geto_lp_applications import table as applications_table

        lines += ["", "Applications (3-D grids, python bench/geto_lp.py --applications):", "",
                  applications_table(result["applications"]).rstrip("\n")]
    return "\n".join(lines) + "\n"


LINE_GRIDS = (16, 24)   # the null of memory_and_speed: N = 256 and 576 points on a line (d = 1)


def line_null() -> dict:
    """GETO-LP and POT's classical LP on the digits laid on a line (d = 1), one fresh process each: there GETO-LP's
    M N n_1 + N variables are the classical M N^2 + N, so the mechanism predicts no memory saving."""
    out = {}
    for n in LINE_GRIDS:
        print(f"line of {n * n}: GETO-LP and POT's LP ...", flush=True)
        geto = in_subprocess({"method": "geto_lp", "n": n, "score": True, "inputs": "line"})
        pot = in_subprocess({"method": "pot_lp", "n": n, "inputs": "line"})
        out[str(n * n)] = {"N": n * n, "geto_lp": geto, "pot_lp": pot}
    return out


def measure_section(name: str, measure) -> int:
    """Measure one section alone (``--applications``, ``--line-null``), keep the rest of the stored results and
    re-derive the verdicts."""
    from bench.report import RESULTS

    stored = json.loads((RESULTS / "geto_lp.json").read_text())
    for derived in ("claims", "verdicts"):
        stored.pop(derived, None)
    stored[name] = measure()
    return write_results("geto_lp", stored, table(stored), verdicts=verdicts)


def applications_section() -> dict:
    from bench.geto_lp_applications import applications

    t0 = time.perf_counter()
    return {**applications(), "seconds": time.perf_counter() - t0}


def main() -> int:
    if "--applications" in sys.argv[1:]:
        return measure_section("applications", applications_section)
    if "--line-null" in sys.argv[1:]:
        return measure_section("line_null", line_null)
    t0 = time.perf_counter()
    result = {"inputs": f"digits {DIGITS} upsampled, uniform weights, squared Euclidean, HiGHS interior point",
              "grids": grid_results(), "dense": dense_results(), "default_solve": default_solve(), "page": page()}
    result["seconds"] = time.perf_counter() - t0
    grids = result["grids"]
    g16, p16 = grids["16x16"]["geto_lp"], grids["16x16"]["pot_lp"]
    pot_rows = [r for r in grids.values() if r["pot_lp"].get("status") == "ok"]
    entropic = [run for row in grids.values() for key, run in row.items()
                if key.startswith(("convolutional", "sinkhorn")) and run.get("status") == "ok"]
    result["checks"] = {
        "geto_32x32_under_15s": grids["32x32"]["geto_lp"]["seconds"] < 15.0,
        "geto_at_least_10x_faster_than_pot_lp_on_16x16": (p16.get("status") == "ok"
                                                           and p16["seconds"] >= 10 * g16["seconds"]),
        "dense_objectives_equal_pot_lp_rtol_1e-6": bool(result["dense"]) and all(
            abs(r.get("relative_gap", float("inf"))) <= 1e-6 for r in result["dense"].values()),
        "objectives_equal_pot_lp_rtol_1e-6": bool(pot_rows) and all(
            abs(r["pot_lp"]["objective"] - r["geto_lp"]["objective"]) <= 1e-6 * r["geto_lp"]["objective"]
            for r in pot_rows),
        "geto_objective_equals_emd2_rescoring": all(
            abs(r["geto_lp"]["emd2_objective"] - r["geto_lp"]["objective"]) <= 1e-6 * r["geto_lp"]["objective"]
            for r in grids.values() if "emd2_objective" in r["geto_lp"]),
        "variables_are_M_N_sum_nk_plus_N": all(r["geto_lp"]["n_variables"] == r["geto_variables"]
                                               for r in grids.values()),
        "entropic_never_beats_exact": bool(entropic) and all(run["gap_to_exact"] >= -1e-7 for run in entropic),
        "every_grid_solved": all("objective" in r["geto_lp"] for r in grids.values()),
        "default_solve_under_1s": result["default_solve"]["median_solve_s"] < 1.0,
        "first_view_under_2s": result["page"]["first_view_warm"]["median_s"] < 2.0,
    }
    return write_results("geto_lp", result, table(result), verdicts=verdicts)



COMMAND = "python bench/geto_lp.py"


def describe(result: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``result`` alone; its rule in
    ``core.geto_lp.claims`` decides its status."""
    grids = result["grids"]
    compared = {g: r for g, r in grids.items() if r["pot_lp"].get("status") == "ok"}
    gaps = {g: abs(r["pot_lp"]["objective"] - r["geto_lp"]["objective"]) / r["geto_lp"]["objective"]
            for g, r in compared.items()}
    rescored = [abs(r["geto_lp"]["emd2_objective"] - r["geto_lp"]["objective"]) / r["geto_lp"]["objective"]
                for r in grids.values() if "emd2_objective" in r["geto_lp"]]
    rescored += [abs(r["rescoring_gap"]) for r in result.get("dense", {}).values() if "rescoring_gap" in r]
    entropic = [run["gap_to_exact"] for row in grids.values() for key, run in row.items()
                if key.startswith(("convolutional", "sinkhorn")) and run.get("status") == "ok"]
    dense = {g: r["relative_gap"] for g, r in result.get("dense", {}).items() if "relative_gap" in r}
    worst = max([*gaps.values(), *map(abs, dense.values())], default=float("nan"))
    missing = [g for g in result.get("dense", {}) if g not in dense]
    out = {"exact": (
        f"largest relative gap to POT's LP {worst:.1e}" if gaps or dense else "no POT comparison",
        f"GETO-LP's objective against POT's classical LP on digits at {', '.join(compared)} (largest "
        f"relative gap {max(gaps.values(), default=float('nan')):.1e}) and on dense random images at "
        f"{', '.join(dense) or 'no grid'} (largest {max(map(abs, dense.values()), default=float('nan')):.1e}"
        f"{'; POT did not finish at ' + ', '.join(missing) if missing else ''}; POT's barycenter rescored with "
        f"ot.emd2, since its reported objective can sit below the optimum); every GETO plan rescored with ot.emd2 "
        f"differs by at most {max(rescored, default=float('nan')):.1e}; the entropic control's smallest gap is "
        f"{min(entropic, default=float('nan')):+.1%}. HiGHS solves the LP scaled to unit masses and costs "
        "(core/geto_lp/solve.py).")}
    sizes = np.array([r["N"] for r in grids.values()], dtype=float)
    variables = np.array([r["geto_lp"]["n_variables"] for r in grids.values()], dtype=float)
    slope = float(np.polyfit(np.log(sizes), np.log(variables), 1)[0])
    largest = list(grids)[-1]
    ratio = grids[largest]["classical_variables"] / grids[largest]["geto_variables"]
    out["variable_count"] = (
        f"variables grow as N^{slope:.2f}; {ratio:.0f}× fewer at {largest}",
        "Variables of the built LP against M·N·Σnₖ + N: " + ", ".join(
            f"{g} {r['geto_lp']['n_variables']:,} against {r['geto_variables']:,}" for g, r in grids.items())
        + f"; a log-log fit over {', '.join(grids)} gives N^{slope:.2f} (theory N^1.5 for d = 2), against "
        "N^2 for the classical LP.")
    mem = {g: (r["pot_lp"]["rss_rise_mb"] / max(r["geto_lp"]["rss_rise_mb"], 1e-9),
               r["pot_lp"]["seconds"] / r["geto_lp"]["seconds"]) for g, r in compared.items()}
    fast = {g: r["speed_up"] for g, r in result.get("dense", {}).items() if "speed_up" in r}
    speed_16 = mem.get("16x16", (None, float("nan")))[1]
    out["memory_and_speed"] = (
        "; ".join(f"{g}: {m:.0f}× less memory, {t:.1f}× faster" for g, (m, t) in mem.items()),
        "Resident-memory rise and wall time against POT's classical LP in the same run, one run per solver in a "
        f"fresh process. Speed goal ≥ 10× at 16²: measured {speed_16:.1f}× on digits"
        + (f", and on dense random images {', '.join(f'{t:.1f}× at {g}' for g, t in fast.items())}" if fast else "")
        + "." + line_note(result.get("line_null")) if mem else "This run compared with POT's LP on no grid.")
    out["beats_entropic"] = (
        f"entropic gaps {min(entropic):+.1%} to {max(entropic):+.1%}" if entropic else "none ran",
        f"Every entropic barycenter, scored exactly with ot.emd2, against the exact optimum on every grid where it "
        f"ran ({len(entropic)} runs): gaps " + ", ".join(f"{e:+.1%}" for e in entropic)
        + "; the gap shrinks with the regularisation.")
    out["applications"] = applications_words(result.get("applications"))
    return out


def line_note(section) -> str:
    """memory_and_speed's null in words: the memory ratio on a line, where the variable counts are equal."""
    if not section:
        return ""
    from core.geto_lp.claims import memory_ratio

    ratios = {k: x for k, r in section.items() if (x := memory_ratio(r)) is not None}
    rows = [f"N = {k}: {x:.1f}× ({section[k]['pot_lp']['rss_rise_mb']:.0f} against "
            f"{section[k]['geto_lp']['rss_rise_mb']:.0f} MB, {section[k]['geto_lp'].get('n_variables', 0):,} "
            "variables each)" for k, x in ratios.items()]
    return (" The null, the same masses on a line (d = 1, where GETO-LP has the classical variable count): POT's "
            "memory rise over GETO-LP's " + "; ".join(rows) + f". Up to {max(ratios.values()):.1f}× of the saving is thus the "
            "two implementations', not the formulation's.") if rows else ""


def applications_words(section) -> tuple[str, str]:
    """The applications claim's figure and detail, from ``bench/geto_lp_applications.py``'s stored cells."""
    if not section or not section.get("cells"):
        return "", "No application cells stored: python bench/geto_lp.py --applications measures them."
    cells = section["cells"]
    by = {a: [c for c in cells if c["application"] == a] for a in ("volumes", "palettes")}
    eu = [c["euclidean_gap"] for c in cells]
    moved = [c["transfer_w2_after"] / c["transfer_w2_before"] for c in by["palettes"] if "transfer_w2_after" in c]
    pot = {a: [c["geto_signed_gap_to_pot"] for c in cs] for a, cs in by.items()}
    figure = (f"largest gap to the optimum: volumes {max(c['geto_optimum_gap'] for c in by['volumes']):.1e}, palettes "
              f"{max(c['geto_optimum_gap'] for c in by['palettes']):.1e}; Euclidean average {min(eu):+.1%} to "
              f"{max(eu):+.1%}")
    detail = (f"{len(cells)} cohorts of three inputs on 3-D grids ({', '.join(f'{n}³' for n in section['sizes'])}; "
              f"{section['cohorts']} cohorts per size and application, seed {section['seed']}), every average scored "
              "with ot.emd2. GETO-LP's barycenter against the optimum (the classical LP solved with the same tight "
              "HiGHS settings): largest relative gap " + ", ".join(
                  f"{a} {max(c['geto_optimum_gap'] for c in cs):.1e}" for a, cs in by.items())
              + ". POT's own LP (scipy's HiGHS at default tolerances) lands above that optimum by up to " + ", ".join(
                  f"{a} {max(c['pot_gap'] for c in cs):.1e}" for a, cs in by.items())
              + "; against it GETO-LP's signed gap is " + ", ".join(
                  f"{a} {min(g):+.1e} to {max(g):+.1e} (cheaper in {sum(x < 0 for x in g)} of {len(g)})"
                  for a, g in pot.items())
              + ": judged against POT's LP, as first registered, the largest gap is " + ", ".join(
                  f"{a} {max(c['geto_gap'] for c in cs):.1e}" for a, cs in by.items())
              + " (the verdict was not reproduced, the reference being the one off the optimum). The null, the Euclidean average of the inputs: " + ", ".join(
                  f"{a} {min(c['euclidean_gap'] for c in cs):+.1%} to {max(c['euclidean_gap'] for c in cs):+.1%}"
                  for a, cs in by.items()) + " above the optimum. POT's entropic barycenter (reg 0.01): " + ", ".join(
                  f"{a} {min(c['sinkhorn_gap'] for c in cs):+.1%} to {max(c['sinkhorn_gap'] for c in cs):+.1%}"
                  for a, cs in by.items())
              + (f". Palette transfer through GETO-LP's plan: the recoloured image's palette is at {min(moved):.3f} to "
                 f"{max(moved):.3f} of the original's W2² from the barycenter" if moved else "")
              + ". GETO-LP's median seconds " + ", ".join(
                  f"{a} {np.median([c['geto_seconds'] for c in cs]):.2f} against POT's LP "
                  f"{np.median([c['pot_seconds'] for c in cs]):.2f} and the tight classical LP "
                  f"{np.median([c['classical_seconds'] for c in cs]):.2f}" for a, cs in by.items())
              + " (one process, not a timing bench).")
    return figure, detail


verdicts = judged("geto_lp", describe, COMMAND)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        print(json.dumps(run_case(json.loads(sys.argv[2]))))
        sys.exit(0)
    sys.exit(main())
