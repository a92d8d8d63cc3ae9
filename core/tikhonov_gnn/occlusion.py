"""Faithfulness of q to the model itself: how much each node's own features move the prediction.

The abstract reads a large q_i as "node i's own features drive the prediction". A ground-truth
mask (:func:`~core.tikhonov_gnn.explain.explanation_auroc`) checks that reading against the
data; occlusion checks it against the model: node i's propagated input (the encoder's output h_i)
is replaced by the graph's mean of h, q is kept (the Q-network reads the unchanged features), and
the change of the predicted class's margin is node i's effect. A faithful q ranks nodes as their
effects do.
"""

from __future__ import annotations

import numpy as np

from core.tikhonov_gnn.data import Graph


def occlusion_effects(model, graph: Graph) -> np.ndarray:
    """|change of the predicted class's logit margin| when one node's propagated input is averaged away.

    Parameters
    ----------
    model : TikhonovClassifier
        A graph-task Tikhonov model.
    graph : Graph
        The graph (its prediction is the model's own, not the label).

    Returns
    -------
    ndarray of shape (n,)
        Node i's effect: the margin (predicted class's logit minus the largest other) with every
        node as it is, minus the margin with h_i replaced by the mean of h over the graph, in
        absolute value; 0 where the change is within float32 rounding of the logits. The first
        layer's q is the same in every variant.

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovClassifier, load_dataset
    >>> g = load_dataset("planted_feature").graphs[0]
    >>> occlusion_effects(TikhonovClassifier(2, 2, "graph", hidden=8), g).shape
    (20,)
    """
    return _effects_and_q(model, graph)[0]


def _effects_and_q(model, graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """The occlusion effects and the first layer's q, from one batched forward pass (q is the same in every variant)."""
    import torch

    if getattr(model, "task", None) != "graph":
        raise ValueError("model: occlusion scores a graph's prediction; allowed a Tikhonov model with task 'graph'")
    n = graph.n_nodes
    if n == 0:
        raise ValueError("graph: it has no nodes; allowed graphs with at least one node")
    x = torch.as_tensor(graph.features, dtype=torch.float32)[None].repeat(n + 1, 1, 1)
    adjacency = torch.as_tensor(graph.adjacency, dtype=torch.float32)[None].repeat(n + 1, 1, 1)
    mask = torch.ones(n + 1, n, dtype=torch.bool)
    nodes = torch.arange(n)

    def averaged(module, inputs, h):   # variant k + 1 has node k's encoder output replaced by the graph's mean
        h = h.clone()
        h[nodes + 1, nodes] = h[0].mean(0)
        return h

    model.eval()
    handle = model.encode.register_forward_hook(averaged)
    try:
        with torch.no_grad():
            logits, qs = model(x, adjacency, mask, return_q=True)
    finally:
        handle.remove()
    logits = logits.double()
    c = int(logits[0].argmax())
    others = torch.cat([logits[:, :c], logits[:, c + 1:]], dim=1)
    margin = logits[:, c] - others.max(dim=1).values
    effects = (margin[0] - margin[1:]).abs()
    # below float32's rounding of these logits a change is noise, not an effect (identical nodes must tie at 0)
    noise = 64 * torch.finfo(torch.float32).eps * (1 + float(logits.abs().max()))
    return torch.where(effects > noise, effects, 0.0).numpy(), qs[0][0].double().numpy()


def occlusion_agreement(model, graphs, permute_seed: int | None = None) -> float:
    """Mean over ``graphs`` of the Spearman rank correlation between q and the occlusion effects.

    +1: q ranks the nodes as their own features move the prediction; 0: q knows nothing of it;
    negative: the largest q sit on the nodes that matter least. A graph on which q or the effects
    are constant counts as 0. With ``permute_seed``, each graph's q is first permuted across its
    nodes (the same values on random nodes: the null a faithful q must beat; its expectation is 0).

    Parameters
    ----------
    model : TikhonovClassifier
        A graph-task Tikhonov model.
    graphs : iterable of Graph
        The graphs to score (at least one).
    permute_seed : int or None
        None scores q as the model gives it; an integer seeds the permutations of the null.

    Returns
    -------
    float
        The mean correlation, in [-1, 1].

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovClassifier, load_dataset
    >>> graphs = load_dataset("planted_feature").graphs[:3]
    >>> -1.0 <= occlusion_agreement(TikhonovClassifier(2, 2, "graph", hidden=8), graphs) <= 1.0
    True
    """
    from scipy.stats import spearmanr

    graphs = list(graphs)
    if not graphs:
        raise ValueError("graphs: none given; allowed one or more graphs")
    rng = None if permute_seed is None else np.random.default_rng(permute_seed)
    rhos = []
    for g in graphs:
        effect, q = _effects_and_q(model, g)
        q = q if rng is None else rng.permutation(q)
        rhos.append(float(spearmanr(q, effect).statistic) if np.ptp(q) > 0 and np.ptp(effect) > 0 else 0.0)
    return float(np.mean(rhos))
