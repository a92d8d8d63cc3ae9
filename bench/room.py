"""A room of visitors: twelve browser sessions press the same page's default Train button at once.

A real server (``streamlit run app/main.py``, ``PAPERLAB_MAX_RUNS`` at its default, the number of cores)
serves twelve headless Chromium sessions that open one page and press its live panel's start button
within a second of each other. Every half second the script reads each session's progress text
("running", "queued, position N", "done") and polls ``/_stcore/health`` from another thread. It
reports the most runs seen working at once (never above the limit), that every session either
finished or showed its queue position, the health endpoint's slowest answer, and how long the room
took. The page is robust_decisions with a new seed: its rate experiment (10 noise levels x 5
replicates) is the shortest default live run of the built pages.

    python bench/room.py                     # writes bench/results/room.json and .md
    python bench/room.py --sessions 6 --page "robust_decisions?seed=3"
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import CHROMIUM_FLAGS, chromium, server  # noqa: E402
from bench.report import write_results  # noqa: E402

PAGE = "robust_decisions?seed=1"
STATES = ("running", "stopping", "queued", "done", "stopped", "failed")


def health_poller(url: str, stop: threading.Event, out: list, start: float) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=30) as response:
                ok = response.read() == b"ok"
        except OSError:
            ok = False
        out.append((t0 - start, time.perf_counter() - t0, ok))
        stop.wait(0.5)


def state_of(text: str) -> tuple[str | None, int | None]:
    """The run state and queue position in a panel's progress text."""
    match = re.search(r"queued, position (\d+)", text)
    if match:
        return "queued", int(match.group(1))
    for state in STATES:
        if text.startswith(state):
            return state, None
    return None, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=12)
    parser.add_argument("--page", default=PAGE)
    parser.add_argument("--limit-s", type=float, default=900.0, help="give up after this many seconds")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    limit = int(os.environ.get("PAPERLAB_MAX_RUNS") or os.cpu_count() or 1)
    samples, health, seen_queued = [], [], set()
    with server() as (url, _proc), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), headless=True, args=CHROMIUM_FLAGS)
        pages = [browser.new_context(viewport={"width": 1280, "height": 900}).new_page() for _ in range(args.sessions)]
        for page in pages:
            page.goto(f"{url}/{args.page}", wait_until="domcontentloaded")
        buttons = [page.locator('button:has-text("Run the rate experiment")').first for page in pages]
        for button in buttons:
            button.wait_for(timeout=120_000)
        stop = threading.Event()
        t0 = time.perf_counter()
        poller = threading.Thread(target=health_poller, args=(url, stop, health, t0), daemon=True)
        poller.start()
        for button in buttons:
            button.click()
        final: list[str | None] = [None] * len(pages)
        while time.perf_counter() - t0 < args.limit_s:
            row = []
            for i, page in enumerate(pages):
                texts = page.locator('[data-testid="stProgress"]').all_inner_texts()   # no waiting
                state, position = state_of(texts[0].strip() if texts else "")
                row.append(state)
                if state == "queued":
                    seen_queued.add(i)
                if state in ("done", "stopped", "failed"):
                    final[i] = state
            samples.append({"t": time.perf_counter() - t0, "running": row.count("running") + row.count("stopping"),
                            "queued": row.count("queued"), "finished": sum(f is not None for f in final)})
            if all(f is not None for f in final):
                break
            time.sleep(0.5)
        stop.set()
        poller.join(5)
        browser.close()
    room_s = time.perf_counter() - t0
    latencies = [t for _, t, _ in health]
    result = {"page": args.page, "sessions": args.sessions, "limit": limit, "room_s": room_s,
              "max_running": max(s["running"] for s in samples), "max_queued": max(s["queued"] for s in samples),
              "sessions_seen_queued": len(seen_queued), "final_states": final,
              "health": {"polls": len(health), "all_ok": all(ok for _, _, ok in health),
                         "slowest_s": max(latencies), "median_s": sorted(latencies)[len(latencies) // 2],
                         "samples": [{"t": t, "latency_s": lat, "ok": ok} for t, lat, ok in health]},
              "timeline": samples}
    result["checks"] = {
        "never_more_than_the_limit_running": result["max_running"] <= limit,
        "every_session_finished": all(f == "done" for f in final),
        "sessions_over_the_limit_saw_their_position": result["sessions_seen_queued"] >= args.sessions - limit,
        "health_answered_throughout": result["health"]["all_ok"],
    }
    return write_results("room", result, table(result))


def table(r: dict) -> str:
    h = r["health"]
    return "\n".join([
        f"{r['sessions']} headless Chromium sessions pressed the live panel's start button on `{r['page']}` "
        f"at once (limit {r['limit']} runs).", "",
        "| measure | value |", "|---|---|",
        f"| most runs working at once | {r['max_running']} |",
        f"| most runs queued at once | {r['max_queued']} |",
        f"| sessions that showed a queue position | {r['sessions_seen_queued']} |",
        f"| sessions finished | {sum(f == 'done' for f in r['final_states'])} of {r['sessions']} |",
        f"| room done after (s) | {r['room_s']:.1f} |",
        f"| /_stcore/health: polls, all ok | {h['polls']}, {h['all_ok']} |",
        f"| /_stcore/health: median, slowest answer (s) | {h['median_s']:.3f}, {h['slowest_s']:.3f} |",
    ]) + "\n"


if __name__ == "__main__":
    sys.exit(main())
