"""What the looped_lm page draws, as plain arrays: computed from a model, or read from the shipped file.

- :class:`LoopView`: for loops r = 1..R and block layers l, the answer token's state (batch mean),
  the fixed-point residual delta (median over tokens), the separation of the layers' states at loop r,
  the attention change per head and layer 0 / head 0's attention map (batch mean), all on the same
  ``PROBE_BATCH`` samples of seed ``PROBE_SEED``. Each of them at loop r depends on loops 1..r only,
  so the view of R loops is the first R rows of the view of ``MAX_LOOPS`` (:meth:`LoopView.upto`):
  one pass of 64 loops serves every position of the page's loop slider.
- :class:`HopStages`: pointer chasing per loop and per hop (lens accuracy and entropy, matrix entropy,
  hops read, CKA against the feedforward model of matching depth), for the shipped pointer model and
  an untrained block of its design (:func:`load_hop_stages`); and each design's spectral radius.
- :class:`StageView`: the logit-lens entropy of the answer along effective depth for the looped
  model (``STAGE_LOOPS`` loops) and for the feedforward model, and their linear CKA matrix.

``python -m core.looped_lm.ship`` writes both for the shipped designs to ``assets/looped_lm/views.npz``;
:func:`load_view` and :func:`load_stage_view` read them back with numpy alone, and
:func:`shipped_metadata` reads a shipped model's metadata (accuracies by loops and by hops) from its
JSON, so the page's first view imports no torch. :func:`loop_view` and :func:`stage_view` compute the
same records from a model (they import torch when called).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.common.config import check_choice, check_range
from core.looped_lm.config import ASSETS, DESIGNS, SHIPPED, LoopedConfig

MAX_LOOPS = 64        # the page's loop slider reaches 64
PROBE_BATCH = 64
PROBE_SEED = 123
STAGE_LOOPS = 6       # about the trained depth
STAGE_BATCH = 256
VIEWS = ASSETS / "views.npz"
STABLE_DELTA, MIN_SEPARATION = 1e-2, 0.05   # the page's reading of "a stable cycle" at loop 32


@dataclass
class LoopView:
    """A looped pass of R loops through a block of B layers with H heads, on S tokens of d dimensions.

    Indexing follows the page: ``delta[k]`` and ``attention_change[k]`` are the changes from loop
    k + 1 to loop k + 2 (shown at "loop k + 1"), ``separation[k]`` is read at loop k + 1.

    Attributes
    ----------
    answer_states : numpy.ndarray
        [R, B, d] the answer token's state after each block layer, batch mean.
    delta : numpy.ndarray
        [R-1, B] relative change of each layer's state to the next loop, median over tokens.
    separation : numpy.ndarray
        [R] min distance between the layers' states at loop r over their mean norm.
    attention_change : numpy.ndarray
        [R-1, B, H] total variation of each head's attention, loop to loop.
    attention_maps : numpy.ndarray
        [R, S, S] layer 0, head 0's attention, batch mean.

    Examples
    --------
    >>> from core.looped_lm import load_view
    >>> view = load_view("stable").upto(40)
    >>> view.num_loops, view.block_size, view.trajectory(12).shape, view.stable_cycle(32)
    (40, 2, (12, 2, 3), True)
    """

    answer_states: np.ndarray     # [R, B, d] the answer token's state after each block layer, batch mean
    delta: np.ndarray             # [R-1, B] relative change of each layer's state, median over tokens
    separation: np.ndarray        # [R] min distance between the layers' states at loop r / their mean norm
    attention_change: np.ndarray  # [R-1, B, H] total variation of each head's attention, loop to loop
    attention_maps: np.ndarray    # [R, S, S] layer 0, head 0, batch mean

    @property
    def num_loops(self) -> int:
        return self.answer_states.shape[0]

    @property
    def block_size(self) -> int:
        return self.answer_states.shape[1]

    def upto(self, loops: int) -> "LoopView":
        """The view of the first ``loops`` loops (what a pass of ``loops`` loops gives)."""
        check_range("loops", loops, low=2, high=self.num_loops, integer=True)
        return LoopView(self.answer_states[:loops], self.delta[:loops - 1], self.separation[:loops],
                        self.attention_change[:loops - 1], self.attention_maps[:loops])

    def trajectory(self, upto: int | None = None) -> np.ndarray:
        """[upto, B, 3]: the answer states projected on the first three principal components of all R loops.

        The components are those of every (loop, layer) state of the view (:func:`principal_projection`),
        so the first ``upto`` loops are drawn in the same axes whatever ``upto`` is.
        """
        points = principal_projection(self.answer_states.reshape(-1, self.answer_states.shape[-1]), 3)
        return points.reshape(self.num_loops, self.block_size, -1)[:upto]

    def stable_cycle(self, loop: int = 32) -> bool:
        """Every layer settled by ``loop`` (worst delta <= 1e-2) at points apart from each other (> 0.05)."""
        k = min(loop, self.num_loops - 1) - 1
        return bool(self.delta[k].max() <= STABLE_DELTA and self.separation[-1] > MIN_SEPARATION)

    def to_frame(self):
        """One row per loop: each layer's delta and mean attention change to the next loop, the separation."""
        import pandas as pd

        R = self.num_loops
        pad = np.full((1, self.block_size), np.nan)
        delta = np.vstack([self.delta, pad])
        change = np.vstack([self.attention_change.mean(-1), pad])
        columns = {"loop": np.arange(1, R + 1), "separation": self.separation}
        for layer in range(self.block_size):
            columns[f"delta layer {layer}"] = delta[:, layer]
            columns[f"attention change layer {layer}"] = change[:, layer]
        return pd.DataFrame(columns)


