"""Shipped arrays for the page's first view, and the command that regenerates them.

The first view (the default :class:`IRLConfig`: 5 x 5 gridworld, exact demonstrations, eta = 0.3,
dual step 32, 40 iterations, seed 0) opens on ``assets/occupancy_irl/run_seed0.npz``, so it runs no
planner. The file also holds the run's export payloads (the JSON and CSV that the page's download
buttons offer, as ``core.common.results`` writes them), so the first view serialises nothing and
imports no pandas. Regenerate:

    python -m core.occupancy_irl.ship
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from core.common import asset_dir
from core.occupancy_irl.experiment import IRLConfig, IRLRun, run_irl

ASSETS = asset_dir("occupancy_irl")
RUN = ASSETS / "run_seed0.npz"
SEED = 0
SCALARS = ("sampling_error", "eta", "dual_step")
EXPORTS = ("export_json", "export_csv")


@dataclass(frozen=True)
class ShippedExport:
    """The shipped run's download payloads, written at ship time.

    Attributes
    ----------
    json : str
        ``core.common.results.result_to_json(run)``.
    csv : str
        ``core.common.results.result_to_frame(run).to_csv(index=False)``.
    """

    json: str
    csv: str


def shipped_run() -> IRLRun | None:
    """The default run as shipped, or None if the file is missing.

    Returns
    -------
    IRLRun or None
        ``run_irl(IRLConfig(), SEED)`` as written by :func:`write_assets`.
    """
    if not RUN.is_file():
        return None
    with np.load(RUN) as z:
        return IRLRun(**{f.name: (float(z[f.name]) if f.name in SCALARS else int(z[f.name]) if f.name == "done"
                                  else z[f.name]) for f in fields(IRLRun)})


def shipped_exports() -> ShippedExport | None:
    """The shipped run's JSON and CSV export texts, or None if the file is missing or predates them.

    Returns
    -------
    ShippedExport or None
    """
    if not RUN.is_file():
        return None
    with np.load(RUN) as z:
        if not all(name in z.files for name in EXPORTS):
            return None
        return ShippedExport(*(z[name].tobytes().decode("utf-8") for name in EXPORTS))


def export_payloads(run: IRLRun) -> ShippedExport:
    """The JSON and CSV texts of ``run``, exactly as the page's export buttons would build them.

    Parameters
    ----------
    run : IRLRun
        A finished run.

    Returns
    -------
    ShippedExport
    """
    from core.common.results import result_to_frame, result_to_json

    return ShippedExport(result_to_json(run), result_to_frame(run).to_csv(index=False))


def write_assets() -> Path:
    """Run the default configuration and write its arrays and export payloads to :data:`RUN`.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    ASSETS.mkdir(parents=True, exist_ok=True)
    run = run_irl(IRLConfig(), SEED)
    payloads = export_payloads(run)
    np.savez_compressed(RUN, **{f.name: np.asarray(getattr(run, f.name)) for f in fields(IRLRun)},
                        **{name: np.frombuffer(getattr(payloads, name.split("_")[1]).encode("utf-8"), dtype=np.uint8)
                           for name in EXPORTS})
    return RUN


if __name__ == "__main__":
    print("wrote", write_assets())
