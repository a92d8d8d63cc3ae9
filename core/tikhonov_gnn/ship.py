"""The shipped models: one trained Tikhonov classifier per dataset, with GCN and GIN accuracies.

Each lands in ``assets/tikhonov_gnn/<dataset>/`` as safetensors + JSON (a few tens of kB), with the
page's first view beside it as ``view.npz`` (:mod:`.view`: q for every graph, p, R of the example
graph, every graph's layout, the accuracies), so the page opens without torch (or SciPy's layout solve). The three models train on the same
seeded hold-out split; the metadata records every accuracy and the split. Regenerate with

    python -m core.tikhonov_gnn.ship            # train all three models, then write the views
    python -m core.tikhonov_gnn.ship motifs     # the same for the datasets named (any of DATASETS)
    python -m core.tikhonov_gnn.ship --views    # only rewrite view.npz from the shipped checkpoints
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from core.tikhonov_gnn.data import DATASETS, load_dataset
from core.tikhonov_gnn.training import (
    MODELS,
    load_model,
    recommended_config,
    save_model,
    train,
)
from core.tikhonov_gnn.view import ASSETS, SEED, ShippedView, layout, save_view

EXAMPLE = 0        # the graph the page opens on


def ship(name: str, progress=None) -> Path:
    """Train the three models on ``name``, save the Tikhonov checkpoint and its view; the checkpoint's folder."""
    dataset = load_dataset(name, seed=SEED)
    results = {m: train(recommended_config(name, model=m), dataset, seed=SEED) for m in MODELS}
    meta = {"seed": SEED, "accuracy": {m: r.final_test_accuracy for m, r in results.items()},
            "test_index": results["tikhonov"].test_index.tolist(),
            "made_by": "python -m core.tikhonov_gnn.ship"}
    directory = save_model(results["tikhonov"], ASSETS / name, meta)
    write_view(name)
    return directory


def shipped(name: str):
    """The shipped model for ``name`` (a :class:`~core.tikhonov_gnn.training.LoadedModel`), or None when not shipped."""
    if not (ASSETS / name / "weights.safetensors").is_file():
        return None
    return load_model(ASSETS / name, load_dataset(name, seed=SEED))


def make_view(name: str) -> ShippedView:
    """The first view of the shipped model for ``name``: q and layout of every graph, p, R of the example graph."""
    import torch

    from core.tikhonov_gnn.explain import explain

    dataset = load_dataset(name, seed=SEED)
    loaded = shipped(name)
    model, meta = loaded.model, loaded.metadata
    explanations = [explain(model, g) for g in dataset.graphs]
    q = np.concatenate([e.q for e in explanations])
    offsets = np.concatenate([[0], np.cumsum([g.n_nodes for g in dataset.graphs])]).astype(np.int64)
    with torch.no_grad():
        theta = model.layers[0].theta.numpy().astype(float)
    first = explanations[EXAMPLE]
    positions = np.concatenate([layout(g.adjacency, SEED) for g in dataset.graphs])
    return ShippedView(name, theta, first.lam, first.p, q, offsets, EXAMPLE, first.operator,
                       {m: meta["accuracy"][m] for m in MODELS},
                       positions)


def write_view(name: str) -> Path:
    """Write ``assets/tikhonov_gnn/<name>/view.npz`` from the shipped checkpoint."""
    return save_view(make_view(name), ASSETS / name)


def main(argv: list[str]) -> None:
    """Ship every dataset, or those named in ``argv``; ``--views`` only rewrites their views."""
    names = [a for a in argv if a != "--views"] or list(DATASETS)
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        raise SystemExit(f"dataset: {unknown[0]!r} is not an option; allowed {', '.join(DATASETS)}")
    for dataset_name in names:
        print(f"wrote {write_view(dataset_name) if '--views' in argv else ship(dataset_name)}")


if __name__ == "__main__":
    main(sys.argv[1:])
