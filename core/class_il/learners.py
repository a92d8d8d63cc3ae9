"""CF-optimal prototype learners with a scikit-learn-style ``partial_fit(X, y, task)`` / ``predict``.

Each learner keeps exact sufficient statistics of everything it has seen (class means, counts and
a covariance, or RanPAC's Gram matrices), so after task t it is the same model joint training on
tasks 1..t would give: catastrophic forgetting is zero by construction and what remains of the
class-IL error is task confusion. The test-time classifiers follow the anchors' code:

- :class:`SLDA` (Hayes & Kanan, Deep_SLDA): class means and one shared covariance,
  scores ``x Λ μ_c − ½ μ_cᵀ Λ μ_c`` with ``Λ = pinv((1−ε)Σ + εI)``. Ours merges batches with
  Chan et al.'s exact update, ``S ← S + S_b + (n_c n_b / (n_c + n_b)) (μ_c − μ_b)(μ_c − μ_b)ᵀ``
  per class, so the streamed Σ equals the batch pooled within-class covariance (Deep_SLDA's
  per-sample rule weights by the global count n/(n+1), an approximation that does not).
- :class:`RanPAC` (McDonnell et al.): ``h = ReLU(x W_rand)``, ``G += hᵀh``, ``Q += hᵀY``,
  ``W_o = (G + λI)⁻¹ Q``; λ from 10^{−8..8} by an 80/20 split of the current task's features
  (mean squared error), as in RanPAC's ``optimise_ridge_parameter``, or fixed.
- :class:`FeCAM` (Goswami et al.): per-class covariances (``np.cov``), optional Tukey transform
  ``x^β``, shrinkage ``Σ + α₁·mean(diag)·I + α₂·mean(offdiag)·(1−I)``, correlation normalisation,
  and the Mahalanobis distance of L2-normalised x to L2-normalised class means. Ours applies
  Tukey as ``sign(x)|x|^β`` so that signed features (raw synthetic Gaussians) are allowed.
- :class:`NCM`: the nearest class mean, Euclidean or cosine (SimpleCIL's prototype classifier).

``decision_function`` returns one column per class seen, in ``classes_`` order; ``task_of_class_``
says which task each column belongs to. :func:`task_confusion` scores class-IL and task-aware
accuracy from those same scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import make_rng

LEARNERS = ("slda", "ranpac", "fecam", "ncm")
LEARNER_LABELS = {"slda": "SLDA", "ranpac": "RanPAC", "fecam": "FeCAM", "ncm": "NCM (cosine)"}
RIDGES = 10.0 ** np.arange(-8, 9)


def _check_xy(X, y, task):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) == 0:
        raise ValueError(f"X: shape {X.shape} is not a non-empty 2-D array; allowed (n_samples, n_features)")
    if not np.all(np.isfinite(X)):
        raise ValueError("X: contains NaN or infinite values; allowed finite numbers")
    if y.shape != (len(X),):
        raise ValueError(f"y: shape {y.shape} does not match X's {len(X)} rows; allowed one label per row")
    if isinstance(task, bool) or not isinstance(task, (int, np.integer)) or task < 0:
        raise ValueError(f"task: {task!r} is not a task index; allowed integers >= 0")
    return X, y.astype(int), int(task)


class _Prototypes:
    """Bookkeeping shared by the learners: the classes seen, their task, counts and means."""

    def __init__(self):
        self.classes_ = np.zeros(0, dtype=int)
        self.task_of_class_ = np.zeros(0, dtype=int)
        self.counts_ = np.zeros(0)
        self.means_ = None
        self.n_features_in_ = None

    def _register(self, X, y, task):
        X, y, task = _check_xy(X, y, task)
        if self.n_features_in_ is None:
            self.n_features_in_ = X.shape[1]
            self.means_ = np.zeros((0, X.shape[1]))
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X: {X.shape[1]} features; allowed {self.n_features_in_} (as in the first partial_fit)")
        for c in np.unique(y):   # check every class before changing anything
            if c in self.classes_:
                owner = int(self.task_of_class_[np.flatnonzero(self.classes_ == c)[0]])
                if owner != task:
                    raise ValueError(f"y: class {c} already belongs to task {owner}; allowed classes new to task {task}")
        for c in np.unique(y):
            if c not in self.classes_:
                self.classes_ = np.append(self.classes_, c)
                self.task_of_class_ = np.append(self.task_of_class_, task)
                self.counts_ = np.append(self.counts_, 0.0)
                self.means_ = np.vstack([self.means_, np.zeros(X.shape[1])])
        return X, y, task

    def _check_fitted(self, X):
        if self.n_features_in_ is None:
            raise ValueError("learner: not fitted; allowed after partial_fit(X, y, task)")
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X: shape {X.shape}; allowed (n, {self.n_features_in_})")
        return X

    def predict(self, X) -> np.ndarray:
        """The class-incremental prediction: argmax of the scores over every class seen."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]

    def predict_task_aware(self, X, task) -> np.ndarray:
        """The task-aware prediction: argmax over the classes of ``task`` (an int or one per row)."""
        scores = self.decision_function(X)
        task = np.broadcast_to(np.asarray(task), (len(scores),))
        masked = np.where(self.task_of_class_[None, :] == task[:, None], scores, -np.inf)
        return self.classes_[np.argmax(masked, axis=1)]


