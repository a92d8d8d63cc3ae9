"""How one check of a claim decides, as data: a comparison fixed before the run, applied to stored numbers.

Each decision takes the numbers a check reads from a results file and returns an :class:`Outcome`: whether
they pass, the point statistic and its interval where there is one, and the comparison in words. Statistics
come from ``scipy.stats`` (a one-sample t interval on paired differences, the bootstrap, the exact
Clopper-Pearson binomial interval); a decision never averages and thresholds what has an interval.

Input forms (``x``):

- :class:`Threshold`: a number (a tolerance on an identity, a count, a rank);
- :class:`Interval`: a stored interval ``{"low": .., "high": ..}`` (or ``(low, high)``, or ``(value, low,
  high)``), above or below a margin, or inside an equivalence band;
- :class:`PairedT`, :class:`Bootstrap`: the samples (paired differences over seeds or folds, one per unit);
- :class:`Binomial`: ``(k, n)``, successes of trials, against a share;
- :class:`InBand`: ``(value, low, high)``, a value inside a band the bench derived (e.g. a binomial band);
- :class:`PValue`: a pre-registered test's p-value against its α;
- :class:`Trend`: a sequence over increasing scale, its last entry against its first;
- :class:`Flag`: a yes/no fact the bench stored (a solver's status), never a comparison it made;
- :class:`Every`, :class:`Some`: a list of inputs, each judged by the inner decision;
- :class:`AllOf`, :class:`AnyOf`: a tuple of inputs, the i-th judged by the i-th decision, all or any passing.

A missing input (``None``) is not a failure: the outcome's ``passed`` is None, "not measured".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy import stats

SIDES = ("above", "below")


@dataclass(frozen=True)
class Outcome:
    """What a decision found: ``passed`` (None when the numbers are missing), the statistic, its interval."""

    passed: bool | None
    value: float | None = None
    low: float | None = None
    high: float | None = None
    text: str = ""

    def to_dict(self) -> dict:
        return {"passed": self.passed, "value": _num(self.value), "low": _num(self.low), "high": _num(self.high),
                "text": self.text}


def _num(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _fmt(v) -> str:
    return "–" if v is None else f"{v:.3g}"


def _check_side(side: str, allowed=SIDES) -> None:
    if side not in allowed:
        raise ValueError(f"side: {side!r} is not a side; allowed {', '.join(map(repr, allowed))}")


def _check_level(name: str, value: float) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name}: {value!r} is out of range; allowed 0 < {name} < 1")


def _beyond(low: float, high: float, bound: float, side: str, strict: bool = True) -> bool:
    if side == "above":
        return low > bound if strict else low >= bound
    return high < bound if strict else high <= bound


class Decision:
    """A comparison of stored numbers; subclasses define :meth:`decide`, :meth:`describe` and :meth:`examples`."""

    def decide(self, x: Any) -> Outcome:
        if x is None:
            return Outcome(None, text=f"not measured ({self.describe()})")
        return self._decide(x)

    def _decide(self, x: Any) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def examples(self) -> tuple[Any, Any]:
        """A synthetic input that passes and one that fails: proof that both outcomes are reachable."""
        raise NotImplementedError  # pragma: no cover - abstract

    def to_dict(self) -> dict:
        out = {"test": self.describe()}
        for name in ("margin", "alpha", "confidence"):
            if hasattr(self, name):
                out[name] = getattr(self, name)
        return out


@dataclass(frozen=True)
class Threshold(Decision):
    """A number above or below ``bound`` (``strict``: the bound itself fails)."""

    bound: float
    side: str = "below"
    strict: bool = True

    def __post_init__(self):
        _check_side(self.side)

    @property
    def margin(self) -> float:
        return self.bound

    def _decide(self, x) -> Outcome:
        v = float(x)
        ok = _beyond(v, v, self.bound, self.side, self.strict)
        return Outcome(ok, v, text=f"{_fmt(v)} {'is' if ok else 'is not'} {self.side} {self.bound:g}")

    def describe(self) -> str:
        return f"{self.side} {self.bound:g}" + ("" if self.strict else " or equal")

    def examples(self):
        step = abs(self.bound) + 1.0
        return (self.bound + step, self.bound - step) if self.side == "above" else (self.bound - step,
                                                                                     self.bound + step)


def _interval(x) -> tuple[float | None, float, float]:
    if isinstance(x, dict):
        return x.get("value", x.get("mean")), float(x["low"]), float(x["high"])
    if len(x) == 2:
        return None, float(x[0]), float(x[1])
    return float(x[0]), float(x[1]), float(x[2])


@dataclass(frozen=True)
class Interval(Decision):
    """A stored interval wholly above or below ``margin`` (superiority), or, with ``side="inside"``, wholly within
    ``margin ± band`` (equivalence); ``strict=False`` lets an end touch the bound."""

    margin: float = 0.0
    side: str = "above"
    band: float = 0.0
    strict: bool = True

    def __post_init__(self):
        _check_side(self.side, SIDES + ("inside",))
        if self.side == "inside" and not self.band > 0:
            raise ValueError(f"band: {self.band!r} is out of range; allowed band > 0 for an equivalence interval")

    def _decide(self, x) -> Outcome:
        value, low, high = _interval(x)
        if self.side == "inside":
            ok = self.margin - self.band < low and high < self.margin + self.band
        else:
            ok = _beyond(low, high, self.margin, self.side, self.strict)
        point = "" if value is None else f"{_fmt(value)} "
        return Outcome(ok, value, low, high, f"{point}[{_fmt(low)}, {_fmt(high)}] {'is' if ok else 'is not'} "
                       + self.describe())

    def describe(self) -> str:
        if self.side == "inside":
            return f"inside {self.margin:g} ± {self.band:g}"
        return f"wholly {self.side} {self.margin:g}"

    def examples(self):
        m, w = self.margin, max(self.band, 1.0)
        if self.side == "inside":
            return (m - self.band / 2, m + self.band / 2), (m - 2 * self.band, m + 2 * self.band)
        inside = (m - w / 2, m + w / 2)
        far = (m + w, m + 2 * w) if self.side == "above" else (m - 2 * w, m - w)
        return far, inside


@dataclass(frozen=True)
class PairedT(Decision):
    """The mean of paired differences (one per seed or fold): its t interval at ``confidence`` wholly above or below
    ``margin``, or inside ``±band`` around it (equivalence)."""

    margin: float = 0.0
    side: str = "above"
    confidence: float = 0.95
    band: float = 0.0

    def __post_init__(self):
        _check_level("confidence", self.confidence)
        Interval(self.margin, self.side, self.band)   # validates side and band

    def _decide(self, x) -> Outcome:
        d = np.asarray(x, dtype=float)
        if d.size < 2:
            return Outcome(None, text=f"not measured: {d.size} paired difference(s), a t interval needs 2")
        ci = stats.ttest_1samp(d, 0.0).confidence_interval(self.confidence)
        out = Interval(self.margin, self.side, self.band).decide((float(d.mean()), ci.low, ci.high))
        return Outcome(out.passed, out.value, out.low, out.high,
                       f"mean {_fmt(out.value)} [{_fmt(out.low)}, {_fmt(out.high)}] over {d.size} pairs "
                       f"{'is' if out.passed else 'is not'} {Interval(self.margin, self.side, self.band).describe()}")

    def describe(self) -> str:
        return (f"{self.confidence:.0%} paired t interval "
                + Interval(self.margin, self.side, self.band).describe())

    def examples(self):
        w = max(self.band, 1.0)
        jitter = np.array([-0.01, 0.0, 0.01, 0.0]) * w
        centre = {"above": self.margin + 2 * w, "below": self.margin - 2 * w, "inside": self.margin}[self.side]
        wrong = self.margin - 2 * w if self.side == "above" else self.margin + 2 * w
        return list(centre + jitter), list(wrong + jitter)


@dataclass(frozen=True)
class Bootstrap(Decision):
    """A statistic of the samples (``mean`` or ``median``): its bootstrap (BCa) interval wholly above or below
    ``margin``, resampled ``n_resamples`` times from ``seed``."""

    margin: float = 0.0
    side: str = "above"
    statistic: str = "mean"
    confidence: float = 0.95
    n_resamples: int = 2000
    seed: int = 0

    def __post_init__(self):
        _check_side(self.side)
        _check_level("confidence", self.confidence)
        if self.statistic not in ("mean", "median"):
            raise ValueError(f"statistic: {self.statistic!r} is not supported; allowed 'mean', 'median'")

    def _decide(self, x) -> Outcome:
        d = np.asarray(x, dtype=float)
        if d.size < 2:
            return Outcome(None, text=f"not measured: {d.size} sample(s), a bootstrap needs 2")
        fn = getattr(np, self.statistic)
        if np.ptp(d) == 0:
            low = high = float(d[0])
        else:
            res = stats.bootstrap((d,), fn, confidence_level=self.confidence, n_resamples=self.n_resamples,
                                  rng=np.random.default_rng(self.seed))
            low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        ok = _beyond(low, high, self.margin, self.side)
        return Outcome(ok, float(fn(d)), low, high, f"{self.statistic} {_fmt(float(fn(d)))} [{_fmt(low)}, "
                       f"{_fmt(high)}] over {d.size} {'is' if ok else 'is not'} wholly {self.side} {self.margin:g}")

    def describe(self) -> str:
        return f"{self.confidence:.0%} bootstrap interval of the {self.statistic} wholly {self.side} {self.margin:g}"

    def examples(self):
        base = np.linspace(-0.1, 0.1, 9)
        far = self.margin + (2 if self.side == "above" else -2)
        return list(far + base), list(2 * self.margin - far + base)


@dataclass(frozen=True)
class Binomial(Decision):
    """``(k, n)``: the exact (Clopper-Pearson) interval of the share k/n at ``confidence`` wholly above or below
    ``margin``, or containing it (``side="contains"``: the rate is consistent with the nominal one)."""

    margin: float
    side: str = "above"
    confidence: float = 0.95

    def __post_init__(self):
        _check_side(self.side, SIDES + ("contains",))
        _check_level("confidence", self.confidence)

    def _decide(self, x) -> Outcome:
        k, n = (int(v) for v in x)
        if n < 1 or not 0 <= k <= n:
            raise ValueError(f"x: ({k}, {n}) is not a count of successes; allowed 0 <= k <= n, n >= 1")
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=self.confidence, method="exact")
        low, high = float(ci.low), float(ci.high)
        ok = low <= self.margin <= high if self.side == "contains" else _beyond(low, high, self.margin, self.side)
        return Outcome(ok, k / n, low, high, f"{k}/{n} = {k / n:.3g} [{low:.3g}, {high:.3g}] "
                       f"{'is' if ok else 'is not'} " + self.describe().split(" interval ", 1)[1])

    def describe(self) -> str:
        where = f"containing {self.margin:g}" if self.side == "contains" else f"wholly {self.side} {self.margin:g}"
        return f"{self.confidence:.0%} Clopper-Pearson interval {where}"

    def examples(self):
        n = max(1000, math.ceil(10 / min(self.margin, 1 - self.margin))) if 0 < self.margin < 1 else 1000
        hit, off = round(self.margin * n), (round(self.margin * n) + n // 2) % (n + 1)
        if self.side == "contains":
            return (hit, n), (off, n)
        top, bottom = (n, n), (0, n)
        return (top, bottom) if self.side == "above" else (bottom, top)


@dataclass(frozen=True)
class InBand(Decision):
    """``(value, low, high)``: the value inside the band the bench derived (``side="inside"``), or not below its low
    end (``"above"``: at or over ``low``), or not over its high end (``"below"``)."""

    side: str = "inside"

    def __post_init__(self):
        _check_side(self.side, SIDES + ("inside",))

    def _decide(self, x) -> Outcome:
        v, low, high = (float(t) for t in x)
        ok = {"inside": low <= v <= high, "above": v >= low, "below": v <= high}[self.side]
        return Outcome(ok, v, low, high, f"{_fmt(v)} {'is' if ok else 'is not'} {self.describe()} "
                       f"[{_fmt(low)}, {_fmt(high)}]")

    def describe(self) -> str:
        return {"inside": "inside its band", "above": "at or over its band's low end",
                "below": "at or under its band's high end"}[self.side]

    def examples(self):
        return {"inside": ((0.5, 0.4, 0.6), (0.9, 0.4, 0.6)), "above": ((0.5, 0.4, 0.6), (0.1, 0.4, 0.6)),
                "below": ((0.5, 0.4, 0.6), (0.9, 0.4, 0.6))}[self.side]


@dataclass(frozen=True)
class PValue(Decision):
    """A pre-registered test's p-value at or under ``alpha`` (the test rejects its null)."""

    alpha: float = 0.05
    test: str = "the test"

    def __post_init__(self):
        _check_level("alpha", self.alpha)

    def _decide(self, x) -> Outcome:
        p = float(x)
        ok = p <= self.alpha
        return Outcome(ok, p, text=f"p = {p:.3g} {'≤' if ok else '>'} α = {self.alpha:g}")

    def describe(self) -> str:
        return f"{self.test} rejects at α = {self.alpha:g}"

    def examples(self):
        return self.alpha / 10, min(1.0, self.alpha * 10)


