"""What a browser sees: servers started the way users start them, pages timed in headless Chromium.

Shared by ``bench/app.py`` (cold and warm first views) and ``bench/room.py`` (a room of visitors).
A first view is timed from the navigation's start until the page's first figure is drawn (its
shipped picture, or its plotly chart's SVG; for a page without one, its title), in Debian's Chromium
with the project's flags.

The page itself notes when that happens (:data:`DRAWN_AT`, a script installed before the page's own,
checking every 10 ms and on every change of the document), on its own clock from the navigation's start.
Playwright's ``wait_for(state="visible")`` asks from outside, at 0.02, 0.05, 0.1, 0.1, then every 0.5 s,
each ask waiting for the page's main thread: measured on geto_lp (fresh server and browser), a picture
drawn at 2.63 s was reported at 4.77 s, after the chart that replaced it.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from app.server import free_port, start_server, stop_server, wait_healthy

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# a first view's figure: its shipped picture (app/ui/pictures.py) or its plotly chart, whichever is drawn
FIGURE = '[data-testid="stImage"] img, .js-plotly-plot .main-svg'
ANCHOR = ("import plotly.graph_objects as go\nimport streamlit as st\nst.title('Anchor')\n"
          "st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[1, 0, 1])))\n")


def chromium() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Debian chromium is missing: apt-get install -y chromium")
    return path


@contextmanager
def server(script: str = "app/main.py", env: dict | None = None, launch: str = "streamlit run"):
    """A fresh server on a free port, started by ``launch`` (``app.server.LAUNCHES``): yields (url, pid of the
    Python process that serves); stopped on exit."""
    stop_on_sigterm()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(port, Path(tmp) / "server.log", script=script, env=env, launch=launch)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc, timeout=120)
            yield url, serving_pid(proc.pid)
        finally:
            stop_server(proc)


def stop_on_sigterm() -> None:
    """Turn SIGTERM (a time limit, ``guard``'s included) into ``SystemExit`` in the main thread, so that the servers
    a bench started, each in a session of its own that the signal does not reach, are stopped on the way out."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))


def serving_pid(pid: int) -> int:
    """The process that serves: ``pid`` itself, or for ``make run`` the Python process make started."""
    while (Path(f"/proc/{pid}/exe").resolve().name.startswith("make")
           and (children := Path(f"/proc/{pid}/task/{pid}/children").read_text().split())):
        pid = int(children[0])
    return pid


@contextmanager
def browser(width: int = 1280, height: int = 900):
    """A headless Chromium with a fresh profile: yields a function that opens a new, empty page."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(profile, executable_path=chromium(), headless=True,
                                                        args=CHROMIUM_FLAGS, viewport={"width": width,
                                                                                        "height": height})
        try:
            yield context.new_page
        finally:
            context.close()


# whether an element is drawn (a JavaScript function): a box of non-zero size, not hidden, and for a picture its
# image loaded; the page's own note of when the first element matching a selector is drawn (milliseconds on the
# page's clock, from the navigation's start)
DRAWN = """el => { const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none'
      && (el.tagName !== 'IMG' || (el.complete && el.naturalWidth > 0)); }"""
DRAWN_AT = """(() => { const selector = %s; let timer = null;
  const drawn = """ + DRAWN.replace("%", "%%") + """;
  const check = () => { if (window.__paperlabDrawnAt !== undefined) return;
    const el = document.querySelector(selector);
    if (el && drawn(el)) { window.__paperlabDrawnAt = performance.now(); clearInterval(timer); observer.disconnect(); } };
  const observer = new MutationObserver(check);
  observer.observe(document, {subtree: true, childList: true, attributes: true});
  timer = setInterval(check, 10);
  document.addEventListener('load', check, true);
})();"""


def watch_first_view(page, selector: str = FIGURE) -> None:
    """Have ``page`` note when its first ``selector`` is drawn (call before navigating; read with
    :func:`first_view_s`)."""
    page.add_init_script(DRAWN_AT % json.dumps(selector))


def first_view_s(page, timeout_s: float = 180.0) -> float:
    """Seconds from the navigation's start until the watched element was drawn, as the page noted it."""
    page.wait_for_function("() => window.__paperlabDrawnAt !== undefined", polling=50, timeout=timeout_s * 1000)
    return page.evaluate("window.__paperlabDrawnAt") / 1000.0


def time_first_view(new_page, url: str, selector: str = FIGURE, timeout_s: float = 180.0) -> float:
    """Seconds from the start of loading ``url`` in a new page until its first ``selector`` is drawn there."""
    page = new_page()
    try:
        watch_first_view(page, selector)
        page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        return first_view_s(page, timeout_s)
    finally:
        page.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0   # utime, stime in clock ticks (USER_HZ = 100)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_idle(pid: int, quiet_s: float = 2.0, busy_share: float = 0.2, limit_s: float = 120.0) -> float:
    """Wait until the process used under ``busy_share`` of a core for ``quiet_s`` seconds (its warm-up is
    over); returns the seconds waited.

    An idle Streamlit server is never quite still: it polls its config files every 0.2 s (5 to 9% of a core
    on this machine, a bare page's server included), while an import or a script run takes a whole core.
    """
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        before = cpu_seconds(pid)
        time.sleep(quiet_s)
        if cpu_seconds(pid) - before < busy_share * quiet_s:
            break
    return time.monotonic() - start
