"""R = (p(L)+Q)^-1 Q: the Tikhonov problem it solves, APPNP as a special case, and bad input."""

import networkx as nx
import numpy as np
import pytest
import torch

from core.tikhonov_gnn.layer import (bernstein_matrix, dense_laplacian, sparse_laplacian, tikhonov_solve)
from core.tikhonov_gnn.operator import (bernstein_eval, bernstein_to_monomial, filter_kind, normalize_parameters,
                                        normalized_laplacian, parameters_from_operator, poly_eval, poly_matrix,
                                        tikhonov_objective, tikhonov_operator)

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


def test_matrix_free_solve_matches_the_dense_solve_and_its_gradients():
    """tikhonov_solve (CG on K products with a sparse L, implicit-function backward) against
    torch.linalg.solve on p(L) + Q built densely, with autograd through the dense solve."""
    rng = np.random.default_rng(3)
    edges = np.array(np.nonzero(KARATE))
    L_sparse = sparse_laplacian(torch.tensor(edges), 34, dtype=torch.float64)
    L = torch.tensor(normalized_laplacian(KARATE))
    np.testing.assert_allclose(L_sparse.to_dense().numpy(), L.numpy(), atol=1e-14)
    leaves = [torch.tensor(v, requires_grad=True) for v in (rng.uniform(0.2, 2.0, 34), rng.uniform(0.1, 2.0, 5),
                                                            rng.normal(size=(34, 3)))]
    weights = torch.tensor(rng.normal(size=(34, 3)))
    outs = []
    for solve in ("cg", "dense"):
        q, theta, rhs = leaves
        if solve == "cg":
            z = tikhonov_solve(q, theta, rhs, L_sparse, tol=1e-12, max_iter=2000, check_every=1)
        else:
            z = torch.linalg.solve(bernstein_matrix(theta, L[None])[0] + torch.diag(q), rhs)
        outs.append((z.detach(), torch.autograd.grad((z * weights).sum(), leaves)))
    (z_cg, g_cg), (z_dense, g_dense) = outs
    assert torch.allclose(z_cg, z_dense, atol=1e-9)
    for a, b in zip(g_cg, g_dense):
        assert torch.allclose(a, b, atol=1e-8)
    batched = tikhonov_solve(leaves[0].detach()[None], leaves[1].detach(), leaves[2].detach()[None], L[None],
                             tol=1e-12, max_iter=2000)
    assert torch.allclose(batched[0], z_dense, atol=1e-9)                  # the dense batched path too


def test_matrix_free_solve_stops_at_its_relative_tolerance():
    """A loose tolerance stops earlier and leaves a residual near it, whatever the scale of rhs."""
    L = sparse_laplacian(torch.tensor(np.array(np.nonzero(KARATE))), 34, dtype=torch.float64)
    q, theta = torch.full((34,), 0.05, dtype=torch.float64), torch.tensor([0.1, 1.0, 3.0], dtype=torch.float64)
    M = torch.tensor(poly_matrix(bernstein_to_monomial(theta.numpy()), L.to_dense().numpy())) + torch.diag(q)
    for scale in (1e-6, 1e6):
        rhs = scale * torch.tensor(np.random.default_rng(0).normal(size=(34, 2)))
        loose = tikhonov_solve(q, theta, rhs, L, tol=1e-3, check_every=1)
        tight = tikhonov_solve(q, theta, rhs, L, tol=1e-10, check_every=1)
        rel = lambda z: float((M @ z - rhs).norm(dim=0).max() / rhs.norm(dim=0).min())  # noqa: E731
        assert rel(tight) < 1e-9 and 1e-10 < rel(loose) < 1e-3 * 1.5


def triple(e):
    return e.q_normalized, e.p_spectrum, e.eigenvalues


def test_the_same_operator_gives_the_same_normalised_explanation():
    L = normalized_laplacian(KARATE)
    rng = np.random.default_rng(4)
    q, coeffs = rng.uniform(0.1, 3.0, 34), bernstein_to_monomial(rng.uniform(0.1, 2.0, 5))
    R = tikhonov_operator(L, q, coeffs)
    # The control: raw parameters 3x apart give the same R, so (q, p) itself cannot be identified.
    np.testing.assert_allclose(tikhonov_operator(L, 3 * q, 3 * coeffs), R, atol=1e-12)
    assert np.abs(3 * q - q).max() > 0.2
    for a, b in zip(triple(normalize_parameters(L, 3 * q, 3 * coeffs)), triple(normalize_parameters(L, q, coeffs))):
        np.testing.assert_allclose(a, b, atol=1e-12)
    # K5 (spectrum {0, 1.25}): p = 1 + 0.6 lambda (lambda - 1.25) has p(2) = 1.9 but equals 1 on the spectrum.
    K5 = normalized_laplacian(np.ones((5, 5)) - np.eye(5))
    np.testing.assert_allclose(np.linalg.eigvalsh(K5), [0, 1.25, 1.25, 1.25, 1.25], atol=1e-12)
    bump = [1.0, -0.75, 0.6]
    assert poly_eval(bump, 2.0) == pytest.approx(1.9)
    q5 = np.array([0.5, 1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(tikhonov_operator(K5, q5, bump), tikhonov_operator(K5, q5, [1.0]), atol=1e-12)
    for a, b in zip(triple(normalize_parameters(K5, q5, bump)), triple(normalize_parameters(K5, q5, [1.0]))):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_the_normalised_explanation_is_recovered_from_the_operator_alone():
    """R -> (q / c, p|spec / c) is a left inverse of the map, so distinct normalised explanations give distinct R."""
    for k in range(6):
        rng = np.random.default_rng(10 + k)
        g = nx.connected_watts_strogatz_graph(int(rng.integers(8, 25)), 4, 0.3, seed=k)
        L = normalized_laplacian(nx.to_numpy_array(g))
        eig = np.linalg.eigvalsh(L)
        assert np.diff(eig).min() > 1e-6                                   # a simple spectrum
        q, coeffs = rng.uniform(0.1, 5.0, L.shape[0]), bernstein_to_monomial(rng.uniform(0.05, 3.0, 6))
        expected = normalize_parameters(L, q, coeffs)
        recovered = parameters_from_operator(tikhonov_operator(L, q, coeffs), L)
        for a, b in zip(triple(recovered), triple(expected)):
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
        q2 = q.copy()
        q2[0] *= 1.5                                                       # another normalised explanation ...
        other = parameters_from_operator(tikhonov_operator(L, q2, coeffs), L)
        assert np.abs(other.q_normalized - expected.q_normalized).max() > 1e-3   # ... read back as different
        # Another p with the same q: a different shape on the (simple) spectrum gives another R, read back as such.
        coeffs2 = bernstein_to_monomial(rng.uniform(0.05, 3.0, 6))
        R2 = tikhonov_operator(L, q, coeffs2)
        assert np.abs(R2 - tikhonov_operator(L, q, coeffs)).max() > 1e-6
        moved = parameters_from_operator(R2, L)
        np.testing.assert_allclose(moved.p_spectrum, normalize_parameters(L, q, coeffs2).p_spectrum, rtol=1e-7, atol=1e-9)
        assert np.abs(moved.p_spectrum - expected.p_spectrum).max() > 1e-3
    with pytest.raises(ValueError, match="^operator: q is not identified"):
        parameters_from_operator(tikhonov_operator(L, q, [2.0]), L)        # p constant: only q / p is seen


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
    (lambda: parameters_from_operator(np.eye(3), np.eye(4)), r"^operator: shape \(3, 3\) does not match"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