class SLDA(_Prototypes):
    """Streaming LDA: running class means and a shared (pooled within-class) covariance.

    Parameters
    ----------
    epsilon : float
        Shrinkage towards the identity at prediction, ``Λ = pinv((1−ε)Σ + εI)`` (Deep_SLDA: 1e-4).

    Examples
    --------
    >>> X = np.array([[0., 0.], [1., 1.], [6., 0.], [7., 1.]])
    >>> SLDA().partial_fit(X[:2], np.array([0, 0]), 0).partial_fit(X[2:], np.array([1, 1]), 1).predict(X).tolist()
    [0, 0, 1, 1]
    """

    def __init__(self, epsilon: float = 1e-4):
        super().__init__()
        if not 0.0 <= float(epsilon) <= 1.0:
            raise ValueError(f"epsilon: {epsilon} is out of range; allowed in [0, 1]")
        self.epsilon = float(epsilon)
        self.scatter_ = None
        self._cache = None

    def partial_fit(self, X, y, task: int) -> "SLDA":
        """Merge a batch into the class means and the pooled within-class scatter (exact)."""
        X, y, task = self._register(X, y, task)
        if self.scatter_ is None:
            self.scatter_ = np.zeros((X.shape[1], X.shape[1]))
        for c in np.unique(y):
            k = int(np.flatnonzero(self.classes_ == c)[0])
            Xb = X[y == c]
            nb, mb = len(Xb), Xb.mean(axis=0)
            na, ma = self.counts_[k], self.means_[k]
            d = Xb - mb
            self.scatter_ += d.T @ d + (na * nb / (na + nb)) * np.outer(ma - mb, ma - mb)
            self.means_[k] = (na * ma + nb * mb) / (na + nb)
            self.counts_[k] = na + nb
        self._cache = None
        return self

    @property
    def covariance_(self) -> np.ndarray:
        """Σ = S / n: the pooled within-class covariance (sklearn LDA's ``covariance_``)."""
        return self.scatter_ / self.counts_.sum()

    def decision_function(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        if self._cache is None:
            d = self.n_features_in_
            precision = np.linalg.pinv((1 - self.epsilon) * self.covariance_ + self.epsilon * np.eye(d))
            W = precision @ self.means_.T
            self._cache = (W, 0.5 * np.einsum("kd,dk->k", self.means_, W))
        W, c = self._cache
        return X @ W - c


class RanPAC(_Prototypes):
    """Random projection + ReLU, then a ridge readout on one-hot targets from accumulated Gram matrices.

    Parameters
    ----------
    n_random : int
        M, the width of the random projection (RanPAC uses 10000; we default to 500 on CPU).
    lam : float or None
        The ridge λ; None chooses it per task from 10^{-8..8} by an 80/20 split of the current
        task's features, as RanPAC does.
    seed : int
        Seed of ``W_rand ~ N(0, 1)``.
    """

    def __init__(self, n_random: int = 500, lam: float | None = None, seed: int = 0):
        super().__init__()
        if isinstance(n_random, bool) or not isinstance(n_random, (int, np.integer)) or not 1 <= n_random <= 20000:
            raise ValueError(f"n_random: {n_random!r} is out of range; allowed integers in [1, 20000]")
        if lam is not None and not (np.isfinite(lam) and lam > 0):
            raise ValueError(f"lam: {lam!r} is not a ridge; allowed > 0, or None to choose by validation")
        self.n_random, self.lam, self.seed = int(n_random), lam, seed
        self.W_rand_ = None
        self.G_ = self.Q_ = None
        self.lam_ = None
        self.readout_ = None

    def project(self, X) -> np.ndarray:
        """h = ReLU(x W_rand)."""
        return np.maximum(np.asarray(X, dtype=float) @ self.W_rand_, 0.0)

    def partial_fit(self, X, y, task: int) -> "RanPAC":
        X, y, task = self._register(X, y, task)
        if self.W_rand_ is None:
            self.W_rand_ = make_rng(self.seed).standard_normal((X.shape[1], self.n_random))
            self.G_ = np.zeros((self.n_random, self.n_random))
            self.Q_ = np.zeros((self.n_random, 0))
        for c in np.unique(y):
            self.counts_[self.classes_ == c] += np.sum(y == c)
        H = self.project(X)
        Y = (y[:, None] == self.classes_[None, :]).astype(float)
        self.Q_ = np.hstack([self.Q_, np.zeros((self.n_random, len(self.classes_) - self.Q_.shape[1]))])
        self.G_ += H.T @ H
        self.Q_ += H.T @ Y
        self.lam_ = float(self.lam) if self.lam is not None else self.choose_ridge(H, Y)
        self.readout_ = np.linalg.solve(self.G_ + self.lam_ * np.eye(self.n_random), self.Q_).T
        return self

    def choose_ridge(self, H, Y) -> float:
        """RanPAC's ``optimise_ridge_parameter``: the λ with least validation MSE on an 80/20 split."""
        n = len(H)
        cut = int(0.8 * n)
        if cut < 1 or cut >= n:
            return 1.0
        # One eigendecomposition serves every λ: (G + λI)⁻¹ = V diag(1/(s + λ)) Vᵀ.
        s, V = np.linalg.eigh(H[:cut].T @ H[:cut])
        VtQ, HvV = V.T @ (H[:cut].T @ Y[:cut]), H[cut:] @ V
        errors = [np.mean((HvV @ (VtQ / (s + lam)[:, None]) - Y[cut:]) ** 2) for lam in RIDGES]
        return float(RIDGES[int(np.argmin(errors))])

    def decision_function(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        return self.project(X) @ self.readout_.T


class NCM(_Prototypes):
    """Nearest class mean: ``metric="euclidean"`` (sklearn's NearestCentroid) or ``"cosine"`` (SimpleCIL)."""

    def __init__(self, metric: str = "cosine"):
        super().__init__()
        if metric not in ("euclidean", "cosine"):
            raise ValueError(f"metric: {metric!r} is not an option; allowed 'euclidean', 'cosine'")
        self.metric = metric

    def partial_fit(self, X, y, task: int) -> "NCM":
        X, y, task = self._register(X, y, task)
        _merge_means(self, X, y)
        return self

    def decision_function(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        if self.metric == "cosine":
            return _unit(X) @ _unit(self.means_).T
        return -(np.sum(X ** 2, axis=1)[:, None] - 2 * X @ self.means_.T + np.sum(self.means_ ** 2, axis=1)[None, :])


class FeCAM(_Prototypes):
    """Per-class Mahalanobis distances on normalised, optionally Tukey-transformed features.

    Parameters
    ----------
    tukey_beta : float or None
        β of the Tukey transform ``sign(x)|x|^β`` (FeCAM: 0.5); None for none.
    alpha1, alpha2 : float
        Shrinkage of the diagonal and off-diagonal (FeCAM: 1, 1).
    covariance : {"class", "identity"}
        "identity" replaces every class covariance by I (FeCAM then reduces to cosine NCM).
    """

    def __init__(self, tukey_beta: float | None = 0.5, alpha1: float = 1.0, alpha2: float = 1.0,
                 covariance: str = "class"):
        super().__init__()
        if covariance not in ("class", "identity"):
            raise ValueError(f"covariance: {covariance!r} is not an option; allowed 'class', 'identity'")
        if tukey_beta is not None and not 0 < float(tukey_beta) <= 1:
            raise ValueError(f"tukey_beta: {tukey_beta} is out of range; allowed (0, 1] or None")
        self.tukey_beta, self.alpha1, self.alpha2, self.covariance = tukey_beta, float(alpha1), float(alpha2), covariance
        self.scatters_: list[np.ndarray] = []
        self.precisions_: list[np.ndarray] | None = None

    def tukey(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        return X if self.tukey_beta is None else np.sign(X) * np.abs(X) ** self.tukey_beta

    def partial_fit(self, X, y, task: int) -> "FeCAM":
        X, y, task = self._register(X, y, task)
        X = self.tukey(X)
        while len(self.scatters_) < len(self.classes_):
            self.scatters_.append(np.zeros((X.shape[1], X.shape[1])))
        for c in np.unique(y):
            k = int(np.flatnonzero(self.classes_ == c)[0])
            Xb = X[y == c]
            nb, mb = len(Xb), Xb.mean(axis=0)
            na, ma = self.counts_[k], self.means_[k]
            d = Xb - mb
            self.scatters_[k] += d.T @ d + (na * nb / (na + nb)) * np.outer(ma - mb, ma - mb)
            self.means_[k] = (na * ma + nb * mb) / (na + nb)
            self.counts_[k] = na + nb
        self.precisions_ = None
        return self

    def class_covariance(self, k: int) -> np.ndarray:
        """FeCAM's shrunk, correlation-normalised covariance of class ``k`` (``np.cov``: n − 1)."""
        d = self.n_features_in_
        if self.covariance == "identity":
            return np.eye(d)
        cov = self.scatters_[k] / max(self.counts_[k] - 1, 1)
        diag = np.diag(cov).mean()
        off = (cov.sum() - np.trace(cov)) / max(d * d - d, 1)
        cov = cov + self.alpha1 * diag * np.eye(d) + self.alpha2 * off * (1 - np.eye(d))
        sd = np.sqrt(np.diag(cov))
        return cov / np.outer(sd, sd)

    def decision_function(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        if self.precisions_ is None:
            self.precisions_ = [np.linalg.pinv(self.class_covariance(k)) for k in range(len(self.classes_))]
        Xn, M = _unit(self.tukey(X)), _unit(self.means_)
        out = np.empty((len(X), len(self.classes_)))
        for k, P in enumerate(self.precisions_):
            D = Xn - M[k]
            out[:, k] = -np.einsum("ij,jk,ik->i", D, P, D)
        return out


def _merge_means(model: _Prototypes, X, y) -> None:
    for c in np.unique(y):
        k = int(np.flatnonzero(model.classes_ == c)[0])
        nb = np.sum(y == c)
        model.means_[k] = (model.counts_[k] * model.means_[k] + X[y == c].sum(axis=0)) / (model.counts_[k] + nb)
        model.counts_[k] += nb


def _unit(X) -> np.ndarray:
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


def make_learner(name: str, seed: int = 0):
    """A fresh learner by name (one of :data:`LEARNERS`), with the anchors' default settings."""
    if name == "slda":
        return SLDA()
    if name == "ranpac":
        return RanPAC(seed=seed)
    if name == "fecam":
        return FeCAM()
    if name == "ncm":
        return NCM("cosine")
    raise ValueError(f"learner: {name!r} is not an option; allowed {', '.join(map(repr, LEARNERS))}")


@dataclass
class TaskConfusion:
    """Class-IL and task-aware accuracy from the same scores, their gap, and the task confusion matrix.

    Attributes
    ----------
    acc_cil : float
        Class-incremental accuracy: argmax over every class seen.
    acc_til : float
        Task-aware accuracy: argmax over the classes of the sample's own task.
    tc_gap : float
        ``acc_til − acc_cil`` (never negative).
    confusion : numpy.ndarray
        (T, T); ``confusion[s, t]`` is the share of test samples of task s whose class-IL prediction
        lies in task t.
    n_test : int
        Number of scored samples.
    """

    acc_cil: float
    acc_til: float
    tc_gap: float
    confusion: np.ndarray
    n_test: int


def task_confusion(scores, y, classes, task_of_class) -> TaskConfusion:
    """Score class-IL against task-aware accuracy.

    Parameters
    ----------
    scores : array (n, C)
        One column per class, in ``classes`` order.
    y : array (n,)
        True classes.
    classes, task_of_class : arrays (C,)
        The class of each column and its task.

    Returns
    -------
    TaskConfusion
        ``tc_gap = Acc_TIL − Acc_CIL ≥ 0`` (a correct class-IL prediction is correct task-aware too).

    Examples
    --------
    >>> scores = np.array([[3., 1., 0., 2.], [1., 0., 0., 3.]])
    >>> tc = task_confusion(scores, np.array([0, 0]), np.array([0, 1, 2, 3]), np.array([0, 0, 1, 1]))
    >>> tc.acc_cil, tc.acc_til, tc.tc_gap
    (0.5, 1.0, 0.5)
    """
    scores, y = np.asarray(scores, dtype=float), np.asarray(y)
    classes, task_of_class = np.asarray(classes), np.asarray(task_of_class)
    index = {int(c): k for k, c in enumerate(classes)}
    if y.shape != (len(scores),) or any(int(c) not in index for c in np.unique(y)):
        raise ValueError("y: labels must be classes the scores have a column for; allowed one per row")
    true_task = task_of_class[[index[int(c)] for c in y]]
    cil = np.argmax(scores, axis=1)
    til = np.argmax(np.where(task_of_class[None, :] == true_task[:, None], scores, -np.inf), axis=1)
    acc_cil, acc_til = float(np.mean(classes[cil] == y)), float(np.mean(classes[til] == y))
    tasks = np.unique(task_of_class)
    pred_task = task_of_class[cil]
    conf = np.array([[np.mean(pred_task[true_task == s] == t) if np.any(true_task == s) else 0.0 for t in tasks]
                     for s in tasks])
    return TaskConfusion(acc_cil, acc_til, acc_til - acc_cil, conf, len(y))


def fit_incrementally(learner, X, y, tasks) -> "SLDA | RanPAC | FeCAM | NCM":
    """Fit a learner task by task: ``partial_fit`` on each task in increasing task order.

    Parameters
    ----------
    learner : SLDA, RanPAC, FeCAM or NCM
        A fresh (or partly fitted) learner.
    X : array (n, d)
        Features.
    y, tasks : arrays (n,)
        Class and task of each row.

    Returns
    -------
    SLDA, RanPAC, FeCAM or NCM
        The same learner, fitted on every task.

    Examples
    --------
    >>> X = np.array([[0., 0.], [0., 1.], [5., 0.], [5., 1.]])
    >>> model = fit_incrementally(NCM("euclidean"), X, np.array([0, 1, 2, 3]), np.array([0, 0, 1, 1]))
    >>> model.classes_.tolist(), model.task_of_class_.tolist()
    ([0, 1, 2, 3], [0, 0, 1, 1])
    """
    tasks = np.asarray(tasks)
    for t in np.unique(tasks):
        learner.partial_fit(X[tasks == t], y[tasks == t], int(t))
    return learner
