"""Dirichlet energy against closed forms: the ring's Fourier modes, and the limits of each propagation."""

import networkx as nx
import numpy as np
import pytest

from core.common.seeding import make_rng
from core.tikhonov_gnn.operator import normalized_laplacian
from core.tikhonov_gnn.smoothing import dirichlet_energy, energy_curves, gcn_propagation


def test_energy_of_a_laplacian_eigenvector_is_its_eigenvalue():
    L = normalized_laplacian(nx.to_numpy_array(nx.cycle_graph(12)))
    k = np.arange(12)
    for m in (0, 1, 3, 6):                    # on a ring, cos(2 pi m k / n) has eigenvalue 1 - cos(2 pi m / n)
        assert dirichlet_energy(np.cos(2 * np.pi * m * k / 12), L) == pytest.approx(1 - np.cos(2 * np.pi * m / 12))


def test_tikhonov_energy_follows_its_spectral_response():
    adj = nx.to_numpy_array(nx.cycle_graph(40))
    c = energy_curves(adj, depths=(1, 4), strengths=(0.5, 8.0), channels=4, seed=1)
    L = normalized_laplacian(adj)
    lam, U = np.linalg.eigh(L)
    x = make_rng(1).standard_normal((40, 4))            # the features energy_curves draws from seed 1
    coef = U.T @ x
    for s, e in zip(c.strength, c.tikhonov_strength):
        gain = 1.0 / (1.0 + s * lam)                                       # the layer's response q / (p + q)
        w = (gain[:, None] * coef) ** 2
        assert e == pytest.approx(float((lam[:, None] * w).sum() / w.sum()), rel=1e-9)
    assert c.diameter == 20


def test_gcn_oversmooths_and_appnp_does_not():
    adj = nx.to_numpy_array(nx.barabasi_albert_graph(60, 2, seed=0))
    c = energy_curves(adj, depths=(1, 8, 64), channels=8)
    assert c.gcn[-1] < 0.05 * c.input_energy and np.all(np.diff(c.gcn) < 0)
    assert c.appnp[-1] > 0.1 * c.input_energy                                  # teleport keeps part of the input
    assert c.tikhonov_strength[-1] < c.tikhonov_strength[0]                    # a stronger p smooths more
    a_hat = gcn_propagation(adj)
    np.testing.assert_allclose(a_hat, a_hat.T)
    assert np.linalg.eigvalsh(a_hat).max() == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"^alpha: 1.5 is out of range; allowed \(0, 1\)$"):
        energy_curves(adj, alpha=1.5)
