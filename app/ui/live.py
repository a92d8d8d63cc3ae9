"""Live runs: a core function trains in a worker thread while a fragment draws its progress.

:class:`LiveRun` is plain threading with no Streamlit in it: the worker calls the core function
with a progress callback that records ``(step, total, metrics)`` under a lock and returns False
once Stop was asked for. :func:`live_panel` is the widget: Start / Stop / Reset buttons and an
``st.fragment`` that polls the run and draws a progress bar and one curve per metric. Nothing
calls ``st.*`` from the worker thread.

A room full of visitors shares one machine, so runs go through one process-wide :class:`RunLimiter`:

- at most ``PAPERLAB_MAX_RUNS`` runs work at once (default: the number of cores); a run over the
  limit waits in a first-come queue and its panel shows "queued, position N";
- each worker leaves the cores to the others: torch and the BLAS pools get
  ``max(1, cores // PAPERLAB_MAX_RUNS)`` threads (one, by default);
- a run nobody watches is stopped: the panel's fragment touches its run on every poll, and a run
  not touched for ``PAPERLAB_RUN_TTL`` seconds (default 120: a closed tab) is stopped, or dropped
  from the queue;
- one run per browser session per panel: starting a new one, or changing a control that is part
  of the run's key (a new ``key`` in the same ``group``), stops the old one.

A core function that never returns False to its own progress check cannot be interrupted; every
core function in Paperlab honours the protocol, and skips its final evaluations once stopped.
"""

from __future__ import annotations

import collections
import importlib.util
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

IDLE, QUEUED, RUNNING, DONE, STOPPED, FAILED = "idle", "queued", "running", "done", "stopped", "failed"


def _env_int(name: str, default: int, low: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}: {raw!r} is not an integer; allowed integers >= {low}") from None
    if value < low:
        raise ValueError(f"{name}: {value} is out of range; allowed integers >= {low}")
    return value


@dataclass(frozen=True)
class Snapshot:
    """A consistent copy of a run's state, safe to draw while the worker goes on."""

    state: str
    step: int
    total: int | None
    elapsed: float
    stop_requested: bool
    history: list = field(default_factory=list)
    queue_position: int | None = None
    stop_reason: str | None = None

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / self.total) if self.total else 0.0

    @property
    def remaining(self) -> float | None:
        """Seconds left, estimated from the pace so far (None before two steps)."""
        if self.state != RUNNING or not self.total or self.step < 2 or self.elapsed <= 0:
            return None
        return self.elapsed / self.step * max(self.total - self.step, 0)


