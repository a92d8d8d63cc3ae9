"""The experiments: merge every method on one task family, the lambda trade-off, the alpha landscape.

Margins are measured on the training data (the theory's objects: the data the adapters were fit on),
accuracies on held-out test data. The union of tasks is the pretraining task plus every fine-tuning
task. The grid oracle is the best (alpha_1..alpha_T) of a grid for the union margin on the training
data: an upper reference for any weight rule on task arithmetic, not a method one could ship
training-free (it needs every task's data at merge time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, check_range, choice, param
from core.common.progress import report
from core.common.seeding import check_seed, derive_seed
from core.malora.adapters import AdapterConfig, cosine, fit_head, max_margin_classifier, peft_merge, train_adapter
from core.malora.margins import _check, accuracy, normalized_margin, task_margin
from core.malora.merging import METHODS, malora_coefficients, merged_delta, orthogonal_union_margin
from core.malora.tasks import FAMILIES, TaskSet, make_tasks, synthetic_tasks


@dataclass(frozen=True)
class MergeConfig(Config):
    """One merging experiment (:func:`compare_merges`): the tasks, how adapters are trained, the merges.

    Examples
    --------
    >>> config = MergeConfig(family="synthetic", overlap=0.3)
    >>> config.adapter_config()
    AdapterConfig(rank=2, lam=0.001, steps=30)
    >>> MergeConfig(rank=0)
    Traceback (most recent call last):
    ...
    ValueError: rank: 0 is out of range; allowed integers in [1, 8]
    """

    family: str = choice("synthetic", FAMILIES, doc="task family")
    n_tasks: int = param(2, low=1, high=4, integer=True, doc="synthetic: fine-tuning tasks")
    n_classes: int = param(3, low=2, high=6, integer=True, doc="synthetic: classes")
    overlap: float = param(0.0, low=0.0, high=0.9, doc="synthetic: shared component of the class means")
    noise: float = param(0.2, low=0.05, high=1.0, doc="synthetic: noise inside each block")
    rank: int = param(2, low=1, high=8, integer=True, doc="LoRA rank")
    lam: float = param(1e-3, low=1e-6, high=1.0, doc="adapter regularisation")
    steps: int = param(30, low=1, high=300, integer=True, doc="L-BFGS calls per adapter")
    base_lam: float = param(1e-3, low=1e-6, high=1.0, doc="regularisation of the pretrained head")
    density: float = param(0.5, low=0.05, high=1.0, doc="TIES/DARE/magnitude density")
    grid: int = param(41, low=5, high=201, integer=True, doc="alpha grid points per axis")
    margin_quantile: float = param(0.0, low=0.0, high=0.25, doc="MaLoRA's margins: 0 = hard margin, q = quantile")

    def adapter_config(self) -> AdapterConfig:
        """The :class:`AdapterConfig` of every adapter of this experiment."""
        return AdapterConfig(rank=self.rank, lam=self.lam, steps=self.steps)

    def tasks(self, seed: int) -> TaskSet:
        """The experiment's :class:`TaskSet` under ``seed`` (see :func:`make_tasks`)."""
        return make_tasks(self.family, n_tasks=self.n_tasks, n_classes=self.n_classes, overlap=self.overlap,
                          noise=self.noise, seed=seed)


ROWS = ("base", *METHODS, "peft_linear", "grid_oracle")


