"""What an optimiser may ask of the quantum computer, simulated by PennyLane and charged to its accountant.

A :class:`ShotOracle` holds one problem (ansatz + Hamiltonian), a shot setting and its own random
stream. Every estimate it returns was sampled by PennyLane with ``shots`` per circuit (per
measurement group), and its executions and shots go to ``oracle.accountant``:

- ``gradient``: the parameter-shift rule (PennyLane's two-term rule for Pauli rotations,
  ``qml.gradients.generate_shift_rule``), all 2P shifted circuits as one broadcast batch;
- ``block_diag_metric``: ``qml.metric_tensor(qnode, approx="block-diag")`` on the shot qnode, one
  circuit per parameterised layer;
- ``random_fisher_metric`` (RNG, Kolotouros & Wallden): after a fresh random unitary, the classical
  Fisher information F_ij = sum_x d_i p_x d_j p_x / p_x of the measured distribution, with p and its
  parameter-shift derivatives estimated from 2P + 1 shot circuits (outcomes never seen are left out,
  as ``qml.gradients.classical_fisher`` does). The metric returned is F / 2: for a *global*
  Haar-random unitary, E_U[F] = QFIM / 2 = 2g (Lu & Sha), so F / 2 is unbiased for the metric in
  ``metric_tensor``'s convention (a test checks the average against the exact metric). Our choice:
  the unitary is global Haar (``scipy.stats.unitary_group`` on all wires) up to
  :data:`GLOBAL_HAAR_UP_TO` qubits; above that a 2^n x 2^n Haar matrix is out of reach (68 GB at
  16 qubits) and we fall back to a product of single-qubit Haar gates, for which F / 2 is *not*
  unbiased (averaged over 400 draws it is 18 % off the metric in Frobenius norm at 4 qubits; no
  scalar fixes it, since the local average depends on the state): results above 10 qubits say so;
- ``surrogate``: the truncated generators (classical work) and one shadow dataset of T snapshots.

``shots=None`` is the noise-free mode (exact gradient by adjoint differentiation, exact metrics,
exact probabilities), charged nothing; tests use it to compare optimisers step for step.

Devices: ``default.qubit`` with parameter broadcasting up to 12 qubits (one simulation for a whole
batch, ~10x faster than separate tapes here), ``lightning.qubit`` above (PennyLane expands the batch;
default.qubit's broadcast statevectors outgrow memory bandwidth at 16 qubits). Both sample shots
the same way. Each call gets a device seeded from the oracle's stream, so a seed fixes everything.
"""

from __future__ import annotations

import numpy as np
import pennylane as qml
from pennylane import numpy as pnp

from core.common.config import check_range
from core.common.seeding import make_rng
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.shots import ShotAccountant

BROADCAST_UP_TO = 12
GLOBAL_HAAR_UP_TO = 10   # RNG's random unitary is global Haar up to here, local Haar gates above


