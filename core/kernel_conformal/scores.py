"""Nonconformity scores on residual vectors: MKS and the baselines it is compared with.

Every score has ``fit(R, X=None)`` on the fit split's residuals (and inputs, for the local ones)
and ``score(R, X=None)``; ``x_dependent`` says whether its region changes with x. The ellipsoidal
scores also return the region's shape (``shapes(X)``: one matrix per row) so that their volume is
exact.

- ``GlobalEllipsoid``: ||Sigma^(-1/2) r|| with Sigma = np.cov of the fit residuals (Messoudi et
  al.'s ellipsoidal CP, Johnstone & Cox's COPA), centred at the prediction.
- ``LocalEllipsoid``: the same with Sigma(x) = mix * Sigma_kNN(x) + (1 - mix) * Sigma, Sigma_kNN
  the covariance of the residuals of x's k nearest fit inputs (Messoudi et al.'s local variant);
  k = 10% of the fit split (at least 2d + 2) and mix = 0.9 are ours.
- ``CoordinateMax``: max_j |r_j| / sd_j, a box.
- ``MapieScore``: MAPIE's ``mapie.experimental.MultivariateResidualNormalisedScore``,
  ||Sigma(x)^(-1/2) r|| with Sigma(x) learned by MAPIE's Gaussian-NLL network (torch, imported on
  fit), or with a constant Sigma (``learned=False``: the library's score for our global ellipsoid).
  MAPIE's network is trained on the fit split's residuals here, for ``epochs`` epochs (ours: 60,
  the library's default is 300) under a torch seed derived from ours.
- ``KernelScore``: :class:`MultivariateKernelScore` behind the same interface.
"""

from __future__ import annotations

from typing import Union

import numpy as np

from core.kernel_conformal.kernels import MultivariateKernelScore

SCORES = ("mks", "ellipsoid", "local_ellipsoid", "coordinate_max", "mapie")
SCORE_LABELS = {"mks": "MKS (kernel score)", "ellipsoid": "global ellipsoid (Mahalanobis)",
                "local_ellipsoid": "local ellipsoid (k-NN Mahalanobis)", "coordinate_max": "per-coordinate max (box)",
                "mapie": "MAPIE normalised residual score, learned Σ(x)"}


def _inv_sqrt(S: np.ndarray) -> np.ndarray:
    vals, vecs = np.linalg.eigh(S)
    return (vecs / np.sqrt(vals)[..., None, :]) @ np.swapaxes(vecs, -1, -2)


class GlobalEllipsoid:
    """Messoudi et al.'s ellipsoidal score: the Mahalanobis norm of the residual, one region for every x.

    .. math:: s(r) = \\lVert \\Sigma^{-1/2} r \\rVert, \\qquad \\Sigma = \\mathrm{cov}(R_{\\mathrm{fit}}).

    Attributes
    ----------
    Sigma_ : numpy.ndarray
        ``(d, d)`` covariance of the fit residuals (np.cov, unbiased).
    W_ : numpy.ndarray
        ``(d, d)`` its inverse square root.

    References
    ----------
    .. [1] Messoudi, Destercke, Rousseau, "Ellipsoidal conformal inference for multi-target regression", 2022.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> R, X = rng.normal(size=(200, 2)) * [1.0, 3.0], rng.uniform(-1, 1, size=(200, 3))
    >>> GlobalEllipsoid().fit(R).score(np.array([[1.0, 0.0], [0.0, 3.0]])).round(3)
    array([1.02 , 0.992])
    """

    x_dependent = False

    def fit(self, R, X=None):
        self.Sigma_ = np.atleast_2d(np.cov(np.asarray(R, float).T))
        self.W_ = _inv_sqrt(self.Sigma_)
        return self

    def score(self, R, X=None):
        return np.linalg.norm(np.asarray(R, float) @ self.W_, axis=1)

    def shapes(self, X=None, m: int = 1):
        return np.broadcast_to(self.Sigma_, (m if X is None else len(X),) + self.Sigma_.shape)


