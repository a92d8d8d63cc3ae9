"""The torch network: a shared transformer over [context | K latent slots | action], a flow-matching head.

Imported only to train or act (it imports torch at the top); the page's first view never loads it.

- Context tokens: the two frames (t - 1, t) cut into 16 patches of 8 x 8 x 4 values, a linear
  embedding plus a learned position; one keypoint token, a linear embedding of the spatial
  soft-argmax (x, y) of each of the 4 channels (a standard robot-perception layer, Levine et al.
  2016; ours: without it the tiny transformer needed far more CPU steps than we have to localise
  the blobs); the instruction's tokens, embedded. 20 tokens.
- Slots: the prior branch fills the K slots with learnable queries; the posterior branch (training
  only) with embeddings of the K future frames (each frame's patches embedded, tanh, mean-pooled
  and projected, plus its two keypoints embedded, plus a slot position). Same transformer, same weights.
- One action token reads everything. The mask is block-causal: context sees context, slots see
  context and slots, the action token sees all, so the context's states do not depend on the
  branch.
- The latent z is the residual stream at the slots after the last layer (before the final norm);
  alignment compares parameter-free layer-normed z, so the shared norm's gain cannot shrink it away.
- The flow-matching head is an MLP v(a_τ, τ, h_act) on the flattened chunk (2H numbers).
- The pixel-rollout baseline (``variant="pixel"``, no slots): a first pass predicts the frame at
  t + H patch by patch from the context's states; a second pass reads the context and the predicted
  frame's tokens in place of the slots.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from core.latent_world_action.flow import euler_sample, interpolate
from core.latent_world_action.sim import SIZE, VOCAB

PATCH = 8
N_PATCH = (SIZE // PATCH) ** 2
SLOT_VARIANTS = ("prior", "no_align")


def patchify(frames: torch.Tensor) -> torch.Tensor:
    """(B, C, 32, 32) → (B, 16, C · 64), row-major patches."""
    B, C = frames.shape[:2]
    g = SIZE // PATCH
    x = frames.reshape(B, C, g, PATCH, g, PATCH).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(B, g * g, C * PATCH * PATCH)


def unpatchify(patches: torch.Tensor, channels: int) -> torch.Tensor:
    B = patches.shape[0]
    g = SIZE // PATCH
    x = patches.reshape(B, g, g, channels, PATCH, PATCH).permute(0, 3, 1, 4, 2, 5)
    return x.reshape(B, channels, SIZE, SIZE)


def spatial_soft_argmax(frames: torch.Tensor, sharpness: float = 20.0) -> torch.Tensor:
    """(B, C, 32, 32) in [0, 1] → (B, 2C): each channel's softmax-weighted (x, y), centred on 0."""
    B, C = frames.shape[:2]
    weights = torch.softmax(frames.reshape(B, C, -1) * sharpness, dim=-1).reshape(B, C, SIZE, SIZE)
    grid = (torch.arange(SIZE, dtype=frames.dtype) + 0.5) / SIZE - 0.5
    x = (weights.sum(2) * grid).sum(-1)
    y = (weights.sum(3) * grid).sum(-1)
    return torch.stack([x, y], dim=-1).reshape(B, 2 * C) * 4.0


