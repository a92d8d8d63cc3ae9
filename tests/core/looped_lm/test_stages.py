"""Stages of inference on the shipped models: repeated every loop, lined up with the feedforward model."""

import numpy as np

from core.looped_lm import load_pretrained, run_with_cache
from core.looped_lm.stages import (cka_matrix, feedforward_profile, feedforward_states, looped_profile,
                                   profile_correlation, stage_alignment)


def setup():
    shipped = load_pretrained("stable")
    model, task = shipped.model, shipped.task
    ff = load_pretrained("feedforward").model
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


def constructed_stages(done, ff_done=(0, 1, 2, 4, 4), K=4):
    """HopStages whose lenses read exactly the first done[r] hops after loop r (and ff_done[i] after layer i)."""
    from core.looped_lm.view import HopStages

    def acc(counts):
        return np.array([[1.0 if k < c else 0.1 for k in range(K)] for c in counts])

    R, F = len(done), len(ff_done)
    cka = np.array([[1.0 - abs(i / (F - 1) - min(r + 1, R) / R) for r in range(R)] for i in range(F)])
    return HopStages(acc(done), acc(done), np.zeros((R, K)), np.zeros((R, K)), np.array(done), acc(ff_done),
                     np.zeros((F, K)), np.array(ff_done), cka)


def test_the_stage_criterion_on_constructed_profiles():
    from core.looped_lm.evidence import hops_added, stages_repeat
    from core.looped_lm.stages import _hops_done

    assert _hops_done(np.array([[1.0, 0.95, 0.5, 1.0], [1.0, 1.0, 1.0, 1.0]])).tolist() == [2, 4]   # in order
    one_per_loop, doubling = constructed_stages([1, 2, 3, 4, 4]), constructed_stages([1, 2, 4, 4, 4])
    assert stages_repeat(one_per_loop) and hops_added(one_per_loop).tolist() == [1, 1, 1, 1]
    assert stages_repeat(doubling) and hops_added(doubling).tolist() == [1, 1, 2]
    assert not stages_repeat(constructed_stages([0, 0, 0, 0, 0]))          # an untrained block: nothing read
    assert not stages_repeat(constructed_stages([4, 4, 4, 4, 4]))          # one loop is enough: nothing repeats
    assert not stages_repeat(constructed_stages([1, 2, 4, 3, 4]))          # a hop lost again
