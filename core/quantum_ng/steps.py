"""One progress count over nested long calls: what lets a metric computation stop between any two pieces.

A long function here takes ``progress`` and calls it after each piece of work (a gate of the
propagation, a chunk of Pauli strings applied to the state, a batch of shadow snapshots). When a
caller chains several of them, it passes one :class:`Steps`: every inner call advances the same
count (the inner function's own step numbers are ignored), the total can grow once a size is known
(how many strings a propagation left), and a Stop is remembered so the caller skips what follows.
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional

from core.common.progress import report


class Steps:
    """A progress callback counting steps for ``progress`` over ``total`` planned ones."""

    def __init__(self, progress: Optional[Callable], total: int):
        self.progress, self.total, self.step, self.stopped = progress, int(total), 0, False

    @classmethod
    def within(cls, progress: Optional[Callable], total: int) -> "Steps":
        """``progress`` itself if it is a :class:`Steps` (its total already counts these), else a new count."""
        return progress if isinstance(progress, Steps) else cls(progress, total)

    def grow(self, extra: int) -> None:
        """Add ``extra`` steps to the plan (a size learnt on the way)."""
        self.total += int(extra)

    def __call__(self, _step: int | None = None, _total: int | None = None,
                 metrics: Mapping[str, float] | None = None) -> bool:
        self.step += 1
        self.total = max(self.total, self.step)
        if not report(self.progress, self.step, self.total, metrics):
            self.stopped = True
        return not self.stopped
