"""Shipped rate experiments for the page's first view, and the command that regenerates them.

The page opens on these results (every problem and ski-rental tie-break, every error law, seed 0,
the default :class:`RateConfig`, which is the bench's scale) so that its first view needs no
computation. ``bench/robust_decisions.py`` runs the same cases through the same
:func:`rate_bundle` with the same seed and reports whether its numbers equal the shipped ones;
tests recompute cells of the shipped file and compare. Regenerate (about five minutes on 2 cores):

    python -m core.robust_decisions.ship
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.common.results import result_to_dict
from core.robust_decisions.contextual import ERROR_LAWS
from core.robust_decisions.rates import RateConfig, RateResult, Slope, rate_experiment

ASSET = asset_dir("robust_decisions") / "rates_seed0.json"
SEED = 0
# (problem, tie-break): ski rental under both of its optimal tie-breaks, the others' optimum is unique.
CASES = (("posted_pricing", "earliest_buy"), ("ski_rental", "earliest_buy"), ("ski_rental", "never_buy"),
         ("house_flipping", "earliest_buy"))


def case_key(problem: str, tie_break: str, law: str) -> str:
    """``"posted_pricing/gaussian"``; ski rental names its tie-break: ``"ski_rental:never_buy/gaussian"``."""
    return f"{problem}:{tie_break}/{law}" if problem == "ski_rental" else f"{problem}/{law}"


def rate_from_dict(data: dict) -> RateResult:
    nan = lambda a: np.array(a, dtype=float)  # noqa: E731  (JSON null -> NaN)
    return RateResult(
        config=RateConfig.from_dict(data["config"]), noise=nan(data["noise"]), eta=nan(data["eta"]),
        losses={k: nan(v) for k, v in data["losses"].items()},
        slopes={k: Slope(**{f: (np.nan if x is None else x) for f, x in v.items()}) for k, v in data["slopes"].items()},
        floor={k: (np.nan if v is None else v) for k, v in data["floor"].items()}, bound=nan(data["bound"]),
        points_done=int(data["points_done"]),
        loss_bound_B=np.nan if data.get("loss_bound_B") is None else float(data["loss_bound_B"]),
        ric_bound=None if data.get("ric_bound") is None else nan(data["ric_bound"]))


def rate_bundle(seed: int = SEED, progress_for=None) -> dict:
    """Every case x law at the default RateConfig: {case_key: RateResult}.

    ``progress_for(key)`` may return a progress callback for that case (the bench's tqdm bars).
    """
    out = {}
    for problem, tie_break in CASES:
        for law in ERROR_LAWS:
            key = case_key(problem, tie_break, law)
            progress = progress_for(key) if progress_for else None
            out[key] = rate_experiment(RateConfig(problem=problem, tie_break=tie_break, error_law=law), seed=seed,
                                       progress=progress)
    return out


def shipped_bundle() -> dict | None:
    """The shipped JSON as a dict of case key -> result dict, or None if it was not shipped."""
    return json.loads(ASSET.read_text()) if ASSET.is_file() else None


def shipped_rates(problem: str, error_law: str, tie_break: str = "earliest_buy") -> RateResult | None:
    """The shipped result for the default config and seed 0, or None if it was not shipped."""
    bundle = shipped_bundle()
    entry = None if bundle is None else bundle.get(case_key(problem, tie_break, error_law))
    return rate_from_dict(entry) if entry is not None else None


def write_assets(bundle: dict | None = None) -> Path:
    bundle = bundle if bundle is not None else rate_bundle(SEED)
    ASSET.parent.mkdir(parents=True, exist_ok=True)
    ASSET.write_text(json.dumps({k: result_to_dict(v) for k, v in bundle.items()}, separators=(",", ":"),
                                allow_nan=False) + "\n")
    return ASSET


if __name__ == "__main__":
    print(f"wrote {write_assets()}")
