"""The progress-callback protocol every long-running core function follows.

A long function takes ``progress=None``: a callable ``progress(step, total, metrics) -> bool | None``
called after each unit of work with the 1-based ``step`` just finished, the planned ``total`` and a
dict of scalar metrics. Returning ``False`` (exactly False, not merely falsy) asks the function to
stop cleanly and return what it has so far; ``None`` or ``True`` means carry on. The same callback
drives a live Streamlit page, a tqdm bar in scripts (:class:`TqdmProgress`) and tests
(:class:`ProgressLog`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Protocol


class Progress(Protocol):
    def __call__(self, step: int, total: int, metrics: Mapping[str, float]) -> Optional[bool]: ...


def report(progress: Optional[Callable], step: int, total: int, metrics: Mapping[str, float] | None = None) -> bool:
    """Call ``progress`` if given; return True to continue, False if the callback asked to stop."""
    if progress is None:
        return True
    return progress(step, total, dict(metrics or {})) is not False


@dataclass
class ProgressLog:
    """A callback that records every call, and asks to stop after ``stop_after`` steps if set."""

    stop_after: Optional[int] = None
    steps: list = field(default_factory=list)
    totals: list = field(default_factory=list)
    metrics: list = field(default_factory=list)

    def __call__(self, step: int, total: int, metrics: Mapping[str, float]) -> bool:
        self.steps.append(step)
        self.totals.append(total)
        self.metrics.append(dict(metrics))
        return self.stop_after is None or len(self.steps) < self.stop_after


class TqdmProgress:
    """Adapts the protocol to a tqdm bar: ``fn(..., progress=TqdmProgress(desc="train"))``.

    Metrics appear as the bar's postfix. The bar closes itself when ``step == total``; call
    :meth:`close` (or use it as a context manager) if the run may stop early.
    """

    def __init__(self, desc: str | None = None, **tqdm_kwargs):
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self._kwargs = {"desc": desc, **tqdm_kwargs}
        self.bar = None

    def __call__(self, step: int, total: int, metrics: Mapping[str, float]) -> bool:
        if self.bar is None:
            self.bar = self._tqdm(total=total, **self._kwargs)
        if self.bar.total != total:
            self.bar.total = total
        self.bar.update(step - self.bar.n)
        if metrics:
            self.bar.set_postfix({k: _short(v) for k, v in metrics.items()}, refresh=False)
        if step >= total:
            self.close()
        return True

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> "TqdmProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _short(value):
    return f"{value:.4g}" if isinstance(value, float) else value
