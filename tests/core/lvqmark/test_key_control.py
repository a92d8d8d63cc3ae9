"""The wrong-key control over random keys (core.lvqmark.key_control): symmetric about 0, and its t test calibrated."""

import numpy as np
import pytest
from scipy import stats

from core.common.calibration import false_positive_rate
from core.lvqmark.key_control import mean_t_interval, random_keys, score_keys
from core.lvqmark.watermark import green_table

K, N, KEY = 16, 9, 12345


def _tokens(rng, n, probs):
    """``n`` windows of N codes, position i drawn from ``probs[i]``."""
    return np.stack([rng.choice(K, size=n, p=p) for p in probs], axis=1)


def _watermarked_and_clean(rng, n=400, delta=2.0):
    """A skewed prior over codes and its watermarked tilt towards KEY's green half (inverted on odd positions)."""
    prior = rng.dirichlet(np.full(K, 0.7))
    green = green_table(K, N, KEY)
    tilted = prior * np.exp(delta * green)
    return _tokens(rng, n, tilted / tilted.sum(1, keepdims=True)), _tokens(rng, n, [prior] * N)


def test_random_keys_are_distinct_and_avoid_the_watermark_key():
    keys = random_keys(500, KEY, seed=3)
    assert len(np.unique(keys)) == 500 and not (keys == KEY).any()
    with pytest.raises(ValueError, match="n_keys"):
        random_keys(1, KEY, seed=0)


def test_the_right_key_fires_a_wrong_key_follows_its_overlap_and_the_mean_over_keys_is_zero():
    rng = np.random.default_rng(0)
    wm, clean = _watermarked_and_clean(rng, n=2000)
    with pytest.raises(ValueError, match="watermark key"):
        score_keys(wm, clean, K, [1, KEY], chunk=100, key=KEY)
    w = score_keys(wm, clean, K, random_keys(200, KEY, seed=1), chunk=100, key=KEY)
    # overlap of a random half with the right one: hypergeometric, mean K/4
    assert stats.ttest_1samp(w.overlap, K / 4).pvalue > 0.01
    assert np.corrcoef(w.overlap, w.mean_z)[0, 1] > 0.5   # weighted by the prior, so not 1
    mean, low, high = mean_t_interval(w.mean_z)
    assert low < 0 < high
    # where the method works, the same score fires: the right key (scored as a wrong key of another key)
    right = score_keys(wm, clean, K, [KEY], chunk=100, key=KEY + 1)
    assert right.mean_z[0] > max(high, 0) + 5 and right.mean_z[0] > w.mean_z.max()


def test_the_mean_t_intervald_t_test_holds_its_level_on_watermarked_codes():
    """Under the null (random wrong keys), "the t interval at 1 - a is wholly above 0" is a one-sided test at
    a / 2: its false-positive rate over 600 simulated watermarks lies in a binomial interval around 0.025."""

    def simulate(rng):
        wm, clean = _watermarked_and_clean(rng)
        return score_keys(wm, clean, K, random_keys(40, KEY, seed=int(rng.integers(2**31))), chunk=100, key=KEY).mean_z

    def one_sided_p(mean_z):
        mean, low, high = mean_t_interval(mean_z, alpha=0.05)
        return 0.0 if low > 0 else 1.0

    fpr = false_positive_rate(one_sided_p, simulate, alpha=0.025, n_draws=600, seed=0)
    assert fpr.calibrated or fpr.verdict == "conservative", fpr.sentence()
    assert fpr.rate < 0.05
