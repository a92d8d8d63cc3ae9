"""Noise-free simulation through PennyLane: output states, generator-inserted states, exact energies.

Everything here is exact (no shots) and is never charged to a shot budget: it is the reference the
surrogate is compared with, and the "true energy" a run reports at each step. ``lightning.qubit``
does the work at every size. A lightning device keeps its statevector between executions, so
devices are cached per (name, wires, thread): a live page's worker thread never shares one.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np
import pennylane as qml

from core.quantum_ng.ansatz import Ansatz

_PAULI = {"X": qml.PauliX, "Y": qml.PauliY, "Z": qml.PauliZ}


def device(name: str, wires: int):
    return _device(name, wires, threading.get_ident())


@lru_cache(maxsize=32)
def _device(name: str, wires: int, thread: int):
    return qml.device(name, wires=wires)


def check_params(ansatz: Ansatz, params) -> np.ndarray:
    """``params`` as a float vector of the ansatz's length, or ``ValueError("params: ...")``."""
    params = np.asarray(params, dtype=float)
    if params.shape != (ansatz.n_params,):
        raise ValueError(f"params: shape {params.shape}; allowed ({ansatz.n_params},)")
    if not np.all(np.isfinite(params)):
        raise ValueError("params: not finite; allowed finite angles")
    return params


def final_state(ansatz: Ansatz, params) -> np.ndarray:
    """The output statevector, length 2^n, wire 0 the most significant bit."""
    params = check_params(ansatz, params)
    @qml.qnode(device("lightning.qubit", ansatz.n_qubits), diff_method=None)
    def circuit(p):
        ansatz.apply(p)
        return qml.state()

    return np.asarray(circuit(params))


def generator_states(ansatz: Ansatz, params, progress=None) -> np.ndarray:
    """[P, 2^n]: G_j |psi> = V_{>j} (P_j / 2) U_j V_{<j} |0>, the exact (untruncated) propagated generators.

    Parameters
    ----------
    ansatz : Ansatz
    params : array of shape (P,)
    progress : callable, optional
        Called as ``progress(j + 1, P, {})`` after each state; returning False stops, and the rows
        computed so far are returned (fewer than P).

    Returns
    -------
    ndarray of shape (P, 2^n), or (J, 2^n) with J < P when stopped
    """
    from core.common.progress import report

    params = check_params(ansatz, params)
    gates = ansatz.gates
    position = {g.param: i for i, g in enumerate(gates) if g.param is not None}

    @qml.qnode(device("lightning.qubit", ansatz.n_qubits), diff_method=None)
    def inserted(p, after: int):
        ops = {"RX": qml.RX, "RY": qml.RY, "RZ": qml.RZ, "CNOT": qml.CNOT, "CZ": qml.CZ}
        for i, g in enumerate(gates):
            if g.param is None:
                ops[g.name](wires=g.wires)
            else:
                ops[g.name](p[g.param], wires=g.wires[0])
            if i == after:
                _PAULI[g.pauli](g.wires[0])
        return qml.state()

    rows = []
    for j in range(ansatz.n_params):
        rows.append(0.5 * np.asarray(inserted(params, position[j])))
        if not report(progress, j + 1, ansatz.n_params):
            break
    return np.stack(rows) if rows else np.zeros((0, 1 << ansatz.n_qubits), complex)


def energy(ansatz: Ansatz, hamiltonian, params) -> float:
    """<psi(params)| H |psi(params)> exactly."""
    return float(_energy_qnode(ansatz, hamiltonian)(np.asarray(params, float)))


_QNODES: dict = {}


def _energy_qnode(ansatz: Ansatz, hamiltonian):
    key = (repr(ansatz), id(hamiltonian), threading.get_ident())
    if key not in _QNODES:
        if len(_QNODES) > 16:
            _QNODES.clear()

        @qml.qnode(device("lightning.qubit", ansatz.n_qubits), diff_method="adjoint")
        def cost(p):
            ansatz.apply(p)
            return qml.expval(hamiltonian)

        _QNODES[key] = (cost, hamiltonian)  # keep H alive so its id stays unique
    return _QNODES[key][0]


def energy_and_gradient(ansatz: Ansatz, hamiltonian, params) -> tuple[float, np.ndarray]:
    """The exact energy and its exact gradient (adjoint differentiation), for the noise-free mode."""
    from pennylane import numpy as pnp

    cost = _energy_qnode(ansatz, hamiltonian)
    p = pnp.array(np.asarray(params, float), requires_grad=True)
    grad = qml.grad(cost)(p)
    return float(cost(p)), np.asarray(grad, float)