@dataclass(frozen=True)
class Trend(Decision):
    """A sequence over increasing scale whose last entry is above (``rising``) or below (``falling``) its first;
    ``monotone`` asks it of every step."""

    side: str = "rising"
    monotone: bool = False

    def __post_init__(self):
        _check_side(self.side, ("rising", "falling"))

    def _decide(self, x) -> Outcome:
        v = [float(t) for t in x]
        if len(v) < 2:
            return Outcome(None, text=f"not measured: a trend needs 2 scales, got {len(v)}")
        pairs = list(zip(v, v[1:])) if self.monotone else [(v[0], v[-1])]
        ok = all(b > a if self.side == "rising" else b < a for a, b in pairs)
        return Outcome(ok, v[-1] - v[0], text=f"{_fmt(v[0])} → {_fmt(v[-1])} over {len(v)} scales "
                       f"{'is' if ok else 'is not'} {self.side}")

    def describe(self) -> str:
        return ("at every step " if self.monotone else "from first to last scale ") + self.side

    def examples(self):
        up, down = [1.0, 2.0, 3.0], [3.0, 2.0, 1.0]
        return (up, down) if self.side == "rising" else (down, up)


@dataclass(frozen=True)
class Flag(Decision):
    """A yes/no fact the bench stored (a solver's status, whether a run converged): passes when true. For
    facts only; a comparison of numbers belongs in one of the decisions above, where the rule shows it."""

    meaning: str = "true"

    def _decide(self, x) -> Outcome:
        ok = bool(x)
        return Outcome(ok, float(ok), text=f"{'' if ok else 'not '}{self.meaning}")

    def describe(self) -> str:
        return self.meaning

    def examples(self):
        return True, False


