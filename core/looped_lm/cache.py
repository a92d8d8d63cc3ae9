"""``run_with_cache``: every state and attention map of a looped forward pass, TransformerLens-style.

``cache.hidden(loop, layer)`` is the state after that block layer in that loop ([batch, seq, d]),
``cache.attention(loop, layer)`` its attention weights ([batch, heads, seq, seq]); loops and layers are
0-based. ``cache.prelude`` is e (the injected input), ``cache.states`` the block outputs s_1..s_R,
``cache.coda`` the state after the coda layers (before the final norm) and ``cache.logits`` the output.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class LoopCache:
    hiddens: torch.Tensor       # [R, B, batch, seq, d]
    attentions: torch.Tensor    # [R, B, batch, heads, seq, seq]
    prelude: torch.Tensor       # [batch, seq, d]
    states: torch.Tensor        # [R, batch, seq, d]
    coda: torch.Tensor          # [batch, seq, d]
    logits: torch.Tensor        # [batch, seq, vocab]

    @property
    def num_loops(self) -> int:
        return self.hiddens.shape[0]

    @property
    def block_size(self) -> int:
        return self.hiddens.shape[1]

    def hidden(self, loop: int, layer: int) -> torch.Tensor:
        self._check(loop, layer)
        return self.hiddens[loop, layer]

    def attention(self, loop: int, layer: int) -> torch.Tensor:
        self._check(loop, layer)
        return self.attentions[loop, layer]

    def _check(self, loop, layer):
        if not 0 <= loop < self.num_loops:
            raise ValueError(f"loop: {loop} is out of range; allowed 0..{self.num_loops - 1}")
        if not 0 <= layer < self.block_size:
            raise ValueError(f"layer: {layer} is out of range; allowed 0..{self.block_size - 1}")


@torch.no_grad()
def run_with_cache(model, input_ids: torch.Tensor, num_loops: int) -> LoopCache:
    if num_loops < 1:
        raise ValueError(f"num_loops: {num_loops} is out of range; allowed >= 1")
    model.eval()
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
    return LoopCache(torch.stack(hiddens), torch.stack(attentions), e, torch.stack(states), coda, logits)
