"""The shipped models: one trained Tikhonov classifier per dataset, with GCN and GIN accuracies.

Each lands in ``assets/tikhonov_gnn/<dataset>/`` as safetensors + JSON (a few tens of kB). The
three models train on the same seeded hold-out split; the metadata records every accuracy and the
split, so the page can show the comparison without training anything. Regenerate with

    python -m core.tikhonov_gnn.ship
"""

from __future__ import annotations

from pathlib import Path

from core.tikhonov_gnn.data import DATASETS, load_dataset
from core.tikhonov_gnn.training import MODELS, load_model, recommended_config, save_model, train

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "tikhonov_gnn"
SEED = 0


def ship(name: str, progress=None) -> Path:
    dataset = load_dataset(name, seed=SEED)
    results = {m: train(recommended_config(name, model=m), dataset, seed=SEED) for m in MODELS}
    meta = {"seed": SEED, "accuracy": {m: r.final_test_accuracy for m, r in results.items()},
            "test_index": results["tikhonov"].test_index.tolist(),
            "made_by": "python -m core.tikhonov_gnn.ship"}
    return save_model(results["tikhonov"], ASSETS / name, meta)


def shipped(name: str):
    """(model, config, metadata) of the shipped model for ``name``, or None when not shipped."""
    if not (ASSETS / name / "weights.safetensors").is_file():
        return None
    return load_model(ASSETS / name, load_dataset(name, seed=SEED))


if __name__ == "__main__":
    for dataset_name in DATASETS:
        print(f"wrote {ship(dataset_name)}")
