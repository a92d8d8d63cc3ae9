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


def hides_streamlit_stop(at):
    """Whether the page holds the style that hides Streamlit's status widget (st.html lands in the event block)."""
    from app.ui.live import HIDE_STREAMLIT_STOP

    def nodes(node):
        yield node
        for child in getattr(node, "children", {}).values():
            yield from nodes(child)

    return any(getattr(getattr(n, "proto", None), "body", None) == HIDE_STREAMLIT_STOP for n in nodes(at._tree))


def button(at, label):
    return next(b for b in at.button if b.label == label)


def test_panel_start_stop_reset():
    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    assert "Not started yet" in at.caption[0].value
    assert button(at, "Stop").disabled and button(at, "Reset").disabled

    assert not hides_streamlit_stop(at)
    button(at, "Train").click().run()
    first = at.session_state["liverun:demo"]
    assert first.alive and not button(at, "Stop").disabled
    assert hides_streamlit_stop(at)               # one Stop on the page while the run is going: the panel's
    while first.snapshot().step < 10 and first.alive:   # until the worker has reported (no clock involved)
        time.sleep(0.02)
    at.run()
    assert not at.exception
    progress = at.get("progress")[0]
    assert "running · step" in progress.proto.text and progress.value > 0

    button(at, "Train").click().run()  # a new run stops the old one
    second = at.session_state["liverun:demo"]
    assert second is not first and not first.alive and first.state == "stopped"

    button(at, "Stop").click().run()
    assert second.wait(120) and second.state == "stopped"
    assert second.calls_after_stop <= 1          # the count saw the stop at its next progress call
    assert "stopped · step" in at.get("progress")[0].proto.text

    button(at, "Reset").click().run()
    assert "liverun:demo" not in at.session_state
    assert "Not started yet" in at.caption[0].value


def test_panel_shows_the_result_when_done():
    at = AppTest.from_function(script, default_timeout=30)
    at.session_state["n"] = 5
    at.run()
    button(at, "Train").click().run()
    assert at.session_state["liverun:demo"].wait(120)
    at.run()
    assert not at.exception
    assert at.success[0].value == "finished after 5 steps"
    assert "done · step 5 / 5" in at.get("progress")[0].proto.text


def typed_script():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path.cwd()))
    import streamlit as st

    from app.ui.live import live_panel

    def echo(api_key, model, progress=None):
        return {"api_key": api_key, "model": model}

    st.text_input("API key", key="api_key", type="password")
    st.text_input("Model", key="model", value="tiny")
    # api_key through from_state, model through a callable read at the click: both see the typed values
    run = live_panel("typed", echo, lambda: {"api_key": "", "model": st.session_state["model"]},
                     start_label="Rate", from_state={"api_key": "api_key"})
    if run is not None and run.state == "done":
        st.success(f"sent {run.result['api_key']} for {run.result['model']}")


def test_a_value_typed_just_before_the_click_is_the_one_used():
    at = AppTest.from_function(typed_script, default_timeout=30).run()
    at.text_input(key="api_key").input("sk-typed")      # typed, and the button clicked before any rerun
    at.text_input(key="model").input("big")
    button(at, "Rate").click().run()
    run = at.session_state["liverun:typed"]
    assert run.wait(120)
    at.run()
    assert run.result == {"api_key": "sk-typed", "model": "big"}
    assert at.success[0].value == "sent sk-typed for big"


def keyed_script():
    import sys
    import threading
    from pathlib import Path

    sys.path.insert(0, str(Path.cwd()))
    import streamlit as st

    from app.ui.live import live_panel
    from core.common.progress import report

    def wait_for_stop(progress=None):
        while report(progress, 1, 2, {}):
            threading.Event().wait(0.01)
        return "stopped"

    size = st.number_input("Size", key="size", value=1, min_value=1, max_value=9)
    live_panel(f"keyed:{size}", wait_for_stop, {})


def test_changing_a_control_in_the_key_stops_the_old_run():
    at = AppTest.from_function(keyed_script, default_timeout=30).run()
    button(at, "Train").click().run()
    old = at.session_state["liverun:keyed:1"]
    assert old.alive
    at.number_input(key="size").set_value(2).run()       # a new key for the same panel
    assert old.wait(120) and old.state == "stopped"
    assert "a control it depends on changed" in old.snapshot().stop_reason
    assert button(at, "Stop").disabled                  # the new key's panel has no run yet
