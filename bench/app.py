"""First views as a browser sees them: every page cold (the first URL of a fresh server) and warm.

For each page a fresh server is started the way users start it (``python -m app.serve``, whose
background warm-up starts ``PAPERLAB_WARM_DELAY`` seconds later) and headless Chromium opens the page
directly, as a shared link is opened: the cold time runs from the navigation's start until the page's
main figure (its first figure, a shipped picture or a plotly chart; the title or the table on pages
without one) is drawn, the median of ``--cold-repeats`` fresh servers (a single view moved by up to a
second between runs on this machine). Once the server's warm-up is over (its CPU idle), the page is opened again in
new tabs, each once the server is idle again: the warm time (the browser has cached the front end's
code by then); then once in a fresh browser profile: a new visitor on a warm server, as a room of
students opening a shared link arrives. The server's resident memory is read
after the first view and after the warm-up. The anchor is a bare Streamlit page with one plotly
chart, started and timed the same way in the same run; ratios are against it.

    python bench/app.py            # writes bench/results/app.json and bench/results/app.md
    python bench/app.py --warm-repeats 7 --cold-repeats 5 --pages grace quantum_ng
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.catalog import SYSTEMS  # noqa: E402
from bench.browser import ANCHOR, FIGURE, browser, rss_mb, server, time_first_view, wait_idle  # noqa: E402
from app.ui.warmup import warm_delay  # noqa: E402
from bench.report import write_results  # noqa: E402

BUDGET = {"cold_s": 3.0, "warm_s": 2.0}
# page path -> what marks its first view as drawn (pages without a figure wait for their title or table)
SELECTORS = {"": "h1", "claims": '[data-testid="stDataFrame"]', "interestingness": "h1"}


def pages() -> list[str]:
    return ["", "claims"] + [s.key for s in SYSTEMS if s.built]


def measure(path: str, script: str, warm_repeats: int, cold_repeats: int = 1) -> dict:
    """Cold view of ``path`` on a fresh server, memory, then warm views once the warm-up is over, then a new
    visitor's; then ``cold_repeats - 1`` more cold views, each on a fresh server in a fresh browser (the cold time
    is their median)."""
    result = measure_once(path, script, warm_repeats)
    colds = [result["cold_s"]]
    for _ in range(cold_repeats - 1):
        with server(script) as (url, _proc), browser() as new_page:
            colds.append(time_first_view(new_page, f"{url}/{path}", result["selector"]))
    return {**result, "cold_s": statistics.median(colds), "cold_samples_s": colds}


def measure_once(path: str, script: str, warm_repeats: int) -> dict:
    selector = SELECTORS.get(path, FIGURE)
    t0 = time.perf_counter()
    with server(script) as (url, proc):
        ready = time.perf_counter()
        healthy = ready - t0
        with browser() as new_page:
            cold = time_first_view(new_page, f"{url}/{path}", selector)
            rss_first = rss_mb(proc.pid)
            # the warm-up's delay starts once the served pages are imported, just before the server listens:
            # counted from the start, the wait for it to go idle would run before it began, and the warm views
            # would be taken during the imports
            time.sleep(max(0.0, ready + warm_delay() + 1.0 - time.perf_counter()))
            waited = wait_idle(proc.pid)
            warm = []
            for _ in range(warm_repeats):
                # each tab on an idle server: the last tab's page goes on running (the rest of its script, the
                # pictures' upgrade) after its figure is drawn, and tabs taken back to back would measure that too
                wait_idle(proc.pid, quiet_s=1.0)
                warm.append(time_first_view(new_page, f"{url}/{path}", selector))
            rss_idle = rss_mb(proc.pid)
        wait_idle(proc.pid, quiet_s=1.0)
        with browser() as fresh_page:   # a new visitor on the warm server: nothing cached in their browser
            visitor = time_first_view(fresh_page, f"{url}/{path}", selector)
    return {"start_to_healthy_s": healthy, "cold_s": cold, "warm_s": statistics.median(warm), "warm_samples_s": warm,
            "new_visitor_s": visitor, "rss_after_first_view_mb": rss_first, "rss_after_warm_up_mb": rss_idle,
            "warm_up_wait_s": waited, "selector": selector}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm-repeats", type=int, default=5)
    parser.add_argument("--cold-repeats", type=int, default=3, help="fresh servers per page (the median is reported)")
    parser.add_argument("--pages", nargs="*", help="page paths (default: home, claims and every built page)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        anchor_script = Path(tmp) / "anchor.py"
        anchor_script.write_text(ANCHOR)
        anchor = measure("", str(anchor_script), args.warm_repeats, args.cold_repeats)
        measured = {path or "home": measure(path, "app/main.py", args.warm_repeats, args.cold_repeats)
                    for path in (args.pages or pages())}
    for m in measured.values():
        m["cold_ratio_to_anchor"] = m["cold_s"] / anchor["cold_s"]
        m["warm_ratio_to_anchor"] = m["warm_s"] / anchor["warm_s"]
        m["new_visitor_ratio_to_anchor"] = m["new_visitor_s"] / anchor["new_visitor_s"]
        m["rss_ratio_to_anchor"] = m["rss_after_first_view_mb"] / anchor["rss_after_first_view_mb"]
    result = {"machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                          "cpus": os.cpu_count()},
              "warm_repeats": args.warm_repeats, "cold_repeats": args.cold_repeats, "budget_s": BUDGET, "anchor": anchor, "pages": measured}
    result["checks"] = {
        "every_cold_first_view_under_3s": all(m["cold_s"] < BUDGET["cold_s"] for m in measured.values()),
        "every_warm_first_view_under_2s": all(m["warm_s"] < BUDGET["warm_s"] for m in measured.values()),
    }
    return write_results("app", result, table(result))


def table(result: dict) -> str:
    a = result["anchor"]
    lines = ["First views in headless Chromium (navigation start to the main figure drawn, as the page notes it); "
             f"cold = median of {result.get('cold_repeats', 1)} fresh servers, each in a fresh browser; "
             f"warm = median of {result['warm_repeats']} new tabs after the server's warm-up, each on an idle "
             "server; new visitor = a fresh browser profile on the warm server (nothing cached in the browser).", "",
             "| page | cold (s) | cold / anchor | warm (s) | warm / anchor | new visitor (s) | new visitor / anchor | "
             "RSS after first view (MB) | RSS after warm-up (MB) | server healthy after (s) |",
             "|---|---|---|---|---|---|---|---|---|---|",
             f"| anchor (bare page, one chart) | {a['cold_s']:.2f} | 1.00 | {a['warm_s']:.2f} | 1.00 | "
             f"{a['new_visitor_s']:.2f} | 1.00 | "
             f"{a['rss_after_first_view_mb']:.0f} | {a['rss_after_warm_up_mb']:.0f} | {a['start_to_healthy_s']:.2f} |"]
    for name, m in result["pages"].items():
        lines.append(f"| {name} | {m['cold_s']:.2f} | {m['cold_ratio_to_anchor']:.2f} | {m['warm_s']:.2f} | "
                     f"{m['warm_ratio_to_anchor']:.2f} | {m['new_visitor_s']:.2f} | "
                     f"{m['new_visitor_ratio_to_anchor']:.2f} | {m['rss_after_first_view_mb']:.0f} | "
                     f"{m['rss_after_warm_up_mb']:.0f} | {m['start_to_healthy_s']:.2f} |")
    lines += ["", f"Budgets: cold < {result['budget_s']['cold_s']:g} s, warm < {result['budget_s']['warm_s']:g} s. "
              "The memory after the warm-up is what a replica holds with PAPERLAB_WARM=all; "
              "PAPERLAB_WARM=none or a list of systems keeps it to what a replica serves."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