def time_features(tau: torch.Tensor, n: int = 16) -> torch.Tensor:
    freqs = torch.exp(torch.linspace(0.0, math.log(100.0), n // 2, dtype=tau.dtype))
    angles = tau[:, None] * freqs[None] * math.pi
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)


class LatentWorldActionNet(nn.Module):
    """See the module docstring; ``config`` is a :class:`~core.latent_world_action.train.TrainConfig`."""

    def __init__(self, config, horizon: int):
        super().__init__()
        d, self.variant, self.horizon = config.width, config.variant, horizon
        self.n_slots = config.slots if config.variant in SLOT_VARIANTS else 0
        self.ctx_embed = nn.Linear(4 * PATCH * PATCH, d)
        self.ctx_pos = nn.Parameter(torch.randn(N_PATCH, d) * 0.02)
        self.keypoint_embed = nn.Linear(8, d)
        self.instr = nn.Embedding(len(VOCAB), d)
        self.instr_pos = nn.Parameter(torch.randn(len(VOCAB), d) * 0.02)
        self.queries = nn.Parameter(torch.randn(self.n_slots, d) * 0.02)
        self.future_patch = nn.Linear(2 * PATCH * PATCH, d)
        self.future_pos = nn.Parameter(torch.randn(N_PATCH, d) * 0.02)
        self.future_out = nn.Linear(d, d)
        self.future_keypoints = nn.Linear(4, d)
        self.slot_pos = nn.Parameter(torch.randn(self.n_slots, d) * 0.02)
        self.act_token = nn.Parameter(torch.randn(1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, config.heads, 2 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.backbone = nn.TransformerEncoder(layer, config.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        a = 2 * horizon
        self.head = nn.Sequential(nn.Linear(a + 16 + d, config.head_width), nn.SiLU(),
                                  nn.Linear(config.head_width, config.head_width), nn.SiLU(),
                                  nn.Linear(config.head_width, a))
        if self.variant == "pixel":
            self.frame_out = nn.Linear(d, 2 * PATCH * PATCH)
            self.pred_embed = nn.Linear(2 * PATCH * PATCH, d)
            self.pred_pos = nn.Parameter(torch.randn(N_PATCH, d) * 0.02)

    # --- tokens -------------------------------------------------------------------------------------
    def context_tokens(self, context: torch.Tensor, instruction: torch.Tensor) -> torch.Tensor:
        frames = context.float() / 255.0
        patches = self.ctx_embed(patchify(frames)) + self.ctx_pos
        keypoints = self.keypoint_embed(spatial_soft_argmax(frames))[:, None]
        words = self.instr(instruction) + self.instr_pos
        return torch.cat([patches, keypoints, words], dim=1)

    def future_slots(self, future: torch.Tensor) -> torch.Tensor:
        """Posterior slot inputs: one embedding per future frame, (B, K, d)."""
        B, K = future.shape[:2]
        frames = future.float().reshape(B * K, 2, SIZE, SIZE) / 255.0
        h = torch.tanh(self.future_patch(patchify(frames)) + self.future_pos).mean(1)
        h = self.future_out(h) + self.future_keypoints(spatial_soft_argmax(frames))
        return h.reshape(B, K, -1) + self.slot_pos

    def prior_slots(self, batch_size: int) -> torch.Tensor:
        return (self.queries + self.slot_pos).expand(batch_size, -1, -1)

    def _mask(self, n_ctx: int, n_mid: int, device) -> torch.Tensor:
        n = n_ctx + n_mid + 1
        blocked = torch.zeros(n, n, dtype=torch.bool, device=device)
        blocked[:n_ctx, n_ctx:] = True           # context sees only context
        blocked[n_ctx:n_ctx + n_mid, -1] = True  # slots do not see the action token
        return blocked

    def run(self, ctx: torch.Tensor, mid: torch.Tensor):
        """The shared transformer: (residual states of the middle block, normed action state, all states)."""
        B = ctx.shape[0]
        tokens = torch.cat([ctx, mid, self.act_token.expand(B, -1, -1)], dim=1)
        out = self.backbone(tokens, mask=self._mask(ctx.shape[1], mid.shape[1], ctx.device))
        n_ctx = ctx.shape[1]
        return out[:, n_ctx:n_ctx + mid.shape[1]], self.norm(out[:, -1]), out

    # --- branches ------------------------------------------------------------------------------------
    def prior(self, batch: dict):
        """Deployable branch: (z_prior (B, K, d), h_act (B, d), aux). Reads context and instruction only."""
        ctx = self.context_tokens(batch["context"], batch["instruction"])
        if self.variant == "pixel":
            first = self.backbone(ctx, mask=None)
            predicted = torch.sigmoid(self.frame_out(first[:, :N_PATCH]))        # (B, 16, 128) in [0, 1]
            mid = self.pred_embed(predicted) + self.pred_pos
            z, h, _ = self.run(ctx, mid)
            return z, h, predicted
        z, h, _ = self.run(ctx, self.prior_slots(ctx.shape[0]))
        return z, h, None

    def posterior(self, batch: dict):
        """Training-only branch: the slots are the future frames' embeddings. (z_post, h_act)."""
        ctx = self.context_tokens(batch["context"], batch["instruction"])
        z, h, _ = self.run(ctx, self.future_slots(batch["future"]))
        return z, h

    def velocity(self, noisy: torch.Tensor, tau: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return self.head(torch.cat([noisy, time_features(tau), h], dim=1))

    def sample(self, h: torch.Tensor, noise: torch.Tensor, steps: int) -> torch.Tensor:
        def v(x, t):
            return self.velocity(x, torch.full((len(x),), t, dtype=x.dtype), h)

        return euler_sample(v, noise, steps).reshape(len(h), self.horizon, 2)

    def act(self, batch: dict, noise: torch.Tensor, steps: int = 10) -> torch.Tensor:
        """Deployment: action chunks (B, H, 2) from the prior branch only; ``batch["future"]`` is never read."""
        _, h, _ = self.prior(batch)
        return self.sample(h, noise, steps)

    def posterior_act(self, batch: dict, noise: torch.Tensor, steps: int = 10) -> torch.Tensor:
        """Training-only: the posterior branch's chunks (reads the future; the graph-test's control)."""
        _, h = self.posterior(batch)
        return self.sample(h, noise, steps)

    # --- losses --------------------------------------------------------------------------------------
    def flow_loss(self, h: torch.Tensor, actions: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        a = actions.reshape(len(actions), -1)
        noise = torch.randn(a.shape, generator=generator, dtype=a.dtype)
        # π0's time law: Beta(1.5, 1) on the noise side, so most samples are noisy and the head must read h.
        u = torch.rand(len(a), generator=generator, dtype=a.dtype)
        tau = (1.0 - u.pow(1.0 / 1.5)) * 0.999
        noisy, target = interpolate(a, noise, tau[:, None])
        return F.mse_loss(self.velocity(noisy, tau, h), target)


def alignment_loss(z_prior: torch.Tensor, z_post: torch.Tensor, mode: str = "stopgrad") -> torch.Tensor:
    """Mean squared gap of the layer-normed latents; ``stopgrad`` moves only the prior, ``balanced`` both (0.8 / 0.2)."""
    p = F.layer_norm(z_prior, z_prior.shape[-1:])
    q = F.layer_norm(z_post, z_post.shape[-1:])
    to_post = (p - q.detach()).pow(2).sum(-1).mean()
    if mode == "stopgrad":
        return to_post
    return 0.8 * to_post + 0.2 * (p.detach() - q).pow(2).sum(-1).mean()


def anti_collapse(z: torch.Tensor) -> torch.Tensor:
    """VICReg on the flattened latents (B, K·d): variance hinge at 1 plus off-diagonal covariance."""
    x = z.reshape(len(z), -1)
    x = x - x.mean(0)
    std = torch.sqrt(x.var(0) + 1e-4)
    variance = F.relu(1.0 - std).mean()
    cov = x.T @ x / max(len(x) - 1, 1)
    off = cov - torch.diag(torch.diag(cov))
    return variance + off.pow(2).sum() / x.shape[1]
