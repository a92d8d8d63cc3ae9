"""Stages of inference: lens read-outs and representation statistics along effective depth.

For a looped model, effective depth runs over (loop, layer) pairs in order, n = r * B + l; for the
feedforward model over its layers. At each depth we read the answer position with
- the logit lens: unembed(final_norm(h)), and the coda lens: the coda layers, then the same;
- entropy (nats) of the read-out, top-1 agreement with the model's final prediction, and the rank
  of the correct token (0 = top); and the matrix entropy of the answer-position states over the batch.
CKA (linear) compares answer-position states of every feedforward layer with every looped state.

:func:`hop_stages` reads pointer chasing, where loop r does hop r, per loop and per hop position
(:class:`~core.looped_lm.view.HopStages`): the stage taxonomy there is the task's own (which hop a
depth has completed), chosen because the four-stage taxonomy of feedforward LMs (detokenisation,
feature engineering, ensembling, sharpening) needs many more layers than a one-layer block has
per loop, while the hops are the computation the task defines and each loop can be scored on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.looped_lm.metrics import linear_cka, matrix_entropy
from core.looped_lm.view import HOP_DONE, HopStages


@dataclass
class StageProfile:
    """Lens read-outs of the answer position along effective depth.

    Attributes
    ----------
    depth_labels : list
        [N] "r1 l0", ... (looped: loop r, block layer l) or "layer 3" (feedforward).
    entropy : numpy.ndarray
        [N] logit-lens entropy (nats).
    agreement : numpy.ndarray
        [N] top-1 agreement with the model's final prediction.
    correct_rank : numpy.ndarray
        [N] mean rank of the correct token (0 = top).
    coda_agreement : numpy.ndarray
        [N] the coda lens's agreement (looped) or the logit lens's again (feedforward).
    matrix_entropy : numpy.ndarray
        [N] matrix entropy of the answer-position states over the batch.
    """

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




def _hops_done(accuracy: np.ndarray) -> np.ndarray:
    below = accuracy < HOP_DONE
    return np.where(below.any(1), below.argmax(1), accuracy.shape[1])


@torch.no_grad()
def hop_stages(model, feedforward, task, loops: int = 12, n: int = 256, seed: int = 123) -> HopStages:
    """:class:`HopStages` of a looped ``model`` and a ``feedforward`` model on ``n`` samples of ``task``.

    Parameters
    ----------
    model : LoopedLM
        Any block size; each loop is read after its last block layer.
    feedforward : FeedforwardLM
        Read after each of its layers (prelude and coda layers included).
    task : Task
        Pointer chasing: every hop's position is supervised (``task.hop_targets``).
    loops : int
        R, loops read, 1..1024.
    n : int
        Probe samples, 2..100000 (matrix entropy and CKA need two).
    seed : int
        Seeds the probe batch.

    Returns
    -------
    HopStages
        Accuracy of a lens is the top-1 read-out against hop k's node at hop k's position; matrix
        entropy is :func:`~core.looped_lm.metrics.matrix_entropy` of that position's states over the
        batch; CKA is :func:`~core.looped_lm.metrics.linear_cka` of the states at all hop positions.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``): stages of inference in
    looped and feedforward models.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, hop_stages, make_task
    >>> from core.looped_lm.training import build
    >>> task = make_task("pointer_chasing", length=3, nodes=5)
    >>> config = LoopedConfig(task="pointer_chasing", d_model=16, heads=2, block=1)
    >>> looped, ff = build(config, task), build(config.replace(feedforward=True, mean_recurrence=3), task)
    >>> stages = hop_stages(looped, ff, task, loops=4, n=16)
    >>> stages.coda_accuracy.shape, stages.cka.shape, stages.hops_done.shape
    ((4, 3), (5, 4), (4,))
    """
    from core.common.config import check_range
    from core.looped_lm.cache import run_with_cache

    check_range("loops", loops, low=1, high=1024, integer=True)
    check_range("n", n, low=2, high=100_000, integer=True)

    ids, targets = task.sample(n, seed)
    answers = task.hop_targets(targets)                         # [n, K]
    cols = slice(targets.shape[1] - answers.shape[1], None)
    cache = run_with_cache(model, ids, loops)

    def read(logits):
        p = logits.softmax(-1)
        acc = (logits.argmax(-1) == answers).float().mean(0).numpy()
        ent = (-(p * p.clamp_min(1e-12).log()).sum(-1)).mean(0).numpy()
        return acc, ent

    coda, logit, entropy, mat = [], [], [], []
    for r in range(loops):
        h = cache.states[r][:, cols]
        acc, ent = read(model.decode(cache.states[r])[:, cols])
        coda.append(acc)
        entropy.append(ent)
        logit.append(read(model.unembed(model.final_norm(h)))[0])
        mat.append([matrix_entropy(h[:, k]) for k in range(h.shape[1])])
    states, _ = feedforward_states(feedforward, ids)
    ff_acc = np.array([read(feedforward.unembed(feedforward.final_norm(h[:, cols])))[0] for h in states])
    ff_mat = np.array([[matrix_entropy(h[:, cols][:, k]) for k in range(answers.shape[1])] for h in states])
    cka = np.array([[linear_cka(f[:, cols], cache.states[r][:, cols]) for r in range(loops)] for f in states])
    coda = np.array(coda)
    return HopStages(coda, np.array(logit), np.array(entropy), np.array(mat), _hops_done(coda), ff_acc, ff_mat,
                     _hops_done(ff_acc), cka)