class RunLimiter:
    """At most ``limit`` runs work at once; the rest wait first come, first served.

    ``ttl`` seconds without a :meth:`LiveRun.touch` stop a run (or drop it from the queue); a
    daemon thread checks every ``min(ttl / 4, 5)`` seconds. ``threads`` is what each worker gives
    torch and the BLAS pools.
    """

    def __init__(self, limit: int | None = None, ttl: float | None = None, threads: int | None = None):
        cores = os.cpu_count() or 1
        self.limit = limit if limit is not None else _env_int("PAPERLAB_MAX_RUNS", cores, 1)
        self.ttl = float(ttl if ttl is not None else _env_int("PAPERLAB_RUN_TTL", 120, 1))
        if self.limit < 1:
            raise ValueError(f"limit: {self.limit} is out of range; allowed integers >= 1")
        if self.ttl <= 0:
            raise ValueError(f"ttl: {self.ttl} is out of range; allowed > 0 seconds")
        self.threads = threads if threads is not None else max(1, cores // self.limit)
        self._lock = threading.RLock()
        self._running: list[LiveRun] = []
        self._queue: collections.deque[LiveRun] = collections.deque()
        self._reaper: threading.Thread | None = None

    @property
    def running(self) -> list["LiveRun"]:
        with self._lock:
            return list(self._running)

    @property
    def queued(self) -> list["LiveRun"]:
        with self._lock:
            return list(self._queue)

    def submit(self, run: "LiveRun") -> None:
        with self._lock:
            self._ensure_reaper()
            if len(self._running) < self.limit:
                self._running.append(run)
                run._launch()
            else:
                self._queue.append(run)
                run._set_state(QUEUED)

    def position(self, run: "LiveRun") -> int | None:
        """1 for the next run to start, 2 for the one after, ...; None if not queued."""
        with self._lock:
            return self._queue.index(run) + 1 if run in self._queue else None

    def withdraw(self, run: "LiveRun") -> bool:
        """Take a queued run out of the queue; True if it was there."""
        with self._lock:
            if run in self._queue:
                self._queue.remove(run)
                return True
            return False

    def release(self, run: "LiveRun") -> None:
        """Called by a worker that has ended: its slot goes to the first queued run."""
        with self._lock:
            if run in self._running:
                self._running.remove(run)
            while self._queue and len(self._running) < self.limit:
                nxt = self._queue.popleft()
                self._running.append(nxt)
                nxt._launch()

    def reap(self, now: float | None = None) -> list["LiveRun"]:
        """Stop every run (running or queued) not touched for ``ttl`` seconds; returns them."""
        now = time.monotonic() if now is None else now
        with self._lock:
            stale = [r for r in (*self._running, *self._queue) if now - r.last_seen > self.ttl]
        for run in stale:
            run.stop(timeout=0, reason=f"stopped: nobody watched it for {self.ttl:g} s")
        return stale

    def _ensure_reaper(self) -> None:
        if self._reaper is None or not self._reaper.is_alive():
            self._reaper = threading.Thread(target=self._reap_forever, name="paperlab-run-reaper", daemon=True)
            self._reaper.start()

    def _reap_forever(self) -> None:
        while True:
            time.sleep(min(self.ttl / 4, 5.0))
            self.reap()


_limiter: RunLimiter | None = None
_limiter_lock = threading.Lock()


def limiter() -> RunLimiter:
    """The process-wide limiter, configured from the environment on first use."""
    global _limiter
    with _limiter_lock:
        if _limiter is None:
            _limiter = RunLimiter()
        return _limiter


def _share_cores(threads: int) -> None:
    """Give torch and the BLAS pools ``threads`` threads (process-wide, the same for every run).

    Core functions import torch lazily, so torch is imported here first (under the shell's import
    lock) when it is installed: set afterwards, its intra-op pool would keep one thread per core, and
    two runs on two cores would each fight for both (a live training runs about 10x slower that way).
    """
    if "torch" not in sys.modules and importlib.util.find_spec("torch") is not None:
        from app.ui.warmup import import_page

        import_page(["torch"])
    if "torch" in sys.modules:
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads)
    except ImportError:   # scikit-learn brings threadpoolctl; without it BLAS keeps its default
        pass


class LiveRun:
    """``fn(**kwargs, progress=callback)`` in a daemon thread, observable, stoppable and limited."""

    def __init__(self, fn: Callable[..., Any], /, *, run_limiter: RunLimiter | None = None,
                 imports: tuple[str, ...] = (), **kwargs: Any):
        self.fn, self.kwargs = fn, kwargs
        self.imports = tuple(imports)   # heavy modules the worker imports first, under the shell's import lock
        self._limiter = run_limiter
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.reset()

    @property
    def limiter(self) -> RunLimiter:
        return self._limiter or limiter()

    def reset(self) -> None:
        """Stop any work in flight and return to a fresh, startable state."""
        if self._thread is not None or getattr(self, "state", IDLE) == QUEUED:
            self.stop()
        self._stop = threading.Event()
        self._thread = None
        self.state, self.step, self.total = IDLE, 0, None
        self.history: list[dict] = []
        self.result: Any = None
        self.error: BaseException | None = None
        self.traceback: str | None = None
        self.stop_reason: str | None = None
        self.calls_after_stop = 0   # progress calls the function made after Stop was asked for
        self._started = self._finished = None
        self.last_seen = time.monotonic()
        self.announced = False  # set by the page once it has shown the finished run

    def start(self) -> "LiveRun":
        """Hand the run to the limiter: it works at once if a slot is free, else it queues."""
        if self.state != IDLE:
            raise RuntimeError("LiveRun: already started; call reset() or make a new run")
        self.touch()
        self.limiter.submit(self)
        return self

    def _set_state(self, state: str) -> None:
        with self._lock:
            self.state = state

    def _launch(self) -> None:
        """Called by the limiter when a slot is this run's: start the worker (unless stopped meanwhile)."""
        with self._lock:
            cancelled = self._stop.is_set()
            if cancelled:                # stopped while it waited: it never runs, and frees the slot
                self.state, self._finished = STOPPED, time.monotonic()
            else:
                self.state, self._started = RUNNING, time.monotonic()
                self._thread = threading.Thread(target=self._work, daemon=True,
                                                name=f"liverun-{getattr(self.fn, '__name__', 'fn')}")
        if cancelled:
            self.limiter.release(self)
        else:
            self._thread.start()

    def touch(self) -> None:
        """Someone is watching: postpone the limiter's time-to-live stop."""
        self.last_seen = time.monotonic()

    def stop(self, timeout: float = 1.0, reason: str | None = None) -> bool:
        """Ask the run to stop and wait up to ``timeout`` s; True if the worker has ended."""
        self._stop.set()
        with self._lock:
            if reason and self.stop_reason is None:
                self.stop_reason = reason
        if self.state == QUEUED and self.limiter.withdraw(self):
            with self._lock:
                self.state, self._finished = STOPPED, time.monotonic()
            return True
        if self._thread is not None and self._thread is not threading.current_thread() and timeout:
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
    def active(self) -> bool:
        """Working or waiting for a slot."""
        return self.alive or self.state == QUEUED

    @property
    def finished(self) -> bool:
        return self.state in (DONE, STOPPED, FAILED)

    def snapshot(self) -> Snapshot:
        position = self.limiter.position(self) if self.state == QUEUED else None
        with self._lock:
            end = self._finished or time.monotonic()
            elapsed = end - self._started if self._started else 0.0
            return Snapshot(self.state, self.step, self.total, elapsed, self._stop.is_set(), list(self.history),
                            position, self.stop_reason)

    def _progress(self, step: int, total: int, metrics: Mapping[str, float]) -> bool:
        row = {"step": int(step)}
        row.update({k: float(v) for k, v in metrics.items() if _is_number(v)})
        stopped = self._stop.is_set()
        with self._lock:
            self.step, self.total = int(step), int(total)
            self.history.append(row)
            if stopped:
                self.calls_after_stop += 1
        return not stopped

    def _work(self) -> None:
        try:
            if self.imports:   # never race the warm-up thread for a half-built module
                from app.ui.warmup import import_page

                import_page(self.imports)
            _share_cores(self.limiter.threads)
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
        finally:
            self.limiter.release(self)


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bytes))


