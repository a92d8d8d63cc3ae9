"""Pauli propagation against dense matrices built by PennyLane, truncation and the active set."""

import numpy as np
import pennylane as qml
import pytest

from core.quantum_ng import Ansatz, PauliTerms, propagate_generators
from core.quantum_ng.propagation import wire_bit

N = 3


def matrix_of(labels, n):
    """Dense matrix of [(label, coeff)] through PennyLane's own Pauli words."""
    out = np.zeros((2**n, 2**n), complex)
    for label, coeff in labels:
        word = qml.pauli.PauliWord({q: c for q, c in enumerate(label) if c != "I"})
        out += coeff * word.to_mat(wire_order=range(n))
    return out


def random_terms(rng, n, size):
    t = PauliTerms.empty(n)
    t.owner = np.zeros(size, np.int64)
    t.x = rng.integers(0, 2**n, size).astype(np.uint64)
    t.z = rng.integers(0, 2**n, size).astype(np.uint64)
    t.coeff = rng.normal(size=size)
    t.merge()
    return t


@pytest.mark.parametrize("gate", ["RX", "RY", "RZ", "CNOT", "CNOT_rev", "CZ"])
def test_each_conjugation_rule_matches_the_dense_product(gate):
    rng = np.random.default_rng(1)
    terms = random_terms(rng, N, 12)
    before = matrix_of(terms.labels(), N)
    theta = 0.731
    if gate in ("RX", "RY", "RZ"):
        terms.rotate(gate[1], 1, theta)
        U = qml.matrix(getattr(qml, gate)(theta, wires=1), wire_order=range(N))
    elif gate == "CZ":
        terms.cz(0, 2)
        U = qml.matrix(qml.CZ(wires=[0, 2]), wire_order=range(N))
    else:
        wires = (2, 1) if gate == "CNOT_rev" else (0, 1)
        terms.cnot(*wires)
        U = qml.matrix(qml.CNOT(wires=wires), wire_order=range(N))
    np.testing.assert_allclose(matrix_of(terms.labels(), N), U @ before @ U.conj().T, atol=1e-12)


@pytest.mark.parametrize("entangler", ["cnot_chain", "brickwork", "cz_chain", "none"])
def test_untruncated_generators_are_the_conjugated_paulis(entangler):
    ansatz = Ansatz(N, 2, ("RX", "RY", "RZ"), entangler)
    params = ansatz.random_params(4)
    gens = propagate_generators(ansatz, params, k=N)
    for gate_index, gate in enumerate(ansatz.gates):
        if gate.param is None:
            continue
        rest = ansatz.gates[gate_index + 1:]

        def after():
            for g in rest:
                if g.param is None:
                    getattr(qml, g.name)(wires=g.wires)
                else:
                    getattr(qml, g.name)(params[g.param], wires=g.wires[0])

        V = qml.matrix(after, wire_order=range(N))() if rest else np.eye(2**N)
        P = qml.matrix(getattr(qml, gate.pauli)(gate.wires[0]), wire_order=range(N))
        np.testing.assert_allclose(matrix_of(gens.terms.labels(gate.param), N), V @ (P / 2) @ V.conj().T, atol=1e-12)
    np.testing.assert_allclose(gens.retained(), 1.0, atol=1e-12)


def test_truncation_keeps_low_weight_strings_and_reports_the_norm_it_kept():
    ansatz = Ansatz(6, 2, ("RY", "RZ"), "cnot_chain")
    params = ansatz.random_params(0)
    full = propagate_generators(ansatz, params, k=6).retained()
    for k in (1, 2, 3):
        gens = propagate_generators(ansatz, params, k)
        assert gens.terms.weights().max() <= k
        kept = gens.retained()
        assert np.all(kept <= full + 1e-12) and np.all(kept >= 0)
        assert np.array_equal(gens.active(), gens.counts() > 0)
        assert np.array_equal(gens.active(0.5), kept > 0.5)
    # The last RZ layer meets only the final CNOT chain, which maps Z_q to Z_{q-1} Z_q (weight 2):
    # exact at k = 2. The first layer's RY on wire 0 meets X_0 -> X_0 X_1 ... X_5 twice: gone.
    gens = propagate_generators(ansatz, params, 2)
    last_rz = [g.param for g in ansatz.rotation_gates if g.name == "RZ"][-6:]
    np.testing.assert_allclose(gens.retained()[last_rz], 1.0, atol=1e-12)
    assert not gens.active()[0]