class ShotOracle:
    """The quantum computer as an optimiser sees it: shot-noisy estimates, each charged to ``accountant``.

    Parameters
    ----------
    ansatz : Ansatz
        The circuit.
    hamiltonian : pennylane.operation.Operator
        The energy to minimise (measured in qubit-wise-commuting groups).
    shots : int or None
        Shots per circuit and measurement group, in [1, 10^7]; None is the noise-free mode, charged
        nothing.
    seed : int
        Seeds every device and random unitary this oracle draws.

    Examples
    --------
    >>> from core.quantum_ng import Ansatz, Chain, ShotOracle
    >>> oracle = ShotOracle(Ansatz(2, 1), Chain(n_qubits=2).hamiltonian(), shots=100, seed=0)
    >>> oracle.gradient(np.zeros(4)).shape, oracle.accountant.shots    # 2P circuits x 3 groups x 100
    ((4,), 2400)
    """

    def __init__(self, ansatz: Ansatz, hamiltonian, shots: int | None, seed: int = 0):
        self.ansatz, self.hamiltonian = ansatz, hamiltonian
        self.shots = None if shots is None else check_range("shots", shots, 1, 10**7, integer=True)
        self.rng = make_rng(seed)
        self.accountant = ShotAccountant()
        rule = qml.gradients.generate_shift_rule((1,))  # rows: (coefficient, shift)
        self._coeffs, self._shifts = rule[:, 0], rule[:, 1]

    # ------------------------------------------------------------------ devices and qnodes
    def _device(self):
        n = self.ansatz.n_qubits
        name = "default.qubit" if n <= BROADCAST_UP_TO else "lightning.qubit"
        return qml.device(name, wires=n, seed=int(self.rng.integers(2**31)))

    def _qnode(self, dev, measure, **kwargs):
        ansatz = self.ansatz

        @qml.qnode(dev, **kwargs)
        def circuit(p, unitaries=None):
            ansatz.apply(p)
            if unitaries is not None:
                if len(unitaries) == 1 and ansatz.n_qubits > 1:   # one global unitary on every wire
                    qml.QubitUnitary(unitaries[0], wires=range(ansatz.n_qubits))
                else:
                    for q, u in enumerate(unitaries):
                        qml.QubitUnitary(u, wires=q)
            return measure()

        return qml.set_shots(circuit, self.shots) if self.shots is not None else circuit

    def _run(self, kind: str, fn, dev):
        with qml.Tracker(dev) as tracker:
            out = fn()
        if self.shots is not None:
            self.accountant.charge_tracker(kind, tracker)
        return out

    # ------------------------------------------------------------------ estimates
    def shifted(self, params) -> np.ndarray:
        """[len(rule) * P, P]: the parameter vectors of the shift rule, shift by shift."""
        params = np.asarray(params, float)
        eye = np.eye(params.size)
        return np.concatenate([params + s * eye for s in self._shifts])

    def _combine(self, values: np.ndarray, P: int) -> np.ndarray:
        return sum(c * values[i * P:(i + 1) * P] for i, c in enumerate(self._coeffs))

    def gradient(self, params) -> np.ndarray:
        params = np.asarray(params, float)
        if self.shots is None:
            from core.quantum_ng.simulate import energy_and_gradient

            return energy_and_gradient(self.ansatz, self.hamiltonian, params)[1]
        dev = self._device()
        H = self.hamiltonian
        cost = self._qnode(dev, lambda: qml.expval(H), diff_method=None)
        energies = self._run("gradient", lambda: np.asarray(cost(self.shifted(params))), dev)
        return self._combine(energies, params.size)

    def block_diag_metric(self, params) -> np.ndarray:
        dev = self._device() if self.shots is not None else qml.device("default.qubit", wires=self.ansatz.n_qubits)
        wires = range(self.ansatz.n_qubits)
        cost = self._qnode(dev, lambda: qml.expval(qml.PauliZ(wires[0])), diff_method="parameter-shift")
        p = pnp.array(np.asarray(params, float), requires_grad=True)
        return np.asarray(self._run("metric", lambda: qml.metric_tensor(cost, approx="block-diag")(p), dev))

    def random_unitaries(self, global_haar: bool | None = None) -> list:
        """RNG's random measurement basis: [U] (one global Haar unitary) or [U_0, ..., U_{n-1}] (local ones).

        ``global_haar=None`` picks global up to :data:`GLOBAL_HAAR_UP_TO` qubits (see the module docstring).
        """
        from scipy.stats import unitary_group

        n = self.ansatz.n_qubits
        if global_haar is None:
            global_haar = n <= GLOBAL_HAAR_UP_TO
        if global_haar:
            return [unitary_group.rvs(2 ** n, random_state=self.rng)]
        return [unitary_group.rvs(2, random_state=self.rng) for _ in range(n)]

    def random_fisher_metric(self, params, global_haar: bool | None = None) -> np.ndarray:
        n, params = self.ansatz.n_qubits, np.asarray(params, float)
        unitaries = self.random_unitaries(global_haar)
        dev = self._device() if self.shots is not None else qml.device("default.qubit", wires=n)
        probs_qnode = self._qnode(dev, lambda: qml.probs(wires=range(n)), diff_method=None)
        batch = np.concatenate([params[None, :], self.shifted(params)])
        probs = self._run("metric", lambda: np.asarray(probs_qnode(batch, unitaries)), dev)
        p, dp = probs[0], self._combine(probs[1:], params.size)
        seen = p > 0
        fisher = (dp[:, seen] / p[seen]) @ dp[:, seen].T
        return 0.5 * fisher

    def surrogate(self, params, k: int, mask: bool, snapshots: int):
        """(metric, generators): the surrogate from one fresh shadow of ``snapshots`` snapshots."""
        from core.quantum_ng.metric import metric_from_generators
        from core.quantum_ng.propagation import propagate_generators
        from core.quantum_ng.shadows import acquire_shadow, shadow_metric
        from core.quantum_ng.simulate import final_state

        gens = propagate_generators(self.ansatz, params, k)
        if self.shots is None:
            return metric_from_generators(gens, final_state(self.ansatz, params), mask), gens
        shadow = acquire_shadow(self.ansatz, params, snapshots, seed=int(self.rng.integers(2**31)))
        self.accountant.charge("metric", shadow.snapshots, shadow.snapshots)
        return shadow_metric(gens, shadow, mask=mask), gens

    def energy(self, params) -> float:
        """The exact energy (for reporting; never charged)."""
        from core.quantum_ng.simulate import energy

        return energy(self.ansatz, self.hamiltonian, params)

    # ------------------------------------------------------------------ planning
    def planned_costs(self, snapshots: int) -> dict:
        """(executions, shots) per call of each estimate, from PennyLane's own counting rules."""
        from pennylane.devices.qubit.sampling import get_num_shots_and_executions

        if self.shots is None:
            return {kind: (0, 0) for kind in ("gradient", "block_diag", "random_fisher", "shadow")}
        P, S = self.ansatz.n_params, self.shots
        tape = qml.tape.QuantumScript([], [qml.expval(self.hamiltonian)], shots=S)
        groups, _ = get_num_shots_and_executions(tape)
        p = pnp.array(np.zeros(P), requires_grad=True)
        dev = qml.device("default.qubit", wires=self.ansatz.n_qubits)
        cost = self._qnode(dev, lambda: qml.expval(qml.PauliZ(0)), diff_method="parameter-shift")
        blocks = len(qml.metric_tensor(qml.workflow.construct_tape(cost)(p), approx="block-diag")[0])
        n_shift = len(self._shifts) * P
        return {"gradient": (n_shift * groups, n_shift * groups * S), "block_diag": (blocks, blocks * S),
                "random_fisher": (n_shift + 1, (n_shift + 1) * S), "shadow": (snapshots, snapshots)}
