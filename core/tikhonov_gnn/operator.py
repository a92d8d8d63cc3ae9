"""The Tikhonov operator R = (p(L) + Q)^-1 Q and the polynomial bases behind p.

For x on the nodes, z = Rx is the exact minimiser of (z - x)^T Q (z - x) + z^T p(L) z, whose
normal equations are (p(L) + Q) z = Q x. That needs p(L) to be positive semidefinite, i.e.
p >= 0 on the spectrum of L, contained in [0, 2] for the symmetric normalised Laplacian
L = I - D^-1/2 A D^-1/2; with q > 0 the system is then positive definite.

The layer parametrises p in the Bernstein basis of degree K on [0, 2] (as BernNet does):
p(lambda) = sum_k theta_k C(K, k) (lambda/2)^k (1 - lambda/2)^(K-k). With theta_k >= 0, p >= 0 on
[0, 2] by construction, while low-, high- and band-pass shapes all stay reachable (monomial
coefficients >= 0 would only allow p increasing, i.e. low-pass filters).
"""

from __future__ import annotations

from math import comb

import numpy as np

LAMBDA_MAX = 2.0


def normalized_laplacian(adjacency: np.ndarray) -> np.ndarray:
    """L = I - D^-1/2 A D^-1/2; isolated nodes get a zero row (their degree term is 0)."""
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
    """Monomial coefficients c with sum_k c_k lambda^k equal to the Bernstein polynomial on [0, 2]."""
    theta = np.asarray(theta, dtype=float)
    K = theta.size - 1
    coeffs = np.zeros(K + 1)
    for k, t in enumerate(theta):
        # C(K,k) (l/2)^k (1 - l/2)^(K-k) = C(K,k) sum_j C(K-k, j) (-1)^j (l/2)^(k+j)
        for j in range(K - k + 1):
            coeffs[k + j] += t * comb(K, k) * comb(K - k, j) * (-1) ** j / LAMBDA_MAX ** (k + j)
    return coeffs


def bernstein_eval(theta, lam) -> np.ndarray:
    theta, lam = np.asarray(theta, dtype=float), np.asarray(lam, dtype=float) / LAMBDA_MAX
    K = theta.size - 1
    return sum(t * comb(K, k) * lam**k * (1 - lam) ** (K - k) for k, t in enumerate(theta))


def poly_eval(coeffs, lam) -> np.ndarray:
    """p(lambda) = sum_k c_k lambda^k (coefficients in increasing order)."""
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
    """The dense propagation matrix R = (p(L) + Q)^-1 Q for one graph."""
    laplacian = np.asarray(laplacian, dtype=float)
    if laplacian.ndim != 2 or laplacian.shape[0] != laplacian.shape[1] or laplacian.shape[0] == 0:
        raise ValueError(f"laplacian: shape {laplacian.shape} is not a non-empty square matrix; allowed (n, n), n >= 1")
    q = check_q(q, laplacian.shape[0])
    check_polynomial(poly_coeffs)
    return np.linalg.solve(poly_matrix(poly_coeffs, laplacian) + np.diag(q), np.diag(q))


def tikhonov_objective(z, x, laplacian, q, poly_coeffs) -> float:
    d = np.asarray(z) - np.asarray(x)
    return float(d @ (np.asarray(q) * d) + z @ poly_matrix(poly_coeffs, laplacian) @ z)


def filter_kind(lam: np.ndarray, p: np.ndarray, flat_tol: float = 0.05) -> str:
    """'low-pass' if p is smallest near 0 (R keeps smooth signals), 'high-pass' if smallest near 2,
    'band-pass' if smallest in between, 'all-pass' if p is nearly flat relative to its size."""
    lo, hi = float(p.min()), float(p.max())
    if hi - lo <= flat_tol * max(hi, 1e-12):
        return "all-pass"
    at = float(lam[int(np.argmin(p))])
    if at <= 0.25 * LAMBDA_MAX:
        return "low-pass"
    if at >= 0.75 * LAMBDA_MAX:
        return "high-pass"
    return "band-pass"
