"""Claim tests on the shipped full models (3 training seeds), each with the control that must fail it."""

import numpy as np
import pytest

from core.latent_world_action import collapse_stats, compute_latents, load_policy, make_dataset, probe_r2
from core.latent_world_action.evaluate import current_target
from core.latent_world_action.views import ASSETS, SHIPPED_SEEDS


PROBE_SEED = 12345          # a probe dataset none of the models trained on
MIN_STD, MIN_RANK = 0.1, 8.0


@pytest.fixture(scope="module")
def probes():
    out = {}
    for seed in SHIPPED_SEEDS:
        for variant in ("prior", "no_align"):
            t = load_policy(ASSETS / f"{variant}_seed{seed}")
            data = make_dataset(60, t.sim, PROBE_SEED)
            lat = compute_latents(t, data)
            out[variant, seed] = (lat, data)
    return out


@pytest.mark.claim
def test_aligned_prior_latents_predict_the_future_target_better_than_without_alignment(probes):
    """The issue's threshold (mean gap >= 0.1 over 3 seeds) on this probe set (60 held-out episodes, fixed before
    any model was trained): gaps 0.156, 0.145, 0.036. It is close: the bench's larger probe set (100 episodes)
    measures a mean gap of 0.096 and records the claim as "partly"; the ship script's set gives 0.094."""
    gaps = []
    for seed in SHIPPED_SEEDS:
        (lat_a, data), (lat_u, _) = probes["prior", seed], probes["no_align", seed]
        gaps.append(probe_r2(lat_a.prior, data.future_target) - probe_r2(lat_u.prior, data.future_target))
    assert np.mean(gaps) >= 0.1, gaps
    assert min(gaps) > 0, gaps


@pytest.mark.claim
def test_the_probe_finds_nothing_in_shuffled_targets(probes):
    """Control: the same latents against the future positions of other samples."""
    lat, data = probes["prior", 0]
    shuffled = data.future_target[np.random.default_rng(0).permutation(len(data))]
    assert probe_r2(lat.prior, shuffled) < 0.05 < probe_r2(lat.prior, data.future_target)


def test_the_posterior_latents_carry_the_future_they_were_given(probes):
    lat, data = probes["prior", 0]
    assert probe_r2(lat.posterior, data.future_target) > 0.8
    assert probe_r2(lat.prior, current_target(data)) > 0.5


@pytest.mark.claim
def test_alignment_falls_while_training_and_not_without_it():
    for seed in SHIPPED_SEEDS:
        a = load_policy(ASSETS / f"prior_seed{seed}").alignment
        u = load_policy(ASSETS / f"no_align_seed{seed}").alignment
        assert a[-1] < 0.3 * a[0], (seed, a[0], a[-1])
        assert u[-1] > 3 * a[-1], (seed, u[-1], a[-1])      # control: no alignment, no meeting


@pytest.mark.claim
def test_the_aligned_latents_do_not_collapse_and_a_rank_two_projection_does(probes):
    for seed in SHIPPED_SEEDS:
        z = probes["prior", seed][0].prior.reshape(-1, 256)
        stats = collapse_stats(z)
        assert stats.min_std > MIN_STD and stats.effective_rank > MIN_RANK, (seed, stats.min_std, stats.effective_rank)
    c = z - z.mean(0)
    u, s, vt = np.linalg.svd(c, full_matrices=False)
    flat = collapse_stats((u[:, :2] * s[:2]) @ vt[:2])
    assert flat.effective_rank < MIN_RANK
