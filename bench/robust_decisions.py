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
from bench.timing import MAIN, median_of  # noqa: E402
from bench.timing import page_timings as page_timings_of  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.common.results import result_to_dict  # noqa: E402
from core.robust_decisions import ERROR_LAWS, POLICY_LABELS, PROBLEMS, RateConfig, rate_experiment  # noqa: E402

PAGE = "../pages/robust_decisions.py"
REPEATS = 3
SCALE = dict(n_points=10, replicates=5, n_test=50_000, eta_min=0.001, eta_max=0.3)


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
    return "\n".join(lines) + "\n"


def main() -> int:
    t0 = time.perf_counter()
    result = {"scale": SCALE, "seed": 1, "rates": rates(), "page": page_timings()}
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
    return write_results("robust_decisions", result, table(result))


if __name__ == "__main__":
    sys.exit(main())
