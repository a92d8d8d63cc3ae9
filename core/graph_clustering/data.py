"""Source and target domains for node clustering, a graph-clustering set, and feature alignment.

Every domain is generated from a seed or read from a package's files (nothing is downloaded):

- contextual SBMs (:func:`make_csbm`): K planted communities with edge probabilities ``p_in`` and
  ``p_out``, and Gaussian features ``x_i = snr · μ_{y_i} + ε_i`` with ``μ_c ~ N(0, I/f)`` and
  ``ε_i ~ N(0, I)`` (ours: ``snr`` is about the distance between two class means in noise units);
- LFR benchmark graphs (:func:`make_lfr`, networkx) with mixing ``μ``, features as in the cSBM;
- the control (:func:`make_er_control`): an Erdős–Rényi graph, random features, random labels, where
  no method can find structure;
- Zachary's karate club (:func:`karate_club`), features a spectral embedding of its adjacency (ours:
  it has none of its own);
- MUTAG (:func:`mutag_graphs`) through ``core.common.graphs``, for graph-level clustering.

Domains differ in feature dimension, so :func:`svd_align` maps each to a common dimension by a
truncated SVD of its own (centred) features, the GCOPE/MDGFM-style trick; signs follow
scikit-learn's ``svd_flip`` so that the map is deterministic. The bases of two domains are not
matched: the target-side alignment is left to the fine-tuning stage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import check_seed, derive_rng, derive_seed


@dataclass
class NodeDomain:
    """One graph whose nodes are to be clustered, with the truth kept for scoring only.

    Attributes
    ----------
    name : str
        The domain's key (see :data:`DOMAINS`).
    adjacency : numpy.ndarray
        ``(n, n)`` symmetric 0/1, zero diagonal.
    features : numpy.ndarray
        ``(n, f)`` node features (float32).
    labels : numpy.ndarray
        ``(n,)`` the planted communities, 0..K-1 (never used for training).
    n_clusters : int
        K, the number of communities (given to every method, as is usual in clustering benchmarks).
    """

    name: str
    adjacency: np.ndarray
    features: np.ndarray
    labels: np.ndarray
    n_clusters: int

    @property
    def n_nodes(self) -> int:
        """The number of nodes n."""
        return int(self.adjacency.shape[0])


def _community_features(labels: np.ndarray, k: int, dim: int, snr: float, rng: np.random.Generator) -> np.ndarray:
    means = rng.standard_normal((k, dim)) / np.sqrt(dim)
    means *= np.sqrt(dim) / np.sqrt(2.0)    # so that E‖μ_c − μ_c'‖ ≈ 1 before the snr factor
    return (snr * means[labels] + rng.standard_normal((labels.size, dim))).astype(np.float32)


def make_csbm(n: int = 300, k: int = 4, p_in: float = 0.08, p_out: float = 0.01, dim: int = 24, snr: float = 1.0,
              seed: int = 0, name: str = "csbm") -> NodeDomain:
    """A contextual stochastic block model: planted communities plus community-dependent Gaussian features.

    Parameters
    ----------
    n : int
        Nodes, 20 to 5000; the communities are as equal as possible.
    k : int
        Communities, 2 to 20.
    p_in, p_out : float
        Edge probabilities within and across communities, in [0, 1].
    dim : int
        Feature dimension, 1 to 512.
    snr : float
        Feature signal, about the distance between two class means in units of the noise (0 = no signal).
    seed : int
        The graph and the features.
    name : str
        The domain's name.

    Returns
    -------
    NodeDomain
        Labels in community order.

    Examples
    --------
    >>> d = make_csbm(n=60, k=3, seed=0)
    >>> d.adjacency.shape, d.features.shape, np.bincount(d.labels).tolist()
    ((60, 60), (60, 24), [20, 20, 20])
    """
    n = check_range("n", n, 20, 5000, integer=True)
    k = check_range("k", k, 2, 20, integer=True)
    p_in, p_out = check_range("p_in", p_in, 0, 1), check_range("p_out", p_out, 0, 1)
    dim = check_range("dim", dim, 1, 512, integer=True)
    snr = check_range("snr", snr, 0, 100)
    check_seed(seed)
    labels = np.arange(n) * k // n
    rng = derive_rng(seed, "csbm", "graph")
    prob = np.where(labels[:, None] == labels[None, :], p_in, p_out)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    adj = (upper | upper.T).astype(float)
    feats = _community_features(labels, k, dim, snr, derive_rng(seed, "csbm", "features"))
    return NodeDomain(name, adj, feats, labels, k)


def make_lfr(n: int = 250, mu: float = 0.1, dim: int = 20, snr: float = 0.6, seed: int = 0,
             name: str = "lfr") -> NodeDomain:
    """An LFR benchmark graph (networkx): power-law degrees and community sizes, mixing ``mu``.

    networkx's generator fails for some seeds ("could not assign communities"); the next child seed
    (``derive_seed(seed, "lfr", attempt)``) is tried, up to 20, so the same seed always gives the
    same graph. Degree exponent 3, community-size exponent 1.5, average degree 10, communities of 40
    to 100 nodes (ours).

    Parameters
    ----------
    n : int
        Nodes, 100 to 2000.
    mu : float
        Mixing: the share of each node's edges that leave its community, in [0, 0.6].
    dim : int
        Feature dimension, 1 to 512.
    snr : float
        Feature signal as in :func:`make_csbm`.
    seed : int
        The graph and the features.
    name : str
        The domain's name.

    Returns
    -------
    NodeDomain
        Communities numbered by their smallest node.

    Examples
    --------
    >>> d = make_lfr(seed=0)
    >>> d.n_nodes, d.n_clusters >= 2, bool((d.adjacency == d.adjacency.T).all())
    (250, True, True)
    """
    import networkx as nx

    n = check_range("n", n, 100, 2000, integer=True)
    mu = check_range("mu", mu, 0, 0.6)
    dim = check_range("dim", dim, 1, 512, integer=True)
    snr = check_range("snr", snr, 0, 100)
    check_seed(seed)
    for attempt in range(20):
        try:
            G = nx.LFR_benchmark_graph(n, 3, 1.5, mu, average_degree=10, min_community=40, max_community=100,
                                       seed=derive_seed(seed, "lfr", attempt), max_iters=500)
            break
        except nx.ExceededMaxIterations:
            continue
    else:   # pragma: no cover - 20 failures in a row were never seen
        raise ValueError(f"mu: networkx could not build an LFR graph at mu = {mu:g}; allowed a smaller mu")
    communities = sorted({min(G.nodes[v]["community"]) for v in G})
    labels = np.array([communities.index(min(G.nodes[v]["community"])) for v in range(n)])
    adj = nx.to_numpy_array(G, nodelist=range(n))
    np.fill_diagonal(adj, 0.0)
    adj = (adj > 0).astype(float)
    k = len(communities)
    feats = _community_features(labels, k, dim, snr, derive_rng(seed, "lfr", "features"))
    return NodeDomain(name, adj, feats, labels, k)


def make_er_control(n: int = 250, k: int = 4, average_degree: float = 10.0, dim: int = 24, seed: int = 0,
                    name: str = "er_control") -> NodeDomain:
    """The control: an Erdős–Rényi graph with random features and random labels (no cluster structure).

    Parameters
    ----------
    n : int
        Nodes, 20 to 5000.
    k : int
        The number of (meaningless) labels, 2 to 20.
    average_degree : float
        Expected degree, in (0, n - 1].
    dim : int
        Feature dimension, 1 to 512.
    seed : int
        Graph, features and labels.
    name : str
        The domain's name.

    Returns
    -------
    NodeDomain
        Labels drawn independently of graph and features.

    Examples
    --------
    >>> d = make_er_control(n=100, seed=1)
    >>> d.n_clusters, d.features.shape
    (4, (100, 24))
    """
    n = check_range("n", n, 20, 5000, integer=True)
    k = check_range("k", k, 2, 20, integer=True)
    average_degree = check_range("average_degree", average_degree, 0, n - 1, low_open=True)
    dim = check_range("dim", dim, 1, 512, integer=True)
    check_seed(seed)
    rng = derive_rng(seed, "er", "graph")
    upper = np.triu(rng.random((n, n)) < average_degree / (n - 1), 1)
    adj = (upper | upper.T).astype(float)
    feats = derive_rng(seed, "er", "features").standard_normal((n, dim)).astype(np.float32)
    labels = derive_rng(seed, "er", "labels").integers(0, k, n)
    return NodeDomain(name, adj, feats, labels, k)


def karate_club(dim: int = 8, seed: int = 0) -> NodeDomain:
    """Zachary's karate club: 34 members, the two factions after the split as the truth.

    Parameters
    ----------
    dim : int
        Features: the top ``dim`` eigenvectors of the normalised adjacency (ours: the graph has no
        node features), 1 to 33.
    seed : int
        Unused (the graph is fixed); accepted so that every domain factory has the same signature.

    Returns
    -------
    NodeDomain
        Label 1 for "Officer", 0 for "Mr. Hi".

    Examples
    --------
    >>> d = karate_club()
    >>> d.n_nodes, int(d.adjacency.sum() // 2), np.bincount(d.labels).tolist()
    (34, 78, [17, 17])
    """
    import networkx as nx

    dim = check_range("dim", dim, 1, 33, integer=True)
    check_seed(seed)
    G = nx.karate_club_graph()
    adj = (nx.to_numpy_array(G, nodelist=range(34), weight=None) > 0).astype(float)
    labels = np.array([int(G.nodes[v]["club"] == "Officer") for v in range(34)])
    d = adj.sum(1)
    norm = adj / np.sqrt(np.outer(d, d))
    vals, vecs = np.linalg.eigh(norm)
    feats = vecs[:, np.argsort(-vals)[:dim]] * np.sqrt(34)
    return NodeDomain("karate", adj, feats.astype(np.float32), labels, 2)


@dataclass
class GraphSet:
    """A set of small graphs to be clustered as wholes (graph-level clustering).

    Attributes
    ----------
    name : str
        The dataset's key.
    adjacencies : list of numpy.ndarray
        One ``(n_g, n_g)`` symmetric 0/1 matrix per graph.
    features : list of numpy.ndarray
        One ``(n_g, f)`` feature matrix per graph.
    labels : numpy.ndarray
        ``(G,)`` the graphs' classes (scoring only).
    n_clusters : int
        The number of classes.
    """

    name: str
    adjacencies: list
    features: list
    labels: np.ndarray
    n_clusters: int


def mutag_graphs() -> GraphSet:
    """MUTAG (188 molecules, atoms one-hot, mutagenic or not) from grakel's bundled files.

    Returns
    -------
    GraphSet
        Through :func:`core.common.graphs.load_mutag`, the loader shared with tikhonov_gnn.

    Examples
    --------
    >>> g = mutag_graphs()
    >>> len(g.adjacencies), g.n_clusters, g.features[0].shape
    (188, 2, (17, 7))
    """
    from core.common.graphs import load_mutag

    data = load_mutag()
    return GraphSet("mutag", [g.adjacency for g in data.graphs], [g.features for g in data.graphs],
                    np.array([int(g.label) for g in data.graphs]), 2)


def svd_align(features, dim: int = 24) -> np.ndarray:
    """Map a domain's features to ``dim`` columns: its centred truncated SVD, scaled to unit variance.

    ``X - mean = U Σ Vᵀ``; the result is ``U[:, :dim] Σ[:dim] / s`` with ``s`` the root mean variance
    of the kept columns, zero-padded when the features have fewer than ``dim`` directions. Signs
    follow ``sklearn.utils.extmath.svd_flip`` (the largest entry of each column of U is positive).

    Parameters
    ----------
    features : array-like of shape (n, f)
        The domain's node features.
    dim : int
        The common dimension, 1 to 512.

    Returns
    -------
    numpy.ndarray
        ``(n, dim)`` float32, columns in decreasing variance.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(50, 7))
    >>> Z = svd_align(X, dim=10)
    >>> Z.shape, bool(np.allclose(Z[:, 7:], 0)), round(float((Z[:, :7] ** 2).mean(0).mean()), 6)
    ((50, 10), True, 1.0)
    """
    from sklearn.utils.extmath import svd_flip

    dim = check_range("dim", dim, 1, 512, integer=True)
    X = np.asarray(features, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"features: shape {X.shape}; allowed (n, f) with n >= 2")
    X = X - X.mean(0)
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    U, Vt = svd_flip(U, Vt)
    r = min(dim, int((s > 1e-9 * max(s[0], 1e-300)).sum()))
    out = np.zeros((X.shape[0], dim))
    out[:, :r] = U[:, :r] * s[:r]
    scale = np.sqrt((out[:, :r] ** 2).mean(0).mean()) if r else 1.0
    return (out / max(scale, 1e-12)).astype(np.float32)


def _source(seed):
    return make_csbm(300, 4, 0.08, 0.01, 24, 1.0, seed, "csbm_source")


DOMAINS = {
    "csbm_source": _source,
    "csbm_shifted": lambda seed: make_csbm(250, 4, 0.12, 0.015, 40, 0.8, seed, "csbm_shifted"),
    "csbm_weak_features": lambda seed: make_csbm(250, 4, 0.1, 0.01, 16, 0.3, seed, "csbm_weak_features"),
    "csbm_easy": lambda seed: make_csbm(200, 4, 0.3, 0.02, 24, 3.0, seed, "csbm_easy"),
    "lfr": lambda seed: make_lfr(250, 0.1, 20, 0.6, seed, "lfr"),
    "karate": lambda seed: karate_club(8, seed),
    "er_control": lambda seed: make_er_control(250, 4, 10.0, 24, seed, "er_control"),
}
DOMAIN_LABELS = {
    "csbm_source": "cSBM source",
    "csbm_shifted": "cSBM shifted",
    "csbm_weak_features": "cSBM weak features",
    "csbm_easy": "cSBM easy",
    "lfr": "LFR, μ = 0.1",
    "karate": "Karate club",
    "er_control": "Control: ER, random",
}
DOMAIN_NOTES = {
    "csbm_source": "300 nodes, 4 communities, 24 features",
    "csbm_shifted": "250 nodes, denser, 40 features, weaker feature signal",
    "csbm_weak_features": "250 nodes, 16 features with little signal: the structure carries it",
    "csbm_easy": "200 nodes, p_in 0.3, p_out 0.02, strong features",
    "lfr": "250 nodes, power-law degrees and community sizes, mixing 0.1",
    "karate": "34 members, the 2 factions after the split",
    "er_control": "Erdős–Rényi graph, random features, random labels: nothing to find",
}


def make_domain(name: str, seed: int = 0) -> NodeDomain:
    """A named domain of :data:`DOMAINS`, generated from ``seed``.

    Parameters
    ----------
    name : str
        One of :data:`DOMAINS`.
    seed : int
        The generator's seed (the karate club ignores it).

    Returns
    -------
    NodeDomain
        The domain.

    Examples
    --------
    >>> make_domain("csbm_shifted", seed=0).features.shape
    (250, 40)
    """
    if name not in DOMAINS:
        raise ValueError(f"domain: {name!r} is not an option; allowed {', '.join(map(repr, DOMAINS))}")
    return DOMAINS[name](check_seed(seed))
