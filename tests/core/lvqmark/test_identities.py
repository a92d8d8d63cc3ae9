"""Identities of the watermark statistics and the attacks against independent references."""

import numpy as np
import pytest

from core.lvqmark import (ATTACKS, EmpiricalNull, analytic_z, attack, chunk_z, green_counts, green_table, hrf,
                          load_series, logit_bias, make_windows, warmup_length, wilson_interval)


def transformers_detector(gamma):
    from transformers import GPT2Config
    from transformers.generation import WatermarkDetector, WatermarkingConfig

    config = GPT2Config(vocab_size=32, bos_token_id=0, eos_token_id=0)
    return WatermarkDetector(config, "cpu", WatermarkingConfig(greenlist_ratio=gamma))


@pytest.mark.parametrize("gamma", [0.25, 0.5])
def test_the_analytic_z_equals_transformers_private_compute_z_score(gamma):
    # _compute_z_score is a private method of transformers' WatermarkDetector (5.24): the reference, not an API.
    rng = np.random.default_rng(0)
    total = rng.integers(1, 500, 200)
    green = rng.binomial(total, 0.6)
    theirs = transformers_detector(gamma)._compute_z_score(green, total)
    np.testing.assert_allclose(analytic_z(green, total, gamma), theirs, rtol=0, atol=1e-12)
    assert not np.allclose(analytic_z(green, total, gamma), transformers_detector(0.1)._compute_z_score(green, total))


def test_the_green_table_is_a_keyed_half_inverted_on_odd_positions():
    t = green_table(32, 11, key=12345)
    assert (t.sum(1) == 16).all()
    assert (t[1::2] == ~t[0]).all() and (t[0::2] == t[0]).all()
    assert not (green_table(32, 11, key=7)[0] == t[0]).all()          # another key, another partition
    b = logit_bias(32, 11, 12345, 4.0)
    assert (b[:warmup_length(11)] == 0).all() and warmup_length(11) == 3
    assert (b[3:] == 4.0 * t[3:]).all()


def test_green_counts_skip_the_warm_up_and_follow_the_alternation():
    t = green_table(8, 6, key=3)
    g0 = int(np.flatnonzero(t[0])[0])
    tokens = np.full((1, 6), g0)           # green on even positions, red on odd ones
    c = green_counts(tokens, 8, key=3)
    assert c.scored[0] == 4 and c.green[0] == 2      # positions 2..5: 2 and 4 are green
    with pytest.raises(ValueError, match="^tokens:"):
        green_counts(np.full((1, 6), 8), 8, key=3)


def test_the_empirical_z_of_chunks_is_the_mean_shift_over_the_standard_error_of_a_difference_of_means():
    """Two independent means, the chunk's (100 windows) and the null's (400): variance sigma^2 (1/100 + 1/400);
    TimeWak's z keeps only the chunk's term."""
    g = np.random.default_rng(1).uniform(0, 1, 1000)
    null = EmpiricalNull(0.5, 0.2, 400)
    shift = g.reshape(10, 100).mean(1) - 0.5
    np.testing.assert_allclose(chunk_z(g, null, 100), shift / (0.2 * np.sqrt(1 / 100 + 1 / 400)))
    np.testing.assert_allclose(chunk_z(g, null, 100, count_null_error=False), shift / 0.02)


def test_the_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for hits, n in ((0, 20), (7, 20), (20, 20)):
        np.testing.assert_allclose(wilson_interval(hits, n), proportion_confint(hits, n, method="wilson"), atol=1e-12)


@pytest.mark.parametrize("name", ATTACKS)
def test_every_attack_keeps_the_shape_and_leaves_the_input_alone(name):
    x = make_windows(load_series("finance")).test[:50]
    before = x.copy()
    y = attack(x, name, 0.3, seed=0)
    assert y.shape == x.shape and y.dtype == x.dtype and np.array_equal(x, before)
    assert np.array_equal(y, attack(x, name, 0.3, seed=0))
    if name == "none":
        assert np.array_equal(y, x)
    else:
        assert not np.allclose(y, x)


def test_crop_fills_with_the_midpoint_and_insert_replaces_floor_f_t_steps():
    x = np.random.default_rng(0).uniform(-1, 1, (20, 24, 3)).astype(np.float32)
    mid = (x.min((0, 1)) + x.max((0, 1))) / 2
    y = attack(x, "crop", 0.3, seed=1)
    kept = np.isclose(y, x)
    assert np.allclose(y[~kept], np.broadcast_to(mid, y.shape)[~kept])
    assert (kept.sum((1, 2)) == 17 * 3).all()        # ceil(0.7 * 24) = 17 steps by ceil(0.7 * 3) = 3 variables
    z = attack(x, "insert", 0.3, seed=1)
    assert ((z != x).sum(1) <= 7).all() and ((z != x).sum(1) >= 6).all()   # floor(0.3 * 24) = 7 (a draw may equal)
    s = attack(x, "smoothing", 0.3, seed=0)
    np.testing.assert_allclose(s[:, 10], x[:, 6:15].mean(1), rtol=1e-5)   # width 9 centred


def test_the_hrf_peaks_near_five_seconds_with_an_undershoot():
    h = hrf(np.arange(0, 32, 0.1))
    assert 4.5 <= np.argmax(h) * 0.1 <= 5.5 and h[np.arange(0, 32, 0.1) > 12].min() < 0


def test_bad_input_names_the_field():
    x = np.zeros((2, 24, 2), np.float32)
    with pytest.raises(ValueError, match="^attack:"):
        attack(x, "rotate", 0.1)
    with pytest.raises(ValueError, match="^strength:"):
        attack(x, "crop", 1.5)
    with pytest.raises(ValueError, match="^dataset:"):
        load_series("weather")
    with pytest.raises(ValueError, match="^codebook_size:"):
        green_table(7, 3, key=1)
    with pytest.raises(ValueError, match="^delta:"):
        logit_bias(8, 3, key=1, delta=-1.0)
