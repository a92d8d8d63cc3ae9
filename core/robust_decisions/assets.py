"""Shipped rate experiments for the page's first view, and the command that regenerates them.

The page opens on these results (every problem, both error laws, seed 0, default RateConfig) so
that its first view needs no computation; tests recompute one of them and compare. Regenerate:

    python -m core.robust_decisions.assets
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.common.results import result_to_dict
from core.robust_decisions.contextual import ERROR_LAWS
from core.robust_decisions.problems import PROBLEMS
from core.robust_decisions.rates import RateConfig, RateResult, Slope, rate_experiment

ASSET = Path(__file__).resolve().parents[2] / "assets" / "robust_decisions" / "rates_seed0.json"
SEED = 0


def rate_from_dict(data: dict) -> RateResult:
    nan = lambda a: np.array(a, dtype=float)  # noqa: E731  (JSON null -> NaN)
    return RateResult(
        config=RateConfig.from_dict(data["config"]), noise=nan(data["noise"]), eta=nan(data["eta"]),
        losses={k: nan(v) for k, v in data["losses"].items()},
        slopes={k: Slope(**{f: (np.nan if x is None else x) for f, x in v.items()}) for k, v in data["slopes"].items()},
        floor={k: (np.nan if v is None else v) for k, v in data["floor"].items()}, bound=nan(data["bound"]),
        points_done=int(data["points_done"]))


def shipped_rates(problem: str, error_law: str) -> RateResult | None:
    """The shipped result for the default config and seed 0, or None if it was not shipped."""
    if not ASSET.is_file():
        return None
    entry = json.loads(ASSET.read_text()).get(f"{problem}/{error_law}")
    return rate_from_dict(entry) if entry is not None else None


def write_assets() -> Path:
    bundle = {f"{p}/{law}": result_to_dict(rate_experiment(RateConfig(problem=p, error_law=law), seed=SEED))
              for p in PROBLEMS for law in ERROR_LAWS}
    ASSET.parent.mkdir(parents=True, exist_ok=True)
    ASSET.write_text(json.dumps(bundle, separators=(",", ":"), allow_nan=False) + "\n")
    return ASSET


if __name__ == "__main__":
    print(f"wrote {write_assets()}")