def live_panel(key: str, fn: Callable[..., Any], kwargs: Mapping[str, Any] | Callable[[], Mapping[str, Any]], *,
               start_label: str = "Train", poll_seconds: float = 1.0, group: str | None = None,
               from_state: Mapping[str, str] | None = None) -> LiveRun | None:
    """Start / Stop / Reset and a live progress view for ``fn(**kwargs, progress=...)``.

    Parameters
    ----------
    key : str
        The run's identity: the page's name and every value the run depends on, e.g.
        ``"looped_lm:pointer_chasing:2"``. One run per browser session per key.
    fn : callable
        A core function following the progress protocol.
    kwargs : mapping or callable
        Its arguments; a zero-argument callable is called at the moment of the click, so it can
        read widget values from ``st.session_state`` as they are then.
    group : str, optional
        The panel the key belongs to (default: ``key`` up to its first ``:``). When a panel is drawn
        with a new key (a control changed), the group's previous run is stopped.
    from_state : mapping, optional
        ``{parameter: widget key}``: arguments read from ``st.session_state`` at the click, over
        ``kwargs`` (a text typed just before clicking is used, not the value drawn before).

    Returns
    -------
    LiveRun or None
        The current run, finished or not, so the page can draw ``run.result`` once it is done.
    """
    import streamlit as st

    slot = f"liverun:{key}"
    group_slot = f"liverun-group:{group or key.split(':', 1)[0]}"
    previous = st.session_state.get(group_slot)
    if previous is not None and previous != slot:   # a control that is part of the key changed
        _stop(previous, reason="stopped: a control it depends on changed")
    st.session_state[group_slot] = slot
    # Callbacks run before the script, so the buttons below are drawn in the state they caused.
    run: LiveRun | None = st.session_state.get(slot)
    with st.container(horizontal=True):
        st.button(start_label, key=f"{slot}:start", type="primary", icon=":material/play_arrow:",
                  on_click=_start, args=(slot, fn, kwargs, dict(from_state or {})))
        st.button("Stop", key=f"{slot}:stop", icon=":material/stop:", disabled=run is None or not run.active,
                  on_click=_stop, args=(slot,))
        st.button("Reset", key=f"{slot}:reset", icon=":material/restart_alt:", disabled=run is None,
                  on_click=_reset, args=(slot,))

    if run is not None and run.active:   # one Stop: the panel's; Streamlit's own "Running… Stop" would stop only a poll
        st.html(HIDE_STREAMLIT_STOP)

    # A queued run polls less: it only needs its position. Every poll is a script run on a shared
    # server, so it draws Streamlit's own line charts (a data frame, ~ms) rather than plotly figures.
    every = None if run is None or not run.active else 2 * poll_seconds if run.state == QUEUED else poll_seconds

    @st.fragment(run_every=every)
    def progress_view() -> None:
        _draw(st.session_state.get(slot))

    if st.session_state.get(f"{slot}:error"):
        st.error(st.session_state[f"{slot}:error"])
    progress_view()
    return run


