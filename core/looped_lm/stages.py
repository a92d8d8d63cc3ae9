"""Stages of inference: lens read-outs and representation statistics along effective depth.

For a looped model, effective depth runs over (loop, layer) pairs in order, n = r * B + l; for the
feedforward model over its layers. At each depth we read the answer position with
- the logit lens: unembed(final_norm(h)), and the coda lens: the coda layers, then the same;
- entropy (nats) of the read-out, top-1 agreement with the model's final prediction, and the rank
  of the correct token (0 = top); and the matrix entropy of the answer-position states over the batch.
CKA (linear) compares answer-position states of every feedforward layer with every looped state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.looped_lm.metrics import linear_cka, matrix_entropy


@dataclass
class StageProfile:
    depth_labels: list            # "r1 l0", ... or "layer 3"
    entropy: np.ndarray           # logit-lens entropy per depth
    agreement: np.ndarray         # top-1 agreement with the final output
    correct_rank: np.ndarray      # mean rank of the correct token
    coda_agreement: np.ndarray    # coda lens (looped) or logit lens again (feedforward)
    matrix_entropy: np.ndarray


def _readout(logits: torch.Tensor, final_pred: torch.Tensor, answer: torch.Tensor):
    p = logits.softmax(-1)
    entropy = float(-(p * p.clamp_min(1e-12).log()).sum(-1).mean())
    agreement = float((logits.argmax(-1) == final_pred).float().mean())
    rank = (logits > logits.gather(-1, answer[:, None])).sum(-1).float().mean()
    return entropy, agreement, float(rank)


@torch.no_grad()
def looped_profile(model, cache, answer: torch.Tensor) -> StageProfile:
    final_pred = cache.logits[:, -1].argmax(-1)
    rows, labels = [], []
    for r in range(cache.num_loops):
        for layer in range(cache.block_size):
            h = cache.hidden(r, layer)
            lens = model.unembed(model.final_norm(h))[:, -1]
            coda = model.decode(h)[:, -1]
            ent, agree, rank = _readout(lens, final_pred, answer)
            rows.append((ent, agree, rank, _readout(coda, final_pred, answer)[1], matrix_entropy(h[:, -1])))
            labels.append(f"r{r + 1} l{layer}")
    return StageProfile(labels, *map(np.array, zip(*rows)))


@torch.no_grad()
def feedforward_states(model, input_ids) -> list:
    record = []
    model.eval()
    logits = model(input_ids, record=record)
    return [h for h, _ in record], logits


@torch.no_grad()
def feedforward_profile(model, input_ids, answer: torch.Tensor) -> StageProfile:
    states, logits = feedforward_states(model, input_ids)
    final_pred = logits[:, -1].argmax(-1)
    rows = []
    for h in states:
        lens = model.unembed(model.final_norm(h))[:, -1]
        ent, agree, rank = _readout(lens, final_pred, answer)
        rows.append((ent, agree, rank, agree, matrix_entropy(h[:, -1])))
    return StageProfile([f"layer {i}" for i in range(len(states))], *map(np.array, zip(*rows)))


@torch.no_grad()
def cka_matrix(ff_states: list, cache, loops: int | None = None) -> np.ndarray:
    """CKA[i, n]: feedforward layer i against looped state n = r * B + l (answer position)."""
    loops = loops or cache.num_loops
    looped = [cache.hidden(r, layer)[:, -1] for r in range(loops) for layer in range(cache.block_size)]
    return np.array([[linear_cka(f[:, -1], h) for h in looped] for f in ff_states])


def profile_correlation(looped: np.ndarray, feedforward: np.ndarray) -> float:
    """Pearson correlation of the first loops' profile, resampled to the feedforward depth."""
    x = np.interp(np.linspace(0, 1, feedforward.size), np.linspace(0, 1, looped.size), looped)
    if np.std(x) < 1e-12 or np.std(feedforward) < 1e-12:
        return float("nan")
    return float(np.corrcoef(x, feedforward)[0, 1])


def stage_alignment(cka: np.ndarray, block_size: int) -> np.ndarray:
    """For each block layer at the last loop in ``cka``, the feedforward depth (0..1) it matches best."""
    last = cka[:, -block_size:]
    return last.argmax(0) / max(cka.shape[0] - 1, 1)
