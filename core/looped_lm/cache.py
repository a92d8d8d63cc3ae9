"""``run_with_cache``: every state and attention map of a looped forward pass, TransformerLens-style.

``cache.hidden(loop, layer)`` is the state after that block layer in that loop ([batch, seq, d]),
``cache.attention(loop, layer)`` its attention weights ([batch, heads, seq, seq]); loops and layers are
0-based. ``cache.prelude`` is e (the injected input), ``cache.states`` the block outputs s_1..s_R,
``cache.coda`` the state after the coda layers (before the final norm) and ``cache.logits`` the output.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from core.common.config import check_range


@dataclass
class LoopCache:
    """Every state and attention map of one looped pass of R loops through a block of B layers.

    Attributes
    ----------
    hiddens : torch.Tensor
        [R, B, batch, seq, d]: the state after block layer l in loop r.
    attentions : torch.Tensor
        [R, B, batch, heads, seq, seq]: that layer's attention weights (rows sum to 1, causal).
    prelude : torch.Tensor
        [batch, seq, d]: e, the prelude's output injected into every loop.
    states : torch.Tensor
        [R, batch, seq, d]: the block's outputs s_1..s_R (after the loop norm, if any).
    coda : torch.Tensor
        [batch, seq, d]: the state after the coda layers, before the final norm.
    logits : torch.Tensor
        [batch, seq, vocab]: the model's output after R loops.

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import LoopedLM, run_with_cache
    >>> model = LoopedLM(vocab=7, seq_len=6, d=16, heads=2, block=2)
    >>> cache = run_with_cache(model, torch.zeros(3, 6, dtype=torch.long), num_loops=4)
    >>> cache.num_loops, cache.block_size, tuple(cache.hidden(3, 1).shape)
    (4, 2, (3, 6, 16))
    """

    hiddens: torch.Tensor       # [R, B, batch, seq, d]
    attentions: torch.Tensor    # [R, B, batch, heads, seq, seq]
    prelude: torch.Tensor       # [batch, seq, d]
    states: torch.Tensor        # [R, batch, seq, d]
    coda: torch.Tensor          # [batch, seq, d]
    logits: torch.Tensor        # [batch, seq, vocab]

    @property
    def num_loops(self) -> int:
        """R, the number of loops cached."""
        return self.hiddens.shape[0]

    @property
    def block_size(self) -> int:
        """B, the number of layers in the recurrent block."""
        return self.hiddens.shape[1]

    def hidden(self, loop: int, layer: int) -> torch.Tensor:
        """The state after block layer ``layer`` in loop ``loop`` (both 0-based): [batch, seq, d]."""
        self._check(loop, layer)
        return self.hiddens[loop, layer]

    def attention(self, loop: int, layer: int) -> torch.Tensor:
        """The attention weights of block layer ``layer`` in loop ``loop``: [batch, heads, seq, seq]."""
        self._check(loop, layer)
        return self.attentions[loop, layer]

    def _check(self, loop, layer):
        if not 0 <= loop < self.num_loops:
            raise ValueError(f"loop: {loop} is out of range; allowed 0..{self.num_loops - 1}")
        if not 0 <= layer < self.block_size:
            raise ValueError(f"layer: {layer} is out of range; allowed 0..{self.block_size - 1}")


@torch.no_grad()
def run_with_cache(model, input_ids: torch.Tensor, num_loops: int) -> LoopCache:
    """Run ``model`` for ``num_loops`` loops and keep every block state and attention map.

    The pass is the model's own: e = prelude(embed(x)), s_0 = 0 (or e without injection),
    s_r = block(inject(s_{r-1}, e)) for r = 1..R, logits = unembed(final_norm(coda(s_R))). It runs in
    eval mode without gradients, and the model's mode (train or eval) is restored on return, as
    TransformerLens's ``run_with_cache`` leaves its model as it found it.

    Parameters
    ----------
    model : LoopedLM
        A looped model (:class:`~core.looped_lm.model.LoopedLM`).
    input_ids : torch.Tensor
        [batch, seq] token ids (long), seq at most the model's ``seq_len``.
    num_loops : int
        R, the number of loops to run, at least 1.

    Returns
    -------
    LoopCache
        The states after every block layer of every loop, their attention maps, e, s_1..s_R, the coda
        state and the logits.

    Raises
    ------
    ValueError
        If ``num_loops`` is not an integer >= 1 (the model is not run).

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``): "each layer in the cycle
    converges to a distinct fixed point".

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import LoopedLM, run_with_cache
    >>> model = LoopedLM(vocab=7, seq_len=6, d=16, heads=2, block=1).train()
    >>> cache = run_with_cache(model, torch.zeros(2, 6, dtype=torch.long), num_loops=3)
    >>> tuple(cache.states.shape), tuple(cache.logits.shape), model.training
    ((3, 2, 6, 16), (2, 6, 7), True)
    """
    check_range("num_loops", num_loops, low=1, integer=True)
    was_training = model.training
    model.eval()
    try:
        e = model.encode(input_ids)
        s = model.initial_state(e)
        hiddens, attentions, states = [], [], []
        for _ in range(num_loops):
            record = []
            s = model.step(s, e, record)
            hiddens.append(torch.stack([h for h, _ in record]))
            attentions.append(torch.stack([w for _, w in record]))
            states.append(s)
        coda = s
        for layer in model.coda:
            coda = layer(coda)[0]
        logits = model.unembed(model.final_norm(coda))
    finally:
        model.train(was_training)
    return LoopCache(torch.stack(hiddens), torch.stack(attentions), e, torch.stack(states), coda, logits)