@dataclass(frozen=True)
class Every(Decision):
    """Each of a list of inputs passes ``inner`` (an empty list is not measured)."""

    inner: Decision = field(default_factory=lambda: Threshold(0.0))

    def _decide(self, x: Sequence) -> Outcome:
        outs = [self.inner.decide(t) for t in x]
        if not outs or any(o.passed is None for o in outs):
            return Outcome(None, text="not measured: " + (outs[0].text if outs else "no entries"))
        n = sum(bool(o.passed) for o in outs)
        worst = next((o for o in outs if not o.passed), outs[0])
        return Outcome(n == len(outs), worst.value, worst.low, worst.high,
                       f"{n} of {len(outs)} {self.inner.describe()}" + ("" if n == len(outs) else f"; {worst.text}"))

    def describe(self) -> str:
        return f"every entry {self.inner.describe()}"

    def examples(self):
        good, bad = self.inner.examples()
        return [good, good], [good, bad]

    def to_dict(self) -> dict:
        return {**self.inner.to_dict(), "test": self.describe()}


@dataclass(frozen=True)
class Some(Every):
    """At least one of a list of inputs passes ``inner``."""

    def _decide(self, x: Sequence) -> Outcome:
        outs = [self.inner.decide(t) for t in x]
        if not outs or any(o.passed is None for o in outs):
            return Outcome(None, text="not measured: " + (outs[0].text if outs else "no entries"))
        n = sum(bool(o.passed) for o in outs)
        best = next((o for o in outs if o.passed), outs[0])
        return Outcome(n > 0, best.value, best.low, best.high, f"{n} of {len(outs)} {self.inner.describe()}")

    def describe(self) -> str:
        return f"some entry {self.inner.describe()}"

    def examples(self):
        good, bad = self.inner.examples()
        return [bad, good], [bad, bad]


