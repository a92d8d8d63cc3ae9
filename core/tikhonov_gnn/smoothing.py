"""Oversmoothing, measured: the Dirichlet energy of propagated features against depth or strength.

For features Z on the nodes, the normalised Dirichlet energy is the Rayleigh quotient

    E(Z) = tr(Z^T L Z) / tr(Z^T Z),   L = I - D^-1/2 A D^-1/2,  0 <= E <= 2,

(ours: one Laplacian, the graph's own, for every propagation, so the curves are comparable). It
goes to the energy of the slowest mode when a propagation oversmooths. Three linear
propagations of the same random features, without weights or nonlinearities (the setting of the
oversmoothing analyses; trained weights are :func:`~core.tikhonov_gnn.data.make_bottleneck`'s
business):

- GCN, depth k: Z = A_hat^k X with A_hat = D~^-1/2 (A + I) D~^-1/2;
- APPNP, K steps: Z <- (1 - alpha) A_hat Z + alpha X, from Z = X;
- Tikhonov, one layer of strength s: Z = (s L + I)^-1 X (q = 1, p = s lambda), and k stacked
  layers of strength 1, Z = (L + I)^-k X.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import make_rng
from core.tikhonov_gnn.operator import normalized_laplacian


def dirichlet_energy(features: np.ndarray, laplacian: np.ndarray) -> float:
    """tr(Z^T L Z) / tr(Z^T Z) for Z (n, c)."""
    z = np.asarray(features, dtype=float).reshape(laplacian.shape[0], -1)
    norm = float((z * z).sum())
    if norm == 0:
        raise ValueError("features: all zero; allowed features with a nonzero entry")
    return float((z * (laplacian @ z)).sum() / norm)


def gcn_propagation(adjacency: np.ndarray) -> np.ndarray:
    a = np.asarray(adjacency, dtype=float) + np.eye(adjacency.shape[0])
    d = a.sum(1)
    return a / np.sqrt(np.outer(d, d))


@dataclass
class EnergyCurves:
    depth: np.ndarray              # GCN layers, APPNP steps, stacked Tikhonov layers
    gcn: np.ndarray
    appnp: np.ndarray
    tikhonov_stacked: np.ndarray
    strength: np.ndarray           # one Tikhonov layer, p = s * lambda
    tikhonov_strength: np.ndarray
    input_energy: float
    diameter: int


def energy_curves(adjacency: np.ndarray, depths=(1, 2, 4, 8, 16, 32, 64), strengths=(0.25, 1, 4, 16, 64, 256),
                  alpha: float = 0.1, channels: int = 16, seed: int = 0) -> EnergyCurves:
    """Dirichlet energy of seeded Gaussian features after each propagation.

    Parameters
    ----------
    adjacency : array (n, n)
        A connected undirected graph.
    depths, strengths : sequences
        GCN depth / APPNP steps / stacked Tikhonov layers; one Tikhonov layer's strength s.
    alpha : float
        APPNP's teleport probability.
    channels : int
        Feature columns, drawn N(0, 1) from ``seed``.

    Returns
    -------
    EnergyCurves
    """
    import networkx as nx

    if not 0 < alpha < 1:
        raise ValueError(f"alpha: {alpha} is out of range; allowed (0, 1)")
    L = normalized_laplacian(adjacency)
    n = L.shape[0]
    x = make_rng(seed).standard_normal((n, channels))
    a_hat = gcn_propagation(adjacency)
    tik = np.linalg.inv(L + np.eye(n))
    gcn, appnp, stacked = [], [], []
    for k in depths:
        gcn.append(dirichlet_energy(np.linalg.matrix_power(a_hat, k) @ x, L))
        z = x.copy()
        for _ in range(k):
            z = (1 - alpha) * a_hat @ z + alpha * x
        appnp.append(dirichlet_energy(z, L))
        stacked.append(dirichlet_energy(np.linalg.matrix_power(tik, k) @ x, L))
    strength = [dirichlet_energy(np.linalg.solve(s * L + np.eye(n), x), L) for s in strengths]
    return EnergyCurves(np.asarray(depths), np.array(gcn), np.array(appnp), np.array(stacked),
                        np.asarray(strengths, dtype=float), np.array(strength), dirichlet_energy(x, L),
                        int(nx.diameter(nx.from_numpy_array(adjacency))))
