"""bench/lvqmark_calibration.py: the detector's z-tests under their own null, against closed forms.

When the calibration set is as large as the chunk, the empirical z as TimeWak and LVQMark use it has a null
spread of √2 (μ₀'s own error is ignored), so at α = 0.05 it fires with chance P(Z > 1.645 / √2) = 0.122; the
two-sample z holds its level; on a law centred off 1/2 the analytic z fires more than α. The simulation must
find each of these.
"""

import numpy as np
import pytest
from scipy import stats

from bench.lvqmark_calibration import calibration_of, detection_p, null_law


def _binomial_law_sample(scored=8, p=0.5, n=200_000, seed=0):
    return np.random.default_rng(seed).binomial(scored, p, n) / scored


def test_the_null_law_is_the_share_of_each_value_of_g():
    values, probs = null_law(np.array([0.0, 0.125, 0.125, 1.0]), 8)
    assert values.tolist() == [i / 8 for i in range(9)]
    assert probs.tolist() == [0.25, 0.5, 0, 0, 0, 0, 0, 0, 0.25]


def test_ignoring_the_calibration_error_is_liberal_by_the_closed_form_and_the_two_sample_z_holds_its_level():
    out = calibration_of(_binomial_law_sample(), 8, n_cal=500, chunk=500, draws=4000, seed=1)
    as_used = next(r for r in out["tests"]["as_used"] if r["alpha"] == 0.05)
    expected = stats.norm.sf(stats.norm.isf(0.05) / np.sqrt(2))
    assert as_used["verdict"] == "liberal" and as_used["low"] <= expected <= as_used["high"]
    assert all(r["verdict"] == "calibrated" for r in out["tests"]["two_sample"])


def test_the_analytic_z_fires_when_the_null_mean_is_not_one_half():
    """A prior whose codes are not split evenly by the green half: g's mean is 0.52, and every token counted."""
    out = calibration_of(_binomial_law_sample(p=0.52), 8, n_cal=1000, chunk=1000, draws=2000, seed=2)
    assert out["null_mean"] == pytest.approx(0.52, abs=2e-3)
    assert all(r["verdict"] == "liberal" for r in out["tests"]["analytic"])
    assert all(r["verdict"] == "calibrated" for r in out["tests"]["two_sample"])


def test_an_unknown_test_is_named():
    with pytest.raises(ValueError, match="^test: 'exact'; allowed as_used, two_sample, analytic$"):
        detection_p("exact", np.array([0.0, 1.0]), np.array([0.5, 0.5]), 1)
