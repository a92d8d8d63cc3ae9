"""Training runs: seeded, stoppable, the level/data match checked, and the hierarchy's conditioning."""

import numpy as np
import pytest
import torch

from core.common.progress import ProgressLog
from core.driving_world_model.sim import SimConfig, make_dataset
from core.driving_world_model.training import (STRIDE, TrainConfig, keyframe_condition, keyframes_of, level_data,
                                               train)


@pytest.fixture(scope="module")
def data():
    return make_dataset(SimConfig(length=17), 4, seed=0)


def test_training_is_seeded_and_stops_when_asked(data):
    ld = level_data(data, "high")
    cfg = TrainConfig(level="high", steps=30, batch=4, window=5)
    a, b = train(ld, cfg, seed=1), train(ld, cfg, seed=1)
    assert np.array_equal(a.losses, b.losses)
    assert all(torch.equal(p, q) for p, q in zip(a.model.state_dict().values(), b.model.state_dict().values()))
    log = ProgressLog(stop_after=1)
    stopped = train(ld, cfg, seed=1, progress=log)
    assert stopped.steps_done == 10 and log.steps == [10]
    assert a.losses[-5:].mean() < a.losses[:5].mean()


def test_a_level_mismatch_is_refused_and_nothing_is_trained(data):
    with pytest.raises(ValueError, match=r"^level: .*allowed"):
        train(level_data(data, "flat"), TrainConfig(level="high", steps=1), seed=0)


def test_the_low_level_sees_the_next_keyframe_and_its_distance(data):
    keys = keyframes_of(data.frames)
    assert keys.shape[1] == (data.frames.shape[1] - 1) // STRIDE + 1
    idx = np.array([[4, 5, 8]])
    cond = keyframe_condition(keys[:1], idx)
    np.testing.assert_allclose(cond[0, 0, :2, ::4, ::4], keys[0, 1])          # frame 4: its own keyframe
    np.testing.assert_allclose(cond[0, 1, :2, ::4, ::4], keys[0, 2])          # frame 5: keyframe at 8
    np.testing.assert_allclose(cond[0, :, 2, 0, 0], [0.0, 0.75, 0.0])


def test_the_live_finetune_stops_cleanly_and_still_reports_both_evaluations():
    from core.driving_world_model.experiment import FinetuneConfig, finetune_and_evaluate

    log = ProgressLog(stop_after=1)
    run = finetune_and_evaluate(FinetuneConfig(steps=50, episodes=20), seed=0, progress=log)
    assert run.steps_done == 10 and log.steps == [10] and len(run.losses) == 10
    assert run.before.iou.shape == run.after.iou.shape == (32,)
    assert run.before.name != run.after.name
