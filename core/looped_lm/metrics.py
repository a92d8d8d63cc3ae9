"""Metrics of a looped pass, computed from a :class:`LoopCache` (or any [R, B, ...] state tensor).

- fixed-point residual  delta_r^l = mean over tokens of ||h_{r+1}^l - h_r^l|| / ||h_r^l||   ([R-1, B])
- its geometric rate: exp of the least-squares slope of log delta against r over a window
- separation of the layers' fixed points: min over l != l' of ||h*^l - h*^l'|| / mean ||h*||, with h*
  the states of the last loop (token-averaged norms); above ~0.05 the block traces a cycle
- spectral radius of the full-cycle map's Jacobian at a state, by Arnoldi (SciPy's ARPACK) on jvp products
- attention change: total variation 1/2 sum_j |A_{r+1}[i, j] - A_r[i, j]| averaged over queries and
  the batch, per (loop, layer, head), and attention entropy per row
- matrix entropy of a token-representation matrix (normalised eigen-spectrum of the centred Gram)
- linear CKA between two representation matrices (Kornblith et al., 2019)
"""

from __future__ import annotations

import numpy as np
import torch


def _norms(x: torch.Tensor) -> torch.Tensor:
    return x.norm(dim=-1)


def fixed_point_residuals(hiddens: torch.Tensor, reduce: str = "mean") -> np.ndarray:
    """delta[r, l] for r = 0..R-2 from states [R, B, ..., d], reduced over tokens by mean or median."""
    diff = _norms(hiddens[1:] - hiddens[:-1])
    ref = _norms(hiddens[:-1]).clamp_min(1e-12)
    ratio = (diff / ref).flatten(2)
    return (ratio.median(-1).values if reduce == "median" else ratio.mean(-1)).cpu().numpy()


def convergence_rate(deltas: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Per-layer geometric rate of delta over loops [start, stop): exp(slope of log delta)."""
    d = np.log(np.maximum(deltas[start:stop], 1e-300))
    r = np.arange(d.shape[0])
    slope = np.polyfit(r, d, 1)[0]
    return np.exp(slope)


def fixed_point_separation(hiddens: torch.Tensor) -> float:
    last = hiddens[-1]                                   # [B, ..., d]
    scale = _norms(last).mean().clamp_min(1e-12)
    B = last.shape[0]
    if B < 2:
        return float("nan")
    dists = [(_norms(last[i] - last[j]).mean() / scale).item() for i in range(B) for j in range(i + 1, B)]
    return float(min(dists))


def spectral_radius(step, state: torch.Tensor, k: int = 4, seed: int = 0, tol: float = 1e-5) -> float:
    """Largest |eigenvalue| of the Jacobian of ``step`` at ``state``, by implicitly restarted Arnoldi.

    Parameters
    ----------
    step : callable
        The map s -> step(s) (for a looped model, one full cycle of the block with e fixed).
    state : torch.Tensor
        Where the Jacobian J = d step / d s is taken (any shape; flattened to n numbers).
    k : int
        Eigenvalues of largest modulus ARPACK resolves; the pair of a complex dominant eigenvalue
        needs k >= 2, and a few more make the restarts converge faster on clustered spectra.
    seed : int
        The Arnoldi start vector (derived with ``derive_rng``).
    tol : float
        ARPACK's relative accuracy.

    Returns
    -------
    float
        rho(J) = max |lambda_i(J)|.

    Notes
    -----
    J v is a forward-mode product (``torch.func.jvp``) wrapped as a SciPy ``LinearOperator``, so J is
    never formed. Arnoldi (``scipy.sparse.linalg.eigs``) builds an orthonormal Krylov basis and reads
    the eigenvalues of the projected Hessenberg matrix, so it finds complex pairs and copes with a
    non-normal J. Plain power iteration does neither: on a complex dominant pair ||J v|| oscillates
    and its last value depends on the start vector, and for non-normal J it reports transient growth.
    Below 3 dimensions the Jacobian is formed and passed to ``numpy.linalg.eigvals``.
    """
    from scipy.sparse.linalg import LinearOperator, eigs

    from core.common.seeding import derive_rng

    n = state.numel()

    def matvec(v):
        v = torch.as_tensor(np.asarray(v, dtype=np.float64).reshape(state.shape), dtype=state.dtype)
        with torch.no_grad():
            _, jv = torch.func.jvp(step, (state,), (v,))
        return jv.reshape(-1).double().numpy()

    if n < 3:
        jac = np.stack([matvec(np.eye(n)[i]) for i in range(n)], 1)
        return float(np.abs(np.linalg.eigvals(jac)).max())
    op = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    v0 = derive_rng(seed, "spectral radius start").standard_normal(n)
    values = eigs(op, k=min(k, n - 2), which="LM", v0=v0, tol=tol, return_eigenvectors=False, maxiter=50 * n)
    return float(np.abs(values).max())


def attention_change(attentions: torch.Tensor) -> np.ndarray:
    """Total variation between consecutive loops: [R-1, B, heads]."""
    tv = 0.5 * (attentions[1:] - attentions[:-1]).abs().sum(-1)    # [R-1, B, batch, heads, seq]
    return tv.mean(dim=(2, 4)).cpu().numpy()


def attention_entropy(attentions: torch.Tensor) -> np.ndarray:
    """Mean entropy (nats) of each head's attention rows: [R, B, heads]."""
    p = attentions.clamp_min(1e-12)
    h = -(attentions * p.log()).sum(-1)
    return h.mean(dim=(2, 4)).cpu().numpy()


def matrix_entropy(x: torch.Tensor) -> float:
    """Normalised von Neumann entropy of the centred token Gram matrix, in [0, 1]."""
    x = x.reshape(-1, x.shape[-1]).double()
    x = x - x.mean(0)
    eig = torch.linalg.eigvalsh(x @ x.T).clamp_min(0)
    p = eig / eig.sum().clamp_min(1e-300)
    p = p[p > 0]
    return float(-(p * p.log()).sum() / np.log(x.shape[0]))


def linear_cka(x: torch.Tensor, y: torch.Tensor) -> float:
    x = x.reshape(-1, x.shape[-1]).double()
    y = y.reshape(-1, y.shape[-1]).double()
    x, y = x - x.mean(0), y - y.mean(0)
    hsic = (x.T @ y).norm() ** 2
    return float(hsic / ((x.T @ x).norm() * (y.T @ y).norm()))
