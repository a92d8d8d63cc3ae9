"""Live runs: a core function trains in a worker thread while a fragment draws its progress.

:class:`LiveRun` is plain threading with no Streamlit in it: the worker calls the core function
with a progress callback that records ``(step, total, metrics)`` under a lock and returns False
once Stop was asked for. :func:`live_panel` is the widget: Start / Stop / Reset buttons and an
``st.fragment`` that polls the run and draws a progress bar and one curve per metric. Nothing
calls ``st.*`` from the worker thread.

One run per browser session per page: the run lives in ``st.session_state`` under the page's
key, and starting a new one stops the old. A core function that never returns False to its own
progress check cannot be interrupted; every core function in Paperlab honours the protocol.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

IDLE, RUNNING, DONE, STOPPED, FAILED = "idle", "running", "done", "stopped", "failed"


@dataclass(frozen=True)
class Snapshot:
    """A consistent copy of a run's state, safe to draw while the worker goes on."""

    state: str
    step: int
    total: int | None
    elapsed: float
    stop_requested: bool
    history: list = field(default_factory=list)

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / self.total) if self.total else 0.0


class LiveRun:
    """``fn(**kwargs, progress=callback)`` in a daemon thread, observable and stoppable."""

    def __init__(self, fn: Callable[..., Any], /, **kwargs: Any):
        self.fn, self.kwargs = fn, kwargs
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.reset()

    def reset(self) -> None:
        """Stop any work in flight and return to a fresh, startable state."""
        if self._thread is not None:
            self.stop()
        self._stop = threading.Event()
        self._thread = None
        self.state, self.step, self.total = IDLE, 0, None
        self.history: list[dict] = []
        self.result: Any = None
        self.error: BaseException | None = None
        self.traceback: str | None = None
        self._started = self._finished = None
        self.announced = False  # set by the page once it has shown the finished run

    def start(self) -> "LiveRun":
        if self.state != IDLE:
            raise RuntimeError("LiveRun: already started; call reset() or make a new run")
        self.state, self._started = RUNNING, time.monotonic()
        self._thread = threading.Thread(target=self._work, name=f"liverun-{getattr(self.fn, '__name__', 'fn')}",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> bool:
        """Ask the run to stop and wait up to ``timeout`` s; True if the worker has ended."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        return not self.alive

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.alive

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def finished(self) -> bool:
        return self.state in (DONE, STOPPED, FAILED)

    def snapshot(self) -> Snapshot:
        with self._lock:
            end = self._finished or time.monotonic()
            elapsed = end - self._started if self._started else 0.0
            return Snapshot(self.state, self.step, self.total, elapsed, self._stop.is_set(), list(self.history))

    def _progress(self, step: int, total: int, metrics: Mapping[str, float]) -> bool:
        row = {"step": int(step)}
        row.update({k: float(v) for k, v in metrics.items() if _is_number(v)})
        with self._lock:
            self.step, self.total = int(step), int(total)
            self.history.append(row)
        return not self._stop.is_set()

    def _work(self) -> None:
        try:
            result = self.fn(**self.kwargs, progress=self._progress)
        except Exception as exc:  # shown on the page; the worker must never die silently
            with self._lock:
                self.error, self.traceback = exc, traceback.format_exc()
                self.state, self._finished = FAILED, time.monotonic()
        else:
            with self._lock:
                self.result = result
                self.state = STOPPED if self._stop.is_set() else DONE
                self._finished = time.monotonic()


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bytes))


def live_panel(key: str, fn: Callable[..., Any], kwargs: Mapping[str, Any], *, start_label: str = "Train",
               poll_seconds: float = 0.5) -> LiveRun | None:
    """Start / Stop / Reset and a live progress view for ``fn(**kwargs, progress=...)``.

    ``key`` names the page's slot (one run per browser session per page). Returns the current run,
    finished or not, so the page can draw ``run.result`` once ``run.state == "done"``.
    """
    import streamlit as st

    slot = f"liverun:{key}"
    # Callbacks run before the script, so the buttons below are drawn in the state they caused.
    run: LiveRun | None = st.session_state.get(slot)
    with st.container(horizontal=True):
        st.button(start_label, key=f"{slot}:start", type="primary", icon=":material/play_arrow:",
                  on_click=_start, args=(slot, fn, dict(kwargs)))
        st.button("Stop", key=f"{slot}:stop", icon=":material/stop:", disabled=run is None or not run.alive,
                  on_click=_stop, args=(slot,))
        st.button("Reset", key=f"{slot}:reset", icon=":material/restart_alt:", disabled=run is None,
                  on_click=_reset, args=(slot,))

    @st.fragment(run_every=poll_seconds if run is not None and run.alive else None)
    def progress_view() -> None:
        _draw(st.session_state.get(slot))

    progress_view()
    return run


def _start(slot: str, fn: Callable[..., Any], kwargs: dict) -> None:
    import streamlit as st

    _stop(slot)
    st.session_state[slot] = LiveRun(fn, **kwargs).start()


def _stop(slot: str) -> None:
    import streamlit as st

    run = st.session_state.get(slot)
    if run is not None:
        run.stop()


def _reset(slot: str) -> None:
    import streamlit as st

    _stop(slot)
    st.session_state.pop(slot, None)


def _draw(run: LiveRun | None) -> None:
    import streamlit as st

    from app.ui.plots import metric_curves, show

    if run is None:
        st.caption("Not started yet: press the button above to run it live on this machine.")
        return
    snap = run.snapshot()
    total = snap.total if snap.total is not None else "?"
    label = {RUNNING: "stopping" if snap.stop_requested else "running"}.get(snap.state, snap.state)
    st.progress(snap.fraction, text=f"{label} · step {snap.step} / {total} · {snap.elapsed:.1f} s")
    if len(snap.history) > 0:
        show(metric_curves(snap.history))
    if snap.state == FAILED:
        if isinstance(run.error, ValueError):
            st.error(str(run.error))
        else:
            st.error(f"The run failed: {type(run.error).__name__}: {run.error}")
            with st.expander("Traceback"):
                st.code(run.traceback or "", language="text")
    if run.finished and not run.announced:
        run.announced = True
        st.rerun()  # a full rerun, so the page draws the result and the fragment stops polling