@dataclass
class MergeComparison:
    """Every method's merged head on one task family, with the ingredients MaLoRA uses.

    Rows of the per-method arrays follow ``methods``: ``base`` (W0 alone), :data:`METHODS`,
    ``peft_linear`` (peft's A/B-separate ``linear`` merge, weights 1) and ``grid_oracle``. Columns of
    the per-task arrays follow ``task_names`` (pretraining first). Margins are on training data,
    accuracies on held-out data; NaN marks what was not computed (a stopped run, an undefined MaLoRA).

    Attributes
    ----------
    family : str
        The task family.
    task_names : list of str
        T + 1 task names, pretraining first.
    methods : list of str
        The rows, :data:`ROWS`.
    weights : ndarray of shape (methods, T)
        The alpha_t or w_t used (NaN where a row is not a weighted sum).
    task_accuracy : ndarray of shape (methods, T + 1)
        Test accuracy per task over the full label space.
    task_margin : ndarray of shape (methods, T + 1)
        Normalised training margin per task.
    union_margin : ndarray of shape (methods,)
        Normalised training margin on the union of tasks.
    union_accuracy : ndarray of shape (methods,)
        Test accuracy on the union of tasks.
    finetuned_accuracy : ndarray of shape (T, T + 1)
        W0 + dW_t alone on every task (retention and adaptation).
    finetuned_margin : ndarray of shape (T, T + 1)
        Normalised training margins of W0 + dW_t alone.
    base_margin : float
        gamma_0, W0's (unnormalised) margin on the pretraining data.
    adapter_margins : ndarray of shape (T,)
        gamma_t, W0 + dW_t's (unnormalised) margin on task t.
    adapter_norms : ndarray of shape (T,)
        ||dW_t||_F.
    alpha_star : ndarray of shape (T,)
        MaLoRA's gamma_0 / gamma_t (NaN if a margin is not positive).
    base : ndarray of shape (n_classes, d)
        W0.
    deltas : ndarray of shape (T, n_classes, d)
        The adapters' dW_t.
    done : int
        Adapters trained (T unless stopped).
    """

    family: str
    task_names: list
    methods: list
    weights: np.ndarray
    task_accuracy: np.ndarray
    task_margin: np.ndarray
    union_margin: np.ndarray
    union_accuracy: np.ndarray
    finetuned_accuracy: np.ndarray
    finetuned_margin: np.ndarray
    base_margin: float
    adapter_margins: np.ndarray
    adapter_norms: np.ndarray
    alpha_star: np.ndarray
    base: np.ndarray
    deltas: np.ndarray
    done: int


def _union_data(tasks: TaskSet, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Every task's rows of one split stacked (pretraining first): the union of tasks."""
    X, y = getattr(tasks, f"X_{split}"), getattr(tasks, f"y_{split}")
    return np.vstack(X), np.concatenate(y)


def _grid_values(alpha_star: np.ndarray, grid: int) -> np.ndarray:
    top = 2.0 * float(np.nanmax(alpha_star)) if np.all(np.isfinite(alpha_star)) else 2.0
    return np.linspace(0.0, max(top, 1e-3), grid)


def union_margin_grid(base: np.ndarray, deltas: np.ndarray, X: np.ndarray, y: np.ndarray,
                      values: np.ndarray) -> np.ndarray:
    """Normalised margin of W0 + sum_t alpha_t dW_t on (X, y) at every point of the grid ``values`` ** T.

    .. math:: M[i_1, \\dots, i_T] = \\bar\\gamma\\big(W_0 + \\textstyle\\sum_t v_{i_t} \\Delta W_t;\\,
              X, y\\big)

    Logits are linear in alpha, so each grid point costs one (n, classes) combination of precomputed
    logits and a Gram-matrix norm.

    Parameters
    ----------
    base : ndarray of shape (n_classes, d)
        W0.
    deltas : ndarray of shape (T, n_classes, d)
        The updates dW_t, T >= 1.
    X : ndarray of shape (n, d)
        The data (typically the union of the tasks' training data).
    y : ndarray of shape (n,)
        Its labels.
    values : ndarray of shape (k,)
        The grid's values on every axis; at most 10^6 points in all (k^T).

    Returns
    -------
    ndarray of shape (k,) * T
        The normalised margin at each grid point.

    Examples
    --------
    >>> W0, X, y = np.eye(2), np.array([[1.0, 0.2], [0.3, 1.0]]), np.array([0, 1])
    >>> deltas = np.array([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]])
    >>> M = union_margin_grid(W0, deltas, X, y, np.array([0.0, 1.0]))
    >>> M.shape, round(float(M[0, 0]), 4), bool(np.isclose(M[1, 1], normalized_margin(W0 + deltas.sum(0), X, y)))
    ((2, 2), 0.495, True)
    """
    base = np.asarray(base, float)
    deltas = np.asarray(deltas, float)
    values = np.asarray(values, float)
    X, y = _check(base, X, y)[1:]
    if deltas.ndim != 3 or len(deltas) == 0 or deltas.shape[1:] != base.shape:
        raise ValueError(f"deltas: shape {deltas.shape} for a base of shape {base.shape}; allowed (T >= 1, "
                         f"{base.shape[0]}, {base.shape[1]})")
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)) or values.size ** len(deltas) > 10 ** 6:
        raise ValueError(f"values: {values.size} values on {len(deltas)} axes; allowed a non-empty 1-d array of "
                         "finite numbers with at most 10^6 grid points")
    T = len(deltas)
    L0 = X @ base.T
    Ls = np.stack([X @ d.T for d in deltas])                      # (T, n, C)
    mats = np.concatenate([base[None], deltas]).reshape(T + 1, -1)
    G = mats @ mats.T
    shape = (len(values),) * T
    out = np.empty(int(np.prod(shape)))
    grid = np.array(np.meshgrid(*([values] * T), indexing="ij")).reshape(T, -1).T   # (points, T)
    for start in range(0, len(grid), 64):
        a = grid[start:start + 64]
        Z = L0[None] + np.einsum("pt,tnc->pnc", a, Ls)
        rows = np.arange(len(y))
        own = Z[:, rows, y]
        Z[:, rows, y] = -np.inf
        margin = (own - Z.max(axis=2)).min(axis=1)
        c = np.column_stack([np.ones(len(a)), a])
        out[start:start + len(a)] = margin / np.sqrt(np.einsum("pi,ij,pj->p", c, G, c))
    return out.reshape(shape)


