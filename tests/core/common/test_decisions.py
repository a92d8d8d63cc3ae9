"""Each decision against a closed form or textbook formula, on both sides of its bound, and its bad input."""

import math

import numpy as np
import pytest
from scipy import stats

from core.common.decisions import (AllOf, AnyOf, Binomial, Bootstrap, Every, Flag, InBand, Interval, PairedT, PValue, Some, Threshold,
                                   Trend)

ALL = [Threshold(1e-9), Threshold(0.5, "above", strict=False), Interval(1.0, "below"), Interval(0.0, "above"),
       Interval(0.0, "inside", band=0.05), PairedT(0.0, "above"), PairedT(0.0, "inside", band=0.1),
       PairedT(0.02, "below", confidence=0.9), Bootstrap(0.5, "above"), Bootstrap(0.0, "below", "median"),
       Binomial(0.05, "contains"), Binomial(0.5, "above"), Binomial(0.001, "below"), InBand(), InBand("above"),
       InBand("below"), PValue(0.01), Trend("rising"), Trend("falling", monotone=True), Every(Interval(1.0, "below")),
       Some(Threshold(0.0, "above")), Flag("converged"), AllOf((Threshold(1.0), Flag("ok"))),
       AnyOf((Threshold(1.0), Flag("ok")))]


@pytest.mark.parametrize("decision", ALL, ids=lambda d: type(d).__name__ + ":" + d.describe())
def test_every_decision_passes_its_passing_example_and_fails_its_failing_one(decision):
    good, bad = decision.examples()
    assert decision.decide(good).passed is True
    assert decision.decide(bad).passed is False
    assert decision.decide(None).passed is None and "not measured" in decision.decide(None).text
    assert decision.describe() and decision.to_dict()["test"] == decision.describe()


def test_the_paired_t_interval_is_the_textbook_one():
    d = np.array([0.031, -0.012, 0.044, 0.020, 0.008, 0.027])
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    out = PairedT(0.0, "above").decide(d)
    assert out.value == pytest.approx(d.mean()) and out.low == pytest.approx(d.mean() - half)
    assert out.high == pytest.approx(d.mean() + half)
    assert out.passed == bool(d.mean() - half > 0)
    # equivalence: inside the band only when both ends are
    assert PairedT(0.0, "inside", band=out.high + 1e-6).decide(d).passed == bool(-out.high - 1e-6 < out.low)
    assert PairedT(0.0, "inside", band=out.high - 1e-6).decide(d).passed is False


def test_the_binomial_interval_is_clopper_pearson():
    k, n = 7, 40
    low, high = stats.beta.ppf(0.025, k, n - k + 1), stats.beta.ppf(0.975, k + 1, n - k)
    out = Binomial(0.1, "contains").decide((k, n))
    assert (out.low, out.high) == (pytest.approx(low), pytest.approx(high)) and out.passed
    assert Binomial(0.1, "above").decide((k, n)).passed is False and low < 0.1
    with pytest.raises(ValueError, match="x: \\(41, 40\\)"):
        Binomial(0.1).decide((41, 40))


def test_the_bootstrap_interval_holds_the_mean_and_is_reproducible():
    x = np.random.default_rng(0).normal(0.3, 0.1, size=30)
    a, b = Bootstrap(0.0, "above").decide(x), Bootstrap(0.0, "above").decide(x)
    assert a == b and a.low < x.mean() < a.high and a.passed
    assert Bootstrap(0.35, "above").decide(x).passed is False
    constant = Bootstrap(1.0, "above").decide([2.0, 2.0, 2.0])
    assert constant.low == constant.high == 2.0 and constant.passed


def test_stored_intervals_and_bands_read_every_form():
    assert Interval(1.0, "below").decide({"low": 0.7, "high": 0.99}).passed
    assert Interval(1.0, "below").decide((0.8, 0.7, 1.01)).passed is False
    assert Interval(1.0, "below", strict=False).decide((0.7, 1.0)).passed
    assert InBand().decide((0.95, 0.93, 0.97)).passed and not InBand().decide((0.92, 0.93, 0.97)).passed


def test_lists_count_their_entries_and_name_the_worst():
    out = Every(Interval(1.0, "below")).decide([(0.5, 0.9), (0.8, 1.2), (0.4, 0.6)])
    assert out.passed is False and "2 of 3" in out.text and out.high == 1.2
    assert Some(Interval(1.0, "below")).decide([(0.8, 1.2), (0.4, 0.6)]).passed
    assert Every(Threshold(1.0)).decide([]).passed is None
    assert Every(Threshold(1.0)).decide([0.5, None]).passed is None


def test_too_few_samples_are_not_measured_rather_than_failed():
    assert PairedT().decide([0.3]).passed is None
    assert Bootstrap().decide([0.3]).passed is None
    assert Trend().decide([1.0]).passed is None


def test_trends_compare_first_and_last_or_every_step():
    assert Trend("rising").decide([1, 0.5, 2]).passed
    assert Trend("rising", monotone=True).decide([1, 0.5, 2]).passed is False


@pytest.mark.parametrize("make, field", [
    (lambda: Threshold(1.0, "sideways"), "side"), (lambda: Interval(0.0, "inside"), "band"),
    (lambda: PairedT(confidence=1.5), "confidence"), (lambda: Bootstrap(statistic="mode"), "statistic"),
    (lambda: Binomial(0.1, "inside"), "side"), (lambda: PValue(0.0), "alpha"), (lambda: Trend("up"), "side")])
def test_bad_parameters_name_the_field(make, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        make()


def test_either_and_both_are_three_valued_where_a_part_is_not_measured():
    """One passing part decides "or" whatever the other is (Kleene's "or"); otherwise, and for "and" always, a part
    not measured leaves the whole not measured."""
    parts = (Threshold(1.0), Flag("ok"))
    either, both = AnyOf(parts), AllOf(parts)
    assert either.decide((0.5, None)).passed is True and either.decide((2.0, None)).passed is None
    assert either.decide((2.0, False)).passed is False and either.decide((None, True)).passed is True
    assert both.decide((2.0, None)).passed is None and both.decide((0.5, None)).passed is None
    assert both.decide((0.5, True)).passed is True and both.decide((0.5, False)).passed is False
    with pytest.raises(ValueError, match=r"^x: 1 inputs for 2 decisions"):
        either.decide((0.5,))
