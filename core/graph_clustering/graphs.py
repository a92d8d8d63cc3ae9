"""Graph-level clustering with the same network: whole graphs mean-pooled, assigned to K prototypes.

Each graph's node features go through the domain-wide SVD alignment (all nodes of the set
together), the GCN, and ``torch_geometric.nn.global_mean_pool``; the pooled embeddings are assigned
to K prototypes with DEC's Student-t and trained with the confident KL(P ‖ Q), the prototype
orthogonality and the entropy term (sharp, balanced), since modularity has no meaning across
graphs. The network may start from a node-level :class:`~core.graph_clustering.gfm.Pretrained`
(its prototypes are re-initialised by k-means on the pooled embeddings): the "unified" reading.
The baseline is k-means on each graph's mean raw features.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.progress import report
from core.common.seeding import check_seed, derive_seed, torch_seeded
from core.graph_clustering.data import GraphSet, svd_align
from core.graph_clustering.gfm import PretrainConfig, Pretrained
from core.graph_clustering.metrics import ClusterScores, score_clustering


@dataclass
class GraphClustering:
    """Graph-level clusters of a set of graphs, and the mean-feature k-means baseline.

    Attributes
    ----------
    labels : numpy.ndarray
        ``(G,)`` the network's clusters.
    scores : ClusterScores
        Against the set's classes.
    kmeans_scores : ClusterScores
        k-means on mean raw node features, against the same classes.
    loss : numpy.ndarray
        ``(steps_done,)`` the training loss.
    steps_done : int
        Steps run.
    """

    labels: np.ndarray
    scores: ClusterScores
    kmeans_scores: ClusterScores
    loss: np.ndarray
    steps_done: int


def cluster_graphs(graphs: GraphSet, config: PretrainConfig | None = None, steps: int = 100, seed: int = 0,
                   pretrained: Pretrained | None = None, progress=None) -> GraphClustering:
    """Cluster whole graphs with the GFM-UC network (mean-pooled), optionally from a node-level pretraining.

    Parameters
    ----------
    graphs : GraphSet
        E.g. :func:`~core.graph_clustering.data.mutag_graphs`.
    config : PretrainConfig, optional
        Network and loss weights (ignored for the architecture when ``pretrained`` is given).
    steps : int
        Adam steps (full batch), 1 to 2000.
    seed : int
        Initialisation and k-means starts.
    pretrained : Pretrained, optional
        Start from a node-level pretrained network.
    progress : callable, optional
        ``progress(step, total, metrics)``.

    Returns
    -------
    GraphClustering
        The network's clusters and the baseline's scores.

    Examples
    --------
    >>> from core.graph_clustering.data import mutag_graphs
    >>> r = cluster_graphs(mutag_graphs(), PretrainConfig(hidden=8, embed=4), steps=2)
    >>> r.labels.shape, r.steps_done
    ((188,), 2)
    """
    import torch
    from sklearn.cluster import KMeans
    from torch_geometric.nn import global_mean_pool

    from core.graph_clustering.network import (ClusterNet, confident_kl, edge_index, information_entropy,
                                               prototype_orthogonality, soft_assign)

    if not isinstance(graphs, GraphSet):
        raise ValueError(f"graphs: a {type(graphs).__name__}; allowed a GraphSet (see mutag_graphs)")
    steps = check_range("steps", steps, 1, 2000, integer=True)
    seed = check_seed(seed)
    config = (pretrained.config if pretrained is not None else PretrainConfig() if config is None else config)
    if not isinstance(config, PretrainConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a PretrainConfig")
    sizes = [a.shape[0] for a in graphs.adjacencies]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    x = torch.as_tensor(svd_align(np.vstack(graphs.features), config.feature_dim))
    edges = torch.cat([edge_index(a) + int(o) for a, o in zip(graphs.adjacencies, offsets)], dim=1)
    batch = torch.as_tensor(np.repeat(np.arange(len(sizes)), sizes))
    k = graphs.n_clusters
    with torch_seeded(derive_seed(seed, "graphs", "init")):
        net = ClusterNet(config.feature_dim, config.hidden, config.embed, k, config.hops)
    if pretrained is not None:
        state = {n: torch.as_tensor(v) for n, v in pretrained.state.items() if n != "prototypes"}
        net.load_state_dict(state, strict=False)
    pool = lambda: global_mean_pool(net.nodes(x, edges), batch)  # noqa: E731
    with torch.no_grad():
        km = KMeans(k, n_init=5, random_state=derive_seed(seed, "graphs", "kmeans")).fit(pool().numpy())
        net.prototypes.copy_(torch.as_tensor(km.cluster_centers_, dtype=torch.float32))
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    losses = []
    for step in range(steps):
        opt.zero_grad()
        q = soft_assign(pool(), net.prototypes)
        loss = (config.dec_weight * confident_kl(q, config.confident_fraction) + information_entropy(q)
                + config.ortho_weight * prototype_orthogonality(net.prototypes))
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        if not report(progress, step + 1, steps, {"graph loss": losses[-1]}):
            break
    with torch.no_grad():
        labels = soft_assign(pool(), net.prototypes).argmax(1).numpy()
    means = np.vstack([f.mean(0) for f in graphs.features])
    base = KMeans(k, n_init=10, random_state=derive_seed(seed, "graphs", "baseline")).fit_predict(means)
    return GraphClustering(labels, score_clustering(graphs.labels, labels), score_clustering(graphs.labels, base),
                           np.array(losses), len(losses))
