"""The diffusion pieces, by hand: noise schedule, per-frame noising, DDIM steps, scheduling matrices.

- The schedule is the cosine ("squaredcos_cap_v2") one over ``T = 100`` training timesteps:
  ``alpha_bar(t) = prod_{s<=t} (1 - beta_s)`` with ``beta_s = min(1 - f(s+1)/f(s), 0.999)`` and
  ``f(s) = cos((s/T + 0.008)/1.008 * pi/2)^2`` (diffusers' ``betas_for_alpha_bar``).
- Noise levels are integers in ``[-1, T-1]``; ``-1`` means clean (no noise), ``t >= 0`` means
  ``x_t = sqrt(alpha_bar_t) x_0 + sqrt(1 - alpha_bar_t) eps``, applied frame by frame
  (:func:`add_noise` equals ``DDPMScheduler.add_noise`` on the flattened frames).
- Diffusion forcing draws every frame's level independently and uniformly from ``{-1, ..., T-1}``
  (Chen et al. draw ``randint(0, T)`` per frame; our extra value -1 lets the model see clean context
  too); teacher forcing keeps the context clean and noises only the frame it predicts.
- Sampling uses ``S`` DDIM steps with diffusers' "leading" spacing: sampling level ``m in 0..S`` is
  timestep ``(m - 1) T/S`` (level 0 = clean), and a deterministic step from level ``a`` to ``b < a`` is
  DDIM with eta = 0 (equal to ``DDIMScheduler.step(eta=0)`` for one step).
- A scheduling matrix ``M[m, t]`` gives each frame's sampling level at denoising row ``m``
  (Diffusion Forcing's ``df_base.py``): pyramid ``clip(S + floor(t u) - m, 0, S)``; autoregressive is
  the pyramid with ``u = S`` (one frame is finished before the next starts); full sequence lowers
  every frame together.
"""

from __future__ import annotations

import math

import numpy as np

from core.common.config import check_choice, check_range

T_TRAIN = 100
SCHEDULES = ("autoregressive", "pyramid", "full_sequence")
SCHEDULE_LABELS = {"autoregressive": "autoregressive", "pyramid": "pyramid", "full_sequence": "full sequence"}


def alphas_cumprod(n_timesteps: int = T_TRAIN) -> np.ndarray:
    """The cosine schedule's cumulative products ``alpha_bar_t``, t = 0..T-1 (float64).

    Parameters
    ----------
    n_timesteps : int
        The number of training timesteps T.

    Returns
    -------
    numpy.ndarray
        ``alpha_bar``, decreasing from near 1 to near 0.

    Examples
    --------
    >>> a = alphas_cumprod(100)
    >>> a.shape, bool(np.all(np.diff(a) < 0)), bool(a[0] > 0.99)
    ((100,), True, True)
    """
    n = check_range("n_timesteps", n_timesteps, 2, 10_000, integer=True)

    def f(s):
        return math.cos((s / n + 0.008) / 1.008 * math.pi / 2) ** 2

    betas = np.array([min(1 - f(i + 1) / f(i), 0.999) for i in range(n)], dtype=np.float64)
    # diffusers computes the product in float32; doing the same keeps us within 2e-7 of it.
    return np.cumprod((1.0 - betas.astype(np.float32)).astype(np.float32), dtype=np.float32).astype(np.float64)


def signal_noise(levels, abar: np.ndarray):
    """(sqrt(alpha_bar), sqrt(1 - alpha_bar)) for integer ``levels`` in [-1, T-1] (-1: (1, 0))."""
    levels = np.asarray(levels)
    a = np.where(levels >= 0, abar[np.clip(levels, 0, None)], 1.0)
    return np.sqrt(a), np.sqrt(1.0 - a)


