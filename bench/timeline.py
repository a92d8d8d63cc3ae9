"""Where a first view's time goes in the browser: when the title, the controls, the first figure and the first
table appear, and the main thread's long tasks, for a few tabs of one page.

bench/app.py gives one number per view; this breaks a view down (a MutationObserver and a long-task observer
installed before the page's own scripts, times in ms from the navigation's start). Warm (default): a server
after its warm-up, each tab on an idle server, in one browser. ``--cold``: a fresh server and a fresh browser
per tab. Prints a line per tab; writes nothing.

    python bench/timeline.py class_il
    python bench/timeline.py geto_lp --cold --tabs 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.ui.warmup import warm_delay  # noqa: E402
from bench.browser import browser, first_view_s, server, wait_idle, watch_first_view  # noqa: E402

MARKS = {"title": "h1", "controls": '[data-testid="stNumberInput"], [data-testid="stSelectbox"], '
                                    '[data-testid="stSlider"]',
         "picture": '[data-testid="stImage"] img', "chart": ".js-plotly-plot .main-svg",
         "table": '[data-testid="stDataFrame"] canvas'}
OBSERVE = """
window.__marks = {}; window.__long = [];
new PerformanceObserver(list => list.getEntries().forEach(e => window.__long.push([Math.round(e.startTime),
    Math.round(e.duration)]))).observe({type: 'longtask', buffered: true});
const marks = %s;
new MutationObserver(() => { for (const [name, selector] of Object.entries(marks))
    if (!(name in window.__marks) && document.querySelector(selector)) window.__marks[name] = Math.round(performance.now());
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


def one_tab(new_page, url: str, hold_ms: int) -> dict:
    import json

    page = new_page()
    try:
        page.add_init_script(OBSERVE % json.dumps(MARKS))
        watch_first_view(page)
        page.goto(url, wait_until="commit", timeout=180_000)
        visible = first_view_s(page)
        page.wait_for_timeout(hold_ms)
        return {"figure_visible_s": visible, "marks_ms": page.evaluate("window.__marks"),
                "long_tasks_ms": page.evaluate("window.__long")}
    finally:
        page.close()


def show(i: int, tab: dict, min_task_ms: int) -> None:
    marks = ", ".join(f"{k} {v}" for k, v in sorted(tab["marks_ms"].items(), key=lambda kv: kv[1]))
    tasks = " ".join(f"{s}+{d}" for s, d in tab["long_tasks_ms"] if d >= min_task_ms)
    print(f"tab {i}: figure drawn {tab['figure_visible_s']:.2f} s | {marks} | long tasks (start+ms): {tasks}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", help="a page's URL path, e.g. class_il")
    parser.add_argument("--tabs", type=int, default=4)
    parser.add_argument("--cold", action="store_true", help="a fresh server and browser per tab")
    parser.add_argument("--hold-ms", type=int, default=500, help="how long to keep observing after the figure")
    parser.add_argument("--min-task-ms", type=int, default=80)
    args = parser.parse_args(argv)
    if args.cold:
        for i in range(args.tabs):
            with server() as (url, _proc), browser() as new_page:
                show(i, one_tab(new_page, f"{url}/{args.page}", args.hold_ms), args.min_task_ms)
        return 0
    with server() as (url, pid), browser() as new_page:
        time.sleep(warm_delay() + 1.0)
        wait_idle(pid)                    # the warm-up is over
        for i in range(args.tabs):
            wait_idle(pid, quiet_s=1.0)   # as bench/app.py: each tab on an idle server
            show(i, one_tab(new_page, f"{url}/{args.page}", args.hold_ms), args.min_task_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
