"""LVQMark's MMD quality ratio (core.lvqmark.quality.mmd_ratio): the closed form of the squared MMD between
Gaussians, and the equivalence decision "bootstrap interval wholly below 1.25" holding its level at the margin."""

import numpy as np
import pytest

from core.common.calibration import false_positive_rate
from core.lvqmark.quality import mmd_ratio

D, ELL = 2, 2.0   # windows of T = 2 steps, D = 1 variable; a fixed RBF length scale


def population_mmd2(shift: float) -> float:
    """MMD² between N(0, I) and N(mu, I) in D dimensions, |mu| = shift, RBF length scale ELL:
    2 c (1 - exp(-|mu|² / (2 (ELL² + 2)))), c = (ELL² / (ELL² + 2))^(D/2)."""
    c = (ELL**2 / (ELL**2 + 2)) ** (D / 2)
    return 2 * c * (1 - np.exp(-shift**2 / (2 * (ELL**2 + 2))))


def shift_for(target: float) -> float:
    """The shift whose population MMD² is ``target``."""
    c = (ELL**2 / (ELL**2 + 2)) ** (D / 2)
    return float(np.sqrt(-2 * (ELL**2 + 2) * np.log(1 - target / (2 * c))))


def _sample(rng, n, shift):
    x = rng.normal(size=(n, D, 1))
    x[:, 0, 0] += shift
    return x


def test_the_unbiased_squared_mmd_matches_its_closed_form():
    rng = np.random.default_rng(0)
    r = mmd_ratio(_sample(rng, 1500, 0.0), _sample(rng, 1500, 2.0), _sample(rng, 1500, 1.2), resamples=50,
                  bandwidth=ELL)
    assert r.mmd_a == pytest.approx(population_mmd2(2.0), rel=0.08)
    assert r.mmd_b == pytest.approx(population_mmd2(1.2), rel=0.12)
    assert r.low < population_mmd2(2.0) / population_mmd2(1.2) < r.high


def test_bad_windows_are_refused_with_the_field_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="b: shape"):
        mmd_ratio(_sample(rng, 10, 0), _sample(rng, 10, 0), rng.normal(size=(10, 3, 1)))
    with pytest.raises(ValueError, match="resamples"):
        mmd_ratio(_sample(rng, 10, 0), _sample(rng, 10, 0), _sample(rng, 10, 0), resamples=5)


MARGIN = 1.25
B_SHIFT = 2.0
A_SHIFT = shift_for(MARGIN * population_mmd2(B_SHIFT))   # a is exactly MARGIN times as far from real as b


def _passes(shift_a):
    def simulate(rng):
        return mmd_ratio(_sample(rng, 250, 0.0), _sample(rng, 250, shift_a), _sample(rng, 250, B_SHIFT),
                         seed=int(rng.integers(2**31)), resamples=200, bandwidth=ELL)

    return simulate


def _verdict(r):
    return 0.0 if r.high < MARGIN else 1.0   # "preserved": the interval wholly below the margin


@pytest.mark.slow("400 bootstrap intervals of 200 resamples each, the fewest that pin a 2.5% rate and a power")
def test_the_equivalence_decision_holds_its_level_at_the_margin_and_has_power_below_it():
    assert population_mmd2(A_SHIFT) / population_mmd2(B_SHIFT) == pytest.approx(MARGIN)
    fpr = false_positive_rate(_verdict, _passes(A_SHIFT), alpha=0.025, n_draws=300, seed=0)
    assert fpr.calibrated or fpr.verdict == "conservative", fpr.sentence()
    power = false_positive_rate(_verdict, _passes(B_SHIFT), alpha=0.025, n_draws=100, seed=1)
    assert power.rate > 0.5, power.sentence()
