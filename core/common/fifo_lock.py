"""A lock that threads take in the order they asked for it.

``threading.Lock`` is not fair: a thread that releases it and asks again at once usually gets it back before
the threads already waiting. Behind the study store's write lock (core/interestingness/store.py) that would let
one of 50 participants that never pause wait for one answer while others write dozens; taken in turn, every wait
is bounded by the writes queued ahead of it (bench/interestingness_store.py measures the waits under that load).
"""

from __future__ import annotations

import collections
import threading


class FifoLock:
    """A mutual-exclusion lock handed to its waiters first come, first served (``with lock:`` as usual)."""

    def __init__(self):
        self._guard = threading.Lock()
        self._held = False
        self._waiters: collections.deque[threading.Event] = collections.deque()

    def acquire(self) -> bool:
        with self._guard:
            if not self._held:
                self._held = True
                return True
            turn = threading.Event()
            self._waiters.append(turn)
        try:
            turn.wait()
        except BaseException:
            with self._guard:           # interrupted while waiting: leave the queue, or pass on a turn already given
                if turn.is_set():
                    self._hand_on()
                else:
                    self._waiters.remove(turn)
            raise
        return True                     # the releasing thread handed the lock over: it stayed held

    def release(self) -> None:
        with self._guard:
            if not self._held:
                raise RuntimeError("release of an unlocked FifoLock")
            self._hand_on()

    def _hand_on(self) -> None:
        if self._waiters:
            self._waiters.popleft().set()
        else:
            self._held = False

    def locked(self) -> bool:
        with self._guard:
            return self._held

    def waiting(self) -> int:
        """How many threads wait for the lock now."""
        with self._guard:
            return len(self._waiters)

    __enter__ = acquire

    def __exit__(self, *exc) -> None:
        self.release()
