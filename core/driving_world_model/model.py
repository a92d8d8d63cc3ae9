"""The world model: a causal frame denoiser (conv encoder, GRU over frames, FiLM-conditioned U-Net).

One architecture serves every level (ours; the paper's networks were not available):

- each frame the model *sees as history* (clean, or noised to its own level) is encoded by a small
  strided conv net and fed, with its level's sinusoidal embedding and the action that follows it,
  to a GRU: ``h_t`` summarises frames ``<= t`` and actions ``<= t`` (the probed representation);
- frame ``t + 1`` is denoised by a two-level U-Net that sees the noisy target, the previous frame as
  history (channel-stacked, as DIAMOND conditions on past frames) and, for the hierarchical
  low-level generator, the coarse keyframe it must meet; FiLM from ``[h_t, emb(k_{t+1}), emb(k_t)]``
  modulates every level. It predicts the clean frame (diffusers' ``prediction_type="sample"``).

Diffusion forcing feeds the *same* noisy frames as history and as targets (every frame at its own
level); teacher forcing feeds clean history and noisy targets. Frames are scaled to [-1, 1].
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from core.common.config import Config, choice, param

N_CHANNELS = 2
LEVEL_DIM = 16


@dataclass(frozen=True)
class ModelConfig(Config):
    """The denoiser's shape."""

    resolution: int = choice(32, (8, 32), doc="frame side: 32 (detailed frames) or 8 (coarse keyframes)")
    cond_channels: int = param(0, low=0, high=8, integer=True,
                               doc="extra input channels (3 for the coarse keyframe and its offset; 0 for flat)")
    action_dim: int = param(2, low=1, high=16, integer=True, doc="action size per step (8 = four stacked actions)")
    hidden: int = param(64, low=8, high=256, integer=True, doc="GRU state size (the probed features)")
    width: int = param(16, low=4, high=64, integer=True, doc="U-Net channels at full resolution")


def level_embedding(levels, n_timesteps: int = 100):
    """Sinusoidal features of ``(level + 1) / T`` (level -1 = clean maps to 0): (..., 16) tensor."""
    import torch

    x = (levels.float() + 1.0) / n_timesteps
    freqs = torch.arange(LEVEL_DIM // 2, dtype=torch.float32)
    ang = x[..., None] * (2.0 ** freqs) * math.pi
    return torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1)


@functools.lru_cache(maxsize=1)
def _classes():
    import torch
    from torch import nn
    from torch.nn import functional as F

    class FiLMConv(nn.Module):
        def __init__(self, cin, cout, stride=1):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
            self.norm = nn.GroupNorm(4 if cout % 4 == 0 else 1, cout)
            self.cout = cout

        def forward(self, x, gb):
            g, b = gb[:, :self.cout, None, None], gb[:, self.cout:, None, None]
            return F.silu(self.norm(self.conv(x)) * (1 + g) + b)

    class WorldNet(nn.Module):
        def __init__(self, cfg: ModelConfig):
            super().__init__()
            self.cfg = cfg
            r, w, hd = cfg.resolution, cfg.width, cfg.hidden
            n_down = int(round(math.log2(r // 4)))
            enc, c = [], N_CHANNELS
            for i in range(n_down):
                enc += [nn.Conv2d(c, 16, 3, stride=2, padding=1), nn.SiLU()]
                c = 16
            self.enc = nn.Sequential(*enc)
            self.enc_fc = nn.Linear(c * 16, hd)
            self.gru = nn.GRU(hd + LEVEL_DIM + cfg.action_dim, hd, batch_first=True)
            w0, w1 = w, 2 * w
            self.widths = (w0, w1, w1, w0)
            self.z = nn.Sequential(nn.Linear(hd + 2 * LEVEL_DIM, hd), nn.SiLU())
            self.film = nn.Linear(hd, 2 * sum(self.widths))
            cin = 2 * N_CHANNELS + cfg.cond_channels
            self.patch = nn.Conv2d(cin, w0, 2, stride=2)          # 2x2 patches: the U-Net works at R/2 and R/4
            self.c_in = FiLMConv(w0, w0)
            self.down = FiLMConv(w0, w1, stride=2)
            self.mid = FiLMConv(w1, w1)
            self.up = FiLMConv(w1 + w0, w0)
            self.out = nn.Conv2d(w0, 4 * N_CHANNELS, 3, padding=1)   # pixel shuffle back to R

        def encode(self, frames, levels, actions):
            """GRU states ``h`` (B, L, hidden) over history frames (B, L, C, R, R) at ``levels`` (B, L)."""
            b, n = frames.shape[:2]
            e = self.enc(frames.reshape(b * n, *frames.shape[2:])).reshape(b * n, -1)
            e = self.enc_fc(e).reshape(b, n, -1)
            h, _ = self.gru(torch.cat([e, level_embedding(levels), actions], dim=-1))
            return h

        def denoise(self, h_prev, prev, prev_levels, target, target_levels, cond=None):
            """Clean estimates of ``target`` frames (B, K, C, R, R) given history state and previous frames."""
            b, k = target.shape[:2]
            z = self.z(torch.cat([h_prev, level_embedding(target_levels), level_embedding(prev_levels)], dim=-1))
            gb = self.film(z).reshape(b * k, -1)
            parts = [target, prev] + ([cond] if cond is not None else [])
            x = torch.cat(parts, dim=2).reshape(b * k, -1, *target.shape[3:])
            splits, o = [], 0
            for wd in self.widths:
                splits.append(gb[:, o:o + 2 * wd])
                o += 2 * wd
            a0 = self.c_in(F.silu(self.patch(x)), splits[0])
            a1 = self.down(a0, splits[1])
            m = self.mid(a1, splits[2])
            u = self.up(torch.cat([F.interpolate(m, scale_factor=2.0), a0], dim=1), splits[3])
            return F.pixel_shuffle(self.out(u), 2).reshape(target.shape)

        def forward(self, context, context_levels, target, target_levels, actions, cond=None):
            """x0 estimates of ``target[:, 1:]`` from history ``context[:, :t]``; also every GRU state."""
            h = self.encode(context, context_levels, actions)
            pred = self.denoise(h[:, :-1], context[:, :-1], context_levels[:, :-1], target[:, 1:],
                                target_levels[:, 1:], None if cond is None else cond[:, 1:])
            return pred, h

    return WorldNet


def build_model(config: ModelConfig, seed: int):
    """A freshly initialised :class:`WorldNet` (torch) for ``config``, its weights drawn under ``seed``."""
    from core.common.seeding import torch_seeded

    with torch_seeded(seed):
        return _classes()(config)


def n_parameters(model) -> int:
    """The number of trainable weights."""
    return int(sum(p.numel() for p in model.parameters()))


def state_arrays(model) -> dict:
    """The model's weights as float16 numpy arrays (the shipped precision)."""
    return {k: v.detach().cpu().numpy().astype(np.float16) for k, v in model.state_dict().items()}


def load_state(model, tensors) -> None:
    """Load weights (any float dtype) into ``model`` as float32."""
    import torch

    model.load_state_dict({k: torch.as_tensor(np.asarray(v, dtype=np.float32)) if not hasattr(v, "float")
                           else v.float() for k, v in tensors.items()})
