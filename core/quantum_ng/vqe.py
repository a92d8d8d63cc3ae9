"""VQE on a spin chain with every optimiser on the same shot budget, stepped side by side.

All optimisers start from the same random parameters (uniform in [0, init_scale), from ``seed``)
and each has its own shot stream and accountant. The run is interleaved in shot space: the next
step always goes to the optimiser that has spent the fewest shots so far, so a live view shows all
curves advancing together and a Stop leaves them at comparable budgets. An optimiser stops once it
has spent ``budget`` shots (its last step may overshoot; the recorded shots are what it spent).

Reported at every step: the cumulative executions and shots, and the exact energy of the current
parameters (noise-free, not charged). The energy error is E - E0 with E0 the exact ground energy.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from core.common.config import Config, check_choice, choice, param
from core.common.progress import report
from core.quantum_ng.ansatz import ENTANGLERS, Ansatz
from core.quantum_ng.hamiltonians import MODELS, Chain
from core.quantum_ng.optimizers import LABELS, OPTIMIZERS, Optimizer, make_optimizer

ROTATION_SETS = {"RY": ("RY",), "RY+RZ": ("RY", "RZ"), "RX+RY": ("RX", "RY"), "RX+RY+RZ": ("RX", "RY", "RZ")}
MAX_QUBITS = 16


@dataclass(frozen=True)
class VQEConfig(Config):
    """One VQE comparison: the chain, the ansatz, the surrogate's knobs, the shots and the optimisers.

    Every field but ``optimizers`` is a validated ``param``/``choice`` (its doc says what it is).

    Attributes
    ----------
    optimizers : tuple of str
        The optimisers compared, a non-empty subset of ``sgd``, ``adam``, ``block_qng``, ``rng``,
        ``surrogate`` without repeats.

    Examples
    --------
    >>> cfg = VQEConfig(n_qubits=4, k=2)
    >>> cfg.ansatz().n_params, cfg.chain.model
    (16, 'heisenberg')
    """

    model: str = choice("heisenberg", MODELS, doc="the spin chain: heisenberg, xxz or tfim")
    n_qubits: int = param(6, low=2, high=MAX_QUBITS, integer=True, doc="sites of the chain, one qubit each")
    periodic: bool = choice(False, (False, True), doc="close the chain")
    layers: int = param(2, low=1, high=6, integer=True, doc="ansatz layers (rotations + entangler)")
    rotations: str = choice("RY+RZ", tuple(ROTATION_SETS), doc="the rotations on every qubit in each layer")
    entangler: str = choice("brickwork", ENTANGLERS, doc="brickwork: the local ansatz; cnot_chain: the non-local control")
    k: int = param(2, low=1, high=MAX_QUBITS, integer=True, doc="Pauli weight kept by the surrogate")
    mask: bool = choice(True, (True, False), doc="support-overlap mask on the surrogate")
    active_threshold: float = param(0.5, low=0.0, high=1.0, high_open=True,
                                    doc="share of a generator's norm its truncation must keep to be active (0: nonzero)")
    shots: int = param(100, low=1, high=100_000, integer=True, doc="shots per circuit and measurement group")
    snapshots: int = param(500, low=2, high=100_000, integer=True, doc="shadow snapshots per surrogate step")
    budget: int = param(1_000_000, low=1_000, high=10**10, integer=True, doc="shots each optimiser may spend")
    sgd_stepsize: float = param(0.2, low=0.0, high=10.0, low_open=True,
                                doc="SGD's step, also the surrogate's on its inactive parameters")
    adam_stepsize: float = param(0.2, low=0.0, high=10.0, low_open=True, doc="Adam's step")
    qng_stepsize: float = param(0.05, low=0.0, high=10.0, low_open=True, doc="for block QNG, RNG and the surrogate")
    lam: float = param(0.05, low=0.0, high=10.0, doc="metric regularisation lambda")
    init_scale: float = param(2 * math.pi, low=0.0, high=2 * math.pi, doc="initial parameters in [0, init_scale)")
    optimizers: tuple = OPTIMIZERS

    def validate(self) -> None:
        if self.k > self.n_qubits:
            raise ValueError(f"k: {self.k} exceeds the {self.n_qubits} qubits; allowed integers in [1, {self.n_qubits}]")
        if self.periodic and self.n_qubits < 3:
            raise ValueError(f"periodic: a closed chain needs 3 or more qubits, got {self.n_qubits}; allowed False")
        if not self.optimizers:
            raise ValueError(f"optimizers: empty; allowed a non-empty subset of {', '.join(OPTIMIZERS)}")
        for key in self.optimizers:
            check_choice("optimizers", key, OPTIMIZERS)
        if len(set(self.optimizers)) != len(self.optimizers):
            raise ValueError(f"optimizers: {self.optimizers} repeats a name; allowed each of {', '.join(OPTIMIZERS)} once")

    @property
    def chain(self) -> Chain:
        return Chain(model=self.model, n_qubits=self.n_qubits, periodic=self.periodic)

    def ansatz(self) -> Ansatz:
        return Ansatz(self.n_qubits, self.layers, ROTATION_SETS[self.rotations], self.entangler)

    def start(self, seed: int) -> np.ndarray:
        """The starting parameters every optimiser of a run with ``seed`` shares."""
        ansatz = self.ansatz()
        return ansatz.random_params(seed, scale=self.init_scale) if self.init_scale > 0 else np.zeros(ansatz.n_params)

    def optimizer(self, key: str) -> Optimizer:
        if key == "sgd":
            return make_optimizer(key, stepsize=self.sgd_stepsize)
        if key == "adam":
            return make_optimizer(key, stepsize=self.adam_stepsize)
        if key == "surrogate":
            return make_optimizer(key, stepsize=self.qng_stepsize, lam=self.lam, k=self.k, mask=self.mask,
                                  snapshots=self.snapshots, active_threshold=self.active_threshold,
                                  gd_stepsize=self.sgd_stepsize)
        return make_optimizer(key, stepsize=self.qng_stepsize, lam=self.lam)


@dataclass
class Trace:
    """One optimiser's run: entry 0 is the starting point, entry t the point after step t.

    Attributes
    ----------
    optimizer : str
        Its key (``sgd``, ``adam``, ``block_qng``, ``rng``, ``surrogate``).
    shots : ndarray of int64
        Cumulative shots after each step.
    executions : ndarray of int64
        Cumulative circuit executions.
    energy : ndarray
        The exact (noise-free) energy of the parameters after each step.
    error : ndarray
        energy - E0.
    active : ndarray
        For the surrogate, the share of parameters in the active set at each step; NaN for the others.
    params : ndarray
        The final parameters.
    shots_per_step : int
        The planned shots of one step.
    steps_planned : int
        ceil(budget / shots_per_step).
    seconds : float
        Wall time spent in its steps.

    Examples
    --------
    >>> t = Trace("sgd", np.array([0, 100, 200]), np.array([0, 1, 2]), np.array([0.0, -1.0, -2.0]),
    ...           np.array([3.0, 2.0, 1.0]), np.full(3, np.nan), np.zeros(2), 100, 2, 0.1)
    >>> t.steps, t.error_at(150)
    (2, 2.0)
    """

    optimizer: str
    shots: np.ndarray
    executions: np.ndarray
    energy: np.ndarray
    error: np.ndarray
    active: np.ndarray
    params: np.ndarray
    shots_per_step: int
    steps_planned: int
    seconds: float

    @property
    def steps(self) -> int:
        return int(self.shots.size - 1)

    def error_at(self, shots: float) -> float:
        """The error after the last step that had spent at most ``shots``."""
        return float(self.error[np.searchsorted(self.shots, shots, side="right") - 1])


@dataclass
class VQEResult:
    """Every optimiser's trace on one problem, start and budget (what :func:`run_vqe` returns).

    Attributes
    ----------
    config : VQEConfig
        The comparison's settings.
    seed : int
        The seed of the start and of every shot stream.
    ground_energy : float
        E0, the exact ground energy.
    initial_energy : float
        The exact energy at the common start.
    initial_params : ndarray
        The common start.
    traces : dict
        Optimiser key -> :class:`Trace`.
    seconds : float
        Wall time of the run.
    stopped : bool
        True when the progress callback stopped the run before every budget was spent.

    Examples
    --------
    >>> result = VQEResult(VQEConfig(), 0, -1.0, 0.5, np.zeros(24), {}, 0.0)
    >>> result.final_errors()
    {}
    """

    config: VQEConfig
    seed: int
    ground_energy: float
    initial_energy: float
    initial_params: np.ndarray
    traces: dict
    seconds: float
    stopped: bool = False

    def final_errors(self) -> dict:
        """Optimiser key -> its energy error after its last step."""
        return {k: float(t.error[-1]) for k, t in self.traces.items()}

    def errors_at(self, shots: float) -> dict:
        """Optimiser key -> its error after the last step within ``shots``."""
        return {k: t.error_at(shots) for k, t in self.traces.items()}

    def to_frame(self):
        """One row per optimiser and step (shots, executions, energy, error, active share), as pandas."""
        import pandas as pd

        rows = [{"optimizer": k, "step": i, "shots": int(t.shots[i]), "executions": int(t.executions[i]),
                 "energy": float(t.energy[i]), "error": float(t.error[i]), "active_fraction": float(t.active[i])}
                for k, t in self.traces.items() for i in range(t.shots.size)]
        return pd.DataFrame(rows)


def run_vqe(config: VQEConfig | None = None, seed: int = 0, progress=None) -> VQEResult:
    """Run every optimiser in ``config.optimizers`` on the same chain, ansatz, start and shot budget.

    Parameters
    ----------
    config : VQEConfig, optional
        The problem, the optimisers and the budget (default: ``VQEConfig()``).
    seed : int
        Fixes the starting parameters and every optimiser's shot stream (children of ``seed``).
    progress : callable, optional
        Called after every optimiser step as ``progress(step, total, {"log10 error · <optimiser>": ...})``
        with ``total`` the planned steps of all optimisers together; returning False stops the run,
        which returns the traces so far with ``stopped=True``.

    Returns
    -------
    VQEResult
        One :class:`Trace` per optimiser, the exact ground energy E0 (shipped for the page's chains,
        see :mod:`.hamiltonians`) and the starting energy.

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026, ``docs/PAPERS.md``):
       "improved convergence per cumulative shot relative to SGD, Adam, block-diagonal QNG, and RNG".

    Examples
    --------
    >>> cfg = VQEConfig(n_qubits=2, layers=1, shots=10, snapshots=20, budget=1000, optimizers=("sgd", "surrogate"))
    >>> result = run_vqe(cfg, seed=0)
    >>> sorted(result.traces), all(t.shots[-1] >= 1000 for t in result.traces.values())
    (['sgd', 'surrogate'], True)
    """
    from core.common.seeding import check_seed, derive_seed
    from core.quantum_ng.measurements import ShotOracle

    config = config or VQEConfig()
    seed = check_seed(seed)
    t_start = time.perf_counter()
    chain, ansatz = config.chain, config.ansatz()
    hamiltonian = chain.hamiltonian()
    e0 = chain.ground_energy()
    theta0 = config.start(seed)

    runs = []
    for i, key in enumerate(config.optimizers):
        oracle = ShotOracle(ansatz, hamiltonian, config.shots, seed=derive_seed(seed, i))
        costs = oracle.planned_costs(config.snapshots)
        extra = {"block_qng": "block_diag", "rng": "random_fisher", "surrogate": "shadow"}.get(key)
        per_step = costs["gradient"][1] + (costs[extra][1] if extra else 0)
        runs.append({"key": key, "opt": config.optimizer(key), "oracle": oracle, "params": theta0.copy(),
                     "per_step": per_step, "planned": max(1, math.ceil(config.budget / per_step)),
                     "shots": [0], "executions": [0], "energy": [oracle.energy(theta0)], "active": [np.nan],
                     "seconds": 0.0})
    e_init = runs[0]["energy"][0]
    total = sum(r["planned"] for r in runs)
    tick, stopped = 0, False
    while True:
        pending = [r for r in runs if r["oracle"].accountant.shots < config.budget]
        if not pending:
            break
        run = min(pending, key=lambda r: r["oracle"].accountant.shots)
        t0 = time.perf_counter()
        run["params"] = run["opt"].step(run["params"], run["oracle"])
        run["seconds"] += time.perf_counter() - t0
        acc = run["oracle"].accountant
        energy = run["oracle"].energy(run["params"])
        run["shots"].append(acc.shots)
        run["executions"].append(acc.executions)
        run["energy"].append(energy)
        run["active"].append(run["opt"].last.get("active", np.nan))
        tick += 1
        error = max(energy - e0, 1e-12)
        if not report(progress, tick, total, {f"log10 error · {LABELS[run['key']]}": math.log10(error)}):
            stopped = any(r["oracle"].accountant.shots < config.budget for r in runs)  # a Stop on the last step ends it
            break

    traces = {r["key"]: Trace(optimizer=r["key"], shots=np.asarray(r["shots"], np.int64),
                              executions=np.asarray(r["executions"], np.int64), energy=np.asarray(r["energy"]),
                              error=np.asarray(r["energy"]) - e0, active=np.asarray(r["active"], float),
                              params=r["params"], shots_per_step=int(r["per_step"]), steps_planned=int(r["planned"]),
                              seconds=float(r["seconds"]))
              for r in runs}
    return VQEResult(config=config, seed=seed, ground_energy=float(e0), initial_energy=float(e_init),
                     initial_params=theta0, traces=traces, seconds=time.perf_counter() - t_start, stopped=stopped)
