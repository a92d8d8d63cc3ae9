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
    """One ``qml.QNGOptimizer`` step with a given metric and gradient: params - eta pinv(g + lam I) grad."""
    import pennylane as qml

    opt = qml.QNGOptimizer(stepsize=stepsize, lam=lam)
    opt.metric_tensor = np.asarray(metric, float) + lam * np.eye(len(grad))
    (new,) = opt.apply_grad((np.asarray(grad, float),), (_trainable(params),))
    return np.asarray(new, float)


def psd(matrix: np.ndarray) -> np.ndarray:
    """The nearest positive semi-definite matrix in Frobenius norm (eigenvalues clipped at zero)."""
    sym = 0.5 * (matrix + matrix.T)
    w, v = np.linalg.eigh(sym)
    return (v * np.clip(w, 0.0, None)) @ v.T


def hybrid_step(params, grad, metric, active, stepsize: float, lam: float, gd_stepsize: float | None = None):
    """The surrogate's update: natural gradient on the active set, gradient descent on the rest."""
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
    key = "rng"

    def metric(self, params, oracle):
        return oracle.random_fisher_metric(params)


class SurrogateQNG(Optimizer):
    key = "surrogate"

    def __init__(self, stepsize: float = 0.05, lam: float = 0.01, k: int = 2, mask: bool = True,
                 snapshots: int = 1000, active_threshold: float = 0.5, gd_stepsize: float | None = None):
        super().__init__(stepsize)
        self.active_threshold = check_range("active_threshold", active_threshold, 0.0, 1.0, high_open=True)
        self.lam = check_range("lam", lam, 0.0, 10.0)
        self.k, self.mask = int(k), bool(mask)
        self.snapshots = check_range("snapshots", snapshots, 2, 10**7, integer=True)
        self.gd_stepsize = None if gd_stepsize is None else check_range("gd_stepsize", gd_stepsize, 0.0, 10.0)

    def step(self, params, oracle):
        metric, gens = oracle.surrogate(params, self.k, self.mask, self.snapshots)
        active = gens.active(self.active_threshold)
        self.last = {"active": float(active.mean())}
        return hybrid_step(params, oracle.gradient(params), metric, active, self.stepsize, self.lam, self.gd_stepsize)


def make_optimizer(key: str, **kwargs) -> Optimizer:
    from core.common.config import check_choice

    classes = {"sgd": SGD, "adam": Adam, "block_qng": BlockDiagQNG, "rng": RandomNG, "surrogate": SurrogateQNG}
    return classes[check_choice("optimizer", key, OPTIMIZERS)](**kwargs)
