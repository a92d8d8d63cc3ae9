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
    """Relative change of each layer's state from one loop to the next.

    .. math::

        delta_r^l = reduce over tokens of ||h_{r+1}^l - h_r^l|| / ||h_r^l||,   r = 0..R-2

    Parameters
    ----------
    hiddens : torch.Tensor
        [R, B, ..., d] states (``LoopCache.hiddens``: loops, block layers, batch, seq, width), R >= 2.
    reduce : str
        "mean" or "median" over every token of the batch.

    Returns
    -------
    numpy.ndarray
        [R-1, B] delta; it falls geometrically once a layer has reached its fixed point.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import fixed_point_residuals
    >>> h = torch.ones(4, 1, 2, 3) * torch.tensor([1.0, 1.5, 1.75, 1.875]).view(4, 1, 1, 1)
    >>> fixed_point_residuals(h).astype(float).round(4).tolist()
    [[0.5], [0.1667], [0.0714]]
    """
    if reduce not in ("mean", "median"):
        raise ValueError(f"reduce: {reduce!r} is not an option; allowed 'mean', 'median'")
    if hiddens.shape[0] < 2:
        raise ValueError(f"hiddens: {hiddens.shape[0]} loop; allowed at least 2 loops")
    diff = _norms(hiddens[1:] - hiddens[:-1])
    ref = _norms(hiddens[:-1]).clamp_min(1e-12)
    ratio = (diff / ref).flatten(2)
    return (ratio.median(-1).values if reduce == "median" else ratio.mean(-1)).cpu().numpy()


