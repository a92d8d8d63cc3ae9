"""Stop means stopped: every page's default live run, stopped after its first step, ends at its next step.

Each page module names in ``LIVE`` the URL parameters that show its live panels (empty when they show
by default). For every panel, the test clicks its start button, waits for the first progress call,
clicks Stop and waits for the worker: the run must end "stopped" (never "done"), having made at most
one progress call after the stop, so no final evaluation runs unchecked after a visitor's Stop.
"""

import importlib
import threading

import pytest

from app.catalog import SYSTEMS
from tests.pages import apptest

PAGES = [s.key for s in SYSTEMS if s.built and s.key != "interestingness"]


def wait_for(predicate, limit=300.0):
    """Poll ``predicate`` until it holds (True) or ``limit`` seconds pass (False); never an assertion on time."""
    done = threading.Event()
    for _ in range(int(limit / 0.02)):
        if predicate():
            return True
        done.wait(0.02)
    return False


@pytest.mark.parametrize("key", PAGES)
def test_every_live_panel_stops_at_its_next_step(key):
    params = getattr(importlib.import_module(f"pages.{key}"), "LIVE")
    at = apptest.open_page(key, timeout=120, **params)
    starts = [b.key for b in at.button if b.key and b.key.startswith("liverun:") and b.key.endswith(":start")]
    assert starts, f"{key}: no live panel with LIVE = {params}"
    for start in starts:
        slot = start.removesuffix(":start")
        at.button(key=start).click().run()
        run = at.session_state[slot]
        assert wait_for(lambda: run.snapshot().step >= 1 or run.finished), (key, slot, "no progress")
        ended_before_stop = run.finished      # a run of a few quick steps may end before the click lands
        stop = at.button(key=f"{slot}:stop")
        if stop.disabled:                     # it ended before the page was drawn: there is no Stop to press
            assert run.finished, (key, slot, "Stop is disabled while the run is going")
            ended_before_stop = True
        else:
            stop.click().run()
        assert run.wait(300), (key, slot, "the worker did not end after Stop")
        # "done" is decided under the run's lock only when Stop had not yet been asked for as the function
        # returned, so a "done" run whose Stop was pressed had finished before the click landed (a quick last
        # step); a Stop that never reached the run leaves stop_requested False and fails here
        ended_before_stop = ended_before_stop or (run.state == "done" and run.snapshot().stop_requested)
        assert run.state == "stopped" or (ended_before_stop and run.state == "done"), (key, slot, run.state, run.error)
        assert run.calls_after_stop <= 1, (key, slot, run.calls_after_stop)
        at.run()
        assert not at.exception, (key, slot, [e.message for e in at.exception])
