"""App budgets: process start to healthy, and each page's first render, against a trivial anchor.

Every number is measured in this run next to an anchor measured the same way: a one-line
Streamlit script for start-up and for first render. Each first render runs in a fresh Python
process after the home page, once the shell's background warm-up of page imports has finished
(as when a visitor reads the home page first); bench/<key>.py also reports the cold case.

    python bench/app.py            # writes bench/results/app.json and bench/results/app.md
"""

from __future__ import annotations

import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.catalog import SYSTEMS  # noqa: E402
from app.server import free_port, start_server, stop_server, wait_healthy  # noqa: E402
from bench.report import write_results  # noqa: E402
from bench.timing import median_of, render_times  # noqa: E402

REPEATS = 3
BUDGET = {"start_to_healthy_s": 5.0, "home_first_render_s": 1.0, "claims_first_render_s": 1.0,
          "page_first_render_s": 2.0}


def start_to_healthy(script: str, workdir: Path) -> float:
    """Seconds from spawning ``streamlit run`` to /_stcore/health answering ok."""
    port = free_port()
    t0 = time.monotonic()
    proc = start_server(port, workdir / f"server-{port}.log", script=script)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        return time.monotonic() - t0
    finally:
        stop_server(proc)


def first_render(main: str, page: str = "-") -> float:
    return render_times(main, page, warm=True)["first"]


def median_over(fn, *args) -> dict:
    return median_of([fn(*args) for _ in range(REPEATS)])


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        anchor_script = tmp / "anchor.py"
        anchor_script.write_text("import streamlit as st\nst.write('anchor')\n")
        anchor_start = median_over(start_to_healthy, str(anchor_script), tmp)
        app_start = median_over(start_to_healthy, "app/main.py", tmp)
        anchor_render = median_over(first_render, str(anchor_script))
        home_render = median_over(first_render, str(ROOT / "app" / "main.py"))
        claims_render = median_over(first_render, str(ROOT / "app" / "main.py"), "claims.py")
        pages = {s.key: median_over(first_render, str(ROOT / "app" / "main.py"), f"../pages/{s.key}.py")
                 for s in SYSTEMS if s.built}

    result = {
        "machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                    "cpus": __import__("os").cpu_count()},
        "repeats": REPEATS,
        "budget_s": BUDGET,
        "anchor": {"start_to_healthy": anchor_start, "first_render": anchor_render},
        "start_to_healthy": {**app_start, "ratio_to_anchor": app_start["median_s"] / anchor_start["median_s"]},
        "home_first_render": {**home_render, "ratio_to_anchor": home_render["median_s"] / anchor_render["median_s"]},
        "claims_first_render": {**claims_render,
                                "ratio_to_anchor": claims_render["median_s"] / anchor_render["median_s"]},
        "page_first_render": {k: {**v, "ratio_to_anchor": v["median_s"] / anchor_render["median_s"]}
                              for k, v in pages.items()},
    }
    result["checks"] = {
        "start_to_healthy_under_5s": app_start["median_s"] < BUDGET["start_to_healthy_s"],
        "home_first_render_under_1s": home_render["median_s"] < BUDGET["home_first_render_s"],
        "claims_first_render_under_1s": claims_render["median_s"] < BUDGET["claims_first_render_s"],
        "pages_first_render_under_2s": all(v["median_s"] < BUDGET["page_first_render_s"] for v in pages.values()),
    }
    return write_results("app", result, table(result))


def table(result: dict) -> str:
    rows = [("start to healthy", result["start_to_healthy"], result["anchor"]["start_to_healthy"], "< 5 s"),
            ("home first render", result["home_first_render"], result["anchor"]["first_render"], "< 1 s"),
            ("Claims page first render", result["claims_first_render"], result["anchor"]["first_render"], "< 1 s")]
    rows += [(f"{key} first render", v, result["anchor"]["first_render"], "< 2 s")
             for key, v in result["page_first_render"].items()]
    lines = ["| measure | median (s) | anchor (s) | ratio | budget |", "|---|---|---|---|---|"]
    lines += [f"| {name} | {m['median_s']:.3f} | {a['median_s']:.3f} | {m['median_s'] / a['median_s']:.2f} | {b} |"
              for name, m, a, b in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
