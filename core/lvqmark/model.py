"""The L-VQVAE tokenizer, its globally coupled baseline, the token prior and the robust encoder (torch).

- :class:`LocalEncoder`: each token from one window of ``RF`` = 4 steps (stride 2): the window's steps are
  projected, given a learned position, and read by one learned query (cross-attention), then mapped
  to the code space. Nothing outside the window reaches the token.
- :class:`GlobalEncoder`: the globally coupled baseline: a full-attention transformer over all T steps,
  then N learned queries read the whole sequence; every token depends on every step.
- :class:`EMAQuantizer`: nearest code by L2, EMA codebook (decay 0.8, Laplace smoothing 1e-5), a code
  unused for ``dead_after`` steps is reset to a random batch vector, straight-through estimator.
- :class:`LocalDecoder` (each code back to its own window, stage 1) and :class:`GlobalDecoder` (the N
  codes to T steps by cross-attention, stage 2, encoder and codebook frozen).
- :class:`TokenPrior`: a small causal transformer over codes with BOS = K (learned positions, not the
  reference's RoPE: ours, the sequences are 11 tokens long).
- :class:`RobustEncoder`: the same front end as the tokenizer's encoder and a K-way head.
"""

from __future__ import annotations

import torch
from torch import nn

RF, STRIDE = 4, 2


def n_tokens(length: int) -> int:
    return (length - RF) // STRIDE + 1


def unfold_windows(x: torch.Tensor) -> torch.Tensor:
    """``(B, T, D)`` -> ``(B, N, RF, D)``: the window each token reads."""
    return x.unfold(1, RF, STRIDE).permute(0, 1, 3, 2)


