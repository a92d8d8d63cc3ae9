"""The grace bench's two intervals under nulls: their false-positive rates against the nominal 5%.

A grace verdict counts a difference only when both its Student-t interval over replicates (fresh fits
and scenes) and its paired scene bootstrap (scenes resampled within each replicate) exclude zero. The
bootstrap holds each replicate's fitted maps fixed, so it sees scene noise only: when two methods differ
by a fit-to-fit shift that averages out over replicates, it is liberal, and the t interval is the
guard. These tests measure both, and the two together, on simulated per-scene differences.
"""

import numpy as np
from scipy.stats import binom

from bench.grace import paired_bootstrap
from core.grace.compare import t_interval

NOMINAL, TRIALS = 0.05, 400


def excludes_zero(interval) -> bool:
    low, high = interval
    return low > 0 or high < 0


def interval_of(rate: float, trials: int = TRIALS):
    """The 99% binomial band a calibrated test's false-positive count falls in."""
    return binom.ppf(0.005, trials, rate) / trials, binom.ppf(0.995, trials, rate) / trials


def simulate(rng, replicates: int, scenes: int, fit_sd: float):
    """Per replicate, per-scene differences of two methods with mean zero: a replicate shift (the fits'
    difference, sd ``fit_sd``) plus per-scene hit noise on the 0, 1/3, 2/3, 1 grid of three attributes."""
    out = []
    for _ in range(replicates):
        shift = rng.normal(0.0, fit_sd)
        a = rng.binomial(3, 0.7, scenes) / 3
        b = rng.binomial(3, 0.7, scenes) / 3
        out.append(a - b + shift)
    return out


def rates(fit_sd: float, seed: int, replicates: int = 5, scenes: int = 80):
    rng = np.random.default_rng(seed)
    t_hits = boot_hits = both = 0
    for _ in range(TRIALS):
        diffs = simulate(rng, replicates, scenes, fit_sd)
        t = excludes_zero(t_interval([d.mean() for d in diffs]))
        b = excludes_zero(paired_bootstrap(diffs, rng, resamples=300))
        t_hits, boot_hits, both = t_hits + t, boot_hits + b, both + (t and b)
    return t_hits / TRIALS, boot_hits / TRIALS, both / TRIALS


def test_with_no_fit_to_fit_shift_both_intervals_are_calibrated():
    t, boot, both = rates(fit_sd=0.0, seed=1)
    low, high = interval_of(NOMINAL)
    assert low <= t <= high, t
    # The percentile bootstrap of a mean over 400 scenes: nominal up to its n/(n-1) variance and grid effects.
    assert low <= boot <= high, boot
    assert both <= min(t, boot)


def test_with_a_fit_to_fit_shift_the_bootstrap_alone_is_liberal_and_the_t_interval_guards():
    t, boot, both = rates(fit_sd=0.05, seed=2)
    low, high = interval_of(NOMINAL)
    assert boot > high, boot                 # scene noise only: it takes the fits' difference for an effect
    assert low <= t <= high, t               # the replicates see the fits: calibrated
    assert both <= high, both                # the rule needs both: no more liberal than the t interval
