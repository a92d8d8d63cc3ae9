"""Is a claim's test calibrated, and what can it detect? Checked by simulation before its verdict is trusted.

A verdict is only as good as its test. Before a negative says anything about a paper, the ledger
asks two questions of the test behind it:

- :func:`false_positive_rate`: run the test on ``n_draws`` samples simulated under its null. The
  share that reject at level α, with its exact (Clopper-Pearson) binomial interval from
  ``scipy.stats.binomtest``, is compared with α: a test whose interval excludes α is miscalibrated
  (too liberal above, too conservative below), and its verdicts say so.
- :func:`power_curve`: run it on samples simulated at each of a grid of effect sizes; the share that
  reject estimates the power there, and :attr:`PowerCurve.detectable` is the smallest effect on
  the grid whose power reaches the target (0.8 by default): an effect below it going undetected is
  not evidence that it is absent.

A test is any function from a sample to a p-value; a simulator any function from a NumPy generator
(and, for power, an effect size) to a sample. Draw ``i`` uses the generator
``core.common.seeding.derive_rng(seed, "null", "draw", i)`` (``"effect", j`` in place of ``"null"`` for
the j-th effect), so results do not depend on the order draws run in.

>>> import numpy as np
>>> from scipy import stats
>>> z_test = lambda x: 2 * stats.norm.sf(abs(x.mean()) * np.sqrt(len(x)))   # sigma = 1 known
>>> fpr = false_positive_rate(z_test, lambda rng: rng.normal(size=20), alpha=0.05, n_draws=2000, seed=0)
>>> fpr.calibrated
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import stats

from core.common.seeding import derive_rng

Test = Callable[[object], float]


def _check(alpha: float, n_draws: int) -> None:
    _check_share("alpha", alpha)
    if not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws: {n_draws!r} is out of range; allowed an integer >= 1")


def _check_share(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name}: {value!r} is out of range; allowed 0 < {name} < 1")


def _rejections(test: Test, simulate: Callable[[np.random.Generator], object], alpha: float, n_draws: int,
                seed: int, *path) -> int:
    count = 0
    for i in range(n_draws):
        p = float(test(simulate(derive_rng(seed, *path, "draw", i))))
        if not 0.0 <= p <= 1.0:           # NaN included
            raise ValueError(f"test: returned p = {p!r} on draw {i}; allowed a p-value in [0, 1]")
        count += p <= alpha
    return count


@dataclass(frozen=True)
class Calibration:
    """A test's empirical false-positive rate under its null, against its nominal level.

    Attributes
    ----------
    alpha : float
        The nominal level the test was run at.
    rejections, n_draws : int
        Null samples the test rejected, of those drawn.
    interval : tuple of float
        The exact binomial interval of the rate at ``confidence``.
    """

    alpha: float
    rejections: int
    n_draws: int
    interval: tuple[float, float]
    confidence: float

    @property
    def rate(self) -> float:
        return self.rejections / self.n_draws

    @property
    def calibrated(self) -> bool:
        """Whether α lies in the rate's interval."""
        return self.interval[0] <= self.alpha <= self.interval[1]

    @property
    def verdict(self) -> str:
        """``calibrated``, ``liberal`` (rejects a true null more often than α) or ``conservative``."""
        if self.calibrated:
            return "calibrated"
        return "liberal" if self.interval[0] > self.alpha else "conservative"

    def sentence(self) -> str:
        low, high = self.interval
        return (f"false-positive rate {self.rate:.3f} [{low:.3f}, {high:.3f}] over {self.n_draws} null draws "
                f"at alpha = {self.alpha:g}: {self.verdict}")


def false_positive_rate(test: Test, simulate_null: Callable[[np.random.Generator], object], *, alpha: float = 0.05,
                        n_draws: int = 1000, seed: int = 0, confidence: float = 0.95) -> Calibration:
    """How often ``test`` rejects at ``alpha`` on ``n_draws`` samples of ``simulate_null``, with its interval."""
    _check(alpha, n_draws)
    _check_share("confidence", confidence)
    k = _rejections(test, simulate_null, alpha, n_draws, seed, "null")
    ci = stats.binomtest(k, n_draws, alpha).proportion_ci(confidence_level=confidence, method="exact")
    return Calibration(alpha, k, n_draws, (float(ci.low), float(ci.high)), confidence)


@dataclass(frozen=True)
class PowerCurve:
    """A test's estimated power at each effect size of a grid.

    Attributes
    ----------
    effects : tuple of float
        The grid, increasing.
    power : tuple of float
        The share of ``n_draws`` samples rejected at each effect.
    target : float
        The power asked for.
    """

    alpha: float
    effects: tuple[float, ...]
    power: tuple[float, ...]
    n_draws: int
    target: float

    @property
    def detectable(self) -> float | None:
        """The smallest effect on the grid whose power reaches :attr:`target` (None: none does)."""
        return next((e for e, p in zip(self.effects, self.power) if p >= self.target), None)


def power_curve(test: Test, simulate: Callable[[np.random.Generator, float], object], effects: Sequence[float], *,
                alpha: float = 0.05, n_draws: int = 500, seed: int = 0, target: float = 0.8) -> PowerCurve:
    """The power of ``test`` at ``alpha`` for each effect in ``effects`` (samples from ``simulate(rng, effect)``)."""
    _check(alpha, n_draws)
    _check_share("target", target)
    grid = [float(e) for e in effects]
    if not grid or any(b <= a for a, b in zip(grid, grid[1:])):
        raise ValueError(f"effects: {list(effects)!r} must be a non-empty, strictly increasing grid")
    power = tuple(_rejections(test, lambda rng, e=e: simulate(rng, e), alpha, n_draws, seed, "effect", i) / n_draws
                  for i, e in enumerate(grid))
    return PowerCurve(alpha, tuple(grid), power, n_draws, target)


def non_inferiority_power(differences, margin: float, folds: int, confidence: float = 0.95) -> float:
    """The chance that a paired t interval (two-sided ``confidence``) over ``folds`` pairs lies wholly above
    -``margin`` when the true difference is 0 and the pairs' differences spread as ``differences`` do (noncentral t).
    Equally: the chance that it lies wholly above 0 when the true difference is ``margin``.
    """
    sd = float(np.std(differences, ddof=1))
    if sd == 0:
        return 1.0
    t = stats.t.ppf(0.5 + confidence / 2, folds - 1)
    return float(stats.nct.sf(t, folds - 1, margin / (sd / np.sqrt(folds))))


def folds_for_power(differences, margin: float, power: float = 0.8) -> int:
    """The fewest pairs whose paired t interval reaches ``power`` in :func:`non_inferiority_power`."""
    n = 2
    while non_inferiority_power(differences, margin, n) < power and n < 100_000:
        n *= 2
    low, high = n // 2, n
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if non_inferiority_power(differences, margin, mid) < power else (low, mid)
    return high


def observed_power(effects, power: float = 0.8) -> tuple[float, int]:
    """A paired t test that ``effects`` lie above 0 (interval wholly above 0): its power with these pairs were the
    true mean the observed one, and the pairs it would need for ``power``. Orient a test "below a bar b" as
    effects b - x."""
    mean = float(np.mean(effects))
    return non_inferiority_power(effects, mean, len(effects)), folds_for_power(effects, mean, power)
