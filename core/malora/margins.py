"""Multiclass margins of a linear classifier, plain NumPy.

For logits ``W x`` (``W`` of shape classes x features) the margin of a sample is
``gamma(W; x, y) = min_{j != y} (w_y - w_j)^T x``; a set's (task's) margin is the smallest sample margin,
and its normalised margin divides by ``||W||_F``. Positive task margin means every sample is classified
correctly with room to spare.
"""

from __future__ import annotations

import numpy as np

from core.common.config import check_range


def _check(W: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    W, X, y = np.asarray(W, dtype=float), np.asarray(X, dtype=float), np.asarray(y)
    if W.ndim != 2 or X.ndim != 2 or W.shape[1] != X.shape[1]:
        raise ValueError(f"W: shape {W.shape} does not act on X of shape {X.shape}; allowed W (classes, d), X (n, d)")
    if y.shape != (X.shape[0],) or (y.size and (y.min() < 0 or y.max() >= W.shape[0])):
        raise ValueError(f"y: labels must be one per row of X in 0..{W.shape[0] - 1}; allowed integers")
    if W.shape[0] < 2:
        raise ValueError(f"W: {W.shape[0]} class; allowed at least 2 classes")
    return W, X, y.astype(int)


def logit_margins(logits: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-sample margins from a logit matrix: the label's logit minus the largest other one.

    Parameters
    ----------
    logits : ndarray of shape (n, n_classes)
        The logits ``z_i`` of each sample, at least two classes.
    y : ndarray of shape (n,)
        Integer labels in ``0..n_classes-1``.

    Returns
    -------
    ndarray of shape (n,)
        .. math:: \\gamma_i = z_{i, y_i} - \\max_{j \\ne y_i} z_{i, j}

        Negative where the sample is misclassified, zero on a tie.

    Examples
    --------
    >>> logit_margins(np.array([[2.0, 0.5, 1.0], [0.0, 1.0, 3.0]]), np.array([0, 1]))
    array([ 1., -2.])
    """
    z = np.asarray(logits, dtype=float)
    y = np.asarray(y)
    if z.ndim != 2 or z.shape[1] < 2:
        raise ValueError(f"logits: shape {z.shape}; allowed (n, n_classes) with at least 2 classes")
    if y.shape != (z.shape[0],) or (y.size and (y.min() < 0 or y.max() >= z.shape[1])):
        raise ValueError(f"y: labels must be one per row of logits in 0..{z.shape[1] - 1}; allowed integers")
    y = y.astype(int)
    rows = np.arange(len(y))
    own = z[rows, y]
    others = z.copy()
    others[rows, y] = -np.inf
    return own - others.max(axis=1)


def sample_margins(W: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-sample multiclass margins of the linear classifier ``W``.

    Parameters
    ----------
    W : ndarray of shape (n_classes, d)
        The classifier (logits ``W x``), at least two classes.
    X : ndarray of shape (n, d)
        The samples, one per row.
    y : ndarray of shape (n,)
        Integer labels in ``0..n_classes-1``.

    Returns
    -------
    ndarray of shape (n,)
        .. math:: \\gamma_i = \\min_{j \\ne y_i} (w_{y_i} - w_j)^\\top x_i

    References
    ----------
    Crammer, K. and Singer, Y. (2001), "On the algorithmic implementation of multiclass kernel-based
    vector machines", JMLR 2 (the multiclass margin the MaLoRA theory uses).

    Examples
    --------
    >>> W = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> sample_margins(W, np.array([[2.0, 0.5], [1.0, 3.0]]), np.array([0, 1]))
    array([1.5, 2. ])
    """
    W, X, y = _check(W, X, y)
    return logit_margins(X @ W.T, y)


def task_margin(W: np.ndarray, X: np.ndarray, y: np.ndarray, quantile: float = 0.0) -> float:
    """The task (hard) margin, the smallest sample margin; negative if a sample is misclassified.

    Parameters
    ----------
    W : ndarray of shape (n_classes, d)
        The classifier.
    X : ndarray of shape (n, d)
        The task's samples.
    y : ndarray of shape (n,)
        Integer labels in ``0..n_classes-1``.
    quantile : float
        In [0, 0.5]. At 0 the hard margin :math:`\\gamma_S(W) = \\min_i \\gamma_i`; above 0 the
        ``quantile``-quantile of the sample margins instead (a soft margin that ignores the hardest share
        of the samples; ours, for real data that a low-rank adapter does not separate).

    Returns
    -------
    float
        The (unnormalised) task margin.

    Examples
    --------
    >>> W = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> X, y = np.array([[2.0, 0.5], [1.0, 3.0], [0.0, 1.0]]), np.array([0, 1, 0])
    >>> task_margin(W, X, y), task_margin(W, X, y, quantile=0.5)
    (-1.0, 1.5)
    """
    quantile = check_range("quantile", quantile, 0.0, 0.5)
    m = sample_margins(W, X, y)
    return float(m.min() if quantile <= 0 else np.quantile(m, quantile))


def normalized_margin(W: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    """The scale-free task margin, the hard margin divided by the Frobenius norm of ``W``.

    Parameters
    ----------
    W : ndarray of shape (n_classes, d)
        The classifier, not the zero matrix.
    X : ndarray of shape (n, d)
        The task's samples.
    y : ndarray of shape (n,)
        Integer labels in ``0..n_classes-1``.

    Returns
    -------
    float
        .. math:: \\bar\\gamma_S(W) = \\frac{\\min_i \\gamma_i}{\\lVert W \\rVert_F}

        Unchanged when ``W`` is scaled by a positive number.

    Examples
    --------
    >>> W = np.array([[3.0, 0.0], [0.0, 4.0]])
    >>> round(normalized_margin(W, np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1])), 3)
    0.6
    """
    W = np.asarray(W, dtype=float)
    norm = float(np.linalg.norm(W))
    if norm == 0.0:
        raise ValueError("W: the zero matrix has no normalised margin; allowed any non-zero matrix")
    return task_margin(W, X, y) / norm


def accuracy(W: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    """Share of rows whose largest logit is the label's (ties count as errors).

    Parameters
    ----------
    W : ndarray of shape (n_classes, d)
        The classifier.
    X : ndarray of shape (n, d)
        The samples.
    y : ndarray of shape (n,)
        Integer labels in ``0..n_classes-1``.

    Returns
    -------
    float
        In [0, 1]: the share of samples with a positive margin.

    Examples
    --------
    >>> W = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> accuracy(W, np.array([[2.0, 0.5], [1.0, 3.0], [0.0, 1.0], [1.0, 1.0]]), np.array([0, 1, 0, 0]))
    0.5
    """
    return float(np.mean(sample_margins(W, X, y) > 0))
