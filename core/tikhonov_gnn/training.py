"""Training, cross-validation and checkpoints for the Tikhonov model and its baselines.

Protocol (ours): Adam, a fixed number of epochs, and the accuracy of the final epoch on the
held-out part, with no model selection on test folds (the optimistic "best epoch" of some GIN
reports is not used). ``cross_validate`` uses stratified folds for graph tasks, plain folds for
node tasks (where whole graphs are held out).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_seed, make_rng, torch_seeded
from core.tikhonov_gnn.data import Dataset
from core.tikhonov_gnn.models import build_model

MODELS = ("tikhonov", "gcn", "gin")


@dataclass(frozen=True)
class TikhonovConfig(Config):
    model: str = choice("tikhonov", MODELS, doc="the Tikhonov classifier, or a GCN / GIN baseline")
    hidden: int = param(32, low=4, high=256, integer=True)
    layers: int = param(1, low=1, high=4, integer=True, doc="Tikhonov layers (one already sees the whole graph)")
    degree: int = param(4, low=1, high=10, integer=True, doc="degree K of the Bernstein polynomial p")
    q_hops: int = param(2, low=0, high=6, integer=True, doc="message-passing hops of the Q-network")
    eps_q: float = param(1e-3, low=1e-6, high=1.0, doc="q = softplus(.) + eps_q")
    solver: str = choice("dense", ("dense", "cg"))
    baseline_layers: int = param(3, low=1, high=8, integer=True)
    epochs: int = param(80, low=1, high=2000, integer=True)
    batch_size: int = param(32, low=1, high=1024, integer=True)
    lr: float = param(0.01, low=0.0, high=1.0, low_open=True)
    weight_decay: float = param(1e-4, low=0.0, high=1.0)
    dropout: float = param(0.0, low=0.0, high=0.9)
    grad_clip: float = param(1.0, low=0.0, high=1e6, doc="max gradient norm per step (0 = no clipping)")
    test_fraction: float = param(0.2, low=0.05, high=0.5, doc="held-out share for train()'s own split")


# Small node-task datasets (40 graphs) need more optimiser steps per epoch than the default batch.
PRESETS = {"sbm_homophilic": {"batch_size": 8, "epochs": 40}, "sbm_heterophilic": {"batch_size": 8, "epochs": 40},
           "motifs": {"epochs": 60, "batch_size": 16}}


def recommended_config(dataset: str, **changes) -> TikhonovConfig:
    """The defaults, with the dataset's preset applied, then ``changes``."""
    return TikhonovConfig(**{**PRESETS.get(dataset, {}), **changes})


@dataclass
class Batch:
    x: torch.Tensor
    adjacency: torch.Tensor
    mask: torch.Tensor
    y: torch.Tensor


def collate(dataset: Dataset, index) -> Batch:
    graphs = [dataset.graphs[i] for i in index]
    n = max(g.n_nodes for g in graphs)
    if n == 0:
        raise ValueError("graph: a graph with no nodes cannot be classified; allowed graphs with >= 1 node")
    b, f = len(graphs), dataset.n_features
    x, adj, mask = torch.zeros(b, n, f), torch.zeros(b, n, n), torch.zeros(b, n, dtype=torch.bool)
    y = torch.full((b, n), -100, dtype=torch.long) if dataset.task == "node" else torch.zeros(b, dtype=torch.long)
    for i, g in enumerate(graphs):
        k = g.n_nodes
        x[i, :k] = torch.as_tensor(g.features, dtype=torch.float32)
        adj[i, :k, :k] = torch.as_tensor(g.adjacency, dtype=torch.float32)
        mask[i, :k] = True
        if dataset.task == "node":
            y[i, :k] = torch.as_tensor(g.label)
        else:
            y[i] = int(g.label)
    return Batch(x, adj, mask, y)


def predict(model, batch: Batch) -> torch.Tensor:
    model.eval()
    with torch.no_grad():
        return model(batch.x, batch.adjacency, batch.mask).argmax(-1)


def accuracy(model, dataset: Dataset, index) -> float:
    if len(index) == 0:
        return float("nan")
    batch = collate(dataset, index)
    pred = predict(model, batch)
    valid = batch.y != -100
    return float((pred[valid] == batch.y[valid]).float().mean())


