"""The Tikhonov layer in torch: differentiable solves of (p(L) + Q) Z = Q H.

Graphs come as padded dense batches: features (B, N, F), adjacency (B, N, N) and a node mask
(B, N). Padded nodes get a zero Laplacian row and q = 1, so each system stays positive definite
and padded rows never mix with real ones.

Scale (ours): R is unchanged by (q, p) -> (c q, c p), so the layer fixes the scale of p:
theta = (K + 1) softmax(raw), i.e. the Bernstein coefficients average 1 (and int_0^2 p = 2). The
learned q is then measured against a p of fixed size, and a penalty on q means something.

Two solvers, and the sizes each serves:

- ``dense``: builds p(L) (K dense N x N products) and calls torch.linalg.solve: exact, O(N^3)
  time and O(N^2) memory per graph; for the small graphs of graph classification (N up to a few
  hundred; MUTAG has at most 28 nodes).
- ``cg``: matrix-free conjugate gradients. p(L) is never formed: p(L) v is K products of L with
  v (Horner's scheme on the monomial form of p), with L dense-batched or a torch sparse matrix,
  so a solve costs O(iterations * K * edges) time and O(N * channels) memory; it serves graphs of
  10^4 to 10^5 nodes and more (see bench/tikhonov_gnn.py for the measured time and memory against
  the dense solve and PyG's APPNP). Convergence is a relative residual ||r|| <= tol ||b||, checked
  on the host every ``check_every`` iterations only. Gradients come from the implicit-function
  identity, not from unrolling: with A z = b, the backward pass solves A g = dL/dz (A is
  symmetric) and returns dL/db = g and dL/dA = -g z^T (contracted with dA/dq and dA/dtheta).
"""

from __future__ import annotations

import math
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


def sparse_laplacian(edge_index: torch.Tensor, n: int, dtype=torch.float32) -> torch.Tensor:
    """L = I - D^-1/2 A D^-1/2 as a sparse COO matrix from an undirected edge list (2, E), both directions."""
    row, col = edge_index
    deg = torch.zeros(n, dtype=dtype).index_add_(0, row, torch.ones(row.numel(), dtype=dtype))
    inv_sqrt = torch.where(deg > 0, deg.clamp_min(1e-12).rsqrt(), torch.zeros_like(deg))
    diag = torch.arange(n)
    has = deg > 0
    index = torch.cat([edge_index, torch.stack([diag[has], diag[has]])], 1)
    values = torch.cat([-inv_sqrt[row] * inv_sqrt[col], torch.ones(int(has.sum()), dtype=dtype)])
    return torch.sparse_coo_tensor(index, values, (n, n), check_invariants=True).coalesce()


def bernstein_monomial_matrix(K: int, dtype=torch.float64) -> torch.Tensor:
    """M (K+1, K+1) with monomial coefficients c = M theta of the Bernstein polynomial on [0, 2]."""
    M = torch.zeros(K + 1, K + 1, dtype=dtype)
    for k in range(K + 1):
        for j in range(K - k + 1):
            M[k + j, k] += comb(K, k) * comb(K - k, j) * (-1) ** j / 2.0 ** (k + j)
    return M


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


