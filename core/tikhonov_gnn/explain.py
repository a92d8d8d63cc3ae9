"""Explanations: the node scores q and the response p(lambda) a trained Tikhonov model uses."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.tikhonov_gnn.data import Graph
from core.tikhonov_gnn.operator import (LAMBDA_MAX, bernstein_eval, bernstein_to_monomial, filter_kind,
                                        normalized_laplacian)


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


def explain(model, graph: Graph, layer: int = 0, grid: int = 201) -> Explanation:
    """q per node, p on a grid of lambda in [0, 2], and R, for one graph and one Tikhonov layer."""
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
        h = torch.nn.functional.silu(model.encode(x))
        for previous, mix in zip(model.layers[:layer], model.mix[:layer]):
            h = torch.nn.functional.silu(mix(previous(h, x, adj, mask)[0]))
        q = tik.qnet(x, adj, mask)[0].numpy().astype(float)
        operator = tik.operator(x, adj, mask)[0].numpy().astype(float)
        theta = tik.theta.numpy().astype(float)
    lam = np.linspace(0.0, LAMBDA_MAX, grid)
    p = bernstein_eval(theta, lam)
    eig = np.linalg.eigvalsh(normalized_laplacian(graph.adjacency))
    return Explanation(q, lam, p, bernstein_to_monomial(theta), np.clip(eig, 0.0, LAMBDA_MAX), filter_kind(lam, p),
                       operator, layer)


def explanation_auroc(model, graphs, layer: int = 0) -> float:
    """AUROC of q for the ground-truth nodes, pooled over ``graphs`` (those with a truth mask)."""
    from sklearn.metrics import roc_auc_score

    scores, truth = [], []
    for g in graphs:
        if g.truth is not None:
            scores.append(explain(model, g, layer).q)
            truth.append(g.truth)
    return float(roc_auc_score(np.concatenate(truth), np.concatenate(scores)))
