"""First views as a browser sees them, for each way of starting the app: every page cold (the first URL of a
fresh server) and warm.

Each launch command the README gives (``streamlit run app/main.py`` and ``make run``, ``app.server.LAUNCHES``)
is measured the same way, side by side. For each page, fresh servers are started by that command and headless
Chromium opens the page directly, as a shared link is opened: the cold time runs from the navigation's start
until the page's main figure (its first figure, a shipped picture or a plotly chart; the title or the table
on pages without one) is drawn, the median of ``--cold-repeats`` fresh servers, each in a fresh browser (a
single view moved by up to a second between runs on this machine). Then one more server per command is left
to finish its warm-up (``PAPERLAB_WARM_DELAY`` seconds after it listens, until its CPU is idle) and each page
is opened in new tabs of one browser, each once the server is idle again: the warm time (the median of the
tabs after a first one, so that the browser has cached the page's code); then once in a fresh browser profile: a new visitor on a warm server,
as a room of students opening a shared link arrives. The server's resident memory is read after each
page's first cold view and after the warm-up. The anchor is a bare Streamlit page with one plotly chart,
started with ``streamlit run`` and timed the same way in the same run; ratios are against it.

    python bench/app.py            # both commands: writes bench/results/app.json and bench/results/app.md
    python bench/app.py --launch "make run" --pages grace quantum_ng --cold-repeats 5

Measuring some pages or one command keeps the figures of the others in bench/results/app.json, each page's
with the anchor of the run that measured it, and rewrites the table from all of them.
"""

from __future__ import annotations

import argparse
import json
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
from app.server import LAUNCHES  # noqa: E402
from app.ui.warmup import warm_delay  # noqa: E402
from core.common.claims import today  # noqa: E402
from bench.browser import ANCHOR, FIGURE, browser, rss_mb, server, time_first_view, wait_idle  # noqa: E402
from bench import report  # noqa: E402

BUDGET = {"cold_s": 3.0, "warm_s": 2.0}
# page path -> what marks its first view as drawn (pages without a figure wait for their title or table)
SELECTORS = {"": "h1", "claims": '[data-testid="stDataFrame"]', "interestingness": "h1"}


def pages() -> list[str]:
    return ["", "claims"] + [s.key for s in SYSTEMS if s.built]


def first_view(new_page, url: str, path: str) -> float:
    """Seconds until ``path``'s main figure (or title, or table) is drawn in a new tab of ``new_page``'s browser."""
    return time_first_view(new_page, f"{url}/{path}", SELECTORS.get(path, FIGURE))


def cold(path: str, script: str, repeats: int, launch: str = "streamlit run") -> dict:
    """``path`` opened as the first URL of ``repeats`` fresh servers, each in a fresh browser: the median."""
    colds, healthy, rss = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with server(script, launch=launch) as (url, pid), browser() as new_page:
            healthy.append(time.perf_counter() - t0)
            colds.append(first_view(new_page, url, path))
            rss.append(rss_mb(pid))
    return {"cold_s": statistics.median(colds), "cold_samples_s": colds,
            "start_to_healthy_s": statistics.median(healthy), "rss_after_first_view_mb": statistics.median(rss)}


