"""robust_decisions at larger scale: fitted rate slopes with intervals, and the page's timings.

- Rates: for every problem (ski rental under both optimal tie-breaks) and every error law
  (Gaussian, Student-t, the three-point law built from eps*, the searched worst case), 10 noise
  levels x 5 replicates on 50,000 test contexts: each policy's log-log slope with its 95%
  interval, its loss at the smallest eta (the floor), and the share of runs at or below the
  abstract's bound; for posted pricing, the abstract's bound against our Cantelli bound for RIC-h's
  clusters on the same instances (Medina & Vassilvitskii's own bound was not available to us).
  These are the default RateConfig and seed 0, i.e. exactly the shipped asset's
  runs (core.robust_decisions.ship.rate_bundle); the bench reports whether they match the
  shipped file, and ``--ship`` rewrites the file from this run.
- Page: the first view in a fresh process (cold, and after the shell's warm-up), and an eps-slider
  update, each next to an anchor (a one-line Streamlit script) rendered the same way in this run.

    python bench/robust_decisions.py [--ship]   # writes bench/results/robust_decisions.json and .md
    python bench/robust_decisions.py --verdicts # only re-derives the verdicts from the stored numbers
    python bench/robust_decisions.py --ship --reuse-page-timings   # keeps the stored page timings
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import interval_text, judged, write_results  # noqa: E402
from bench.timing import MAIN, median_of  # noqa: E402
from bench.timing import page_timings as page_timings_of  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.common.seeding import make_rng  # noqa: E402
from core.common.results import result_to_dict  # noqa: E402
import numpy as np  # noqa: E402

from core.robust_decisions import (ERROR_LAWS, POLICY_LABELS, RateConfig, grid_minimax,  # noqa: E402
                                   problem_for)
from core.robust_decisions.rates import fit_slope  # noqa: E402
from core.robust_decisions.ship import CASES, SEED, rate_bundle, shipped_bundle, write_assets  # noqa: E402

PAGE = "../pages/robust_decisions.py"
REPEATS = 3
DEFAULT = RateConfig()
SCALE = dict(n_points=DEFAULT.n_points, replicates=DEFAULT.replicates, n_test=DEFAULT.n_test,
             eta_min=DEFAULT.eta_min, eta_max=DEFAULT.eta_max)
# The laws a rate claim may rest on: not built from eps*(eta) (the three-point law is reported, not used).
HONEST_LAWS = ("gaussian", "student_t", "worst_case")


def closed_forms(instances: int = 150, grid: int = 2001, seed: int = 7) -> dict:
    """Each problem's closed-form robust gap against a brute-force grid minimax on random instances."""
    rng = make_rng(seed)
    out = {}
    problems = {key if key != "ski_rental" else f"ski_rental:{tb}": problem_for(key, tb) for key, tb in CASES}
    for key, problem in problems.items():
        low_s, high_s = problem.state_domain()
        worst_gap, worst_ratio, half_ratio = 0.0, 0.0, 0.0
        for _ in range(instances):
            s_hat, eps = float(rng.uniform(low_s, min(high_s, 20.0))), float(rng.uniform(0.0, 3.0))
            low, high = (float(x) for x in problem.ball(s_hat, eps))
            a_lo, a_hi = problem.action_grid_range(low, high)
            tol = 2.5 * ((high - low) + (a_hi - a_lo)) / (grid - 1) + 1e-12   # one grid step times slope <= 1
            minimax = grid_minimax(problem, s_hat, eps, grid, grid).worst
            diff = abs(float(problem.robust_gap(s_hat, eps)) - minimax)
            worst_gap, worst_ratio = max(worst_gap, diff), max(worst_ratio, diff / tol)
            # The null: the closed form for a ball of half the radius, against this ball's minimax.
            half_ratio = max(half_ratio, abs(float(problem.robust_gap(s_hat, eps / 2)) - minimax) / tol)
        out[key] = {"instances": instances, "grid": grid, "max_abs_difference": worst_gap,
                    "max_difference_over_grid_tolerance": worst_ratio,
                    "half_radius_max_difference_over_grid_tolerance": half_ratio}
    return out


