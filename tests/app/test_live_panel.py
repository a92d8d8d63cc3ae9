"""The live widget in a real script run: Start, progress drawn, a new run stops the old, Stop, Reset."""

import time

from streamlit.testing.v1 import AppTest


def script():
    import sys
    import time as _time
    from pathlib import Path

    sys.path.insert(0, str(Path.cwd()))
    import streamlit as st

    from app.ui.live import live_panel
    from core.common.progress import report

    def count(n, progress=None):
        for step in range(1, n + 1):
            _time.sleep(0.02)
            if not report(progress, step, n, {"loss": 1.0 / step}):
                break
        return step

    run = live_panel("demo", count, {"n": st.session_state.get("n", 500)})
    if run is not None and run.state == "done":
        st.success(f"finished after {run.result} steps")


def button(at, label):
    return next(b for b in at.button if b.label == label)


def test_panel_start_stop_reset():
    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    assert "Not started yet" in at.caption[0].value
    assert button(at, "Stop").disabled and button(at, "Reset").disabled

    button(at, "Train").click().run()
    first = at.session_state["liverun:demo"]
    assert first.alive and not button(at, "Stop").disabled
    time.sleep(0.3)
    at.run()
    assert not at.exception
    progress = at.get("progress")[0]
    assert "running · step" in progress.proto.text and progress.value > 0

    button(at, "Train").click().run()  # a new run stops the old one
    second = at.session_state["liverun:demo"]
    assert second is not first and not first.alive and first.state == "stopped"

    t0 = time.monotonic()
    button(at, "Stop").click().run()
    assert time.monotonic() - t0 < 2.0
    assert second.state == "stopped"
    assert "stopped · step" in at.get("progress")[0].proto.text

    button(at, "Reset").click().run()
    assert "liverun:demo" not in at.session_state
    assert "Not started yet" in at.caption[0].value


def test_panel_shows_the_result_when_done():
    at = AppTest.from_function(script, default_timeout=30)
    at.session_state["n"] = 5
    at.run()
    button(at, "Train").click().run()
    at.session_state["liverun:demo"].wait(5)
    at.run()
    assert not at.exception
    assert at.success[0].value == "finished after 5 steps"
    assert "done · step 5 / 5" in at.get("progress")[0].proto.text
