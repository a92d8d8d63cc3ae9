"""Shipped looped models: a "stable" design (concat injection, sandwich norm: Huginn's) and an
"unstable" one (no injection, pre-norm: the state's norm grows every loop and no fixed point forms),
both trained with the default config on the default task, and the "feedforward" model of matching
effective depth (B x mean recurrence distinct layers) for the stage comparison. Regenerate with

    python -m core.looped_lm.pretrained
    python -m core.looped_lm.ship          # then the page's first view, from the new checkpoints
"""

from __future__ import annotations

from pathlib import Path

from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import check_choice
from core.looped_lm.config import ASSETS, DESIGNS, SHIPPED, LoopedConfig  # noqa: F401 (DESIGNS re-exported)
from core.looped_lm.training import accuracy_by_hops, build, task_of, train

SEED = 0
SCALING_LOOPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


def scaling_metadata(model, task) -> dict:
    """Accuracy of every hop after 1..32 loops, stored with the checkpoint for the page's first view."""
    return {"loops": list(SCALING_LOOPS), "accuracy": accuracy_by_hops(model, task, SCALING_LOOPS).round(4).tolist()}


def ship(name: str) -> Path:
    config = LoopedConfig(**SHIPPED[name])
    result = train(config, seed=SEED)
    meta = {"seed": SEED, "accuracy_by_loops": {str(k): v for k, v in result.accuracy.items()},
            "final_loss": float(result.loss[-50:].mean()), "made_by": "python -m core.looped_lm.pretrained",
            "accuracy_by_hops": scaling_metadata(result.model, task_of(config))}
    return save_checkpoint(ASSETS / name, result.model.state_dict(), config, meta)


def load_pretrained(name: str):
    """(model, task) for a shipped model: "stable", "unstable", "feedforward" or "pointer"."""
    check_choice("name", name, tuple(SHIPPED))
    ckpt = load_checkpoint(ASSETS / name, LoopedConfig)
    task = task_of(ckpt.config)
    model = build(ckpt.config, task)
    model.load_state_dict(ckpt.tensors)
    model.eval()
    model.metadata = ckpt.metadata
    return model, task


if __name__ == "__main__":
    import sys

    for design in sys.argv[1:] or SHIPPED:
        print(f"wrote {ship(design)}")
