"""Diffusion forcing's pieces against diffusers (dev-only oracle) and against their formulas."""

import numpy as np
import torch

from core.driving_world_model.diffusion import (T_TRAIN, add_noise, alphas_cumprod, ddim_step,
                                                diffusion_forcing_levels, level_timestep, pyramid_matrix,
                                                scheduling_matrix)
from core.driving_world_model.model import build_model
from core.driving_world_model.rollout import sample_chunk
from core.driving_world_model.sim import SimConfig, make_dataset
from core.driving_world_model.training import TrainConfig, level_data, model_config_for, training_batch

import diffusers  # noqa: E402  (dev-only oracle, requirements-dev: diffusers==0.42.1)


def schedulers():
    kw = dict(num_train_timesteps=T_TRAIN, beta_schedule="squaredcos_cap_v2", prediction_type="sample",
              clip_sample=False)
    return diffusers.DDPMScheduler(**kw), diffusers.DDIMScheduler(set_alpha_to_one=True, **kw)


def test_diffusion_forcing_levels_are_independent_per_frame_and_uniform():
    from scipy.stats import chisquare

    lv = diffusion_forcing_levels((4000, 12), np.random.default_rng(0))
    counts = np.bincount(lv.ravel() + 1, minlength=T_TRAIN + 1)
    assert chisquare(counts).pvalue > 1e-3                          # uniform on {-1, ..., T-1}
    corr = np.corrcoef(lv.T)[np.triu_indices(12, 1)]
    assert np.abs(corr).max() < 0.06                                # frames independent
    assert (lv.min(1) != lv.max(1)).mean() > 0.99                   # levels differ within a window
    shared = np.repeat(lv[:, :1], 12, axis=1)                       # control: a full-sequence (shared) level
    assert np.corrcoef(shared.T)[0, 1] > 0.99


def test_training_batches_diffusion_forcing_noise_frames_independently_teacher_forcing_keeps_context_clean():
    ld = level_data(make_dataset(SimConfig(length=16), 3, seed=0), "flat")
    abar = alphas_cumprod()
    df = training_batch(ld, TrainConfig(objective="diffusion_forcing", batch=64, window=12), np.random.default_rng(1),
                        abar)
    assert (df.context_levels.min(1) != df.context_levels.max(1)).all()
    assert df.context is df.target and np.array_equal(df.context_levels, df.target_levels)
    tf = training_batch(ld, TrainConfig(objective="teacher_forcing", batch=64, window=12), np.random.default_rng(1),
                        abar)
    assert np.array_equal(tf.context, tf.clean) and (tf.context_levels == -1).all()
    assert (tf.target_levels >= 0).all() and np.abs(tf.target - tf.clean).mean() > 0.1
    assert not np.array_equal(df.context, df.clean)                 # the control: DF history is noisy


def test_alphas_and_per_frame_noising_equal_ddpm_scheduler_add_noise():
    ddpm, _ = schedulers()
    abar = alphas_cumprod()
    np.testing.assert_allclose(abar, ddpm.alphas_cumprod.double().numpy(), rtol=0, atol=1e-6)
    rng = np.random.default_rng(0)
    x0 = torch.as_tensor(rng.uniform(-1, 1, (5, 7, 2, 8, 8)), dtype=torch.float32)
    eps = torch.randn(x0.shape, generator=torch.Generator().manual_seed(0))
    levels = torch.as_tensor(rng.integers(0, T_TRAIN, (5, 7)))
    ours = add_noise(x0, eps, levels, abar)
    ref = ddpm.add_noise(x0.reshape(35, 2, 8, 8), eps.reshape(35, 2, 8, 8), levels.reshape(35)).reshape(x0.shape)
    torch.testing.assert_close(ours, ref, rtol=0, atol=2e-6)
    shuffled = ddpm.add_noise(x0.reshape(35, 2, 8, 8), eps.reshape(35, 2, 8, 8), levels.reshape(35).flip(0))
    assert (ours - shuffled.reshape(x0.shape)).abs().max() > 0.1     # control: levels matched to the wrong frames


