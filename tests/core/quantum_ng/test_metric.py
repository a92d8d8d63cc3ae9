"""The covariance formula against PennyLane's metric tensors, masking, and the truncation curve."""

import numpy as np
import pennylane as qml
import pytest
from pennylane import numpy as pnp

from core.quantum_ng import Ansatz, exact_metric, propagate_generators, surrogate_metric, truncation_curve
from core.quantum_ng.metric import metric_from_generators
from core.quantum_ng.propagation import PauliTerms
from core.quantum_ng.shadows import metric_from_expectations
from core.quantum_ng.simulate import final_state

ANSATZE = [(3, 2, ("RX", "RY", "RZ"), "cnot_chain"), (5, 2, ("RY", "RZ"), "brickwork"),
           (4, 2, ("RX", "RZ"), "cz_chain"), (6, 1, ("RY", "RZ"), "cnot_chain"), (4, 2, ("RY",), "none")]


def pennylane_metric(ansatz, params):
    @qml.qnode(qml.device("default.qubit"))  # no fixed wires: approx=None needs a free auxiliary wire
    def circuit(p):
        ansatz.apply(p)
        return qml.expval(qml.PauliZ(0))

    return np.asarray(qml.metric_tensor(circuit, approx=None)(pnp.array(params, requires_grad=True)))


@pytest.mark.parametrize("spec", ANSATZE, ids=lambda s: f"{s[0]}q-{s[1]}L-{'+'.join(s[2])}-{s[3]}")
def test_untruncated_unmasked_surrogate_is_pennylanes_metric_tensor(spec):
    n, layers, rotations, entangler = spec
    ansatz = Ansatz(n, layers, rotations, entangler)
    params = ansatz.random_params(11)
    reference = pennylane_metric(ansatz, params)
    np.testing.assert_allclose(surrogate_metric(ansatz, params, k=n, mask=False), reference, atol=1e-8)
    np.testing.assert_allclose(exact_metric(ansatz, params), reference, atol=1e-8)


def test_exact_metric_is_the_adjoint_metric_tensor_at_eight_qubits():
    ansatz = Ansatz(8, 1, ("RY", "RZ"), "brickwork")
    params = ansatz.random_params(2)

    @qml.qnode(qml.device("lightning.qubit", wires=8))
    def circuit(p):
        ansatz.apply(p)
        return qml.expval(qml.PauliZ(0))

    reference = qml.adjoint_metric_tensor(circuit)(pnp.array(params, requires_grad=True))
    np.testing.assert_allclose(exact_metric(ansatz, params), reference, atol=1e-8)
    np.testing.assert_allclose(surrogate_metric(ansatz, params, k=8, mask=False), reference, atol=1e-8)


@pytest.mark.parametrize("k", [1, 2, 4])
def test_masking_is_exact_on_a_product_ansatz(k):
    ansatz = Ansatz(4, 3, ("RX", "RY", "RZ"), "none")
    params = ansatz.random_params(5)
    exact = exact_metric(ansatz, params)
    masked = surrogate_metric(ansatz, params, k=k, mask=True)
    np.testing.assert_allclose(masked, exact, atol=1e-12)
    # and it is not trivially so: different wires really decouple, same-wire layers do not
    wire = ansatz.param_wire()
    assert np.all(exact[wire[:, None] != wire[None, :]] == pytest.approx(0, abs=1e-12))
    assert np.abs(exact[wire[:, None] == wire[None, :]]).max() > 0.1


def test_mask_zeroes_exactly_the_disjoint_pairs():
    ansatz = Ansatz(6, 2, ("RY", "RZ"), "brickwork")
    params = ansatz.random_params(3)
    gens = propagate_generators(ansatz, params, 2)
    state = final_state(ansatz, params)
    masked, unmasked = metric_from_generators(gens, state, True), metric_from_generators(gens, state, False)
    overlap = gens.overlap_mask()
    assert not overlap.all() and overlap.any()
    assert np.all(masked[~overlap] == 0) and np.array_equal(masked[overlap], unmasked[overlap])
    # on an entangled state the dropped entries are not all zero: the mask is an approximation here
    assert np.abs(unmasked[~overlap]).max() > 1e-3


@pytest.mark.parametrize("mask", [True, False])
def test_product_expansion_with_exact_expectations_equals_the_statevector_route(mask):
    ansatz = Ansatz(5, 2, ("RY", "RZ"), "cnot_chain")
    params = ansatz.random_params(8)
    state = final_state(ansatz, params)
    for k in (2, 5):
        gens = propagate_generators(ansatz, params, k)

        def expect(x, z):
            one = PauliTerms(5, np.arange(x.size), x, z, np.ones(x.size))
            from core.quantum_ng.metric import apply_terms
            return np.real(apply_terms(one, state, x.size).conj() @ state)

        means = expect(gens.terms.x, gens.terms.z) * gens.terms.coeff
        m = np.bincount(gens.terms.owner, weights=means, minlength=gens.n_params)
        pairs = np.triu(gens.overlap_mask() if mask else np.ones((gens.n_params,) * 2, bool))
        by_products = metric_from_expectations(gens, expect, pairs, np.outer(m, m))
        np.testing.assert_allclose(by_products, metric_from_generators(gens, state, mask), atol=1e-12)


def test_truncation_curve_reaches_zero_at_full_weight():
    ansatz = Ansatz(5, 2, ("RY", "RZ"), "brickwork")
    params = ansatz.random_params(1)
    curve = truncation_curve(ansatz, params, range(1, 6))
    assert curve.error_unmasked[-1] < 1e-12
    assert curve.error_unmasked[0] > 0.3       # weight 1 loses most of the couplings
    assert curve.active[-1] == ansatz.n_params
    assert np.all(np.diff(curve.strings) >= 0)  # a larger k keeps at least as many strings here
    assert np.all((curve.kept_entries > 0) & (curve.kept_entries <= 1))


def test_the_mask_is_exact_only_on_product_states_and_its_error_is_reported():
    product, brick = Ansatz(4, 2, ("RY", "RZ"), "none"), Ansatz(5, 2, ("RY", "RZ"), "brickwork")
    flat = truncation_curve(product, product.random_params(2), [1, 4])
    assert np.all(flat.error_mask < 1e-12) and np.all(flat.error_masked[-1] < 1e-12)
    params = brick.random_params(1)
    curve = truncation_curve(brick, params, [2, 5])
    exact = exact_metric(brick, params)
    gens = propagate_generators(brick, params, 5)
    full = surrogate_metric(brick, params, k=5, mask=False)
    dropped = np.linalg.norm(np.where(gens.overlap_mask(), 0.0, full)) / np.linalg.norm(exact)
    assert curve.error_mask[-1] == pytest.approx(dropped, rel=1e-9) and dropped > 0.05   # a floor at k = n
    assert curve.error_masked[-1] == pytest.approx(dropped, rel=1e-9)
