"""A served script run ends without a full garbage collection (``runner.postScriptGC`` is off in
.streamlit/config.toml). Every fragment poll of a live run is a script run; on a warmed server a full
collection walks about 800,000 objects holding the GIL (0.4 to 0.5 s), so with two visitors watching their
runs, a collection after each would make each run several times slower (see app/ui/warmup.py). AppTest's
runner never collects, so this needs a real server: the script counts full collections with a ``gc`` callback,
and each new tab is one more run."""

import pytest

from bench.browser import browser, server

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

SCRIPT = """import gc, sys
import streamlit as st
log = sys.modules.setdefault("_full_collections", type(sys)("_full_collections"))
if not hasattr(log, "count"):
    log.count = 0
    gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2
                        and setattr(log, "count", log.count + 1))
st.markdown(f"full collections: {log.count}")
"""


def full_collections_seen(tmp_path, env: dict, runs: int = 4) -> int:
    script = tmp_path / "count_gc.py"
    script.write_text(SCRIPT)
    with server(str(script), env=env) as (url, _proc), browser() as new_page:
        text = ""
        for _ in range(runs):
            page = new_page()
            page.goto(url)
            text = page.get_by_text("full collections:").inner_text(timeout=60_000)
            page.close()
    return int(text.rsplit(":", 1)[1])   # collections after the first run, seen by the last one


def test_a_served_run_ends_without_a_full_collection(tmp_path):
    assert full_collections_seen(tmp_path, {}) == 0


def test_control_with_the_option_on_every_run_ends_with_one(tmp_path):
    assert full_collections_seen(tmp_path, {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"}) >= 3
