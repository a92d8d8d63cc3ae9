"""The mcr2 page's first view, shipped: the default ascent (seed 0), the saddle probe and the digits runs.

``assets/mcr2/ascent_seed0.npz`` holds the default :class:`AscentConfig` run's arrays and
``assets/mcr2/view_seed0.json`` its config, tail fit and ranks, the saddle probe, and the digits
MLP trained with MCR² and with cross-entropy (default :class:`DigitsConfig`, seed 0). The page
reads them with NumPy and JSON only (no torch, no scikit-learn). Tests rerun the first steps of
the ascent and the probe and compare. Regenerate (under a minute on 2 free cores):

    python -m core.mcr2.ship
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.common.results import result_to_dict
from core.mcr2.ascent import AscentConfig, AscentResult, TailFit, ascend
from core.mcr2.digits import OBJECTIVES, DigitsConfig, train_digits
from core.mcr2.views import saddle_probe

DIR = asset_dir("mcr2")
ARRAYS, VIEW = DIR / "ascent_seed0.npz", DIR / "view_seed0.json"
SEED = 0
ARRAY_FIELDS = ("objective", "grad_norm", "distance", "gap", "pl_ratio", "bound_ratio", "contraction", "spectra",
                "overlap", "rank_changes", "tail", "final_features", "labels")


@dataclass
class ShippedView:
    """What the page draws without computing: arrays of the default ascent, and the rest as dicts."""

    config: AscentConfig
    arrays: dict
    fit: TailFit
    ranks: np.ndarray
    predicted_s: np.ndarray
    saddle_s: np.ndarray
    f_star: float
    saddle: dict
    digits: dict


def write_assets(seed: int = SEED) -> tuple[Path, Path]:
    run = ascend(AscentConfig(), seed=seed)
    probe = saddle_probe(AscentConfig(), seed=seed)
    digits = {obj: result_to_dict(train_digits(DigitsConfig(objective=obj), seed=seed)) for obj in OBJECTIVES}
    DIR.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(ARRAYS, **{name: getattr(run, name) for name in ARRAY_FIELDS})
    view = {"seed": seed, "config": run.config.to_dict(), "fit": result_to_dict(run.fit), "ranks": run.ranks.tolist(),
            "predicted_s": run.predicted_s.tolist(), "saddle_s": run.saddle_s.tolist(), "f_star": run.f_star,
            "steps_done": run.steps_done, "saddle": result_to_dict(probe), "digits": digits}
    VIEW.write_text(json.dumps(view, indent=1, allow_nan=False) + "\n")
    return ARRAYS, VIEW


def shipped_view() -> ShippedView | None:
    """The shipped first view, or None if it was not shipped."""
    if not (ARRAYS.is_file() and VIEW.is_file()):
        return None
    data = json.loads(VIEW.read_text())
    with np.load(ARRAYS) as npz:
        arrays = {k: npz[k] for k in npz.files}
    fit = TailFit(**{k: (np.array(v, dtype=float) if isinstance(v, list) else (np.nan if v is None else v))
                     for k, v in data["fit"].items()})
    return ShippedView(AscentConfig.from_dict(data["config"]), arrays, fit, np.array(data["ranks"]),
                       np.array(data["predicted_s"]), np.array(data["saddle_s"]), float(data["f_star"]),
                       data["saddle"], data["digits"])


def shipped_run(view: ShippedView | None = None) -> AscentResult | None:
    """The shipped default ascent as an :class:`AscentResult` (None if it was not shipped)."""
    view = view or shipped_view()
    if view is None:
        return None
    a = view.arrays
    return AscentResult(view.config, SEED, *(a[k] for k in ("objective", "grad_norm", "distance", "gap", "pl_ratio",
                                                             "bound_ratio", "contraction", "spectra", "overlap",
                                                             "rank_changes")),
                        view.ranks, view.predicted_s, view.saddle_s, view.f_star, int(a["objective"].size - 1),
                        a["final_features"], a["labels"], a["tail"].astype(bool), view.fit)


if __name__ == "__main__":
    print("wrote", *write_assets())
