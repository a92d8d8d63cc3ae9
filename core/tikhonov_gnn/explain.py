"""Explanations: the node scores q and the response p(lambda) a trained Tikhonov model uses.

:func:`explain` reads them off a torch model; :func:`explanation_from_scores` builds the same
record from numbers alone (q and the Bernstein coefficients theta, as the shipped view stores them),
with R = (p(L) + Q)^-1 Q solved in numpy, so the page's first view needs no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.tikhonov_gnn.data import Graph
from core.tikhonov_gnn.operator import (
    LAMBDA_MAX,
    bernstein_eval,
    bernstein_to_monomial,
    filter_kind,
    normalize_parameters,
    normalized_laplacian,
    tikhonov_operator,
)


@dataclass
class Explanation:
    """The explanation of one graph by one Tikhonov layer: its node scores q and its response p.

    Attributes
    ----------
    q : ndarray of shape (n,)
        The node importance scores.
    lam : ndarray
        A grid on [0, 2].
    p : ndarray
        p(lambda) on the grid.
    poly_coeffs : ndarray
        Monomial coefficients of p.
    eigenvalues : ndarray of shape (n,)
        The spectrum of the graph's normalised Laplacian.
    kind : str
        ``low-pass``, ``high-pass``, ``band-pass`` or ``all-pass`` (:func:`filter_kind`).
    operator : ndarray of shape (n, n)
        R = (p(L) + Q)^-1 Q.
    layer : int
        Which Tikhonov layer.
    q_normalized : ndarray of shape (n,)
        q / c with c = mean of p over spec(L): what R identifies.
    p_spectrum : ndarray of shape (n,)
        p(lambda_i) / c at the eigenvalues (ascending).
    """

    q: np.ndarray
    lam: np.ndarray
    p: np.ndarray
    poly_coeffs: np.ndarray
    eigenvalues: np.ndarray
    kind: str
    operator: np.ndarray
    layer: int
    q_normalized: np.ndarray
    p_spectrum: np.ndarray


def explanation_from_scores(q, theta, graph: Graph, layer: int = 0, grid: int = 201,
                            operator: np.ndarray | None = None) -> Explanation:
    """The explanation of one graph from its node scores and the layer's Bernstein coefficients.

    Parameters
    ----------
    q : array (n,)
        Positive node scores of ``graph``.
    theta : array (K + 1,)
        Nonnegative Bernstein coefficients of p on [0, 2].
    graph : Graph
        The graph (at least one node).
    layer : int
        Recorded in the result.
    grid : int
        Points of the lambda grid on [0, 2].
    operator : array (n, n), optional
        R when already known (e.g. from the model's own solve); otherwise
        R = (p(L) + Q)^-1 Q with L the normalised Laplacian.

    Returns
    -------
    Explanation
        q, p on the grid and at the spectrum, R and the filter's kind.

    Examples
    --------
    >>> g = Graph(np.ones((3, 3)) - np.eye(3), np.ones((3, 1), np.float32), 0)
    >>> e = explanation_from_scores([1.0, 2.0, 4.0], [0.5, 1.0, 1.5], g, grid=5)
    >>> e.kind, e.operator.shape, round(float(e.p_spectrum.mean()), 6)
    ('low-pass', (3, 3), 1.0)
    """
    from core.common.config import check_range

    if graph.n_nodes == 0:
        raise ValueError("graph: it has no nodes; allowed graphs with at least one node")
    grid = check_range("grid", grid, 2, 100_000, integer=True)
    q, theta = np.asarray(q, dtype=float), np.asarray(theta, dtype=float)
    laplacian = normalized_laplacian(graph.adjacency)
    coeffs = bernstein_to_monomial(theta)
    if operator is None:
        operator = tikhonov_operator(laplacian, q, coeffs)
    lam = np.linspace(0.0, LAMBDA_MAX, grid)
    p = bernstein_eval(theta, lam)
    norm = normalize_parameters(laplacian, q, coeffs)
    return Explanation(q, lam, p, coeffs, np.clip(norm.eigenvalues, 0.0, LAMBDA_MAX), filter_kind(lam, p),
                       np.asarray(operator, dtype=float), layer, norm.q_normalized, norm.p_spectrum)


def explain(model, graph: Graph, layer: int = 0, grid: int = 201) -> Explanation:
    """q per node, p on a grid of lambda in [0, 2], and R, for one graph and one Tikhonov layer.

    Parameters
    ----------
    model : TikhonovClassifier
        A (trained) Tikhonov model.
    graph : Graph
        The graph to explain.
    layer : int
        Which Tikhonov layer (0-based).
    grid : int
        Points of the lambda grid on [0, 2].

    Returns
    -------
    Explanation
        R is the model's own solve (float32), not a numpy re-solve.

    References
    ----------
    .. [1] Interpretable Tikhonov GNN layer (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovClassifier
    >>> g = load_dataset("planted_feature").graphs[0]
    >>> e = explain(TikhonovClassifier(2, 2, "graph", hidden=8), g)      # untrained: p is still flat
    >>> e.q.shape, e.kind
    ((20,), 'all-pass')
    """
    import torch

    if graph.n_nodes == 0:
        raise ValueError("graph: it has no nodes; allowed graphs with at least one node")
    if not hasattr(model, "layers") or not 0 <= layer < len(model.layers):
        n = len(getattr(model, "layers", []))
        raise ValueError(f"layer: {layer} is not a Tikhonov layer of this model; allowed 0..{max(n - 1, 0)}")
    tik = model.layers[layer]
    x = torch.as_tensor(graph.features, dtype=torch.float32)[None]
    adj = torch.as_tensor(graph.adjacency, dtype=torch.float32)[None]
    mask = torch.ones(1, graph.n_nodes, dtype=torch.bool)
    model.eval()
    with torch.no_grad():
        q = tik.qnet(x, adj, mask)[0].numpy().astype(float)
        operator = tik.operator(x, adj, mask)[0].numpy().astype(float)
        theta = tik.theta.numpy().astype(float)
    return explanation_from_scores(q, theta, graph, layer, grid, operator=operator)


def explanation_auroc(model, graphs, layer: int = 0, per_graph: bool = False) -> float:
    """AUROC of q for the ground-truth nodes, pooled over ``graphs`` (those with a truth mask), or per graph.

    Parameters
    ----------
    model : TikhonovClassifier
        The model whose q is scored.
    graphs : iterable of Graph
        Graphs; those without ``truth`` are skipped (at least one needs it, with both classes).
    layer : int
        Which Tikhonov layer.
    per_graph : bool
        False: one AUROC over the nodes of all graphs (q compared across graphs too). True: the mean
        of each graph's own AUROC, which ranks q only within a graph, as the page shows it (it is
        blind to a per-graph scale of q, such as the c of :func:`normalize_parameters`).

    Returns
    -------
    float
        The AUROC in [0, 1] (0.5: q knows nothing of the ground truth).

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovClassifier
    >>> graphs = load_dataset("planted_feature").graphs[:10]
    >>> 0.0 <= explanation_auroc(TikhonovClassifier(2, 2, "graph", hidden=8), graphs) <= 1.0
    True
    """
    from sklearn.metrics import roc_auc_score

    scores, truth = [], []
    for g in graphs:
        if g.truth is not None:
            scores.append(explain(model, g, layer).q)
            truth.append(g.truth)
    if not truth or len(np.unique(np.concatenate(truth))) < 2:
        raise ValueError("graphs: none carries a ground truth with both kinds of node; allowed graphs with "
                         "a truth mask (motifs, planted_feature)")
    if per_graph:
        return float(np.mean([roc_auc_score(t, s) for t, s in zip(truth, scores) if 0 < t.sum() < t.size]))
    return float(roc_auc_score(np.concatenate(truth), np.concatenate(scores)))