HIDE_STREAMLIT_STOP = '<style>[data-testid="stStatusWidget"] {display: none;}</style>'


def _arguments(kwargs, from_state: Mapping[str, str]) -> dict:
    import streamlit as st

    out = dict(kwargs() if callable(kwargs) else kwargs)
    for name, widget in from_state.items():
        if widget in st.session_state:
            out[name] = st.session_state[widget]
    return out


def _start(slot: str, fn: Callable[..., Any], kwargs, from_state: Mapping[str, str]) -> None:
    import streamlit as st

    _stop(slot)
    try:
        arguments = _arguments(kwargs, from_state)
    except ValueError as error:   # a bad value read at the click: shown by the panel, nothing runs
        st.session_state[f"{slot}:error"] = str(error)
        return
    st.session_state.pop(f"{slot}:error", None)
    st.session_state[slot] = LiveRun(fn, imports=_system_imports(slot), **arguments).start()


def _system_imports(slot: str) -> tuple[str, ...]:
    """The heavy modules of the system a panel belongs to (its key starts with the system's key)."""
    from app.catalog import BY_KEY

    system = BY_KEY.get(slot.removeprefix("liverun:").split(":", 1)[0].split("/", 1)[0])
    return system.warm if system is not None else ()


def _stop(slot: str, reason: str | None = None) -> None:
    import streamlit as st

    run = st.session_state.get(slot)
    if run is not None:
        run.stop(reason=reason)


def _reset(slot: str) -> None:
    import streamlit as st

    _stop(slot)
    st.session_state.pop(slot, None)


def _progress_text(snap: Snapshot) -> str:
    if snap.state == QUEUED:
        return (f"queued, position {snap.queue_position} · {limiter().limit} run(s) at a time on this machine; "
                "it starts when a slot frees")
    total = snap.total if snap.total is not None else "?"
    label = {RUNNING: "stopping" if snap.stop_requested else "running"}.get(snap.state, snap.state)
    text = f"{label} · step {snap.step} / {total} · {snap.elapsed:.1f} s"
    if snap.remaining is not None and not snap.stop_requested:
        text += f" · about {snap.remaining:.0f} s left at this pace"
    return text


def curve_groups(names: list[str]) -> dict[str, list[str]]:
    """Metrics that share one chart: ``"<quantity> · <series>"`` names of one quantity go together (five
    optimisers' errors on one axis, so they can be compared); any other name has a chart of its own."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.split(" · ", 1)[0] if " · " in name else name, []).append(name)
    return groups


def live_curves(history: list[dict], columns: int = 3, points: int = 300) -> None:
    """One small line chart per quantity against step (see :func:`curve_groups`), at most ``points`` each."""
    import pandas as pd
    import streamlit as st

    frame = pd.DataFrame(history[:: max(1, len(history) // points)] + history[-1:])
    if "step" not in frame.columns:
        frame["step"] = range(len(frame))
    frame = frame.drop_duplicates("step").set_index("step")
    groups = list(curve_groups([c for c in frame.columns]).items())
    for start in range(0, len(groups), columns):
        row = groups[start:start + columns]
        for column, (title, members) in zip(st.columns(columns), row):
            with column:
                st.caption(title)
                data = frame[members].rename(columns=lambda n: n.split(" · ", 1)[-1]).dropna(how="all")
                st.line_chart(data, height=160 if len(members) == 1 else 240, x_label="step", y_label="")


def _draw(run: LiveRun | None) -> None:
    import streamlit as st

    if run is None:
        st.caption("Not started yet: press the button above to run it live on this machine.")
        return
    run.touch()   # a visitor is watching this run
    snap = run.snapshot()
    st.progress(snap.fraction, text=_progress_text(snap))
    if snap.stop_reason and snap.state in (STOPPED, RUNNING):
        st.caption(snap.stop_reason)
    if len(snap.history) > 0 and snap.state != QUEUED:
        live_curves(snap.history)
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
