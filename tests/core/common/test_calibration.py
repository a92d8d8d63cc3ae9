"""The calibration and power helpers on tests whose behaviour is known in closed form."""

import numpy as np
import pytest
from scipy import stats

from core.common.calibration import (false_positive_rate, folds_for_power, non_inferiority_power, observed_power,
                                     power_curve)
from core.common.decisions import PairedT

N = 10   # sample size of the tests below


def z_test(x, sigma=1.0):
    """Two-sided one-sample z-test of mean 0 with known sigma: exact under N(0, sigma^2)."""
    return 2 * stats.norm.sf(abs(np.mean(x)) * np.sqrt(len(x)) / sigma)


def z_with_sample_sd(x):
    """The z-test with the sample sd plugged in (should be a t-test): too liberal at small n."""
    return 2 * stats.norm.sf(abs(np.mean(x)) * np.sqrt(len(x)) / np.std(x, ddof=1))


def t_test(x):
    return stats.ttest_1samp(x, 0.0).pvalue


def null(rng):
    return rng.normal(size=N)


def test_a_calibrated_z_test_has_alpha_inside_its_interval():
    fpr = false_positive_rate(z_test, null, alpha=0.05, n_draws=4000, seed=1)
    assert fpr.interval[0] <= 0.05 <= fpr.interval[1] and fpr.calibrated and fpr.verdict == "calibrated"
    assert fpr.interval[1] - fpr.interval[0] < 0.03          # 4000 draws: a half-width of about 0.007
    assert "calibrated" in fpr.sentence() and "4000 null draws" in fpr.sentence()


def test_a_z_test_on_the_sample_sd_at_n_10_is_flagged_liberal():
    # its true level is P(|T_9| > 1.96) = 0.082, not 0.05
    true_rate = 2 * stats.t.sf(stats.norm.isf(0.025), N - 1)
    fpr = false_positive_rate(z_with_sample_sd, null, alpha=0.05, n_draws=4000, seed=1)
    assert not fpr.calibrated and fpr.verdict == "liberal"
    assert fpr.interval[0] <= true_rate <= fpr.interval[1]


def test_a_test_with_the_wrong_scale_is_flagged_conservative():
    # sigma assumed 2 when it is 1: the level is P(|Z| > 3.92) = 9e-5, far below 0.05
    fpr = false_positive_rate(lambda x: z_test(x, sigma=2.0), null, alpha=0.05, n_draws=2000, seed=1)
    assert fpr.verdict == "conservative" and fpr.interval[1] < 0.05


def test_the_t_test_is_calibrated_where_the_plug_in_z_test_is_not():
    assert false_positive_rate(t_test, null, alpha=0.05, n_draws=4000, seed=1).calibrated


def test_draws_are_reproducible_and_seeded():
    a = false_positive_rate(z_test, null, alpha=0.1, n_draws=300, seed=3)
    assert a == false_positive_rate(z_test, null, alpha=0.1, n_draws=300, seed=3)
    assert len({false_positive_rate(z_test, null, alpha=0.1, n_draws=300, seed=s).rejections for s in range(3, 8)}) > 1


def test_power_matches_the_z_tests_closed_form():
    effects = np.round(np.arange(0.1, 2.01, 0.1), 2)
    curve = power_curve(z_test, lambda rng, d: rng.normal(d, 1.0, size=N), effects, alpha=0.05, n_draws=1000, seed=2)
    z = stats.norm.isf(0.025)
    exact = stats.norm.sf(z - effects * np.sqrt(N)) + stats.norm.cdf(-z - effects * np.sqrt(N))
    assert np.abs(np.array(curve.power) - exact).max() < 0.05      # 1000 draws: sd of each share <= 0.016
    # the smallest effect with 80 % power, (z_{0.975} + z_{0.8}) / sqrt(n) = 0.886: the grid's next step (power
    # 0.81 there) or, by chance, the one after
    mde = (z + stats.norm.isf(0.2)) / np.sqrt(N)
    assert curve.detectable is not None and mde <= curve.detectable <= mde + 0.12


def test_an_effect_beyond_the_grid_is_not_detectable():
    curve = power_curve(z_test, lambda rng, d: rng.normal(d, 1.0, size=N), [0.0, 0.05, 0.1], n_draws=300, seed=0)
    assert curve.detectable is None and max(curve.power) < 0.8


@pytest.mark.parametrize("kwargs, field", [({"alpha": 0.0}, "alpha"), ({"alpha": 1.5}, "alpha"),
                                           ({"n_draws": 0}, "n_draws"), ({"n_draws": 2.5}, "n_draws"),
                                           ({"confidence": 1.0}, "confidence")])
def test_bad_arguments_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        false_positive_rate(z_test, null, **kwargs)


def test_a_test_that_returns_no_p_value_is_refused():
    with pytest.raises(ValueError, match="^test: returned p = nan"):
        false_positive_rate(lambda x: float("nan"), null, n_draws=5)


@pytest.mark.parametrize("effects", [[], [0.5, 0.2], [0.1, 0.1]])
def test_a_power_grid_must_increase(effects):
    with pytest.raises(ValueError, match="^effects:"):
        power_curve(z_test, lambda rng, d: rng.normal(d, size=N), effects)


@pytest.mark.parametrize("kwargs, field", [({"target": 1.0}, "target"), ({"alpha": -0.1}, "alpha"), ({"n_draws": 0}, "n_draws")])
def test_bad_power_arguments_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        power_curve(z_test, lambda rng, d: rng.normal(d, size=N), [0.1, 0.2], **kwargs)


def test_the_noncentral_t_power_matches_the_paired_intervals_it_predicts():
    """non_inferiority_power against simulation: normal pairs with the given spread and a true mean at the margin,
    the share whose PairedT interval lies wholly above 0; observed_power orients the same way."""
    spread = [0.3, -0.3, 0.1, -0.1, 0.2, -0.2]
    sd = float(np.std(spread, ddof=1))
    rng = np.random.default_rng(0)
    for margin, n in ((0.1, 10), (0.2, 6), (0.05, 30)):
        hits = [PairedT(0.0, "above").decide(list(rng.normal(margin, sd, n))).passed for _ in range(3000)]
        assert abs(np.mean(hits) - non_inferiority_power(spread, margin, n)) < 0.03, (margin, n)
    needed = folds_for_power(spread, 0.1)
    assert non_inferiority_power(spread, 0.1, needed) >= 0.8 > non_inferiority_power(spread, 0.1, needed - 1)
    effects = [0.5, 0.7, 0.6, 0.4, 0.8]
    assert observed_power(effects) == (non_inferiority_power(effects, 0.6, 5), folds_for_power(effects, 0.6))


def test_the_exact_binomial_rule_at_the_boundary_is_conservative_and_says_so():
    """Binomial(0.5, "above") (a share's 95 % Clopper-Pearson interval wholly above one half: occupancy_irl's wins)
    on 50 fair coins: a one-sided level of at most 0.025, and the exact interval makes it conservative."""
    from core.common.decisions import Binomial

    def p_value(x):   # the rule as a test: "rejects" (p = 0) when it passes
        return 0.0 if Binomial(0.5, "above").decide((int(x.sum()), len(x))).passed else 1.0

    fpr = false_positive_rate(p_value, lambda rng: rng.random(50) < 0.5, alpha=0.025, n_draws=4000, seed=4)
    exact = stats.binom.sf(32, 50, 0.5)   # it passes from 33 of 50 wins: P(X >= 33) = 0.016
    assert fpr.interval[0] <= exact <= fpr.interval[1] and exact < 0.025
    assert fpr.verdict in ("calibrated", "conservative")
