"""Any PennyLane circuit as a gate list the Pauli propagation can walk (for :func:`~core.quantum_ng.metric.surrogate_metric`).

PennyLane's transforms compose with any circuit; so does the surrogate. A tape (``QuantumScript``) is
read operation by operation:

- a *trainable* operation must be ``RX``, ``RY`` or ``RZ`` (the rotations whose generator is one
  Pauli letter, which is what the propagation pushes); its parameter becomes parameter j of the
  surrogate, in the order of ``tape.trainable_params``, as in ``qml.metric_tensor(tape)``;
- a *fixed* operation is kept if it is ``RX``/``RY``/``RZ`` (with its angle), ``CNOT`` or ``CZ``, and
  otherwise decomposed by ``qml.transforms.decompose`` into those gates (a Hadamard becomes
  RZ RX RZ at pi/2, a SWAP three CNOTs); global phases are dropped, since they change no metric.

Wires are renumbered 0 .. n-1 in the order of ``tape.wires``; the circuit starts in |0...0> (a
state preparation is decomposed like any fixed gate, or refused). The measurements are ignored: the
metric depends on the state only. The output state is simulated (``default.qubit``) from the gate
list itself, so it is the state the propagated generators belong to.

A QNode is the tape it builds for its argument plus the classical Jacobian J of the tape's
trainable parameters with respect to that argument (``qml.gradients.classical_jacobian``); the
metric it gets is J^T g J, as ``qml.metric_tensor`` contracts its own (ours: the mask and the
truncation act on the tape's parameters, before the contraction).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.quantum_ng.ansatz import MAX_QUBITS, ROTATIONS, Gate

ENTANGLING = ("CNOT", "CZ")
GATE_SET = frozenset(ROTATIONS + ENTANGLING + ("GlobalPhase",))


@dataclass
class TapeCircuit:
    """A PennyLane tape as gates: what :func:`~core.quantum_ng.propagation.propagate_generators` needs of an ansatz.

    Attributes
    ----------
    n_qubits : int
        The tape's wires, renumbered 0 .. n-1.
    gates : tuple of Gate
        Trainable rotations (``param`` = index among the trainable parameters), fixed rotations
        (``angle``), CNOTs and CZs, in circuit order.
    n_params : int
        The number of trainable parameters.
    params : ndarray
        Their values, shape (n_params,).
    wires : tuple
        The tape's wire labels; wire ``wires[q]`` is qubit q.
    """

    n_qubits: int
    gates: tuple
    n_params: int
    params: np.ndarray
    wires: tuple

    def state(self) -> np.ndarray:
        """The output statevector of the gate list from |0...0>, wire 0 the most significant bit."""
        import pennylane as qml

        ops = {"RX": qml.RX, "RY": qml.RY, "RZ": qml.RZ, "CNOT": qml.CNOT, "CZ": qml.CZ}
        tape = qml.tape.QuantumScript(
            [ops[g.name](self.params[g.param] if g.param is not None else g.angle, wires=g.wires)
             if g.pauli else ops[g.name](wires=g.wires) for g in self.gates], [qml.state()])
        (state,) = qml.execute([tape], qml.device("default.qubit", wires=self.n_qubits))
        return np.asarray(state, complex)


def _angle(value) -> float:
    import pennylane as qml

    return float(np.asarray(qml.math.unwrap(value)))


def _fixed_gates(op, index: dict, depth: int = 0) -> list[Gate]:
    """A non-trainable operation as fixed rotations, CNOTs and CZs (decomposed by PennyLane if needed)."""
    import pennylane as qml

    if op.name == "GlobalPhase" or op.name == "Identity":
        return []
    if op.name in ROTATIONS:
        return [Gate(op.name, (index[op.wires[0]],), angle=_angle(op.data[0]))]
    if op.name in ENTANGLING:
        return [Gate(op.name, tuple(index[w] for w in op.wires))]
    if depth > 3:
        raise ValueError(f"circuit: {op.name} does not decompose into RX, RY, RZ, CNOT and CZ; "
                         "allowed gates PennyLane decomposes into them")
    try:
        [tape], _ = qml.transforms.decompose(qml.tape.QuantumScript([op]), gate_set=GATE_SET)
    except Exception as error:  # PennyLane raises its own types for gates without a decomposition
        raise ValueError(f"circuit: {op.name} does not decompose into RX, RY, RZ, CNOT and CZ ({error}); "
                         "allowed gates PennyLane decomposes into them") from None
    return [g for sub in tape.operations for g in _fixed_gates(sub, index, depth + 1)]


def tape_circuit(tape) -> TapeCircuit:
    """Read a PennyLane tape as a :class:`TapeCircuit` (see the module docstring for the rules).

    Parameters
    ----------
    tape : pennylane.tape.QuantumScript
        Any circuit on at most 20 wires whose trainable operations are RX, RY or RZ.

    Returns
    -------
    TapeCircuit
        The gates, the trainable parameters' values and the wire order.

    Raises
    ------
    ValueError
        ``circuit: ...`` for a trainable operation other than RX/RY/RZ, a fixed one PennyLane cannot
        decompose into RX, RY, RZ, CNOT and CZ, or too many wires.
    """
    wires = tuple(tape.wires)
    if not 1 <= len(wires) <= MAX_QUBITS:
        raise ValueError(f"circuit: {len(wires)} wires; allowed 1 to {MAX_QUBITS}")
    index = {w: q for q, w in enumerate(wires)}
    trainable = set(tape.trainable_params)
    gates, params, position = [], [], 0
    for op in tape.operations:
        own = range(position, position + op.num_params)
        position += op.num_params
        if not any(i in trainable for i in own):
            gates += _fixed_gates(op, index)
            continue
        if op.name not in ROTATIONS:
            raise ValueError(f"circuit: the trainable operation {op.name} cannot be propagated; "
                             f"allowed trainable {', '.join(ROTATIONS)} (any other gate fixed)")
        gates.append(Gate(op.name, (index[op.wires[0]],), param=len(params)))
        params.append(_angle(op.data[0]))
    return TapeCircuit(n_qubits=len(wires), gates=tuple(gates), n_params=len(params),
                       params=np.asarray(params, float), wires=wires)


def qnode_circuit(qnode, params) -> tuple[TapeCircuit, np.ndarray]:
    """The tape a QNode builds for ``params`` and the classical Jacobian of its trainable parameters.

    Returns (circuit, J) with J of shape (circuit.n_params, len(params)): d(tape parameter) / d(params).
    """
    import pennylane as qml
    from pennylane import numpy as pnp

    arg = pnp.array(np.asarray(params, float), requires_grad=True)
    if arg.ndim != 1:
        raise ValueError(f"params: shape {arg.shape}; allowed a 1-D array, the QNode's one trainable argument")
    tape = qml.workflow.construct_tape(qnode)(arg)
    circuit = tape_circuit(tape)
    jac = np.asarray(qml.gradients.classical_jacobian(qnode)(arg), float).reshape(circuit.n_params, arg.size)
    return circuit, jac
