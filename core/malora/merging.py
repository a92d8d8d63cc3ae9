"""Merging LoRA adapters on dW: MaLoRA's margin-balancing coefficients and peft's baselines.

MaLoRA (the paper's rule, in our reading of the abstract): with pretraining margin gamma_0 of the base
head and gamma_t the margin of adapter t's dW_t on its own task, merge W = W0 + sum_t alpha_t dW_t with
alpha_t = gamma_0 / gamma_t. On exactly orthogonal tasks the union margin is
min(gamma_0, min_t alpha_t gamma_t) / sqrt(||W0||^2 + sum_t alpha_t^2 ||dW_t||^2), and balancing every
alpha_t gamma_t at gamma_0 maximises it (see :func:`orthogonal_union_margin`).

The baselines are peft's tensor functions (``peft.utils.merge_utils``) applied to the dW_t, as peft's
``*_svd`` combination types do (they merge ``get_delta_weight``): task arithmetic, TIES (magnitude
top-k per task, sign election, disjoint mean: peft divides by the number of agreeing entries and
does not renormalise the weights), DARE (Bernoulli(density) drop and 1/density rescale, then linear
or TIES), magnitude pruning; ``svd`` is task arithmetic truncated to a rank (peft's default: the
largest adapter rank); ``cat`` concatenates the factors, which is exactly sum_t w_t dW_t. Baseline
weights default to 1 for every adapter (peft's usual call; ours: the abstract names no tuned weights).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from core.common.config import check_choice, check_range
from core.common.seeding import check_seed, derive_seed, torch_seeded

METHODS = ("malora", "task_arithmetic", "ties", "dare_linear", "dare_ties", "magnitude_prune", "svd", "cat")
METHOD_LABELS = {"malora": "MaLoRA (α = γ₀/γ_t)", "task_arithmetic": "task arithmetic", "ties": "TIES",
                 "dare_linear": "DARE (linear)", "dare_ties": "DARE (TIES)", "magnitude_prune": "magnitude prune",
                 "svd": "SVD (rank of the largest adapter)", "cat": "cat (exact Σ w ΔW)"}


def malora_coefficients(base_margin: float, task_margins: Sequence[float]) -> np.ndarray:
    """MaLoRA's mixing coefficients, the ratios of the base margin to each adapter's margin.

    .. math:: \\alpha_t = \\frac{\\gamma_0}{\\gamma_t}, \\qquad t = 1, \\dots, T

    Parameters
    ----------
    base_margin : float
        gamma_0 > 0, the base head's margin on the pretraining data.
    task_margins : sequence of float
        gamma_t > 0, each adapter's margin on its own task's data (the fine-tuned model's; equal to
        dW_t's own on exactly orthogonal tasks).

    Returns
    -------
    ndarray of shape (T,)
        The coefficients that make every merged task margin alpha_t gamma_t equal gamma_0.

    References
    ----------
    .. [1] "Margin-based LoRA merging" (MaLoRA), NeurIPS 2026, ``docs/PAPERS.md``: margin-balancing coefficients
       maximise the margin on the union of tasks.

    Examples
    --------
    >>> malora_coefficients(1.5, [3.0, 0.5])
    array([0.5, 3. ])
    """
    g0 = check_range("base_margin", base_margin, 0.0, None, low_open=True)
    g = np.asarray(task_margins, dtype=float)
    if g.ndim != 1 or g.size == 0 or not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise ValueError(f"task_margins: {np.round(g, 4).tolist()} must all be positive (each adapter separates "
                         "its task); allowed a non-empty list of numbers > 0")
    return g0 / g


def orthogonal_union_margin(alphas: np.ndarray, base_norm: float, base_margin: float, adapter_norms: Sequence[float],
                            task_margins: Sequence[float]) -> np.ndarray:
    """Closed-form normalised union margin of W0 + sum alpha_t dW_t on exactly orthogonal tasks.

    .. math:: \\bar\\gamma(\\alpha) = \\frac{\\min(\\gamma_0, \\min_t \\alpha_t\\gamma_t)}
              {\\sqrt{\\lVert W_0\\rVert^2 + \\sum_t \\alpha_t^2 \\lVert \\Delta W_t\\rVert^2}}

    Valid when the tasks' data and the updates live in mutually orthogonal subspaces (then the cross
    terms vanish and each task sees only its own update); ours, derived from the abstract's setting.

    Parameters
    ----------
    alphas : ndarray of shape (T,) or (..., T)
        The mixing coefficients, >= 0; a stack gives one margin per row.
    base_norm : float
        ||W0||_F.
    base_margin : float
        gamma_0, W0's (unnormalised) margin on the pretraining data.
    adapter_norms : sequence of float
        ||dW_t||_F, one per adapter.
    task_margins : sequence of float
        gamma_t, one per adapter.

    Returns
    -------
    ndarray of shape alphas.shape[:-1]
        The closed-form union margin (a 0-d array for a single alpha).

    Examples
    --------
    >>> float(orthogonal_union_margin([0.5, 3.0], 1.0, 1.5, [1.0, 0.2], [3.0, 0.5]).round(4))
    1.1822
    """
    a = np.asarray(alphas, dtype=float)
    g, n = np.asarray(task_margins, float), np.asarray(adapter_norms, float)
    if a.ndim == 0 or a.shape[-1] != g.size or n.shape != g.shape:
        raise ValueError(f"alphas: {a.shape[-1] if a.ndim else 0} coefficients for {g.size} task margins and "
                         f"{n.size} norms; allowed one of each per adapter")
    if np.any(a < 0):
        raise ValueError("alphas: negative coefficients; allowed numbers >= 0")
    num = np.minimum(base_margin, np.min(a * g, axis=-1))
    return num / np.sqrt(base_norm ** 2 + np.sum((a * n) ** 2, axis=-1))


def _deltas(adapters) -> list[np.ndarray]:
    return [np.asarray(a.delta if hasattr(a, "delta") else a, dtype=float) for a in adapters]


def merged_delta(adapters: Sequence, method: str, *, weights: Sequence[float] | None = None,
                 base_margin: float | None = None, task_margins: Sequence[float] | None = None,
                 density: float = 0.5, svd_rank: int | None = None, majority_sign_method: str = "total",
                 seed: int = 0) -> np.ndarray:
    """The merged update: a (weighted, possibly pruned) combination of the adapters' dW.

    ``malora`` and ``task_arithmetic`` give :math:`\\sum_t w_t \\Delta W_t` (MaLoRA with
    :math:`w_t = \\gamma_0/\\gamma_t`); the others are peft's ``merge_utils`` on the dW (see the module
    docstring).

    Parameters
    ----------
    adapters : sequence of Adapter or of ndarray of shape (n_classes, d)
        The dW_t (an :class:`~core.malora.adapters.Adapter` gives ``scaling * B @ A``), at least one,
        all of one shape.
    method : str
        One of :data:`METHODS`.
    weights : sequence of float, optional
        w_t for the baselines (default 1 each); ignored by ``malora``.
    base_margin : float, optional
        ``malora`` only (required there): gamma_0 > 0, see :func:`malora_coefficients`.
    task_margins : sequence of float, optional
        ``malora`` only (required there): gamma_t > 0, one per adapter.
    density : float
        Share of entries kept by TIES, DARE and magnitude pruning, in (0, 1].
    svd_rank : int, optional
        Truncate the merged dW to this rank (``svd``: default the largest adapter rank; other
        methods: no truncation unless given), as peft's ``*_svd`` types do.
    majority_sign_method : {"total", "frequency"}
        TIES's sign election (peft's options).
    seed : int
        DARE's drop mask, drawn under :func:`torch_seeded` (peft uses torch's global generator).

    Returns
    -------
    ndarray of shape (n_classes, d)
        The merged update.

    References
    ----------
    .. [1] "Margin-based LoRA merging" (MaLoRA), NeurIPS 2026, ``docs/PAPERS.md``.
    .. [2] Yadav et al. (2023), "TIES-Merging: resolving interference when merging models", NeurIPS;
       Yu et al. (2024), "Language models are super Mario" (DARE), ICML.

    Examples
    --------
    >>> d1, d2 = np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[0.0, 0.0], [0.0, 1.0]])
    >>> merged_delta([d1, d2], "malora", base_margin=1.0, task_margins=[0.5, 2.0]).tolist()
    [[2.0, 0.0], [0.0, 0.5]]
    >>> merged_delta([d1, d2], "task_arithmetic", weights=[1.0, 3.0]).tolist()
    [[1.0, 0.0], [0.0, 3.0]]
    """
    import torch
    from peft.utils import merge_utils as mu

    check_choice("method", method, METHODS)
    density = check_range("density", density, 0.0, 1.0, low_open=True)
    check_choice("majority_sign_method", majority_sign_method, ("total", "frequency"))
    seed = check_seed(seed)
    deltas = _deltas(adapters)
    if not deltas or any(d.shape != deltas[0].shape for d in deltas):
        raise ValueError("adapters: need at least one, all of one shape; allowed a list of (classes, d) updates")
    if method == "malora":
        if base_margin is None or task_margins is None:
            raise ValueError("task_margins: MaLoRA needs base_margin and task_margins; allowed numbers > 0")
        w = malora_coefficients(base_margin, task_margins)
        if len(w) != len(deltas):
            raise ValueError(f"task_margins: {len(w)} margins for {len(deltas)} adapters; allowed one per adapter")
    else:
        w = np.ones(len(deltas)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(deltas),) or not np.all(np.isfinite(w)):
            raise ValueError(f"weights: {len(w)} weights for {len(deltas)} adapters; allowed one finite number each")
    T = [torch.as_tensor(d) for d in deltas]
    wt = torch.as_tensor(w, dtype=torch.float64)
    if method == "cat" and all(hasattr(a, "A") for a in adapters):
        A = np.vstack([wi * a.scaling * a.A for wi, a in zip(w, adapters)])   # peft's cat: weight*scaling on A
        B = np.hstack([a.B for a in adapters])
        return B @ A
    if method in ("malora", "task_arithmetic", "svd", "cat"):
        out = mu.task_arithmetic(T, wt)
    elif method == "ties":
        out = mu.ties(T, wt, density, majority_sign_method)
    elif method == "magnitude_prune":
        out = mu.magnitude_prune(T, wt, density)
    else:
        with torch_seeded(derive_seed(seed, "dare")):
            out = (mu.dare_linear(T, wt, density) if method == "dare_linear"
                   else mu.dare_ties(T, wt, density, majority_sign_method))
    out = out.double().numpy()
    if method == "svd" and svd_rank is None:
        svd_rank = max(int(getattr(a, "rank", min(d.shape))) for a, d in zip(adapters, deltas))
    if svd_rank is not None:
        svd_rank = check_range("svd_rank", svd_rank, 1, min(out.shape), integer=True)
        U, S, Vh = np.linalg.svd(out, full_matrices=False)
        out = (U[:, :svd_rank] * S[:svd_rank]) @ Vh[:svd_rank]
    return out


def merge(base: np.ndarray, adapters: Sequence, method: str, **kwargs) -> np.ndarray:
    """The merged head, the base plus the merged update of :func:`merged_delta`.

    .. math:: W = W_0 + \\mathrm{merge}(\\Delta W_1, \\dots, \\Delta W_T)

    Parameters
    ----------
    base : ndarray of shape (n_classes, d)
        W0, the pretrained head.
    adapters : sequence of Adapter or of ndarray of shape (n_classes, d)
        The updates, of ``base``'s shape.
    method : str
        One of :data:`METHODS`.
    **kwargs
        The keyword arguments of :func:`merged_delta` (``weights``, ``base_margin``, ``task_margins``,
        ``density``, ``svd_rank``, ``majority_sign_method``, ``seed``).

    Returns
    -------
    ndarray of shape (n_classes, d)
        The merged head.

    Examples
    --------
    >>> d1, d2 = np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[0.0, 0.0], [0.0, 1.0]])
    >>> merge(np.eye(2), [d1, d2], "task_arithmetic").tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    base = np.asarray(base, dtype=float)
    delta = merged_delta(adapters, method, **kwargs)
    if delta.shape != base.shape:
        raise ValueError(f"adapters: updates of shape {delta.shape} do not fit the base {base.shape}; allowed equal")
    return base + delta