def warm(paths: list[str], script: str, repeats: int, launch: str = "streamlit run") -> dict:
    """On one server whose warm-up is over: each path's warm views (new tabs, each on an idle server, the
    median), a new visitor's view (a fresh browser profile), and the server's memory and wait for the warm-up."""
    views = {}
    with server(script, launch=launch) as (url, pid):
        ready = time.perf_counter()
        # the warm-up's delay starts just before the server listens: wait it out, then for the CPU to go idle
        time.sleep(max(0.0, ready + warm_delay() + 1.0 - time.perf_counter()))
        served = {"warm_up_wait_s": wait_idle(pid), "rss_after_warm_up_mb": rss_mb(pid)}
        with browser() as new_page:
            for path in paths:
                wait_idle(pid, quiet_s=1.0)
                first_view(new_page, url, path)   # not counted: the browser caches the page's code
                samples = []
                for _ in range(repeats):
                    # each tab on an idle server: the last tab's page goes on running (the rest of its script, the
                    # pictures' upgrade) after its figure is drawn, and tabs taken back to back would measure that
                    wait_idle(pid, quiet_s=1.0)
                    samples.append(first_view(new_page, url, path))
                views[path] = {"warm_s": statistics.median(samples), "warm_samples_s": samples, **served}
        for path in paths:
            wait_idle(pid, quiet_s=1.0)
            with browser() as fresh_page:   # a new visitor on the warm server: nothing cached in their browser
                views[path]["new_visitor_s"] = first_view(fresh_page, url, path)
    return views


def measure(paths: list[str], script: str, cold_repeats: int, warm_repeats: int, launch: str = "streamlit run") -> dict:
    """Every path cold, then warm, for one launch command: each path's figures, the warm server's included."""
    colds = {path: cold(path, script, cold_repeats, launch) for path in paths}
    warms = warm(paths, script, warm_repeats, launch)
    return {path or "home": {**colds[path], **warms[path]} for path in paths}


