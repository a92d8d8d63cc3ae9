"""The paper's claims on the shipped designs and on a default seeded training run (~35 s)."""

import pytest

from core.looped_lm import (LoopedConfig, attention_change, fixed_point_residuals, fixed_point_separation,
                            run_with_cache, train)
from core.looped_lm.pretrained import load_pretrained
from core.looped_lm.tasks import make_task
from core.looped_lm.training import LIVE_POINTER, accuracy_by_hops, task_of


def claims(model, task):
    ids, _ = task.sample(64, seed=123)
    cache = run_with_cache(model, ids, num_loops=40)
    delta = fixed_point_residuals(cache.hiddens, reduce="median")   # delta[r] compares loops r and r+1
    return delta[3], delta[31], fixed_point_separation(cache.hiddens), attention_change(cache.attentions)[31].mean()


def assert_cyclic_fixed_points(model, task):
    d4, d32, separation, tv32 = claims(model, task)
    assert (d32 <= 1e-2).all() and (d32 <= d4 / 10).all()  # every block layer converges
    assert separation > 0.05                                 # to its own point: a cycle, not one attractor
    assert tv32 < 0.01                                       # and attention has settled


def test_shipped_stable_design_reaches_a_cycle_of_fixed_points():
    model, task = load_pretrained("stable")
    assert_cyclic_fixed_points(model, task)
    assert model.metadata["accuracy_by_loops"]["32"] >= 0.95  # and it still answers far past 6 loops


def test_shipped_unstable_design_does_not_converge():
    model, task = load_pretrained("unstable")
    _, d32, separation, _ = claims(model, task)
    assert (d32 > 1e-2).all() and separation < 0.05


def test_a_default_training_run_reaches_a_cycle_of_fixed_points():
    result = train(LoopedConfig(), seed=0)
    assert result.accuracy[6 if 6 in result.accuracy else 8] >= 0.95
    assert_cyclic_fixed_points(result.model, make_task(LoopedConfig().task))


def test_pointer_model_scales_with_loops_and_holds_beyond_training():
    """Test-time scaling: each extra loop reaches deeper hops; answers hold at 4x the trained loop count."""
    model, task = load_pretrained("pointer")
    acc = accuracy_by_hops(model, task, loops=(1, 2, 4, 32), n=1024, seed=77)   # [loops, hops], fresh samples
    assert acc[0, -1] < 0.7 and acc[1, -1] > acc[0, -1] + 0.2 and acc[2, -1] >= 0.95 and acc[3, -1] >= 0.95
    assert acc[0, 0] >= 0.95                          # one loop is enough for the first hop
    assert (acc[2] >= acc[0] - 0.01).all()           # more loops never hurt a hop much


def test_a_live_pointer_run_needs_a_second_loop_and_holds_beyond_training():
    """The live preset (5 nodes, 3 hops, 1000 steps, about a minute): test-time scaling trained on the spot."""
    config = LoopedConfig(**LIVE_POINTER)
    result = train(config, seed=0)
    acc = accuracy_by_hops(result.model, task_of(config), loops=(1, 2, 32), n=1024, seed=77)
    assert acc[1, -1] >= 0.95 and acc[2, -1] >= 0.95            # two loops suffice, 32 still answer
    assert acc[1, -1] >= acc[0, -1] + 0.05                      # one loop falls short on the last hop
    assert acc[0, 0] >= 0.95                                    # but not on the first


def test_unknown_design_is_named():
    with pytest.raises(ValueError, match="^name: 'wobbly' is not an option; allowed 'stable', 'unstable', 'feedforward', 'pointer'$"):
        load_pretrained("wobbly")
