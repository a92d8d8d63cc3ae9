"""The shipped arrays behind the page's first view, and the command that regenerates them.

The page opens on the default :class:`VQEConfig` with seed 0 (all five optimisers on the 6-qubit
open Heisenberg chain, local brickwork ansatz), so that its first view imports no PennyLane and
simulates nothing:

- ``run_6q_seed0.json``: that run (a test reruns its first steps and compares);
- ``metric_6q_seed0.json``: the metric view at its starting point, :func:`~core.quantum_ng.view.metric_view`
  of ``MetricViewConfig.from_vqe(SHIPPED)``, bias/variance/MSE against k included (a test recomputes
  it and compares);
- ``ground_energies.json``: E0 of every chain the page offers (three models, default couplings,
  open, 2 to 16 sites), so a live run starts stepping at once (a test re-solves some).

The error-versus-cost frontier is not shipped here: :func:`bench_frontier` reads it from the
benchmark's results (``bench/results/quantum_ng.json``), and the page says so when there is none.

Regenerate all (a few minutes on two cores), or only some parts:

    python -m core.quantum_ng.ship [run] [metric] [ground]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.common.results import result_to_dict
from core.quantum_ng.hamiltonians import GROUND_ENERGIES, MODELS, Chain, exact_ground_energy
from core.quantum_ng.view import CURVE_KEYS, TRADEOFF_KEYS, MetricView, MetricViewConfig, metric_view
from core.quantum_ng.vqe import MAX_QUBITS, Trace, VQEConfig, VQEResult, run_vqe

ASSET = asset_dir("quantum_ng") / "run_6q_seed0.json"
METRIC_ASSET = ASSET.with_name("metric_6q_seed0.json")
SHIPPED = VQEConfig()
SHIPPED_VIEW = MetricViewConfig.from_vqe(SHIPPED)
SEED = 0
PARTS = ("run", "metric", "ground")


def _array(values, dtype=float) -> np.ndarray:
    return np.array([np.nan if x is None else x for x in values], dtype=dtype)


def result_from_dict(data: dict) -> VQEResult:
    traces = {}
    for key, t in data["traces"].items():
        traces[key] = Trace(optimizer=t["optimizer"], shots=_array(t["shots"], np.int64),
                            executions=_array(t["executions"], np.int64), energy=_array(t["energy"]),
                            error=_array(t["error"]), active=_array(t["active"]), params=_array(t["params"]),
                            shots_per_step=int(t["shots_per_step"]), steps_planned=int(t["steps_planned"]),
                            seconds=float(t["seconds"]))
    return VQEResult(config=VQEConfig.from_dict(data["config"]), seed=int(data["seed"]),
                     ground_energy=float(data["ground_energy"]), initial_energy=float(data["initial_energy"]),
                     initial_params=_array(data["initial_params"]), traces=traces, seconds=float(data["seconds"]),
                     stopped=bool(data.get("stopped", False)))


def view_from_dict(data: dict) -> MetricView:
    """A :class:`MetricView` from its JSON export (``result_to_dict``)."""
    matrix = lambda v: None if v is None else np.array(v, dtype=float)  # noqa: E731
    mask = lambda v: None if v is None else np.array(v, dtype=bool)     # noqa: E731
    curve = {key: np.asarray(data["curve"].get(key, []), dtype=int if key in ("k", "active", "strings") else float)
             for key in CURVE_KEYS}
    return MetricView(config=MetricViewConfig.from_dict(data["config"]), seed=int(data["seed"]),
                      params=_array(data["params"]), retained=matrix(data["retained"]), nonzero=mask(data["nonzero"]), strings=data["strings"], surrogate=matrix(data["surrogate"]),
                      shadow=matrix(data["shadow"]), shadow_skipped=data["shadow_skipped"],
                      exact=matrix(data["exact"]), curve=curve,
                      tradeoff={key: np.asarray(data.get("tradeoff", {}).get(key, []), dtype=int if key == "k" else float)
                                for key in TRADEOFF_KEYS},
                      stopped=bool(data["stopped"]),
                      seconds=float(data["seconds"]))


def shipped_run() -> VQEResult | None:
    """The shipped run, or None if the file is missing."""
    if not ASSET.is_file():
        return None
    return result_from_dict(json.loads(ASSET.read_text()))


def shipped_view() -> MetricView | None:
    """The shipped metric view of the shipped run's starting point, or None if the file is missing."""
    if not METRIC_ASSET.is_file():
        return None
    return view_from_dict(json.loads(METRIC_ASSET.read_text()))


def page_chains() -> list[Chain]:
    """The chains the page offers: every model, default couplings, open, 2 to 16 sites."""
    return [Chain(model=model, n_qubits=n) for model in MODELS for n in range(2, MAX_QUBITS + 1)]


def _write(path: Path, payload) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result_to_dict(payload), separators=(",", ":"), allow_nan=False) + "\n")
    return path


def write_run() -> Path:
    from core.common.progress import TqdmProgress

    with TqdmProgress(desc="6-qubit run") as bar:
        result = run_vqe(SHIPPED, seed=SEED, progress=bar)
    return _write(ASSET, result)


def write_metric_view() -> Path:
    from core.common.progress import TqdmProgress

    with TqdmProgress(desc="metric view") as bar:
        view = metric_view(SHIPPED_VIEW, seed=SEED, progress=bar)
    return _write(METRIC_ASSET, view)


def write_ground_energies() -> Path:
    from tqdm.auto import tqdm

    rows = [{"chain": chain.to_dict(), "ground_energy": exact_ground_energy(chain)}
            for chain in tqdm(page_chains(), desc="ground energies")]
    return _write(GROUND_ENERGIES, {"method": "scipy.sparse.linalg.eigsh(k=1, which='SA', tol=1e-12); dense below 5",
                                    "chains": rows})


def write_assets(parts=PARTS) -> list[Path]:
    """Write the named parts (``run``, ``metric``, ``ground``); returns the files written."""
    writers = {"run": write_run, "metric": write_metric_view, "ground": write_ground_energies}
    unknown = [p for p in parts if p not in writers]
    if unknown:
        raise ValueError(f"parts: {', '.join(unknown)} unknown; allowed {', '.join(PARTS)}")
    return [writers[p]() for p in parts]



def bench_frontier() -> dict | None:
    """The benchmark's cost comparison (``construction`` in bench/results/quantum_ng.json), or None if absent
    (or written by a bench from before every path was timed)."""
    from core.common.claims import results_path

    path = results_path("quantum_ng")
    if not path.is_file():
        return None
    construction = json.loads(path.read_text()).get("construction")
    return construction if isinstance(construction, dict) and "methods" in construction else None


if __name__ == "__main__":
    for path in write_assets(sys.argv[1:] or PARTS):
        print(f"wrote {path}")