@dataclass(frozen=True)
class AllOf(Decision):
    """A tuple of inputs, the i-th judged by the i-th of ``parts``: passes when every one passes (several comparisons
    that must hold together, e.g. inside :class:`Some` for "some size where all of them hold")."""

    parts: tuple = ()

    def __post_init__(self):
        if len(self.parts) < 2 or not all(isinstance(d, Decision) for d in self.parts):
            raise ValueError("parts: allowed a tuple of two or more decisions")

    def _each(self, x) -> list[Outcome]:
        x = tuple(x)
        if len(x) != len(self.parts):
            raise ValueError(f"x: {len(x)} inputs for {len(self.parts)} decisions; allowed one input per decision")
        return [d.decide(v) for d, v in zip(self.parts, x)]

    @staticmethod
    def _missing(outs: list[Outcome]) -> Outcome | None:
        missing = next((o for o in outs if o.passed is None), None)
        return Outcome(None, text=f"not measured: {missing.text}") if missing else None

    def _outcomes(self, x) -> list[Outcome] | Outcome:
        outs = self._each(x)
        return self._missing(outs) or outs

    def _decide(self, x) -> Outcome:
        outs = self._outcomes(x)
        if isinstance(outs, Outcome):
            return outs
        worst = next((o for o in outs if not o.passed), outs[0])
        return Outcome(all(o.passed for o in outs), worst.value, worst.low, worst.high, "; ".join(o.text for o in outs))

    def describe(self) -> str:
        return " and ".join(f"({d.describe()})" for d in self.parts)

    def examples(self):
        good = tuple(d.examples()[0] for d in self.parts)
        return good, (self.parts[0].examples()[1], *good[1:])


@dataclass(frozen=True)
class AnyOf(AllOf):
    """A tuple of inputs, the i-th judged by the i-th of ``parts``: passes when at least one passes (a claim that
    holds in either of two settings), even where another is not measured; not measured when none passes and one is
    missing (three-valued "or")."""

    def _decide(self, x) -> Outcome:
        outs = self._each(x)
        if not any(o.passed for o in outs) and self._missing(outs):
            return self._missing(outs)
        best = next((o for o in outs if o.passed), outs[0])
        return Outcome(any(o.passed for o in outs), best.value, best.low, best.high, "; or ".join(o.text for o in outs))

    def describe(self) -> str:
        return " or ".join(f"({d.describe()})" for d in self.parts)

    def examples(self):
        bad = tuple(d.examples()[1] for d in self.parts)
        return (self.parts[0].examples()[0], *bad[1:]), bad
