"""The shipped 6-qubit run behind the page's first view, and the command that regenerates it.

The page opens on this run (the default :class:`VQEConfig`, seed 0: all five optimisers on the
6-qubit open Heisenberg chain) so that its first view needs no circuit simulation; a test reruns
its first steps and compares. Regenerate (about a minute):

    python -m core.quantum_ng.assets
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.common.results import result_to_dict
from core.quantum_ng.vqe import Trace, VQEConfig, VQEResult, run_vqe

ASSET = Path(__file__).resolve().parents[2] / "assets" / "quantum_ng" / "run_6q_seed0.json"
SHIPPED = VQEConfig()
SEED = 0


def result_from_dict(data: dict) -> VQEResult:
    arr = lambda v, dtype=float: np.array([np.nan if x is None else x for x in v], dtype=dtype)  # noqa: E731
    traces = {}
    for key, t in data["traces"].items():
        traces[key] = Trace(optimizer=t["optimizer"], shots=arr(t["shots"], np.int64),
                            executions=arr(t["executions"], np.int64), energy=arr(t["energy"]), error=arr(t["error"]),
                            active=arr(t["active"]), params=arr(t["params"]), shots_per_step=int(t["shots_per_step"]),
                            steps_planned=int(t["steps_planned"]), seconds=float(t["seconds"]))
    return VQEResult(config=VQEConfig.from_dict(data["config"]), seed=int(data["seed"]),
                     ground_energy=float(data["ground_energy"]), initial_energy=float(data["initial_energy"]),
                     initial_params=arr(data["initial_params"]), traces=traces, seconds=float(data["seconds"]))


def shipped_run() -> VQEResult | None:
    """The shipped run, or None if the file is missing."""
    if not ASSET.is_file():
        return None
    return result_from_dict(json.loads(ASSET.read_text()))


def write_assets() -> Path:
    from core.common.progress import TqdmProgress

    with TqdmProgress(desc="6-qubit run") as bar:
        result = run_vqe(SHIPPED, seed=SEED, progress=bar)
    ASSET.parent.mkdir(parents=True, exist_ok=True)
    ASSET.write_text(json.dumps(result_to_dict(result), separators=(",", ":"), allow_nan=False) + "\n")
    return ASSET


if __name__ == "__main__":
    print(f"wrote {write_assets()}")
