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
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.number)) or not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps: {eps!r} is not positive; allowed a number > 0")
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.number)) or not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam: {lam!r} is negative or not a number; allowed a number >= 0")


def check_problem(dim, class_sizes, eps: float, lam: float = 0.0) -> np.ndarray:
    """Validate the constants of a closed-form problem; return the class sizes as ints."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"dim: {dim!r} is not a feature dimension; allowed an integer >= 1")
    try:
        sizes = np.asarray(class_sizes)
    except (TypeError, ValueError):
        sizes = np.asarray([])
    if (sizes.ndim != 1 or sizes.size < 1 or not np.issubdtype(sizes.dtype, np.number)
            or np.any(sizes != np.round(sizes)) or sizes.min() < 1):
        raise ValueError(f"class_sizes: {class_sizes!r} is not a list of class sizes; allowed integers >= 1")
    check_eps_lam(eps, lam)
    return sizes.astype(int)


def scales(dim: int, class_sizes, eps: float) -> Scales:
    sizes = check_problem(dim, class_sizes, eps)
    m = int(sizes.sum())
    return Scales(int(dim), m, sizes, dim / (m * eps**2), dim / (sizes * eps**2))


def _logdet_plus_identity(a: float, Z: np.ndarray) -> float:
    sign, value = np.linalg.slogdet(np.eye(Z.shape[0]) + a * (Z @ Z.T))
    return float(value)


def coding_rate(Z, eps: float) -> float:
    """The coding rate R(Z) = ½ log det(I + d/(m ε²) Z Zᵀ) of features Z of shape (d, m).

    Parameters
    ----------
    Z : array_like
        ``(d, m)`` features, one column per sample, finite, ``m >= 2``.
    eps : float
        The quantisation error ε, > 0.

    Returns
    -------
    float
        .. math:: R(Z) = \\tfrac12 \\log\\det\\big(I + \\tfrac{d}{m\\varepsilon^2} Z Z^\\top\\big).

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> round(coding_rate(Z, eps=0.5), 3)
    1.099
    """
    check_eps_lam(eps, 0.0)
    Z, _, _ = check_features(Z, np.zeros(np.shape(Z)[1] if np.ndim(Z) == 2 else 0, dtype=int))
    d, m = Z.shape
    return 0.5 * _logdet_plus_identity(d / (m * eps**2), Z)


def class_coding_rate(Z, labels, eps: float) -> float:
    """The class-conditional coding rate R_c(Z | Π) = Σ_k (m_k/2m) log det(I + d/(m_k ε²) Z_k Z_kᵀ).

    Parameters
    ----------
    Z : array_like
        ``(d, m)`` features, one column per sample.
    labels : array_like of int
        ``(m,)`` class of each column, 0..K-1, every class non-empty.
    eps : float
        The quantisation error ε, > 0.

    Returns
    -------
    float
        .. math:: R_c(Z \\mid \\Pi) = \\sum_k \\frac{m_k}{2m} \\log\\det\\big(I + \\tfrac{d}{m_k\\varepsilon^2} Z_k Z_k^\\top\\big).

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> round(class_coding_rate(Z, np.array([0, 0, 1, 1]), eps=0.5), 3)
    0.805
    """
    check_eps_lam(eps, 0.0)
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
        .. math:: F(Z) = R(Z) - R_c(Z \\mid \\Pi) - \\tfrac{\\lambda}{2} \\lVert Z \\rVert_F^2.

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> round(rate_reduction(Z, np.array([0, 0, 1, 1]), eps=0.5, lam=0.01), 3)
    0.284
    """
    check_eps_lam(eps, lam)
    Z, labels, _ = check_features(Z, labels)
    return coding_rate(Z, eps) - class_coding_rate(Z, labels, eps) - 0.5 * lam * float(np.sum(Z * Z))


def rate_reduction_grad(Z, labels, eps: float, lam: float = 0.0) -> np.ndarray:
    """The gradient ∇F(Z) of the regularised MCR² objective, of the shape of Z.

    Parameters
    ----------
    Z : array_like
        ``(d, m)`` features, one column per sample.
    labels : array_like of int
        ``(m,)`` class of each column, 0..K-1.
    eps : float
        The quantisation error ε, > 0.
    lam : float
        The regularisation λ, >= 0.

    Returns
    -------
    numpy.ndarray
        ``(d, m)``; the columns of class k are

        .. math:: \\nabla_{Z_k} F = \\alpha (I + \\alpha Z Z^\\top)^{-1} Z_k
                  - \\alpha (I + \\alpha_k Z_k Z_k^\\top)^{-1} Z_k - \\lambda Z_k,

        with :math:`\\alpha = d / (m \\varepsilon^2)` and :math:`\\alpha_k = d / (m_k \\varepsilon^2)`.

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> rate_reduction_grad(Z, np.array([0, 0, 1, 1]), eps=0.5).round(3)
    array([[0.267, 0.   , 0.   , 0.   ],
           [0.   , 0.   , 0.267, 0.   ]])
    """
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

    Parameters
    ----------
    Z : array_like
        ``(d, m)`` features, one column per sample.
    labels : array_like of int
        ``(m,)`` class of each column, 0..K-1.
    eps_code : float
        The code's ``eps``, that is ε², > 0.

    Returns
    -------
    float
        .. math:: -\\log\\det\\big(I + \\tfrac{d}{m\\,\\mathrm{eps}} Z Z^\\top\\big)
                  + \\sum_k \\frac{m_k}{m} \\log\\det\\big(I + \\tfrac{d}{m_k\\,\\mathrm{eps}} Z_k Z_k^\\top\\big).

    References
    ----------
    .. [1] ryanchankh/mcr2, ``loss.py`` (the original MCR² training code).

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> round(reference_code_loss(Z, labels, 0.25), 3), round(-2 * rate_reduction(Z, labels, 0.5), 3)
    (-0.588, -0.588)
    """
    check_eps_lam(eps_code, 0.0)
    Z, labels, k = check_features(Z, labels)
    d, m = Z.shape
    discrimn = _logdet_plus_identity(d / (m * eps_code), Z)
    compress = sum((labels == c).sum() / m * _logdet_plus_identity(d / ((labels == c).sum() * eps_code),
                                                                   Z[:, labels == c]) for c in range(k))
    return -discrimn + compress
