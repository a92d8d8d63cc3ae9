"""The Multivariate Kernel Score (MKS) and the kernel covariance operator's effective rank.

With residuals r_1..r_n of a fit split, a kernel k with feature map phi, mean embedding
mu = (1/n) sum phi(r_i) and centred covariance operator Sigma_c = (1/n) sum (phi_i - mu)(phi_i - mu)^T,

    MKS(r) = <phi(r) - mu, (Sigma_c + lam I)^-1 (phi(r) - mu)>
           = (1/lam) [ MMD^2(delta_r, P_n) - kt_r^T (Kt + n lam I)^-1 kt_r ]      (Woodbury)

where Kt is the doubly centred Gram matrix and kt_r the centred cross-kernel. The first term is
an affine function of a kernel density estimate when k(r, r) is constant (the KDE end); with a
linear kernel the whole score is the regularised Mahalanobis distance (r - rbar)^T (S + lam I)^-1
(r - rbar) with the biased covariance S (the covariance-weighted end). The uncentred score
(mu = 0, Sigma = (1/n) sum phi_i phi_i^T) satisfies lam * MKS(r) = k(r, r) - k_r^T (K + n lam I)^-1 k_r,
the Gaussian-process posterior variance with noise variance n * lam.

Ours: the bandwidth is a multiple of the median pairwise distance of the fit residuals (the
median heuristic) unless an absolute one is given; lam is on the operator's scale (the Gram
matrix is divided by n); the kernels offered are Gaussian (RBF), Laplace, inverse multiquadric
and linear. Bounded kernels give a score that tends to a finite plateau far from the data
(:meth:`MultivariateKernelScore.plateau`): a threshold at or above it means an unbounded region.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.spatial.distance import cdist, pdist

KERNELS = ("rbf", "laplace", "imq", "linear")
KERNEL_LABELS = {"rbf": "Gaussian (RBF)", "laplace": "Laplace", "imq": "inverse multiquadric", "linear": "linear"}


def _check_points(name: str, A) -> np.ndarray:
    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or A.shape[0] < 1 or not np.all(np.isfinite(A)):
        raise ValueError(f"{name}: shape {A.shape} is not finite points; allowed a finite (n, d) array with n >= 1")
    return A


def kernel_matrix(A: np.ndarray, B: np.ndarray, kernel: str, bandwidth: float) -> np.ndarray:
    """k(a_i, b_j) for the named kernel.

    Parameters
    ----------
    A : numpy.ndarray
        ``(n, d)`` points.
    B : numpy.ndarray
        ``(m, d)`` points.
    kernel : {"rbf", "laplace", "imq", "linear"}
        The kernel.
    bandwidth : float
        The bandwidth h > 0 (ignored by the linear kernel).

    Returns
    -------
    numpy.ndarray
        ``(n, m)`` Gram matrix:

        .. math::

            k_{\\mathrm{rbf}} = e^{-\\lVert a - b \\rVert^2 / (2 h^2)}, \\quad
            k_{\\mathrm{laplace}} = e^{-\\lVert a - b \\rVert / h}, \\quad
            k_{\\mathrm{imq}} = (1 + \\lVert a - b \\rVert^2 / h^2)^{-1/2}, \\quad
            k_{\\mathrm{linear}} = a \\cdot b.

    Examples
    --------
    >>> A = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> kernel_matrix(A, A, "rbf", bandwidth=1.0)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel: {kernel!r} is not an option; allowed {', '.join(map(repr, KERNELS))}")
    A, B = _check_points("A", A), _check_points("B", B)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"B: {B.shape[1]} columns against A's {A.shape[1]}; allowed the same dimension")
    if kernel != "linear" and (isinstance(bandwidth, bool) or not np.isfinite(bandwidth) or bandwidth <= 0):
        raise ValueError(f"bandwidth: {bandwidth!r} is not positive; allowed a number > 0")
    if kernel == "linear":
        return A @ B.T
    if kernel == "rbf":
        return np.exp(-cdist(A, B, "sqeuclidean") / (2.0 * bandwidth**2))
    if kernel == "laplace":
        return np.exp(-cdist(A, B, "euclidean") / bandwidth)
    if kernel == "imq":
        return 1.0 / np.sqrt(1.0 + cdist(A, B, "sqeuclidean") / bandwidth**2)
    raise ValueError(f"kernel: {kernel!r} is not an option; allowed {', '.join(map(repr, KERNELS))}")


def kernel_diagonal(A: np.ndarray, kernel: str) -> np.ndarray:
    """k(a, a) for each row of A."""
    return np.einsum("ij,ij->i", A, A) if kernel == "linear" else np.ones(A.shape[0])