def test_deterministic_step_equals_ddim_scheduler_step_with_eta_zero():
    _, ddim = schedulers()
    ddim.set_timesteps(10)
    abar = alphas_cumprod()
    assert ddim.timesteps.tolist() == level_timestep(np.arange(10, 0, -1), 10).tolist()
    gen = torch.Generator().manual_seed(1)
    sample = torch.randn((3, 2, 8, 8), generator=gen)
    for t in ddim.timesteps.tolist():
        x0 = torch.tanh(torch.randn(sample.shape, generator=gen))
        ref = ddim.step(x0, t, sample, eta=0.0).prev_sample
        ours = ddim_step(sample[None], x0[None], np.full((1, 3), t), np.full((1, 3), t - 10), abar)[0]
        torch.testing.assert_close(ours, ref, rtol=0, atol=2e-5)
        sample = ref
    stochastic = ddim.step(x0, ddim.timesteps[0].item(), sample, eta=1.0, generator=gen).prev_sample
    assert (stochastic - ddim.step(x0, ddim.timesteps[0].item(), sample, eta=0.0).prev_sample).abs().max() > 1e-3


def test_pyramid_matrix_matches_its_formula_and_autoregressive_is_u_equal_s():
    for n, s, u in ((5, 4, 1.0), (3, 10, 0.5), (4, 6, 2.5)):
        m = pyramid_matrix(n, s, u)
        assert m.shape == (s + int(np.floor((n - 1) * u)) + 1, n)
        want = np.array([[min(max(s + int(np.floor(t * u)) - r, 0), s) for t in range(n)] for r in range(m.shape[0])])
        np.testing.assert_array_equal(m, want)
        assert (np.diff(m, axis=0) <= 0).all() and (np.diff(m, axis=1) >= 0).all()
        assert (m[0] == np.clip(s + np.floor(np.arange(n) * u), 0, s)).all() and (m[-1] == 0).all()
    ar = scheduling_matrix("autoregressive", 4, 5)
    np.testing.assert_array_equal(ar, pyramid_matrix(4, 5, 5.0))
    in_progress = ((ar > 0) & (ar < 5)).sum(axis=1)
    assert in_progress.max() == 1                                    # one frame at a time
    assert ((scheduling_matrix("pyramid", 4, 5) > 0) & (scheduling_matrix("pyramid", 4, 5) < 5)).sum(1).max() > 1


def test_autoregressive_schedule_equals_frame_by_frame_sampling_with_an_all_equal_schedule():
    """A causal model: the AR matrix over a chunk gives the frames a loop of one-frame chunks gives."""
    model = build_model(model_config_for("flat"), 3).eval()
    gen = torch.Generator().manual_seed(0)
    hist = torch.rand((2, 4, 2, 32, 32), generator=gen) * 2 - 1
    acts = torch.randn((2, 7, 2), generator=gen)
    noise = torch.randn((2, 3, 2, 32, 32), generator=gen)
    chunk = sample_chunk(model, hist, acts, 3, "autoregressive", 5, noise=noise)
    h = hist
    for j in range(3):   # a one-frame chunk: every schedule is the all-equal one
        f = sample_chunk(model, h, acts[:, :h.shape[1] + 1], 1, "full_sequence", 5, noise=noise[:, j:j + 1])
        h = torch.cat([h, f], dim=1)
    torch.testing.assert_close(chunk, h[:, 4:], rtol=0, atol=1e-5)
    joint = sample_chunk(model, hist, acts, 3, "full_sequence", 5, noise=noise)
    assert (joint - chunk).abs().max() > 1e-3                        # control: joint denoising is not AR


def test_the_model_is_causal_in_time():
    model = build_model(model_config_for("flat"), 0).eval()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn((1, 6, 2, 32, 32), generator=gen)
    lv = torch.randint(-1, T_TRAIN, (1, 6), generator=gen)
    a = torch.randn((1, 6, 2), generator=gen)
    with torch.no_grad():
        p1, _ = model(x, lv, x, lv, a)
        x2 = x.clone()
        x2[:, 4:] += 1.0
        p2, _ = model(x2, lv, x2, lv, a)
    torch.testing.assert_close(p1[:, :3], p2[:, :3])                 # targets 1..3 never see frames 4, 5
    assert (p1[:, 3] - p2[:, 3]).abs().max() > 1e-4                 # target 4 sees itself