@dataclass
class StageView:
    """Stages of inference: the looped model's lens along (loop, layer) and the feedforward model's.

    Attributes
    ----------
    looped_labels : numpy.ndarray
        [N] "r1 l0", ... (N = loops x B).
    looped_entropy : numpy.ndarray
        [N] logit-lens entropy of the answer (nats).
    feedforward_labels : numpy.ndarray
        [F] "layer 0", ...
    feedforward_entropy : numpy.ndarray
        [F] the same for the feedforward model.
    cka : numpy.ndarray
        [F, N] linear CKA at the answer position.

    Examples
    --------
    >>> from core.looped_lm import load_stage_view
    >>> stages = load_stage_view("stable")
    >>> stages.looped_entropy.shape, stages.cka.shape
    ((12,), (14, 12))
    """

    looped_labels: np.ndarray         # [N] "r1 l0", ... (N = loops x B)
    looped_entropy: np.ndarray        # [N] logit-lens entropy of the answer (nats)
    feedforward_labels: np.ndarray    # [F] "layer 0", ...
    feedforward_entropy: np.ndarray   # [F]
    cka: np.ndarray                   # [F, N] linear CKA, answer position


HOP_DONE = 0.9   # a hop counts as read when the lens names its node for 90 % of the batch


@dataclass
class HopStages:
    """Stages of inference on pointer chasing, per loop of a looped model and per layer of a feedforward one.

    The stage taxonomy measured is the task's own: the stage a depth has completed is the deepest hop
    whose position the lens reads right (in order, ``HOP_DONE``), and a stage repeats when every further
    loop (or layer) adds the next hop. ``R`` loops, ``F`` feedforward layers, ``K`` hops.

    Attributes
    ----------
    coda_accuracy : numpy.ndarray
        [R, K] coda lens after loop r, at each hop's position.
    logit_accuracy : numpy.ndarray
        [R, K] logit lens after loop r.
    entropy : numpy.ndarray
        [R, K] coda-lens entropy (nats) at each hop's position.
    matrix_entropy : numpy.ndarray
        [R, K] matrix entropy of each hop position's states over the batch.
    hops_done : numpy.ndarray
        [R] hops read right, in order, after loop r.
    feedforward_accuracy : numpy.ndarray
        [F, K] logit lens after feedforward layer i.
    feedforward_matrix_entropy : numpy.ndarray
        [F, K] the same matrix entropy for the feedforward model.
    feedforward_hops_done : numpy.ndarray
        [F] hops read right, in order, after feedforward layer i.
    cka : numpy.ndarray
        [F, R] linear CKA of all hop positions' states, layer i against loop r.

    Examples
    --------
    >>> from core.looped_lm.view import load_hop_stages
    >>> stages = load_hop_stages("pointer")
    >>> stages.coda_accuracy.shape, int(stages.hops_done[-1])
    ((12, 8), 8)
    """

    coda_accuracy: np.ndarray          # [R, K] coda lens after loop r, at each hop's position
    logit_accuracy: np.ndarray         # [R, K] logit lens after loop r
    entropy: np.ndarray                # [R, K] coda-lens entropy (nats) at each hop's position
    matrix_entropy: np.ndarray         # [R, K] matrix entropy of each hop position's states over the batch
    hops_done: np.ndarray              # [R] hops read right, in order, after loop r
    feedforward_accuracy: np.ndarray   # [F, K] logit lens after feedforward layer i
    feedforward_matrix_entropy: np.ndarray   # [F, K]
    feedforward_hops_done: np.ndarray  # [F]
    cka: np.ndarray                    # [F, R] linear CKA of all hop positions' states, layer i against loop r


