"""Clustering scores against a ground truth (ACC, NMI, ARI) and DMoN's modularity losses.

ACC is the share of nodes whose cluster, mapped to a class by the Hungarian matching of the
contingency table (``scipy.optimize.linear_sum_assignment``), is their class. NMI (arithmetic
normalisation, scikit-learn's default) and ARI are computed here from the contingency table, and
checked against scikit-learn's in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _labels(name: str, y) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-D labelling, got shape {y.shape}; allowed 1-D integer arrays")
    return np.unique(y, return_inverse=True)[1]


def contingency(truth, pred) -> np.ndarray:
    """The contingency table ``C[c, k]`` = number of nodes of class ``c`` in cluster ``k``.

    Parameters
    ----------
    truth : array-like of shape (n,)
        True classes (any hashable labels).
    pred : array-like of shape (n,)
        Cluster labels.

    Returns
    -------
    numpy.ndarray
        ``(n_classes, n_clusters)`` integer counts, classes and clusters in sorted-label order.

    Examples
    --------
    >>> contingency([0, 0, 1], [1, 1, 0]).tolist()
    [[0, 2], [1, 0]]
    """
    t, p = _labels("truth", truth), _labels("pred", pred)
    if t.size != p.size:
        raise ValueError(f"pred: {p.size} labels for {t.size} nodes; allowed one label per node")
    table = np.zeros((t.max() + 1, p.max() + 1), dtype=np.int64)
    np.add.at(table, (t, p), 1)
    return table


def cluster_accuracy(truth, pred) -> float:
    """ACC: the share of nodes correctly clustered under the best one-to-one map of clusters to classes.

    Parameters
    ----------
    truth : array-like of shape (n,)
        True classes.
    pred : array-like of shape (n,)
        Cluster labels (their names do not matter: a permuted labelling scores the same).

    Returns
    -------
    float
        ``max_σ Σ_c C[c, σ(c)] / n`` over one-to-one maps σ (Hungarian matching on ``-C``).

    Examples
    --------
    >>> cluster_accuracy([0, 0, 1, 1, 2], [2, 2, 0, 0, 1])
    1.0
    """
    from scipy.optimize import linear_sum_assignment

    table = contingency(truth, pred)
    rows, cols = linear_sum_assignment(-table)
    return float(table[rows, cols].sum() / table.sum())


def match_labels(truth, pred) -> np.ndarray:
    """``pred`` renamed so that each cluster carries the class it is matched to (Hungarian, as for ACC).

    Clusters left unmatched (more clusters than classes) get names after the largest class.

    Parameters
    ----------
    truth : array-like of shape (n,)
        True classes, integers 0..C-1.
    pred : array-like of shape (n,)
        Cluster labels.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` integers: the same partition as ``pred``, named after ``truth``'s classes.

    Examples
    --------
    >>> match_labels([0, 0, 1, 1, 2], [2, 2, 0, 0, 1]).tolist()
    [0, 0, 1, 1, 2]
    """
    from scipy.optimize import linear_sum_assignment

    table = contingency(truth, pred)
    classes = np.unique(np.asarray(truth))
    rows, cols = linear_sum_assignment(-table)
    names = {int(c): int(classes[r]) for r, c in zip(rows, cols)}
    spare = iter(range(int(classes.max()) + 1, int(classes.max()) + 1 + table.shape[1]))
    inverse = np.unique(np.asarray(pred), return_inverse=True)[1]
    mapping = np.array([names[c] if c in names else next(spare) for c in range(table.shape[1])])
    return mapping[inverse]


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def nmi(truth, pred) -> float:
    """Normalised mutual information, arithmetic normalisation: ``I(T; K) / ((H(T) + H(K)) / 2)``.

    Parameters
    ----------
    truth : array-like of shape (n,)
        True classes.
    pred : array-like of shape (n,)
        Cluster labels.

    Returns
    -------
    float
        In [0, 1]; 1 when both labellings are one class (as scikit-learn).

    Examples
    --------
    >>> round(nmi([0, 0, 1, 1], [1, 1, 0, 0]), 6), round(nmi([0, 0, 1, 1], [0, 1, 0, 1]), 6)
    (1.0, 0.0)
    """
    table = contingency(truth, pred).astype(float)
    ht, hk = _entropy(table.sum(1)), _entropy(table.sum(0))
    if ht == 0.0 and hk == 0.0:
        return 1.0
    n = table.sum()
    joint = table[table > 0] / n
    outer = np.outer(table.sum(1), table.sum(0))[table > 0] / n**2
    mi = float((joint * np.log(joint / outer)).sum())
    return float(max(0.0, mi) / max((ht + hk) / 2, 1e-300))


def ari(truth, pred) -> float:
    """Adjusted Rand index (Hubert and Arabie) from the contingency table.

    Parameters
    ----------
    truth : array-like of shape (n,)
        True classes.
    pred : array-like of shape (n,)
        Cluster labels.

    Returns
    -------
    float
        1 for identical partitions, about 0 for independent ones (it can be negative).

    Examples
    --------
    >>> round(ari([0, 0, 1, 1], [1, 1, 0, 0]), 6)
    1.0
    """
    table = contingency(truth, pred).astype(float)
    pairs = lambda x: (x * (x - 1) / 2).sum()  # noqa: E731
    index, a, b = pairs(table), pairs(table.sum(1)), pairs(table.sum(0))
    expected = a * b / pairs(np.array([table.sum()]))
    top = (a + b) / 2
    if top == expected:
        return 1.0
    return float((index - expected) / (top - expected))


@dataclass
class ClusterScores:
    """ACC, NMI and ARI of one clustering.

    Attributes
    ----------
    acc : float
        Hungarian-matched accuracy.
    nmi : float
        Normalised mutual information (arithmetic).
    ari : float
        Adjusted Rand index.
    """

    acc: float
    nmi: float
    ari: float


def score_clustering(truth, pred) -> ClusterScores:
    """ACC, NMI and ARI of ``pred`` against ``truth``.

    Parameters
    ----------
    truth : array-like of shape (n,)
        True classes.
    pred : array-like of shape (n,)
        Cluster labels.

    Returns
    -------
    ClusterScores
        The three scores.

    Examples
    --------
    >>> s = score_clustering([0, 0, 1, 1], [1, 1, 0, 0])
    >>> s.acc, round(s.nmi, 6), round(s.ari, 6)
    (1.0, 1.0, 1.0)
    """
    return ClusterScores(cluster_accuracy(truth, pred), nmi(truth, pred), ari(truth, pred))


@dataclass
class ModularityLosses:
    """DMoN's two losses of a soft assignment on one graph.

    Attributes
    ----------
    spectral : float
        ``-Tr(Sᵀ B S) / 2m`` with ``B = A - d dᵀ / 2m``: minus the modularity for hard assignments.
    collapse : float
        ``√K / n · ‖Σ_i S_i‖ - 1``: 0 for equal cluster sizes, ``√K - 1`` when all nodes share one cluster.
    """

    spectral: float
    collapse: float


def modularity_losses(adjacency, assignment) -> ModularityLosses:
    """DMoN's spectral (modularity) and collapse losses of ``assignment`` on ``adjacency``, in NumPy.

    Parameters
    ----------
    adjacency : array-like of shape (n, n)
        Symmetric, non-negative, with at least one edge.
    assignment : array-like of shape (n, K)
        Soft (rows summing to 1) or hard (one-hot) cluster assignment ``S``.

    Returns
    -------
    ModularityLosses
        With ``spectral = -Tr(Sᵀ A S - Sᵀ d dᵀ S / 2m) / 2m`` (Tsitsulin et al. 2023, eq. 3).

    Examples
    --------
    >>> A = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], float)
    >>> S = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], float)
    >>> m = modularity_losses(A, S)
    >>> round(m.spectral, 6), round(m.collapse, 6)
    (-0.5, 0.0)
    """
    A, S = np.asarray(adjacency, float), np.asarray(assignment, float)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or S.ndim != 2 or S.shape[0] != A.shape[0]:
        raise ValueError(f"assignment: shape {S.shape} does not fit an adjacency of shape {A.shape}; "
                         "allowed (n, K) with A of shape (n, n)")
    d = A.sum(1)
    two_m = d.sum()
    if two_m <= 0:
        raise ValueError("adjacency: the graph has no edges; allowed a graph with at least one edge")
    sd = S.T @ d
    spectral = -(np.trace(S.T @ A @ S) - sd @ sd / two_m) / two_m
    n, k = S.shape
    collapse = np.sqrt(k) / n * np.linalg.norm(S.sum(0)) - 1.0
    return ModularityLosses(float(spectral), float(collapse))
