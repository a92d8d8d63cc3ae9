"""The analysis page on the shipped simulated demo study: first view after the password (AppTest in a
fresh process, after the app's warm-up, next to an anchor page's first render) and the alignment
numbers it shows (simulated raters and a simulated LLM: they illustrate the dashboards, not a finding).

    python bench/interestingness_analysis.py   # writes bench/results/interestingness_analysis.json and .md
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import write_results  # noqa: E402
from bench.timing import MAIN, median_of, render_times  # noqa: E402

RENDER = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[2])
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(sys.argv[1], default_timeout=120).run()
    from app.ui.warmup import warm_up
    warm_up([]).join()
    at.switch_page("../pages/interestingness_analysis.py").run()
    t0 = time.perf_counter(); at.text_input(key="admin_password").input("bench-password-long").run(); first = time.perf_counter() - t0
    assert not at.exception, [e.message for e in at.exception]
    print(json.dumps({"first": first, "table": at.dataframe[0].value.to_dict("records")}))
""")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "STUDY_ADMIN_PASSWORD": "bench-password-long", "STUDY_DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite"}
        runs = [json.loads(subprocess.run([sys.executable, "-c", RENDER, MAIN, str(ROOT)], cwd=ROOT, env=env,
                                          capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
                for _ in range(3)]
    anchor = median_of([render_times()["first"] for _ in range(3)])
    first = median_of([run["first"] for run in runs])
    r = {"first_view_after_password": {**first, "ratio_to_anchor": first["median_s"] / anchor["median_s"]},
         "anchor_home_first_render": anchor, "demo_alignment_table": runs[0]["table"]}
    r["checks"] = {"first_view_under_2s": first["median_s"] < 2.0}
    lines = [f"First view after the password: {first['median_s']:.2f} s median of 3 "
             f"({r['first_view_after_password']['ratio_to_anchor']:.1f}× the home page's first render, "
             f"{anchor['median_s']:.2f} s).", "", "Simulated demo study (simulated raters, simulated LLM):", "",
             "| " + " | ".join(runs[0]["table"][0]) + " |", "|---" * len(runs[0]["table"][0]) + "|"]
    for row in runs[0]["table"]:
        lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    return write_results("interestingness_analysis", r, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
