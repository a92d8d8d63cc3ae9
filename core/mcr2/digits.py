"""MCR² on a network's output: an MLP on scikit-learn's ``load_digits``, against cross-entropy.

The MLP (64 → hidden → d, ReLU, our sizes) is trained full-batch with Adam either to maximise the
regularised F(f_θ(X)) of :mod:`core.mcr2.objective` (written again in torch, checked against the
NumPy version in the tests) or, the control, to minimise cross-entropy through a linear head on the
same d-dimensional features. Inputs are scaled to [0, 1]; the split is a seeded stratified 75/25.

Every ``track_every`` epochs the training features Z = f_θ(X) are also measured as the free-feature
ascent is (:mod:`.ascent`): the MCR² objective F at the config's ε and λ, ‖∇_Z F‖ (the gradient on
the features, not on θ), the distance to the closed-form maximiser set 𝒳*(r) of the features' own
rank pattern, the gap F*(r) − F, the PL ratio ‖∇_Z F‖²/(F*(r) − F) and the gap's contraction
between measurements. Ours: the network is trained with Adam, not gradient ascent on Z, so these
say how close its output comes to the free-feature maximisers, not whether the paper's rate holds
for θ; for the cross-entropy control the same F is measured on its features (F is not its loss).

Geometry is measured on the test features of both, scaled to unit norm per sample (so that the two
losses' scales do not matter): ΔR at ε = 0.5 (λ = 0), the largest cross-class subspace cosine of
the classes' principal subspaces (the top directions holding 90% of each class's energy, ours) and
their mean dimension. Downstream accuracy is scikit-learn's LogisticRegression on the raw
features, so both are read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_seed
from core.mcr2.objective import check_features, rate_reduction

OBJECTIVES = ("mcr2", "cross_entropy")


@dataclass(frozen=True)
class DigitsConfig(Config):
    """The digits MLP (64 → hidden → d, ReLU), its loss and its full-batch Adam run.

    Examples
    --------
    >>> DigitsConfig(objective="cross_entropy").feature_dim
    32
    """

    objective: str = choice("mcr2", OBJECTIVES, doc="the training loss: MCR² (maximise F) or cross-entropy")
    feature_dim: int = param(32, low=4, high=64, integer=True, doc="feature dimension d of the MLP's output")
    hidden: int = param(128, low=8, high=512, integer=True, doc="width of the hidden layer")
    eps_sq: float = param(0.5, low=0.01, high=10.0, doc="ε² of the MCR² loss")
    lam: float = param(0.001, low=0.0, high=1.0, doc="regularisation λ of the MCR² loss")
    lr: float = param(1e-3, low=0.0, high=0.1, low_open=True, doc="Adam's learning rate")
    epochs: int = param(300, low=1, high=5000, integer=True, doc="full-batch epochs")
    track_every: int = param(10, low=1, high=1000, integer=True,
                             doc="epochs between measurements of the features' gap, gradient and distance")


@dataclass
class Geometry:
    """Geometry of unit-norm features: their rate reduction and how orthogonal the class subspaces are.

    Attributes
    ----------
    rate_reduction : float
        ΔR (λ = 0) of the unit-norm features at ε = 0.5.
    max_cosine : float
        The largest cross-class subspace cosine (0: orthogonal classes).
    mean_cosine : float
        The mean over class pairs of that cosine.
    mean_dim : float
        The mean dimension of the classes' 90%-energy subspaces.
    """

    rate_reduction: float       # ΔR of the unit-norm test features at ε = 0.5
    max_cosine: float           # largest cross-class subspace cosine
    mean_cosine: float          # mean over class pairs of that cosine
    mean_dim: float             # mean dimension of the classes' 90%-energy subspaces


@dataclass
class DigitsResult:
    """A digits run: its loss curve, downstream accuracy and the geometry of its test features.

    Attributes
    ----------
    config : DigitsConfig
        The run's configuration.
    seed : int
        The split and the MLP's initialisation.
    loss : numpy.ndarray
        ``(epochs_done,)`` per epoch: −F for mcr2, cross-entropy otherwise.
    test_accuracy : float
        Logistic regression on the test features.
    train_accuracy : float
        The same on the training features.
    geometry : Geometry
        Of the test features.
    raw_geometry : Geometry
        The same on the input pixels (no training): the control.
    epochs_done : int
        Epochs run (fewer than ``config.epochs`` when stopped).
    tracked_epochs : numpy.ndarray
        ``(E,)`` the epochs at which the training features were measured (0: the initialisation).
    feature_objective : numpy.ndarray
        ``(E,)`` F(Z) of the training features at the config's ε and λ.
    feature_grad_norm : numpy.ndarray
        ``(E,)`` ‖∇_Z F‖_F on the features.
    feature_distance : numpy.ndarray
        ``(E,)`` dist(Z, 𝒳*(r)) for the features' own rank pattern r.
    feature_gap : numpy.ndarray
        ``(E,)`` F*(r) − F(Z), F*(r) the closed-form maximiser value of that pattern.
    feature_pl_ratio : numpy.ndarray
        ``(E,)`` ‖∇_Z F‖² / gap (NaN where the gap is not positive).
    feature_contraction : numpy.ndarray
        ``(E - 1,)`` gap ratio between consecutive measurements.
    """

    config: DigitsConfig
    seed: int
    loss: np.ndarray            # per epoch: −F for mcr2, cross-entropy otherwise
    test_accuracy: float
    train_accuracy: float
    geometry: Geometry
    raw_geometry: Geometry      # the same on the input pixels (no training)
    epochs_done: int
    tracked_epochs: np.ndarray
    feature_objective: np.ndarray
    feature_grad_norm: np.ndarray
    feature_distance: np.ndarray
    feature_gap: np.ndarray
    feature_pl_ratio: np.ndarray
    feature_contraction: np.ndarray


def feature_metrics(Z: np.ndarray, labels: np.ndarray, eps: float, lam: float) -> tuple[float, float, float, float]:
    """(F, ‖∇_Z F‖, dist to 𝒳*(r), F*(r) − F) of features Z (n, d) (rows are samples) with their own pattern r."""
    from core.mcr2.maximisers import distance_to_maximisers, maximiser_value, rank_pattern
    from core.mcr2.objective import rate_reduction_grad

    W = np.ascontiguousarray(Z.T)
    value = rate_reduction(W, labels, eps, lam)
    grad = float(np.linalg.norm(rate_reduction_grad(W, labels, eps, lam)))
    if lam <= 0:   # no closed-form maximiser without the regulariser
        return value, grad, float("nan"), float("nan")
    ranks = rank_pattern(W, labels, eps, lam)
    dist = distance_to_maximisers(W, labels, eps, lam, ranks=ranks, max_iter=20).distance
    f_star = maximiser_value(ranks, W.shape[0], np.bincount(labels), eps, lam)
    return value, grad, dist, f_star - value


def split_digits(seed: int):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, test_size=0.25, stratify=y, random_state=derive_seed(seed, "split") % 2**31)


def geometry(features: np.ndarray, labels: np.ndarray, energy: float = 0.9) -> Geometry:
    """Geometry metrics of features (n, d) with labels (n,), each sample scaled to unit norm.

    Parameters
    ----------
    features : numpy.ndarray
        ``(n, d)`` features, one row per sample (note: rows, unlike :func:`rate_reduction`).
    labels : numpy.ndarray
        ``(n,)`` integer classes 0..K-1, K >= 2, each non-empty.
    energy : float
        The share of a class's energy its principal subspace keeps, in (0, 1].

    Returns
    -------
    Geometry
        ΔR at ε = 0.5, the largest and mean cross-class subspace cosines, the mean subspace dimension.

    Examples
    --------
    >>> F = np.array([[1.0, 0.0], [2.0, 0.1], [0.0, 1.0], [0.1, 2.0]])
    >>> g = geometry(F, np.array([0, 0, 1, 1]))
    >>> round(g.rate_reduction, 3), round(g.max_cosine, 3), g.mean_dim
    (0.508, 0.05, 1.0)
    """
    features = np.asarray(features, dtype=float)
    if features.ndim != 2:
        raise ValueError(f"features: shape {features.shape}; allowed an (n, d) array, one row per sample")
    check_features(features.T, labels)
    labels = np.asarray(labels)
    if labels.max() < 1:
        raise ValueError("labels: a single class; allowed at least two classes 0..K-1")
    if not np.isfinite(energy) or not 0 < energy <= 1:
        raise ValueError(f"energy: {energy!r} is out of range; allowed (0, 1]")
    F = features / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-12)
    k = int(labels.max()) + 1
    bases = []
    for c in range(k):
        U, s, _ = np.linalg.svd(F[labels == c].T, full_matrices=False)
        share = np.cumsum(s**2) / np.sum(s**2)
        bases.append(U[:, : int(np.searchsorted(share, energy) + 1)])
    cos = [np.linalg.svd(bases[i].T @ bases[j], compute_uv=False).max() for i in range(k) for j in range(i + 1, k)]
    return Geometry(rate_reduction(F.T, labels, 0.5, 0.0), float(np.max(cos)), float(np.mean(cos)),
                    float(np.mean([b.shape[1] for b in bases])))


def torch_rate_reduction(Z, onehot, eps: float, lam: float):
    """F on torch features Z (n, d) (rows are samples), differentiable."""
    import torch

    n, d = Z.shape
    eye = torch.eye(d, dtype=Z.dtype)
    total = 0.5 * torch.logdet(eye + d / (n * eps**2) * Z.T @ Z)
    for c in range(onehot.shape[1]):
        Zc = Z[onehot[:, c] > 0]
        mc = Zc.shape[0]
        total = total - mc / (2 * n) * torch.logdet(eye + d / (mc * eps**2) * Zc.T @ Zc)
    return total - 0.5 * lam * (Z * Z).sum()


def train_digits(config: DigitsConfig | None = None, seed: int = 0, progress=None) -> DigitsResult:
    """Train the MLP with MCR² or cross-entropy on digits; accuracy and geometry of its test features.

    Parameters
    ----------
    config : DigitsConfig, optional
        The network, loss and run; default ``DigitsConfig()``.
    seed : int
        The stratified 75/25 split and the initialisation.
    progress : callable, optional
        ``progress(epoch, epochs, {"loss"})``; returning False stops after that epoch.

    Returns
    -------
    DigitsResult
        The loss curve, logistic-regression accuracies and the geometry of the test features
        (and of the raw pixels, the control).

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> run = train_digits(DigitsConfig(epochs=2, hidden=8, feature_dim=4), seed=0)   # imports torch
    >>> run.epochs_done, run.loss.shape, 0 <= run.test_accuracy <= 1, run.tracked_epochs.tolist()
    (2, (2,), True, [0, 2])
    """
    import torch
    from sklearn.linear_model import LogisticRegression

    from core.common.seeding import torch_seeded

    config = DigitsConfig() if config is None else config
    if not isinstance(config, DigitsConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a DigitsConfig")
    Xtr, Xte, ytr, yte = split_digits(seed)
    xtr = torch.tensor(Xtr, dtype=torch.float64)
    onehot = torch.nn.functional.one_hot(torch.tensor(ytr), 10).double()
    with torch_seeded(derive_seed(seed, "mlp")):
        body = torch.nn.Sequential(torch.nn.Linear(64, config.hidden), torch.nn.ReLU(),
                                   torch.nn.Linear(config.hidden, config.feature_dim)).double()
        head = torch.nn.Linear(config.feature_dim, 10).double()
    params = list(body.parameters()) + (list(head.parameters()) if config.objective == "cross_entropy" else [])
    opt = torch.optim.Adam(params, lr=config.lr)
    losses, done, eps = [], 0, float(np.sqrt(config.eps_sq))
    target = torch.tensor(ytr)
    tracked, metrics = [], []

    def track(epoch):
        with torch.no_grad():
            tracked.append(epoch)
            metrics.append(feature_metrics(body(xtr).numpy(), ytr, eps, config.lam))

    track(0)
    for epoch in range(1, config.epochs + 1):
        opt.zero_grad()
        Z = body(xtr)
        if config.objective == "mcr2":
            loss = -torch_rate_reduction(Z, onehot, eps, config.lam)
        else:
            loss = torch.nn.functional.cross_entropy(head(Z), target)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        done = epoch
        go_on = report(progress, epoch, config.epochs, {"loss": losses[-1]})
        if epoch % config.track_every == 0 or epoch == config.epochs or not go_on:
            track(epoch)
        if not go_on:
            break
    with torch.no_grad():
        ftr = body(xtr).numpy()
        fte = body(torch.tensor(Xte, dtype=torch.float64)).numpy()
    clf = LogisticRegression(max_iter=2000).fit(ftr, ytr)
    value, grad, dist, gap = (np.array(col, dtype=float) for col in zip(*metrics))
    with np.errstate(divide="ignore", invalid="ignore"):
        pl = np.where(gap > 0, grad**2 / gap, np.nan)
        contraction = np.where(gap[:-1] > 0, gap[1:] / gap[:-1], np.nan)
    return DigitsResult(config, int(seed), np.array(losses), float(clf.score(fte, yte)), float(clf.score(ftr, ytr)),
                        geometry(fte, yte), geometry(Xte, yte), done, np.array(tracked), value, grad, dist, gap, pl,
                        contraction)
