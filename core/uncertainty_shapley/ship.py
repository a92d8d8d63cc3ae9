"""Shipped files for the page's first view, and the command that regenerates them.

    python -m core.uncertainty_shapley.ship        # about half a minute

writes ``assets/uncertainty_shapley/``:

- ``forecaster_full/`` and ``forecaster_diagonal/``: the torch forecasters (safetensors + JSON),
  trained with seed 0 on the macrodata training quarters;
- ``views.json``: every demo model's attribution with its default estimator (closed form where it
  exists, else moment matching), default config, seed 0; each model's held-out NLL; and the
  estimator-error curve on the linear-Gaussian forecaster (one seed, four background rows).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from core.common.results import result_to_dict
from core.uncertainty_shapley.views import ASSETS, MODELS, attribution_view, estimator_error, load_model

if TYPE_CHECKING:
    from core.uncertainty_shapley.games import Attribution

VIEWS = ASSETS / "views.json"
SEED = 0
ERROR_SIZES = (16, 64, 256, 1024)


def shipped_views() -> dict | None:
    """The shipped ``views.json`` (None if it has not been written)."""
    return json.loads(VIEWS.read_text()) if VIEWS.is_file() else None


def write_forecasters() -> dict:
    """Train and save both torch forecasters (seed 0); returns each one's held-out NLL by model key."""
    from core.uncertainty_shapley.forecaster import ForecasterConfig, save_forecaster, train_forecaster

    out = {}
    for head in ("full", "diagonal"):
        trained = train_forecaster(ForecasterConfig(head=head), SEED)
        save_forecaster(ASSETS / f"forecaster_{head}", trained)
        out[f"macro_torch_{head}"] = trained.test_nll
    return out


def write_views(test_nll: dict | None = None) -> dict:
    """Compute and write ``views.json`` (see the module docstring); returns what was written."""
    from core.uncertainty_shapley.data import gaussian_nll, macro_forecast

    data = macro_forecast()
    views = {"seed": SEED, "attributions": {}, "test_nll": {}}
    for key in MODELS:
        views["attributions"][key] = result_to_dict(attribution_view(key, seed=SEED))
        if key.startswith("macro"):
            views["test_nll"][key] = gaussian_nll(load_model(key), data.X_test, data.Y_test)
    views["estimator_error"] = result_to_dict(estimator_error("macro_linear", ERROR_SIZES, seed=SEED))
    VIEWS.write_text(json.dumps(views, allow_nan=False) + "\n")
    return views


def attribution_from_dict(data: dict) -> Attribution:
    """An :class:`~core.uncertainty_shapley.games.Attribution` back from its JSON (arrays as numpy)."""
    from dataclasses import fields

    import numpy as np

    from core.uncertainty_shapley.games import Attribution

    out = {}
    for f in fields(Attribution):
        value = data[f.name]
        out[f.name] = np.asarray(value, dtype=float) if isinstance(value, list) and f.name not in (
            "feature_names", "output_names") else value
    return Attribution(**out)


def shipped_attribution(key: str) -> Attribution | None:
    """The shipped attribution of model ``key`` (default estimator, seed 0), or None."""
    views = shipped_views()
    if views is None or key not in views["attributions"]:
        return None
    return attribution_from_dict(views["attributions"][key])


if __name__ == "__main__":
    ASSETS.mkdir(parents=True, exist_ok=True)
    print("forecasters (held-out NLL):", write_forecasters())
    write_views()
    print("wrote", VIEWS)
