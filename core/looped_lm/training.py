"""Training a looped LM: Huginn's Poisson-lognormal loop count and truncated backpropagation.

Each step draws the number of loops p = Poisson(rate) + 1 with rate ~ LogNormal(log(mean) - sigma^2/2,
sigma = 0.5), so E[rate] = ``mean_recurrence``; gradients flow through the last
min(p, ``backprop_depth``) loops only. Evaluation reads accuracy at the answer position for a
range of loop counts, including beyond the trained mean (extrapolation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch.nn import functional as F

from core.common.progress import report
from core.common.seeding import make_rng, torch_seeded
from core.looped_lm.config import EVAL_LOOPS, INJECTIONS, LIVE_POINTER, NORMS, LoopedConfig  # noqa: F401 (re-exported)
from core.looped_lm.model import FeedforwardLM, LoopedLM
from core.looped_lm.tasks import Task, make_task, shuffled_targets


def task_of(config: LoopedConfig) -> Task:
    task = make_task(config.task, config.length or None, config.nodes)
    return shuffled_targets(task) if config.shuffled else task


def sample_loops(mean_recurrence: int, backprop_depth: int, rng: np.random.Generator, sigma: float = 0.5):
    """(loops, loops with gradient) from Huginn's Poisson-lognormal sampler."""
    mu = np.log(mean_recurrence) - sigma**2 / 2
    loops = int(rng.poisson(rng.lognormal(mu, sigma))) + 1
    return loops, min(backprop_depth, loops)


def build(config: LoopedConfig, task: Task):
    if config.feedforward:
        return FeedforwardLM(task.vocab, task.seq_len, config.d_model, config.heads,
                             depth=config.block * config.mean_recurrence)
    return LoopedLM(task.vocab, task.seq_len, config.d_model, config.heads, config.block,
                    injection=config.injection, norm=config.norm)


@dataclass
class TrainResult:
    model: torch.nn.Module
    config: LoopedConfig
    step: np.ndarray
    loss: np.ndarray
    accuracy: dict = field(default_factory=dict)   # loops -> accuracy on held-out samples; empty if stopped
    stopped: bool = False                          # progress asked to stop: accuracy was not evaluated


@torch.no_grad()
def accuracy_by_loops(model, task: Task, loops=EVAL_LOOPS, n: int = 512, seed: int = 10_000) -> dict:
    model.eval()
    ids, targets = task.sample(n, seed)
    out = {}
    for r in loops:
        pred = model(ids, r)[:, -1].argmax(-1)
        out[int(r)] = float((pred == targets[:, -1]).float().mean())
    return out


@torch.no_grad()
def accuracy_by_hops(model, task: Task, loops=EVAL_LOOPS, n: int = 512, seed: int = 10_000) -> np.ndarray:
    """[len(loops), hops] accuracy of every supervised position (hop) after each number of loops."""
    model.eval()
    ids, targets = task.sample(n, seed)
    answers = task.hop_targets(targets)
    cols = slice(targets.shape[1] - answers.shape[1], None)
    return np.array([(model(ids, r)[:, cols].argmax(-1) == answers).float().mean(0).numpy() for r in loops])


def train(config: LoopedConfig, task: Task | None = None, steps: int | None = None, seed: int = 0,
          progress=None) -> TrainResult:
    """Train a looped (or, with ``config.feedforward``, a feedforward) model on ``task``.

    Parameters
    ----------
    config : LoopedConfig
        The design and the optimiser's settings.
    task : Task, optional
        Default: ``task_of(config)``.
    steps : int, optional
        Default: ``config.steps``.
    seed : int
        Seeds the initialisation, the batches and the loop counts.
    progress : callable, optional
        ``progress(step, total, {"loss", "loops"})`` after every step; returning False stops.

    Returns
    -------
    TrainResult
        The model, the loss per step and the answer accuracy on 512 fresh samples at
        ``EVAL_LOOPS`` loops. A stopped run skips that evaluation: ``stopped`` is True and
        ``accuracy`` is empty, so Stop ends the run at its next step.
    """
    task = task or task_of(config)
    steps = steps or config.steps
    with torch_seeded(seed):
        model = build(config, task)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=config.lr, total_steps=steps, pct_start=0.1)
    rng = make_rng(seed)
    losses, stopped = [], False
    for step in range(1, steps + 1):
        model.train()
        ids, targets = task.sample(config.batch_size, int(rng.integers(2**31)))
        loops, grad_loops = sample_loops(config.mean_recurrence, config.backprop_depth, rng)
        logits = model(ids, loops, grad_loops)
        loss = F.cross_entropy(logits.reshape(-1, task.vocab), targets.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        schedule.step()
        losses.append(float(loss.detach()))
        if not report(progress, step, steps, {"loss": losses[-1], "loops": loops}):
            stopped = True
            break
    model.eval()
    accuracy = {} if stopped else accuracy_by_loops(model, task)
    return TrainResult(model, config, np.arange(1, len(losses) + 1), np.array(losses), accuracy, stopped)
