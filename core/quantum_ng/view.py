"""The surrogate metric at a run's starting point, next to the exact one, computed in stoppable steps.

For one ansatz, seed, weight k, mask and shadow size T, :func:`metric_view`
computes what the page shows under "The surrogate metric", in this order (a Stop keeps what is done):

1. the weight-k propagated generators: the share of each generator's norm the truncation kept, from
   which :meth:`MetricView.active_set` reads the active set at any threshold (one step per gate);
2. the surrogate with exact expectations (:func:`~core.quantum_ng.metric.metric_from_generators`, one
   step per chunk of strings applied to the state);
3. the same surrogate from one classical shadow of T snapshots (one step per batch of snapshots,
   then one for the estimate);
4. the exact metric, QFIM / 4 (one step per generator state);
5. the truncation curve, k = 1 .. min(n, ``curve_k_max``) (one step per gate and per chunk of each
   point, and one per point carrying its error);
6. the bias-variance trade-off at the shadow's T (:mod:`.estimation`): for each k of the curve, the
   squared truncation error (bias^2, from the curve), the one-dataset variance estimate from the same
   shadow (one dataset serves every k), their sum (the MSE) and the concentration bound's variance,
   all relative to ||g||^2, and the k that minimises the MSE (one step per k; a k whose product
   expansion passes :data:`MAX_PRODUCT_PAIRS` ends the curve there).

The starting point is ``ansatz.random_params(seed)``, uniform in [0, 2 pi): :func:`~core.quantum_ng.vqe.run_vqe`'s
start at its default ``init_scale``, so the view describes the metric the optimisers meet first.
The shadow is drawn with ``derive_seed(seed, "shadow")`` (ours: its own stream, not the one that drew
the parameters).

Ours too: the one-shadow estimate expands every pair of strings of overlapping generators into
Pauli products, in one vectorised pass with no progress inside it; past :data:`MAX_PRODUCT_PAIRS`
pairs (large k on long, deep circuits: 54 M pairs take 150 s and 4.4 GB at 16 qubits, 6 layers,
k = 4) it would hold a shared server's core and memory, so it is skipped and
:attr:`MetricView.shadow_skipped` says why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from core.common.config import Config, choice, param
from core.quantum_ng.ansatz import ENTANGLERS, Ansatz
from core.quantum_ng.metric import apply_chunks, covariance, curve_steps, metric_from_generators, truncation_curve
from core.quantum_ng.propagation import PropagatedGenerators, propagate_generators
from core.quantum_ng.shadows import shadow_chunks
from core.quantum_ng.steps import Steps
from core.quantum_ng.vqe import MAX_QUBITS, ROTATION_SETS, VQEConfig

CURVE_K, CURVE_K_LARGE = 8, 4    # the curve's last k; above 12 qubits 4 (each point costs strings x 2^n)
MAX_PRODUCT_PAIRS = 2_000_000   # string pairs the one-shadow estimate may expand (~7 s, ~400 MB measured)
CURVE_KEYS = ("k", "error_masked", "error_unmasked", "error_mask", "active", "strings", "kept_entries")
TRADEOFF_KEYS = ("k", "bias2", "variance", "variance_bound", "mse", "radius")


@dataclass(frozen=True)
class MetricViewConfig(Config):
    """What the metric view depends on: the ansatz, the surrogate's knobs and the curve's extent.

    Examples
    --------
    >>> MetricViewConfig(n_qubits=4, curve_k_max=3).curve_ks
    [1, 2, 3]
    """

    n_qubits: int = param(6, low=2, high=MAX_QUBITS, integer=True, doc="qubits of the ansatz")
    layers: int = param(2, low=1, high=6, integer=True, doc="ansatz layers (rotations + entangler)")
    rotations: str = choice("RY+RZ", tuple(ROTATION_SETS), doc="the rotations on every qubit in each layer")
    entangler: str = choice("brickwork", ENTANGLERS, doc="brickwork: the local ansatz; cnot_chain: the non-local control")
    k: int = param(2, low=1, high=MAX_QUBITS, integer=True, doc="Pauli weight kept by the surrogate")
    mask: bool = choice(True, (True, False), doc="support-overlap mask on the surrogate")
    snapshots: int = param(500, low=2, high=100_000, integer=True, doc="shadow snapshots T")
    curve_k_max: int = param(8, low=1, high=MAX_QUBITS, integer=True, doc="the truncation curve stops here")

    def validate(self) -> None:
        if self.k > self.n_qubits:
            raise ValueError(f"k: {self.k} exceeds the {self.n_qubits} qubits; allowed integers in [1, {self.n_qubits}]")

    @classmethod
    def from_vqe(cls, config: VQEConfig, curve_k_max: int | None = None) -> "MetricViewConfig":
        """The view of a run's starting point: the run's ansatz and surrogate settings (any active threshold).

        The curve stops at ``curve_k_max``, by default :data:`CURVE_K` up to 12 qubits and
        :data:`CURVE_K_LARGE` above.
        """
        if curve_k_max is None:
            curve_k_max = CURVE_K if config.n_qubits <= 12 else CURVE_K_LARGE
        return cls(n_qubits=config.n_qubits, layers=config.layers, rotations=config.rotations,
                   entangler=config.entangler, k=config.k, mask=config.mask, snapshots=config.snapshots,
                   curve_k_max=curve_k_max)

    def ansatz(self) -> Ansatz:
        return Ansatz(self.n_qubits, self.layers, ROTATION_SETS[self.rotations], self.entangler)

    @property
    def curve_ks(self) -> list[int]:
        return list(range(1, min(self.n_qubits, self.curve_k_max) + 1))


@dataclass
class MetricView:
    """The metric view; a field left None (or a shorter curve) was not reached before a Stop.

    Attributes
    ----------
    config : MetricViewConfig
        What it was computed for.
    seed : int
        The seed of the starting point (the shadow uses ``derive_seed(seed, "shadow")``).
    params : ndarray of shape (P,)
        The starting point, ``ansatz.random_params(seed)``.
    retained : ndarray of shape (P,) or None
        The share of each generator's Hilbert-Schmidt norm kept at weight k.
    nonzero : ndarray of bool, shape (P,), or None
        Truncated generator not zero (the abstract's active set).
    strings : int or None
        Pauli strings in the weight-k pool.
    surrogate : ndarray of shape (P, P) or None
        The surrogate with exact expectations.
    shadow : ndarray of shape (P, P) or None
        The surrogate from one shadow of T snapshots.
    shadow_skipped : str or None
        Why the shadow estimate was not computed, if it was not.
    exact : ndarray of shape (P, P) or None
        The exact metric, QFIM / 4.
    curve : dict of arrays
        The :class:`~core.quantum_ng.metric.TruncationCurve`'s columns (``k``, ``error_masked``, ...),
        one entry per finished k.
    tradeoff : dict of arrays
        ``k``, ``bias2``, ``variance``, ``variance_bound``, ``mse``, ``radius`` at the shadow's T.
    stopped : bool
        True when a Stop ended it early.
    seconds : float
        Wall time.

    Examples
    --------
    >>> view = MetricView(config=MetricViewConfig(n_qubits=2, k=1), seed=0, params=np.zeros(4))
    >>> view.best_k is None, view.active_set(0.5) is None
    (True, True)
    """

    config: MetricViewConfig
    seed: int
    params: np.ndarray
    retained: np.ndarray | None = None
    nonzero: np.ndarray | None = None
    strings: int | None = None
    surrogate: np.ndarray | None = None
    shadow: np.ndarray | None = None
    shadow_skipped: str | None = None
    exact: np.ndarray | None = None
    curve: dict = field(default_factory=lambda: {key: np.zeros(0) for key in CURVE_KEYS})
    tradeoff: dict = field(default_factory=lambda: {key: np.zeros(0) for key in TRADEOFF_KEYS})

    @property
    def best_k(self) -> int | None:
        """The k with the smallest MSE (bias^2 + variance) at this T, or None if the trade-off was not reached."""
        mse = self.tradeoff["mse"]
        return int(self.tradeoff["k"][int(np.argmin(mse))]) if len(mse) else None
    stopped: bool = False
    seconds: float = 0.0

    def active_set(self, threshold: float) -> np.ndarray | None:
        """bool [P]: the parameters whose truncated generator keeps more than ``threshold`` of its norm
        (``threshold = 0``: not zero, the abstract's rule), as ``PropagatedGenerators.active``; None if
        the propagation was not reached."""
        if self.retained is None:
            return None
        return self.nonzero.copy() if threshold <= 0 else self.retained > threshold


def product_pairs(gens: PropagatedGenerators, mask: bool) -> int:
    """How many string pairs :func:`~core.quantum_ng.shadows.shadow_metric` expands for these generators."""
    counts = gens.counts().astype(float)
    active = gens.active()
    pairs = np.triu(gens.overlap_mask() if mask else np.outer(active, active))
    return int(counts @ pairs @ counts)


def planned_steps(config: MetricViewConfig) -> int:
    """The progress steps :func:`metric_view` plans for ``config`` before it knows the pools' sizes."""
    ansatz = config.ansatz()
    return (len(ansatz.gates) + 1 + shadow_chunks(config.n_qubits, config.snapshots) + 1 + ansatz.n_params
            + curve_steps(ansatz, config.curve_ks) + len(config.curve_ks))


def metric_view(config: MetricViewConfig | None = None, seed: int = 0, progress=None) -> MetricView:
    """The exact metric, the weight-k surrogate (exact and from one shadow) and the truncation curve.

    Parameters
    ----------
    config : MetricViewConfig, optional
        The ansatz and the surrogate's knobs (default: the page's first view).
    seed : int
        The starting point ``ansatz.random_params(seed)``; the shadow uses ``derive_seed(seed, "shadow")``.
    progress : callable, optional
        ``progress(step, total, metrics)`` after every gate, snapshot batch, generator state and curve
        point (see the module docstring for the order); returning False stops, and the view holds
        what was finished, with ``stopped=True``.

    Returns
    -------
    MetricView
        With g_ij = 1/2 <{G_i, G_j}> - <G_i><G_j> on the weight-k truncated generators (masked to
        overlapping supports if ``mask``) for ``surrogate`` and ``shadow``, and on the exact ones
        for ``exact``; ``curve`` gives ||g_hat - g||_F / ||g||_F against k.

    Examples
    --------
    >>> view = metric_view(MetricViewConfig(n_qubits=3, layers=1, k=2, snapshots=50, curve_k_max=3), seed=0)
    >>> view.curve["k"].tolist(), view.exact.shape, view.stopped
    ([1, 2, 3], (6, 6), False)
    """
    from core.common.seeding import check_seed, derive_seed
    from core.quantum_ng.shadows import acquire_shadow, shadow_metric
    from core.quantum_ng.simulate import final_state, generator_states

    config = config or MetricViewConfig()
    seed = check_seed(seed)
    t0 = time.perf_counter()
    ansatz = config.ansatz()
    view = MetricView(config=config, seed=seed, params=ansatz.random_params(seed))
    steps = Steps(progress, planned_steps(config))

    def finish() -> MetricView:
        view.stopped, view.seconds = steps.stopped, time.perf_counter() - t0
        return view

    gens = propagate_generators(ansatz, view.params, config.k, progress=steps)
    if gens is None:
        return finish()
    view.retained, view.nonzero = gens.retained(), gens.active(0.0)
    view.strings = len(gens.terms)
    state = final_state(ansatz, view.params)
    steps.grow(apply_chunks(view.strings, config.n_qubits) - 1)
    view.surrogate = metric_from_generators(gens, state, config.mask, progress=steps)
    if steps.stopped:
        return finish()

    size = product_pairs(gens, config.mask)
    if size > MAX_PRODUCT_PAIRS:
        view.shadow_skipped = (f"the one-shadow estimate would expand {size:,} pairs of Pauli strings (more than "
                               f"{MAX_PRODUCT_PAIRS:,}); lower k or the number of layers to see it")
        steps.grow(-(shadow_chunks(config.n_qubits, config.snapshots) + 1))
    else:
        shadow = acquire_shadow(ansatz, view.params, config.snapshots, seed=derive_seed(seed, "shadow"),
                                progress=steps)
        if steps.stopped:
            return finish()
        view.shadow = shadow_metric(gens, shadow, mask=config.mask)
        if not steps():
            return finish()
    if view.shadow is None:
        steps.grow(-len(config.curve_ks))

    phi = generator_states(ansatz, view.params, progress=steps)
    if steps.stopped:
        return finish()
    view.exact = covariance(phi, state)

    curve = truncation_curve(ansatz, view.params, config.curve_ks, view.exact, progress=steps)
    view.curve = {key: np.asarray(getattr(curve, key)) for key in CURVE_KEYS}
    if len(view.curve["k"]) < len(config.curve_ks):
        return finish()
    if view.shadow is not None:
        view.tradeoff = tradeoff(view, gens_at=lambda k: propagate_generators(ansatz, view.params, k),
                                 shadow=shadow, steps=steps)
    steps.stopped = steps.stopped and len(view.tradeoff["k"]) < len(view.curve["k"])  # a Stop at the last step ends it
    return finish()


def tradeoff(view: MetricView, gens_at, shadow, steps) -> dict:
    """Bias^2 (the curve's squared error), the one-dataset variance and the MSE for each k of the curve."""
    from core.quantum_ng.estimation import variance_point

    norm2 = float(np.sum(view.exact ** 2))
    errors = view.curve["error_masked" if view.config.mask else "error_unmasked"]
    rows = {key: [] for key in TRADEOFF_KEYS}
    for k, error in zip(view.curve["k"], errors):
        gens = gens_at(int(k))
        if product_pairs(gens, view.config.mask) > MAX_PRODUCT_PAIRS:
            break
        point = variance_point(gens, shadow, norm2, view.config.mask)
        rows["k"].append(int(k))
        rows["bias2"].append(float(error) ** 2)
        rows["mse"].append(float(error) ** 2 + point["variance"])
        for key in ("variance", "variance_bound", "radius"):
            rows[key].append(point[key])
        if not steps(metrics={"MSE": rows["mse"][-1]}):
            break
    return {key: np.asarray(v, dtype=int if key == "k" else float) for key, v in rows.items()}
