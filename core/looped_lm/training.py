"""Training a looped LM: Huginn's Poisson-lognormal loop count and truncated backpropagation.

Each step draws the number of loops p = Poisson(rate) + 1 with rate ~ LogNormal(log(mean) - sigma^2/2,
sigma = 0.5), so E[rate] = ``mean_recurrence``; gradients flow through the last
min(p, ``backprop_depth``) loops only. Evaluation reads accuracy at the answer position for a
range of loop counts, including beyond the trained mean (extrapolation).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.nn import functional as F

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import make_rng, torch_seeded
from core.looped_lm.config import EVAL_LOOPS, INJECTIONS, LIVE_POINTER, NORMS, LoopedConfig  # noqa: F401 (re-exported)
from core.looped_lm.model import FeedforwardLM, LoopedLM
from core.looped_lm.tasks import Task, make_task, shuffled_targets


def task_of(config: LoopedConfig) -> Task:
    """The task a config trains on: ``config.task`` at ``config.length``, shuffled if ``config.shuffled``.

    Parameters
    ----------
    config : LoopedConfig
        Reads ``task``, ``length`` (0: the task's default), ``nodes`` and ``shuffled``.

    Returns
    -------
    Task
        :func:`~core.looped_lm.tasks.make_task` of those fields, through
        :func:`~core.looped_lm.tasks.shuffled_targets` for a control.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, task_of
    >>> task_of(LoopedConfig()).name, type(task_of(LoopedConfig(shuffled=True))).__name__
    ('modular_chain', 'ShuffledTask')
    """
    task = make_task(config.task, config.length or None, config.nodes)
    return shuffled_targets(task) if config.shuffled else task


@dataclass(frozen=True)
class LoopDraw:
    """One training step's loop count and how many of those loops carry gradients.

    Attributes
    ----------
    loops : int
        p >= 1, the loops run.
    grad_loops : int
        min(p, backprop depth), the last loops backpropagated through.
    """

    loops: int
    grad_loops: int


def sample_loops(mean_recurrence: int, backprop_depth: int, rng: np.random.Generator,
                 sigma: float = 0.5) -> LoopDraw:
    """Draw a step's loop count from Huginn's Poisson-lognormal sampler.

    .. math::

        tau ~ LogNormal(log m - sigma^2 / 2, sigma),  p = 1 + Poisson(tau),  grad loops = min(p, k)

    so E[tau] = m and E[p] = m + 1.

    Parameters
    ----------
    mean_recurrence : int
        m >= 1, the mean of the rate.
    backprop_depth : int
        k >= 1, the most loops backpropagated through.
    rng : numpy.random.Generator
        The generator drawn from (the training loop's own).
    sigma : float
        The lognormal's shape, > 0.

    Returns
    -------
    LoopDraw
        p and min(p, k).

    References
    ----------
    Geiping et al., "Scaling up test-time compute with latent reasoning: a recurrent depth approach", 2025
    (the sampler); used by Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import sample_loops
    >>> draw = sample_loops(6, 4, np.random.default_rng(0))
    >>> draw.loops >= 1, draw.grad_loops == min(draw.loops, 4)
    (True, True)
    """
    check_range("mean_recurrence", mean_recurrence, low=1, integer=True)
    check_range("backprop_depth", backprop_depth, low=1, integer=True)
    check_range("sigma", sigma, low=0, low_open=True)
    mu = np.log(mean_recurrence) - sigma**2 / 2
    loops = int(rng.poisson(rng.lognormal(mu, sigma))) + 1
    return LoopDraw(loops, min(backprop_depth, loops))


def build(config: LoopedConfig, task: Task):
    if config.feedforward:
        return FeedforwardLM(task.vocab, task.seq_len, config.d_model, config.heads,
                             depth=config.block * config.mean_recurrence)
    return LoopedLM(task.vocab, task.seq_len, config.d_model, config.heads, config.block,
                    injection=config.injection, norm=config.norm)


@dataclass
class LoopAccuracy:
    """Answer accuracy on held-out samples after each number of loops.

    Reads like the mapping it replaces: ``acc[32]``, ``32 in acc``, ``acc.items()``; ``to_dict()`` gives
    {loops: accuracy}. Empty (no loops) for a stopped run.

    Attributes
    ----------
    loops : numpy.ndarray
        [L] loop counts, increasing as asked.
    accuracy : numpy.ndarray
        [L] fraction of samples whose answer is right after that many loops.

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import LoopAccuracy
    >>> acc = LoopAccuracy(np.array([1, 32]), np.array([0.25, 1.0]))
    >>> acc[32], 4 in acc, acc.to_dict()
    (1.0, False, {1: 0.25, 32: 1.0})
    """

    loops: np.ndarray
    accuracy: np.ndarray

    def __getitem__(self, loops: int) -> float:
        hits = np.flatnonzero(self.loops == loops)
        if not hits.size:
            raise KeyError(loops)
        return float(self.accuracy[hits[0]])

    def __contains__(self, loops: object) -> bool:
        return bool((self.loops == loops).any())

    def __len__(self) -> int:
        return len(self.loops)

    def __iter__(self) -> Iterator[int]:
        return iter(self.loops.tolist())

    def items(self) -> list:
        """(loops, accuracy) pairs, as ``dict.items``."""
        return list(zip(self.loops.tolist(), self.accuracy.tolist()))

    def to_dict(self) -> dict:
        """{loops: accuracy} with plain ints and floats."""
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dict):
            return self.to_dict() == other
        if isinstance(other, LoopAccuracy):
            return self.to_dict() == other.to_dict()
        return NotImplemented


@dataclass
class TrainResult:
    """A finished (or stopped) training run.

    Attributes
    ----------
    model : torch.nn.Module
        The trained :class:`~core.looped_lm.model.LoopedLM` (or FeedforwardLM), in eval mode.
    config : LoopedConfig
        The config it was trained with.
    step : numpy.ndarray
        [T] steps run, 1..T.
    loss : numpy.ndarray
        [T] cross-entropy of each step's batch.
    accuracy : LoopAccuracy
        Answer accuracy on 512 fresh samples at ``EVAL_LOOPS`` loops; empty if stopped.
    stopped : bool
        The progress callback asked to stop: accuracy was not evaluated.
    """

    model: torch.nn.Module
    config: LoopedConfig
    step: np.ndarray
    loss: np.ndarray
    accuracy: LoopAccuracy = field(default_factory=lambda: LoopAccuracy(np.zeros(0, int), np.zeros(0)))
    stopped: bool = False                          # progress asked to stop: accuracy was not evaluated


def _check_eval(loops, n: int) -> tuple:
    loops = tuple(loops)
    if not loops:
        raise ValueError("loops: empty; allowed one or more loop counts >= 1")
    for r in loops:
        check_range("loops", r, low=1, high=1024, integer=True)
    check_range("n", n, low=1, high=100_000, integer=True)
    return tuple(int(r) for r in loops)


@torch.no_grad()
def accuracy_by_loops(model, task: Task, loops=EVAL_LOOPS, n: int = 512, seed: int = 10_000) -> LoopAccuracy:
    """Accuracy of the answer (the last position) after each number of loops, on fresh samples.

    Parameters
    ----------
    model : torch.nn.Module
        A looped or feedforward model (a feedforward one ignores the loop count); put in eval mode.
    task : Task
        Scored on its targets (a control's true task, not its shuffled one).
    loops : sequence of int
        Loop counts, each 1..1024; default ``EVAL_LOOPS`` (1, 2, 4, 8, 16, 32).
    n : int
        Samples, 1..100000.
    seed : int
        Seeds the samples (10 000 by default, apart from the training batches).

    Returns
    -------
    LoopAccuracy
        Fraction of the ``n`` answers right after each loop count.

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import LoopedConfig, accuracy_by_loops, task_of
    >>> from core.looped_lm.training import build
    >>> task = task_of(LoopedConfig())
    >>> with torch.random.fork_rng():
    ...     _ = torch.manual_seed(0)
    ...     model = build(LoopedConfig(d_model=16, heads=2), task)
    >>> acc = accuracy_by_loops(model, task, loops=(1, 4), n=32)
    >>> acc.loops, bool(0 <= acc[4] <= 1)
    (array([1, 4]), True)
    """
    loops = _check_eval(loops, n)
    model.eval()
    ids, targets = task.sample(n, seed)
    out = []
    for r in loops:
        pred = model(ids, r)[:, -1].argmax(-1)
        out.append(float((pred == targets[:, -1]).float().mean()))
    return LoopAccuracy(np.array(loops), np.array(out))


@torch.no_grad()
def accuracy_by_hops(model, task: Task, loops=EVAL_LOOPS, n: int = 512, seed: int = 10_000) -> np.ndarray:
    """Accuracy of every supervised position (hop) after each number of loops, on fresh samples.

    Parameters
    ----------
    model : torch.nn.Module
        A looped or feedforward model; put in eval mode.
    task : Task
        Pointer chasing supervises every hop; the other tasks have one column (the answer).
    loops : sequence of int
        Loop counts, each 1..1024.
    n : int
        Samples, 1..100000.
    seed : int
        Seeds the samples.

    Returns
    -------
    numpy.ndarray
        [len(loops), hops]: the fraction right at hop k's position after each loop count.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, accuracy_by_hops, make_task
    >>> from core.looped_lm.training import build
    >>> task = make_task("pointer_chasing", length=3, nodes=5)
    >>> model = build(LoopedConfig(task="pointer_chasing", d_model=16, heads=2, block=1), task)
    >>> accuracy_by_hops(model, task, loops=(1, 2, 8), n=16).shape
    (3, 3)
    """
    loops = _check_eval(loops, n)
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
        1..100000; default (None): ``config.steps``.
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

    Raises
    ------
    ValueError
        For ``steps`` out of range (checked before anything is built).

    Notes
    -----
    AdamW (weight decay 0.01) with a one-cycle schedule peaking at ``config.lr``, gradient norm clipped
    at 1; each step draws its loops with :func:`sample_loops` and backpropagates through the last
    ``grad_loops`` of them (truncated backpropagation through the loop).

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``); Geiping et al. (Huginn), 2025.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, train
    >>> result = train(LoopedConfig(), seed=0)                # doctest: +SKIP
    >>> result.accuracy[32], result.loss.shape                # doctest: +SKIP
    (1.0, (800,))
    >>> train(LoopedConfig(), steps=-5)
    Traceback (most recent call last):
    ...
    ValueError: steps: -5 is out of range; allowed integers in [1, 100000]
    """
    if steps is not None:
        check_range("steps", steps, low=1, high=100_000, integer=True)
    task = task or task_of(config)
    steps = config.steps if steps is None else int(steps)
    with torch_seeded(seed):
        model = build(config, task)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=config.lr, total_steps=steps, pct_start=0.1)
    rng = make_rng(seed)
    losses, stopped = [], False
    for step in range(1, steps + 1):
        model.train()
        ids, targets = task.sample(config.batch_size, int(rng.integers(2**31)))
        draw = sample_loops(config.mean_recurrence, config.backprop_depth, rng)
        loops = draw.loops
        logits = model(ids, loops, draw.grad_loops)
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
    result = TrainResult(model, config, np.arange(1, len(losses) + 1), np.array(losses), stopped=stopped)
    if not stopped:
        result.accuracy = accuracy_by_loops(model, task)
    return result
