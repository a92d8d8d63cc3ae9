"""Transfer: learn a new task from the pre-learned scaffold against from scratch.

The new task is successor recall (a probe for rank r asks for the item at rank r + 1) on the same
input layout. "Scaffold" fine-tunes every weight of the network meta-trained on rank recall; "scratch"
trains the same architecture from its initialisation; both see the same episodes in the same order
with the same optimiser. Speed is measured two ways: the steps until the training accuracy first
reaches ``threshold`` (its running mean over the last three reports), and the mean accuracy over
the run (area under the learning curve). Ours: the new task, the threshold and the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.config import Config, param
from core.common.seeding import derive_seed
from core.hebbian_memory.training import TrainConfig, TrainedModel, load_model, meta_train


@dataclass(frozen=True)
class TransferConfig(Config):
    """The transfer experiment's budget.

    Examples
    --------
    >>> TransferConfig().steps
    100
    """

    steps: int = param(100, low=10, high=20_000, integer=True, doc="training steps on the new task, per arm")
    batch: int = param(32, low=1, high=1024, integer=True, doc="episodes per step")
    lr: float = param(3e-3, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    threshold: float = param(0.5, low=0.0, high=1.0, low_open=True, doc="accuracy that counts as learned")
    report_every: int = param(10, low=1, high=1000, integer=True, doc="steps between recorded accuracies")


@dataclass
class Transfer:
    """Learning curves on the new task from the scaffold and from scratch.

    Attributes
    ----------
    steps : ndarray
        Steps at which accuracy was recorded.
    scaffold : ndarray
        Training accuracy from the pre-learned scaffold.
    scratch : ndarray
        Training accuracy from scratch.
    steps_to_threshold_scaffold, steps_to_threshold_scratch : float
        First step whose smoothed accuracy reaches the threshold (NaN if never).
    auc_scaffold, auc_scratch : float
        Mean accuracy over the recorded steps.
    threshold : float
        The accuracy that counts as learned.
    chance : float
        1 / sequence length.
    """

    steps: np.ndarray
    scaffold: np.ndarray
    scratch: np.ndarray
    steps_to_threshold_scaffold: float
    steps_to_threshold_scratch: float
    auc_scaffold: float
    auc_scratch: float
    threshold: float
    chance: float


def steps_to_threshold(steps: np.ndarray, accuracy: np.ndarray, threshold: float) -> float:
    """The first recorded step whose running mean of the last three accuracies reaches ``threshold``.

    Parameters
    ----------
    steps : ndarray
        Recorded steps.
    accuracy : ndarray
        Accuracy at those steps.
    threshold : float
        The level.

    Returns
    -------
    float
        The step, or NaN when the curve never gets there.

    Examples
    --------
    >>> steps_to_threshold(np.array([10, 20, 30, 40]), np.array([0.1, 0.6, 0.7, 0.8]), 0.6)
    40.0
    """
    acc = np.asarray(accuracy, dtype=float)
    smooth = np.array([acc[max(0, i - 2):i + 1].mean() for i in range(len(acc))])
    hit = np.flatnonzero(smooth >= threshold)
    return float(steps[hit[0]]) if hit.size else float("nan")


def transfer_run(config: TransferConfig, seed: int, progress=None, scaffold: TrainedModel | str | Path | None = None
                 ) -> Transfer:
    """Train successor recall from the scaffold and from scratch, with the same episodes.

    Parameters
    ----------
    config : TransferConfig
        Budget, optimiser, threshold.
    seed : int
        Seed of the episodes and of the scratch initialisation.
    progress : callable or None
        ``progress(step, 2 * steps, metrics)``: the scaffold arm first, then scratch; False stops.
    scaffold : TrainedModel, path or None
        The pre-learned network (default: the shipped plastic checkpoint).

    Returns
    -------
    Transfer
        Both learning curves and the speed figures (NaN where an arm was stopped before it ran).

    Examples
    --------
    >>> from core.hebbian_memory.training import TaskConfig, ModelConfig
    >>> base = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=1, batch=2), seed=0)
    >>> t = transfer_run(TransferConfig(steps=10, batch=2, report_every=5), seed=0, scaffold=base)
    >>> t.scaffold.shape, t.scratch.shape
    ((2,), (2,))
    """
    from core.common.progress import report

    if scaffold is None or isinstance(scaffold, (str, Path)):
        from core.hebbian_memory.ship import MODELS

        scaffold = load_model(scaffold if scaffold is not None else MODELS / "plastic")
    task = scaffold.task.replace(task="successor")
    train = TrainConfig(steps=config.steps, batch=config.batch, lr=config.lr, eval_every=config.report_every)
    episodes_seed = derive_seed(seed, "transfer")
    stopped = False
    curves = {}
    for arm, offset in (("scaffold", 0), ("scratch", config.steps)):
        if stopped:
            curves[arm] = np.full(config.steps // config.report_every, np.nan)
            continue

        def relay(step, total, metrics, offset=offset, arm=arm):
            return report(progress, offset + step, 2 * config.steps, {f"{arm} accuracy": metrics["accuracy"]})

        run = meta_train(task, scaffold.model, train, episodes_seed, relay,
                         init=scaffold if arm == "scaffold" else None)
        n = config.steps // config.report_every
        acc = np.full(n, np.nan)
        acc[:min(n, len(run.accuracy))] = run.accuracy[:n]
        curves[arm] = acc
        stopped = run.done < config.steps
    steps = np.arange(1, config.steps // config.report_every + 1) * config.report_every
    return Transfer(steps, curves["scaffold"], curves["scratch"],
                    steps_to_threshold(steps, curves["scaffold"], config.threshold),
                    steps_to_threshold(steps, curves["scratch"], config.threshold),
                    float(np.nanmean(curves["scaffold"])) if np.isfinite(curves["scaffold"]).any() else float("nan"),
                    float(np.nanmean(curves["scratch"])) if np.isfinite(curves["scratch"]).any() else float("nan"),
                    config.threshold, 1.0 / task.length)