def _row_stats(W, tasks: TaskSet) -> tuple[np.ndarray, np.ndarray, float, float]:
    acc = np.array([accuracy(W, X, y) for X, y in zip(tasks.X_test, tasks.y_test)])
    mar = np.array([normalized_margin(W, X, y) for X, y in zip(tasks.X_train, tasks.y_train)])
    Xu, yu = _union_data(tasks)
    Xt, yt = _union_data(tasks, "test")
    return acc, mar, normalized_margin(W, Xu, yu), accuracy(W, Xt, yt)


def compare_merges(config: MergeConfig | None = None, seed: int = 0, progress=None) -> MergeComparison:
    """Train one adapter per task from the pretrained head, then merge with every method.

    The head W0 is fit on task 0 (:func:`fit_head`), one peft LoRA adapter per fine-tuning task
    (:func:`train_adapter`); MaLoRA merges with alpha_t = gamma_0 / gamma_t (:func:`malora_coefficients`),
    the baselines with weights 1, and the grid oracle searches alpha on the union's training data
    (T <= 3).

    Parameters
    ----------
    config : MergeConfig, optional
        The experiment (default ``MergeConfig()``).
    seed : int
        Seeds the tasks, the adapters' initialisations and DARE's masks (child seeds).
    progress : callable, optional
        One step per L-BFGS call of every adapter, then one per merge row; False stops (the result
        then holds what was trained, and NaN rows).

    Returns
    -------
    MergeComparison
        The table of every row of :data:`ROWS` with W0, the dW_t and MaLoRA's ingredients.

    References
    ----------
    .. [1] "Margin-based LoRA merging" (MaLoRA), NeurIPS 2026, ``docs/PAPERS.md``: merged models keep a positive margin on
       every task and MaLoRA matches or beats adapter-merging baselines.

    Examples
    --------
    >>> r = compare_merges(MergeConfig(steps=1, grid=5), seed=0)
    >>> r.methods[:3], r.union_margin.shape, r.deltas.shape, r.done
    (['base', 'malora', 'task_arithmetic'], (11,), (2, 3, 12), 2)
    """
    config = config or MergeConfig()
    if not isinstance(config, MergeConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a MergeConfig")
    seed = check_seed(seed)
    tasks = config.tasks(derive_seed(seed, "tasks"))
    T, C = tasks.n_tasks, tasks.n_classes
    W0 = fit_head(tasks.X_train[0], tasks.y_train[0], C, config.base_lam)
    total = T * config.steps + len(ROWS)
    step, stopped = 0, False
    adapters = []
    for t in range(1, T + 1):
        def inner(s, _tot, metrics, t=t):
            nonlocal step
            step += 1
            return report(progress, step, total, {"task": t, **metrics})
        ad = train_adapter(W0, tasks.X_train[t], tasks.y_train[t], config.adapter_config(),
                           seed=derive_seed(seed, "adapter"), task=t, progress=inner)
        adapters.append(ad)
        if len(ad.loss) < config.steps:
            stopped = True
            break
    step = len(adapters) * config.steps if not stopped else step
    deltas = np.stack([a.delta for a in adapters]) if adapters else np.zeros((0, C, tasks.dim))
    q = config.margin_quantile
    g0 = task_margin(W0, tasks.X_train[0], tasks.y_train[0], q)
    gammas = np.array([task_margin(W0 + a.delta, tasks.X_train[a.task], tasks.y_train[a.task], q) for a in adapters])
    norms = np.linalg.norm(deltas.reshape(len(adapters), -1), axis=1)
    try:
        alpha = malora_coefficients(g0, gammas)
    except ValueError:
        alpha = np.full(len(adapters), np.nan)
    n_rows = len(ROWS)
    weights = np.full((n_rows, T), np.nan)
    acc = np.full((n_rows, T + 1), np.nan)
    mar = np.full((n_rows, T + 1), np.nan)
    um, ua = np.full(n_rows, np.nan), np.full(n_rows, np.nan)
    ft_acc, ft_mar = np.full((T, T + 1), np.nan), np.full((T, T + 1), np.nan)
    for i, a in enumerate(adapters):
        ft_acc[i], ft_mar[i], _, _ = _row_stats(W0 + a.delta, tasks)
    if not stopped:
        Xu, yu = _union_data(tasks)
        values = _grid_values(alpha, config.grid)
        for r, name in enumerate(ROWS):
            W, w = None, None
            if name == "base":
                W = W0
            elif name == "malora":
                if np.all(np.isfinite(alpha)):
                    W, w = W0 + merged_delta(adapters, "malora", base_margin=g0, task_margins=gammas), alpha
            elif name == "peft_linear":
                W, w = W0 + peft_merge(W0, adapters, np.ones(T), "linear"), np.ones(T)
            elif name == "grid_oracle":
                if T <= 3:
                    vals = values if T < 3 else np.linspace(values[0], values[-1], min(config.grid, 27))
                    land = union_margin_grid(W0, deltas, Xu, yu, vals)
                    best = np.unravel_index(int(np.argmax(land)), land.shape)
                    w = vals[list(best)]
                    W = W0 + np.tensordot(w, deltas, axes=1)
            else:
                W = W0 + merged_delta(adapters, name, density=config.density,
                                      seed=derive_seed(seed, "merge", name))
                w = np.ones(T)
            if W is not None:
                acc[r], mar[r], um[r], ua[r] = _row_stats(W, tasks)
                if w is not None:
                    weights[r] = w
            step += 1
            if not report(progress, step, total, {"union margin": float(um[r]) if np.isfinite(um[r]) else 0.0}):
                break
    return MergeComparison(tasks.family, list(tasks.task_names), list(ROWS), weights, acc, mar, um, ua, ft_acc,
                           ft_mar, float(g0), gammas, norms, alpha, W0, deltas, len(adapters))


@dataclass
class Landscape:
    """The union margin over (alpha_1, alpha_2) for two adapters, with MaLoRA's point and the grid's best.

    Attributes
    ----------
    values : ndarray of shape (grid,)
        The grid on each axis, from 0 to twice the largest alpha* (to 2 if alpha* is undefined).
    margin : ndarray of shape (grid, grid)
        ``margin[i, j]``: the normalised union margin at alpha_1 = values[i], alpha_2 = values[j].
    alpha_star : ndarray of shape (2,)
        MaLoRA's coefficients (NaN if undefined).
    malora_margin : float
        The union margin at alpha* (NaN if undefined).
    grid_best : ndarray of shape (2,)
        The grid point of the largest union margin.
    grid_best_margin : float
        That margin.
    uniform_margin : float
        The union margin at alpha = (1, 1), task arithmetic.
    """

    values: np.ndarray
    margin: np.ndarray
    alpha_star: np.ndarray
    malora_margin: float
    grid_best: np.ndarray
    grid_best_margin: float
    uniform_margin: float


def landscape(base: np.ndarray, deltas: np.ndarray, tasks_X: list, tasks_y: list, alpha_star: np.ndarray,
              grid: int = 61) -> Landscape:
    """The union-margin landscape of two adapters on the given training data (pretraining task first).

    Parameters
    ----------
    base : ndarray of shape (n_classes, d)
        W0.
    deltas : ndarray of shape (2, n_classes, d)
        The two adapters' dW_t.
    tasks_X : list of ndarray
        Every task's training features (stacked into the union).
    tasks_y : list of ndarray
        Every task's training labels.
    alpha_star : ndarray of shape (2,)
        MaLoRA's coefficients; they set the grid's range (NaN: the range [0, 2]).
    grid : int
        Grid points per axis, 5..201.

    Returns
    -------
    Landscape
        The margin grid (see :func:`union_margin_grid`), MaLoRA's point, the grid's best and alpha = 1.

    Examples
    --------
    >>> tasks = synthetic_tasks(n_tasks=2, n_per_class=5, n_test_per_class=1, seed=0)
    >>> W0 = fit_head(tasks.X_train[0], tasks.y_train[0], 3)
    >>> deltas = np.stack([np.stack([X[y == c].mean(0) for c in range(3)])
    ...                    for X, y in zip(tasks.X_train[1:], tasks.y_train[1:])])
    >>> land = landscape(W0, deltas, tasks.X_train, tasks.y_train, np.array([1.0, 1.0]), grid=5)
    >>> land.values.tolist(), land.margin.shape, bool(land.grid_best_margin >= land.uniform_margin)
    ([0.0, 0.5, 1.0, 1.5, 2.0], (5, 5), True)
    """
    deltas = np.asarray(deltas, float)
    grid = check_range("grid", grid, 5, 201, integer=True)
    if len(deltas) != 2:
        raise ValueError(f"n_tasks: the landscape is drawn for 2 adapters, got {len(deltas)}; allowed 2")
    if np.shape(alpha_star) != (2,):
        raise ValueError(f"alpha_star: shape {np.shape(alpha_star)}; allowed two coefficients")
    X, y = np.vstack(tasks_X), np.concatenate(tasks_y)
    values = _grid_values(np.asarray(alpha_star, float), grid)
    land = union_margin_grid(base, deltas, X, y, values)
    best = np.unravel_index(int(np.argmax(land)), land.shape)

    def at(a):
        return normalized_margin(base + np.tensordot(np.asarray(a, float), deltas, axes=1), X, y)

    star = np.asarray(alpha_star, float)
    return Landscape(values, land, star, at(star) if np.all(np.isfinite(star)) else float("nan"),
                     values[list(best)], float(land[best]), at([1.0, 1.0]))


@dataclass(frozen=True)
class SweepConfig(Config):
    """The lambda sweep (:func:`lambda_sweep`): one adapter on task 1 of a synthetic pair, at each lambda.

    Examples
    --------
    >>> SweepConfig(n_lams=3).lams().tolist()
    [0.1, 0.001, 1e-05]
    >>> SweepConfig(lam_low=0.5, lam_high=0.1)
    Traceback (most recent call last):
    ...
    ValueError: lam_low: 0.5 must be below lam_high = 0.1; allowed [1e-06, 0.1)
    """

    overlap: float = param(0.0, low=0.0, high=0.9, doc="shared component of the class means")
    noise: float = param(0.2, low=0.05, high=1.0, doc="noise inside each block")
    anisotropy: float = param(1.0, low=1.0, high=10.0, doc="noise stretch along one direction of each block")
    n_classes: int = param(3, low=2, high=6, integer=True, doc="classes")
    rank: int = param(2, low=1, high=8, integer=True, doc="LoRA rank")
    steps: int = param(30, low=1, high=300, integer=True, doc="L-BFGS calls per adapter")
    base_lam: float = param(1e-3, low=1e-6, high=1.0, doc="regularisation of the pretrained head")
    lam_low: float = param(1e-5, low=1e-6, high=1.0, doc="smallest lambda")
    lam_high: float = param(1e-1, low=1e-6, high=1.0, doc="largest lambda")
    n_lams: int = param(9, low=2, high=25, integer=True, doc="lambdas, log-spaced")

    def validate(self) -> None:
        if self.lam_low >= self.lam_high:
            raise ValueError(f"lam_low: {self.lam_low:g} must be below lam_high = {self.lam_high:g}; "
                             f"allowed [1e-06, {self.lam_high:g})")

    def lams(self) -> np.ndarray:
        """The ``n_lams`` lambdas, log-spaced from ``lam_high`` down to ``lam_low``."""
        return np.geomspace(self.lam_high, self.lam_low, self.n_lams)


@dataclass
class LambdaSweep:
    """Retention and adaptation against lambda (largest first), with the closed forms and the alignment.

    ``closed_pre`` and ``closed_ft`` are the orthogonal-task closed forms evaluated at each trained
    adapter's norm s = ||dW||: gamma_0 / sqrt(||W0||^2 + s^2) and s * gamma_svm / sqrt(||W0||^2 + s^2),
    with gamma_svm the max (normalised) margin of task 1. They assume dW points along the max-margin
    direction, so they match the measured margins only where the cosine is near 1. The control
    ``mean_classifier_cosine`` is the trivial classifier's (centred class means) cosine to the SVM:
    large lambda gives an adapter along the first gradient, which points there. Entries past ``done``
    are NaN (a stopped run).

    Attributes
    ----------
    lams : ndarray of shape (k,)
        The lambdas, largest first.
    pre_margin : ndarray of shape (k,)
        Normalised margin of W0 + dW on the pretraining training data.
    ft_margin : ndarray of shape (k,)
        ... on task 1's training data.
    union_margin : ndarray of shape (k,)
        ... on both.
    pre_accuracy : ndarray of shape (k,)
        Test accuracy of W0 + dW on the pretraining task.
    ft_accuracy : ndarray of shape (k,)
        Test accuracy on task 1.
    adapter_norm : ndarray of shape (k,)
        s = ||dW||_F.
    cosine_svm : ndarray of shape (k,)
        cos(vec dW, vec W_svm) against the Crammer-Singer SVM of task 1.
    closed_pre : ndarray of shape (k,)
        The closed form gamma_0 / sqrt(||W0||^2 + s^2).
    closed_ft : ndarray of shape (k,)
        The closed form s * gamma_svm / sqrt(||W0||^2 + s^2).
    svm_margin : float
        gamma_svm, the max normalised margin of task 1 (from the SVM).
    mean_classifier_cosine : float
        Control: the centred class-mean classifier's cosine to the SVM.
    base_norm : float
        ||W0||_F.
    base_margin : float
        gamma_0, W0's (unnormalised) margin on the pretraining data.
    done : int
        Lambdas trained (k unless stopped).
    """

    lams: np.ndarray
    pre_margin: np.ndarray
    ft_margin: np.ndarray
    union_margin: np.ndarray
    pre_accuracy: np.ndarray
    ft_accuracy: np.ndarray
    adapter_norm: np.ndarray
    cosine_svm: np.ndarray
    closed_pre: np.ndarray
    closed_ft: np.ndarray
    svm_margin: float
    mean_classifier_cosine: float
    base_norm: float
    base_margin: float
    done: int


def lambda_sweep(config: SweepConfig | None = None, seed: int = 0, progress=None) -> LambdaSweep:
    """Train the task-1 adapter at every lambda of ``config.lams()`` and measure both margins.

    On a synthetic pair (pretraining, task 1) the head W0 is fit once; at each lambda one LoRA adapter
    is trained on task 1 and compared with the closed forms and the Crammer-Singer SVM (see
    :class:`LambdaSweep`).

    Parameters
    ----------
    config : SweepConfig, optional
        The sweep (default ``SweepConfig()``).
    seed : int
        Seeds the tasks and the adapters' initialisation (child seeds).
    progress : callable, optional
        One step per lambda; returning False stops (NaN for the lambdas not reached).

    Returns
    -------
    LambdaSweep
        Margins, accuracies, norms, cosines and closed forms per lambda.

    References
    ----------
    .. [1] "Margin-based LoRA merging" (MaLoRA), NeurIPS 2026, ``docs/PAPERS.md``: lambda trades retention for adaptation,
       and the adapter aligns with the max-margin solution in an intermediate regime.

    Examples
    --------
    >>> s = lambda_sweep(SweepConfig(n_lams=2, steps=2, n_classes=2), seed=0)
    >>> s.lams.tolist(), s.done, bool(s.pre_margin[0] > s.pre_margin[1] > 0)
    ([0.1, 1e-05], 2, True)
    """
    config = config or SweepConfig()
    if not isinstance(config, SweepConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a SweepConfig")
    seed = check_seed(seed)
    tasks = synthetic_tasks(1, config.n_classes, config.overlap, config.noise, anisotropy=config.anisotropy,
                            seed=derive_seed(seed, "tasks"))
    (X0, X1), (y0, y1) = tasks.X_train, tasks.y_train
    C = tasks.n_classes
    W0 = fit_head(X0, y0, C, config.base_lam)
    svm = max_margin_classifier(X1, y1, C)
    svm_margin = normalized_margin(svm, X1, y1)
    means = np.stack([X1[y1 == c].mean(axis=0) if np.any(y1 == c) else np.zeros(X1.shape[1]) for c in range(C)])
    g0, n0 = task_margin(W0, X0, y0), float(np.linalg.norm(W0))
    lams = config.lams()
    k = len(lams)
    cols = {name: np.full(k, np.nan) for name in ("pre", "ft", "union", "pacc", "facc", "norm", "cos")}
    done = 0
    for i, lam in enumerate(lams):
        ad = train_adapter(W0, X1, y1, AdapterConfig(rank=config.rank, lam=float(lam), steps=config.steps),
                           seed=derive_seed(seed, "adapter"), task=1)
        W = W0 + ad.delta
        cols["pre"][i], cols["ft"][i] = normalized_margin(W, X0, y0), normalized_margin(W, X1, y1)
        cols["union"][i] = normalized_margin(W, np.vstack([X0, X1]), np.concatenate([y0, y1]))
        cols["pacc"][i] = accuracy(W, tasks.X_test[0], tasks.y_test[0])
        cols["facc"][i] = accuracy(W, tasks.X_test[1], tasks.y_test[1])
        cols["norm"][i] = np.linalg.norm(ad.delta)
        cols["cos"][i] = cosine(ad.delta, svm)
        done = i + 1
        if not report(progress, done, k, {"lambda": float(lam), "fine-tuning margin": float(cols["ft"][i]),
                                          "pretraining margin": float(cols["pre"][i])}):
            break
    s = cols["norm"]
    denom = np.sqrt(n0 ** 2 + s ** 2)
    return LambdaSweep(lams, cols["pre"], cols["ft"], cols["union"], cols["pacc"], cols["facc"], s, cols["cos"],
                       g0 / denom, s * svm_margin / denom, float(svm_margin), cosine(means - means.mean(axis=0), svm),
                       n0, float(g0), done)


def orthogonal_check(result: MergeComparison) -> np.ndarray:
    """The closed-form union margin at MaLoRA's alpha (valid on exactly orthogonal tasks).

    :func:`orthogonal_union_margin` at ``result.alpha_star`` with the result's norms and margins; on
    exactly orthogonal tasks it equals the measured union margin of the ``malora`` row.

    Parameters
    ----------
    result : MergeComparison
        A finished comparison.

    Returns
    -------
    ndarray of shape ()
        The closed-form normalised union margin (NaN if alpha* is undefined).

    Examples
    --------
    >>> r = compare_merges(MergeConfig(steps=3, grid=5), seed=0)  # converged adapters stay in their blocks
    >>> bool(np.isclose(orthogonal_check(r), r.union_margin[r.methods.index("malora")], rtol=1e-4))
    True
    """
    return orthogonal_union_margin(result.alpha_star, float(np.linalg.norm(result.base)), result.base_margin,
                                   result.adapter_norms, result.adapter_margins)


__all__ = ["MergeConfig", "MergeComparison", "compare_merges", "SweepConfig", "LambdaSweep", "lambda_sweep",
           "Landscape", "landscape", "union_margin_grid", "orthogonal_check", "ROWS"]
