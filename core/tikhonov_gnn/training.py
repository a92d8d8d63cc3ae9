"""Training, cross-validation and checkpoints for the Tikhonov model and its baselines.

Protocol (ours): Adam, a fixed number of epochs, and the accuracy of the final epoch on the
held-out part, with no model selection on test folds (the optimistic "best epoch" of some GIN
reports is not used). ``cross_validate`` uses stratified folds for graph tasks, plain folds for
node tasks (where whole graphs are held out).

Stop: both functions report after every epoch and do nothing more once the callback returns False
(no final evaluation pass after a stop); their results say ``stopped``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from core.common.checkpoint import load_checkpoint, save_checkpoint
from core.common.progress import report
from core.common.seeding import derive_seed, make_rng, torch_seeded
from core.tikhonov_gnn.config import MODELS, PRESETS, TikhonovConfig, recommended_config  # noqa: F401
from core.tikhonov_gnn.data import Dataset
from core.tikhonov_gnn.models import build_model


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


def _hits(model, dataset: Dataset, index) -> torch.Tensor:
    """Whether each labelled target (a graph, or a labelled node) at ``index`` is predicted right."""
    batch = collate(dataset, index)
    valid = batch.y != -100
    return predict(model, batch)[valid] == batch.y[valid]


def correct_count(model, dataset: Dataset, index) -> tuple[int, int]:
    """(correct predictions, labelled targets) on the graphs at ``index``: graphs, or labelled nodes."""
    hits = _hits(model, dataset, index)
    return int(hits.sum()), hits.numel()


def accuracy(model, dataset: Dataset, index) -> float:
    if len(index) == 0:
        return float("nan")
    return float(_hits(model, dataset, index).float().mean())   # float32, as the stored curves were computed


@dataclass
class TrainResult:
    """A trained model and its per-epoch curves.

    Attributes
    ----------
    model : torch.nn.Module
        The model after the last epoch that ran, in eval mode.
    config : TikhonovConfig
        What was trained.
    dataset : str
        The dataset's name.
    train_index : ndarray of int
        The graphs trained on.
    test_index : ndarray of int
        The graphs held out.
    epoch : ndarray of int
        1 .. the epochs that ran.
    loss : ndarray
        The mean training loss of each epoch.
    train_accuracy : ndarray
        Accuracy on the training graphs after each epoch.
    test_accuracy : ndarray
        Accuracy on the held-out graphs after each epoch (NaN without held-out graphs).
    stopped : bool
        True when the progress callback stopped it before ``config.epochs``.

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovConfig, load_dataset, train
    >>> result = train(TikhonovConfig(model="gcn", epochs=2, hidden=8), load_dataset("sbm_homophilic"), seed=0)
    >>> result.epoch.tolist(), result.stopped
    ([1, 2], False)
    """

    model: torch.nn.Module
    config: TikhonovConfig
    dataset: str
    train_index: np.ndarray
    test_index: np.ndarray
    epoch: np.ndarray
    loss: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    stopped: bool = False

    @property
    def final_test_accuracy(self) -> float:
        """Held-out accuracy after the last epoch that ran (NaN before any)."""
        return float(self.test_accuracy[-1]) if self.test_accuracy.size else float("nan")


def holdout_split(dataset: Dataset, fraction: float, seed: int):
    from sklearn.model_selection import train_test_split

    index = np.arange(len(dataset.graphs))
    stratify = dataset.labels if dataset.task == "graph" else None
    return train_test_split(index, test_size=fraction, random_state=seed, stratify=stratify)


def train(config: TikhonovConfig, dataset: Dataset, seed: int = 0, progress=None, train_index=None,
          test_index=None) -> TrainResult:
    """Train ``config.model`` on ``dataset`` with Adam for ``config.epochs`` epochs.

    Parameters
    ----------
    config : TikhonovConfig
        The model and the optimiser's settings.
    dataset : Dataset
        Non-empty graphs.
    seed : int
        Seeds the initial weights, the batch order and (without explicit indices) the split.
    progress : callable, optional
        ``progress(epoch, epochs, {"loss", "train accuracy", "test accuracy"})`` after each epoch;
        returning False stops at once: the epochs done so far are returned, nothing more is computed.
    train_index, test_index : array of int, optional
        Graphs to train on and to hold out; default a seeded stratified split of ``config.test_fraction``.

    Returns
    -------
    TrainResult
        The model and per-epoch curves; ``stopped`` says whether a Stop cut it short.

    References
    ----------
    .. [1] Interpretable Tikhonov GNN layer (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovConfig, load_dataset, train
    >>> data = load_dataset("sbm_homophilic")
    >>> result = train(TikhonovConfig(epochs=1, hidden=8), data, seed=0)
    >>> result.loss.shape, 0.0 <= result.final_test_accuracy <= 1.0
    ((1,), True)
    """
    from core.common.seeding import check_seed

    seed = check_seed(seed)
    if not dataset.graphs or any(g.n_nodes == 0 for g in dataset.graphs):
        raise ValueError("dataset: contains an empty graph; allowed graphs with at least one node")
    if train_index is None:
        train_index, test_index = holdout_split(dataset, config.test_fraction, seed)
    train_index = np.asarray(train_index, dtype=int)
    test_index = np.asarray(test_index if test_index is not None else [], dtype=int)
    for name, index in (("train_index", train_index), ("test_index", test_index)):
        if index.ndim != 1 or (index.size and (index.min() < 0 or index.max() >= len(dataset.graphs))):
            raise ValueError(f"{name}: graph indices outside the dataset; allowed integers in "
                             f"[0, {len(dataset.graphs) - 1}]")
    if train_index.size == 0:
        raise ValueError("train_index: empty; allowed at least one graph to train on")
    with torch_seeded(seed):
        model = build_model(config.model, dataset.n_features, dataset.n_classes, dataset.task, config)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    rng = make_rng(seed)
    penalise = config.model == "tikhonov" and config.q_penalty > 0
    curves = {"loss": [], "train": [], "test": []}
    stopped = False
    for epoch in range(1, config.epochs + 1):
        model.train()
        order = rng.permutation(train_index)
        total, count = 0.0, 0
        for start in range(0, len(order), config.batch_size):
            batch = collate(dataset, order[start:start + config.batch_size])
            if penalise:
                logits, qs = model(batch.x, batch.adjacency, batch.mask, return_q=True)
            else:
                logits = model(batch.x, batch.adjacency, batch.mask)
            loss = F.cross_entropy(logits.reshape(-1, dataset.n_classes), batch.y.reshape(-1), ignore_index=-100)
            if penalise:    # mean q over real nodes: q is measured against a p of fixed scale (theta mean 1)
                loss = loss + config.q_penalty * sum(q[batch.mask].mean() for q in qs)
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
            stopped = epoch < config.epochs
            break
    model.eval()
    n = len(curves["loss"])
    return TrainResult(model, config, dataset.name, train_index, test_index, np.arange(1, n + 1),
                       np.array(curves["loss"]), np.array(curves["train"]), np.array(curves["test"]), stopped)


@dataclass
class CrossValidation:
    """Final-epoch held-out accuracies over the folds that finished.

    Attributes
    ----------
    mean : float
        The mean accuracy over finished folds (NaN when none finished).
    std : float
        Their standard deviation, ddof 0 (NaN when none finished).
    fold_accuracies : ndarray
        One accuracy per finished fold, in fold order.
    stopped : bool
        True when a Stop left folds out.
    """

    mean: float
    std: float
    fold_accuracies: np.ndarray
    stopped: bool


def cv_folds(dataset: Dataset, folds: int, seed: int) -> list:
    """The (train, test) index pairs :func:`cross_validate` uses: stratified folds where every class holds
    ``folds`` graphs, shuffled plain folds otherwise (Cuneiform's 30 classes hold 8 or 9 graphs) and for node
    tasks; the same for every model, so fold k's accuracies pair across models."""
    from sklearn.model_selection import KFold, StratifiedKFold

    index = np.arange(len(dataset.graphs))
    if dataset.task == "graph" and np.bincount(dataset.labels).min() >= folds:
        return list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(index, dataset.labels))
    return list(KFold(folds, shuffle=True, random_state=seed).split(index))


def cross_validate(config: TikhonovConfig, dataset: Dataset, folds: int = 10, seed: int = 0,
                   progress=None) -> CrossValidation:
    """Final-epoch held-out accuracy over ``folds`` folds.

    Parameters
    ----------
    config : TikhonovConfig
        The model and the optimiser's settings.
    dataset : Dataset
        The graphs.
    folds : int
        Stratified folds for graph tasks whose every class has ``folds`` graphs, shuffled plain
        folds otherwise (and for node tasks); fold ``k`` trains with
        ``derive_seed(seed, "fold", k)``.
    seed : int
        Seeds the folds and, through child seeds, every fold's training.
    progress : callable, optional
        Called after every epoch of every fold, ``progress(step, folds * epochs, metrics)`` with
        ``metrics = {"fold", "loss", "test accuracy"}``; returning False stops inside the fold.

    Returns
    -------
    CrossValidation
        Mean and std (ddof 0) over the folds that finished (a fold cut short by a Stop is left out;
        NaN when none finished), the fold accuracies and whether it stopped.

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovConfig, cross_validate, load_dataset
    >>> cv = cross_validate(TikhonovConfig(model="gcn", epochs=1, hidden=8), load_dataset("sbm_homophilic"), folds=2)
    >>> cv.fold_accuracies.shape, cv.stopped
    ((2,), False)
    """
    from core.common.config import check_range
    from core.common.seeding import check_seed

    folds = check_range("folds", folds, 2, max(2, len(dataset.graphs)), integer=True)
    seed = check_seed(seed)

    splits = cv_folds(dataset, folds, seed)
    accuracies, total, halted = [], folds * config.epochs, [False]

    def inner(fold):
        def forward(epoch, epochs, metrics):
            step = (fold - 1) * epochs + epoch
            metrics = {"fold": fold, "loss": metrics["loss"], "test accuracy": metrics["test accuracy"]}
            halted[0] = not report(progress, step, total, metrics)
            return not halted[0]
        return forward

    for fold, (tr, te) in enumerate(splits, start=1):
        result = train(config, dataset, seed=derive_seed(seed, "fold", fold), progress=inner(fold),
                       train_index=tr, test_index=te)
        if not result.stopped:          # a Stop on a fold's last epoch leaves that fold complete
            accuracies.append(result.final_test_accuracy)
        if halted[0]:
            break
    acc = np.array(accuracies, dtype=float)
    done = acc.size > 0
    return CrossValidation(mean=float(acc.mean()) if done else float("nan"),
                           std=float(acc.std()) if done else float("nan"), fold_accuracies=acc,
                           stopped=len(accuracies) < folds)


def save_model(result: TrainResult, directory, metadata: dict | None = None) -> Path:
    """Save a trained model as a checkpoint: safetensors weights + JSON config and metadata.

    Parameters
    ----------
    result : TrainResult
        What :func:`train` returned.
    directory : str or pathlib.Path
        The checkpoint's folder (created).
    metadata : dict, optional
        Extra JSON-able entries; ``dataset`` and ``final_test_accuracy`` are always recorded.

    Returns
    -------
    pathlib.Path
        The folder written.

    Examples
    --------
    >>> import tempfile
    >>> from core.tikhonov_gnn import TikhonovConfig, load_dataset, save_model, train
    >>> data = load_dataset("sbm_homophilic")
    >>> result = train(TikhonovConfig(epochs=1, hidden=8), data, seed=0)
    >>> folder = save_model(result, tempfile.mkdtemp(), {"note": "example"})
    >>> sorted(p.name for p in folder.iterdir())
    ['config.json', 'weights.safetensors']
    """
    meta = {"dataset": result.dataset, "final_test_accuracy": result.final_test_accuracy, **(metadata or {})}
    return save_checkpoint(directory, result.model.state_dict(), result.config, meta)


@dataclass
class LoadedModel:
    """A model rebuilt from a checkpoint, with its config and metadata.

    Attributes
    ----------
    model : torch.nn.Module
        The model, in eval mode.
    config : TikhonovConfig
        The config it was trained with.
    metadata : dict
        The checkpoint's metadata (``dataset``, ``final_test_accuracy``, what the saver added).
    """

    model: torch.nn.Module
    config: TikhonovConfig
    metadata: dict


def load_model(directory, dataset: Dataset) -> LoadedModel:
    """A model rebuilt from a checkpoint (safetensors + JSON, never a pickle), with its metadata.

    Parameters
    ----------
    directory : str or pathlib.Path
        The checkpoint's folder, as :func:`save_model` wrote it.
    dataset : Dataset
        A dataset of the same shape (features, classes, task) that sizes the model.

    Returns
    -------
    LoadedModel
        The model in eval mode, its config and metadata.

    Examples
    --------
    >>> import tempfile
    >>> from core.tikhonov_gnn import TikhonovConfig, load_dataset, load_model, save_model, train
    >>> data = load_dataset("sbm_homophilic")
    >>> folder = save_model(train(TikhonovConfig(epochs=1, hidden=8), data, seed=0), tempfile.mkdtemp())
    >>> loaded = load_model(folder, data)
    >>> loaded.config.hidden, loaded.model.training
    (8, False)
    """
    ckpt = load_checkpoint(directory, TikhonovConfig)
    model = build_model(ckpt.config.model, dataset.n_features, dataset.n_classes, dataset.task, ckpt.config)
    model.load_state_dict(ckpt.tensors)
    model.eval()
    return LoadedModel(model=model, config=ckpt.config, metadata=ckpt.metadata)
