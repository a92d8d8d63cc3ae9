"""Chains from qml.spin against Kronecker-product Hamiltonians written out here, and their E0."""

import functools

import numpy as np
import pytest

from core.quantum_ng import Chain

PAULI = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
         "Z": np.diag([1.0, -1.0])}


def op(n, letters: dict):
    return functools.reduce(np.kron, [PAULI[letters.get(q, "I")] for q in range(n)])


def dense(chain: Chain):
    n = chain.n_qubits
    bonds = [(q, q + 1) for q in range(n - 1)] + ([(n - 1, 0)] if chain.periodic else [])
    J, H = chain.coupling, np.zeros((2**n, 2**n), complex)
    for a, b in bonds:
        if chain.model == "tfim":
            H -= J * op(n, {a: "Z", b: "Z"})
        else:
            zz = J if chain.model == "heisenberg" else J * chain.delta
            H += J * op(n, {a: "X", b: "X"}) + J * op(n, {a: "Y", b: "Y"}) + zz * op(n, {a: "Z", b: "Z"})
    if chain.model == "tfim":
        H -= chain.field * sum(op(n, {q: "X"}) for q in range(n))
    return H


@pytest.mark.parametrize("model", ["heisenberg", "xxz", "tfim"])
@pytest.mark.parametrize("periodic", [False, True])
def test_hamiltonian_and_ground_energy_match_a_hand_built_chain(model, periodic):
    chain = Chain(model=model, n_qubits=6, periodic=periodic, delta=0.4, field=0.7)
    H = dense(chain)
    np.testing.assert_allclose(chain.hamiltonian().matrix(wire_order=range(6)), H, atol=1e-12)
    assert chain.ground_energy() == pytest.approx(np.linalg.eigvalsh(H)[0], abs=1e-9)


def test_closed_forms():
    # open four-site Heisenberg chain with Pauli matrices: E0 = -3 - 2 sqrt(3)
    assert Chain("heisenberg", 4).ground_energy() == pytest.approx(-3 - 2 * np.sqrt(3), abs=1e-10)
    # periodic TFIM at criticality (J = h = 1, even n, antiperiodic fermions): E0 = -sum_k 2|cos(k/2)|
    n = 8
    k = np.pi * (2 * np.arange(n) + 1) / n
    assert Chain("tfim", n, periodic=True).ground_energy() == pytest.approx(-np.sum(2 * np.abs(np.cos(k / 2))), abs=1e-9)


def test_chain_validates():
    with pytest.raises(ValueError, match=r"^n_qubits: 17 is out of range; allowed integers in \[2, 16\]"):
        Chain(n_qubits=17)
    with pytest.raises(ValueError, match="^model: 'xyz' is not an option"):
        Chain(model="xyz")


def test_shipped_ground_energies_cover_the_page_and_match_independent_solves():
    from core.quantum_ng.ship import page_chains
    from core.quantum_ng.hamiltonians import exact_ground_energy, shipped_ground_energies

    shipped = shipped_ground_energies()
    assert set(page_chains()) <= set(shipped)          # a live run never waits for eigsh on the page's chains
    for chain, e0 in shipped.items():
        if chain.n_qubits <= 8:                          # against the hand-built dense Hamiltonian
            assert e0 == pytest.approx(np.linalg.eigvalsh(dense(chain))[0], abs=1e-9), chain
    chain = Chain("xxz", 10)                             # a larger one, re-solved by the shipping code
    assert shipped[chain] == pytest.approx(exact_ground_energy(chain), abs=1e-9)
    assert Chain("xxz", 10).ground_energy() == shipped[chain]
