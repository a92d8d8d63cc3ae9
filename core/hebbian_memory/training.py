"""Meta-training on rank recall, recall accuracy on novel episodes, and checkpoints.

Meta-training: every step draws a fresh batch of episodes (new items, new word orders), runs the
network from a zero state and a zero trace, and takes one Adam step on the cross-entropy of the
recall softmax at the probe steps. The recall softmax scores the readout against the episode's own
items, ``logits_k = β · y_t · x_k`` with β = √D (our choice: a readout that must produce the item,
not a class label, so nothing can be memorised across episodes). Accuracy is the share of probes
whose arg-max is the right item; chance is 1 / length.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.common.config import Config, param
from core.common.progress import report
from core.common.seeding import derive_seed
from core.hebbian_memory.model import ModelConfig, RecurrentMemory
from core.hebbian_memory.predictive import NextItemPredictor, PredictorConfig, train_predictor
from core.hebbian_memory.tasks import Lexicon, TaskConfig, make_lexicon, rank_recall_episodes


@dataclass(frozen=True)
class TrainConfig(Config):
    """Meta-training budget and optimiser.

    Examples
    --------
    >>> TrainConfig().steps
    1500
    """

    steps: int = param(1500, low=1, high=100_000, integer=True, doc="meta-training steps (one fresh batch each)")
    batch: int = param(32, low=1, high=1024, integer=True, doc="episodes per step")
    lr: float = param(3e-3, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    grad_clip: float = param(1.0, low=0.0, high=100.0, low_open=True, doc="gradient-norm clip")
    eval_every: int = param(50, low=1, high=10_000, integer=True, doc="steps between progress reports")


@dataclass
class TrainedModel:
    """A meta-trained network with what it was trained on.

    Attributes
    ----------
    net : RecurrentMemory
        The network.
    task : TaskConfig
        The task it was trained on.
    model : ModelConfig
        Its architecture.
    train : TrainConfig
        The budget.
    seed : int
        The training seed.
    lexicon : Lexicon or None
        The lexicon for ``items="lexicon"`` tasks.
    predictor : NextItemPredictor or None
        The predictive module for ``cues="predicted"``.
    steps : ndarray
        Steps at which the curve was recorded.
    loss : ndarray
        Training loss at those steps.
    accuracy : ndarray
        Training-batch recall accuracy at those steps.
    done : int
        Steps actually taken (fewer when stopped).
    """

    net: RecurrentMemory
    task: TaskConfig
    model: ModelConfig
    train: TrainConfig
    seed: int
    lexicon: Lexicon | None = None
    predictor: NextItemPredictor | None = None
    steps: np.ndarray = field(default_factory=lambda: np.zeros(0))
    loss: np.ndarray = field(default_factory=lambda: np.zeros(0))
    accuracy: np.ndarray = field(default_factory=lambda: np.zeros(0))
    done: int = 0


def recall_loss(net: RecurrentMemory, episodes, record_trace: bool = False):
    """Cross-entropy and accuracy of the recall softmax at the probe steps of a batch (torch)."""
    import torch

    x = torch.from_numpy(episodes.inputs)
    items = torch.from_numpy(episodes.items)
    targets = torch.from_numpy(episodes.targets)
    traj = net.forward(x, record_trace=record_trace)
    logits = np.sqrt(items.shape[-1]) * torch.einsum("btd,bld->btl", traj.outputs, items)
    mask = targets >= 0
    loss = torch.nn.functional.cross_entropy(logits[mask], targets[mask])
    acc = (logits[mask].argmax(-1) == targets[mask]).float().mean()
    return loss, acc, traj


def task_support(task: TaskConfig, seed: int, predictor_config: PredictorConfig | None = None):
    """The lexicon and the trained predictive module a task needs (None where it needs none)."""
    if task.items != "lexicon":
        return None, None
    lexicon = make_lexicon(task, derive_seed(seed, "lexicon"))
    predictor = None
    if task.cues == "predicted":
        predictor = train_predictor(lexicon, predictor_config or PredictorConfig(), derive_seed(seed, "predictor"))
    return lexicon, predictor


def meta_train(task: TaskConfig, model: ModelConfig, train: TrainConfig, seed: int, progress=None,
               init: TrainedModel | None = None) -> TrainedModel:
    """Meta-train a network on rank recall with a fresh batch of episodes each step.

    Parameters
    ----------
    task : TaskConfig
        The task (items, cues, what a probe asks for).
    model : ModelConfig
        The network kind and width.
    train : TrainConfig
        Steps, batch, optimiser.
    seed : int
        Seed of the initial weights, the episodes, the lexicon and the predictor.
    progress : callable or None
        ``progress(step, total, {"loss", "accuracy"})`` every ``eval_every`` steps; False stops.
    init : TrainedModel or None
        Start from this network's weights (transfer) instead of a fresh initialisation; its
        lexicon and predictor are reused.

    Returns
    -------
    TrainedModel
        The network and its learning curve.

    Examples
    --------
    >>> run = meta_train(TaskConfig(), ModelConfig(hidden=16), TrainConfig(steps=2, batch=4, eval_every=1), seed=0)
    >>> run.done, run.accuracy.shape
    (2, (2,))
    """
    import torch

    if init is not None:
        lexicon, predictor = init.lexicon, init.predictor
        if task.items == "lexicon" and lexicon is None:
            lexicon, predictor = task_support(task, seed)
    else:
        lexicon, predictor = task_support(task, seed)
    net = RecurrentMemory(model, task.input_dim, task.item_dim, derive_seed(seed, "init"))
    if init is not None:
        net.load_state_dict(init.net.state_dict())
    opt = torch.optim.Adam(net.parameters(), lr=train.lr)
    steps, losses, accs = [], [], []
    done = 0
    for step in range(1, train.steps + 1):
        episodes = rank_recall_episodes(task, train.batch, derive_seed(seed, "train", step), lexicon, predictor)
        loss, acc, _ = recall_loss(net, episodes)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), train.grad_clip)
        opt.step()
        done = step
        if step % train.eval_every == 0 or step == train.steps:
            steps.append(step)
            losses.append(float(loss.detach()))
            accs.append(float(acc.detach()))
            if not report(progress, step, train.steps, {"loss": losses[-1], "accuracy": accs[-1]}):
                break
    return TrainedModel(net, task, model, train, int(seed), lexicon, predictor, np.asarray(steps),
                        np.asarray(losses), np.asarray(accs), done)


@dataclass
class Recall:
    """Recall accuracy of a network on fresh episodes.

    Attributes
    ----------
    accuracy : float
        Share of probes answered with the right item.
    chance : float
        1 / sequence length.
    by_rank : ndarray, shape (length,)
        Accuracy per probed rank.
    n_episodes : int
        Episodes evaluated.
    """

    accuracy: float
    chance: float
    by_rank: np.ndarray
    n_episodes: int


def evaluate_recall(trained: TrainedModel, n_episodes: int = 256, seed: int = 12345,
                    task: TaskConfig | None = None) -> Recall:
    """Recall accuracy on ``n_episodes`` episodes never seen in training (novel items and orders).

    Parameters
    ----------
    trained : TrainedModel
        The network (with its lexicon and predictor).
    n_episodes : int
        Episodes to evaluate.
    seed : int
        Seed of the evaluation episodes (kept apart from the training seeds by :func:`derive_seed`).
    task : TaskConfig or None
        Evaluate on this task instead of the training task (same input layout).

    Returns
    -------
    Recall
        Overall and per-rank accuracy, and chance.

    Examples
    --------
    >>> run = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=1, batch=2), seed=0)
    >>> evaluate_recall(run, n_episodes=8).chance
    0.1111111111111111
    """
    import torch

    task = task or trained.task
    ep = rank_recall_episodes(task, n_episodes, derive_seed(seed, "evaluate"), trained.lexicon, trained.predictor)
    with torch.no_grad():
        x = torch.from_numpy(ep.inputs)
        out = trained.net.forward(x).outputs
        logits = torch.einsum("btd,bld->btl", out, torch.from_numpy(ep.items)).numpy()
    mask = ep.targets >= 0
    hit = logits.argmax(-1) == ep.targets
    ranks = np.where(mask, ep.targets, -1)
    by_rank = np.array([hit[ranks == r].mean() if (ranks == r).any() else np.nan for r in range(task.length)])
    return Recall(float(hit[mask].mean()), 1.0 / task.length, by_rank, int(n_episodes))


def save_model(trained: TrainedModel, directory: str | Path, metadata: dict | None = None) -> Path:
    """Write a trained network as safetensors + JSON (task, model, training config, curve, lexicon seed).

    Parameters
    ----------
    trained : TrainedModel
        What to save.
    directory : str or pathlib.Path
        The checkpoint folder.
    metadata : dict or None
        Extra facts to record (e.g. evaluation accuracy).

    Returns
    -------
    pathlib.Path
        ``directory``.

    Examples
    --------
    >>> import tempfile
    >>> run = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=1, batch=2), seed=0)
    >>> back = load_model(save_model(run, tempfile.mkdtemp()))
    >>> back.model.hidden, back.seed
    (8, 0)
    """
    from core.common.checkpoint import save_checkpoint

    meta = {"task": trained.task.to_dict(), "train": trained.train.to_dict(), "seed": trained.seed,
            "done": trained.done, "curve": {"steps": trained.steps.tolist(), "loss": trained.loss.tolist(),
                                             "accuracy": trained.accuracy.tolist()}, **(metadata or {})}
    tensors = trained.net.state_dict()
    if trained.predictor is not None:
        tensors["predictor_logits"] = trained.predictor.logits.astype(np.float32)
        meta["predictor_threshold"] = trained.predictor.threshold
    return save_checkpoint(directory, tensors, trained.model, meta)


def load_model(directory: str | Path) -> TrainedModel:
    """Read a network written by :func:`save_model` (safetensors, never a pickle).

    Parameters
    ----------
    directory : str or pathlib.Path
        The checkpoint folder.

    Returns
    -------
    TrainedModel
        The network, its configs, the lexicon rebuilt from the seed, and the predictor.

    Examples
    --------
    >>> import tempfile
    >>> run = meta_train(TaskConfig(), ModelConfig(kind="lstm", hidden=8), TrainConfig(steps=1, batch=2), seed=0)
    >>> load_model(save_model(run, tempfile.mkdtemp())).model.kind
    'lstm'
    """
    from core.common.checkpoint import load_checkpoint

    ck = load_checkpoint(directory, ModelConfig)
    meta = ck.metadata
    task, train, seed = TaskConfig.from_dict(meta["task"]), TrainConfig.from_dict(meta["train"]), int(meta["seed"])
    tensors = dict(ck.tensors)
    logits = tensors.pop("predictor_logits", None)
    lexicon = make_lexicon(task, derive_seed(seed, "lexicon")) if task.items == "lexicon" else None
    predictor = (NextItemPredictor(logits.double().numpy(), float(meta["predictor_threshold"]), np.zeros(0))
                 if logits is not None else None)
    net = RecurrentMemory(ck.config, task.input_dim, task.item_dim, derive_seed(seed, "init"))
    net.load_state_dict(tensors)
    curve = meta.get("curve", {})
    return TrainedModel(net, task, ck.config, train, seed, lexicon, predictor, np.asarray(curve.get("steps", [])),
                        np.asarray(curve.get("loss", [])), np.asarray(curve.get("accuracy", [])),
                        int(meta.get("done", 0)))
