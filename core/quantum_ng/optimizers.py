"""Five VQE optimisers behind one interface: ``opt.step(params, oracle) -> new params``.

Each asks its :class:`~core.quantum_ng.measurements.ShotOracle` for what it needs, so every
circuit it runs lands on that oracle's accountant. All five share the same shot-noisy
parameter-shift gradient; they differ in the metric they precondition it with:

- ``sgd``: ``qml.GradientDescentOptimizer``'s update, no metric;
- ``adam``: ``qml.AdamOptimizer`` (PennyLane's defaults beta1 = 0.9, beta2 = 0.99, eps = 1e-8);
- ``block_qng``: ``qml.QNGOptimizer`` with ``metric_tensor(approx="block-diag")`` measured with shots;
- ``rng``: ``qml.QNGOptimizer`` with the random-unitary classical Fisher F / 2 (random natural gradient);
- ``surrogate``: the paper's hybrid update. With A the active set (parameters whose weight-k
  truncated generator is not zero) and g_hat the surrogate from one shadow dataset,

      theta_A  <- theta_A  - eta (psd(g_hat_AA) + lam I)^-1 grad_A,
      theta_~A <- theta_~A - eta_gd grad_~A.

  psd() clips negative eigenvalues to zero (ours: an unbiased estimate after masking and truncation
  need not be positive semi-definite, and a negative direction would climb the energy). eta_gd
  defaults to eta. With every parameter active this is exactly QNGOptimizer's step with the
  metric psd(g_hat) (a test checks it).

The natural-gradient baselines use PennyLane's update (pinv(g + lam I) grad); their shot estimates
are empirical covariances / Fisher matrices and therefore PSD already.
"""

from __future__ import annotations

import numpy as np

from core.common.config import check_range

OPTIMIZERS = ("sgd", "adam", "block_qng", "rng", "surrogate")
LABELS = {"sgd": "SGD", "adam": "Adam", "block_qng": "Block-diagonal QNG", "rng": "Random NG",
          "surrogate": "Surrogate QNG (ours)"}


def _trainable(params):
    """A PennyLane trainable tensor (PennyLane is imported at the first step, not with this module)."""
    from pennylane import numpy as pnp

    return pnp.array(np.asarray(params, float), requires_grad=True)


def natural_step(params, grad, metric, stepsize: float, lam: float) -> np.ndarray:
    """One ``qml.QNGOptimizer`` step with a given metric and gradient.

    .. math:: \\theta \\leftarrow \\theta - \\eta\\, (g + \\lambda I)^{+} \\nabla E

    Parameters
    ----------
    params : array_like of shape (P,)
        The current parameters.
    grad : array_like of shape (P,)
        The (estimated) energy gradient.
    metric : array_like of shape (P, P)
        The metric in ``qml.metric_tensor``'s convention.
    stepsize : float
        eta, in (0, 10].
    lam : float
        lambda >= 0 (at most 10), the regularisation PennyLane adds to the metric.

    Returns
    -------
    ndarray of shape (P,)
        The new parameters.

    Examples
    --------
    >>> natural_step([1.0, 1.0], [0.5, 0.5], np.diag([0.25, 0.5]), stepsize=0.1, lam=0.0)
    array([0.8, 0.9])
    """
    import pennylane as qml

    stepsize = check_range("stepsize", stepsize, 0.0, 10.0, low_open=True)
    lam = check_range("lam", lam, 0.0, 10.0)

    opt = qml.QNGOptimizer(stepsize=stepsize, lam=lam)
    opt.metric_tensor = np.asarray(metric, float) + lam * np.eye(len(grad))
    (new,) = opt.apply_grad((np.asarray(grad, float),), (_trainable(params),))
    return np.asarray(new, float)


def psd(matrix: np.ndarray) -> np.ndarray:
    """The nearest positive semi-definite matrix in Frobenius norm (eigenvalues clipped at zero).

    Parameters
    ----------
    matrix : ndarray of shape (P, P)
        A square matrix; its symmetric part is used.

    Returns
    -------
    ndarray of shape (P, P)
        V max(W, 0) V^T for the eigen-decomposition V W V^T of (M + M^T) / 2.

    Examples
    --------
    >>> psd(np.diag([1.0, -2.0]))
    array([[1., 0.],
           [0., 0.]])
    """
    sym = 0.5 * (matrix + matrix.T)
    w, v = np.linalg.eigh(sym)
    return (v * np.clip(w, 0.0, None)) @ v.T


