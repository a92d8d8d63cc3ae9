"""The Tikhonov layer in torch: batched, differentiable solves of (p(L) + Q) Z = Q H.

Graphs come as padded dense batches: features (B, N, F), adjacency (B, N, N) and a node mask
(B, N). Padded nodes get a zero Laplacian row and q = 1, so each system stays positive definite
and padded rows never mix with real ones. Two solvers: ``dense`` (torch.linalg.solve, exact, for
the small graphs of graph classification) and ``cg`` (conjugate gradients, unrolled so autograd
differentiates through it, for larger graphs; the system is symmetric positive definite).
"""

from __future__ import annotations

from math import comb

import torch
from torch import nn
from torch.nn import functional as F


def dense_laplacian(adjacency: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Batched L = I - D^-1/2 A D^-1/2 on real nodes; zero rows and columns on padding."""
    deg = adjacency.sum(-1)
    inv_sqrt = torch.where(deg > 0, deg.clamp_min(1e-12).rsqrt(), torch.zeros_like(deg))
    eye = torch.diag_embed((deg > 0).to(adjacency.dtype) * mask.to(adjacency.dtype))
    return eye - inv_sqrt[..., :, None] * adjacency * inv_sqrt[..., None, :]


def bernstein_matrix(theta: torch.Tensor, laplacian: torch.Tensor) -> torch.Tensor:
    """p(L) = sum_k theta_k C(K,k) (L/2)^k (I - L/2)^(K-k), batched over the leading dimension."""
    K = theta.numel() - 1
    n = laplacian.shape[-1]
    eye = torch.eye(n, dtype=laplacian.dtype, device=laplacian.device).expand_as(laplacian)
    half, rest = laplacian / 2, eye - laplacian / 2
    half_pows, rest_pows = [eye], [eye]
    for _ in range(K):
        half_pows.append(half_pows[-1] @ half)
        rest_pows.append(rest_pows[-1] @ rest)
    return sum(theta[k] * comb(K, k) * (half_pows[k] @ rest_pows[K - k]) for k in range(K + 1))


def conjugate_gradient(matrix: torch.Tensor, rhs: torch.Tensor, iters: int = 50, tol: float = 1e-10) -> torch.Tensor:
    """Solve matrix @ x = rhs for SPD ``matrix`` (B, N, N) and rhs (B, N, C), column by column."""
    x = torch.zeros_like(rhs)
    r = rhs.clone()
    p = r.clone()
    rs = (r * r).sum(-2, keepdim=True)
    for _ in range(iters):
        mp = matrix @ p
        alpha = rs / (p * mp).sum(-2, keepdim=True).clamp_min(1e-30)
        x = x + alpha * p
        r = r - alpha * mp
        rs_new = (r * r).sum(-2, keepdim=True)
        if float(rs_new.detach().max()) < tol:
            break
        p = r + (rs_new / rs.clamp_min(1e-30)) * p
        rs = rs_new
    return x


class QNetwork(nn.Module):
    """q_i = softplus(f(x, A)_i) + eps with f a GIN-style network: each hop sees its neighbours.

    SiLU rather than ReLU: the gradient reaching q through the solve is small, and with ReLU the
    network's units died early in training, leaving every q equal (an explanation of nothing).
    """

    def __init__(self, in_dim: int, hidden: int, hops: int, eps: float):
        super().__init__()
        self.inp = nn.Linear(in_dim, hidden)
        self.hops = nn.ModuleList(nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
                                  for _ in range(hops))
        self.out = nn.Linear(hidden, 1)
        self.eps = eps

    def forward(self, x, adjacency, mask):
        h = F.silu(self.inp(x))
        for hop in self.hops:
            h = F.silu(hop(h + adjacency @ h))
        q = F.softplus(self.out(h).squeeze(-1)) + self.eps
        return torch.where(mask, q, torch.ones_like(q))


class TikhonovLayer(nn.Module):
    """Z = (p(L) + Q)^-1 Q H, with q from a Q-network and p >= 0 on [0, 2] (Bernstein, theta >= 0)."""

    def __init__(self, channels: int, q_in: int, degree: int = 4, q_hidden: int = 32, q_hops: int = 2,
                 eps: float = 1e-3, solver: str = "dense", cg_iters: int = 100):
        super().__init__()
        self.qnet = QNetwork(q_in, q_hidden, q_hops, eps)
        # softplus(raw) = theta; start flat (p = 1 everywhere, an all-pass response), favouring no shape.
        init = torch.ones(degree + 1)
        self.theta_raw = nn.Parameter(torch.log(torch.expm1(init)))
        self.solver, self.cg_iters = solver, cg_iters

    @property
    def theta(self) -> torch.Tensor:
        return F.softplus(self.theta_raw)

    def operator_parts(self, q_input, adjacency, mask):
        laplacian = dense_laplacian(adjacency, mask)
        q = self.qnet(q_input, adjacency, mask)
        system = bernstein_matrix(self.theta, laplacian) + torch.diag_embed(q)
        return q, system

    def forward(self, h, q_input, adjacency, mask):
        q, system = self.operator_parts(q_input, adjacency, mask)
        rhs = q[..., None] * h
        if self.solver == "cg":
            return conjugate_gradient(system, rhs, self.cg_iters), q
        return torch.linalg.solve(system, rhs), q

    @torch.no_grad()
    def operator(self, q_input, adjacency, mask) -> torch.Tensor:
        """The dense R = (p(L) + Q)^-1 Q for each graph of the batch."""
        q, system = self.operator_parts(q_input, adjacency, mask)
        return torch.linalg.solve(system, torch.diag_embed(q))