def bound_comparison(result) -> dict:
    """Posted pricing: the abstract's bound against the Cantelli bound of RIC-h's clusters, cell by cell."""
    abstract, clusters = result.bound_at(result.eta), result.ric_bound
    level_abstract, level_clusters = result.bound, result.ric_bound_curve()
    lower = level_abstract < level_clusters
    mean_eta = np.nanmean(result.eta, axis=1)
    return {"mean_eta": mean_eta, "abstract": level_abstract, "ric_clusters": level_clusters,
            "share_abstract_lower": float(np.mean(abstract < clusters)),
            "abstract_lower_up_to_eta": float(mean_eta[lower].max()) if lower.any() else None,
            "clusters_lower_from_eta": float(mean_eta[~lower].min()) if (~lower).any() else None,
            "ric_h_under_cluster_bound": float(np.mean(result.losses["ric_h"] <= clusters)),
            "robust_theory_under_abstract": float(np.mean(result.losses["robust_theory"] <= abstract))}


VERSUS = ("robust_theory", "follow", "robust")   # the policy at eps*(eta), and the nulls: no ball, a fixed ball


def versus_ric_h(bundle: dict) -> dict:
    """Posted pricing, per law: each policy's loss against RIC-h's in the same cells, paired by replicate.

    ``smallest``: log(loss / RIC-h's loss) per replicate at the noise level of smallest mean eta; ``slopes``: each
    replicate's least-squares slope of that log ratio against log eta over the noise levels (positive: the policy's
    loss falls faster than RIC-h's). Cells where a loss is 0 or missing are left out."""
    out = {}
    for key, result in bundle.items():
        problem, law = key.split("/")
        if problem != "posted_pricing":
            continue
        ric, eta = result.losses["ric_h"], result.eta
        smallest = int(np.nanargmin(np.nanmean(eta, axis=1)))
        row = {"eta": float(np.nanmean(eta[smallest])), "replicates": int(eta.shape[1])}
        for policy in VERSUS:
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = result.losses[policy] / ric
            ok = np.isfinite(ratio) & (ratio > 0)
            row[policy] = {"smallest": np.log(ratio[smallest][ok[smallest]]),
                           "slopes": [s for r in range(eta.shape[1])
                                      if np.isfinite(s := fit_slope(eta[:, r], ratio[:, r]).slope)]}
        out[law] = row
    return result_to_dict(out)


def searched_vs_three_point(bundle: dict) -> dict:
    """Per case, the ratio of the eps*(eta) policy's mean loss (over replicates) under the searched law to
    that under the three-point law, at each noise level: the search should be at least as bad (ratio >= 1)."""
    out = {}
    for key, result in bundle.items():
        if not key.endswith("/worst_case"):
            continue
        three = bundle[key.replace("/worst_case", "/three_point")]
        w, t = (np.nanmean(r.losses["robust_theory"], axis=1) for r in (result, three))
        ratio = np.divide(w, t, out=np.full_like(w, np.inf), where=t > 0)
        ratio[(w == 0) & (t == 0)] = 1.0
        out[key.split("/")[0]] = {"ratio_per_level": ratio, "levels_at_least_as_bad": int(np.sum(w >= t)),
                                  "levels": int(w.size), "smallest_ratio": float(np.min(ratio))}
    return result_to_dict(out)


def rates(ship: bool = False) -> tuple[dict, dict, dict]:
    """Every shipped case at the default config and seed: slopes, floors, the share under the bound;
    for pricing the two bounds on the same instances; and how far this run is from the shipped file."""
    bars = []

    def progress_for(key):
        bars.append(TqdmProgress(desc=key, leave=False))
        return bars[-1]

    bundle = rate_bundle(SEED, progress_for=progress_for)
    for bar in bars:
        bar.close()
    shipped = shipped_bundle() or {}
    out, bounds, worst = {}, {}, 0.0
    for key, result in bundle.items():
        under = result.losses["robust_theory"] <= result.bound_at(result.eta)
        out[key] = {p: {**result_to_dict(s), "floor": result.floor[p]} for p, s in result.slopes.items()}
        out[key]["robust_theory"]["share_under_bound"] = float(np.mean(under))
        if result.ric_bound is not None and np.isfinite(result.ric_bound).any():
            bounds[key] = result_to_dict(bound_comparison(result))
        if key in shipped:
            for p, loss in result.losses.items():
                old = np.array(shipped[key]["losses"][p], dtype=float)
                worst = max(worst, float(np.nanmax(np.abs(old - loss) / np.maximum(np.abs(loss), 1e-12))))
        else:
            worst = np.inf
    match = {"cases": len(bundle), "shipped_cases": len(shipped), "max_relative_difference": worst,
             "matches": bool(worst <= 1e-9 and len(shipped) == len(bundle))}
    if ship:
        write_assets(bundle)
        match["shipped_from_this_run"] = True
    return out, {"bounds": bounds, "searched_vs_three_point": searched_vs_three_point(bundle),
                 "versus_ric_h": versus_ric_h(bundle)}, match


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