@dataclass
class TrainResult:
    model: torch.nn.Module
    config: TikhonovConfig
    dataset: str
    train_index: np.ndarray
    test_index: np.ndarray
    epoch: np.ndarray
    loss: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray

    @property
    def final_test_accuracy(self) -> float:
        return float(self.test_accuracy[-1]) if self.test_accuracy.size else float("nan")


def holdout_split(dataset: Dataset, fraction: float, seed: int):
    from sklearn.model_selection import train_test_split

    index = np.arange(len(dataset.graphs))
    stratify = dataset.labels if dataset.task == "graph" else None
    return train_test_split(index, test_size=fraction, random_state=seed, stratify=stratify)


def train(config: TikhonovConfig, dataset: Dataset, seed: int = 0, progress=None, train_index=None,
          test_index=None) -> TrainResult:
    """Train ``config.model`` on ``dataset``; returns the model and per-epoch curves."""
    if not dataset.graphs or any(g.n_nodes == 0 for g in dataset.graphs):
        raise ValueError("dataset: contains an empty graph; allowed graphs with at least one node")
    if train_index is None:
        train_index, test_index = holdout_split(dataset, config.test_fraction, seed)
    train_index, test_index = np.asarray(train_index), np.asarray(test_index if test_index is not None else [])
    with torch_seeded(seed):
        model = build_model(config.model, dataset.n_features, dataset.n_classes, dataset.task, config)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    rng = make_rng(seed)
    curves = {"loss": [], "train": [], "test": []}
    for epoch in range(1, config.epochs + 1):
        model.train()
        order = rng.permutation(train_index)
        total, count = 0.0, 0
        for start in range(0, len(order), config.batch_size):
            batch = collate(dataset, order[start:start + config.batch_size])
            logits = model(batch.x, batch.adjacency, batch.mask)
            loss = F.cross_entropy(logits.reshape(-1, dataset.n_classes), batch.y.reshape(-1), ignore_index=-100)
            optimiser.zero_grad()
            loss.backward()
            if config.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimiser.step()
            total, count = total + float(loss.detach()) * len(batch.y), count + len(batch.y)
        curves["loss"].append(total / count)
        curves["train"].append(accuracy(model, dataset, train_index))
        curves["test"].append(accuracy(model, dataset, test_index))
        metrics = {"loss": curves["loss"][-1], "train accuracy": curves["train"][-1], "test accuracy": curves["test"][-1]}
        if not report(progress, epoch, config.epochs, metrics):
            break
    n = len(curves["loss"])
    return TrainResult(model, config, dataset.name, train_index, test_index, np.arange(1, n + 1),
                       np.array(curves["loss"]), np.array(curves["train"]), np.array(curves["test"]))


def cross_validate(config: TikhonovConfig, dataset: Dataset, folds: int = 10, seed: int = 0, progress=None) -> dict:
    """Accuracy over ``folds`` folds: {"mean", "std", "fold_accuracies"} (std over folds, ddof 0)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    index = np.arange(len(dataset.graphs))
    if dataset.task == "graph":
        splits = StratifiedKFold(folds, shuffle=True, random_state=seed).split(index, dataset.labels)
    else:
        splits = KFold(folds, shuffle=True, random_state=seed).split(index)
    accuracies = []
    for fold, (tr, te) in enumerate(splits, start=1):
        result = train(config, dataset, seed=derive_seed(seed, "fold", fold), train_index=tr, test_index=te)
        accuracies.append(result.final_test_accuracy)
        if not report(progress, fold, folds, {"fold accuracy": accuracies[-1]}):
            break
    acc = np.array(accuracies)
    return {"mean": float(acc.mean()), "std": float(acc.std()), "fold_accuracies": acc.tolist()}


def save_model(result: TrainResult, directory, metadata: dict | None = None):
    meta = {"dataset": result.dataset, "final_test_accuracy": result.final_test_accuracy, **(metadata or {})}
    return save_checkpoint(directory, result.model.state_dict(), result.config, meta)


def load_model(directory, dataset: Dataset):
    """A model rebuilt from a checkpoint (safetensors + JSON), with its metadata."""
    ckpt = load_checkpoint(directory, TikhonovConfig)
    model = build_model(ckpt.config.model, dataset.n_features, dataset.n_classes, dataset.task, ckpt.config)
    model.load_state_dict(ckpt.tensors)
    model.eval()
    return model, ckpt.config, ckpt.metadata
