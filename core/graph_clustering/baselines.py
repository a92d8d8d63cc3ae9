"""Baselines: k-means on features, spectral clustering, DMoN (PyG) and DAEGC-style self-training.

- :func:`kmeans_features`: scikit-learn's KMeans on the SVD-aligned features (no graph);
- :func:`spectral_labels`: scikit-learn's SpectralClustering on the adjacency (no features);
- :func:`dmon_labels`: a GCN into ``torch_geometric.nn.DMoNPooling`` with batch size 1 (PyG's cluster
  loss is wrong for batched graphs, its issue 10148, and a batch of one avoids it), trained on its
  spectral + orthogonality + cluster losses;
- :func:`daegc_labels`: DAEGC's recipe with a GCN instead of its GAT (ours): a graph autoencoder
  (``σ(ZZᵀ)`` against ``A + I``) for half the steps, then k-means centroids and the reconstruction
  plus γ·KL(P ‖ Q) with DEC's target updated every step, γ = 10 (DAEGC's value).
"""

from __future__ import annotations

import warnings

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, derive_seed, torch_seeded
from core.graph_clustering.data import NodeDomain, svd_align


def kmeans_features(domain: NodeDomain, feature_dim: int = 24, seed: int = 0) -> np.ndarray:
    """K-means (10 starts) on the domain's SVD-aligned features.

    Parameters
    ----------
    domain : NodeDomain
        The graph (its adjacency is ignored).
    feature_dim : int
        The SVD dimension, as for the network.
    seed : int
        KMeans' ``random_state``.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` cluster labels.

    Examples
    --------
    >>> from core.graph_clustering.data import make_csbm
    >>> kmeans_features(make_csbm(n=40, k=2, seed=0)).shape
    (40,)
    """
    from sklearn.cluster import KMeans

    X = svd_align(domain.features, feature_dim)
    return KMeans(domain.n_clusters, n_init=10, random_state=derive_seed(check_seed(seed), "kmeans")).fit_predict(X)


def spectral_labels(domain: NodeDomain, seed: int = 0) -> np.ndarray:
    """scikit-learn's SpectralClustering with the adjacency as the affinity (features ignored).

    Parameters
    ----------
    domain : NodeDomain
        The graph.
    seed : int
        The embedding's and the k-means' ``random_state``.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` cluster labels.

    Examples
    --------
    >>> from core.graph_clustering.data import karate_club
    >>> spectral_labels(karate_club()).shape
    (34,)
    """
    from sklearn.cluster import SpectralClustering

    with warnings.catch_warnings():   # "graph is not fully connected": isolated nodes get some cluster
        warnings.simplefilter("ignore", UserWarning)
        model = SpectralClustering(domain.n_clusters, affinity="precomputed", n_init=10,
                                   random_state=derive_seed(check_seed(seed), "spectral"))
        return model.fit_predict(domain.adjacency + 1e-8)


def _gcn(in_dim: int, hidden: int, out: int):
    import torch
    from torch_geometric.nn import GCNConv

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = GCNConv(in_dim, hidden), GCNConv(hidden, out)

        def forward(self, x, edges):
            return self.b(torch.relu(self.a(x, edges)), edges)

    return GCN()


def dmon_labels(domain: NodeDomain, steps: int = 150, feature_dim: int = 24, seed: int = 0) -> np.ndarray:
    """DMoN: a 2-layer GCN into PyG's ``DMoNPooling`` (batch of one), Adam on its three losses.

    Parameters
    ----------
    domain : NodeDomain
        The graph.
    steps : int
        Adam steps (lr 0.01), 1 to 5000.
    feature_dim : int
        The SVD dimension of the input features.
    seed : int
        Initialisation.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` argmax of DMoN's assignment.

    Examples
    --------
    >>> from core.graph_clustering.data import make_csbm
    >>> dmon_labels(make_csbm(n=40, k=2, seed=0), steps=2).shape
    (40,)
    """
    import torch
    from torch_geometric.nn import DMoNPooling

    from core.graph_clustering.network import edge_index

    steps = check_range("steps", steps, 1, 5000, integer=True)
    x = torch.as_tensor(svd_align(domain.features, feature_dim))
    edges = edge_index(domain.adjacency)
    adj = torch.as_tensor(domain.adjacency, dtype=torch.float32)[None]
    with torch_seeded(derive_seed(check_seed(seed), "dmon")):
        gcn, pool = _gcn(feature_dim, 64, 16), DMoNPooling(16, domain.n_clusters)
    params = list(gcn.parameters()) + list(pool.parameters())
    opt = torch.optim.Adam(params, lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        s, _, _, spectral, ortho, cluster = pool(gcn(x, edges)[None], adj)
        (spectral + ortho + cluster).backward()
        opt.step()
    with torch.no_grad():
        s = pool(gcn(x, edges)[None], adj)[0][0]
    return s.argmax(1).numpy()


def daegc_labels(domain: NodeDomain, steps: int = 150, feature_dim: int = 24, seed: int = 0) -> np.ndarray:
    """DAEGC-style: graph-autoencoder pretraining, then reconstruction + γ·KL(P ‖ Q) self-training.

    Parameters
    ----------
    domain : NodeDomain
        The graph.
    steps : int
        Adam steps in all (lr 0.005), half of them autoencoder only; 2 to 5000.
    feature_dim : int
        The SVD dimension of the input features.
    seed : int
        Initialisation and the k-means start.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` argmax of the Student-t assignment.

    Examples
    --------
    >>> from core.graph_clustering.data import make_csbm
    >>> daegc_labels(make_csbm(n=40, k=2, seed=0), steps=4).shape
    (40,)
    """
    import torch
    from sklearn.cluster import KMeans

    from core.graph_clustering.network import edge_index, sharpen, soft_assign

    steps = check_range("steps", steps, 2, 5000, integer=True)
    seed = check_seed(seed)
    x = torch.as_tensor(svd_align(domain.features, feature_dim))
    edges = edge_index(domain.adjacency)
    target = torch.as_tensor(np.minimum(domain.adjacency + np.eye(domain.n_nodes), 1.0), dtype=torch.float32)
    with torch_seeded(derive_seed(seed, "daegc")):
        gcn = _gcn(feature_dim, 64, 16)
    centres = torch.nn.Parameter(torch.zeros(domain.n_clusters, 16))
    opt = torch.optim.Adam(list(gcn.parameters()) + [centres], lr=0.005)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    for step in range(steps):
        if step == steps // 2:
            with torch.no_grad():
                z = gcn(x, edges).numpy()
                km = KMeans(domain.n_clusters, n_init=5, random_state=derive_seed(seed, "daegc", "kmeans")).fit(z)
                centres.copy_(torch.as_tensor(km.cluster_centers_, dtype=torch.float32))
        opt.zero_grad()
        z = gcn(x, edges)
        loss = bce(z @ z.T, target)
        if step >= steps // 2:
            q = soft_assign(z, centres)
            p = sharpen(q).detach()
            loss = loss + 10.0 * (p * (torch.log(p + 1e-12) - torch.log(q + 1e-12))).sum(1).mean()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return soft_assign(gcn(x, edges), centres).argmax(1).numpy()
