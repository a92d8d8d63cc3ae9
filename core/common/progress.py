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
    """The type of a progress callback: ``progress(step, total, metrics) -> bool | None``.

    Parameters
    ----------
    step : int
        The unit of work just finished, 1-based.
    total : int
        The planned number of units (it may change as a run learns more, e.g. an early stop).
    metrics : Mapping[str, float]
        Scalars to show or record for this step (a loss, an accuracy, seconds so far).

    Returns
    -------
    bool or None
        Exactly ``False`` asks the caller to stop cleanly; ``None`` or ``True`` carries on.
    """

    def __call__(self, step: int, total: int, metrics: Mapping[str, float]) -> Optional[bool]: ...


def report(progress: Optional[Callable], step: int, total: int, metrics: Mapping[str, float] | None = None) -> bool:
    """Call ``progress`` if given; return True to continue, False if the callback asked to stop.

    Parameters
    ----------
    progress : callable or None
        A :class:`Progress` callback, or None (then this only returns True).
    step : int
        The unit of work just finished, 1-based.
    total : int
        The planned number of units.
    metrics : Mapping[str, float] or None
        Scalars for this step; copied, so the callback may keep them.

    Returns
    -------
    bool
        False exactly when the callback returned ``False``.

    Examples
    --------
    >>> report(None, 1, 10)
    True
    >>> report(ProgressLog(stop_after=1), 1, 10, {"loss": 0.5})
    False
    """
    if progress is None:
        return True
    return progress(step, total, dict(metrics or {})) is not False


@dataclass
class ProgressLog:
    """A callback that records every call, and asks to stop after ``stop_after`` steps if set.

    Attributes
    ----------
    stop_after : int or None
        Return False (stop) at the call that makes ``stop_after`` calls; None never stops.
    steps : list of int
        The ``step`` of every call, in order.
    totals : list of int
        The ``total`` of every call.
    metrics : list of dict
        A copy of every call's metrics.

    Examples
    --------
    >>> log = ProgressLog(stop_after=2)
    >>> [report(log, k, 5, {"k": k}) for k in (1, 2)], log.steps
    ([True, False], [1, 2])
    """

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