def stored_page_timings() -> dict:
    """The page timings of the stored results file, marked as such (``--reuse-page-timings``: the rates and
    closed forms are measured again, the page is not, e.g. when the machine is too loaded to time it)."""
    import json

    from bench.report import RESULTS
    page = json.loads((RESULTS / "robust_decisions.json").read_text())["page"]
    page["reused_from"] = page.get("reused_from") or json.loads((RESULTS / "robust_decisions.json").read_text()).get(
        "measured_at", "an earlier run")
    return page


def table(result: dict) -> str:
    lines = ["| case / law | policy | slope | 95% interval | loss at smallest η | runs under the bound |",
             "|---|---|---|---|---|---|"]
    for case, slopes in result["rates"].items():
        for policy, s in slopes.items():
            under = f"{s['share_under_bound']:.0%}" if "share_under_bound" in s else ""
            lines.append(f"| {case} | {POLICY_LABELS[policy]} | {s['slope']:.3f} | [{s['low']:.3f}, {s['high']:.3f}] "
                         f"| {s['floor']:.3g} | {under} |")
    if result.get("bounds"):
        lines += ["", "| pricing law | η at which the abstract's bound is lower | cells where it is lower | "
                  "RIC-h under its cluster bound | ε*(η) under the abstract's |", "|---|---|---|---|---|"]
        for case, b in result["bounds"].items():
            up_to = b["abstract_lower_up_to_eta"]
            lines.append(f"| {case.split('/')[1]} | {'none' if up_to is None else f'up to {up_to:.3g}'} | "
                         f"{b['share_abstract_lower']:.0%} | {b['ric_h_under_cluster_bound']:.0%} | "
                         f"{b['robust_theory_under_abstract']:.0%} |")
        lines += ["", "| pricing law | η | abstract's bound | Cantelli bound for RIC-h's clusters |", "|---|---|---|---|"]
        for case, b in result["bounds"].items():
            lines += [f"| {case.split('/')[1]} | {e:.3g} | {a:.3g} | {c:.3g} |"
                      for e, a, c in zip(b["mean_eta"], b["abstract"], b["ric_clusters"])]
    if result.get("versus_ric_h"):
        lines += ["", "| pricing law | policy | log(loss / RIC-h's) at the smallest η, mean [95%] | slope of that ratio "
                  "against log η, mean [95%] |", "|---|---|---|---|"]
        lines += [f"| {law} | {POLICY_LABELS[p]} | {interval_text(v[p]['smallest'])} | {interval_text(v[p]['slopes'])} |"
                  for law, v in result["versus_ric_h"].items() for p in VERSUS]
    if result.get("searched_vs_three_point"):
        lines += ["", "| case | levels where the searched law is at least as bad as the three-point law for ε*(η) | "
                  "smallest ratio of mean losses |", "|---|---|---|"]
        lines += [f"| {case} | {v['levels_at_least_as_bad']} of {v['levels']} | {v['smallest_ratio']:.2f} |"
                  for case, v in result["searched_vs_three_point"].items()]
    m = result["asset"]
    lines += ["", f"Shipped asset: {m['shipped_cases']} cases, largest relative difference from this run "
              f"{m['max_relative_difference']:.1e} ({'matches' if m['matches'] else 'DIFFERS'})."]
    lines += ["", "| page timing | median (s) | ratio to anchor | budget (s) |", "|---|---|---|---|"]
    for name, t in result["page"].items():
        if name not in ("anchor_first_render", "reused_from"):
            lines.append(f"| {name} | {t['median_s']:.3f} | {t['ratio_to_anchor']:.2f} | {t.get('budget_s', '')} |")
    lines.append(f"| anchor first render | {result['page']['anchor_first_render']['median_s']:.3f} | 1.00 | |")
    if "reused_from" in result["page"]:
        lines.append(f"\nPage timings reused from the run of {result['page']['reused_from']} (not measured again).")
    if "closed_forms" in result:
        lines += ["", "| closed form vs brute-force minimax | instances | largest difference | in grid steps |",
                  "|---|---|---|---|"]
        lines += [f"| {k} | {v['instances']} | {v['max_abs_difference']:.1e} | "
                  f"{v['max_difference_over_grid_tolerance']:.2f} |" for k, v in result["closed_forms"].items()]
    return "\n".join(lines) + "\n"


