"""The Tikhonov operator R = (p(L) + Q)^-1 Q and the polynomial bases behind p.

For x on the nodes, z = Rx is the exact minimiser of (z - x)^T Q (z - x) + z^T p(L) z, whose
normal equations are (p(L) + Q) z = Q x. That needs p(L) to be positive semidefinite, i.e.
p >= 0 on the spectrum of L, contained in [0, 2] for the symmetric normalised Laplacian
L = I - D^-1/2 A D^-1/2; with q > 0 the system is then positive definite.

The layer parametrises p in the Bernstein basis of degree K on [0, 2] (as BernNet does):
p(lambda) = sum_k theta_k C(K, k) (lambda/2)^k (1 - lambda/2)^(K-k). With theta_k >= 0, p >= 0 on
[0, 2] by construction, while low-, high- and band-pass shapes all stay reachable (monomial
coefficients >= 0 would only allow p increasing, i.e. low-pass filters).

Identifiability. R^-1 = I + Q^-1 p(L), so R determines Q^-1 p(L), and nothing more:

- scale: (q, p) -> (c q, c p) leaves R unchanged for every c > 0;
- p is seen only through p(L) = U diag(p(lambda_i)) U^T, i.e. only on the spectrum of L: two
  polynomials equal on spec(L) give the same R (on K5, spec = {0, 1.25}, a p with p(2) = 1.9 gives
  the R of p = 1).

:func:`normalize_parameters` fixes both (ours): it divides by the mean of p over the spectrum,
c = tr p(L) / n, and keeps p only at the eigenvalues. :func:`parameters_from_operator` recovers
that normalised (q, p|spec) from R alone (q from the symmetry of p(L) = Q (R^-1 - I)), which shows
the map from normalised explanations to operators is one-to-one where the recovery succeeds, i.e.
when the graph is connected and p(L) is not diagonal. The layer itself fixes the scale of p by
keeping the mean of its Bernstein coefficients at 1 (:mod:`.layer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

LAMBDA_MAX = 2.0


def normalized_laplacian(adjacency: np.ndarray) -> np.ndarray:
    """The symmetric normalised Laplacian L = I - D^-1/2 A D^-1/2; isolated nodes get a zero row.

    Its spectrum lies in [0, 2] (an isolated node contributes a 0 eigenvalue).

    Parameters
    ----------
    adjacency : array_like of shape (n, n)
        Symmetric, nonnegative weights, n >= 1.

    Returns
    -------
    ndarray of shape (n, n)
        L.

    Examples
    --------
    >>> normalized_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    a = np.asarray(adjacency, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency: shape {a.shape} is not square; allowed (n, n) with n >= 1")
    if a.shape[0] == 0:
        raise ValueError("adjacency: the graph is empty; allowed graphs with at least one node")
    if not np.allclose(a, a.T) or (a < 0).any():
        raise ValueError("adjacency: must be symmetric with nonnegative weights; allowed undirected graphs")
    deg = a.sum(axis=1)
    inv_sqrt = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    return np.diag((deg > 0).astype(float)) - inv_sqrt[:, None] * a * inv_sqrt[None, :]


def bernstein_to_monomial(theta: np.ndarray) -> np.ndarray:
    """Monomial coefficients c with sum_k c_k lambda^k equal to the Bernstein polynomial on [0, 2].

    .. math::

        p(\\lambda) = \\sum_{k=0}^K \\theta_k \\binom{K}{k} (\\lambda/2)^k (1 - \\lambda/2)^{K-k}
                   = \\sum_{k=0}^K c_k \\lambda^k

    Parameters
    ----------
    theta : array_like of shape (K + 1,)
        Bernstein coefficients (the layer's are >= 0, so p >= 0 on [0, 2]).

    Returns
    -------
    ndarray of shape (K + 1,)
        c, in increasing powers.

    Examples
    --------
    >>> bernstein_to_monomial([1.0, 1.0, 1.0])       # a flat theta is p = 1
    array([1., 0., 0.])
    >>> bernstein_to_monomial([0.0, 0.0, 4.0])       # 4 (lambda / 2)^2 = lambda^2
    array([0., 0., 1.])
    """
    theta = np.asarray(theta, dtype=float)
    K = theta.size - 1
    coeffs = np.zeros(K + 1)
    for k, t in enumerate(theta):
        # C(K,k) (l/2)^k (1 - l/2)^(K-k) = C(K,k) sum_j C(K-k, j) (-1)^j (l/2)^(k+j)
        for j in range(K - k + 1):
            coeffs[k + j] += t * comb(K, k) * comb(K - k, j) * (-1) ** j / LAMBDA_MAX ** (k + j)
    return coeffs


def bernstein_eval(theta, lam) -> np.ndarray:
    """p(lambda) of a Bernstein polynomial on [0, 2], evaluated directly in that basis.

    Parameters
    ----------
    theta : array_like of shape (K + 1,)
        Bernstein coefficients.
    lam : array_like
        Points in [0, 2].

    Returns
    -------
    ndarray
        p at ``lam``, the same shape.

    Examples
    --------
    >>> bernstein_eval([0.0, 2.0, 0.0], [0.0, 1.0, 2.0])     # a band-pass bump, 1 at lambda = 1
    array([0., 1., 0.])
    """
    theta, lam = np.asarray(theta, dtype=float), np.asarray(lam, dtype=float) / LAMBDA_MAX
    K = theta.size - 1
    return sum(t * comb(K, k) * lam**k * (1 - lam) ** (K - k) for k, t in enumerate(theta))


def poly_eval(coeffs, lam) -> np.ndarray:
    """p(lambda) = sum_k c_k lambda^k (coefficients in increasing order).

    Parameters
    ----------
    coeffs : array_like of shape (K + 1,)
        Monomial coefficients.
    lam : array_like
        Evaluation points.

    Returns
    -------
    ndarray
        p at ``lam``.

    Examples
    --------
    >>> poly_eval([1.0, 0.0, 1.0], [0.0, 2.0])
    array([1., 5.])
    """
    return np.polynomial.polynomial.polyval(np.asarray(lam, dtype=float), np.asarray(coeffs, dtype=float))


def poly_matrix(coeffs, laplacian: np.ndarray) -> np.ndarray:
    n = laplacian.shape[0]
    out, power = np.zeros((n, n)), np.eye(n)
    for c in coeffs:
        out += c * power
        power = power @ laplacian
    return out


def check_polynomial(coeffs, grid: int = 2001) -> None:
    lam = np.linspace(0.0, LAMBDA_MAX, grid)
    values = poly_eval(coeffs, lam)
    if values.min() < -1e-10:
        at = lam[int(np.argmin(values))]
        raise ValueError(f"poly_coeffs: p({at:.3g}) = {values.min():.3g} < 0; allowed polynomials with "
                         "p >= 0 on [0, 2], the spectrum of the normalised Laplacian")


def check_q(q, n: int) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    if q.shape != (n,):
        raise ValueError(f"q: shape {q.shape} does not match the graph; allowed ({n},)")
    if not np.isfinite(q).all() or (q <= 0).any():
        bad = q[~(np.isfinite(q) & (q > 0))][0]
        raise ValueError(f"q: {bad:g} is not a positive node score; allowed q_i > 0")
    return q


def tikhonov_operator(laplacian: np.ndarray, q, poly_coeffs) -> np.ndarray:
    """The dense propagation matrix R = (p(L) + Q)^-1 Q for one graph.

    z = R x is the exact minimiser of

    .. math:: (z - x)^T Q (z - x) + z^T p(L) z, \\qquad Q = \\mathrm{diag}(q),

    whose normal equations are (p(L) + Q) z = Q x.

    Parameters
    ----------
    laplacian : array_like of shape (n, n)
        The normalised Laplacian.
    q : array_like of shape (n,)
        Positive node scores.
    poly_coeffs : array_like of shape (K + 1,)
        Monomial coefficients of p, with p >= 0 on [0, 2] (checked on a grid).

    Returns
    -------
    ndarray of shape (n, n)
        R, the layer's propagation for this graph.

    References
    ----------
    .. [1] Interpretable Tikhonov GNN layer (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> L = normalized_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> tikhonov_operator(L, [1.0, 1.0], [0.0, 0.5])       # p = lambda / 2: partial averaging
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    laplacian = np.asarray(laplacian, dtype=float)
    if laplacian.ndim != 2 or laplacian.shape[0] != laplacian.shape[1] or laplacian.shape[0] == 0:
        raise ValueError(f"laplacian: shape {laplacian.shape} is not a non-empty square matrix; allowed (n, n), n >= 1")
    q = check_q(q, laplacian.shape[0])
    check_polynomial(poly_coeffs)
    return np.linalg.solve(poly_matrix(poly_coeffs, laplacian) + np.diag(q), np.diag(q))


def tikhonov_objective(z, x, laplacian, q, poly_coeffs) -> float:
    """The Tikhonov objective (z - x)^T Q (z - x) + z^T p(L) z that R x minimises.

    Parameters
    ----------
    z : array_like of shape (n,)
        The candidate output signal.
    x : array_like of shape (n,)
        The input signal.
    laplacian : array_like of shape (n, n)
        The normalised Laplacian.
    q : array_like of shape (n,)
        Node scores.
    poly_coeffs : array_like of shape (K + 1,)
        Monomial coefficients of p.

    Returns
    -------
    float
        The objective's value.

    Examples
    --------
    >>> L = normalized_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> x = np.array([1.0, 0.0])
    >>> z = tikhonov_operator(L, [1.0, 1.0], [0.0, 0.5]) @ x
    >>> tikhonov_objective(z, x, L, [1.0, 1.0], [0.0, 0.5]) < tikhonov_objective(x, x, L, [1.0, 1.0], [0.0, 0.5])
    True
    """
    d = np.asarray(z) - np.asarray(x)
    return float(d @ (np.asarray(q) * d) + z @ poly_matrix(poly_coeffs, laplacian) @ z)


def filter_kind(lam: np.ndarray, p: np.ndarray, flat_tol: float = 0.05) -> str:
    """Name the filter R applies, from where p is smallest (R passes what p penalises least).

    'low-pass' if p is smallest in [0, 0.5] (R keeps smooth signals), 'high-pass' if in [1.5, 2],
    'band-pass' if in between, 'all-pass' if max p - min p <= ``flat_tol`` max p.

    Parameters
    ----------
    lam : array_like
        Points in [0, 2].
    p : array_like
        p at those points, the same shape.
    flat_tol : float
        In [0, 1): the relative spread below which p counts as flat.

    Returns
    -------
    str
        ``"low-pass"``, ``"high-pass"``, ``"band-pass"`` or ``"all-pass"``.

    Examples
    --------
    >>> lam = np.linspace(0, 2, 5)
    >>> filter_kind(lam, lam), filter_kind(lam, 2 - lam), filter_kind(lam, np.ones(5))
    ('low-pass', 'high-pass', 'all-pass')
    """
    from core.common.config import check_range

    flat_tol = check_range("flat_tol", flat_tol, 0.0, 1.0, high_open=True)
    lam, p = np.asarray(lam, dtype=float), np.asarray(p, dtype=float)
    if lam.shape != p.shape or lam.size == 0:
        raise ValueError(f"p: shape {p.shape} does not match lam's {lam.shape}; allowed the same non-empty shape")
    lo, hi = float(p.min()), float(p.max())
    if hi - lo <= flat_tol * max(hi, 1e-12):
        return "all-pass"
    at = float(lam[int(np.argmin(p))])
    if at <= 0.25 * LAMBDA_MAX:
        return "low-pass"
    if at >= 0.75 * LAMBDA_MAX:
        return "high-pass"
    return "band-pass"


@dataclass
class NormalizedExplanation:
    """The scale-free explanation that R identifies: (q / c, p(lambda_i) / c, lambda_i), c = tr p(L) / n.

    Attributes
    ----------
    q_normalized : ndarray of shape (n,)
        q / c.
    p_spectrum : ndarray of shape (n,)
        p at the eigenvalues of L (ascending), divided by c; they average 1.
    eigenvalues : ndarray of shape (n,)
        The spectrum of L, ascending.
    """

    q_normalized: np.ndarray
    p_spectrum: np.ndarray
    eigenvalues: np.ndarray


def normalize_parameters(laplacian: np.ndarray, q, poly_coeffs) -> NormalizedExplanation:
    """The scale-free explanation (q / c, p(lambda_i) / c, lambda_i), c = tr p(L) / n.

    Parameters
    ----------
    laplacian : array (n, n)
        The normalised Laplacian.
    q : array (n,)
        Positive node scores.
    poly_coeffs : array (K + 1,)
        Monomial coefficients of p (p >= 0 on [0, 2]).

    Returns
    -------
    NormalizedExplanation
        q / c, p at the eigenvalues of L (ascending) divided by c, and the eigenvalues.

    Notes
    -----
    Two parameterisations with the same R map to the same triple: (c q, c p) by construction, and
    polynomials equal on spec(L) because only their values there enter.

    Examples
    --------
    >>> L = normalized_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> a = normalize_parameters(L, [1.0, 2.0], [1.0, 1.0])
    >>> b = normalize_parameters(L, [3.0, 6.0], [3.0, 3.0])           # (3 q, 3 p): the same R
    >>> a.q_normalized, bool(np.allclose(a.q_normalized, b.q_normalized))
    (array([0.5, 1. ]), True)
    """
    laplacian = np.asarray(laplacian, dtype=float)
    q = check_q(q, laplacian.shape[0])
    check_polynomial(poly_coeffs)
    eig = np.linalg.eigvalsh(laplacian)
    p_spec = poly_eval(poly_coeffs, eig)
    scale = float(p_spec.mean())
    if scale <= 0:
        raise ValueError("poly_coeffs: p vanishes on the whole spectrum; allowed p with p(lambda) > 0 somewhere on spec(L)")
    return NormalizedExplanation(q / scale, p_spec / scale, eig)


def parameters_from_operator(operator: np.ndarray, laplacian: np.ndarray) -> NormalizedExplanation:
    """Recover the normalised (q, p|spec) of :func:`normalize_parameters` from R alone.

    With M = R^-1 - I = Q^-1 p(L), the symmetry of p(L) = Q M gives q_i M_ij = q_j M_ji, a
    homogeneous linear system whose null vector is q up to scale (unique when the nonzero
    off-diagonal entries of M connect the graph). Then P = Q M, c = tr P / n, and p(lambda_i) / c
    is the i-th diagonal entry of U^T P U / c with L = U diag(lambda) U^T.

    Parameters
    ----------
    operator : array (n, n)
        R = (p(L) + Q)^-1 Q.
    laplacian : array (n, n)
        The normalised Laplacian of the same graph.

    Returns
    -------
    NormalizedExplanation
        The same triple as :func:`normalize_parameters` of the parameters behind R.

    Examples
    --------
    >>> L = normalized_laplacian(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], float))
    >>> R = tikhonov_operator(L, [1.0, 2.0, 3.0], [1.0, 1.0])
    >>> bool(np.allclose(parameters_from_operator(R, L).q_normalized,
    ...                  normalize_parameters(L, [1.0, 2.0, 3.0], [1.0, 1.0]).q_normalized))
    True
    """
    R = np.asarray(operator, dtype=float)
    laplacian = np.asarray(laplacian, dtype=float)
    n = R.shape[0]
    if R.shape != laplacian.shape:
        raise ValueError(f"operator: shape {R.shape} does not match the Laplacian's {laplacian.shape}; allowed (n, n)")
    M = np.linalg.inv(R) - np.eye(n)
    i, j = np.triu_indices(n, 1)
    rows = np.zeros((i.size, n))
    rows[np.arange(i.size), i] = M[i, j]
    rows[np.arange(i.size), j] = -M[j, i]
    _, sing, vt = np.linalg.svd(rows)
    if n > 1 and sing.size >= n - 1 and sing[n - 2] < 1e-9 * max(sing[0], 1e-300):
        raise ValueError("operator: q is not identified (p(L) is diagonal or the graph is disconnected); allowed "
                         "operators of connected graphs with a non-constant p on spec(L)")
    q = vt[-1] * np.sign(vt[-1].sum())
    P = q[:, None] * M
    P = (P + P.T) / 2
    scale = float(np.trace(P) / n)
    eig, U = np.linalg.eigh(laplacian)
    return NormalizedExplanation(q / scale, np.einsum("ki,kl,li->i", U, P, U) / scale, eig)
