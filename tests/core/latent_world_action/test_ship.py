"""The shipped first view is what the shipped checkpoints give: recomputed here and compared."""

import numpy as np
import pytest

from core.latent_world_action import evaluate_policy, latent_picture, load_policy, shipped_view
from core.latent_world_action.ship import EVAL_SEEDS
from core.latent_world_action.views import ASSETS, VIEW_EPISODES, episodes_view



def test_the_shipped_episodes_and_latents_are_recomputed_from_the_checkpoints():
    view = shipped_view()
    prior, direct = load_policy(ASSETS / "prior_seed0"), load_policy(ASSETS / "direct_seed0")
    a, b = episodes_view(prior, direct, VIEW_EPISODES, view.seed)
    # float32 policies on another CPU (AVX2 against AVX-512) differ in the last bits, and a rollout carries the
    # difference on: 2e-8 seen on one machine, 2e-5 by step 17 of an episode on an AMD EPYC without AVX-512; a
    # different checkpoint or policy code moves the agent by tenths
    np.testing.assert_allclose(a.agent, view.prior_agent, atol=1e-4)
    np.testing.assert_allclose(b.agent, view.direct_agent, atol=1e-4)
    assert np.abs(b.agent - view.prior_agent).max() > 100 * 1e-4    # the control: the other checkpoint (0.17 seen)
    assert np.array_equal(a.success, view.prior_success)
    pic = latent_picture(prior, seed=view.seed)
    np.testing.assert_allclose(pic.prior_xy, view.aligned.prior_xy, atol=1e-3)


def test_the_shipped_table_is_the_checkpoints_evaluation():
    view = shipped_view()
    e = evaluate_policy(load_policy(ASSETS / "direct_seed0"), EVAL_SEEDS, 100, 60, seed=0)
    row = view.table["direct"]
    assert row["success"][row["seeds"].index(0)] == pytest.approx(e.success.tolist())
    assert row["probe_prior"][row["seeds"].index(0)] == pytest.approx(e.probe_prior, abs=1e-6)


def test_the_shipped_models_fit_the_asset_budget():
    total = sum(p.stat().st_size for p in ASSETS.rglob("*") if p.is_file())
    assert total < 2.5e6
