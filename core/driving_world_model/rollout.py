"""Sampling: scheduling-matrix denoising of a chunk of frames, sliding-window rollouts, the hierarchy.

A chunk of ``n`` new frames after ``W`` history frames is sampled by walking the rows of a
scheduling matrix: at each row the model sees the history (clean, or noised to the context-noise
level, as Diffusion Forcing's "stabilisation" does) and the chunk at its current levels, and each
chunk frame takes one DDIM (eta = 0) step to its next level. The clean estimate is clipped to
[-1, 1] before each step (as diffusers' ``clip_sample`` does). A rollout repeats this chunk by chunk
with the last ``W`` frames as history. The hierarchical rollout first rolls out the coarse keyframes
with the high level (stride 4, stacked actions), then the frames with the low level conditioned on them.
"""

from __future__ import annotations

import numpy as np

from core.common.config import check_choice, check_range
from core.driving_world_model.diffusion import (SCHEDULES, T_TRAIN, add_noise, alphas_cumprod, ddim_step,
                                                level_timestep, scheduling_matrix)
from core.driving_world_model.training import STRIDE, keyframe_condition, keyframes_of, stack_actions

WINDOW, CHUNK, N_STEPS = 8, 4, 10


def context_timestep(context_noise: float) -> int:
    """The timestep history frames are noised to: ``round(context_noise * T) - 1`` (0 = clean history)."""
    check_range("context_noise", context_noise, 0.0, 0.5)
    return int(round(context_noise * T_TRAIN)) - 1


def sample_chunk(model, history, actions, n_new: int, schedule: str = "autoregressive", n_steps: int = N_STEPS,
                 context_noise: float = 0.0, cond=None, seed: int = 0, noise=None):
    """Denoise ``n_new`` frames after ``history`` (B, W, C, R, R) along a scheduling matrix; returns (B, n_new, C, R, R).

    ``actions`` is (B, W + n_new, A) (the action after each frame), ``cond`` (B, W + n_new, ...) or None;
    ``noise`` (B, n_new, C, R, R) replaces the seeded initial noise of the new frames.
    """
    import torch

    from core.common.seeding import make_torch_generator

    check_choice("schedule", schedule, SCHEDULES)
    gen = make_torch_generator(seed)
    abar = alphas_cumprod()
    b, w = history.shape[:2]
    M = scheduling_matrix(schedule, n_new, n_steps)
    x = torch.randn((b, n_new) + tuple(history.shape[2:]), generator=gen) if noise is None else noise
    k_ctx = context_timestep(context_noise)
    hist = history
    if k_ctx >= 0:
        hist = add_noise(history, torch.randn(history.shape, generator=gen), np.full((b, w), k_ctx), alphas_cumprod())
    ctx_lv = np.full((b, w), k_ctx)
    with torch.no_grad():
        for r in range(len(M) - 1):
            now, nxt = level_timestep(M[r], n_steps), level_timestep(M[r + 1], n_steps)
            now_b, nxt_b = np.broadcast_to(now, (b, n_new)), np.broadcast_to(nxt, (b, n_new))
            if np.all(now_b == nxt_b):
                continue
            seq = torch.cat([hist, x], dim=1)
            lv = torch.as_tensor(np.concatenate([ctx_lv, now_b], axis=1))
            h = model.encode(seq, lv, actions)
            x0 = model.denoise(h[:, w - 1:-1], seq[:, w - 1:-1], lv[:, w - 1:-1], x, lv[:, w:],
                               None if cond is None else cond[:, w:])
            x = ddim_step(x, x0.clamp(-1.0, 1.0), now_b, nxt_b, abar)
    return x


def rollout(model, frames, actions, horizon: int, schedule: str = "autoregressive", n_steps: int = N_STEPS,
            context_noise: float = 0.0, keyframes=None, chunk: int = CHUNK, window: int = WINDOW, seed: int = 0):
    """Generate ``horizon`` frames after the context ``frames`` (B, n_ctx, C, R, R) in [-1, 1], chunk by chunk.

    ``actions`` (B, n_ctx + horizon, A) are the actions after every frame; ``keyframes`` (B, n_keys, 2, 8, 8)
    conditions a low-level model (None for flat and high). Returns a float32 numpy array (B, horizon, C, R, R).
    """
    import torch

    from core.common.seeding import derive_seed

    check_range("horizon", horizon, 1, 256, integer=True)
    allf = torch.as_tensor(np.asarray(frames, dtype=np.float32))
    acts = torch.as_tensor(np.asarray(actions, dtype=np.float32))
    n_ctx, b = allf.shape[1], allf.shape[0]
    done = 0
    while done < horizon:
        n_new = min(chunk, horizon - done)
        cur = n_ctx + done
        lo = max(0, cur - window)
        cond = None
        if keyframes is not None:
            idx = np.broadcast_to(np.arange(lo, cur + n_new), (b, cur + n_new - lo))
            cond = torch.as_tensor(keyframe_condition(np.asarray(keyframes, dtype=np.float32), idx))
        new = sample_chunk(model, allf[:, lo:cur], acts[:, lo:cur + n_new], n_new, schedule, n_steps, context_noise,
                           cond, seed=derive_seed(seed, "chunk", done))
        allf = torch.cat([allf, new], dim=1)
        done += n_new
    return allf[:, n_ctx:].numpy().astype(np.float32)


def hierarchical_rollout(high, low, frames01, actions, horizon: int, schedule: str = "autoregressive",
                         n_steps: int = N_STEPS, context_noise: float = 0.0, seed: int = 0):
    """Coarse keyframes first (high level), then frames conditioned on them (low level).

    ``frames01`` (B, n_ctx, 2, 32, 32) in [0, 1] with ``n_ctx - 1`` a multiple of the stride. Returns
    (frames (B, horizon, 2, 32, 32) in [-1, 1], keyframes (B, n_keys, 2, 8, 8) in [-1, 1], context ones included).
    """
    from core.common.seeding import derive_seed

    frames01 = np.asarray(frames01, dtype=np.float32)
    n_ctx = frames01.shape[1]
    if (n_ctx - 1) % STRIDE:
        raise ValueError(f"frames: {n_ctx} context frames; allowed 1 + a multiple of {STRIDE}")
    keys_ctx = keyframes_of(frames01)
    n_keys_new = -(-(n_ctx - 1 + horizon) // STRIDE) + 1 - keys_ctx.shape[1]
    key_actions = stack_actions(np.asarray(actions, dtype=np.float32), keys_ctx.shape[1] + n_keys_new)
    new_keys = rollout(high, keys_ctx, key_actions, n_keys_new, schedule, n_steps, context_noise,
                       seed=derive_seed(seed, "high"))
    keys = np.concatenate([keys_ctx, new_keys], axis=1)
    frames = rollout(low, 2 * frames01 - 1, actions, horizon, schedule, n_steps, context_noise, keyframes=keys,
                     seed=derive_seed(seed, "low"))
    return frames, keys
