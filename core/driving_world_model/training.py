"""Training: diffusion forcing, teacher forcing, and the data each level of the hierarchy sees.

- ``flat``: 32x32 frames, the action after each frame; no coarse conditioning (the baseline).
- ``high``: the coarse structure (4x4 average-pooled frames, 8x8) of every ``stride``-th frame, with
  the ``stride`` actions between two keyframes stacked (2 x stride numbers).
- ``low``: 32x32 frames conditioned on the coarse keyframe at or after each target frame,
  ``ceil(t / stride) * stride`` (upsampled by repetition), plus a plane holding its distance in frames
  / stride. Trained on ground-truth keyframes; at rollout it meets the high level's generated ones.

A training window of ``window`` consecutive frames starts anywhere in an episode. The loss is the
mean squared error of the clean-frame estimate of frames 1..window-1 of the window.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from core.common.config import Config, check_choice, choice, param
from core.common.progress import report
from core.common.seeding import derive_rng, derive_seed, torch_seeded
from core.driving_world_model.diffusion import (T_TRAIN, add_noise, alphas_cumprod, diffusion_forcing_levels,
                                                teacher_forcing_levels)
from core.driving_world_model.sim import DrivingData, coarse_frames

LEVELS = ("flat", "low", "high")
OBJECTIVES = ("diffusion_forcing", "teacher_forcing")
STRIDE = 4


@dataclass
class LevelData:
    """The sequences one level of the model trains and rolls out on.

    Attributes
    ----------
    frames : numpy.ndarray
        (episodes, length, 2, R, R) in [-1, 1].
    actions : numpy.ndarray
        (episodes, length, A): the action(s) after each frame.
    keyframes : numpy.ndarray or None
        (episodes, n_keys, 2, 8, 8) in [-1, 1]: the coarse keyframes the low level is conditioned on.
    level : str
        ``flat``, ``low`` or ``high``.
    """

    frames: np.ndarray
    actions: np.ndarray
    keyframes: np.ndarray | None
    level: str


def keyframes_of(frames01: np.ndarray, stride: int = STRIDE) -> np.ndarray:
    """Coarse keyframes in [-1, 1] of frames in [0, 1]: every ``stride``-th frame, 4x4 average-pooled."""
    return 2.0 * coarse_frames(frames01[:, ::stride]) - 1.0


def stack_actions(actions: np.ndarray, n_keys: int, stride: int = STRIDE) -> np.ndarray:
    """The ``stride`` actions after each keyframe, stacked: (episodes, n_keys, 2 * stride), zero-padded."""
    n, length, a = actions.shape
    out = np.zeros((n, n_keys, stride * a), dtype=np.float32)
    for k in range(n_keys):
        chunk = actions[:, k * stride:(k + 1) * stride].reshape(n, -1)
        out[:, k, :chunk.shape[1]] = chunk
    return out


def level_data(data: DrivingData, level: str) -> LevelData:
    """What ``level`` (``flat``, ``low`` or ``high``) sees of a dataset.

    Parameters
    ----------
    data : DrivingData
        Episodes from :func:`~core.driving_world_model.sim.make_dataset`.
    level : str
        One of :data:`LEVELS`.

    Returns
    -------
    LevelData
        Frames scaled to [-1, 1] (coarse keyframes for ``high``), actions, keyframes for ``low``.

    Examples
    --------
    >>> from core.driving_world_model.sim import SimConfig, make_dataset
    >>> d = make_dataset(SimConfig(length=9), 1, seed=0)
    >>> high = level_data(d, "high")
    >>> high.frames.shape, high.actions.shape
    ((1, 3, 2, 8, 8), (1, 3, 8))
    """
    check_choice("level", level, LEVELS)
    keys = keyframes_of(data.frames)
    if level == "high":
        return LevelData(keys.astype(np.float32), stack_actions(data.actions, keys.shape[1]), None, level)
    frames = (2.0 * data.frames - 1.0).astype(np.float32)
    return LevelData(frames, data.actions.astype(np.float32), keys.astype(np.float32) if level == "low" else None,
                     level)


def keyframe_condition(keyframes: np.ndarray, indices: np.ndarray, stride: int = STRIDE) -> np.ndarray:
    """The low level's conditioning for absolute frame ``indices``: the upsampled keyframe ceil(t/stride) and its offset.

    ``keyframes`` is (B, n_keys, 2, 8, 8); ``indices`` is (B, L). Returns (B, L, 3, 32, 32).
    """
    b, n = indices.shape
    j = np.minimum(-(-indices // stride), keyframes.shape[1] - 1)
    key = keyframes[np.arange(b)[:, None], j]                              # (B, L, 2, 8, 8)
    up = np.repeat(np.repeat(key, 4, axis=-2), 4, axis=-1)
    offset = ((j * stride - indices) / stride).astype(np.float32)
    plane = np.broadcast_to(offset[:, :, None, None, None], (b, n, 1, 32, 32))
    return np.concatenate([up, plane], axis=2).astype(np.float32)


@dataclass(frozen=True)
class TrainConfig(Config):
    """One training run of one level."""

    level: str = choice("flat", LEVELS, doc="which model: flat baseline, hierarchical low level, or high level")
    objective: str = choice("diffusion_forcing", OBJECTIVES, doc="diffusion forcing or teacher forcing")
    steps: int = param(500, low=1, high=20_000, integer=True, doc="optimiser steps")
    batch: int = param(8, low=1, high=256, integer=True, doc="windows per step")
    window: int = param(12, low=2, high=64, integer=True, doc="frames per training window")
    lr: float = param(2e-3, low=0.0, high=0.1, low_open=True, doc="Adam learning rate (cosine-decayed to 10%)")
    shuffle_actions: bool = choice(False, (False, True), doc="permute actions across windows (the control)")


@dataclass
class TrainingBatch:
    """The tensors of one training step, as numpy arrays (the test inspects them).

    Attributes
    ----------
    clean : numpy.ndarray
        (B, L, 2, R, R) clean frames.
    context : numpy.ndarray
        What the model sees as history: the noisy frames under diffusion forcing, the clean ones under teacher forcing.
    context_levels : numpy.ndarray
        (B, L) levels of ``context`` (-1 = clean).
    target : numpy.ndarray
        The noisy frames the model denoises.
    target_levels : numpy.ndarray
        (B, L) levels of ``target``.
    actions : numpy.ndarray
        (B, L, A).
    cond : numpy.ndarray or None
        (B, L, 3, 32, 32) for the low level, else None.
    """

    clean: np.ndarray
    context: np.ndarray
    context_levels: np.ndarray
    target: np.ndarray
    target_levels: np.ndarray
    actions: np.ndarray
    cond: np.ndarray | None


def training_batch(ld: LevelData, config: TrainConfig, rng: np.random.Generator, abar: np.ndarray) -> TrainingBatch:
    """Draw windows and noise them as the objective says (diffusion forcing: per-frame independent levels).

    Parameters
    ----------
    ld : LevelData
        The level's sequences.
    config : TrainConfig
        Objective, batch and window.
    rng : numpy.random.Generator
        Draws episodes, starts, levels and noise.
    abar : numpy.ndarray
        :func:`~core.driving_world_model.diffusion.alphas_cumprod`.

    Returns
    -------
    TrainingBatch
        The step's tensors.

    Examples
    --------
    >>> from core.driving_world_model.sim import SimConfig, make_dataset
    >>> ld = level_data(make_dataset(SimConfig(length=9), 2, seed=0), "flat")
    >>> b = training_batch(ld, TrainConfig(objective="teacher_forcing", batch=3, window=4), np.random.default_rng(0),
    ...                    alphas_cumprod())
    >>> b.target.shape, bool((b.context_levels == -1).all()), bool(np.array_equal(b.context, b.clean))
    ((3, 4, 2, 32, 32), True, True)
    """
    n, length = ld.frames.shape[:2]
    win = min(config.window, length)
    ep = rng.integers(0, n, config.batch)
    start = rng.integers(0, length - win + 1, config.batch)
    idx = start[:, None] + np.arange(win)[None, :]
    clean = ld.frames[ep[:, None], idx]
    actions = ld.actions[ep[:, None], idx]
    if config.shuffle_actions:
        actions = actions[rng.permutation(config.batch)][:, rng.permutation(win)]
    cond = keyframe_condition(ld.keyframes[ep], idx) if ld.keyframes is not None else None
    noise = rng.standard_normal(clean.shape).astype(np.float32)
    if config.objective == "diffusion_forcing":
        levels = diffusion_forcing_levels((config.batch, win), rng, T_TRAIN)
        noisy = add_noise(clean, noise, levels, abar).astype(np.float32)
        return TrainingBatch(clean, noisy, levels, noisy, levels, actions, cond)
    levels = teacher_forcing_levels((config.batch, win), rng, T_TRAIN)
    noisy = add_noise(clean, noise, levels, abar).astype(np.float32)
    return TrainingBatch(clean, clean, np.full_like(levels, -1), noisy, levels, actions, cond)


@dataclass
class TrainResult:
    """A trained model and its history.

    Attributes
    ----------
    model : torch.nn.Module
        The trained :class:`WorldNet`.
    train : TrainConfig
        How it was trained (the last stage).
    losses : numpy.ndarray
        Loss at every step run.
    steps_done : int
        Steps run (fewer than asked if stopped).
    seconds : float
        Wall time.
    """

    model: object
    train: TrainConfig
    losses: np.ndarray
    steps_done: int
    seconds: float


def model_config_for(level: str):
    """The :class:`ModelConfig` of a level."""
    from core.driving_world_model.model import ModelConfig

    if level == "high":
        return ModelConfig(resolution=8, cond_channels=0, action_dim=2 * STRIDE)
    return ModelConfig(resolution=32, cond_channels=3 if level == "low" else 0, action_dim=2)


def train(ld: LevelData, config: TrainConfig, seed: int, model=None, progress=None) -> TrainResult:
    """Train (or fine-tune ``model``) on ``ld`` with diffusion forcing or teacher forcing.

    Parameters
    ----------
    ld : LevelData
        The level's sequences (:func:`level_data`).
    config : TrainConfig
        Objective, steps, batch, window, learning rate, the shuffled-action control.
    seed : int
        Seeds the initial weights (when ``model`` is None) and every batch.
    model : torch.nn.Module or None
        A model to fine-tune (changed in place); None starts from scratch.
    progress : callable or None
        ``progress(step, total, {"loss": ...})`` every 10 steps; returning False stops.

    Returns
    -------
    TrainResult
        The model and its loss history.

    Examples
    --------
    >>> from core.driving_world_model.sim import SimConfig, make_dataset
    >>> ld = level_data(make_dataset(SimConfig(length=9), 2, seed=0), "high")
    >>> r = train(ld, TrainConfig(level="high", steps=2, batch=2, window=3), seed=0)
    >>> r.steps_done, r.losses.shape
    (2, (2,))
    """
    import torch

    from core.driving_world_model.model import build_model

    if ld.level != config.level:
        raise ValueError(f"level: the data is for {ld.level!r} but the config trains {config.level!r}; "
                         f"allowed the same level")
    torch.set_num_threads(max(1, torch.get_num_threads()))
    if model is None:
        model = build_model(model_config_for(config.level), derive_seed(seed, "init"))
    rng = derive_rng(seed, "batches", config.objective)
    abar = alphas_cumprod()
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * min(s, config.steps) / config.steps)))
    losses, t0 = [], time.perf_counter()
    model.train()
    with torch_seeded(derive_seed(seed, "torch")):
        for step in range(1, config.steps + 1):
            b = training_batch(ld, config, rng, abar)
            t = torch.from_numpy
            pred, _ = model(t(b.context), t(b.context_levels), t(b.target), t(b.target_levels), t(b.actions),
                            None if b.cond is None else t(b.cond))
            loss = torch.mean((pred - t(b.clean)[:, 1:]) ** 2)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
            if (step % 10 == 0 or step == config.steps) and not report(
                    progress, step, config.steps, {"loss": float(np.mean(losses[-10:]))}):
                break
    model.eval()
    return TrainResult(model, config, np.asarray(losses), len(losses), time.perf_counter() - t0)
