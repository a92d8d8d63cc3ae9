"""The highway simulator: IDM against its closed form, the renderer and detector, seeds, bad input."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.driving_world_model import sim
from core.driving_world_model.metrics import STEERS, probe_scores, steering_spearman
from core.driving_world_model.sim import (SimConfig, coarse_frames, counterfactual_truth, idm_acceleration,
                                          lateral_position, make_dataset, render_frame)
from core.driving_world_model.training import TrainConfig


def test_idm_uses_highway_env_constants_and_its_closed_form():
    assert (sim.ACC_MAX, sim.COMFORT_ACC_MAX, sim.COMFORT_ACC_MIN) == (6.0, 3.0, -5.0)
    assert (sim.DISTANCE_WANTED, sim.TIME_WANTED, sim.DELTA, sim.LENGTH) == (10.0, 1.5, 4.0, 5.0)
    assert idm_acceleration(np.array(0.0), 25.0, np.inf, 0.0) == pytest.approx(3.0)        # free road, at rest
    assert idm_acceleration(np.array(25.0), 25.0, np.inf, 0.0) == pytest.approx(0.0)       # at desired speed
    v, gap, dv = 20.0, 30.0, 2.0
    d_star = 10.0 + v * 1.5 + v * dv / (2 * np.sqrt(15.0))
    want = 3.0 * (1 - (v / 25.0) ** 4) - 3.0 * (d_star / gap) ** 2
    assert idm_acceleration(np.array(v), 25.0, gap, dv) == pytest.approx(max(want, -6.0))


def test_frames_hold_box_areas_and_the_detector_reads_the_ego_position():
    f = render_frame(np.array([0.0]), np.array([0.0]), 6.0, 3)
    assert f[0].sum() * sim.CELL_LONG * sim.CELL_LAT == pytest.approx(sim.LENGTH * sim.WIDTH)   # area preserved
    d = make_dataset(SimConfig(), 6, seed=3)
    np.testing.assert_allclose(lateral_position(d.frames), d.ego_y, atol=0.02)
    coarse = coarse_frames(d.frames)
    np.testing.assert_allclose(lateral_position(coarse), d.ego_y, atol=0.5)   # the coarse level keeps it (3.5 m cells)
    assert not np.allclose(lateral_position(d.frames[:, ::-1]), d.ego_y, atol=0.02)   # control: wrong frames


def test_datasets_are_seeded_and_stop_on_request():
    a, b = make_dataset(SimConfig(length=10), 3, seed=5), make_dataset(SimConfig(length=10), 3, seed=5)
    assert np.array_equal(a.frames, b.frames) and np.array_equal(a.actions, b.actions)
    assert not np.array_equal(a.frames, make_dataset(SimConfig(length=10), 3, seed=6).frames)
    log = ProgressLog(stop_after=2)
    assert make_dataset(SimConfig(length=10), 5, seed=5, progress=log).frames.shape[0] == 2


def test_the_simulator_itself_responds_to_steering_and_its_probes_read_speed():
    truth = counterfactual_truth(SimConfig(), 1, range(4), 8, STEERS, 8)
    shifts = lateral_position(truth[:, :, -1]) - lateral_position(truth[:, :, 0])
    assert steering_spearman(STEERS, shifts) > 0.95
    rng = np.random.default_rng(0)            # control: shifts unrelated to the command (rows permuted)
    blind = [steering_spearman(STEERS, np.stack([rng.permutation(r) for r in shifts])) for _ in range(200)]
    assert abs(np.mean(blind)) < 0.1
    d = make_dataset(SimConfig(), 10, seed=2)
    exact = np.c_[d.speed.ravel(), d.lane.ravel(), d.gap.ravel()]
    scores = probe_scores(exact + 0.01, exact, np.repeat(np.arange(10), d.speed.shape[1]))
    assert scores.r2.min() > 0.99 and scores.r2_shuffled.max() < 0.2


@pytest.mark.parametrize("make, field", [
    (lambda: SimConfig(n_lanes=7), "n_lanes"),
    (lambda: SimConfig(dt=0.0), "dt"),
    (lambda: make_dataset(SimConfig(), 0, seed=0), "n_episodes"),
    (lambda: make_dataset(SimConfig(), 2, seed=-1), "seed"),
    (lambda: TrainConfig(objective="adam"), "objective"),
    (lambda: TrainConfig(steps=0), "steps"),
])
def test_bad_input_names_the_field(make, field):
    with pytest.raises(ValueError, match=rf"^{field}: .*allowed"):
        make()


def test_bad_eval_config_names_the_field_and_leaves_defaults_alone():
    from core.driving_world_model.experiment import EvalConfig, FinetuneConfig
    from core.driving_world_model.rollout import context_timestep

    with pytest.raises(ValueError, match=r"^context_noise: .*allowed"):
        EvalConfig(context_noise=0.9)
    with pytest.raises(ValueError, match=r"^schedule: .*allowed"):
        FinetuneConfig(schedule="zigzag")
    with pytest.raises(ValueError, match=r"^context_noise: .*allowed"):
        context_timestep(-0.1)
    assert EvalConfig().context_noise == 0.0 and context_timestep(0.0) == -1