def add_noise(x0, noise, levels, abar) -> np.ndarray:
    """Noise each frame to its own level: ``sqrt(abar_k) x0 + sqrt(1 - abar_k) noise`` (k = -1: x0).

    Works on numpy arrays or torch tensors shaped ``(batch, frames, ...)`` with ``levels`` of
    shape ``(batch, frames)``.

    Parameters
    ----------
    x0 : array or torch.Tensor
        Clean frames.
    noise : array or torch.Tensor
        Standard normal noise of the same shape.
    levels : array or torch.Tensor
        Integer levels in ``[-1, T-1]``, one per frame.
    abar : numpy.ndarray
        :func:`alphas_cumprod`.

    Returns
    -------
    array or torch.Tensor
        The noised frames, same type and shape as ``x0``.

    Examples
    --------
    >>> x = np.ones((1, 2, 3)); eps = np.zeros((1, 2, 3))
    >>> out = add_noise(x, eps, np.array([[-1, 99]]), alphas_cumprod())
    >>> out[0, 0].tolist(), bool(out[0, 1].max() < 0.05)
    ([1.0, 1.0, 1.0], True)
    """
    lv = np.asarray(levels.detach().cpu().numpy() if hasattr(levels, "detach") else levels)
    s, n = signal_noise(lv, abar)
    shape = lv.shape + (1,) * (x0.ndim - lv.ndim)
    if hasattr(x0, "detach"):
        import torch

        s = torch.as_tensor(s.reshape(shape), dtype=x0.dtype)
        n = torch.as_tensor(n.reshape(shape), dtype=x0.dtype)
        return s * x0 + n * noise
    return s.reshape(shape) * x0 + n.reshape(shape) * noise


def level_timestep(level, n_steps: int, n_timesteps: int = T_TRAIN) -> np.ndarray:
    """The training timestep of sampling level ``m`` in 0..S: ``(m - 1) T/S``, and -1 (clean) for m = 0.

    Parameters
    ----------
    level : int or numpy.ndarray
        Sampling levels (rows of a scheduling matrix).
    n_steps : int
        The number of DDIM steps S.
    n_timesteps : int
        The number of training timesteps T (S must divide it).

    Returns
    -------
    int or numpy.ndarray
        Timesteps in ``[-1, T - T/S]``.

    Examples
    --------
    >>> level_timestep(np.array([0, 1, 10]), 10).tolist()
    [-1, 0, 90]
    """
    stride = n_timesteps // n_steps
    level = np.asarray(level)
    out = np.where(level > 0, (level - 1) * stride, -1)
    return int(out) if out.ndim == 0 else out


def ddim_step(x_t, x0_pred, t_from, t_to, abar) -> np.ndarray:
    """A deterministic DDIM step (eta = 0) from timestep ``t_from`` to ``t_to < t_from`` given a clean estimate.

    ``eps = (x_t - sqrt(abar_from) x0) / sqrt(1 - abar_from)``, then
    ``x_to = sqrt(abar_to) x0 + sqrt(1 - abar_to) eps``; ``t_to = -1`` returns ``x0`` itself. Per-frame
    timesteps broadcast like :func:`add_noise`.

    Parameters
    ----------
    x_t : array or torch.Tensor
        Frames at ``t_from``.
    x0_pred : array or torch.Tensor
        The model's clean-frame estimate.
    t_from, t_to : array
        Integer timesteps, one per frame (``-1`` = clean); frames with ``t_to >= t_from`` are returned unchanged.
    abar : numpy.ndarray
        :func:`alphas_cumprod`.

    Returns
    -------
    array or torch.Tensor
        Frames at ``t_to``.

    Examples
    --------
    >>> abar = alphas_cumprod()
    >>> x0 = np.full((1, 1, 2), 0.5); eps = np.ones((1, 1, 2))
    >>> x_t = add_noise(x0, eps, np.array([[50]]), abar)
    >>> back = ddim_step(x_t, x0, np.array([[50]]), np.array([[20]]), abar)
    >>> bool(np.allclose(back, add_noise(x0, eps, np.array([[20]]), abar)))
    True
    """
    t_from, t_to = np.asarray(t_from), np.asarray(t_to)
    s_f, n_f = signal_noise(t_from, abar)
    s_t, n_t = signal_noise(t_to, abar)
    moving = t_to < t_from
    shape = t_from.shape + (1,) * (x_t.ndim - t_from.ndim)
    if hasattr(x_t, "detach"):
        import torch

        def cast(a):
            return torch.as_tensor(np.asarray(a, dtype=np.float64).reshape(shape), dtype=x_t.dtype)

        eps = (x_t - cast(s_f) * x0_pred) / cast(np.maximum(n_f, 1e-12))
        out = cast(s_t) * x0_pred + cast(n_t) * eps
        return torch.where(cast(moving) > 0.5, out, x_t)
    eps = (x_t - s_f.reshape(shape) * x0_pred) / np.maximum(n_f, 1e-12).reshape(shape)
    out = s_t.reshape(shape) * x0_pred + n_t.reshape(shape) * eps
    return np.where(moving.reshape(shape), out, x_t)


