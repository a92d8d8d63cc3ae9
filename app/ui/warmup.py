"""Import the heavy libraries built pages need in the background, once per server process.

The home page is light; while a visitor reads it, this thread imports what the system pages
will need (scikit-learn, torch, ...), so that opening a page does not pay for those imports.
Each catalog entry lists its page's heavy modules in ``System.warm``.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Iterable

_lock = threading.Lock()
_thread: threading.Thread | None = None
log = logging.getLogger(__name__)


def warm_up(modules: Iterable[str]) -> threading.Thread:
    """Start the warm-up thread if it is not running yet; return it (``join()`` waits for it)."""
    global _thread
    with _lock:
        if _thread is None:
            names = sorted(set(modules))
            _thread = threading.Thread(target=_import_all, args=(names,), name="paperlab-warmup", daemon=True)
            _thread.start()
        return _thread


def _import_all(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # a page will report its own import error when opened
            log.exception("warm-up import of %s failed", name)
