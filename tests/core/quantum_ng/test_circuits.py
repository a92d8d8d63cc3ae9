"""surrogate_metric on any PennyLane circuit (QNode or tape), against qml.metric_tensor."""

import numpy as np
import pennylane as qml
import pytest
from pennylane import numpy as pnp

from core.quantum_ng import Ansatz, surrogate_metric

N = 4


def _body(x):
    # not an Ansatz: fixed Clifford and non-Clifford gates, a SWAP, reused and scaled parameters
    qml.Hadamard(0)
    qml.RY(x[0], wires=0)
    qml.CNOT(wires=[0, 1])
    qml.RX(2 * x[1], wires=1)
    qml.SWAP(wires=[1, 2])
    qml.RZ(x[0], wires=2)
    qml.S(wires=2)
    qml.RY(x[2], wires=2)
    qml.CZ(wires=[2, 3])
    qml.RX(0.3, wires=3)
    qml.RY(x[1] - x[2], wires=3)
    qml.CNOT(wires=[3, 0])
    qml.RX(x[2], wires=0)


@qml.qnode(qml.device("default.qubit", wires=N + 1))   # a spare wire for metric_tensor's exact mode
def circuit(x):
    _body(x)
    return qml.expval(qml.Z(1))


X = pnp.array([0.4, 0.3, 1.1], requires_grad=True)


def test_qnode_surrogate_at_full_weight_is_pennylanes_metric_tensor():
    reference = np.asarray(qml.metric_tensor(circuit, approx=None)(X))
    full = surrogate_metric(circuit, X, k=N, mask=False)
    np.testing.assert_allclose(full, reference, atol=1e-10)
    # control: the weight-1 surrogate is a different matrix on this entangling circuit
    truncated = surrogate_metric(circuit, X, k=1, mask=False)
    assert np.linalg.norm(truncated - reference) > 0.1 * np.linalg.norm(reference)


def test_tape_surrogate_is_metric_tensor_of_the_tape():
    tape = qml.workflow.construct_tape(circuit)(X)
    tapes, post = qml.metric_tensor(tape, approx=None, aux_wire=N)
    reference = np.asarray(post(qml.execute(tapes, qml.device("default.qubit", wires=N + 1))))
    np.testing.assert_allclose(surrogate_metric(tape, None, k=N, mask=False), reference, atol=1e-10)
    # new parameters for the tape's trainable ones
    values = np.linspace(0.1, 0.6, len(tape.trainable_params))
    moved = surrogate_metric(tape, values, k=N, mask=False)
    assert moved.shape == reference.shape and not np.allclose(moved, reference)


def test_a_qnode_of_an_ansatz_gets_the_ansatz_surrogate():
    ansatz = Ansatz(N, 2)
    params = ansatz.random_params(3)

    @qml.qnode(qml.device("default.qubit", wires=N))
    def wrapped(p):
        ansatz.apply(p)
        return qml.expval(qml.Z(0))

    for k, mask in ((2, True), (1, False)):
        np.testing.assert_allclose(surrogate_metric(wrapped, params, k=k, mask=mask),
                                   surrogate_metric(ansatz, params, k=k, mask=mask), atol=1e-12)


def test_qnode_shadow_estimate_is_seeded_and_near_the_exact_surrogate():
    exact = surrogate_metric(circuit, X, k=2)
    a = surrogate_metric(circuit, X, k=2, shots=4000, seed=5)
    b = surrogate_metric(circuit, X, k=2, shots=4000, seed=5)
    np.testing.assert_array_equal(a, b)
    assert np.linalg.norm(a - exact) < 0.25 * np.linalg.norm(exact)


def test_bad_circuits_are_refused_by_name():
    @qml.qnode(qml.device("default.qubit", wires=2))
    def rot(x):
        qml.Rot(x[0], x[1], x[2], wires=0)
        return qml.expval(qml.Z(0))

    with pytest.raises(ValueError, match="^circuit: the trainable operation Rot"):
        surrogate_metric(rot, np.array([0.1, 0.2, 0.3]), k=1)
    with pytest.raises(ValueError, match="^k: "):
        surrogate_metric(circuit, X, k=N + 1)
    with pytest.raises(ValueError, match="^shots: "):
        surrogate_metric(circuit, X, k=2, shots=1)
    with pytest.raises(ValueError, match="^params: "):
        surrogate_metric(circuit, np.zeros((2, 3)), k=1)
    with pytest.raises(ValueError, match="^ansatz: "):
        surrogate_metric("not a circuit", X, k=1)