def main() -> int:
    if "--verdicts" in sys.argv[1:]:  # re-derive the verdicts from the stored numbers, measuring nothing
        import json

        from bench.report import RESULTS
        stored = json.loads((RESULTS / "robust_decisions.json").read_text())
        for derived in ("claims", "verdicts"):
            stored.pop(derived, None)
        return write_results("robust_decisions", stored, table(stored), verdicts=verdicts)
    ship = "--ship" in sys.argv[1:]
    t0 = time.perf_counter()
    rate_result, extra, asset = rates(ship)
    result = {"scale": SCALE, "seed": SEED, "closed_forms": closed_forms(), "rates": rate_result, **extra,
              "asset": asset, "page": stored_page_timings() if "--reuse-page-timings" in sys.argv[1:] else page_timings()}
    result["seconds"] = time.perf_counter() - t0
    rates_ = result["rates"]
    result["checks"] = {
        "robust_theory_never_flatter_than_two_thirds": all(
            r["robust_theory"]["high"] >= 2 / 3 - 0.05 for r in rates_.values()),
        "robust_theory_under_the_bound": all(r["robust_theory"]["share_under_bound"] >= 0.95 for r in rates_.values()),
        "follow_has_a_floor_where_the_optimum_is_unique": all(
            rates_[f"{p}/{law}"]["follow"]["floor"] > 0.5 for p in ("posted_pricing", "house_flipping")
            for law in ("gaussian", "student_t")),
        "shipped_asset_matches": asset["matches"],
        "first_view_under_1s": result["page"]["first_view_warm"]["median_s"] < 1.0,
        "slider_update_under_300ms": result["page"]["eps_slider_update"]["median_s"] < 0.3,
    }
    return write_results("robust_decisions", result, table(result), verdicts=verdicts)



COMMAND = "python bench/robust_decisions.py"
TWO_THIRDS = 2 / 3


def _brittle(r: dict) -> bool:
    return r["follow"]["floor"] > 0.5 and r["follow"]["high"] < 0.3


def searched_note(result: dict) -> str:
    """How often the searched law hurt the eps*(eta) policy at least as much as the three-point law did."""
    versus = result.get("searched_vs_three_point")
    if not versus:
        return ""
    return (" In the experiment itself (the policy's radius uses η measured on a validation split, and the loss is a "
            "mean over 5 replicates) the searched law is at least as bad as the three-point law at " + ", ".join(
                f"{v['levels_at_least_as_bad']} of {v['levels']} levels for {case} (smallest ratio {v['smallest_ratio']:.2f})"
                for case, v in versus.items()) + ".")


def versus_words(result: dict) -> tuple[str, str]:
    """The beats_ric_h claim's figure and detail: paired log loss ratios to RIC-h, per pricing law."""
    versus = result.get("versus_ric_h")
    if not versus:
        return "", "This results file predates the paired comparison with RIC-h."
    eta = next(iter(versus.values()))["eta"]
    figure = (f"log(loss at ε*(η) / RIC-h's) at η ≈ {eta:.2g}: " + ", ".join(
        f"{law} {interval_text(v['robust_theory']['smallest'])}" for law, v in versus.items())
        + "; slope of that log ratio against log η: " + ", ".join(
            f"{law} {interval_text(v['robust_theory']['slopes'])}" for law, v in versus.items()))
    detail = (f"Posted pricing, the rate experiment's cells (seed {result['seed']}), each policy paired with RIC-h "
              "(our reading of Medina & Vassilvitskii's reserve-price rule) on the same predictions; mean and 95% t "
              f"interval over {next(iter(versus.values()))['replicates']} replicates. " + figure + ". Nulls in the "
              "robust policy's place, log ratio at the smallest η: following the prediction (ε = 0) " + ", ".join(
                  f"{law} {interval_text(v['follow']['smallest'])}" for law, v in versus.items())
              + "; a fixed ε = 0.3 " + ", ".join(f"{law} {interval_text(v['robust']['smallest'])}"
                                                 for law, v in versus.items())
              + ". The three-point law is built from ε*(η) to hurt the robust policy and is counted here: it can "
                "only make the comparison harder.")
    return figure, detail


