"""LoRA adapters on a linear head through peft, the pretrained head, and the max-margin oracle.

The head is a bias-free ``torch.nn.Linear`` named ``fc`` (classes x features) holding the pretrained
``W0``; peft wraps it (``LoraConfig(r, lora_alpha=r, target_modules=["fc"])``, so peft's scaling
``lora_alpha / r`` is 1 and ``dW = B A``). An adapter is trained on one task's features with

    mean cross-entropy of (W0 + B A) x  +  lam (||A||_F^2 + ||B||_F^2),

full batch, by L-BFGS with a strong-Wolfe line search in float64 (ours: the paper's optimiser is not in
the abstract; a converged optimum is what its theory characterises, so we use a second-order method
rather than many Adam steps). At an optimum over factorisations ||A||^2 + ||B||^2 = 2 ||BA||_*, so the
adapter solves cross-entropy + 2 lam ||dW||_* (a nuclear-norm penalty); its max-margin limit is the
nuclear-norm SVM, which coincides with the Frobenius Crammer-Singer SVM (our oracle, scikit-learn's
``LinearSVC(multi_class="crammer_singer")``) when the task's class means are orthogonal, as in our
synthetic tasks. On other data the two differ and the cosine measures that difference too.

torch and peft are imported inside the functions (peft takes seconds to import).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from core.common.config import Config, check_range, param
from core.common.progress import report
from core.common.seeding import check_seed, derive_seed, torch_seeded
from core.malora.margins import _check, task_margin

if TYPE_CHECKING:
    from peft import LoraConfig, PeftModel


@dataclass(frozen=True)
class AdapterConfig(Config):
    """How one LoRA adapter is trained (:func:`train_adapter`).

    Examples
    --------
    >>> AdapterConfig(rank=4).to_dict()
    {'rank': 4, 'lam': 0.001, 'steps': 30}
    """

    rank: int = param(2, low=1, high=16, integer=True, doc="LoRA rank r")
    lam: float = param(1e-3, low=1e-6, high=1.0, doc="weight of ||A||^2 + ||B||^2")
    steps: int = param(30, low=1, high=500, integer=True, doc="L-BFGS calls of up to 25 iterations each")


@dataclass
class Adapter:
    """A trained LoRA adapter: ``delta = scaling * B @ A`` (peft's ``get_delta_weight``).

    Attributes
    ----------
    A : ndarray of shape (rank, d)
        peft's ``lora_A`` weight.
    B : ndarray of shape (n_classes, rank)
        peft's ``lora_B`` weight.
    scaling : float
        peft's ``lora_alpha / r`` (1 here).
    lam : float
        The regularisation weight it was trained with.
    task : int
        The fine-tuning task it was trained on (1..T).
    loss : ndarray of shape (calls,)
        The objective after each L-BFGS call.

    Examples
    --------
    >>> ad = Adapter(np.ones((1, 2)), np.array([[1.0], [-1.0]]), 1.0, 1e-3, 1)
    >>> ad.delta, ad.rank
    (array([[ 1.,  1.],
           [-1., -1.]]), 1)
    """

    A: np.ndarray
    B: np.ndarray
    scaling: float
    lam: float
    task: int
    loss: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def delta(self) -> np.ndarray:
        """The update ``scaling * B @ A`` of shape (n_classes, d)."""
        return self.scaling * self.B @ self.A

    @property
    def rank(self) -> int:
        """The LoRA rank r (rows of ``A``)."""
        return int(self.A.shape[0])


def fit_head(X: np.ndarray, y: np.ndarray, n_classes: int, lam: float = 1e-3) -> np.ndarray:
    """The pretrained head: the l2-regularised multinomial logistic regression without bias.

    .. math:: W_0 = \\arg\\min_W \\frac1n \\sum_i \\ell_{CE}(W x_i, y_i) + \\lambda \\lVert W \\rVert_F^2

    solved by SciPy's L-BFGS-B from zero with the exact gradient.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The pretraining task's features.
    y : ndarray of shape (n,)
        Its labels in ``0..n_classes-1``.
    n_classes : int
        Rows of the head (>= 2); classes absent from ``y`` get rows that the loss pushes down.
    lam : float
        The l2 weight, > 0.

    Returns
    -------
    ndarray of shape (n_classes, d)
        ``W0``.

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1])
    >>> W0 = fit_head(X, y, 3, lam=0.1)
    >>> W0.shape, accuracy(W0, X, y)
    ((3, 2), 1.0)
    """
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    n_classes = check_range("n_classes", n_classes, 2, None, integer=True)
    lam = check_range("lam", lam, 0.0, None, low_open=True)
    _check(np.zeros((n_classes, np.shape(X)[-1] if np.ndim(X) == 2 else 0)), X, y)
    X, y = np.asarray(X, float), np.asarray(y, int)
    n, d = X.shape
    Y = np.eye(n_classes)[y]

    def loss(w):
        W = w.reshape(n_classes, d)
        Z = X @ W.T
        lse = logsumexp(Z, axis=1)
        P = np.exp(Z - lse[:, None])
        value = np.mean(lse - (Z * Y).sum(1)) + lam * (w @ w)
        grad = (P - Y).T @ X / n + 2 * lam * W
        return value, grad.ravel()

    res = minimize(loss, np.zeros(n_classes * d), jac=True, method="L-BFGS-B",
                   options={"maxiter": 5000, "gtol": 1e-10, "ftol": 1e-14})
    return res.x.reshape(n_classes, d)


def _check_adapters(W0: np.ndarray, adapters) -> None:
    if W0.ndim != 2 or not len(adapters) or any(not hasattr(a, "A") or a.delta.shape != W0.shape for a in adapters):
        raise ValueError(f"adapters: need at least one Adapter whose update fits W0 of shape {W0.shape}; "
                         "allowed a non-empty list of Adapters of that shape")


def _head(W0: np.ndarray):
    import torch

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(W0.shape[1], W0.shape[0], bias=False, dtype=torch.float64)
            with torch.no_grad():
                self.fc.weight.copy_(torch.as_tensor(W0, dtype=torch.float64))

        def forward(self, x):
            return self.fc(x)

    return Head()


def lora_config(rank: int) -> LoraConfig:
    from peft import LoraConfig

    return LoraConfig(r=int(rank), lora_alpha=int(rank), target_modules=["fc"], lora_dropout=0.0,
                      init_lora_weights=True)


def train_adapter(W0: np.ndarray, X: np.ndarray, y: np.ndarray, config: AdapterConfig | None = None, seed: int = 0,
                  task: int = 1, progress=None) -> Adapter:
    """Train one LoRA adapter (peft) on a task from the frozen head ``W0``.

    The objective, full batch, minimised by torch's L-BFGS (strong Wolfe, float64):

    .. math:: \\frac1n \\sum_i \\ell_{CE}((W_0 + BA) x_i, y_i) + \\lambda (\\lVert A \\rVert_F^2
              + \\lVert B \\rVert_F^2)

    Parameters
    ----------
    W0 : ndarray of shape (n_classes, d)
        The frozen pretrained head.
    X : ndarray of shape (n, d)
        The fine-tuning task's training features.
    y : ndarray of shape (n,)
        Its labels in ``0..n_classes-1``.
    config : AdapterConfig, optional
        Rank, lambda and the number of L-BFGS calls (default ``AdapterConfig()``).
    seed : int
        Seeds peft's initialisation of A (Kaiming uniform; B starts at zero), through a child seed
        per ``task``.
    task : int
        The task's index (>= 1), recorded in the adapter and part of the child seed.
    progress : callable, optional
        ``progress(step, total, metrics)`` after each L-BFGS call with ``loss`` and ``task margin``;
        returning False stops (the adapter so far is returned).

    Returns
    -------
    Adapter
        ``A`` (r, d), ``B`` (n_classes, r), peft's ``scaling``, ``lam``, ``task`` and the loss after
        each call.

    References
    ----------
    .. [1] "Margin-based LoRA merging" (MaLoRA), NeurIPS 2026, ``docs/PAPERS.md``: the optimal adapter aligns with the
       max-margin solution in an intermediate regime of lambda.

    Examples
    --------
    >>> tasks = synthetic_tasks(n_tasks=1, n_per_class=5, n_test_per_class=1, seed=0)
    >>> W0 = fit_head(tasks.X_train[0], tasks.y_train[0], 3)
    >>> ad = train_adapter(W0, tasks.X_train[1], tasks.y_train[1], AdapterConfig(steps=2))
    >>> ad.A.shape, ad.B.shape, len(ad.loss), accuracy(W0 + ad.delta, tasks.X_train[1], tasks.y_train[1])
    ((2, 9), (3, 2), 2, 1.0)
    """
    config = config or AdapterConfig()
    if not isinstance(config, AdapterConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed an AdapterConfig")
    seed = check_seed(seed)
    task = check_range("task", task, 1, None, integer=True)
    W0, X, y = _check(W0, X, y)
    import torch
    from peft import get_peft_model

    with torch_seeded(derive_seed(seed, "lora-init", task)):
        model = get_peft_model(_head(W0), lora_config(config.rank)).double()
    fc = model.base_model.model.fc
    A, B = fc.lora_A["default"].weight, fc.lora_B["default"].weight
    Xt, yt = torch.as_tensor(np.asarray(X, float)), torch.as_tensor(np.asarray(y, int))
    opt = torch.optim.LBFGS([A, B], lr=1.0, max_iter=25, history_size=20, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-11, tolerance_change=1e-15)

    def objective():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(Xt), yt) + config.lam * (A.pow(2).sum() + B.pow(2).sum())
        loss.backward()
        return loss

    losses = []
    for step in range(1, config.steps + 1):
        loss = float(opt.step(objective).detach())
        losses.append(loss)
        delta = fc.get_delta_weight("default").detach().numpy()
        if not report(progress, step, config.steps, {"loss": loss, "task margin": task_margin(W0 + delta, X, y)}):
            break
    return Adapter(A.detach().numpy().copy(), B.detach().numpy().copy(), float(fc.scaling["default"]),
                   config.lam, int(task), np.array(losses))


def peft_model(W0: np.ndarray, adapters: Sequence[Adapter]) -> PeftModel:
    """A peft model on the head ``W0`` holding the adapters as ``task1``, ``task2``, ... (for peft's merges).

    Parameters
    ----------
    W0 : ndarray of shape (n_classes, d)
        The base head, the weight of the wrapped ``fc`` layer.
    adapters : sequence of Adapter
        At least one; their ``A`` and ``B`` are copied into peft's LoRA layers.

    Returns
    -------
    peft.PeftModel
        In float64; ``model.base_model.model.fc`` is the LoRA layer.

    Examples
    --------
    >>> ad = Adapter(np.ones((1, 2)), np.array([[1.0], [-1.0]]), 1.0, 1e-3, 1)
    >>> model = peft_model(np.eye(2), [ad, ad])
    >>> sorted(model.peft_config)
    ['task1', 'task2']
    >>> model.base_model.model.fc.get_delta_weight("task2").tolist()
    [[1.0, 1.0], [-1.0, -1.0]]
    """
    import torch
    from peft import get_peft_model

    W0 = np.asarray(W0, dtype=float)
    _check_adapters(W0, adapters)
    model = None
    for i, ad in enumerate(adapters, start=1):
        name = f"task{i}"
        if model is None:
            model = get_peft_model(_head(W0), lora_config(ad.rank), adapter_name=name)
        else:
            model.add_adapter(name, lora_config(ad.rank))
        model = model.double()
        fc = model.base_model.model.fc
        with torch.no_grad():
            fc.lora_A[name].weight.copy_(torch.as_tensor(ad.A))
            fc.lora_B[name].weight.copy_(torch.as_tensor(ad.B))
    return model


def peft_merge(W0: np.ndarray, adapters: Sequence[Adapter], weights: Sequence[float], combination_type: str, *,
               svd_rank: int | None = None, density: float | None = None, majority_sign_method: str = "total",
               seed: int = 0) -> np.ndarray:
    """peft's own ``add_weighted_adapter`` on the adapters; returns the merged adapter's ``dW``.

    This is the reference our :func:`core.malora.merging.merge` is tested against (the ``*_svd`` types
    and ``cat``) and the source of the ``peft linear`` row (which merges A and B separately, so its
    dW is not the weighted sum of the dWs; peft issue 3004). Random types are drawn under ``seed``
    (peft draws from torch's global generator; :func:`torch_seeded` restores it afterwards).

    Parameters
    ----------
    W0 : ndarray of shape (n_classes, d)
        The base head.
    adapters : sequence of Adapter
        The adapters to merge, at least one, all on ``W0``'s shape.
    weights : sequence of float
        One weight per adapter.
    combination_type : str
        peft's combination type (``"linear"``, ``"cat"``, ``"svd"``, ``"ties_svd"``, ...); peft checks it.
    svd_rank : int, optional
        The rank of the ``*_svd`` types (peft's default: the largest adapter rank).
    density : float, optional
        Share of entries kept by the TIES, DARE and magnitude-prune types, in (0, 1].
    majority_sign_method : {"total", "frequency"}
        TIES's sign election.
    seed : int
        Seeds the DARE masks (the same child seed as :func:`~core.malora.merging.merged_delta`).

    Returns
    -------
    ndarray of shape (n_classes, d)
        The merged adapter's ``get_delta_weight``.

    Examples
    --------
    >>> a1 = Adapter(np.array([[1.0, 0.0]]), np.array([[1.0], [0.0]]), 1.0, 1e-3, 1)
    >>> a2 = Adapter(np.array([[0.0, 1.0]]), np.array([[0.0], [1.0]]), 1.0, 1e-3, 2)
    >>> peft_merge(np.zeros((2, 2)), [a1, a2], [1.0, 2.0], "cat").tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    w = np.asarray(weights, dtype=float)
    if w.shape != (len(adapters),) or not np.all(np.isfinite(w)):
        raise ValueError(f"weights: {w.size} weights for {len(adapters)} adapters; allowed one finite number each")
    if density is not None:
        density = check_range("density", density, 0.0, 1.0, low_open=True)
    if majority_sign_method not in ("total", "frequency"):
        raise ValueError(f"majority_sign_method: {majority_sign_method!r}; allowed 'total', 'frequency'")
    model = peft_model(W0, adapters)
    names = [f"task{i}" for i in range(1, len(adapters) + 1)]
    with torch_seeded(derive_seed(check_seed(seed), "dare")):   # the same draws as merged_delta
        model.add_weighted_adapter(names, [float(v) for v in w], "merged", combination_type=combination_type,
                                   svd_rank=svd_rank, density=density, majority_sign_method=majority_sign_method)
    fc = model.base_model.model.fc
    return fc.get_delta_weight("merged").detach().double().numpy()


def max_margin_classifier(X: np.ndarray, y: np.ndarray, n_classes: int, C: float = 1e4) -> np.ndarray:
    """The Crammer-Singer multiclass SVM (scikit-learn ``LinearSVC``, no intercept, large ``C``).

    With separable data and large ``C`` it is the hard-margin max-margin classifier

    .. math:: \\arg\\min_W \\lVert W \\rVert_F \\quad \\text{s.t.} \\quad
              (w_{y_i} - w_j)^\\top x_i \\ge 1 \\;\\; \\forall i, j \\ne y_i,

    the oracle the MaLoRA theory's adapters align with.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The task's features.
    y : ndarray of shape (n,)
        Its labels in ``0..n_classes-1`` (at least two distinct).
    n_classes : int
        Rows of the returned classifier (>= 2).
    C : float
        The SVM's inverse regularisation, > 0; large means hard margin.

    Returns
    -------
    ndarray of shape (n_classes, d)
        Rows for the classes present in ``y`` (in label order); absent classes get zero rows.

    References
    ----------
    .. [1] Crammer, K. and Singer, Y. (2001), "On the algorithmic implementation of multiclass
       kernel-based vector machines", JMLR 2.

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, 2.0]]), np.array([0, 1, 0, 1])
    >>> W = max_margin_classifier(X, y, 2)
    >>> round(task_margin(W, X, y), 2)
    1.0
    """
    from sklearn.svm import LinearSVC

    n_classes = check_range("n_classes", n_classes, 2, None, integer=True)
    C = check_range("C", C, 0.0, None, low_open=True)
    _check(np.zeros((n_classes, np.shape(X)[-1] if np.ndim(X) == 2 else 0)), X, y)
    X, y = np.asarray(X, float), np.asarray(y, int)
    if len(np.unique(y)) < 2:
        raise ValueError("y: a single class; allowed labels of at least 2 classes")
    present = np.unique(y)
    svc = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, max_iter=200_000, tol=1e-8)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svc.fit(X, y)
    coef = svc.coef_ if len(present) > 2 else np.vstack([-svc.coef_[0] / 2, svc.coef_[0] / 2])
    W = np.zeros((n_classes, X.shape[1]))
    W[present] = coef
    return W


def cosine(U: np.ndarray, V: np.ndarray) -> float:
    """Cosine of the angle between two matrices as vectors, ``<vec U, vec V> / (||U||_F ||V||_F)``.

    Parameters
    ----------
    U : ndarray
        Any shape, not all zero.
    V : ndarray
        The same number of entries as ``U``, not all zero.

    Returns
    -------
    float
        In [-1, 1].

    Examples
    --------
    >>> round(cosine(np.eye(2), np.array([[1.0, 0.0], [0.0, 0.0]])), 3)
    0.707
    """
    u, v = np.ravel(np.asarray(U, dtype=float)), np.ravel(np.asarray(V, dtype=float))
    if u.size != v.size or u.size == 0:
        raise ValueError(f"V: {v.size} entries against {u.size} in U; allowed the same, non-zero number")
    if not np.any(u) or not np.any(v):
        raise ValueError("U: a zero matrix has no angle; allowed matrices that are not all zero")
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
