"""robust_decisions at larger scale: fitted rate slopes with intervals, and the page's timings.

- Rates: for every problem and error law, 10 noise levels x 5 replicates on 50,000 test contexts;
  each policy's log-log slope with its 95% interval, and its loss at the smallest eta (the floor).
- Page: the first view in a fresh process (cold, and after the shell's warm-up), and an eps-slider
  update, each next to an anchor (a one-line Streamlit script) rendered the same way in this run.

    python bench/robust_decisions.py   # writes bench/results/robust_decisions.json and .md
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import write_results  # noqa: E402
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, not_tested, verdict  # noqa: E402
from bench.timing import MAIN, median_of  # noqa: E402
from bench.timing import page_timings as page_timings_of  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.common.seeding import make_rng  # noqa: E402
from core.common.results import result_to_dict  # noqa: E402
from core.robust_decisions import (ERROR_LAWS, POLICY_LABELS, PROBLEMS, RateConfig, grid_minimax,  # noqa: E402
                                   rate_experiment)

PAGE = "../pages/robust_decisions.py"
REPEATS = 3
SCALE = dict(n_points=10, replicates=5, n_test=50_000, eta_min=0.001, eta_max=0.3)


def closed_forms(instances: int = 150, grid: int = 2001, seed: int = 7) -> dict:
    """Each problem's closed-form robust gap against a brute-force grid minimax on random instances."""
    rng = make_rng(seed)
    out = {}
    for key, problem in PROBLEMS.items():
        low_s, high_s = problem.state_domain()
        worst_gap, worst_ratio = 0.0, 0.0
        for _ in range(instances):
            s_hat, eps = float(rng.uniform(low_s, min(high_s, 20.0))), float(rng.uniform(0.0, 3.0))
            low, high = (float(x) for x in problem.ball(s_hat, eps))
            a_lo, a_hi = problem.action_grid_range(low, high)
            tol = 2.5 * ((high - low) + (a_hi - a_lo)) / (grid - 1) + 1e-12   # one grid step times slope <= 1
            diff = abs(float(problem.robust_gap(s_hat, eps)) - grid_minimax(problem, s_hat, eps, grid, grid)[1])
            worst_gap, worst_ratio = max(worst_gap, diff), max(worst_ratio, diff / tol)
        out[key] = {"instances": instances, "grid": grid, "max_abs_difference": worst_gap,
                    "max_difference_over_grid_tolerance": worst_ratio}
    return out


def rates() -> dict:
    out = {}
    for problem in PROBLEMS:
        for law in ERROR_LAWS:
            with TqdmProgress(desc=f"{problem}/{law}", leave=False) as bar:
                result = rate_experiment(RateConfig(problem=problem, error_law=law, **SCALE), seed=1, progress=bar)
            out[f"{problem}/{law}"] = {p: {**result_to_dict(s), "floor": result.floor[p]}
                                       for p, s in result.slopes.items()}
    return out


SLIDER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120).run()
from app.ui.warmup import warm_up
warm_up([]).join()  # a visitor moves the slider after the page has loaded, not during the shell's warm-up
at.switch_page("{page}").run()
times = []
for value in (0.2, 0.8, 1.5, 0.4, 1.1):
    t0 = time.perf_counter(); at.slider(key="eps").set_value(value).run(); times.append(time.perf_counter() - t0)