def pyramid_matrix(n_frames: int, n_steps: int, uncertainty: float = 1.0) -> np.ndarray:
    """Diffusion Forcing's pyramid scheduling matrix ``M[m, t] = clip(S + floor(t u) - m, 0, S)``.

    Parameters
    ----------
    n_frames : int
        Frames generated together (columns).
    n_steps : int
        DDIM steps S: row 0 holds frame 0 at level S (pure noise), the last row is all zeros.
    uncertainty : float
        ``u``: how many levels each later frame lags the one before; ``u = S`` is autoregressive.

    Returns
    -------
    numpy.ndarray
        Integer matrix of shape ``(S + floor((n_frames - 1) u) + 1, n_frames)``.

    Examples
    --------
    >>> pyramid_matrix(3, 2, 1.0).tolist()
    [[2, 2, 2], [1, 2, 2], [0, 1, 2], [0, 0, 1], [0, 0, 0]]
    """
    n_frames = check_range("n_frames", n_frames, 1, 256, integer=True)
    n_steps = check_range("n_steps", n_steps, 1, 1000, integer=True)
    u = check_range("uncertainty", uncertainty, 0, None)
    height = n_steps + int(math.floor((n_frames - 1) * u)) + 1
    m = np.arange(height)[:, None]
    t = np.arange(n_frames)[None, :]
    return np.clip(n_steps + np.floor(t * u).astype(int) - m, 0, n_steps)


def scheduling_matrix(kind: str, n_frames: int, n_steps: int) -> np.ndarray:
    """The scheduling matrix of ``kind``: ``autoregressive`` (pyramid, u = S), ``pyramid`` (u = 1), ``full_sequence``.

    Parameters
    ----------
    kind : str
        One of :data:`SCHEDULES`.
    n_frames : int
        Frames generated together.
    n_steps : int
        DDIM steps S.

    Returns
    -------
    numpy.ndarray
        Integer levels, rows = denoising iterations, columns = frames, first row all at S for
        ``full_sequence`` and the last row all zeros.

    Examples
    --------
    >>> scheduling_matrix("full_sequence", 2, 3).tolist()
    [[3, 3], [2, 2], [1, 1], [0, 0]]
    >>> scheduling_matrix("autoregressive", 2, 2).tolist()
    [[2, 2], [1, 2], [0, 2], [0, 1], [0, 0]]
    """
    check_choice("schedule", kind, SCHEDULES)
    if kind == "autoregressive":
        return pyramid_matrix(n_frames, n_steps, float(n_steps))
    if kind == "pyramid":
        return pyramid_matrix(n_frames, n_steps, 1.0)
    n_steps = check_range("n_steps", n_steps, 1, 1000, integer=True)
    n_frames = check_range("n_frames", n_frames, 1, 256, integer=True)
    return np.repeat(np.arange(n_steps, -1, -1)[:, None], n_frames, axis=1)


def diffusion_forcing_levels(shape, rng: np.random.Generator, n_timesteps: int = T_TRAIN) -> np.ndarray:
    """Independent per-frame noise levels, uniform on ``{-1, ..., T-1}`` (diffusion forcing's training noise).

    Parameters
    ----------
    shape : tuple of int
        ``(batch, frames)``.
    rng : numpy.random.Generator
        The generator to draw from.
    n_timesteps : int
        T.

    Returns
    -------
    numpy.ndarray
        Integer levels of ``shape``.

    Examples
    --------
    >>> lv = diffusion_forcing_levels((4, 16), np.random.default_rng(0))
    >>> lv.shape, int(lv.min()) >= -1, int(lv.max()) <= 99
    ((4, 16), True, True)
    """
    return rng.integers(-1, n_timesteps, size=shape)


def teacher_forcing_levels(shape, rng: np.random.Generator, n_timesteps: int = T_TRAIN) -> np.ndarray:
    """Teacher forcing's target levels: every predicted frame gets its own ``U{0..T-1}``; context stays clean.

    Parameters
    ----------
    shape : tuple of int
        ``(batch, frames)``: the level each frame has *as a target*; as context every frame is clean (-1).
    rng : numpy.random.Generator
        The generator to draw from.
    n_timesteps : int
        T.

    Returns
    -------
    numpy.ndarray
        Integer levels in ``[0, T-1]``.

    Examples
    --------
    >>> int(teacher_forcing_levels((2, 3), np.random.default_rng(0)).min()) >= 0
    True
    """
    return rng.integers(0, n_timesteps, size=shape)
