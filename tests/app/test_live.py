"""LiveRun: a core-style function through start, progress, Stop (within a second) and Reset."""

import threading
import time

import pytest

from app.ui.live import DONE, FAILED, IDLE, RUNNING, STOPPED, LiveRun
from core.common.progress import report


def slow_count(n=1000, delay=0.01, progress=None):
    """Follows the protocol: one step per ``delay`` seconds, stops when the callback says so."""
    done = 0
    for step in range(1, n + 1):
        time.sleep(delay)
        done = step
        if not report(progress, step, n, {"loss": 1.0 / step, "label": "not a number"}):
            break
    return {"steps_done": done}


def wait_until(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_start_progress_stop_reset():
    run = LiveRun(slow_count, n=1000, delay=0.01)
    assert run.state == IDLE and run.snapshot().fraction == 0.0
    run.start()
    assert run.state == RUNNING
    assert wait_until(lambda: run.snapshot().step >= 5)
    snap = run.snapshot()
    assert snap.total == 1000 and 0 < snap.fraction < 1
    assert snap.history[0] == {"step": 1, "loss": 1.0}  # non-numeric metrics are dropped

    assert run.stop(timeout=10) is True
    assert run.state == STOPPED and not run.alive
    assert run.calls_after_stop <= 1             # the stop was seen at the next progress call
    assert 5 <= run.result["steps_done"] < 1000
    assert run.result["steps_done"] == run.snapshot().step

    run.reset()
    assert run.state == IDLE and run.history == [] and run.result is None
    run.start()
    assert wait_until(lambda: run.snapshot().step >= 1)
    run.stop()


def test_completes_with_result_and_full_history():
    run = LiveRun(slow_count, n=20, delay=0.0).start()
    assert run.wait(120)
    assert run.state == DONE and run.result == {"steps_done": 20}
    snap = run.snapshot()
    assert [row["step"] for row in snap.history] == list(range(1, 21))
    assert snap.fraction == 1.0 and snap.state == DONE and not snap.stop_requested


def test_a_failure_is_captured_not_lost():
    def broken(progress=None):
        report(progress, 1, 3, {"loss": 1.0})
        raise ValueError("lr: -1 is out of range; allowed in (0, 1]")

    run = LiveRun(broken).start()
    assert run.wait(120)
    assert run.state == FAILED
    assert str(run.error) == "lr: -1 is out of range; allowed in (0, 1]"
    assert "ValueError" in run.traceback and run.history == [{"step": 1, "loss": 1.0}]


def test_cannot_start_twice_and_snapshot_is_a_copy():
    run = LiveRun(slow_count, n=1000, delay=0.005).start()
    with pytest.raises(RuntimeError, match="already started"):
        run.start()
    wait_until(lambda: run.snapshot().step >= 2)
    snap = run.snapshot()
    frozen = len(snap.history)
    wait_until(lambda: run.snapshot().step >= frozen + 3)
    assert len(snap.history) == frozen
    run.stop()


def test_workers_are_daemon_threads():
    run = LiveRun(slow_count, n=1000, delay=0.01).start()
    threads = [t for t in threading.enumerate() if t.name.startswith("liverun-")]
    assert threads and all(t.daemon for t in threads)
    run.stop()


def test_curves_of_one_quantity_share_a_chart_and_others_keep_their_own():
    from app.ui.live import curve_groups

    names = ["log10 error · SGD", "loss", "log10 error · Adam", "log10 error · Surrogate", "accuracy · train"]
    assert curve_groups(names) == {"log10 error": ["log10 error · SGD", "log10 error · Adam", "log10 error · Surrogate"],
                                   "loss": ["loss"], "accuracy": ["accuracy · train"]}
    assert curve_groups([]) == {}
