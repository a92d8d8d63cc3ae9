"""Shipped arrays for the page's first view, and the command that regenerates them.

The first view (source ``csbm_source``, target ``csbm_weak_features``, default configs, seed 0)
opens on ``assets/graph_clustering/transfer_seed0.npz`` (the arrays of a :class:`TransferRun`) and
``transfer_seed0.json`` (its names and scalars), so it trains nothing. Regenerate:

    python -m core.graph_clustering.ship
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.graph_clustering.experiment import TransferRun, transfer_run

ASSETS = asset_dir("graph_clustering")
VIEW, META = ASSETS / "transfer_seed0.npz", ASSETS / "transfer_seed0.json"
SOURCE, TARGET, SEED = "csbm_source", "csbm_weak_features", 0
SCALARS = ("source", "target", "seed", "methods", "completed")


def shipped_run() -> TransferRun | None:
    """The shipped default run, or None if the assets were not built."""
    if not (VIEW.is_file() and META.is_file()):
        return None
    meta = json.loads(META.read_text())
    with np.load(VIEW) as z:
        arrays = {f.name: z[f.name] for f in fields(TransferRun) if f.name not in SCALARS}
    return TransferRun(**arrays, **{k: meta[k] for k in SCALARS})


def write_assets() -> tuple[Path, Path]:
    ASSETS.mkdir(parents=True, exist_ok=True)
    run = transfer_run(SOURCE, TARGET, seed=SEED)
    np.savez_compressed(VIEW, **{f.name: np.asarray(getattr(run, f.name)) for f in fields(TransferRun)
                                 if f.name not in SCALARS})
    META.write_text(json.dumps({k: getattr(run, k) for k in SCALARS}, indent=1) + "\n")
    return VIEW, META


if __name__ == "__main__":
    print("wrote", *write_assets())