def hybrid_step(params, grad, metric, active, stepsize: float, lam: float,
                gd_stepsize: float | None = None) -> np.ndarray:
    """The surrogate's update: natural gradient on the active set A, gradient descent on the rest.

    .. math::

        \\theta_A \\leftarrow \\theta_A - \\eta\\,(\\mathrm{psd}(\\hat g_{AA}) + \\lambda I)^{-1} \\nabla_A E,
        \\qquad \\theta_{\\bar A} \\leftarrow \\theta_{\\bar A} - \\eta_{gd} \\nabla_{\\bar A} E.

    Parameters
    ----------
    params : array_like of shape (P,)
        The current parameters.
    grad : array_like of shape (P,)
        The (estimated) energy gradient.
    metric : array_like of shape (P, P)
        The surrogate metric (only its active block is used).
    active : array_like of bool, shape (P,)
        The active set.
    stepsize : float
        eta, in (0, 10], for the natural-gradient block.
    lam : float
        lambda in [0, 10], added to the clipped block (lambda = 0 needs a nonsingular block).
    gd_stepsize : float, optional
        eta_gd in [0, 10] for the inactive parameters (default: ``stepsize``).

    Returns
    -------
    ndarray of shape (P,)
        The new parameters.

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026, ``docs/PAPERS.md``):
       "an active set receiving surrogate-QNG updates, while the rest follow standard gradient descent".

    Examples
    --------
    >>> hybrid_step([1.0, 1.0], [0.5, 0.5], np.diag([0.25, 0.0]), [True, False], stepsize=0.1, lam=0.0)
    array([0.8 , 0.95])
    """
    stepsize = check_range("stepsize", stepsize, 0.0, 10.0, low_open=True)
    lam = check_range("lam", lam, 0.0, 10.0)
    if gd_stepsize is not None:
        gd_stepsize = check_range("gd_stepsize", gd_stepsize, 0.0, 10.0)
    params, grad = np.asarray(params, float), np.asarray(grad, float)
    active = np.asarray(active, bool)
    new = params.copy()
    rest = ~active
    new[rest] -= (stepsize if gd_stepsize is None else gd_stepsize) * grad[rest]
    if active.any():
        block = psd(np.asarray(metric)[np.ix_(active, active)]) + lam * np.eye(int(active.sum()))
        new[active] -= stepsize * np.linalg.solve(block, grad[active])
    return new


class Optimizer:
    """The interface of the five optimisers: ``step(params, oracle)`` returns the next parameters.

    Parameters
    ----------
    stepsize : float
        eta, in (0, 10].

    Examples
    --------
    >>> Optimizer(0.1).stepsize
    0.1
    """

    key = ""

    def __init__(self, stepsize: float):
        self.stepsize = check_range("stepsize", stepsize, 0.0, 10.0, low_open=True)
        self.last: dict = {}

    @property
    def label(self) -> str:
        return LABELS[self.key]

    def step(self, params, oracle) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


class SGD(Optimizer):
    """Gradient descent on the shot-noisy parameter-shift gradient (``qml.GradientDescentOptimizer``).

    Parameters
    ----------
    stepsize : float
        eta, in (0, 10].

    Examples
    --------
    >>> SGD(0.1).label
    'SGD'
    """

    key = "sgd"

    def __init__(self, stepsize: float = 0.05):
        import pennylane as qml

        super().__init__(stepsize)
        self._opt = qml.GradientDescentOptimizer(self.stepsize)

    def step(self, params, oracle):
        grad = oracle.gradient(params)
        (new,) = self._opt.apply_grad((grad,), (_trainable(params),))
        return np.asarray(new, float)


class Adam(Optimizer):
    """``qml.AdamOptimizer`` (beta1 = 0.9, beta2 = 0.99, eps = 1e-8) on the shot-noisy gradient.

    Parameters
    ----------
    stepsize : float
        eta, in (0, 10].

    Examples
    --------
    >>> Adam(0.1).label
    'Adam'
    """

    key = "adam"

    def __init__(self, stepsize: float = 0.05):
        import pennylane as qml

        super().__init__(stepsize)
        self._opt = qml.AdamOptimizer(self.stepsize)

    def step(self, params, oracle):
        grad = oracle.gradient(params)
        (new,) = self._opt.apply_grad((grad,), (_trainable(params),))
        return np.asarray(new, float)


