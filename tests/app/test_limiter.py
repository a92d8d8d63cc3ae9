"""The process-wide run limiter: a slot per run up to the limit, a first-come queue, a time to live.

Everything here waits on events, never on the clock: workers block until the test lets them go, and
the time-to-live is checked by calling ``reap`` with a chosen ``now``.
"""

import threading

import pytest

from app.ui.live import DONE, QUEUED, RUNNING, STOPPED, LiveRun, RunLimiter
from core.common.progress import report


def gated(gate: threading.Event, started: threading.Event | None = None, progress=None):
    """One progress call, then wait for the gate (or a stop), then one more: a run the test controls."""
    if started is not None:
        started.set()
    report(progress, 1, 2, {})
    while not gate.wait(0.005):
        if not report(progress, 1, 2, {}):
            return "stopped"
    return "done" if report(progress, 2, 2, {}) else "stopped"


def test_five_runs_under_a_limit_of_two_run_two_and_queue_three_in_order():
    limiter = RunLimiter(limit=2, ttl=3600, threads=1)
    gates = [threading.Event() for _ in range(5)]
    started = [threading.Event() for _ in range(5)]
    runs = [LiveRun(gated, run_limiter=limiter, gate=g, started=s) for g, s in zip(gates, started)]
    for run in runs:
        run.start()
    assert [r.state for r in runs] == [RUNNING, RUNNING, QUEUED, QUEUED, QUEUED]
    assert limiter.running == runs[:2] and limiter.queued == runs[2:]
    assert [r.snapshot().queue_position for r in runs] == [None, None, 1, 2, 3]
    assert started[0].wait(120) and started[1].wait(120) and not started[2].is_set()

    gates[1].set()                                   # the second run finishes: the first queued one starts
    assert runs[1].wait(120) and runs[1].state == DONE
    assert started[2].wait(120) and runs[2].state == RUNNING
    assert [r.snapshot().queue_position for r in runs[3:]] == [1, 2]
    assert len(limiter.running) == 2

    runs[3].stop()                                   # a queued run that is stopped never runs
    assert runs[3].state == STOPPED and runs[3].snapshot().queue_position is None
    assert runs[4].snapshot().queue_position == 1
    for gate in gates:
        gate.set()
    for run in (runs[0], runs[2], runs[4]):
        assert run.wait(120)
    assert runs[4].state == DONE and runs[4].result == "done" and not started[3].is_set()
    assert limiter.running == [] and limiter.queued == []


def test_a_run_nobody_watches_is_stopped_after_its_time_to_live():
    limiter = RunLimiter(limit=1, ttl=120, threads=1)
    gate = threading.Event()
    watched, abandoned, waiting = (LiveRun(gated, run_limiter=limiter, gate=gate) for _ in range(3))
    abandoned.start()
    waiting.start()
    assert abandoned.state == RUNNING and waiting.state == QUEUED
    seen = abandoned.last_seen
    waiting.touch()
    assert limiter.reap(now=seen + 119) == []        # within its time to live: left alone
    waiting.last_seen = seen + 200                   # the queued run's viewer is still polling
    stale = limiter.reap(now=seen + 121)
    assert stale == [abandoned]
    assert abandoned.wait(120) and abandoned.state == STOPPED and abandoned.result == "stopped"
    assert "nobody watched it for 120 s" in abandoned.snapshot().stop_reason
    assert waiting.state == RUNNING                  # its slot went to the queued run
    assert limiter.reap(now=seen + 400) == [waiting]    # and a queued run left alone leaves the queue too
    waiting.wait(120)
    assert waiting.state == STOPPED
    watched.start()                                  # the slot is free again
    gate.set()
    assert watched.wait(120) and watched.state == DONE


def test_stop_is_seen_at_the_next_progress_call():
    limiter = RunLimiter(limit=1, ttl=3600, threads=1)
    started, gate = threading.Event(), threading.Event()
    run = LiveRun(gated, run_limiter=limiter, gate=gate, started=started).start()
    assert started.wait(120)
    run.stop(timeout=10)
    assert run.state == STOPPED and run.result == "stopped"
    assert run.calls_after_stop == 1                 # the first call after the stop returned False, and it ended


@pytest.mark.parametrize("name, value", [("PAPERLAB_MAX_RUNS", "0"), ("PAPERLAB_MAX_RUNS", "two"),
                                         ("PAPERLAB_RUN_TTL", "-5")])
def test_bad_limits_from_the_environment_name_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"^{name}: "):
        RunLimiter()


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("PAPERLAB_MAX_RUNS", "3")
    monkeypatch.setenv("PAPERLAB_RUN_TTL", "30")
    limiter = RunLimiter()
    assert (limiter.limit, limiter.ttl, limiter.threads) == (3, 30.0, 1)


def test_a_worker_gives_torch_its_share_of_the_cores():
    import torch

    before = torch.get_num_threads()
    seen = []
    run = LiveRun(lambda progress=None: seen.append(torch.get_num_threads()),
                  run_limiter=RunLimiter(limit=1, ttl=3600, threads=1)).start()
    assert run.wait(120) and run.state == DONE
    assert seen == [1]
    torch.set_num_threads(before)
