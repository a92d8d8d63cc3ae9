"""The regularised MCR² objective and its gradient on features Z (columns are samples).

With Z = [Z_1 … Z_K] ∈ R^{d×m}, Z_k ∈ R^{d×m_k} the samples of class k, α = d/(m ε²) and
α_k = d/(m_k ε²):

    R(Z)   = ½ log det(I + α Z Zᵀ)
    R_c(Z) = Σ_k (m_k / 2m) log det(I + α_k Z_k Z_kᵀ)
    F(Z)   = R(Z) − R_c(Z) − (λ/2) ‖Z‖²_F

and, using (m_k/m) α_k = α, ∇_{Z_k} F = α (I + α ZZᵀ)⁻¹ Z_k − α (I + α_k Z_k Z_kᵀ)⁻¹ Z_k − λ Z_k.

Conventions: ``eps`` is the paper's ε (as in the ``mcr2`` PyPI package, whose ``R``, ``Rc`` and
``DeltaR`` take rows as samples and equal ours at λ = 0). The original authors' training code
(ryanchankh/mcr2 ``loss.py``) instead takes ``eps`` = ε² and drops the ½, so its "empirical" loss
is −2 ΔR; :func:`reference_code_loss` writes that convention out so the factor can be checked.
Everything here is float64 NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Scales:
    """The constants of one problem: α, each class's α_k and size m_k."""

    dim: int
    n_samples: int
    class_sizes: np.ndarray
    alpha: float
    class_alphas: np.ndarray


def check_features(Z, labels) -> tuple[np.ndarray, np.ndarray, int]:
    """Validate ``Z`` (d, m) and ``labels`` (m,) with classes 0..K-1 each non-empty; return them and K."""
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or Z.shape[0] < 1 or Z.shape[1] < 2:
        raise ValueError(f"Z: shape {Z.shape} is not features; allowed a (d, m) array with d >= 1, m >= 2")
    if not np.all(np.isfinite(Z)):
        raise ValueError("Z: contains NaN or infinity; allowed finite values")
    labels = np.asarray(labels)
    if labels.shape != (Z.shape[1],) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"labels: expected {Z.shape[1]} integer labels, got shape {labels.shape}; "
                         "allowed one integer per column of Z")
    k = int(labels.max()) + 1 if labels.size else 0
    if labels.min() < 0 or np.any(np.bincount(labels, minlength=k) == 0):
        raise ValueError("labels: classes must be 0..K-1, each with at least one sample; allowed integers >= 0")
    return Z, labels, k


def check_eps_lam(eps: float, lam: float) -> None:
    if not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps: {eps} is not positive; allowed > 0")
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam: {lam} is negative; allowed >= 0")


def scales(dim: int, class_sizes, eps: float) -> Scales:
    sizes = np.asarray(class_sizes, dtype=int)
    m = int(sizes.sum())
    return Scales(int(dim), m, sizes, dim / (m * eps**2), dim / (sizes * eps**2))


def _logdet_plus_identity(a: float, Z: np.ndarray) -> float:
    sign, value = np.linalg.slogdet(np.eye(Z.shape[0]) + a * (Z @ Z.T))
    return float(value)


def coding_rate(Z, eps: float) -> float:
    """R(Z) = ½ log det(I + d/(m ε²) Z Zᵀ), Z of shape (d, m)."""
    Z = np.asarray(Z, dtype=float)
    d, m = Z.shape
    return 0.5 * _logdet_plus_identity(d / (m * eps**2), Z)


def class_coding_rate(Z, labels, eps: float) -> float:
    """R_c(Z | Π) = Σ_k (m_k/2m) log det(I + d/(m_k ε²) Z_k Z_kᵀ)."""
    Z, labels, k = check_features(Z, labels)
    d, m = Z.shape
    total = 0.0
    for c in range(k):
        Zc = Z[:, labels == c]
        total += Zc.shape[1] / (2 * m) * _logdet_plus_identity(d / (Zc.shape[1] * eps**2), Zc)
    return total


def rate_reduction(Z, labels, eps: float, lam: float = 0.0) -> float:
    """The regularised MCR² objective F(Z) = R(Z) − R_c(Z | Π) − (λ/2)‖Z‖²_F (to be maximised).

    Parameters
    ----------
    Z : array (d, m)
        Features, one column per sample.
    labels : int array (m,)
        Class of each column, 0..K-1.
    eps : float
        The quantisation error ε (> 0).
    lam : float
        The regularisation λ (>= 0); λ = 0 is the plain ΔR.

    Returns
    -------
    float
    """
    check_eps_lam(eps, lam)
    Z, labels, _ = check_features(Z, labels)
    return coding_rate(Z, eps) - class_coding_rate(Z, labels, eps) - 0.5 * lam * float(np.sum(Z * Z))


def rate_reduction_grad(Z, labels, eps: float, lam: float = 0.0) -> np.ndarray:
    """∇F(Z), of the shape of Z: α (I + αZZᵀ)⁻¹Z_k − α (I + α_k Z_kZ_kᵀ)⁻¹Z_k − λZ_k per class."""
    check_eps_lam(eps, lam)
    Z, labels, k = check_features(Z, labels)
    d, m = Z.shape
    alpha = d / (m * eps**2)
    eye = np.eye(d)
    grad = alpha * np.linalg.solve(eye + alpha * (Z @ Z.T), Z) - lam * Z
    for c in range(k):
        cols = labels == c
        Zc = Z[:, cols]
        ac = d / (Zc.shape[1] * eps**2)
        grad[:, cols] -= alpha * np.linalg.solve(eye + ac * (Zc @ Zc.T), Zc)
    return grad


def reference_code_loss(Z, labels, eps_code: float) -> float:
    """The original training code's "empirical" loss, −logdet(I + (d/(m·eps))WWᵀ) + Σ_k (m_k/m) logdet(…).

    There ``eps_code`` is ε² and the ½ is dropped, so this equals −2 ΔR(Z) at ε = √eps_code.
    """
    Z, labels, k = check_features(Z, labels)
    d, m = Z.shape
    discrimn = _logdet_plus_identity(d / (m * eps_code), Z)
    compress = sum((labels == c).sum() / m * _logdet_plus_identity(d / ((labels == c).sum() * eps_code),
                                                                   Z[:, labels == c]) for c in range(k))
    return -discrimn + compress
