"""Shipped looped models, as a library: what each is, how it is trained, and :func:`load_pretrained`.

A "stable" design (concat injection, sandwich norm: Huginn's) and an "unstable" one (additive
injection, pre-norm: it learns the task, accuracy 1.00, yet its layers never reach fixed points),
both trained with the default config on the default task; the stable design trained on shuffled
targets ("shuffled", the claim tests' control: the same architecture and optimiser, no task); the
"feedforward" model of matching effective depth (B x mean recurrence distinct layers) for the stage
comparison; the pointer-chasing pair ("pointer", a one-layer block, and "pointer_feedforward",
8 distinct layers) for the stages where loops are needed; "pointer_b2", a block of two layers looped 4 times
on average (the same depth), and its control "pointer_b2_shuffled"; and "pointer_shuffled", the pointer block
trained on shuffled targets (the pointer claims' control: same design, optimiser, steps and seed).
Regenerate with

    python -m core.looped_lm.ship checkpoints [names]   # retrain the checkpoints (about 15 minutes)
    python -m core.looped_lm.ship                       # then the page's first view, from the new checkpoints
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import check_choice
from core.looped_lm.config import ASSETS, DESIGNS, SHIPPED, LoopedConfig  # noqa: F401 (DESIGNS re-exported)
from core.looped_lm.tasks import Task
from core.looped_lm.training import accuracy_by_hops, accuracy_by_loops, build, task_of, train

SEED = 0
SCALING_LOOPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
MADE_BY = "python -m core.looped_lm.ship checkpoints"


def scaling_metadata(model, task) -> dict:
    """Accuracy of every hop after 1..32 loops, stored with the checkpoint for the page's first view."""
    return {"loops": list(SCALING_LOOPS), "accuracy": accuracy_by_hops(model, task, SCALING_LOOPS).round(4).tolist()}


def ship(name: str) -> Path:
    """Train the shipped model ``name`` (seed ``SEED``) and write ``assets/looped_lm/<name>/``."""
    check_choice("name", name, tuple(SHIPPED))
    config = LoopedConfig(**SHIPPED[name])
    result = train(config, seed=SEED)
    task = task_of(config.replace(shuffled=False))      # a control is scored on the true targets
    accuracy = accuracy_by_loops(result.model, task) if config.shuffled else result.accuracy
    meta = {"seed": SEED, "accuracy_by_loops": {str(k): v for k, v in accuracy.items()},
            "final_loss": float(result.loss[-50:].mean()), "made_by": MADE_BY,
            "accuracy_by_hops": scaling_metadata(result.model, task)}
    return save_checkpoint(ASSETS / name, result.model.state_dict(), config, meta)


@dataclass
class ShippedModel:
    """A shipped model and the task it is scored on.

    Attributes
    ----------
    model : torch.nn.Module
        The :class:`~core.looped_lm.model.LoopedLM` (or FeedforwardLM) in eval mode, with its
        ``config`` (LoopedConfig) and ``metadata`` (accuracies stored at training) as attributes.
    task : Task
        Its task with the true targets (for the shuffled control too).
    """

    model: torch.nn.Module
    task: Task


def load_pretrained(name: str) -> ShippedModel:
    """Load a shipped model from ``assets/looped_lm/<name>/`` (safetensors, no unpickling).

    Parameters
    ----------
    name : str
        One of "stable", "unstable", "shuffled", "feedforward", "pointer", "pointer_feedforward",
        "pointer_shuffled", "pointer_b2", "pointer_b2_shuffled".

    Returns
    -------
    ShippedModel
        The model (eval mode, ``model.config`` and ``model.metadata`` attached) and its task; a
        control's task has its true targets.

    Raises
    ------
    ValueError
        For a name that is not shipped.

    Examples
    --------
    >>> from core.looped_lm import load_pretrained
    >>> shipped = load_pretrained("stable")
    >>> shipped.task.name, shipped.model.block_size, shipped.model.training
    ('modular_chain', 2, False)
    >>> shipped.model.metadata["accuracy_by_loops"]["32"]
    1.0
    """
    check_choice("name", name, tuple(SHIPPED))
    ckpt = load_checkpoint(ASSETS / name, LoopedConfig)
    task = task_of(ckpt.config.replace(shuffled=False))
    model = build(ckpt.config, task)
    model.load_state_dict(ckpt.tensors)
    model.eval()
    model.metadata, model.config = ckpt.metadata, ckpt.config
    return ShippedModel(model, task)