def with_anchor(entry: dict, anchor: dict) -> dict:
    """A page's figures with the anchor of the run that measured them, and its ratios to that anchor."""
    return {**entry, "anchor": {k: anchor[k] for k in ("cold_s", "warm_s", "new_visitor_s", "rss_after_first_view_mb")},
            "cold_ratio_to_anchor": entry["cold_s"] / anchor["cold_s"],
            "warm_ratio_to_anchor": entry["warm_s"] / anchor["warm_s"],
            "new_visitor_ratio_to_anchor": entry["new_visitor_s"] / anchor["new_visitor_s"],
            "rss_ratio_to_anchor": entry["rss_after_first_view_mb"] / anchor["rss_after_first_view_mb"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launch", choices=LAUNCHES, action="append",
                        help="measure this launch command (repeatable; default: every one)")
    parser.add_argument("--warm-repeats", type=int, default=5)
    parser.add_argument("--cold-repeats", type=int, default=3, help="fresh servers per page (the median is reported)")
    parser.add_argument("--pages", nargs="*", help="page paths (default: home, claims and every built page)")
    args = parser.parse_args(argv)
    paths = args.pages or pages()
    previous = report.RESULTS / "app.json"
    launches = json.loads(previous.read_text()).get("launches", {}) if previous.exists() else {}
    for launch in args.launch or LAUNCHES:
        with tempfile.TemporaryDirectory() as tmp:
            anchor_script = Path(tmp) / "anchor.py"
            anchor_script.write_text(ANCHOR)
            anchor = measure([""], str(anchor_script), args.cold_repeats, args.warm_repeats)["home"]
            measured = measure(paths, "app/main.py", args.cold_repeats, args.warm_repeats, launch)
        run = {"measured_at": today(), "cold_repeats": args.cold_repeats,
               "warm_repeats": args.warm_repeats}
        section = launches.setdefault(launch, {"pages": {}})["pages"]
        section.update({name: {**with_anchor(entry, anchor), **run} for name, entry in measured.items()})
    result = {"machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                          "cpus": os.cpu_count()}, "budget_s": BUDGET, "launches": launches}
    every = [m for section in launches.values() for m in section["pages"].values()]
    result["checks"] = {
        "every_cold_first_view_under_3s": all(m["cold_s"] < BUDGET["cold_s"] for m in every),
        "every_warm_first_view_under_2s": all(m["warm_s"] < BUDGET["warm_s"] for m in every),
        "every_page_measured_with_every_launch_command": set(launches) == set(LAUNCHES) and all(
            set(launches[n]["pages"]) >= {p or "home" for p in pages()} for n in LAUNCHES),
    }
    return report.write_results("app", result, table(result))


def span(values: list[float], digits: int = 2) -> str:
    low, high = min(values), max(values)
    return f"{low:.{digits}f}" if f"{low:.{digits}f}" == f"{high:.{digits}f}" else f"{low:.{digits}f} to {high:.{digits}f}"


def table(result: dict) -> str:
    launches = result["launches"]
    names = [n for n in LAUNCHES if n in launches]
    paths = [p or "home" for p in pages()]
    paths += [p for n in names for p in launches[n]["pages"] if p not in paths]
    every = [m for n in names for m in launches[n]["pages"].values()]
    repeats = sorted({(m["cold_repeats"], m["warm_repeats"]) for m in every})
    lines = ["First views in headless Chromium (navigation start to the main figure drawn, as the page notes it), "
             "for each command that starts the app. Cold = the page opened as the first URL of a fresh server, "
             "the median of " + " or ".join(str(c) for c, _ in repeats) + " fresh servers, each in a fresh browser; "
             "warm = the median of " + " or ".join(str(w) for _, w in repeats) + " new tabs on a server whose "
             "warm-up is over, each on an idle server. Each ratio is to the anchor (a bare Streamlit page with one "
             "chart) timed in the run that measured the page.", "",
             "| page | " + " | ".join(f"`{n}` cold (s) | / anchor | warm (s) | / anchor" for n in names) + " |",
             "|---|" + "---|---|---|---|" * len(names),
             "| anchor (bare page, one chart) | " + " | ".join(
                 f"{span([m['anchor']['cold_s'] for m in launches[n]['pages'].values()])} | 1 | "
                 f"{span([m['anchor']['warm_s'] for m in launches[n]['pages'].values()])} | 1" for n in names) + " |"]
    for path in paths:
        cells = []
        for n in names:
            m = launches[n]["pages"].get(path)
            cells.append("– | – | – | –" if m is None else f"{m['cold_s']:.2f} | {m['cold_ratio_to_anchor']:.2f} | "
                                                           f"{m['warm_s']:.2f} | {m['warm_ratio_to_anchor']:.2f}")
        lines.append(f"| {path} | " + " | ".join(cells) + " |")
    lines += ["", "New visitors (a fresh browser profile on the warm server), memory and start:", "",
              "| command | measured | worst new visitor (s) / anchor | RSS after first view (MB) | "
              "RSS after warm-up (MB) | anchor RSS (MB) | server healthy after (s) |", "|---|---|---|---|---|---|---|"]
    for n in names:
        section = launches[n]["pages"]
        worst_name, worst = max(section.items(), key=lambda kv: kv[1]["new_visitor_ratio_to_anchor"])
        column = lambda key: [m[key] for m in section.values()]  # noqa: E731
        lines.append(f"| `{n}` | {', '.join(sorted(set(column('measured_at'))))} | "
                     f"{worst['new_visitor_s']:.2f} ({worst_name}) / {worst['anchor']['new_visitor_s']:.2f} | "
                     f"{span(column('rss_after_first_view_mb'), 0)} | {span(column('rss_after_warm_up_mb'), 0)} | "
                     f"{span([m['anchor']['rss_after_first_view_mb'] for m in section.values()], 0)} | "
                     f"{span(column('start_to_healthy_s'))} |")
    lines += ["", f"Budgets: cold < {result['budget_s']['cold_s']:g} s, warm < {result['budget_s']['warm_s']:g} s, "
              "for every command. Both commands run the same start-up (app/main.py's lifespan, before the server "
              "listens). The memory after the warm-up is what a replica holds with PAPERLAB_WARM=all; "
              "PAPERLAB_WARM=none or a list of systems keeps it to what a replica serves.",
              "", "On this machine a run of every page takes longer than 20 minutes; it was measured in groups of "
              "pages (`--launch ... --pages ...`), each group with the anchor of its own run."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