class BlockDiagQNG(Optimizer):
    """``qml.QNGOptimizer`` with the block-diagonal metric, measured with shots (one circuit per layer).

    Parameters
    ----------
    stepsize : float
        eta, in (0, 10].
    lam : float
        lambda in [0, 10], the metric's regularisation.

    Examples
    --------
    >>> BlockDiagQNG(0.05, lam=0.01).label
    'Block-diagonal QNG'
    """

    key = "block_qng"

    def __init__(self, stepsize: float = 0.05, lam: float = 0.01):
        super().__init__(stepsize)
        self.lam = check_range("lam", lam, 0.0, 10.0)

    def metric(self, params, oracle):
        return oracle.block_diag_metric(params)

    def step(self, params, oracle):
        metric = self.metric(params, oracle)
        return natural_step(params, oracle.gradient(params), metric, self.stepsize, self.lam)


class RandomNG(BlockDiagQNG):
    """Random natural gradient: ``qml.QNGOptimizer`` with F / 2, the classical Fisher after a random unitary.

    Parameters
    ----------
    stepsize : float
        eta, in (0, 10].
    lam : float
        lambda in [0, 10], the metric's regularisation.

    Examples
    --------
    >>> RandomNG(0.05).label
    'Random NG'
    """

    key = "rng"

    def metric(self, params, oracle):
        return oracle.random_fisher_metric(params)


class SurrogateQNG(Optimizer):
    """The paper's optimiser: :func:`hybrid_step` with the weight-k surrogate from one fresh shadow per step.

    Parameters
    ----------
    stepsize : float
        eta, in (0, 10], of the natural-gradient block.
    lam : float
        lambda in [0, 10].
    k : int
        The truncation weight, at least 1 (and at most the circuit's qubits).
    mask : bool
        The support-overlap mask.
    snapshots : int
        T in [2, 10^7], the shadow's size per step.
    active_threshold : float
        In [0, 1): a parameter is active when its truncated generator keeps more than this share of
        its norm (0: nonzero, the abstract's rule).
    gd_stepsize : float, optional
        eta_gd in [0, 10] of the inactive parameters (default: ``stepsize``).

    Examples
    --------
    >>> opt = SurrogateQNG(0.05, k=2, snapshots=500)
    >>> opt.label, opt.k
    ('Surrogate QNG (ours)', 2)
    """

    key = "surrogate"

    def __init__(self, stepsize: float = 0.05, lam: float = 0.01, k: int = 2, mask: bool = True,
                 snapshots: int = 1000, active_threshold: float = 0.5, gd_stepsize: float | None = None):
        super().__init__(stepsize)
        self.active_threshold = check_range("active_threshold", active_threshold, 0.0, 1.0, high_open=True)
        self.lam = check_range("lam", lam, 0.0, 10.0)
        self.k, self.mask = check_range("k", k, 1, 20, integer=True), bool(mask)
        self.snapshots = check_range("snapshots", snapshots, 2, 10**7, integer=True)
        self.gd_stepsize = None if gd_stepsize is None else check_range("gd_stepsize", gd_stepsize, 0.0, 10.0)

    def step(self, params, oracle):
        metric, gens = oracle.surrogate(params, self.k, self.mask, self.snapshots)
        active = gens.active(self.active_threshold)
        self.last = {"active": float(active.mean())}
        return hybrid_step(params, oracle.gradient(params), metric, active, self.stepsize, self.lam, self.gd_stepsize)


def make_optimizer(key: str, **kwargs) -> Optimizer:
    """The optimiser named ``key``, built with ``kwargs``.

    Parameters
    ----------
    key : str
        One of ``sgd``, ``adam``, ``block_qng``, ``rng``, ``surrogate``.
    **kwargs
        The class's arguments (``stepsize``, ``lam``, ...).

    Returns
    -------
    Optimizer
        :class:`SGD`, :class:`Adam`, :class:`BlockDiagQNG`, :class:`RandomNG` or :class:`SurrogateQNG`.

    Examples
    --------
    >>> make_optimizer("adam", stepsize=0.2).label
    'Adam'
    """
    from core.common.config import check_choice

    classes = {"sgd": SGD, "adam": Adam, "block_qng": BlockDiagQNG, "rng": RandomNG, "surrogate": SurrogateQNG}
    return classes[check_choice("optimizer", key, OPTIMIZERS)](**kwargs)