def median_distance(R: np.ndarray, max_points: int = 1000) -> float:
    """The median pairwise Euclidean distance of the first ``max_points`` rows (the median heuristic).

    Parameters
    ----------
    R : numpy.ndarray
        ``(n, d)`` points, finite.
    max_points : int
        Only the first ``max_points`` rows are used (>= 2), to bound the O(n²) cost.

    Returns
    -------
    float
        The median of :math:`\\lVert r_i - r_j \\rVert` over pairs ``i < j``; 1 when it is 0 or undefined.

    Examples
    --------
    >>> median_distance(np.array([[0.0], [1.0], [3.0]]))
    2.0
    """
    R = _check_points("R", R)
    if isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer)) or max_points < 2:
        raise ValueError(f"max_points: {max_points!r} is out of range; allowed an integer >= 2")
    d = pdist(R[:max_points])
    med = float(np.median(d)) if d.size else 1.0
    return med if med > 0 else 1.0


class MultivariateKernelScore:
    """MKS nonconformity score on residual vectors, scikit-learn style (``fit`` then ``score``).

    .. math::

        \\mathrm{MKS}(r) = \\langle \\phi(r) - \\mu, (\\Sigma_c + \\lambda I)^{-1} (\\phi(r) - \\mu) \\rangle
        = \\frac{1}{\\lambda}\\Big[\\mathrm{MMD}^2(\\delta_r, P_n)
          - \\tilde k_r^\\top (\\tilde K + n \\lambda I)^{-1} \\tilde k_r\\Big].

    Parameters
    ----------
    kernel : {"rbf", "laplace", "imq", "linear"}
        The kernel (see :func:`kernel_matrix`).
    bandwidth : float, optional
        Absolute bandwidth h; if None, ``bandwidth_scale`` times the median pairwise distance.
    bandwidth_scale : float
        Multiple of the median heuristic used when ``bandwidth`` is None.
    lam : float
        Ridge lam > 0 added to the covariance operator.
    centred : bool
        Centre the embedding (the MKS) or not (the GP-posterior-variance form).

    Attributes
    ----------
    R_ : numpy.ndarray
        ``(n, d)`` the fit residuals.
    h_ : float
        The bandwidth used.
    Kc_ : numpy.ndarray
        ``(n, n)`` the (centred) Gram matrix.

    References
    ----------
    .. [1] "Multivariate kernel score for conformal prediction" (MKS), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> R = np.random.default_rng(0).normal(size=(50, 2))
    >>> score = MultivariateKernelScore(lam=0.1).fit(R)
    >>> score.score(np.array([[0.0, 0.0], [5.0, 5.0]])).round(3), round(score.plateau(), 3)
    (array([ 0.755, 15.024]), 15.068)

    With the linear kernel it is the regularised Mahalanobis distance with the biased covariance:

    >>> linear = MultivariateKernelScore(kernel="linear", lam=0.1).fit(R)
    >>> S, q = np.cov(R.T, bias=True), np.array([1.0, 2.0]) - R.mean(axis=0)
    >>> bool(np.isclose(linear.score(np.array([[1.0, 2.0]]))[0], q @ np.linalg.solve(S + 0.1 * np.eye(2), q)))
    True
    """

    def __init__(self, kernel: str = "rbf", bandwidth: float | None = None, bandwidth_scale: float = 1.0,
                 lam: float = 0.01, centred: bool = True):
        if kernel not in KERNELS:
            raise ValueError(f"kernel: {kernel!r} is not an option; allowed {', '.join(map(repr, KERNELS))}")
        if not (np.isfinite(lam) and lam > 0):
            raise ValueError(f"lam: {lam} is not positive; allowed > 0")
        if bandwidth is not None and not (np.isfinite(bandwidth) and bandwidth > 0):
            raise ValueError(f"bandwidth: {bandwidth} is not positive; allowed > 0 or None")
        if not (np.isfinite(bandwidth_scale) and bandwidth_scale > 0):
            raise ValueError(f"bandwidth_scale: {bandwidth_scale} is not positive; allowed > 0")
        self.kernel, self.bandwidth, self.bandwidth_scale = kernel, bandwidth, float(bandwidth_scale)
        self.lam, self.centred = float(lam), bool(centred)

    def fit(self, R: np.ndarray) -> "MultivariateKernelScore":
        """Fit on residuals ``R`` of shape (n, d)."""
        R = np.asarray(R, float)
        if R.ndim != 2 or R.shape[0] < 2:
            raise ValueError(f"R: shape {R.shape} is not (n, d) with n >= 2; allowed a 2-D array of residuals")
        self.R_ = R
        self.h_ = float(self.bandwidth) if self.bandwidth is not None else self.bandwidth_scale * median_distance(R)
        n = R.shape[0]
        K = kernel_matrix(R, R, self.kernel, self.h_)
        self.K_col_mean_ = K.mean(axis=0)
        self.K_mean_ = float(K.mean())
        if self.centred:
            K = K - self.K_col_mean_[None, :] - self.K_col_mean_[:, None] + self.K_mean_
        self.Kc_ = K
        self.chol_ = cho_factor(K + n * self.lam * np.eye(n), lower=True)
        return self

    def _cross(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the first term, the cross-kernel) for queries Q: MMD^2 and kt (centred) or k(q, q) and k (not)."""
        Kq = kernel_matrix(Q, self.R_, self.kernel, self.h_)
        diag = kernel_diagonal(Q, self.kernel)
        if not self.centred:
            return diag, Kq
        row = Kq.mean(axis=1)
        first = diag - 2.0 * row + self.K_mean_
        return first, Kq - row[:, None] - self.K_col_mean_[None, :] + self.K_mean_

    def score(self, R: np.ndarray, batch: int = 4096) -> np.ndarray:
        """MKS of each row of ``R`` (residual vectors, shape (m, d))."""
        R = np.atleast_2d(np.asarray(R, float))
        if R.shape[1] != self.R_.shape[1]:
            raise ValueError(f"R: {R.shape[1]} columns; allowed {self.R_.shape[1]} (the fitted dimension)")
        out = np.empty(R.shape[0])
        for s in range(0, R.shape[0], batch):
            first, cross = self._cross(R[s:s + batch])
            sol = cho_solve(self.chol_, cross.T)
            out[s:s + batch] = (first - np.einsum("ij,ji->i", cross, sol)) / self.lam
        return out

    def plateau(self) -> float:
        """The limit of the score far from every residual (inf for the unbounded linear kernel).

        For a bounded kernel with k(r, r) = 1 and k(r, r_i) -> 0: the uncentred score tends to 1/lam;
        the centred one to (1/lam)[1 + mean(K) - c^T (Kt + n lam I)^-1 c] with c = mean(K) - colmean(K).
        """
        if self.kernel == "linear":
            return float("inf")
        if not self.centred:
            return 1.0 / self.lam
        c = self.K_mean_ - self.K_col_mean_
        return float((1.0 + self.K_mean_ - c @ cho_solve(self.chol_, c)) / self.lam)

    def operator_eigenvalues(self) -> np.ndarray:
        """Eigenvalues of the (centred or not) empirical covariance operator, K/n, descending."""
        ev = np.linalg.eigvalsh(self.Kc_ / self.Kc_.shape[0])[::-1]
        return np.clip(ev, 0.0, None)


def _check_eigenvalues(eigenvalues) -> np.ndarray:
    ev = np.asarray(eigenvalues, dtype=float)
    if ev.ndim != 1 or not np.all(np.isfinite(ev)):
        raise ValueError(f"eigenvalues: shape {ev.shape} is not finite eigenvalues; allowed a finite 1-D array")
    return np.clip(ev, 0.0, None)


def effective_rank(eigenvalues: np.ndarray) -> float:
    """tr(Sigma) / ||Sigma||_op = sum(mu_i) / max(mu_i) of a covariance operator's eigenvalues.

    Parameters
    ----------
    eigenvalues : numpy.ndarray
        The operator's eigenvalues μ_i (1-D, finite; negative round-off is clipped to 0).

    Returns
    -------
    float
        .. math:: r_{\\mathrm{eff}} = \\frac{\\operatorname{tr}\\Sigma}{\\lVert\\Sigma\\rVert_{op}} = \\frac{\\sum_i \\mu_i}{\\max_i \\mu_i},

        0 for the zero operator.

    References
    ----------
    .. [1] "Multivariate kernel score for conformal prediction" (MKS), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> effective_rank(np.array([2.0, 1.0, 1.0]))
    2.0
    """
    ev = _check_eigenvalues(eigenvalues)
    return float(ev.sum() / ev.max()) if ev.size and ev.max() > 0 else 0.0


def effective_dimension(eigenvalues: np.ndarray, lam: float) -> float:
    """The lam-effective dimension sum(mu_i / (mu_i + lam)), the count that enters ridge-type rates.

    Parameters
    ----------
    eigenvalues : numpy.ndarray
        The operator's eigenvalues μ_i (1-D, finite; negative round-off is clipped to 0).
    lam : float
        The ridge λ > 0.

    Returns
    -------
    float
        .. math:: d_\\lambda = \\sum_i \\frac{\\mu_i}{\\mu_i + \\lambda}.

    Examples
    --------
    >>> round(effective_dimension(np.array([2.0, 1.0, 1.0]), lam=1.0), 4)
    1.6667
    """
    if isinstance(lam, bool) or not np.isfinite(lam) or lam <= 0:
        raise ValueError(f"lam: {lam!r} is not positive; allowed a number > 0")
    ev = _check_eigenvalues(eigenvalues)
    return float(np.sum(ev / (ev + lam)))