class LocalEncoder(nn.Module):
    def __init__(self, n_vars: int, d_model: int, code_dim: int, heads: int = 2):
        super().__init__()
        self.proj = nn.Linear(n_vars, d_model)
        self.pos = nn.Parameter(torch.randn(RF, d_model) * 0.1)
        self.query = nn.Parameter(torch.randn(1, 1, d_model) * 0.1)
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.out = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, d_model), nn.GELU(),
                                 nn.Linear(d_model, code_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = unfold_windows(x)
        B, N = w.shape[:2]
        h = self.proj(w.reshape(B * N, RF, -1)) + self.pos
        read, _ = self.attn(self.query.expand(B * N, -1, -1), h, h)
        return self.out(read[:, 0]).reshape(B, N, -1)


class GlobalEncoder(nn.Module):
    def __init__(self, n_vars: int, d_model: int, code_dim: int, length: int, heads: int = 2, layers: int = 2):
        super().__init__()
        self.proj = nn.Linear(n_vars, d_model)
        self.pos = nn.Parameter(torch.randn(length, d_model) * 0.1)
        layer = nn.TransformerEncoderLayer(d_model, heads, 2 * d_model, dropout=0.0, batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.queries = nn.Parameter(torch.randn(n_tokens(length), d_model) * 0.1)
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.out = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, d_model), nn.GELU(),
                                 nn.Linear(d_model, code_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.body(self.proj(x) + self.pos)
        read, _ = self.attn(self.queries.expand(x.shape[0], -1, -1), h, h)
        return self.out(read)


class EMAQuantizer(nn.Module):
    def __init__(self, codebook_size: int, code_dim: int, decay: float = 0.8, eps: float = 1e-5,
                 dead_after: int = 50):
        super().__init__()
        self.decay, self.eps, self.dead_after = decay, eps, dead_after
        self.register_buffer("codebook", torch.randn(codebook_size, code_dim))
        self.register_buffer("cluster_size", torch.ones(codebook_size))
        self.register_buffer("embed_sum", self.codebook.clone())
        self.register_buffer("unused", torch.zeros(codebook_size))

    def nearest(self, z: torch.Tensor) -> torch.Tensor:
        flat = z.reshape(-1, z.shape[-1])
        d = (flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.codebook.T + self.codebook.pow(2).sum(1))
        return d.argmin(1).reshape(z.shape[:-1])

    def forward(self, z: torch.Tensor, generator: torch.Generator | None = None):
        ids = self.nearest(z)
        if self.training:
            self._ema_update(z.detach().reshape(-1, z.shape[-1]), ids.reshape(-1), generator)
        e = self.codebook[ids]
        commit = torch.mean((z - e.detach()) ** 2)
        return z + (e - z).detach(), ids, commit

    @torch.no_grad()
    def _ema_update(self, flat: torch.Tensor, ids: torch.Tensor, generator) -> None:
        K = self.codebook.shape[0]
        onehot = torch.zeros(len(ids), K).scatter_(1, ids[:, None], 1.0)
        counts = onehot.sum(0)
        self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
        self.embed_sum.mul_(self.decay).add_(onehot.T @ flat, alpha=1 - self.decay)
        n = self.cluster_size.sum()
        size = (self.cluster_size + self.eps) / (n + K * self.eps) * n   # Laplace smoothing
        self.codebook.copy_(self.embed_sum / size[:, None])
        self.unused.add_(1).mul_((counts == 0).float())
        dead = self.unused >= self.dead_after
        if dead.any():
            pick = torch.randint(0, len(flat), (int(dead.sum()),), generator=generator)
            self.codebook[dead] = flat[pick]
            self.embed_sum[dead] = flat[pick]
            self.cluster_size[dead] = 1.0
            self.unused[dead] = 0.0


class LocalDecoder(nn.Module):
    def __init__(self, n_vars: int, d_model: int, code_dim: int):
        super().__init__()
        self.n_vars = n_vars
        self.net = nn.Sequential(nn.Linear(code_dim, d_model), nn.GELU(), nn.Linear(d_model, RF * n_vars))

    def forward(self, e: torch.Tensor) -> torch.Tensor:
        return self.net(e).reshape(*e.shape[:2], RF, self.n_vars)


class GlobalDecoder(nn.Module):
    def __init__(self, n_vars: int, d_model: int, code_dim: int, length: int, heads: int = 2, layers: int = 2):
        super().__init__()
        self.inp = nn.Linear(code_dim, d_model)
        self.token_pos = nn.Parameter(torch.randn(n_tokens(length), d_model) * 0.1)
        self.queries = nn.Parameter(torch.randn(length, d_model) * 0.1)
        layer = nn.TransformerDecoderLayer(d_model, heads, 2 * d_model, dropout=0.0, batch_first=True)
        self.body = nn.TransformerDecoder(layer, layers)
        self.out = nn.Linear(d_model, n_vars)

    def forward(self, e: torch.Tensor) -> torch.Tensor:
        memory = self.inp(e) + self.token_pos
        return self.out(self.body(self.queries.expand(e.shape[0], -1, -1), memory))


class Tokenizer(nn.Module):
    def __init__(self, encoder: str, n_vars: int, length: int, codebook_size: int, code_dim: int, d_model: int,
                 dead_after: int = 50):
        super().__init__()
        self.encoder = (LocalEncoder(n_vars, d_model, code_dim) if encoder == "local"
                        else GlobalEncoder(n_vars, d_model, code_dim, length))
        self.quantizer = EMAQuantizer(codebook_size, code_dim, dead_after=dead_after)
        self.local_decoder = LocalDecoder(n_vars, d_model, code_dim)
        self.global_decoder = GlobalDecoder(n_vars, d_model, code_dim, length)

    @torch.no_grad()
    def encode(self, x: torch.Tensor) -> torch.Tensor:
        return self.quantizer.nearest(self.encoder(x))

    @torch.no_grad()
    def decode(self, ids: torch.Tensor) -> torch.Tensor:
        return self.global_decoder(self.quantizer.codebook[ids])


class TokenPrior(nn.Module):
    def __init__(self, codebook_size: int, length: int, d_model: int, heads: int = 2, layers: int = 2):
        super().__init__()
        self.K = codebook_size
        self.embed = nn.Embedding(codebook_size + 1, d_model)
        self.pos = nn.Parameter(torch.randn(length + 1, d_model) * 0.1)
        layer = nn.TransformerEncoderLayer(d_model, heads, 2 * d_model, dropout=0.0, batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, codebook_size)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Logits of the next code after BOS + ``ids`` ``(B, L)`` -> ``(B, L + 1, K)``."""
        bos = torch.full((ids.shape[0], 1), self.K, dtype=torch.long)
        seq = torch.cat([bos, ids], 1)
        L = seq.shape[1]
        mask = torch.triu(torch.full((L, L), float("-inf")), 1)
        return self.head(self.body(self.embed(seq) + self.pos[:L], mask=mask, is_causal=True))


class RobustEncoder(nn.Module):
    def __init__(self, encoder: str, n_vars: int, length: int, codebook_size: int, d_model: int):
        super().__init__()
        self.encoder = (LocalEncoder(n_vars, d_model, d_model) if encoder == "local"
                        else GlobalEncoder(n_vars, d_model, d_model, length))
        self.head = nn.Linear(d_model, codebook_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x))

    @torch.no_grad()
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward(x).argmax(-1)
