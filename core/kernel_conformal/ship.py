"""Shipped arrays for the page's first view, and the command that regenerates them.

The first view (banana residuals, d = 2, alpha = 0.1, the default CompareConfig, seed 0) opens on
``assets/kernel_conformal/view_seed0.npz`` (the 2-D score maps, and MAPIE's learned region at the
first test input) and ``compare_seed0.json`` (each score's coverage and volume, MAPIE's included),
so it needs no fitting and imports no torch. Regenerate (MAPIE's network trains twice, a few
minutes on busy cores):

    python -m core.kernel_conformal.ship
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.common.results import result_to_dict
from core.kernel_conformal.experiment import CompareConfig, compare_scores
from core.kernel_conformal.views import RegionView, region_view

ASSETS = asset_dir("kernel_conformal")
VIEW, COMPARE = ASSETS / "view_seed0.npz", ASSETS / "compare_seed0.json"
SEED = 0


def shipped_view() -> RegionView | None:
    if not VIEW.is_file():
        return None
    with np.load(VIEW) as z:
        return RegionView(**{f.name: (float(z[f.name]) if z[f.name].ndim == 0 else z[f.name])
                             for f in fields(RegionView)})


def shipped_comparison() -> dict | None:
    return json.loads(COMPARE.read_text()) if COMPARE.is_file() else None


def write_assets() -> tuple[Path, Path]:
    ASSETS.mkdir(parents=True, exist_ok=True)
    view = region_view(CompareConfig(mapie=True), SEED)
    np.savez_compressed(VIEW, **{f.name: np.asarray(getattr(view, f.name)) for f in fields(RegionView)})
    c = compare_scores(CompareConfig(mapie=True), SEED)
    COMPARE.write_text(json.dumps(result_to_dict(c), allow_nan=False) + "\n")
    return VIEW, COMPARE


if __name__ == "__main__":
    print("wrote", *write_assets())
