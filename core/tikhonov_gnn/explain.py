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
    q: np.ndarray                 # (n,) node importance scores
    lam: np.ndarray               # grid on [0, 2]
    p: np.ndarray                 # p(lambda) on the grid
    poly_coeffs: np.ndarray       # monomial coefficients of p
    eigenvalues: np.ndarray       # spectrum of the graph's normalised Laplacian
    kind: str                     # low-pass, high-pass, band-pass or all-pass
    operator: np.ndarray          # R, (n, n)
    layer: int
    q_normalized: np.ndarray      # q / c with c = mean of p over spec(L): what R identifies
    p_spectrum: np.ndarray        # p(lambda_i) / c at the eigenvalues (ascending)


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
    """
    if graph.n_nodes == 0:
        raise ValueError("graph: it has no nodes; allowed graphs with at least one node")
    q, theta = np.asarray(q, dtype=float), np.asarray(theta, dtype=float)
    laplacian = normalized_laplacian(graph.adjacency)
    coeffs = bernstein_to_monomial(theta)
    if operator is None:
        operator = tikhonov_operator(laplacian, q, coeffs)
    lam = np.linspace(0.0, LAMBDA_MAX, grid)
    p = bernstein_eval(theta, lam)
    q_norm, p_spec, eig = normalize_parameters(laplacian, q, coeffs)
    return Explanation(q, lam, p, coeffs, np.clip(eig, 0.0, LAMBDA_MAX), filter_kind(lam, p),
                       np.asarray(operator, dtype=float), layer, q_norm, p_spec)


def explain(model, graph: Graph, layer: int = 0, grid: int = 201) -> Explanation:
    """q per node, p on a grid of lambda in [0, 2], and R, for one graph and one Tikhonov layer.

    Parameters
    ----------
    model : TikhonovClassifier
    graph : Graph
    layer : int
        Which Tikhonov layer (0-based).
    grid : int
        Points of the lambda grid on [0, 2].

    Returns
    -------
    Explanation
        R is the model's own solve (float32), not a numpy re-solve.
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


def explanation_auroc(model, graphs, layer: int = 0) -> float:
    """AUROC of q for the ground-truth nodes, pooled over ``graphs`` (those with a truth mask)."""
    from sklearn.metrics import roc_auc_score

    scores, truth = [], []
    for g in graphs:
        if g.truth is not None:
            scores.append(explain(model, g, layer).q)
            truth.append(g.truth)
    return float(roc_auc_score(np.concatenate(truth), np.concatenate(scores)))
