"""Stages of inference on the shipped models: repeated every loop, lined up with the feedforward model."""

import numpy as np

from core.looped_lm import load_pretrained, run_with_cache
from core.looped_lm.stages import (cka_matrix, feedforward_profile, feedforward_states, looped_profile,
                                   profile_correlation, stage_alignment)


def setup():
    model, task = load_pretrained("stable")
    ff, _ = load_pretrained("feedforward")
    ids, targets = task.sample(256, seed=123)
    return model, ff, ids, targets[:, -1], run_with_cache(model, ids, 8)


def test_the_looped_stage_profile_repeats_every_iteration():
    model, _, _, answer, cache = setup()
    profile = looped_profile(model, cache, answer)
    B = cache.block_size
    assert len(profile.entropy) == 8 * B and profile.depth_labels[:2] == ["r1 l0", "r1 l1"]
    late = profile.entropy[4 * B:]
    assert np.abs(late[B:] - late[:-B]).max() < 1e-3          # period B once the cycle is reached
    assert (profile.entropy[B - 1::B] < profile.entropy[0::B]).all()  # the read-out sharpens inside each loop
    assert (profile.coda_agreement[B - 1::B] > 0.95).all()


def test_looped_layers_line_up_with_feedforward_stages():
    model, ff, ids, answer, cache = setup()
    ff_profile = feedforward_profile(ff, ids, answer)
    assert ff_profile.entropy[0] > ff_profile.entropy[-1] and ff_profile.agreement[-1] == 1.0
    states, _ = feedforward_states(ff, ids)
    cka = cka_matrix(states, cache)
    assert cka.shape == (len(states), 8 * cache.block_size) and ((cka >= 0) & (cka <= 1 + 1e-9)).all()
    depth = stage_alignment(cka, cache.block_size)
    assert depth[0] < depth[-1]  # the block's first layer matches earlier feedforward layers than its last
    within_loop = looped_profile(model, cache, answer).entropy[-cache.block_size:]
    assert profile_correlation(np.repeat(within_loop, 4), ff_profile.entropy) > 0.5
