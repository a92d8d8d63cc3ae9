"""Closed-form local maximisers of the regularised MCR² objective, and the distance to their set.

When the class subspaces are mutually orthogonal, F decomposes over the squared singular values
s = σ² of each class: a direction of class k contributes

    f_k(s) = ½ log(1 + α s) − (m_k/2m) log(1 + α_k s) − λ s / 2,

and f_k′(s) = 0 ⇔ λ(1 + αs)(1 + α_k s) = α(α_k − α) s. Of its two roots the smaller is a saddle and
the larger s_k⁺ a local maximiser; s = 0 is one too (f_k′(0) = −λ/2 < 0). Real roots exist iff
λ ≤ λ_c,k = α(√α_k − √α)/(√α_k + √α), where they merge into a degenerate critical point.

A local maximiser is then Z*_k = σ_k⁺ U_k V_kᵀ with U = [U_1 … U_K] ∈ St(d, Σ r_k) (orthogonal class
subspaces), V_k ∈ St(m_k, r_k) and r_k its rank: the set 𝒳*(r) is invariant under O(d) on the left
and each class's own rotations on the right. Ours: the rank pattern of a point is read off its own
singular values (those above the saddle root s_k⁻ count), and :func:`distance_to_maximisers`
projects onto 𝒳*(r) by block-coordinate ascent of Σ_k σ_k⁺ tr(U_kᵀ Z_k V_k): the U-step is an
orthogonal Procrustes (polar) problem, each V-step another; each step can only shrink the
distance, and near 𝒳* it reaches the projection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_rng
from core.mcr2.objective import check_eps_lam, check_features, check_problem, scales


@dataclass
class Roots:
    """The critical squared singular values of each class: ``saddle`` (s⁻) and ``maximiser`` (s⁺).

    Attributes
    ----------
    saddle : numpy.ndarray
        ``(K,)`` the smaller root s_k⁻ (a saddle's σ²), NaN where no real root exists.
    maximiser : numpy.ndarray
        ``(K,)`` the larger root s_k⁺ (a local maximiser's σ²), NaN where no real root exists.
    critical_lam : numpy.ndarray
        ``(K,)`` λ_c,k, above which class k has no nonzero critical singular value.
    """

    saddle: np.ndarray
    maximiser: np.ndarray
    critical_lam: np.ndarray


def critical_lambda(dim: int, class_sizes, eps: float) -> np.ndarray:
    """λ_c,k = α(√α_k − √α)/(√α_k + √α): above it class k has no nonzero critical singular value.

    Parameters
    ----------
    dim : int
        The feature dimension d, >= 1.
    class_sizes : sequence of int
        m_k for each class, each >= 1.
    eps : float
        The quantisation error ε, > 0.

    Returns
    -------
    numpy.ndarray
        ``(K,)``

        .. math:: \\lambda_{c,k} = \\alpha \\frac{\\sqrt{\\alpha_k} - \\sqrt{\\alpha}}{\\sqrt{\\alpha_k} + \\sqrt{\\alpha}},
                  \\qquad \\alpha = \\frac{d}{m \\varepsilon^2},\\ \\alpha_k = \\frac{d}{m_k \\varepsilon^2}.

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> critical_lambda(2, [2, 2], eps=0.5).round(4)
    array([0.3431, 0.3431])
    """
    sc = scales(dim, class_sizes, eps)
    ra, rk = np.sqrt(sc.alpha), np.sqrt(sc.class_alphas)
    return sc.alpha * (rk - ra) / (rk + ra)


def singular_value_roots(dim: int, class_sizes, eps: float, lam: float) -> Roots:
    """Both roots of λ(1 + αs)(1 + α_k s) = α(α_k − α)s for every class (NaN where none is real).

    Parameters
    ----------
    dim : int
        The feature dimension d.
    class_sizes : sequence of int
        m_k for each class.
    eps, lam : float
        ε (> 0) and λ (>= 0).

    Returns
    -------
    Roots
        ``maximiser[k]`` = s_k⁺, the larger root (the local maximiser's σ²), ``saddle[k]`` = s_k⁻;
        both solve :math:`\\lambda (1 + \\alpha s)(1 + \\alpha_k s) = \\alpha (\\alpha_k - \\alpha) s`.

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> roots = singular_value_roots(2, [2, 2], eps=0.5, lam=0.01)
    >>> roots.maximiser.round(3), roots.saddle.round(4)
    (array([49.247, 49.247]), array([0.0025, 0.0025]))
    """
    check_eps_lam(eps, lam)
    sc = scales(dim, class_sizes, eps)
    a, ak = sc.alpha, sc.class_alphas
    qa = lam * a * ak
    qb = lam * (a + ak) - a * (ak - a)
    disc = qb**2 - 4 * qa * lam
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(np.where(disc >= 0, disc, np.nan))
        big = np.where(qa > 0, (-qb + root) / (2 * qa), np.nan)
        small = np.where(qa > 0, 2 * lam / (-qb + root), np.nan)   # the same root, written stably
    return Roots(small, big, critical_lambda(dim, class_sizes, eps))


def direction_value(s, dim: int, class_sizes, eps: float, lam: float) -> np.ndarray:
    """f_k(s) for each class k (rows) at the squared singular values ``s``.

    Parameters
    ----------
    s : array_like
        Squared singular values, >= 0, as a 1-D sequence (NaN, a root that does not exist, gives NaN).
    dim : int
        The feature dimension d.
    class_sizes : sequence of int
        m_k for each class.
    eps : float
        The quantisation error ε, > 0.
    lam : float
        The regularisation λ, >= 0.

    Returns
    -------
    numpy.ndarray
        ``(K, len(s))``, what one direction of class k with σ² = s adds to F:

        .. math:: f_k(s) = \\tfrac12 \\log(1 + \\alpha s) - \\frac{m_k}{2m} \\log(1 + \\alpha_k s) - \\frac{\\lambda s}{2}.

    Examples
    --------
    >>> direction_value([0.0, 1.0], 2, [2, 2], eps=0.5, lam=0.01).round(4)
    array([[0.    , 0.1419],
           [0.    , 0.1419]])
    """
    check_eps_lam(eps, lam)
    sc = scales(dim, class_sizes, eps)
    s = np.asarray(s, dtype=float)
    if s.ndim != 1 or np.any(np.isinf(s)) or np.any(s < 0):   # NaN (a root that does not exist) passes through
        raise ValueError(f"s: {s.tolist()} is not a list of squared singular values; allowed finite numbers >= 0")
    w = (sc.class_sizes / sc.n_samples)[:, None]
    return (0.5 * np.log1p(sc.alpha * s)[None] - 0.5 * w * np.log1p(sc.class_alphas[:, None] * s[None])
            - 0.5 * lam * s[None])


def maximiser_value(ranks, dim: int, class_sizes, eps: float, lam: float) -> float:
    """F at every point of 𝒳*(r): Σ_k r_k f_k(s_k⁺).

    Parameters
    ----------
    ranks : sequence of int
        The rank pattern r, one count >= 0 per class.
    dim : int
        The feature dimension d.
    class_sizes : sequence of int
        m_k for each class.
    eps : float
        The quantisation error ε, > 0.
    lam : float
        The regularisation λ, >= 0.

    Returns
    -------
    float
        .. math:: F^\\star(r) = \\sum_k r_k f_k(s_k^+).

    Examples
    --------
    >>> round(maximiser_value([1, 1], 2, [2, 2], eps=0.5, lam=0.01), 4)
    1.4635
    """
    sizes = check_problem(dim, class_sizes, eps, lam)
    ranks = np.asarray(ranks)
    if ranks.shape != sizes.shape or not np.issubdtype(ranks.dtype, np.integer) or ranks.min() < 0:
        raise ValueError(f"ranks: {ranks.tolist()} is not a rank pattern; allowed {sizes.size} integers >= 0")
    roots = singular_value_roots(dim, class_sizes, eps, lam)
    f = np.array([direction_value([roots.maximiser[k]], dim, class_sizes, eps, lam)[k, 0]
                  for k in range(len(class_sizes))])
    return float(np.sum(np.asarray(ranks) * f))


def rank_pattern(Z, labels, eps: float, lam: float) -> np.ndarray:
    """Each class's count of squared singular values above its saddle root, largest first, Σ r_k ≤ d.

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
        ``(K,)`` integers: the rank pattern r of the maximiser set 𝒳*(r) nearest Z (ours: the
        largest excesses over s_k⁻ win when more than d directions qualify).

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> rank_pattern(Z, np.array([0, 0, 1, 1]), eps=0.5, lam=0.01)
    array([1, 1])
    """
    check_eps_lam(eps, lam)
    Z, labels, k = check_features(Z, labels)
    d = Z.shape[0]
    sizes = np.bincount(labels, minlength=k)
    roots = singular_value_roots(d, sizes, eps, lam)
    spectra = [np.linalg.svd(Z[:, labels == c], compute_uv=False) ** 2 for c in range(k)]
    above = [(s[i] - roots.saddle[c], c) for c, s in enumerate(spectra) for i in range(s.size)
             if np.isfinite(roots.saddle[c]) and s[i] > roots.saddle[c]]
    ranks = np.zeros(k, dtype=int)
    for _, c in sorted(above, reverse=True)[:d]:
        ranks[c] += 1
    return ranks


def _polar(M: np.ndarray) -> np.ndarray:
    P, _, Qt = np.linalg.svd(M, full_matrices=False)
    return P @ Qt


@dataclass
class Projection:
    """The nearest point of 𝒳*(ranks) found, and the distance to it.

    Attributes
    ----------
    distance : float
        ‖Z − nearest‖_F.
    nearest : numpy.ndarray
        ``(d, m)`` the point of 𝒳*(ranks) found.
    ranks : numpy.ndarray
        ``(K,)`` the rank pattern r projected onto.
    iterations : int
        Alternating Procrustes iterations run.
    """

    distance: float
    nearest: np.ndarray
    ranks: np.ndarray
    iterations: int


def distance_to_maximisers(Z, labels, eps: float, lam: float, ranks=None, max_iter: int = 100,
                           tol: float = 1e-13) -> Projection:
    """dist(Z, 𝒳*(r)) after Procrustes alignment (see the module docstring).

    Parameters
    ----------
    Z, labels : features (d, m) and labels (m,)
        Features (one column per sample) and their classes 0..K-1.
    eps, lam : float
        ε (> 0) and λ (>= 0).
    ranks : int array (K,), optional
        The rank pattern r; default :func:`rank_pattern` of Z.
    max_iter, tol : int, float
        Alternating Procrustes iterations (>= 1) and relative tolerance on the distance² (>= 0).

    Returns
    -------
    Projection
        The distance, the nearest point found, the ranks and the iterations run:

        .. math:: \\operatorname{dist}(Z, \\mathcal X^\\star(r))^2 = \\min_{U, V_k}
                  \\sum_k \\lVert Z_k - \\sigma_k^+ U_k V_k^\\top \\rVert_F^2.

    References
    ----------
    .. [1] "MCR2 error bound and linear convergence" (the paper's claim in :mod:`core.mcr2`), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> near = distance_to_maximisers(Z, np.array([0, 0, 1, 1]), eps=0.5, lam=0.01)
    >>> round(near.distance, 4), near.ranks
    (8.5102, array([1, 1]))
    """
    check_eps_lam(eps, lam)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter: {max_iter!r} is not an iteration count; allowed an integer >= 1")
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol: {tol!r} is not a tolerance; allowed a number >= 0")
    Z, labels, k = check_features(Z, labels)
    d = Z.shape[0]
    sizes = np.bincount(labels, minlength=k)
    ranks = rank_pattern(Z, labels, eps, lam) if ranks is None else np.asarray(ranks, dtype=int)
    if ranks.shape != (k,) or ranks.min() < 0 or ranks.sum() > d or np.any(ranks > sizes):
        raise ValueError(f"ranks: {ranks.tolist()} is not a rank pattern; allowed K integers r_k <= m_k, sum <= {d}")
    sigma = np.sqrt(singular_value_roots(d, sizes, eps, lam).maximiser)
    blocks = [Z[:, labels == c] for c in range(k)]
    V = []
    for c, Zc in enumerate(blocks):
        _, _, Vt = np.linalg.svd(Zc, full_matrices=False)
        V.append(Vt[: ranks[c]].T)
    total = float(np.sum(Z * Z)) + float(np.sum(ranks * np.where(ranks > 0, sigma, 0.0) ** 2))
    active = [c for c in range(k) if ranks[c] > 0]
    best, it, U = total, 0, {}
    for it in range(1, max_iter + 1):
        if not active:
            break
        M = np.concatenate([sigma[c] * blocks[c] @ V[c] for c in active], axis=1)
        Ufull = _polar(M)
        start = 0
        for c in active:
            U[c] = Ufull[:, start:start + ranks[c]]
            start += ranks[c]
            V[c] = _polar(blocks[c].T @ U[c])
        dist2 = total - 2 * sum(sigma[c] * np.trace(U[c].T @ blocks[c] @ V[c]) for c in active)
        if best - dist2 <= tol * max(total, 1e-300):
            best = dist2
            break
        best = dist2
    nearest = np.zeros_like(Z)
    for c in active:
        nearest[:, labels == c] = sigma[c] * U[c] @ V[c].T
    return Projection(float(np.sqrt(max(best, 0.0))), nearest, ranks, it)


def class_bases(Z, labels, ranks) -> list[np.ndarray]:
    """Each class's top-r_k left singular vectors (d, r_k)."""
    Z, labels, k = check_features(Z, labels)
    return [np.linalg.svd(Z[:, labels == c], full_matrices=False)[0][:, : int(ranks[c])] for c in range(k)]


def subspace_cosines(Z, labels, ranks) -> np.ndarray:
    """(K, K) largest cosine of the principal angles between class subspaces (0: orthogonal).

    Parameters
    ----------
    Z : array_like
        ``(d, m)`` features, one column per sample.
    labels : array_like of int
        ``(m,)`` class of each column, 0..K-1.
    ranks : sequence of int
        How many top left singular vectors span each class's subspace, ``0 <= r_k <= min(d, m_k)``.

    Returns
    -------
    numpy.ndarray
        ``(K, K)``, entry ``(i, j)`` the cosine of the smallest principal angle between the subspaces
        of classes i and j (0 on the diagonal and where a subspace is empty).

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    >>> subspace_cosines(Z, np.array([0, 0, 1, 1]), [1, 1]).round(4)
    array([[0.    , 0.7071],
           [0.7071, 0.    ]])
    """
    Z, labels, k = check_features(Z, labels)
    ranks = np.asarray(ranks)
    sizes = np.bincount(labels, minlength=k)
    if (ranks.shape != (k,) or not np.issubdtype(ranks.dtype, np.integer) or ranks.min() < 0
            or np.any(ranks > np.minimum(sizes, Z.shape[0]))):
        raise ValueError(f"ranks: {ranks.tolist()} is not a rank pattern; allowed {k} integers 0 <= r_k <= min(d, m_k)")
    bases = class_bases(Z, labels, ranks)
    k = len(bases)
    out = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j and bases[i].shape[1] and bases[j].shape[1]:
                out[i, j] = np.linalg.svd(bases[i].T @ bases[j], compute_uv=False).max()
    return out


@dataclass
class SaddlePoint:
    """A strict saddle of F and the rank pattern of the maximiser set nearest it.

    Attributes
    ----------
    features : numpy.ndarray
        ``(d, m)`` the saddle Z, one column per sample.
    labels : numpy.ndarray
        ``(m,)`` class of each column, 0..K-1 in blocks.
    ranks : numpy.ndarray
        ``(K,)`` the rank pattern r of the nearest maximiser set 𝒳*(r).
    """

    features: np.ndarray
    labels: np.ndarray
    ranks: np.ndarray


def saddle_point(dim: int, class_sizes, eps: float, lam: float, ranks, saddle_class: int = 0,
                 seed: int = 0) -> SaddlePoint:
    """A critical point that is no local maximiser: orthogonal class subspaces with the maximiser's σ⁺
    on ``ranks`` directions, plus one direction of ``saddle_class`` at the saddle root σ⁻.

    The gradient vanishes there, yet the point is at distance σ⁻ from 𝒳*(ranks): the local error
    bound cannot hold at it.

    Parameters
    ----------
    dim : int
        The feature dimension d.
    class_sizes : sequence of int
        m_k for each class.
    eps : float
        The quantisation error ε, > 0.
    lam : float
        The regularisation λ, in (0, λ_c] so that both roots exist.
    ranks : sequence of int
        Maximiser directions per class, with ``sum(ranks) < d`` and ``ranks[saddle_class] < m_k``
        (one direction is left for the saddle).
    saddle_class : int
        The class that gets the saddle direction, 0..K-1.
    seed : int
        The random subspaces and right singular vectors (``derive_rng(seed, "mcr2", "saddle")``).

    Returns
    -------
    SaddlePoint
        The saddle's features and labels, and ``ranks`` (the nearest maximiser pattern).

    Examples
    --------
    >>> point = saddle_point(4, [3, 3], eps=0.5, lam=0.01, ranks=[1, 1])
    >>> grad = rate_reduction_grad(point.features, point.labels, 0.5, 0.01)
    >>> point.features.shape, bool(np.linalg.norm(grad) < 1e-10)
    ((4, 6), True)
    """
    sizes = check_problem(dim, class_sizes, eps, lam)
    ranks = np.asarray(ranks)
    if (ranks.shape != sizes.shape or not np.issubdtype(ranks.dtype, np.integer) or ranks.min() < 0):
        raise ValueError(f"ranks: {ranks.tolist()} is not a rank pattern; allowed {sizes.size} integers >= 0")
    if isinstance(saddle_class, bool) or not isinstance(saddle_class, (int, np.integer)) or not (
            0 <= saddle_class < sizes.size):
        raise ValueError(f"saddle_class: {saddle_class!r} is not a class; allowed 0..{sizes.size - 1}")
    if ranks.sum() + 1 > dim or ranks[saddle_class] + 1 > sizes[saddle_class]:
        raise ValueError(f"ranks: {ranks.tolist()} leaves no free direction for a saddle; allowed sum < {dim}")
    roots = singular_value_roots(dim, sizes, eps, lam)
    if not np.all(np.isfinite(roots.saddle)):
        raise ValueError(f"lam: {lam:g} leaves no saddle root (it needs 0 < λ <= λ_c = "
                         f"{roots.critical_lam.min():.4g}); allowed (0, {roots.critical_lam.min():.4g}]")
    rng = derive_rng(seed, "mcr2", "saddle")
    labels = np.repeat(np.arange(sizes.size), sizes)
    Q = np.linalg.qr(rng.normal(size=(dim, dim)))[0]
    Z = np.zeros((dim, int(sizes.sum())))
    start = 0
    for c in range(sizes.size):
        r = ranks[c] + (1 if c == saddle_class else 0)
        s = np.full(r, np.sqrt(roots.maximiser[c]))
        if c == saddle_class:
            s[-1] = np.sqrt(roots.saddle[c])
        V = np.linalg.qr(rng.normal(size=(sizes[c], r)))[0]
        Z[:, labels == c] = Q[:, start:start + r] @ np.diag(s) @ V.T
        start += r
    return SaddlePoint(Z, labels, ranks.astype(int))