def describe(result: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``result`` alone; its rule in
    ``core.robust_decisions.claims`` decides its status."""
    rates = result["rates"]
    eta_min = result["scale"]["eta_min"]
    typical = ("gaussian", "student_t")  # laws that target no policy
    unique = {p: all(_brittle(rates[f"{p}/{law}"]) for law in typical) for p in ("posted_pricing", "house_flipping")}
    ski_early = {law: rates[f"ski_rental:earliest_buy/{law}"]["follow"] for law in typical}
    ski_never = {law: rates[f"ski_rental:never_buy/{law}"]["follow"] for law in typical}
    floors = [rates[f"{p}/{law}"]["follow"]["floor"] for p in unique for law in typical]
    follow = lambda s: f"slope {s['slope']:.2f} [{s['low']:.2f}, {s['high']:.2f}], loss {s['floor']:.3g}"  # noqa: E731
    out = {"follow_is_brittle": (
        f"brittle for every tie-break in {sum(unique.values())} of 2 problems with a unique optimum "
        f"(loss {min(floors):.2f} to {max(floors):.2f} at η = {eta_min:g}); ski rental only under the "
        "earliest-buy tie-break",
        f"Following the prediction as η falls to {eta_min:g}, under Gaussian and Student-t errors, in "
        "pricing and house flipping, whose optimal action for a known state is unique: " + "; ".join(
            f"{p}/{law} {follow(rates[f'{p}/{law}']['follow'])}" for p in unique for law in typical)
        + " (brittle: loss over 0.5 and slope's upper end under 0.3). The robust policy at ε*(η) on the same "
        "predictions: loss " + ", ".join(
            f"{p}/{law} {rates[f'{p}/{law}']['robust_theory']['floor']:.1e}" for p in unique for law in typical)
        + ". Ski rental under our tie-break 'buy on day ŝ': " + ", ".join(
            f"{law} {follow(s)}" for law, s in ski_early.items())
        + "; under the other optimal action, never buying: " + ", ".join(
            f"{law} {follow(s)}" for law, s in ski_never.items()) + ".")}
    slopes = {case: r["robust_theory"] for case, r in rates.items()}
    honest = {case: s for case, s in slopes.items() if case.split("/")[1] in HONEST_LAWS}
    holds = [case for case, s in honest.items() if s["high"] >= TWO_THIRDS - 0.05 and s["share_under_bound"] >= 0.95]
    at_two_thirds = [case for case, s in honest.items()
                     if s["low"] <= TWO_THIRDS + 0.05 and s["high"] >= TWO_THIRDS - 0.05]
    worst = {case: s for case, s in slopes.items() if case.endswith("/worst_case")}
    out["robust_rate"] = (
        f"slope at ε*(η) ≥ 2/3 and runs under the bound in {len(holds)} of {len(honest)} case × law "
        f"pairs (laws not built from ε*); the ε*(η) policy's slope is 2/3 within its interval in "
        f"{len(at_two_thirds)}",
        "Slope of the ε*(η) policy with its 95% interval (counted: its upper end at least 2/3 − 0.05 "
        "and at least 95% of runs under the bound). Gaussian and Student-t: " + "; ".join(
            f"{case} {s['slope']:.2f} [{s['low']:.2f}, {s['high']:.2f}], {s['share_under_bound']:.0%} "
            "under the bound" for case, s in honest.items() if not case.endswith("worst_case"))
        + ". Searched worst-case law: " + "; ".join(
            f"{case.split('/')[0]} {s['slope']:.2f} [{s['low']:.2f}, {s['high']:.2f}], "
            f"{s['share_under_bound']:.0%} under the bound" for case, s in worst.items())
        + ". The three-point law at 1.25 ε*(η), built from the theory's radius, is reported but not "
        "counted: " + "; ".join(f"{case.split('/')[0]} {s['slope']:.2f}" for case, s in slopes.items()
                                  if case.endswith("/three_point"))
        + ". Tightness: under the searched law even ε tuned on held-out data falls only at " + ", ".join(
            f"{p} {rates[f'{p}/worst_case']['robust_tuned']['slope']:.2f}"
            for p in ("posted_pricing", "house_flipping")) + ". Controls: a fixed ε "
        "(" + ", ".join(f"{p} {rates[f'{p}/worst_case']['robust']['slope']:.2f}"
                        for p in ("posted_pricing", "house_flipping")) + ") and following the prediction "
        "(" + ", ".join(f"{p} {rates[f'{p}/gaussian']['follow']['slope']:.2f}"
                        for p in ("posted_pricing", "house_flipping")) + " under Gaussian errors). The "
        "worst case is searched over two- and three-point laws only." + searched_note(result))
    pricing = {law: rates[f"posted_pricing/{law}"] for law in ERROR_LAWS if f"posted_pricing/{law}" in rates}
    better = [law for law, r in pricing.items() if r["robust_theory"]["floor"] < r["ric_h"]["floor"]]
    empirical = (f"Posted pricing at η = {eta_min:g}, robust at ε*(η) against our reading of RIC-h: lower loss under "
                 f"{len(better)} of {len(pricing)} laws (" + "; ".join(
                     f"{law} {r['robust_theory']['floor']:.4f} vs {r['ric_h']['floor']:.4f}" for law, r in pricing.items())
                 + "), and the rates (" + ", ".join(f"{law} {r['robust_theory']['slope']:.2f} vs {r['ric_h']['slope']:.2f}"
                                                    for law, r in pricing.items()) + ").")
    bounds = {case.split("/")[1]: b for case, b in (result.get("bounds") or {}).items()}
    if bounds:
        small = [law for law, b in bounds.items() if b["abstract"][0] < b["ric_clusters"][0]]
        large = [law for law, b in bounds.items() if b["abstract"][-1] < b["ric_clusters"][-1]]
        figure = (f"abstract's bound below the RIC-h cluster bound at the smallest η under {len(small)} of {len(bounds)} "
                  f"laws, at the largest under {len(large)}; robust loss below RIC-h's at η = {eta_min:g} under "
                  f"{len(better)} of {len(pricing)}")
        how = (empirical + " Bounds on the same instances: the abstract's 1.5 c^(2/3) (2B)^(1/3) η^(2/3) against a "
               "Cantelli bound on the best reserves of RIC-h's own clusters (ours: Medina & Vassilvitskii's stated "
               "bound, its exponent and constants, was not available to us, so theirs is not what is compared). "
               + "; ".join(f"{law}: abstract lower up to η = {b['abstract_lower_up_to_eta']:.3g}" if b["abstract_lower_up_to_eta"]
                           else f"{law}: abstract never lower" for law, b in bounds.items())
               + " (" + "; ".join(f"{law} at η = {b['mean_eta'][0]:.3g}: {b['abstract'][0]:.3f} vs {b['ric_clusters'][0]:.3f}, "
                                  f"at η = {b['mean_eta'][-1]:.3g}: {b['abstract'][-1]:.2f} vs {b['ric_clusters'][-1]:.2f}"
                                  for law, b in bounds.items())
               + "). The cluster bound stops falling at the clusters' width (k ≤ 64 clusters), the abstract's does not, so "
                 "the abstract's bound is the better one only for small η; for larger η the cluster bound is lower. RIC-h's "
                 "measured loss stays under its cluster bound in " + ", ".join(
                     f"{b['ric_h_under_cluster_bound']:.0%}" for b in bounds.values()) + " of cells.")
    else:
        figure = "; ".join(f"{law}: {r['robust_theory']['floor']:.4f} vs RIC-h {r['ric_h']['floor']:.4f}"
                           for law, r in pricing.items())
        how = empirical + " This results file predates the comparison of bounds."
    out["improves_on_medina_vassilvitskii"] = (
        "not measured: Medina & Vassilvitskii's stated bound was not available to us (our reading of their rule: "
        "beats_ric_h); " + figure, how)
    out["beats_ric_h"] = versus_words(result)
    cf = result.get("closed_forms")
    if cf:
        ok = [k for k, v in cf.items() if v["max_difference_over_grid_tolerance"] <= 1.0]
        out["closed_form_policies"] = (
            f"{len(ok)} of {len(cf)} problems (ski rental under both tie-breaks) within one grid step on "
            f"{next(iter(cf.values()))['instances']} instances each",
            "Closed-form robust gap against a brute-force minimax over a "
            f"{next(iter(cf.values()))['grid']}² action × state grid: largest difference "
            + ", ".join(f"{k} {v['max_abs_difference']:.1e}" for k, v in cf.items())
            + "; in grid tolerances (one grid step of the loss's slope): "
            + ", ".join(f"{k} {v['max_difference_over_grid_tolerance']:.2f}" for k, v in cf.items()) + "."
            + ("" if not all("half_radius_max_difference_over_grid_tolerance" in v for v in cf.values()) else
               " The null, the closed form for a ball of half the radius in its place: " + ", ".join(
                   f"{k} {v['half_radius_max_difference_over_grid_tolerance']:.0f}" for k, v in cf.items())
               + " grid tolerances."))
    else:
        out["closed_form_policies"] = ("", "This results file predates the brute-force comparison.")
    return out


verdicts = judged("robust_decisions", describe, COMMAND)


if __name__ == "__main__":
    sys.exit(main())
