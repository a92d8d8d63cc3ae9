"""However the app is started (``streamlit run app/main.py`` or ``make run``), its start-up has run once in the
server process before the server listens, so the first page opened finds the page modules imported; opening pages
does not run it again. The server's log says so: :func:`app.ui.warmup.start_up` prints one line when it is done."""

from pathlib import Path

import pytest

from app.server import LAUNCHES, free_port, start_server, stop_server, wait_healthy
from app.ui.warmup import page_modules
from bench.browser import FIGURE, browser, time_first_view

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

ENV = {"PAPERLAB_WARM": "grace", "PAPERLAB_WARM_DELAY": "600"}   # one system's pages; no warm-up during the test
OPENED = [("grace", FIGURE), ("", "h1"), ("grace", FIGURE)]        # a link to a page first, then home, then again


def start_ups(log: Path) -> list[str]:
    return [line for line in log.read_text(errors="replace").splitlines() if line.startswith("Paperlab start-up:")]


def served(tmp_path, script: str, launch: str, opened=OPENED) -> tuple[list[str], list[str]]:
    """The start-up lines of a fresh server's log when it first answers healthy, and after ``opened`` pages."""
    log, port = tmp_path / "server.log", free_port()
    proc = start_server(port, log, script=script, env=ENV, launch=launch)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=120)
        at_listen = start_ups(log)
        with browser() as new_page:
            for path, selector in opened:
                assert time_first_view(new_page, f"{url}/{path}", selector, timeout_s=120) > 0
        return at_listen, start_ups(log)
    finally:
        stop_server(proc)


@pytest.mark.parametrize("launch", LAUNCHES)
def test_the_start_up_runs_once_before_the_server_listens(tmp_path, launch):
    at_listen, after_pages = served(tmp_path, "app/main.py", launch)
    pages = len(page_modules("grace"))
    assert len(at_listen) == 1 and at_listen[0].startswith(f"Paperlab start-up: {pages} page modules imported in ")
    assert after_pages == at_listen            # once per process: opening pages does not start it again


def test_control_the_shell_alone_skips_the_start_up(tmp_path):
    """Served without app/main.py's lifespan, a page is drawn all the same and the check above fails."""
    at_listen, after_pages = served(tmp_path, "app/shell.py", "streamlit run", opened=OPENED[:1])
    assert at_listen == [] and after_pages == []
