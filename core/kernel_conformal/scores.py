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
    x_dependent = True

    def __init__(self, k: int | None = None, mix: float = 0.9):
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
    """

    x_dependent = True

    def __init__(self, learned: bool = True, epochs: int = 60, seed: int = 0):
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
    x_dependent = False

    def __init__(self, **kwargs):
        self.mks = MultivariateKernelScore(**kwargs)

    def fit(self, R, X=None):
        self.mks.fit(R)
        return self

    def score(self, R, X=None):
        return self.mks.score(R)


def make_score(name: str, *, kernel: str = "rbf", bandwidth_scale: float = 1.0, lam: float = 0.01,
               centred: bool = True, mapie_epochs: int = 60, seed: int = 0):
    """A fresh, unfitted score by name (one of :data:`SCORES`)."""
    if name == "mks":
        return KernelScore(kernel=kernel, bandwidth_scale=bandwidth_scale, lam=lam, centred=centred)
    if name == "ellipsoid":
        return GlobalEllipsoid()
    if name == "local_ellipsoid":
        return LocalEllipsoid()
    if name == "coordinate_max":
        return CoordinateMax()
    if name == "mapie":
        return MapieScore(learned=True, epochs=mapie_epochs, seed=seed)
    raise ValueError(f"score: {name!r} is not an option; allowed {', '.join(map(repr, SCORES))}")
