"""R = (p(L)+Q)^-1 Q: the Tikhonov problem it solves, APPNP as a special case, and bad input."""

import networkx as nx
import numpy as np
import pytest
import torch

from core.tikhonov_gnn.layer import bernstein_matrix, conjugate_gradient, dense_laplacian
from core.tikhonov_gnn.operator import (bernstein_eval, bernstein_to_monomial, filter_kind, normalized_laplacian,
                                        poly_eval, poly_matrix, tikhonov_objective, tikhonov_operator)

KARATE = nx.to_numpy_array(nx.karate_club_graph(), weight=None)


def test_rx_solves_the_normal_equations_and_minimises_the_objective():
    rng = np.random.default_rng(0)
    L = normalized_laplacian(KARATE)
    q = rng.uniform(0.1, 3.0, 34)
    coeffs = [0.3, 1.2, -0.4]  # p >= 0 on [0, 2]
    R = tikhonov_operator(L, q, coeffs)
    x = rng.normal(size=34)
    z = R @ x
    residual = (poly_matrix(coeffs, L) + np.diag(q)) @ z - q * x
    assert np.abs(residual).max() < 1e-10
    best = tikhonov_objective(z, x, L, q, coeffs)
    for _ in range(200):
        assert tikhonov_objective(z + 1e-3 * rng.normal(size=34), x, L, q, coeffs) > best


def test_appnp_in_the_limit_is_the_tikhonov_layer_with_q_one():
    """PyG's APPNP (K power steps, teleport alpha) against Q = I, p(L~) = ((1-alpha)/alpha) L~."""
    from torch_geometric.nn import APPNP

    alpha = 0.1
    a_tilde = KARATE + np.eye(34)
    d = a_tilde.sum(1)
    L_tilde = np.eye(34) - a_tilde / np.sqrt(np.outer(d, d))
    R = tikhonov_operator(L_tilde, np.ones(34), [0.0, (1 - alpha) / alpha])
    x = np.random.default_rng(1).normal(size=(34, 3))
    edge_index = torch.tensor(np.array(np.nonzero(KARATE)), dtype=torch.long)
    appnp = APPNP(K=400, alpha=alpha)(torch.tensor(x, dtype=torch.float64), edge_index).numpy()
    np.testing.assert_allclose(R @ x, appnp, atol=1e-8)


def test_bernstein_conversion_and_nonnegativity():
    rng = np.random.default_rng(2)
    lam = np.linspace(0, 2, 101)
    for K in (1, 3, 6):
        theta = rng.uniform(0, 2, K + 1)
        coeffs = bernstein_to_monomial(theta)
        np.testing.assert_allclose(poly_eval(coeffs, lam), bernstein_eval(theta, lam), atol=1e-10)
        assert poly_eval(coeffs, lam).min() >= -1e-12
    assert filter_kind(lam, bernstein_eval([0.0, 1.0, 3.0], lam)) == "low-pass"
    assert filter_kind(lam, bernstein_eval([3.0, 1.0, 0.0], lam)) == "high-pass"
    assert filter_kind(lam, bernstein_eval([3.0, 0.0, 3.0], lam)) == "band-pass"
    assert filter_kind(lam, bernstein_eval([1.0, 1.0, 1.0], lam)) == "all-pass"


def test_torch_layer_matches_numpy_operator():
    theta = torch.tensor([0.5, 0.1, 2.0, 0.7], dtype=torch.float64)
    adj = torch.tensor(KARATE)[None]
    mask = torch.ones(1, 34, dtype=torch.bool)
    L_t = dense_laplacian(adj, mask)[0]
    L = normalized_laplacian(KARATE)
    np.testing.assert_allclose(L_t.numpy(), L, atol=1e-12)
    P = bernstein_matrix(theta, L_t[None])[0].numpy()
    np.testing.assert_allclose(P, poly_matrix(bernstein_to_monomial(theta.numpy()), L), atol=1e-10)


def test_conjugate_gradient_matches_the_dense_solve_with_gradients():
    torch.manual_seed(0)
    A = torch.randn(3, 12, 12, dtype=torch.float64)
    M = A @ A.transpose(-1, -2) + 12 * torch.eye(12, dtype=torch.float64)
    b = torch.randn(3, 12, 4, dtype=torch.float64, requires_grad=True)
    dense = torch.linalg.solve(M, b)
    cg = conjugate_gradient(M, b, iters=100, tol=1e-24)
    assert torch.allclose(dense, cg, atol=1e-9)
    g_dense, = torch.autograd.grad(dense.sum(), b)
    g_cg, = torch.autograd.grad(cg.sum(), b)
    assert torch.allclose(g_dense, g_cg, atol=1e-8)


def test_distinct_q_give_distinct_operators_and_the_receptive_field_is_global():
    L = normalized_laplacian(KARATE)
    q = np.ones(34)
    R = tikhonov_operator(L, q, [0.0, 2.0])
    assert (R > 0).all()  # one layer reaches every node of a connected graph
    q2 = q.copy()
    q2[5] = 2.0
    assert np.abs(R - tikhonov_operator(L, q2, [0.0, 2.0])).max() > 1e-2
    # p(0) = 0: D^1/2 1 spans the kernel of L, so R keeps it exactly (rows of R do not sum to 1).
    d_half = np.sqrt(KARATE.sum(1))
    np.testing.assert_allclose(R @ d_half, d_half, atol=1e-10)


@pytest.mark.parametrize("call, message", [
    (lambda: normalized_laplacian(np.zeros((0, 0))), "^adjacency: the graph is empty"),
    (lambda: tikhonov_operator(np.zeros((0, 0)), [], [1.0]), r"^laplacian: shape \(0, 0\) is not a non-empty square"),
    (lambda: tikhonov_operator(normalized_laplacian(KARATE), -np.ones(34), [0.0, 1.0]), "^q: -1 is not a positive node score; allowed q_i > 0"),
    (lambda: tikhonov_operator(normalized_laplacian(KARATE), np.ones(3), [0.0, 1.0]), r"^q: shape \(3,\) does not match the graph; allowed \(34,\)"),
    (lambda: tikhonov_operator(normalized_laplacian(KARATE), np.ones(34), [0.1, -1.0]), r"^poly_coeffs: p\(2\) = -1.9 < 0; allowed polynomials with p >= 0 on \[0, 2\]"),
    (lambda: normalized_laplacian(np.array([[0, 1], [0, 0]])), "^adjacency: must be symmetric"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
