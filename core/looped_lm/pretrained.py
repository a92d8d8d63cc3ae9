"""Shipped looped models: a "stable" design (concat injection, sandwich norm: Huginn's) and an
"unstable" one (additive injection, pre-norm: it learns the task, accuracy 1.00, yet its layers never
reach fixed points), both trained with the default config on the default task; the stable design
trained on shuffled targets ("shuffled", the claim tests' control: the same architecture and
optimiser, no task); the "feedforward" model of matching effective depth (B x mean recurrence distinct
layers) for the stage comparison; and the pointer-chasing pair ("pointer", a one-layer block, and
"pointer_feedforward", 8 distinct layers) for the stages where loops are needed. Regenerate with

    python -m core.looped_lm.pretrained
    python -m core.looped_lm.ship          # then the page's first view, from the new checkpoints
"""

from __future__ import annotations

from pathlib import Path

from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import check_choice
from core.looped_lm.config import ASSETS, DESIGNS, SHIPPED, LoopedConfig  # noqa: F401 (DESIGNS re-exported)
from core.looped_lm.training import accuracy_by_hops, accuracy_by_loops, build, task_of, train

SEED = 0
SCALING_LOOPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


def scaling_metadata(model, task) -> dict:
    """Accuracy of every hop after 1..32 loops, stored with the checkpoint for the page's first view."""
    return {"loops": list(SCALING_LOOPS), "accuracy": accuracy_by_hops(model, task, SCALING_LOOPS).round(4).tolist()}


def ship(name: str) -> Path:
    config = LoopedConfig(**SHIPPED[name])
    result = train(config, seed=SEED)
    task = task_of(config.replace(shuffled=False))      # a control is scored on the true targets
    accuracy = accuracy_by_loops(result.model, task) if config.shuffled else result.accuracy
    meta = {"seed": SEED, "accuracy_by_loops": {str(k): v for k, v in accuracy.items()},
            "final_loss": float(result.loss[-50:].mean()), "made_by": "python -m core.looped_lm.pretrained",
            "accuracy_by_hops": scaling_metadata(result.model, task)}
    return save_checkpoint(ASSETS / name, result.model.state_dict(), config, meta)


def load_pretrained(name: str):
    """(model, task) for a shipped model (a name of ``SHIPPED``); a control's task has its true targets."""
    check_choice("name", name, tuple(SHIPPED))
    ckpt = load_checkpoint(ASSETS / name, LoopedConfig)
    task = task_of(ckpt.config.replace(shuffled=False))
    model = build(ckpt.config, task)
    model.load_state_dict(ckpt.tensors)
    model.eval()
    model.metadata, model.config = ckpt.metadata, ckpt.config
    return model, task


if __name__ == "__main__":
    import sys

    for design in sys.argv[1:] or SHIPPED:
        print(f"wrote {ship(design)}")
