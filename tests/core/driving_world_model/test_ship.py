"""The shipped files: checkpoints load as float16 safetensors, and parts of view.npz recompute from them."""

import json

import numpy as np

from core.driving_world_model.experiment import N_CONTEXT, probe_variant
from core.driving_world_model.metrics import STEER_HORIZON, STEERS, steering_spearman
from core.driving_world_model.ship import ASSETS, VARIANTS
from core.driving_world_model.sim import SimConfig, counterfactual_truth, lateral_position
from core.driving_world_model.views import EVALUATED, load_named, shipped_view, held_out_data


def test_every_variant_is_shipped_with_its_recipe():
    from safetensors.numpy import load_file

    for name in VARIANTS:
        meta = json.loads((ASSETS / name / "config.json").read_text())["metadata"]
        assert meta["variant"] == name and meta["seed"] == 0
        objectives = [s["objective"] for s in meta["stages"]]
        assert objectives == {"df": ["diffusion_forcing"], "tf": ["teacher_forcing"]}.get(
            name.rsplit("_", 1)[1], ["diffusion_forcing", "teacher_forcing"])
        assert all(s["shuffle_actions"] == name.endswith("shuffled") for s in meta["stages"])
        weights = load_file(ASSETS / name / "weights.safetensors")
        assert {w.dtype for w in weights.values()} == {np.dtype(np.float16)}
        assert meta["losses"][-1] < 0.5 * meta["losses"][0]          # it learned


def test_view_probes_and_simulator_fan_recompute_from_the_checkpoints():
    view = shipped_view()
    assert list(view.variants) == list(EVALUATED)
    data = held_out_data(16)
    k = list(EVALUATED).index("flat_df")
    probe = probe_variant(load_named("flat_df"), data, 0)
    np.testing.assert_allclose(probe.r2, view.probe_r2[k], atol=1e-4)   # float32 features on another CPU: 1.5e-5 seen
    truth = counterfactual_truth(SimConfig(), data.seed, range(view.truth_shifts.shape[0]), N_CONTEXT - 1, STEERS,
                                 STEER_HORIZON)
    shifts = lateral_position(truth[:, :, -1]) - lateral_position(truth[:, :, 0])
    np.testing.assert_allclose(shifts, view.truth_shifts, atol=1e-9)
    assert view.truth_spearman == steering_spearman(STEERS, shifts) and view.truth_spearman > 0.9
    np.testing.assert_allclose(lateral_position(truth[0]), view.fan_truth, atol=1e-9)
