"""The page's first view as shipped: the default scenario's steering run, read without running it.

The first view (the default :class:`~core.distributional_steering.scenarios.ScenarioConfig`: the 2-D
mixture, mean calibration κ = 4 toward (0.8, 0.3), 1000 particles, seed 0) opens on
``assets/distributional_steering/run_seed0.npz``, so that a visitor's first view does not spend half a
second steering 1000 particles through 200 reverse steps before its first figure. Any other setting,
and the default one when the file is missing, runs live. Regenerate:

    python -m core.distributional_steering.ship view
"""

from __future__ import annotations

import numpy as np

from core.common import asset_dir
from core.distributional_steering.scenarios import ScenarioConfig, run
from core.distributional_steering.steer import SteeringResult

RUN = asset_dir("distributional_steering") / "run_seed0.npz"
SEED = 0
ARRAYS = ("positions", "weights", "ess_times", "ess", "resample_times", "snapshot_times", "tilts", "base_logw")


def is_shipped(config: ScenarioConfig, seed: int) -> bool:
    """Whether ``(config, seed)`` is the shipped run's setting."""
    return config == ScenarioConfig() and int(seed) == SEED


def shipped_or_run(config: ScenarioConfig, seed: int = 0, path=RUN) -> SteeringResult:
    """The run at ``(config, seed)``: read from ``path`` for the shipped setting when the file is there, else run."""
    stored = shipped_run(path) if is_shipped(config, seed) else None
    return stored if stored is not None else run(config, seed)


def write_view(path=RUN) -> dict:
    """Run the default scenario at :data:`SEED` and write it to ``path``; returns a summary for the log."""
    result = run(ScenarioConfig(), SEED)
    snapshots = np.stack([positions for positions, _ in result.snapshots])
    snapshot_weights = np.stack([weights for _, weights in result.snapshots])
    np.savez_compressed(path, **{name: getattr(result, name) for name in ARRAYS}, snapshots=snapshots,
                        snapshot_weights=snapshot_weights, steps_done=result.steps_done,
                        params_keys=np.array(sorted(result.params)),
                        **{f"param_{key}": np.asarray(value) for key, value in result.params.items()})
    return {"path": str(path), "particles": int(len(result.weights)), "snapshots": int(len(snapshots)),
            "final_ess": float(1.0 / (result.weights @ result.weights)), "resamplings": int(len(result.resample_times))}


def shipped_run(path=RUN) -> SteeringResult | None:
    """The default scenario's run as :func:`write_view` wrote it, or None if the file is missing."""
    if not path.is_file():
        return None
    with np.load(path) as z:
        snapshots = list(zip(z["snapshots"], z["snapshot_weights"]))
        params = {str(key): z[f"param_{key}"] for key in z["params_keys"]}
        return SteeringResult(**{name: z[name] for name in ARRAYS}, snapshots=snapshots, params=params,
                              steps_done=int(z["steps_done"]))
