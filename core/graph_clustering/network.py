"""The torch pieces: a GCN encoder with an ego-subgraph readout, unified prototypes, and the losses.

Imported only by the functions that train (torch and torch_geometric are heavy); nothing in the
package imports this module at import time.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch_geometric.nn import GCNConv


def edge_index(adjacency: np.ndarray) -> torch.Tensor:
    rows, cols = np.nonzero(adjacency)
    return torch.as_tensor(np.vstack([rows, cols]), dtype=torch.long)


def ego_readout_matrix(adjacency: np.ndarray, hops: int) -> torch.Tensor:
    """Row-normalised indicator of each node's ``hops``-hop ego-subgraph (the node included)."""
    n = adjacency.shape[0]
    step = (adjacency > 0) | np.eye(n, dtype=bool)
    reach = np.eye(n, dtype=bool)
    for _ in range(hops):
        reach = (reach.astype(np.int32) @ step.astype(np.int32)) > 0
    reach = reach.astype(np.float32)
    return torch.as_tensor(reach / reach.sum(1, keepdims=True))


class ClusterNet(nn.Module):
    """GCN encoder (``hops`` layers) → mean over each node's ``hops``-hop ego-subgraph → K prototypes."""

    def __init__(self, in_dim: int, hidden: int, embed: int, n_clusters: int, hops: int):
        super().__init__()
        dims = [in_dim] + [hidden] * (hops - 1) + [embed]
        self.convs = nn.ModuleList(GCNConv(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.prototypes = nn.Parameter(torch.zeros(n_clusters, embed))

    def nodes(self, x: torch.Tensor, edges: torch.Tensor) -> torch.Tensor:
        h = x
        for i, conv in enumerate(self.convs):
            h = conv(h, edges)
            if i < len(self.convs) - 1:
                h = torch.relu(h)
        return h

    def forward(self, x: torch.Tensor, edges: torch.Tensor, readout: torch.Tensor) -> torch.Tensor:
        """Ego-subgraph embeddings ``Z = R · GCN(X)``."""
        return readout @ self.nodes(x, edges)


def soft_assign(z: torch.Tensor, prototypes: torch.Tensor, dof: float = 1.0) -> torch.Tensor:
    """DEC's Student-t assignment ``q_iu ∝ (1 + ‖z_i − μ_u‖² / v)^{−(v+1)/2}``."""
    d2 = torch.cdist(z, prototypes).pow(2)
    q = (1.0 + d2 / dof).pow(-(dof + 1.0) / 2.0)
    return q / q.sum(1, keepdim=True)


def sharpen(q: torch.Tensor) -> torch.Tensor:
    """DEC's target ``p_iu = (q_iu² / f_u) / Σ_u'(q_iu'² / f_u')`` with ``f_u = Σ_i q_iu``."""
    w = q.pow(2) / q.sum(0, keepdim=True)
    return w / w.sum(1, keepdim=True)


def confident_mask(q: torch.Tensor, fraction: float) -> torch.Tensor:
    """The top ``fraction`` of each cluster's members (by argmax) ranked by their largest ``q``."""
    conf, label = q.max(1)
    k = q.shape[1]
    # sort by (cluster, -confidence): each node's rank inside its own cluster, in a few vector ops
    order = torch.argsort(label.double() * 2.0 - conf.double(), stable=True)
    sizes = torch.bincount(label, minlength=k)
    starts = torch.cumsum(sizes, 0) - sizes
    rank = torch.empty_like(label)
    rank[order] = torch.arange(label.numel()) - starts[label[order]]
    keep_n = torch.clamp(torch.round(fraction * sizes.double()).long(), min=1)
    return rank < keep_n[label]


def confident_kl(q: torch.Tensor, fraction: float) -> torch.Tensor:
    p = sharpen(q).detach()
    keep = confident_mask(q.detach(), fraction)
    return (p[keep] * (torch.log(p[keep] + 1e-12) - torch.log(q[keep] + 1e-12))).sum(1).mean()


def dmon_losses(adjacency: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """DMoN's spectral ``−Tr(Sᵀ B S)/2m`` and collapse ``√K/n ‖Σ_i S_i‖ − 1`` on one graph (no batch)."""
    d = adjacency.sum(1)
    two_m = d.sum()
    sd = s.T @ d
    spectral = -(torch.trace(s.T @ adjacency @ s) - sd @ sd / two_m) / two_m
    n, k = s.shape
    collapse = np.sqrt(k) / n * torch.linalg.norm(s.sum(0)) - 1.0
    return spectral, collapse


def prototype_orthogonality(prototypes: torch.Tensor) -> torch.Tensor:
    p = nn.functional.normalize(prototypes, dim=1)
    k = p.shape[0]
    return ((p @ p.T - torch.eye(k)) ** 2).sum() / (k * k)


def rbf_mmd2(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Biased MMD² with a sum of RBF kernels at 0.5, 1, 2 × the median pairwise distance (detached)."""
    xy = torch.cat([x, y])
    d2 = torch.cdist(xy, xy).pow(2)
    med = d2.detach()[d2.detach() > 0].median().clamp_min(1e-6)
    k = sum(torch.exp(-d2 / (c * med)) for c in (0.25, 1.0, 4.0))
    n = x.shape[0]
    return k[:n, :n].mean() + k[n:, n:].mean() - 2 * k[:n, n:].mean()


def coral(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """CORAL: ``‖C_x − C_y‖_F² / (4 d²)`` plus the squared distance of the means (ours)."""
    d = x.shape[1]
    cx, cy = torch.cov(x.T), torch.cov(y.T)
    return ((cx - cy) ** 2).sum() / (4 * d * d) + ((x.mean(0) - y.mean(0)) ** 2).sum() / d


def information_entropy(q: torch.Tensor) -> torch.Tensor:
    """Mean per-node entropy minus the entropy of the mean assignment (sharp and balanced at its minimum)."""
    per_node = -(q * torch.log(q + 1e-12)).sum(1).mean()
    mean = q.mean(0)
    return per_node + (mean * torch.log(mean + 1e-12)).sum()
