"""Timing helpers shared by the benchmarks: page renders through AppTest in fresh processes."""

from __future__ import annotations

import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN = str(ROOT / "app" / "shell.py")

RENDER = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[4])
    from streamlit.testing.v1 import AppTest
    main, page, warm = sys.argv[1], sys.argv[2], sys.argv[3] == "warm"
    at = AppTest.from_file(main, default_timeout=120)
    out = {}
    if page == "-":
        t0 = time.perf_counter(); at.run(); out["first"] = time.perf_counter() - t0
    else:
        at.run()  # the shell first, as a visitor arriving at the home page
        if warm:  # a visitor reads the home page while the warm-up imports finish
            from app.ui.warmup import warm_up
            warm_up([]).join()
        at.switch_page(page)
        t0 = time.perf_counter(); at.run(); out["first"] = time.perf_counter() - t0
        t0 = time.perf_counter(); at.run(); out["rerun"] = time.perf_counter() - t0
    assert not at.exception, [e.message for e in at.exception]
    print(json.dumps(out))
""")


def render_times(main: str = MAIN, page: str = "-", warm: bool = False) -> dict:
    """{"first": s, "rerun": s} for one page, measured in a fresh Python process."""
    import json

    out = subprocess.run([sys.executable, "-c", RENDER, main, page, "warm" if warm else "cold", str(ROOT)],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_of(samples: list[float]) -> dict:
    return {"median_s": statistics.median(samples), "samples_s": samples}


def page_timings(page: str, repeats: int = 3) -> dict:
    """A page's first view (cold process, and after the warm-up) and a rerun, next to an anchor."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        anchor = Path(tmp) / "anchor.py"
        anchor.write_text("import streamlit as st\nst.write('anchor')\n")
        anchor_first = median_of([render_times(str(anchor))["first"] for _ in range(repeats)])
    cold = median_of([render_times(MAIN, page, warm=False)["first"] for _ in range(repeats)])
    warm = [render_times(MAIN, page, warm=True) for _ in range(repeats)]
    first, rerun = median_of([w["first"] for w in warm]), median_of([w["rerun"] for w in warm])
    ratio = lambda m: m["median_s"] / anchor_first["median_s"]  # noqa: E731
    return {"anchor_first_render": anchor_first,
            "first_view_warm": {**first, "ratio_to_anchor": ratio(first)},
            "first_view_cold": {**cold, "ratio_to_anchor": ratio(cold)},
            "rerun": {**rerun, "ratio_to_anchor": ratio(rerun)}}
