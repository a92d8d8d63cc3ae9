"""Graph and node classifiers: the Tikhonov model, and GCN and GIN baselines (dense, plain torch).

All three read padded batches (features, adjacency, mask). Graph tasks pool by summing over real
nodes (GIN concatenates the sums of every layer, as Xu et al. do); node tasks classify each node.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from core.tikhonov_gnn.layer import TikhonovLayer


def mlp(sizes, dropout=0.0, act=nn.ReLU) -> nn.Sequential:
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), act(), nn.Dropout(dropout)]
    return nn.Sequential(*layers[:-2])  # no activation after the last layer


def pool(h, mask):
    return (h * mask[..., None]).sum(-2)


class TikhonovClassifier(nn.Module):
    """Encoder -> Tikhonov layer(s) -> per-node map -> sum pooling (graph tasks) or a per-node head.

    The Q-network of each layer reads the raw node features and the adjacency; the propagated
    features are the encoder's output, and the readout sees only what the layers propagated, so
    (q, p) alone decide how node information reaches the prediction.

    The encoder is linear by default (ours): an MLP encoder can compute any function of a node's
    own features before the propagation (on planted_feature it computed flag x sign itself), and
    sum pooling then carries that value to the prediction whatever q is, so q explained nothing
    (AUROC 0.53 over 5 seeds). With a linear encoder a node's features reach the nonlinear readout
    intact only where q_i is large against p. ``encoder="mlp"`` keeps the former model.

    The readout (ours): by default (``readout="node"``) SiLU(W z_i) per node, then sum pooling. That
    per-node nonlinearity still lets a constant q solve planted_feature (a fixed filter with some self
    weight keeps flag and sign together at the flagged node: accuracy 1.0 at AUROC 0.48, seed 4).
    ``readout="linear"`` drops it after the last layer, so the head sees W sum_j (1^T R)_j h_j + n b:
    node j counts through R's column sum q_j 1^T (p(L) + Q)^-1 e_j, proportional to its own q_j
    (bench/tikhonov_gnn.py measures it as a variant; the shipped models use "node").
    ``readout="linear_norm"`` (graph tasks) also standardises the pooled vector per feature over the batch (batch
    norm; an affine map per graph once trained), so the head sees the column-sum-weighted features on a scale it
    can learn from; a node still reaches the prediction only through R.
    SiLU throughout: with ReLU, some seeds lost every unit early (a constant output at chance).
    """

    def __init__(self, in_dim, n_classes, task, hidden=32, layers=1, degree=4, q_hops=2, eps=1e-3, solver="dense",
                 dropout=0.0, encoder="linear", readout="node", p_init="flat", q_init=0.0,
                 scale="softplus"):
        super().__init__()
        self.task = task
        self.encoder, self.readout = encoder, readout
        self.encode = nn.Linear(in_dim, hidden) if encoder == "linear" else mlp([in_dim, hidden, hidden], act=nn.SiLU)
        self.layers = nn.ModuleList(TikhonovLayer(hidden, in_dim, degree, hidden, q_hops, eps, solver,
                                                  p_init=p_init, q_init=q_init, scale=scale) for _ in range(layers))
        self.mix = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers))
        self.head = mlp([hidden, hidden, n_classes], dropout, act=nn.SiLU)
        self.pool_norm = nn.BatchNorm1d(hidden) if readout == "linear_norm" and task == "graph" else None

    def _normalised(self, pooled):
        """The pooled vector standardised by the batch norm (its running statistics for a batch of one graph)."""
        n = self.pool_norm
        return F.batch_norm(pooled, n.running_mean, n.running_var, n.weight, n.bias,
                            self.training and pooled.shape[0] > 1, n.momentum, n.eps)

    def forward(self, x, adjacency, mask, return_q=False):
        h = self.encode(x) if self.encoder == "linear" else F.silu(self.encode(x))
        qs = []
        last = len(self.layers) - 1
        for k, (layer, mix) in enumerate(zip(self.layers, self.mix)):
            z, q = layer(h, x, adjacency, mask)
            h = mix(z) if self.readout != "node" and k == last else F.silu(mix(z))
            qs.append(q)
        if self.task == "graph":
            h = pool(h, mask)
            h = self._normalised(h) if self.pool_norm is not None else h
        out = self.head(h)
        return (out, qs) if return_q else out


def gcn_adjacency(adjacency, mask):
    """D~^-1/2 (A + I) D~^-1/2 on real nodes (Kipf & Welling's renormalisation)."""
    eye = torch.diag_embed(mask.to(adjacency.dtype))
    a = adjacency + eye
    inv_sqrt = a.sum(-1).clamp_min(1e-12).rsqrt() * mask
    return inv_sqrt[..., :, None] * a * inv_sqrt[..., None, :]


class GCN(nn.Module):
    """The GCN baseline (Kipf & Welling): ``layers`` rounds of ReLU(A_hat H W), then sum pooling and an MLP.

    Parameters
    ----------
    in_dim : int
        Node feature width.
    n_classes : int
        Output classes.
    task : str
        ``"graph"`` (sum pooling over real nodes) or ``"node"``.
    hidden : int
        Width.
    layers : int
        Convolutions.
    dropout : float
        In the head.

    Examples
    --------
    >>> import torch
    >>> from core.tikhonov_gnn import GCN
    >>> model = GCN(3, 2, "graph", hidden=8)
    >>> tuple(model(torch.ones(2, 4, 3), torch.zeros(2, 4, 4), torch.ones(2, 4, dtype=torch.bool)).shape)
    (2, 2)
    """

    def __init__(self, in_dim, n_classes, task, hidden=32, layers=3, dropout=0.0):
        super().__init__()
        self.task = task
        dims = [in_dim] + [hidden] * layers
        self.convs = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.head = mlp([hidden, hidden, n_classes], dropout)

    def forward(self, x, adjacency, mask):
        a = gcn_adjacency(adjacency, mask)
        h = x
        for conv in self.convs:
            h = F.relu(a @ conv(h))
        return self.head(pool(h, mask) if self.task == "graph" else h)


class GIN(nn.Module):
    """The GIN baseline (Xu et al.): MLP((1 + eps) h + A h) per layer, every layer's sum pooled (graph tasks).

    Parameters
    ----------
    in_dim : int
        Node feature width.
    n_classes : int
        Output classes.
    task : str
        ``"graph"`` (the concatenated readouts) or ``"node"``.
    hidden : int
        Width.
    layers : int
        GIN layers.
    dropout : float
        In the head.

    Examples
    --------
    >>> import torch
    >>> from core.tikhonov_gnn import GIN
    >>> model = GIN(3, 2, "node", hidden=8).eval()
    >>> tuple(model(torch.ones(1, 4, 3), torch.zeros(1, 4, 4), torch.ones(1, 4, dtype=torch.bool)).shape)
    (1, 4, 2)
    """

    def __init__(self, in_dim, n_classes, task, hidden=32, layers=3, dropout=0.0):
        super().__init__()
        self.task = task
        dims = [in_dim] + [hidden] * layers
        self.nets = nn.ModuleList(nn.Sequential(nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU(), nn.Linear(b, b), nn.ReLU())
                                  for a, b in zip(dims[:-1], dims[1:]))
        self.eps = nn.Parameter(torch.zeros(layers))
        self.head = mlp([in_dim + hidden * layers, hidden, n_classes], dropout) if task == "graph" else \
            mlp([hidden, hidden, n_classes], dropout)

    def forward(self, x, adjacency, mask):
        h, readouts = x, [pool(x, mask)]
        for eps, net in zip(self.eps, self.nets):
            z = (1 + eps) * h + adjacency @ h
            b, n, f = z.shape
            flat = z.reshape(b * n, f)
            real = mask.reshape(-1)
            out = torch.zeros(b * n, net[0].out_features, dtype=z.dtype)
            out[real] = net(flat[real])  # batch norm over real nodes only
            h = out.reshape(b, n, -1)
            readouts.append(pool(h, mask))
        return self.head(torch.cat(readouts, -1) if self.task == "graph" else h)


def build_model(name: str, in_dim: int, n_classes: int, task: str, config) -> nn.Module:
    if name == "tikhonov":
        return TikhonovClassifier(in_dim, n_classes, task, config.hidden, config.layers, config.degree, config.q_hops,
                                  config.eps_q, config.solver, config.dropout, config.encoder,
                                  config.readout, config.p_init, config.q_init, config.scale)
    if name == "gcn":
        return GCN(in_dim, n_classes, task, config.hidden, config.baseline_layers, config.dropout)
    return GIN(in_dim, n_classes, task, config.hidden, config.baseline_layers, config.dropout)