@dataclass
class TrainedView:
    """A live run: the training result and, unless it was stopped, what the page draws of its model.

    Attributes
    ----------
    train : TrainResult
        The training run.
    loops : LoopView or None
        Its model's view at ``MAX_LOOPS`` loops; None if stopped.
    stages : StageView or None
        Against the shipped feedforward model; None if stopped, or for a task that model does not know.
    """

    train: object                    # TrainResult
    loops: LoopView | None           # None if stopped
    stages: StageView | None         # None if stopped, or for a task the shipped feedforward model does not know


def train_and_view(config, seed: int = 0, progress=None) -> TrainedView:
    """:func:`~core.looped_lm.training.train`, then :func:`loop_view` and (default task) :func:`stage_view`.

    Parameters
    ----------
    config : LoopedConfig
        The design and its training (``config.steps`` steps).
    seed : int
        Seeds the training.
    progress : callable, optional
        ``progress(step, steps + 1, metrics)``: the training steps, then one step for the views.
        Returning False stops; a stopped run computes no views (so Stop ends it at its next step).

    Returns
    -------
    TrainedView
        The run and its views.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, train_and_view
    >>> run = train_and_view(LoopedConfig(steps=800))        # doctest: +SKIP
    >>> run.loops.stable_cycle(32), run.train.accuracy[32]   # doctest: +SKIP
    (True, 1.0)
    >>> train_and_view({"steps": 800})
    Traceback (most recent call last):
    ...
    ValueError: config: a dict; allowed a LoopedConfig
    """
    if not isinstance(config, LoopedConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a LoopedConfig")
    from core.common.progress import report
    from core.looped_lm.pretrained import load_pretrained
    from core.looped_lm.training import task_of, train

    total = config.steps + 1
    forward = None if progress is None else (lambda step, _, metrics: progress(step, total, metrics))
    result = train(config, seed=seed, progress=forward)
    if result.stopped:
        return TrainedView(result, None, None)
    task = task_of(config)
    loops = loop_view(result.model, task)
    stages = None
    if task == task_of(LoopedConfig()) and not config.feedforward:   # the task the shipped feedforward model knows
        stages = stage_view(result.model, load_pretrained("feedforward").model, task)
    report(progress, total, total, {})
    return TrainedView(result, loops, stages)


def loop_view(model, task, loops: int = MAX_LOOPS, n: int = PROBE_BATCH, seed: int = PROBE_SEED) -> LoopView:
    """The :class:`LoopView` of ``model`` on ``n`` samples of ``task`` (seed ``seed``), ``loops`` loops.

    Parameters
    ----------
    model : LoopedLM
        The looped model (its mode is left as it was).
    task : Task
        Probe samples are drawn from it.
    loops : int
        R, 2..1024 (a change needs two loops).
    n : int
        Probe samples, 1..100000.
    seed : int
        Seeds the probe batch.

    Returns
    -------
    LoopView
        delta is :func:`~core.looped_lm.metrics.fixed_point_residuals` (median), separation at loop r is
        :func:`~core.looped_lm.metrics.fixed_point_separation` of the first r loops, attention change
        is :func:`~core.looped_lm.metrics.attention_change`.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, loop_view, task_of
    >>> from core.looped_lm.training import build
    >>> task = task_of(LoopedConfig())
    >>> view = loop_view(build(LoopedConfig(d_model=16, heads=2), task), task, loops=5, n=4)
    >>> view.delta.shape, view.attention_change.shape, view.attention_maps.shape
    ((4, 2), (4, 2, 2), (5, 6, 6))
    """
    from core.looped_lm.cache import run_with_cache
    from core.looped_lm.metrics import attention_change, fixed_point_residuals, fixed_point_separation

    check_range("loops", loops, low=2, high=1024, integer=True)
    check_range("n", n, low=1, high=100_000, integer=True)
    ids, _ = task.sample(n, seed)
    cache = run_with_cache(model, ids, loops)
    h = cache.hiddens
    return LoopView(answer_states=h[:, :, :, -1, :].mean(2).numpy(),
                    delta=fixed_point_residuals(h, reduce="median"),
                    separation=np.array([fixed_point_separation(h[:r]) for r in range(1, loops + 1)]),
                    attention_change=attention_change(cache.attentions),
                    attention_maps=cache.attentions[:, 0, :, 0].mean(1).numpy())


def stage_view(model, feedforward, task, loops: int = STAGE_LOOPS, n: int = STAGE_BATCH,
               seed: int = PROBE_SEED) -> StageView:
    """The :class:`StageView` of ``model`` against ``feedforward`` on ``n`` samples of ``task``.

    Entropies are :func:`~core.looped_lm.stages.looped_profile` and
    :func:`~core.looped_lm.stages.feedforward_profile` at the answer position, the matrix is
    :func:`~core.looped_lm.stages.cka_matrix` over ``loops`` loops.

    Parameters
    ----------
    model : LoopedLM
        The looped model.
    feedforward : FeedforwardLM
        A feedforward model of the same task.
    task : Task
        Probe samples are drawn from it.
    loops : int
        Loops of the looped model read, 1..1024.
    n : int
        Probe samples, 2..100000.
    seed : int
        Seeds the probe batch.

    Returns
    -------
    StageView
        Both lens profiles and their CKA matrix.

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, stage_view, task_of
    >>> from core.looped_lm.training import build
    >>> config = LoopedConfig(d_model=16, heads=2)
    >>> task = task_of(config)
    >>> ff = build(config.replace(feedforward=True, mean_recurrence=2), task)
    >>> stage_view(build(config, task), ff, task, loops=2, n=8).cka.shape
    (6, 4)
    """
    check_range("loops", loops, low=1, high=1024, integer=True)
    check_range("n", n, low=2, high=100_000, integer=True)
    from core.looped_lm.cache import run_with_cache
    from core.looped_lm.stages import cka_matrix, feedforward_profile, feedforward_states, looped_profile

    ids, targets = task.sample(n, seed)
    cache = run_with_cache(model, ids, loops)
    looped = looped_profile(model, cache, targets[:, -1])
    feed = feedforward_profile(feedforward, ids, targets[:, -1])
    return StageView(np.array(looped.depth_labels), looped.entropy, np.array(feed.depth_labels), feed.entropy,
                     cka_matrix(feedforward_states(feedforward, ids)[0], cache))


def principal_projection(points: np.ndarray, k: int = 3) -> np.ndarray:
    """Project points on their first ``k`` principal components (PCA by SVD of the centred rows).

    .. math::

        X_c = X - 1 mean(X),   X_c = U S V^T,   Z = X_c V_{:, :k}

    the page's 3-D view of the block's trajectory (:meth:`LoopView.trajectory`).

    Parameters
    ----------
    points : numpy.ndarray
        [N, d] rows to project.
    k : int
        Components kept, >= 1; fewer come back when min(N, d) < k.

    Returns
    -------
    numpy.ndarray
        [N, min(k, N, d)] coordinates; column j has variance S_j^2 / N and signs follow ``numpy.linalg.svd``.

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import principal_projection
    >>> points = np.array([[0.0, 0.0, 1.0], [2.0, 0.0, 1.0], [4.0, 0.0, 1.0]])
    >>> np.abs(principal_projection(points, k=1)).round(3).ravel()
    array([2., 0., 2.])
    """
    check_range("k", k, low=1, integer=True)
    flat = np.asarray(points, dtype=float)
    if flat.ndim != 2:
        raise ValueError(f"points: {flat.ndim}-d; allowed a 2-d array [N, d]")
    centred = flat - flat.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T


@lru_cache(maxsize=1)
def _views() -> dict:
    with np.load(VIEWS) as arrays:          # no pickles: every entry is a plain numeric or string array
        return {key: arrays[key] for key in arrays.files}


def load_view(name: str) -> LoopView:
    """The shipped :class:`LoopView` of design ``name`` at ``MAX_LOOPS`` loops, read with numpy alone.

    Parameters
    ----------
    name : str
        "stable" or "unstable".

    Returns
    -------
    LoopView
        From ``assets/looped_lm/views.npz`` (written by ``python -m core.looped_lm.ship``).

    Examples
    --------
    >>> from core.looped_lm import load_view
    >>> load_view("unstable").num_loops
    64
    """
    check_choice("name", name, tuple(DESIGNS))
    arrays = _views()
    return LoopView(**{field: arrays[f"{name}/loop/{field}"] for field in LoopView.__dataclass_fields__})


def load_stage_view(name: str) -> StageView:
    """The shipped :class:`StageView` of design ``name`` against the shipped feedforward model.

    Parameters
    ----------
    name : str
        "stable" or "unstable".

    Returns
    -------
    StageView
        From ``assets/looped_lm/views.npz``.

    Examples
    --------
    >>> from core.looped_lm import load_stage_view
    >>> load_stage_view("stable").feedforward_labels[:2].tolist()
    ['layer 0', 'layer 1']
    """
    check_choice("name", name, tuple(DESIGNS))
    arrays = _views()
    return StageView(**{field: arrays[f"{name}/stage/{field}"] for field in StageView.__dataclass_fields__})


def load_hop_stages(model: str = "pointer") -> HopStages:
    """The shipped :class:`HopStages` of the pointer model (``"pointer"``) or of an untrained block of its
    design (``"untrained"``), both against the shipped feedforward model of matching depth."""
    check_choice("model", model, ("pointer", "untrained"))
    arrays = _views()
    return HopStages(**{field: arrays[f"{model}/hops/{field}"] for field in HopStages.__dataclass_fields__})


def shipped_radius(name: str) -> float:
    """Spectral radius of the shipped design's cycle map at its state after ``MAX_LOOPS`` loops."""
    check_choice("name", name, tuple(DESIGNS))
    return float(_views()[f"{name}/radius"])


@lru_cache(maxsize=1)
def design_study() -> dict:
    """The bench's design study (``bench/results/looped_lm.json``): ``designs``, ``controls``, ``guidance``."""
    from core.common.claims import results_path

    result = json.loads(results_path("looped_lm").read_text())
    return {key: result.get(key) for key in ("designs", "controls", "guidance", "learned_threshold")}


@lru_cache(maxsize=None)
def shipped_metadata(name: str) -> dict:
    """A shipped model's metadata (``accuracy_by_loops``, ``accuracy_by_hops``, ...) from its JSON alone."""
    check_choice("name", name, tuple(SHIPPED))
    return json.loads((ASSETS / name / "config.json").read_text())["metadata"]