def convergence_rate(deltas: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Per-layer geometric rate of delta over loops [start, stop): exp of the slope of log delta.

    .. math::

        rate^l = exp(b^l),   (a^l, b^l) = argmin sum_r (log delta_r^l - a - b r)^2

    below 1 the layer converges linearly (delta_{r+1} ~ rate * delta_r).

    Parameters
    ----------
    deltas : numpy.ndarray
        [R-1, B] residuals (:func:`fixed_point_residuals`); values are floored at 1e-300 before the log.
    start : int
        First loop of the window.
    stop : int or None
        End of the window (exclusive); None: the last loop. The window needs two loops or more.

    Returns
    -------
    numpy.ndarray
        [B] rates.

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import convergence_rate
    >>> deltas = 0.5 ** np.arange(10.0)[:, None] * np.array([1.0, 3.0])
    >>> convergence_rate(deltas).round(4)
    array([0.5, 0.5])
    """
    if np.asarray(deltas)[start:stop].shape[0] < 2:
        raise ValueError(f"start: the window [{start}, {stop}) holds fewer than 2 loops; allowed a window of >= 2")
    d = np.log(np.maximum(deltas[start:stop], 1e-300))
    r = np.arange(d.shape[0])
    slope = np.polyfit(r, d, 1)[0]
    return np.exp(slope)


def fixed_point_separation(hiddens: torch.Tensor) -> float:
    """How far apart the block layers' states are at the last loop, relative to their size.

    .. math::

        sep = min_{l != l'} mean_tokens ||h_R^l - h_R^{l'}|| / mean_{l, tokens} ||h_R^l||

    Above ~0.05 the layers sit at distinct points: the block traces a cycle, not a single point.

    Parameters
    ----------
    hiddens : torch.Tensor
        [R, B, ..., d] states; only the last loop is read.

    Returns
    -------
    float
        The separation; NaN for a one-layer block (nothing to separate).

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import fixed_point_separation
    >>> h = torch.zeros(2, 2, 1, 2)
    >>> h[-1, 0, 0] = torch.tensor([1.0, 0.0]); h[-1, 1, 0] = torch.tensor([0.0, 1.0])
    >>> round(fixed_point_separation(h), 4)
    1.4142
    """
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

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import spectral_radius
    >>> A = torch.diag(torch.tensor([0.9, -0.5, 0.2, 0.1]))
    >>> round(spectral_radius(lambda s: A @ s, torch.ones(4)), 4)
    0.9

    Notes
    -----
    J v is a forward-mode product (``torch.func.jvp``) wrapped as a SciPy ``LinearOperator``, so J is
    never formed. Arnoldi (``scipy.sparse.linalg.eigs``) builds an orthonormal Krylov basis and reads
    the eigenvalues of the projected Hessenberg matrix, so it finds complex pairs and copes with a
    non-normal J. Plain power iteration does neither: on a complex dominant pair ||J v|| oscillates
    and its last value depends on the start vector, and for non-normal J it reports transient growth.
    Below 3 dimensions the Jacobian is formed and passed to ``numpy.linalg.eigvals``.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``).
    """
    from core.common.config import check_range

    check_range("k", k, low=1, integer=True)
    check_range("tol", tol, low=0)
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
    """Total variation of each head's attention between consecutive loops.

    .. math::

        TV_r^{l,h} = mean_{batch, queries i} 1/2 sum_j |A_{r+1}^{l,h}[i, j] - A_r^{l,h}[i, j]|

    Parameters
    ----------
    attentions : torch.Tensor
        [R, B, batch, heads, seq, seq] (``LoopCache.attentions``), rows summing to 1.

    Returns
    -------
    numpy.ndarray
        [R-1, B, heads], in [0, 1]; near 0 once the heads have settled.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import attention_change
    >>> a = torch.tensor([[1.0, 0.0], [0.5, 0.5]]).expand(3, 1, 1, 1, 2, 2).clone()
    >>> a[2, ..., 1, :] = torch.tensor([0.0, 1.0])
    >>> attention_change(a)[:, 0, 0].round(4).tolist()
    [0.0, 0.25]
    """
    tv = 0.5 * (attentions[1:] - attentions[:-1]).abs().sum(-1)    # [R-1, B, batch, heads, seq]
    return tv.mean(dim=(2, 4)).cpu().numpy()


def attention_entropy(attentions: torch.Tensor) -> np.ndarray:
    """Mean entropy (nats) of each head's attention rows.

    .. math::

        H_r^{l,h} = mean_{batch, queries i} ( - sum_j A[i, j] log A[i, j] )

    Parameters
    ----------
    attentions : torch.Tensor
        [R, B, batch, heads, seq, seq], rows summing to 1.

    Returns
    -------
    numpy.ndarray
        [R, B, heads]; 0 for one-hot rows, mean_i log(i + 1) for uniform causal attention.

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import attention_entropy
    >>> a = torch.tensor([[1.0, 0.0], [0.5, 0.5]]).expand(1, 1, 1, 1, 2, 2)
    >>> round(float(attention_entropy(a)[0, 0, 0]), 4)   # (0 + ln 2) / 2
    0.3466
    """
    p = attentions.clamp_min(1e-12)
    h = -(attentions * p.log()).sum(-1)
    return h.mean(dim=(2, 4)).cpu().numpy()


def matrix_entropy(x: torch.Tensor) -> float:
    """Normalised von Neumann entropy of the centred token Gram matrix, in [0, 1].

    .. math::

        p = eig(X_c X_c^T) / tr(X_c X_c^T),   S = - sum_i p_i log p_i / log N

    with X_c the N x d rows (tokens) centred: 0 when the rows span one direction, 1 for a flat spectrum.

    Parameters
    ----------
    x : torch.Tensor
        [..., d] representations, flattened to N rows of d.

    Returns
    -------
    float
        S in [0, 1].

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import matrix_entropy
    >>> abs(round(matrix_entropy(torch.tensor([[1.0, 0.0], [-1.0, 0.0]])), 4))
    0.0
    >>> round(matrix_entropy(torch.eye(4)), 4)    # centred: 3 equal eigenvalues of 4
    0.7925
    """
    x = x.reshape(-1, x.shape[-1]).double()
    x = x - x.mean(0)
    eig = torch.linalg.eigvalsh(x @ x.T).clamp_min(0)
    p = eig / eig.sum().clamp_min(1e-300)
    p = p[p > 0]
    return float(-(p * p.log()).sum() / np.log(x.shape[0]))


def linear_cka(x: torch.Tensor, y: torch.Tensor) -> float:
    """Linear centred kernel alignment between two representations of the same N inputs.

    .. math::

        CKA(X, Y) = ||Y_c^T X_c||_F^2 / (||X_c^T X_c||_F ||Y_c^T Y_c||_F)

    with columns centred; invariant to orthogonal maps and isotropic scaling of either side.

    Parameters
    ----------
    x : torch.Tensor
        [..., d1], flattened to N rows.
    y : torch.Tensor
        [..., d2], flattened to the same N rows.

    Returns
    -------
    float
        CKA in [0, 1].

    References
    ----------
    Kornblith, Norouzi, Lee and Hinton, "Similarity of neural network representations revisited", ICML 2019.

    Examples
    --------
    >>> import torch
    >>> from core.looped_lm import linear_cka
    >>> x = torch.randn(50, 4, generator=torch.Generator().manual_seed(0))
    >>> q, _ = torch.linalg.qr(torch.randn(4, 4, generator=torch.Generator().manual_seed(1)))
    >>> round(linear_cka(x, 3 * x @ q), 4)
    1.0
    """
    x = x.reshape(-1, x.shape[-1]).double()
    y = y.reshape(-1, y.shape[-1]).double()
    x, y = x - x.mean(0), y - y.mean(0)
    hsic = (x.T @ y).norm() ** 2
    return float(hsic / ((x.T @ x).norm() * (y.T @ y).norm()))