class LocalEllipsoid:
    """Messoudi et al.'s local ellipsoid: the Mahalanobis norm under a k-NN covariance Σ(x).

    .. math:: \\Sigma(x) = \\mathrm{mix}\\, \\Sigma_{k\\mathrm{NN}}(x) + (1 - \\mathrm{mix})\\, \\Sigma.

    Parameters
    ----------
    k : int, optional
        Neighbours, >= 2; default 10% of the fit split, at least 2d + 2 (ours).
    mix : float
        Weight of the local covariance, in [0, 1] (ours: 0.9).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> R, X = rng.normal(size=(200, 2)) * [1.0, 3.0], rng.uniform(-1, 1, size=(200, 3))
    >>> local = LocalEllipsoid().fit(R, X)
    >>> local.k_, local.shapes(X[:2]).shape, local.score(R[:2], X[:2]).round(3)
    (20, (2, 2, 2), array([0.275, 0.774]))
    """

    x_dependent = True

    def __init__(self, k: int | None = None, mix: float = 0.9):
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2):
            raise ValueError(f"k: {k!r} is not a neighbour count; allowed an integer >= 2 or None")
        if isinstance(mix, bool) or not np.isfinite(mix) or not 0 <= mix <= 1:
            raise ValueError(f"mix: {mix!r} is out of range; allowed [0, 1]")
        self.k, self.mix = k, float(mix)

    def fit(self, R, X):
        from sklearn.neighbors import NearestNeighbors

        R, X = np.asarray(R, float), np.asarray(X, float)
        n, d = R.shape
        self.k_ = int(self.k) if self.k is not None else max(2 * d + 2, n // 10)
        self.k_ = min(self.k_, n)
        self.R_ = R
        self.global_ = np.atleast_2d(np.cov(R.T))
        self.nn_ = NearestNeighbors(n_neighbors=self.k_).fit(X)
        return self

    def shapes(self, X, m: int = 1):
        idx = self.nn_.kneighbors(np.asarray(X, float), return_distance=False)
        local = self.R_[idx]                                   # (m, k, d)
        local = local - local.mean(axis=1, keepdims=True)
        cov = np.einsum("mki,mkj->mij", local, local) / (self.k_ - 1)
        return self.mix * cov + (1.0 - self.mix) * self.global_

    def score(self, R, X):
        W = _inv_sqrt(self.shapes(X))
        return np.linalg.norm(np.einsum("mij,mj->mi", W, np.asarray(R, float)), axis=1)


class CoordinateMax:
    """The per-coordinate max score, a box: :math:`s(r) = \\max_j |r_j| / \\mathrm{sd}_j`.

    Attributes
    ----------
    sd_ : numpy.ndarray
        ``(d,)`` standard deviations of the fit residuals.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> R, X = rng.normal(size=(200, 2)) * [1.0, 3.0], rng.uniform(-1, 1, size=(200, 3))
    >>> CoordinateMax().fit(R).score(np.array([[1.0, 3.0]])).round(3)
    array([1.019])
    """

    x_dependent = False

    def fit(self, R, X=None):
        self.sd_ = np.asarray(R, float).std(axis=0, ddof=1)
        return self

    def score(self, R, X=None):
        return np.max(np.abs(np.asarray(R, float)) / self.sd_, axis=1)


class ConstantCovariance:
    """A covariance estimator for MAPIE with one matrix for every x (np.cov of the residuals)."""

    def fit(self, X, y, y_pred=None, **kwargs):
        r = np.asarray(y, float) - (0.0 if y_pred is None else np.asarray(y_pred, float))
        self.mean_ = r.mean(axis=0) if y_pred is None else np.zeros(r.shape[1])
        self.Sigma_ = np.atleast_2d(np.cov(r.T))
        return self

    def predict(self, X):
        return np.broadcast_to(self.mean_, (len(X), self.mean_.size)).copy()

    def get_covariance_matrix(self, X):
        return np.broadcast_to(self.Sigma_, (len(X),) + self.Sigma_.shape).copy()

    def get_distribution(self, X):
        return self.predict(X), self.get_covariance_matrix(X)


class MapieScore:
    """MAPIE's multivariate normalised residual score on residuals.

    MAPIE's trainer cannot take ``y_pred`` (it raises), so it is fitted on the residuals themselves
    and learns their centre mu(x) as well as Sigma(x): the region is centred at y_hat(x) + mu(x).
    The constant-Sigma estimator is centred at the prediction (mu = 0), like the global ellipsoid.

    Parameters
    ----------
    learned : bool
        Learn Σ(x) with MAPIE's Gaussian-NLL network (torch), or use one constant Σ.
    epochs : int
        Training epochs of the network, >= 1 (ours: 60).
    seed : int
        MAPIE's ``random_state`` and the torch seed.

    Examples
    --------
    Fitting imports MAPIE and torch (seconds), so this only builds one:

    >>> score = MapieScore(learned=False, epochs=5)
    >>> score.learned, score.epochs, score.x_dependent
    (False, 5, True)
    """

    x_dependent = True

    def __init__(self, learned: bool = True, epochs: int = 60, seed: int = 0):
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs: {epochs!r} is not an epoch count; allowed an integer >= 1")
        self.learned, self.epochs, self.seed = bool(learned), int(epochs), int(seed)

    def fit(self, R, X):
        from mapie.experimental import MultivariateResidualNormalisedScore

        R, X = np.asarray(R, float), np.asarray(X, float)
        if self.learned:
            from core.common.seeding import torch_seeded

            with torch_seeded(self.seed):
                self.mapie_ = MultivariateResidualNormalisedScore(random_state=self.seed)
                self.mapie_.fit(X, R, None, num_epochs=self.epochs, verbose=-1)
        else:
            self.mapie_ = MultivariateResidualNormalisedScore(covariance_estimator=ConstantCovariance(),
                                                             random_state=self.seed).fit(X, R, np.zeros_like(R))
        return self

    def shapes(self, X, m: int = 1):
        return np.asarray(self.mapie_.covariance_estimator_.get_covariance_matrix(np.asarray(X, float)), float)

    def centres(self, X):
        """The region's centre relative to the prediction: mu(x) (learned) or 0 (constant Sigma)."""
        X = np.asarray(X, float)
        return np.asarray(self.mapie_.covariance_estimator_.predict(X), float) if self.learned else None

    def score(self, R, X):
        R, X = np.asarray(R, float), np.asarray(X, float)
        mu = self.centres(X)
        return np.asarray(self.mapie_.get_signed_conformity_scores(R, np.zeros_like(R) if mu is None else mu, X=X),
                          float)


class KernelScore:
    """:class:`MultivariateKernelScore` behind the scores' ``fit(R, X)`` / ``score(R, X)`` interface.

    Parameters
    ----------
    **kwargs
        Passed to :class:`MultivariateKernelScore` (kernel, bandwidth, bandwidth_scale, lam, centred).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> R, X = rng.normal(size=(200, 2)) * [1.0, 3.0], rng.uniform(-1, 1, size=(200, 3))
    >>> KernelScore(lam=0.1).fit(R).score(np.array([[0.0, 0.0]])).round(3)
    array([0.802])
    """

    x_dependent = False

    def __init__(self, **kwargs):
        self.mks = MultivariateKernelScore(**kwargs)

    def fit(self, R, X=None):
        self.mks.fit(R)
        return self

    def score(self, R, X=None):
        return self.mks.score(R)


Score = Union[KernelScore, GlobalEllipsoid, LocalEllipsoid, CoordinateMax, MapieScore]


def make_score(name: str, *, kernel: str = "rbf", bandwidth_scale: float = 1.0, lam: float = 0.01,
               centred: bool = True, mapie_epochs: int = 60, seed: int = 0) -> Score:
    """A fresh, unfitted score by name (one of :data:`SCORES`).

    Parameters
    ----------
    name : {"mks", "ellipsoid", "local_ellipsoid", "coordinate_max", "mapie"}
        The score.
    kernel : {"rbf", "laplace", "imq", "linear"}
        MKS's kernel.
    bandwidth_scale : float
        MKS's bandwidth as a multiple of the median distance, > 0.
    lam : float
        MKS's ridge, > 0.
    centred : bool
        Centre MKS's embedding.
    mapie_epochs : int
        Epochs of MAPIE's network, >= 1.
    seed : int
        MAPIE's seed.

    Returns
    -------
    KernelScore, GlobalEllipsoid, LocalEllipsoid, CoordinateMax or MapieScore
        Unfitted; the arguments a score does not use are ignored (but still checked).

    Examples
    --------
    >>> type(make_score("ellipsoid")).__name__, make_score("mks", lam=0.1).mks.lam
    ('GlobalEllipsoid', 0.1)
    """
    if name not in SCORES:
        raise ValueError(f"name: {name!r} is not an option; allowed {', '.join(map(repr, SCORES))}")
    MultivariateKernelScore(kernel=kernel, bandwidth_scale=bandwidth_scale, lam=lam, centred=centred)  # checks
    if isinstance(mapie_epochs, bool) or not isinstance(mapie_epochs, (int, np.integer)) or mapie_epochs < 1:
        raise ValueError(f"mapie_epochs: {mapie_epochs!r} is not an epoch count; allowed an integer >= 1")
    if name == "mks":
        return KernelScore(kernel=kernel, bandwidth_scale=bandwidth_scale, lam=lam, centred=centred)
    if name == "ellipsoid":
        return GlobalEllipsoid()
    if name == "local_ellipsoid":
        return LocalEllipsoid()
    if name == "coordinate_max":
        return CoordinateMax()
    return MapieScore(learned=True, epochs=mapie_epochs, seed=seed)