def apply_polynomial(coeffs: torch.Tensor, laplacian: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """p(L) v = c_0 v + L (c_1 v + L (c_2 v + ...)), K products with L (Horner), never forming p(L)."""
    out = coeffs[-1] * v
    for c in coeffs.flip(0)[1:]:
        out = laplacian @ out + c * v     # dense batched, or sparse (N, N) @ (N, C)
    return out


def _cg(apply, rhs: torch.Tensor, tol: float, max_iter: int, check_every: int):
    """Conjugate gradients on the columns of rhs (..., N, C); returns (x, iterations)."""
    x = torch.zeros_like(rhs)
    r = rhs.clone()
    p = r.clone()
    rs = (r * r).sum(-2, keepdim=True)
    target = (tol ** 2) * rs.clamp_min(1e-300)
    done = 0
    for it in range(1, max_iter + 1):
        ap = apply(p)
        alpha = rs / (p * ap).sum(-2, keepdim=True).clamp_min(1e-300)
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = (r * r).sum(-2, keepdim=True)
        p = r + (rs_new / rs.clamp_min(1e-300)) * p
        rs = rs_new
        done = it
        if it % check_every == 0 and bool((rs <= target).all()):    # the only host sync
            break
    return x, done


class _TikhonovSolve(torch.autograd.Function):
    """z = (p(L) + diag(q))^-1 rhs by matrix-free CG; backward by the implicit-function identity."""

    @staticmethod
    def forward(ctx, q, coeffs, rhs, laplacian, tol, max_iter, check_every):
        def apply(v):
            return apply_polynomial(coeffs, laplacian, v) + q[..., None] * v
        z, iters = _cg(apply, rhs, tol, max_iter, check_every)
        ctx.save_for_backward(q, coeffs, z)
        ctx.laplacian, ctx.settings, ctx.iterations = laplacian, (tol, max_iter, check_every), iters
        return z

    @staticmethod
    def backward(ctx, grad_z):
        q, coeffs, z = ctx.saved_tensors
        laplacian = ctx.laplacian

        def apply(v):
            return apply_polynomial(coeffs, laplacian, v) + q[..., None] * v
        g, _ = _cg(apply, grad_z, *ctx.settings)          # A is symmetric: A^-T = A^-1
        # dL/dA = -g z^T: contract with dA/dq = diag(e_i) and dA/dc_k = L^k.
        grad_q = -(g * z).sum(-1)
        power, grad_c = z, []
        for k in range(coeffs.numel()):
            grad_c.append(-(g * power).sum())
            power = laplacian @ power
        grad_c = torch.stack(grad_c)
        return grad_q, grad_c, g, None, None, None, None


def tikhonov_solve(q: torch.Tensor, theta: torch.Tensor, rhs: torch.Tensor, laplacian: torch.Tensor,
                   tol: float = 1e-6, max_iter: int = 500, check_every: int = 10) -> torch.Tensor:
    """Solve (p(L) + diag(q)) z = rhs without forming p(L).

    Parameters
    ----------
    q : tensor (..., N)
        Positive node scores.
    theta : tensor (K + 1,)
        Nonnegative Bernstein coefficients of p on [0, 2].
    rhs : tensor (..., N, C)
    laplacian : tensor
        Dense (..., N, N), or a torch sparse (N, N) matrix for one large graph.
    tol : float
        Relative residual ``||A z - rhs|| <= tol ||rhs||`` per column.
    max_iter, check_every : int
        At most ``max_iter`` CG iterations; convergence is read on the host every ``check_every``.

    Returns
    -------
    tensor (..., N, C)
        Differentiable in q, theta and rhs through the implicit-function identity.

    Examples
    --------
    >>> import torch
    >>> from core.tikhonov_gnn import tikhonov_solve
    >>> A = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    >>> L = torch.tensor(normalized_laplacian(A.numpy()))
    >>> q, theta, rhs = torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), torch.eye(3, dtype=torch.float64)
    >>> z = tikhonov_solve(q, theta, rhs, L, tol=1e-10)                 # p = 1: (I + I)^-1
    >>> torch.allclose(z, 0.5 * torch.eye(3, dtype=torch.float64))
    True
    """
    from core.common.config import check_range

    tol = check_range("tol", tol, 0.0, 1.0, low_open=True)
    max_iter = check_range("max_iter", max_iter, 1, 10**6, integer=True)
    check_every = check_range("check_every", check_every, 1, 10**6, integer=True)
    M = bernstein_monomial_matrix(theta.numel() - 1, dtype=theta.dtype).to(theta.device)
    return _TikhonovSolve.apply(q, M @ theta, rhs, laplacian, tol, max_iter, check_every)


P_INITS = ("flat", "laplacian")   # TikhonovLayer's starts for p
SCALES = ("softplus", "log")      # its parameterisations of q and of p's scale


class QNetwork(nn.Module):
    """q_i = softplus(f(x, A)_i) + eps (``log=True``: exp(f(x, A)_i) + eps) with f a GIN-style network: each hop
    sees its neighbours.

    SiLU rather than ReLU: the gradient reaching q through the solve is small, and with ReLU the
    network's units died early in training, leaving every q equal (an explanation of nothing).
    """

    def __init__(self, in_dim: int, hidden: int, hops: int, eps: float, log: bool = False):
        super().__init__()
        self.inp = nn.Linear(in_dim, hidden)
        self.hops = nn.ModuleList(nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
                                  for _ in range(hops))
        self.out = nn.Linear(hidden, 1)
        self.eps, self.log = eps, log

    def forward(self, x, adjacency, mask):
        h = F.silu(self.inp(x))
        for hop in self.hops:
            h = F.silu(hop(h + adjacency @ h))
        f = self.out(h).squeeze(-1)
        q = (torch.exp(f) if self.log else F.softplus(f)) + self.eps
        return torch.where(mask, q, torch.ones_like(q))


class TikhonovLayer(nn.Module):
    """Z = (p(L) + Q)^-1 Q H, with q from a Q-network and p >= 0 on [0, 2] (Bernstein, theta >= 0, mean 1, or exp(s) with
    ``scale='log'``).

    Parameters
    ----------
    channels : int
        The width of the propagated features H.
    q_in : int
        The input width of the Q-network (the raw node features).
    degree : int
        K, the degree of p.
    q_hidden : int
        The Q-network's width.
    q_hops : int
        Its message-passing hops.
    eps : float
        q = softplus(.) + eps.
    solver : str
        ``"dense"`` (torch.linalg.solve) or ``"cg"`` (:func:`tikhonov_solve`).
    cg_tol : float
        CG's relative residual.
    cg_max_iter : int
        CG's iteration cap.
    scale : str
        ``"softplus"`` (q = softplus(.) + eps, p's scale fixed: theta has mean 1) or ``"log"`` (q = exp(.) + eps and
        p multiplied by exp(s) with s a learned scalar starting at 0): q against p, which is all R sees, then moves
        by orders of magnitude in a budget's steps, the whole graph's at once through s.
    p_init : str
        ``"flat"`` (theta = 1: p = 1 on the whole spectrum, a penalty on ||z||^2 with no topology, so R starts
        diagonal) or ``"laplacian"`` (theta_k proportional to k + 0.05: p(λ) ≈ λ with p(0) = theta_0 ≈ 0.024 for
        K = 4, the classical graph Tikhonov penalty z^T L z, so R starts global on a connected graph).
    q_init : float
        0 keeps the Q-network's last layer as drawn; otherwise q = q_init on every node at initialisation (the
        last layer's weight 0, its bias softplus^-1(q_init - eps)); the hidden layers as drawn.

    Examples
    --------
    >>> import torch
    >>> from core.tikhonov_gnn import TikhonovLayer
    >>> layer = TikhonovLayer(channels=4, q_in=3)
    >>> z, q = layer(torch.ones(1, 5, 4), torch.ones(1, 5, 3), torch.ones(1, 5, 5) - torch.eye(5),
    ...              torch.ones(1, 5, dtype=torch.bool))
    >>> tuple(z.shape), bool((q > 0).all()), layer.theta.tolist()
    ((1, 5, 4), True, [1.0, 1.0, 1.0, 1.0, 1.0])
    """

    def __init__(self, channels: int, q_in: int, degree: int = 4, q_hidden: int = 32, q_hops: int = 2,
                 eps: float = 1e-3, solver: str = "dense", cg_tol: float = 1e-6, cg_max_iter: int = 500,
                 p_init: str = "flat", q_init: float = 0.0, scale: str = "softplus"):
        super().__init__()
        if p_init not in P_INITS:
            raise ValueError(f"p_init: {p_init!r} is not a start for p; allowed " + ", ".join(map(repr, P_INITS)))
        if scale not in SCALES:
            raise ValueError(f"scale: {scale!r} is not a parameterisation of q and p; allowed "
                             + ", ".join(map(repr, SCALES)))
        if q_init and not q_init > eps:
            raise ValueError(f"q_init: {q_init!r} is out of range; allowed 0 or a value above eps = {eps!r}")
        self.qnet = QNetwork(q_in, q_hidden, q_hops, eps, log=scale == "log")
        if q_init:
            with torch.no_grad():       # softplus(bias) + eps (or exp) = q_init at every node; the weight learns from 0
                self.qnet.out.bias.fill_(math.log(q_init - eps) if scale == "log" else math.log(math.expm1(q_init - eps)))
                self.qnet.out.weight.zero_()
        # theta = (K + 1) softmax(raw): raw = 0 is the flat start (p = 1 everywhere, all-pass); raw_k = log(k + 0.05)
        # gives theta_k = (K + 1)(k + 0.05) / sum_j (j + 0.05), close to 2k / K: the Bernstein form of p(λ) = λ.
        raw = torch.zeros(degree + 1) if p_init == "flat" else torch.log(torch.arange(degree + 1.0) + 0.05)
        self.theta_raw = nn.Parameter(raw)
        self.log_p_scale = nn.Parameter(torch.zeros(())) if scale == "log" else None
        self.solver, self.cg_tol, self.cg_max_iter = solver, cg_tol, cg_max_iter

    @property
    def theta(self) -> torch.Tensor:
        theta = self.theta_raw.numel() * torch.softmax(self.theta_raw, 0)
        return theta if self.log_p_scale is None else torch.exp(self.log_p_scale) * theta

    def operator_parts(self, q_input, adjacency, mask):
        laplacian = dense_laplacian(adjacency, mask)
        q = self.qnet(q_input, adjacency, mask)
        system = bernstein_matrix(self.theta, laplacian) + torch.diag_embed(q)
        return q, system

    def forward(self, h, q_input, adjacency, mask):
        q = self.qnet(q_input, adjacency, mask)
        rhs = q[..., None] * h
        laplacian = dense_laplacian(adjacency, mask)
        if self.solver == "cg":
            return tikhonov_solve(q, self.theta, rhs, laplacian, self.cg_tol, self.cg_max_iter), q
        system = bernstein_matrix(self.theta, laplacian) + torch.diag_embed(q)
        return torch.linalg.solve(system, rhs), q

    @torch.no_grad()
    def operator(self, q_input, adjacency, mask) -> torch.Tensor:
        """The dense R = (p(L) + Q)^-1 Q for each graph of the batch."""
        q, system = self.operator_parts(q_input, adjacency, mask)
        return torch.linalg.solve(system, torch.diag_embed(q))
