"""The shipped checkpoints and the page's first view, and the command that regenerates them.

    python -m core.driving_world_model.ship checkpoints   # train every variant (about 10 minutes on 2 busy cores)
    python -m core.driving_world_model.ship               # then the first view's arrays from them

Variants (seed 0, trained on ``TRAIN_EPISODES`` episodes of data seed 0), each a safetensors + JSON
checkpoint in ``assets/driving_world_model/<name>/`` stored in float16:

- ``flat_df`` (diffusion forcing, ``PRETRAIN`` steps), ``flat_dftf`` (that model fine-tuned with teacher
  forcing for ``FINETUNE`` steps), ``flat_tf`` (teacher forcing from scratch, the same total steps);
- ``high_df``/``high_dftf`` and ``low_df``/``low_dftf``: the hierarchy's two levels, the same recipe;
- ``high_shuffled``/``low_shuffled``: the control, DF then TF with actions permuted across windows.

``view.npz`` holds the first view, computed from those checkpoints on test episodes (data seed 1).
"""

from __future__ import annotations

import json
import sys
import time


from core.common.assets import asset_dir
from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.driving_world_model.sim import SimConfig, make_dataset
from core.driving_world_model.training import TrainConfig, level_data, model_config_for, train

ASSETS = asset_dir("driving_world_model")
VIEW = ASSETS / "view.npz"
SEED, TRAIN_SEED, TEST_SEED = 0, 0, 1
TRAIN_EPISODES, TEST_EPISODES = 300, 48
PRETRAIN, FINETUNE = 500, 150
VARIANTS = ("flat_df", "flat_dftf", "flat_tf", "high_df", "high_dftf", "low_df", "low_dftf",
            "high_shuffled", "low_shuffled")


def variant_recipe(name: str) -> list[TrainConfig]:
    """The training stages of a shipped variant, in order."""
    level = name.split("_")[0]
    window = 13 if level == "high" else 12
    shuffle = name.endswith("shuffled")
    df = TrainConfig(level=level, objective="diffusion_forcing", steps=PRETRAIN, window=window, shuffle_actions=shuffle)
    tf = TrainConfig(level=level, objective="teacher_forcing", steps=FINETUNE, window=window, shuffle_actions=shuffle,
                     lr=1e-3)
    if name.endswith("_df"):
        return [df]
    if name.endswith("_tf"):
        return [TrainConfig(level=level, objective="teacher_forcing", steps=PRETRAIN + FINETUNE, window=window)]
    return [df, tf]


def load_variant(name: str):
    """A shipped variant as an eval-mode torch model (float32)."""
    from core.driving_world_model.model import ModelConfig, build_model, load_state

    ck = load_checkpoint(ASSETS / name, ModelConfig)
    model = build_model(ck.config, 0)
    load_state(model, ck.tensors)
    model.eval()
    return model


def ship_checkpoints(names=None) -> list:
    """Train and write the variants ``names`` (default all); DF->TF variants start from the written DF model."""
    import torch

    from core.driving_world_model.model import state_arrays

    torch.set_num_threads(1)
    data = make_dataset(SimConfig(), TRAIN_EPISODES, TRAIN_SEED)
    levels = {lv: level_data(data, lv) for lv in ("flat", "low", "high")}
    written = []
    for name in names or VARIANTS:
        t0 = time.perf_counter()
        stages = variant_recipe(name)
        model, losses = None, []
        if name.endswith("_dftf"):
            model = load_variant(name.replace("_dftf", "_df"))
            stages = stages[1:]
            losses = json.loads((ASSETS / name.replace("_dftf", "_df") / "config.json").read_text())["metadata"]["losses"]
        for stage in stages:
            r = train(levels[stage.level], stage, seed=SEED, model=model)
            model = r.model
            losses += r.losses[::10].round(5).tolist()
        save_checkpoint(ASSETS / name, state_arrays(model), model_config_for(stages[0].level),
                        {"variant": name, "stages": [s.to_dict() for s in variant_recipe(name)], "seed": SEED,
                         "data_seed": TRAIN_SEED, "episodes": TRAIN_EPISODES, "losses": losses,
                         "seconds": round(time.perf_counter() - t0, 1),
                         "command": "python -m core.driving_world_model.ship checkpoints"})
        print(name, f"{time.perf_counter() - t0:.0f}s", losses[-1], flush=True)
        written.append(ASSETS / name)
    return written


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["checkpoints"]:
        ship_checkpoints(args[1:] or None)
    else:
        from core.driving_world_model.views import write_view

        print("wrote", write_view())
