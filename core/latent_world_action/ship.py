"""Shipped checkpoints and the page's first view, and the commands that regenerate them.

    python -m core.latent_world_action.ship train prior:0  # one checkpoint (a few minutes on 2 busy cores)
    python -m core.latent_world_action.ship train           # every checkpoint, one after the other
    python -m core.latent_world_action.ship view            # evaluate them and write view.npz + view.json

writes ``assets/latent_world_action/``:

- ``<variant>_seed<s>/`` (weights.safetensors + config.json): the full models (:data:`FULL`), the
  prior and no-alignment variants for training seeds 0, 1, 2 (the claim test's models), the direct
  policy and the pixel-rollout model for seed 0 (float16 weights: eight models, about 2 MB);
- ``view.npz`` + ``view.json``: the first view (:func:`~core.latent_world_action.views.policy_view`) with
  the variants' table: every checkpoint evaluated on evaluation seeds 0..4 (100 episodes each).
"""

from __future__ import annotations

import sys

import numpy as np

from core.common.results import result_to_dict
from core.latent_world_action.train import TrainConfig, load_policy, save_policy, train_policy
from core.latent_world_action.views import ASSETS, checkpoint_name, policy_view, save_view

FULL = TrainConfig(steps=1200, n_episodes=300, eval_every=200)
MODELS = (("prior", 0), ("no_align", 0), ("direct", 0), ("pixel", 0), ("prior", 1), ("no_align", 1),
          ("prior", 2), ("no_align", 2))
EVAL_SEEDS = (0, 1, 2, 3, 4)


def write_checkpoint(variant: str, seed: int) -> None:
    from core.common.progress import TqdmProgress

    trained = train_policy(FULL.replace(variant=variant), seed=seed, progress=TqdmProgress(desc=f"{variant} {seed}"))
    save_policy(ASSETS / checkpoint_name(variant, seed), trained)
    print(variant, seed, f"{trained.seconds:.0f} s", "success", trained.success.tolist())


def evaluate_all() -> dict:
    """Every shipped checkpoint evaluated; per variant the mean over training seeds and the per-seed numbers."""
    from core.latent_world_action.evaluate import evaluate_policy

    table: dict = {}
    for path in sorted(ASSETS.glob("*_seed*")):
        e = evaluate_policy(load_policy(path), EVAL_SEEDS, 100, 60, seed=0)
        row = table.setdefault(e.variant, {"seeds": [], "success": [], "probe_prior": [], "probe_posterior": [],
                                           "probe_current": [], "probe_displacement": [], "alignment_gap": [], "effective_rank": [],
                                           "min_std": [], "ms_per_action": []})
        row["seeds"].append(e.seed)
        row["success"].append(e.success.tolist())
        for name in ("probe_prior", "probe_posterior", "probe_current", "probe_displacement", "alignment_gap",
                     "ms_per_action"):
            value = getattr(e, name)
            row[name].append(None if not np.isfinite(value) else value)
        row["effective_rank"].append(e.collapse.effective_rank if e.collapse else None)
        row["min_std"].append(e.collapse.min_std if e.collapse else None)
        print(path.name, result_to_dict(e.success), e.probe_prior, e.ms_per_action)
    return table


def main(argv: list[str]) -> None:
    ASSETS.mkdir(parents=True, exist_ok=True)
    if argv[:1] == ["train"]:
        picked = [(name.split(":")[0], int(name.split(":")[1])) for name in argv[1:]]
        models = picked or MODELS
        for variant, seed in models:
            write_checkpoint(variant, seed)
    if not argv or argv[:1] == ["view"]:
        save_view(policy_view(evaluate_all(), seed=0))
        print("wrote", ASSETS / "view.npz")


if __name__ == "__main__":
    main(sys.argv[1:])