def test_supports_and_overlap_mask():
    ansatz = Ansatz(4, 1, ("RY",), "none")
    gens = propagate_generators(ansatz, ansatz.random_params(0), k=1)
    expected = np.array([wire_bit(4, q) for q in range(4)], np.uint64)
    assert np.array_equal(gens.supports(), expected)
    assert np.array_equal(gens.overlap_mask(), np.eye(4, dtype=bool))
    assert gens.support_matrix().tolist() == np.eye(4, dtype=bool).tolist()


def test_bad_inputs_name_the_field():
    with pytest.raises(ValueError, match="^entangler: 'ring' is not an option"):
        Ansatz(4, 1, entangler="ring")
    with pytest.raises(ValueError, match="^rotations: 'RW' is not an option"):
        Ansatz(4, 1, rotations=("RW",))
    ansatz = Ansatz(4, 1)
    with pytest.raises(ValueError, match=r"^k: 5 is out of range; allowed integers in \[1, 4\]"):
        propagate_generators(ansatz, np.zeros(ansatz.n_params), 5)
    with pytest.raises(ValueError, match=r"^params: shape \(3,\)"):
        propagate_generators(ansatz, np.zeros(3), 2)


def test_ansatz_orders_parameters_gate_by_gate():
    ansatz = Ansatz(3, 2, ("RY", "RZ"), "brickwork")
    assert ansatz.n_params == 12
    assert [g.param for g in ansatz.rotation_gates] == list(range(12))
    names = [g.name for g in ansatz.gates]
    # even layer: pair (0,1); odd layer: pair (1,2)
    assert [g.wires for g in ansatz.gates if g.name == "CNOT"] == [(0, 1), (1, 2)]
    assert names[:6] == ["RY"] * 3 + ["RZ"] * 3
    tape = qml.tape.make_qscript(ansatz.apply)(np.arange(12.0))
    assert [op.name for op in tape.operations] == names
    assert [float(op.parameters[0]) for op in tape.operations if op.parameters] == list(range(12))


@pytest.mark.parametrize("entangler", ["brickwork", "cnot_chain", "cz_chain"])
def test_a_generators_support_after_propagation_is_its_light_cone(entangler):
    ansatz = Ansatz(7, 3, ("RY", "RZ"), entangler)
    cones = ansatz.light_cones()
    for seed in range(3):
        gens = propagate_generators(ansatz, ansatz.random_params(seed), k=ansatz.n_qubits)
        support = gens.support_matrix()
        assert not (support & ~cones).any()          # nothing outside the causal cone
        # RY generators fill their cone at generic parameters; on the CZ chain the cone is loose, because
        # the CZs commute: a Z they leave behind does not travel on (X0 -> X0 Z1, and Z1 stops there)
        ry = np.array([g.name == "RY" for g in ansatz.rotation_gates])
        assert np.array_equal(support[ry], cones[ry]) == (entangler != "cz_chain")
    widths = cones.sum(axis=1).reshape(ansatz.layers, -1)
    if entangler == "brickwork":
        # the first generator's cone grows by at most one site per side and layer: 3 layers reach 4 sites
        assert widths.max() <= 1 + 2 * ansatz.layers and cones[0].tolist() == [True] * 4 + [False] * 3
    else:   # the staircase (and CZ chain) carry wire 0's first generator through every wire in one layer
        assert cones[0].all()


def test_light_cones_without_entanglers_are_single_wires():
    ansatz = Ansatz(4, 2, ("RX", "RY"), "none")
    assert np.array_equal(ansatz.light_cones(), np.eye(4, dtype=bool)[ansatz.param_wire()])
