"""A small looped transformer (Huginn-style) and a feedforward model of matching effective depth.

tokens -> embedding (+ learned positions) -> prelude layers -> e
s_0 = 0;  for r in 1..R:  u = inject(s_{r-1}, e);  u = L_B(...L_1(u));  s_r = u (or norm(u) for "loop")
logits = unembed(final_norm(coda(s_R)))

Design variables (the paper's): block size B; input injection "concat" (Huginn: W [s; e]),
"additive" (s + e) or "none" (Ouro: only s_0 = e); normalisation "pre" (x + f(norm x)), "sandwich"
(Huginn: norm(x + f(norm x)), 4 RMSNorms per layer), "post" (norm(x + f(x))) or "loop" (pre-norm plus
an RMSNorm on the state after every loop, as Ouro applies its final norm). With "none" the state
starts at e instead of 0, so the block still sees the input.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from core.common.config import check_choice, check_range
from core.looped_lm.config import INJECTIONS, NORMS


def _check_sizes(vocab, seq_len, d, heads, **layers) -> None:
    check_range("vocab", vocab, low=2, integer=True)
    check_range("seq_len", seq_len, low=1, integer=True)
    check_range("d", d, low=1, integer=True)
    check_range("heads", heads, low=1, high=d, integer=True)
    if d % heads:
        raise ValueError(f"heads: {heads} does not divide d={d}; allowed divisors of d")
    for name, value in layers.items():
        check_range(name, value, low=0 if name in ("prelude", "coda") else 1, integer=True)


class Attention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.dh)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        y = (weights @ v).transpose(1, 2).reshape(b, t, d)
        return self.out(y), weights


class Layer(nn.Module):
    """One transformer layer; ``norm`` picks where the RMSNorms go."""

    def __init__(self, d: int, heads: int, norm: str):
        super().__init__()
        self.norm = norm
        self.attn = Attention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n1, self.n2, self.n3, self.n4 = (nn.RMSNorm(d) for _ in range(4))

    def forward(self, x):
        if self.norm == "post":
            a, w = self.attn(x)
            x = self.n1(x + a)
            return self.n2(x + self.mlp(x)), w
        a, w = self.attn(self.n1(x))
        if self.norm == "sandwich":
            x = self.n2(x + a)
            return self.n4(x + self.mlp(self.n3(x))), w
        x = x + a
        return x + self.mlp(self.n3(x)), w


class LoopedLM(nn.Module):
    """A looped (depth-recurrent) transformer: prelude, a block of B layers run R times, coda.

    .. math::

        e = P(embed(x)),  s_0 = 0,  s_r = L_B(...L_1(inject(s_{r-1}, e))),  logits = U(norm(C(s_R)))

    with ``inject`` W [s; e] ("concat", Huginn's), s + e ("additive") or s ("none", where s_0 = e).

    Parameters
    ----------
    vocab : int
        Vocabulary size.
    seq_len : int
        Longest input (learned positions).
    d : int
        Model width; a multiple of ``heads``.
    heads : int
        Attention heads per layer.
    block : int
        B, layers in the recurrent block.
    prelude : int
        Layers before the loop.
    coda : int
        Layers after the loop.
    injection : str
        "concat", "additive" or "none".
    norm : str
        "sandwich" (Huginn's), "pre", "post" or "loop" (pre-norm plus an RMSNorm on the state after every loop).

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``); Geiping et al., "Scaling up
    test-time compute with latent reasoning: a recurrent depth approach" (Huginn), 2025.

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import LoopedLM
    >>> model = LoopedLM(vocab=7, seq_len=6, d=16, heads=2, block=2)
    >>> tuple(model(torch.zeros(3, 6, dtype=torch.long), num_loops=4).shape)
    (3, 6, 7)
    """

    def __init__(self, vocab: int, seq_len: int, d: int = 64, heads: int = 4, block: int = 2, prelude: int = 1,
                 coda: int = 1, injection: str = "concat", norm: str = "sandwich"):
        _check_sizes(vocab, seq_len, d, heads, block=block, prelude=prelude, coda=coda)
        check_choice("injection", injection, INJECTIONS)
        check_choice("norm", norm, NORMS)
        super().__init__()
        self.injection, self.norm_mode, self.block_size = injection, norm, block
        layer_norm = "pre" if norm == "loop" else norm
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq_len, d) * 0.02)
        self.prelude = nn.ModuleList(Layer(d, heads, layer_norm) for _ in range(prelude))
        self.block = nn.ModuleList(Layer(d, heads, layer_norm) for _ in range(block))
        self.coda = nn.ModuleList(Layer(d, heads, layer_norm) for _ in range(coda))
        self.adapter = nn.Linear(2 * d, d, bias=False) if injection == "concat" else None
        self.loop_norm = nn.RMSNorm(d) if norm == "loop" else None
        self.final_norm = nn.RMSNorm(d)
        self.unembed = nn.Linear(d, vocab, bias=False)

    def encode(self, input_ids):
        x = self.embed(input_ids) + self.pos[: input_ids.shape[1]]
        for layer in self.prelude:
            x = layer(x)[0]
        return x

    def initial_state(self, e):
        return e if self.injection == "none" else torch.zeros_like(e)

    def inject(self, s, e):
        if self.injection == "concat":
            return self.adapter(torch.cat([s, e], -1))
        if self.injection == "additive":
            return s + e
        return s

    def step(self, s, e, record=None):
        """One pass of the recurrent block: the full-cycle map s_{r-1} -> s_r."""
        u = self.inject(s, e)
        for layer in self.block:
            u, w = layer(u)
            if record is not None:
                record.append((u, w))
        return self.loop_norm(u) if self.loop_norm is not None else u

    def decode(self, s):
        for layer in self.coda:
            s = layer(s)[0]
        return self.unembed(self.final_norm(s))

    def forward(self, input_ids, num_loops: int, grad_loops: int | None = None):
        """Logits after ``num_loops`` loops; only the last ``grad_loops`` carry gradients (truncated BPTT)."""
        e = self.encode(input_ids)
        s = self.initial_state(e)
        free = num_loops if grad_loops is None else max(num_loops - grad_loops, 0)
        with torch.no_grad():
            for _ in range(free):
                s = self.step(s, e)
        for _ in range(num_loops - free):
            s = self.step(s, e)
        return self.decode(s)


class FeedforwardLM(nn.Module):
    """The same layers without weight sharing: ``depth`` distinct layers between prelude and coda.

    The stage comparison's feedforward model of matching effective depth (B x mean recurrence layers).
    ``forward`` takes and ignores the looped model's ``num_loops``/``grad_loops``, so training code
    calls both alike; ``record`` (a list) collects (state, attention) after every layer.

    Parameters
    ----------
    vocab : int
        Vocabulary size.
    seq_len : int
        Longest input (learned positions).
    d : int
        Model width; a multiple of ``heads``.
    heads : int
        Attention heads per layer.
    depth : int
        Distinct layers between prelude and coda.
    prelude : int
        Layers before them.
    coda : int
        Layers after them.
    norm : str
        "sandwich", "pre" or "post".

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import FeedforwardLM
    >>> model = FeedforwardLM(vocab=7, seq_len=6, d=16, heads=2, depth=4)
    >>> len(model.layers), tuple(model(torch.zeros(3, 6, dtype=torch.long)).shape)
    (6, (3, 6, 7))
    """

    def __init__(self, vocab: int, seq_len: int, d: int = 64, heads: int = 4, depth: int = 8, prelude: int = 1,
                 coda: int = 1, norm: str = "pre"):
        _check_sizes(vocab, seq_len, d, heads, depth=depth, prelude=prelude, coda=coda)
        check_choice("norm", norm, ("sandwich", "pre", "post"))
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq_len, d) * 0.02)
        self.layers = nn.ModuleList(Layer(d, heads, norm) for _ in range(prelude + depth + coda))
        self.final_norm = nn.RMSNorm(d)
        self.unembed = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids, num_loops=None, grad_loops=None, record=None):
        x = self.embed(input_ids) + self.pos[: input_ids.shape[1]]
        for layer in self.layers:
            x, w = layer(x)
            if record is not None:
                record.append((x, w))
        return self.unembed(self.final_norm(x))
