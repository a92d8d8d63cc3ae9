"""Paperlab's start-up, once per server process: the served pages' modules, then their heavy libraries.

:func:`start_up` runs in the lifespan of the app ``app/main.py`` serves, before the server listens,
whichever way the server is started (``streamlit run app/main.py``, ``make run``, Docker). It imports
the page modules of the systems ``PAPERLAB_WARM`` names (:func:`page_modules`: what a first view needs,
numpy, plotly, pandas and for some pages scipy or scikit-learn, never torch, transformers or PennyLane),
so that a link opened as the first URL of a fresh server does not pay for them inside its first view;
freezes the heap they built; and starts the background warm-up of their heavy libraries
``PAPERLAB_WARM_DELAY`` seconds later. It prints one line to the server's log when it is done.

``PAPERLAB_WARM`` is ``all`` (default: every built page), ``none`` (nothing, for a replica that should
hold only what its visitors use) or a comma-separated list of system keys (``interestingness`` for a
study-only replica). With ``all`` the server listens about 3 s later and holds about 210 MB more from
the start, memory the warm-up takes anyway.

First views never need the heavy libraries (they read shipped arrays); training and probing do. The
warm-up thread imports them (``System.warm`` in the catalog: scikit-learn, torch, ...) while visitors
read first views, so that starting a run does not pay for those imports. Its delay leaves the first
seconds of a fresh server to its first visitor.

Two threads importing overlapping packages at once can each see the other's module half-built
(importlib breaks the lock cycle by handing out a partially initialised module: "cannot import name
... from partially initialized module"). So every import done here, and the top-level imports of
the page about to run (:func:`import_page`, which on a rerun still waits for an import in flight), hold
one process-wide lock: imports are serialised,
which costs nothing (they are CPU-bound under the GIL anyway). Pages go first: while any page is
being drawn (:func:`drawing`) or waits to import, the warm-up thread finishes the module it is on,
then pauses, so it competes with a visitor's first view for one module at most.

Once the imports are done the heap is frozen (:func:`freeze_heap`): the libraries' objects (about
800,000 with every page's libraries) move to the collector's permanent generation, so that Python's
own full collections, which would walk them all while holding the GIL (0.4 to 0.5 s on two cores),
walk only what the sessions allocate. Streamlit's collection after every script run is off
(``runner.postScriptGC`` in ``.streamlit/config.toml``) for the same reason.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import logging
import sys
import threading
import time
from typing import Iterable, Iterator

_lock = threading.Lock()
IMPORTS = threading.RLock()   # held around every warm-up import and every page's top-level imports
_waiting = 0                  # pages waiting for IMPORTS; the warm-up yields to them
_drawing = 0                  # page scripts running now; the warm-up yields to them too
_thread: threading.Thread | None = None
_start_lock = threading.Lock()  # held by :func:`start_up`, whose warm-up thread (``_thread``) marks it done
log = logging.getLogger(__name__)


def _served(setting: str | None):
    """The built systems ``PAPERLAB_WARM`` (or ``setting``) names: ``all``, ``none`` or system keys.

    Raises ``ValueError`` naming the variable for an unknown key.
    """
    import os

    from app.catalog import BY_KEY, SYSTEMS

    raw = (os.environ.get("PAPERLAB_WARM", "all") if setting is None else setting).strip() or "all"
    if raw == "none":
        return []
    keys = [s.key for s in SYSTEMS if s.built] if raw == "all" else [k.strip() for k in raw.split(",") if k.strip()]
    unknown = [k for k in keys if k not in BY_KEY or not BY_KEY[k].built]
    if unknown:
        built = ", ".join(s.key for s in SYSTEMS if s.built)
        raise ValueError(f"PAPERLAB_WARM: {unknown[0]!r} is not a built system; allowed all, none or keys of {built}")
    return [BY_KEY[k] for k in dict.fromkeys(keys)]


def warm_modules(setting: str | None = None) -> list[str]:
    """The heavy modules (``System.warm``) of the systems ``PAPERLAB_WARM`` (or ``setting``) asks for."""
    return sorted({module for system in _served(setting) for module in system.warm})


def page_modules(setting: str | None = None) -> list[str]:
    """The page modules (``pages.<key>`` and the system's extra pages) of the systems ``PAPERLAB_WARM`` asks for.

    Importing one runs only its top-level imports (what the page's first view needs: numpy, plotly, pandas,
    scipy or scikit-learn for some; never torch, transformers or PennyLane, which ``System.warm`` brings).
    """
    from app.catalog import EXTRAS

    keys = [system.key for system in _served(setting)]
    return [f"pages.{key}" for key in keys] + [f"pages.{e.key}" for e in EXTRAS if e.system in keys]


def warm_delay() -> float:
    """``PAPERLAB_WARM_DELAY``: seconds the server-start warm-up waits before its first import (default 15)."""
    import os

    raw = os.environ.get("PAPERLAB_WARM_DELAY", "").strip()
    try:
        delay = float(raw) if raw else 15.0
    except ValueError:
        raise ValueError(f"PAPERLAB_WARM_DELAY: {raw!r} is not a number; allowed seconds >= 0") from None
    if not delay >= 0:
        raise ValueError(f"PAPERLAB_WARM_DELAY: {raw!r} is out of range; allowed seconds >= 0")
    return delay


def start_up() -> threading.Thread:
    """Import the served pages' modules, freeze the heap, start the warm-up; once per process.

    Returns the warm-up thread. A second call (a second App in the process, a test) does nothing more.
    Raises ``ValueError`` naming ``PAPERLAB_WARM`` or ``PAPERLAB_WARM_DELAY`` when either is out of range,
    before anything is imported.
    """
    pages, heavy, delay = page_modules(), warm_modules(), warm_delay()   # a bad setting fails here, first
    with _start_lock:
        if _thread is None:
            t0 = time.perf_counter()
            import_page(pages)
            freeze_heap()               # what the imports built is never walked by a full collection again
            warm_up(heavy, delay=delay)
            print(f"Paperlab start-up: {len(pages)} page modules imported in {time.perf_counter() - t0:.1f} s, "
                  f"heap frozen; warm-up of {len(heavy)} modules begins in {delay:g} s", file=sys.stderr, flush=True)
        return _thread


def warm_up(modules: Iterable[str], delay: float = 0.0) -> threading.Thread:
    """Start the warm-up thread if it is not running yet; return it (``join()`` waits for it).

    ``delay`` seconds pass before the first import: on two cores, imports running while a browser
    fetches a fresh server's scripts and draws its first page more than double that first view
    (bench/app.py times first views on a fresh server), so the server-start warm-up leaves the first
    seconds to the first visitor, then yields to every page being drawn.
    """
    global _thread
    with _lock:
        if _thread is None:
            names = sorted(set(modules))
            _thread = threading.Thread(target=_import_all, args=(names, delay), name="paperlab-warmup", daemon=True)
            _thread.start()
        return _thread


def import_page(modules: Iterable[str]) -> None:
    """Import ``modules`` (a page's heavy libraries and its own module) under the import lock.

    Called by the shell before a page runs, so that the page's ``import`` statements find every
    module already built instead of racing the warm-up thread for it, and by :func:`start_up` with every
    served page (:func:`page_modules`) before the server listens. An import error is left for
    the page itself to raise where the visitor sees it.
    """
    global _waiting
    modules = list(modules)
    if all(_built(name) for name in modules) and not _half_built():   # a rerun with no import in flight
        return
    with _lock:
        _waiting += 1
    try:
        with IMPORTS:
            for name in modules:
                try:
                    importlib.import_module(name)
                except Exception:
                    log.debug("pre-import of %s failed; the page will report it", name, exc_info=True)
    finally:
        with _lock:
            _waiting -= 1


@contextlib.contextmanager
def drawing() -> Iterator[None]:
    """Mark a page script as running, so that the warm-up waits for it to finish."""
    global _drawing
    with _lock:
        _drawing += 1
    try:
        yield
    finally:
        with _lock:
            _drawing -= 1


def _half_built() -> bool:
    """Whether some module is being imported right now (by the warm-up thread, say).

    A rerun must wait for it too: libraries look optional modules up in ``sys.modules`` without importing
    them (plotly does so for pandas), and a pandas half-built by the warm-up fails there with "partially
    initialized module 'pandas' has no attribute 'Series'" (seen on occupancy_irl's widget sweep)."""
    return any(getattr(getattr(m, "__spec__", None), "_initializing", False) for m in list(sys.modules.values()))


def _built(name: str) -> bool:
    """Whether ``name`` is imported and finished (not half-built by another thread right now)."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and not getattr(spec, "_initializing", False)


def _import_all(names: list[str], delay: float = 0.0) -> None:
    if delay > 0:
        time.sleep(delay)
    for name in names:
        while _waiting or _drawing:   # a page is being drawn or about to import: let it go first
            time.sleep(0.005)
        with IMPORTS:
            try:
                importlib.import_module(name)
            except Exception:  # a page will report its own import error when opened
                log.exception("warm-up import of %s failed", name)
    with IMPORTS:
        freeze_heap()


def freeze_heap() -> None:
    """Collect what is garbage now, then exempt every live object from later collections (``gc.freeze``).

    Called after a batch of imports (the server's page imports, the warm-up): what those imports built
    lives as long as the process, so walking it on every full collection is pure cost. Objects of
    sessions alive at that moment are frozen too and, should they later become cyclic garbage, are not
    reclaimed: a bounded cost, paid once per batch.
    """
    gc.collect()
    gc.freeze()