assert not at.exception
print(sorted(times)[len(times) // 2])
"""


def slider_update() -> float:
    import subprocess

    out = subprocess.run([sys.executable, "-c", SLIDER.format(page=PAGE), MAIN, str(ROOT)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def page_timings() -> dict:
    timings = page_timings_of(PAGE, REPEATS)
    slider = median_of([slider_update() for _ in range(REPEATS)])
    anchor = timings["anchor_first_render"]["median_s"]
    timings["first_view_warm"]["budget_s"], timings["first_view_cold"]["budget_s"] = 1.0, 2.0
    timings["eps_slider_update"] = {**slider, "ratio_to_anchor": slider["median_s"] / anchor, "budget_s": 0.3}
    return timings


def table(result: dict) -> str:
    lines = ["| problem / law | policy | slope | 95% interval | loss at smallest η |", "|---|---|---|---|---|"]
    for case, slopes in result["rates"].items():
        for policy, s in slopes.items():
            lines.append(f"| {case} | {POLICY_LABELS[policy]} | {s['slope']:.3f} | [{s['low']:.3f}, {s['high']:.3f}] "
                         f"| {s['floor']:.4f} |")
    lines += ["", "| page timing | median (s) | ratio to anchor | budget (s) |", "|---|---|---|---|"]
    for name, t in result["page"].items():
        if name != "anchor_first_render":
            lines.append(f"| {name} | {t['median_s']:.3f} | {t['ratio_to_anchor']:.2f} | {t.get('budget_s', '')} |")
    lines.append(f"| anchor first render | {result['page']['anchor_first_render']['median_s']:.3f} | 1.00 | |")
    if "closed_forms" in result:
        lines += ["", "| closed form vs brute-force minimax | instances | largest difference | in grid steps |",
                  "|---|---|---|---|"]
        lines += [f"| {k} | {v['instances']} | {v['max_abs_difference']:.1e} | "
                  f"{v['max_difference_over_grid_tolerance']:.2f} |" for k, v in result["closed_forms"].items()]
    return "\n".join(lines) + "\n"


def main() -> int:
    t0 = time.perf_counter()
    result = {"scale": SCALE, "seed": 1, "closed_forms": closed_forms(), "rates": rates(), "page": page_timings()}
    result["seconds"] = time.perf_counter() - t0
    pricing = result["rates"]["posted_pricing/three_point"]["robust_theory"]
    result["checks"] = {
        "pricing_worst_case_slope_near_two_thirds": pricing["low"] <= 2 / 3 + 0.05 and pricing["high"] >= 2 / 3 - 0.05,
        "robust_theory_never_flatter_than_two_thirds": all(
            r["robust_theory"]["high"] >= 2 / 3 - 0.05 for r in result["rates"].values()),
        "follow_has_a_floor": all(r["follow"]["floor"] > 0.5 for r in result["rates"].values()),
        "first_view_under_1s": result["page"]["first_view_warm"]["median_s"] < 1.0,
        "slider_update_under_300ms": result["page"]["eps_slider_update"]["median_s"] < 0.3,
    }
    return write_results("robust_decisions", result, table(result), verdicts=verdicts)



COMMAND = "python bench/robust_decisions.py"
TWO_THIRDS = 2 / 3


def verdicts(result: dict) -> list:
    """One verdict per claim in ``core.robust_decisions.CLAIMS``, from the numbers in ``result`` alone."""
    rates = result["rates"]
    floors = {case: r["follow"]["floor"] for case, r in rates.items()}
    robust_floors = {case: r["robust_theory"]["floor"] for case, r in rates.items()}
    flat = {case: r["follow"]["low"] <= 0.05 for case, r in rates.items()}
    brittle = [case for case in rates if floors[case] > 0.5 and flat[case]]
    eta_min = result["scale"]["eta_min"]
    out = [verdict("follow_is_brittle", (PARTLY if any(c.startswith("ski_rental") for c in brittle) else REPRODUCED)
                   if len(brittle) == len(rates) else PARTLY if brittle else NOT_REPRODUCED,
                   f"follow's loss at η = {eta_min:g}: {min(floors.values()):.2f} to {max(floors.values()):.2f} "
                   f"in {len(brittle)} of {len(rates)} cases",
                   f"Following the prediction keeps a flat excess loss as η falls to {eta_min:g} while the robust "
                   f"policy's falls to {max(robust_floors.values()):.4f} or less. Ski rental's cliff comes from our "
                   "tie-break (buy on day ŝ when ŝ < b); under the other optimal action, never buying, its loss "
                   "falls like η² (issue 23), so brittleness holds for every tie-break only in pricing and house "
                   "flipping.", command=COMMAND)]
    slopes = {case: r["robust_theory"] for case, r in rates.items()}
    fast = [case for case, sl in slopes.items() if sl["high"] >= TWO_THIRDS - 0.05]
    out.append(verdict("robust_rate", PARTLY if len(fast) == len(slopes) else NOT_REPRODUCED,
                       f"slope at ε*(η) ≥ 2/3 in {len(fast)} of {len(slopes)} problem × law cases "
                       f"(smallest {min(s['slope'] for s in slopes.values()):.2f})",
                       "The robust policy's loss falls at least as fast as η^(2/3): " + "; ".join(
                           f"{case} {s['slope']:.2f} [{s['low']:.2f}, {s['high']:.2f}]" for case, s in slopes.items())
                       + ". Only two error laws, one of them (three-point) built around ε*(η) itself; no worst-case "
                       "law is searched for (issue 23).", command=COMMAND))
    pricing = {law: rates[f"posted_pricing/{law}"] for law in ERROR_LAWS if f"posted_pricing/{law}" in rates}
    better = [law for law, r in pricing.items() if r["robust_theory"]["floor"] < r["ric_h"]["floor"]]
    out.append(verdict("improves_on_medina_vassilvitskii", PARTLY if len(better) == len(pricing) else NOT_REPRODUCED,
                       "; ".join(f"{law}: {r['robust_theory']['floor']:.4f} vs RIC-h {r['ric_h']['floor']:.4f}"
                                 for law, r in pricing.items()),
                       f"Posted pricing at η = {eta_min:g}, robust at ε*(η) against our reading of RIC-h: lower loss "
                       f"under {len(better)} of {len(pricing)} laws, and a steeper rate (" + ", ".join(
                           f"{law} {r['robust_theory']['slope']:.2f} vs {r['ric_h']['slope']:.2f}"
                           for law, r in pricing.items()) + "). The two bounds are not compared.", command=COMMAND))
    cf = result.get("closed_forms")
    if cf:
        ok = [k for k, v in cf.items() if v["max_difference_over_grid_tolerance"] <= 1.0]
        out.append(verdict("closed_form_policies", REPRODUCED if len(ok) == len(cf) else NOT_REPRODUCED,
                           f"{len(ok)} of {len(cf)} problems within one grid step on "
                           f"{next(iter(cf.values()))['instances']} instances each",
                           "Closed-form robust gap against a brute-force minimax over a "
                           f"{next(iter(cf.values()))['grid']}² action × state grid: largest difference "
                           + ", ".join(f"{k} {v['max_abs_difference']:.1e}" for k, v in cf.items())
                           + " (within one grid step of the loss's slope).", command=COMMAND))
    else:
        out.append(not_tested("closed_form_policies", "This results file predates the brute-force comparison."))
    return out


if __name__ == "__main__":
    sys.exit(main())
