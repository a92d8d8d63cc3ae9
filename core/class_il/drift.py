"""Representation drift against the backbone learning rate.

The paper's claim: fine-tuning the backbone moves the features by an amount linear in the
backbone learning rate η (r = +0.998). To first order, S gradient steps move the weights by
``Δθ = −η Σ g`` and the features by ``J Δθ``, so the drift is ``η ‖J Σ g‖ + O(η²)``.

Our setting: the one-hidden-layer MLP of :mod:`.backbones`, pretrained on digits 0–4 (the
pretraining split), gets a new linear head for digits 5–9 (a multinomial logistic probe on its
frozen features, scikit-learn), then backbone and head are fine-tuned together by full-batch
gradient descent on the cross-entropy for ``steps`` steps at learning rate η. Drift is the RMS over
held-out images of ‖φ_after(x) − φ_before(x)‖. The first-order law is checked at small η (R² of
the linear fit, Pearson r, log-log slope ≈ 1); the same measures at large η, where the O(η²) terms
and ReLU switching take over, are the control that should not look linear.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, param
from core.common.progress import report
from core.common.seeding import derive_seed
from core.class_il.backbones import MLPWeights, pretrain_mlp
from core.class_il.data import digits_tasks


@dataclass(frozen=True)
class DriftConfig(Config):
    """Settings of :func:`drift_experiment`: the backbone, the fine-tuning steps and both η ranges."""

    width: int = param(64, low=8, high=512, integer=True, doc="hidden width of the backbone")
    steps: int = param(10, low=1, high=200, integer=True, doc="fine-tuning steps")
    lr_low: float = param(1e-4, low=1e-7, high=1.0, low_open=False, doc="smallest backbone learning rate")
    lr_high: float = param(1e-2, low=1e-6, high=10.0, doc="largest learning rate of the small-η range")
    lr_large: float = param(30.0, low=1e-3, high=1000.0, doc="largest learning rate of the control range")
    n_lrs: int = param(8, low=3, high=40, integer=True, doc="learning rates per range")

    def validate(self) -> None:
        if not self.lr_low < self.lr_high < self.lr_large:
            raise ValueError(f"lr_high: need lr_low < lr_high < lr_large, got {self.lr_low:g}, {self.lr_high:g}, "
                             f"{self.lr_large:g}; allowed increasing values")


@dataclass
class Linearity:
    """How linear drift is in η over one range: least-squares fit, R², Pearson r, log-log slope.

    Attributes
    ----------
    slope, intercept : float
        ``drift ≈ intercept + slope · η``.
    r2 : float
        Centred R² of that line.
    r : float
        Pearson correlation of η and drift.
    loglog_slope : float
        Slope of log(drift) on log(η) (1 for a linear law through the origin).
    """

    slope: float
    intercept: float
    r2: float
    r: float
    loglog_slope: float


@dataclass
class DriftResult:
    """Drift against the learning rate on a small-η range and on the large-η control range.

    Attributes
    ----------
    lr, drift : numpy.ndarray
        Learning rates of the small-η range and the drift at each.
    lr_control, drift_control : numpy.ndarray
        The same on the large-η control range.
    small, control : Linearity
        How linear each range is.
    """

    lr: np.ndarray
    drift: np.ndarray
    lr_control: np.ndarray
    drift_control: np.ndarray
    small: Linearity
    control: Linearity


def linearity(x, y) -> Linearity:
    """Least-squares line y ≈ a + b x, its (centred) R², Pearson r, and the log-log slope."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    b, a = np.polyfit(x, y, 1)
    res = y - (a + b * x)
    r2 = 1 - np.sum(res ** 2) / np.sum((y - y.mean()) ** 2)
    pos = (x > 0) & (y > 0)
    ll = np.polyfit(np.log(x[pos]), np.log(y[pos]), 1)[0] if pos.sum() >= 2 else np.nan
    return Linearity(float(b), float(a), float(r2), float(np.corrcoef(x, y)[0, 1]), float(ll))


def fine_tune(weights: MLPWeights, X, y, lr: float, steps: int) -> MLPWeights:
    """Full-batch gradient descent on the softmax cross-entropy of ``h W2 + b2``, backbone included."""
    W1, b1, W2, b2 = (a.copy() for a in (weights.W1, weights.b1, weights.W2, weights.b2))
    Y = np.eye(W2.shape[1])[y]
    n = len(X)
    for _ in range(steps):
        pre = X @ W1 + b1
        h = np.maximum(pre, 0.0)
        z = h @ W2 + b2
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        dz = (p - Y) / n
        dh = dz @ W2.T * (pre > 0)
        W2 -= lr * h.T @ dz
        b2 -= lr * dz.sum(axis=0)
        W1 -= lr * X.T @ dh
        b1 -= lr * dh.sum(axis=0)
    return MLPWeights(W1, b1, W2, b2)


def drift_experiment(config: DriftConfig | None = None, seed: int = 0, progress=None) -> DriftResult:
    """Drift ‖φ_after − φ_before‖ (RMS over held-out images) against η on both ranges.

    Parameters
    ----------
    config : DriftConfig, optional
        Backbone width, fine-tuning steps and the two ranges of η.
    seed : int
        Seed of the digits splits and the pretraining.
    progress : callable, optional
        ``progress(step, total, metrics)`` after each learning rate; False stops the run.

    Returns
    -------
    DriftResult
        Drift at every η of both ranges and the linearity of each.

    Examples
    --------
    >>> r = drift_experiment(DriftConfig(n_lrs=3))
    >>> bool(r.small.r2 > 0.95), bool(r.small.loglog_slope > 0.9)
    (True, True)
    """
    from sklearn.linear_model import LogisticRegression

    c = config or DriftConfig()
    d = digits_tasks(seed)
    pre = d.y_pretrain < 5
    backbone = pretrain_mlp(d.X_pretrain[pre], d.y_pretrain[pre], c.width, seed)
    new = d.y_train >= 5
    X, y = d.X_train[new], d.y_train[new] - 5
    probe = LogisticRegression(max_iter=2000, random_state=derive_seed(seed, "probe") % (2**31))
    probe.fit(backbone.features(X), y)
    start = MLPWeights(backbone.W1, backbone.b1, probe.coef_.T.copy(), probe.intercept_.copy())
    X_eval = d.X_test
    before = start.features(X_eval)
    lrs = np.geomspace(c.lr_low, c.lr_high, c.n_lrs)
    control = np.geomspace(c.lr_high, c.lr_large, c.n_lrs)
    drifts = []
    total = 2 * c.n_lrs
    for i, lr in enumerate(np.concatenate([lrs, control])):
        after = fine_tune(start, X, y, float(lr), c.steps).features(X_eval)
        drifts.append(float(np.sqrt(np.mean(np.sum((after - before) ** 2, axis=1)))))
        if not report(progress, i + 1, total, {"lr": float(lr), "drift": drifts[-1]}):
            break
    small, big = np.array(drifts[:c.n_lrs]), np.array(drifts[c.n_lrs:])
    n_small = len(small)
    lin_small = linearity(lrs[:n_small], small) if n_small >= 3 else Linearity(*[np.nan] * 5)
    lin_big = linearity(control[:len(big)], big) if len(big) >= 3 else Linearity(*[np.nan] * 5)
    return DriftResult(lrs[:n_small], small, control[:len(big)], big, lin_small, lin_big)
