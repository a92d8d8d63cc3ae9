"""Shot-noisy estimates and their accounting against qml.Tracker; the five updates against PennyLane's."""

import numpy as np
import pennylane as qml
import pytest
from pennylane import numpy as pnp
from scipy import stats

from core.quantum_ng import (Ansatz, Chain, ShotOracle, exact_metric, hybrid_step, make_optimizer, natural_step, psd)

CHAIN = Chain("heisenberg", 4)
H = CHAIN.hamiltonian()
ANSATZ = Ansatz(4, 2, ("RY", "RZ"), "cnot_chain")
PARAMS = ANSATZ.random_params(3)


def exact_qnode():
    @qml.qnode(qml.device("default.qubit"))
    def cost(p):
        ANSATZ.apply(p)
        return qml.expval(H)

    return cost


def test_accountant_charges_what_the_tracker_saw_and_what_was_planned():
    oracle = ShotOracle(ANSATZ, H, shots=50, seed=1)
    plan = oracle.planned_costs(snapshots=200)
    steps = [("gradient", lambda: oracle.gradient(PARAMS)), ("block_diag", lambda: oracle.block_diag_metric(PARAMS)),
             ("random_fisher", lambda: oracle.random_fisher_metric(PARAMS)),
             ("shadow", lambda: oracle.surrogate(PARAMS, 2, True, 200))]
    for kind, call in steps:
        before = (oracle.accountant.executions, oracle.accountant.shots)
        call()
        spent = (oracle.accountant.executions - before[0], oracle.accountant.shots - before[1])
        assert spent == plan[kind], kind
    P = ANSATZ.n_params
    # Heisenberg splits into XX, YY, ZZ groups: 3 circuits per energy; 2 layers x 2 rotations = 4 blocks
    assert plan["gradient"] == (2 * P * 3, 2 * P * 3 * 50)
    assert plan["block_diag"] == (4, 200) and plan["random_fisher"] == (2 * P + 1, (2 * P + 1) * 50)
    assert oracle.accountant.by_kind["gradient"]["shots"] == 2 * P * 3 * 50

    # the same counts from a plain qnode under qml.Tracker, independently of our code
    dev = qml.device("default.qubit", wires=4, seed=0)

    @qml.set_shots(50)
    @qml.qnode(dev)
    def cost(p):
        ANSATZ.apply(p)
        return qml.expval(H)

    with qml.Tracker(dev) as tracker:
        for i in range(P):
            for s in (np.pi / 2, -np.pi / 2):
                cost(PARAMS + s * np.eye(P)[i])
    assert (tracker.totals["executions"], tracker.totals["shots"]) == plan["gradient"]


def test_shot_gradient_is_unbiased_and_its_noise_shrinks_with_shots():
    exact = ShotOracle(ANSATZ, H, None).gradient(PARAMS)
    reference = qml.grad(exact_qnode())(pnp.array(PARAMS, requires_grad=True))
    np.testing.assert_allclose(exact, reference, atol=1e-10)
    spread = {}
    for shots in (100, 1600):
        draws = np.stack([ShotOracle(ANSATZ, H, shots, seed=s).gradient(PARAMS) for s in range(30)])
        z = (draws.mean(0) - exact) / (draws.std(0, ddof=1) / np.sqrt(len(draws)))
        assert np.abs(z).max() < stats.t.ppf(1 - 0.001 / (2 * z.size), df=len(draws) - 1)  # Bonferroni, 0.999
        spread[shots] = draws.std(0, ddof=1).mean()
    assert spread[1600] / spread[100] == pytest.approx(0.25, rel=0.3)  # standard error ~ 1/sqrt(shots)


def test_block_diagonal_metric_with_shots_is_close_to_pennylanes_exact_one():
    exact = qml.metric_tensor(exact_qnode(), approx="block-diag")(pnp.array(PARAMS, requires_grad=True))
    np.testing.assert_allclose(ShotOracle(ANSATZ, H, None).block_diag_metric(PARAMS), exact, atol=1e-10)
    noisy = ShotOracle(ANSATZ, H, 20_000, seed=2).block_diag_metric(PARAMS)
    assert np.abs(noisy - exact).max() < 0.03  # entries are covariances of +-1/2 outcomes: sd < 0.25/sqrt(S)
    layer = ANSATZ.param_layer()
    assert np.all(noisy[layer[:, None] != layer[None, :]] == 0)  # nothing across blocks


def test_random_fisher_is_psd_and_matches_pennylanes_classical_fisher():
    oracle = ShotOracle(ANSATZ, H, None, seed=4)
    metric = oracle.random_fisher_metric(PARAMS)
    assert np.linalg.eigvalsh(metric).min() > -1e-10
    # rebuild the same random unitaries (the oracle's stream) and ask PennyLane for the classical Fisher
    from scipy.stats import unitary_group

    from core.common.seeding import make_rng
    rng = make_rng(4)
    unitary = unitary_group.rvs(2 ** 4, random_state=rng)   # 4 qubits: one global Haar unitary

    @qml.qnode(qml.device("default.qubit", wires=4))
    def probs(p):
        ANSATZ.apply(p)
        qml.QubitUnitary(unitary, wires=range(4))
        return qml.probs(wires=range(4))

    reference = qml.gradients.classical_fisher(probs)(pnp.array(PARAMS, requires_grad=True))
    np.testing.assert_allclose(metric, 0.5 * np.asarray(reference), atol=1e-8)
    # the classical Fisher never exceeds the quantum one: F <= QFIM = 4g, i.e. F/2 <= 2g
    gap = 2 * exact_metric(ANSATZ, PARAMS) - metric
    assert np.linalg.eigvalsh(gap).min() > -1e-8


def test_natural_step_follows_pennylanes_qng_trajectory():
    cost = exact_qnode()
    opt = qml.QNGOptimizer(stepsize=0.05, lam=0.01)
    theirs = pnp.array(PARAMS, requires_grad=True)
    ours = PARAMS.copy()
    oracle = ShotOracle(ANSATZ, H, None)
    for _ in range(5):
        theirs = opt.step(cost, theirs, metric_tensor_fn=lambda p: exact_metric(ANSATZ, p))
        ours = natural_step(ours, oracle.gradient(ours), exact_metric(ANSATZ, ours), 0.05, 0.01)
    np.testing.assert_allclose(ours, theirs, atol=1e-10)


def test_hybrid_step_is_qng_on_the_active_set_and_gradient_descent_elsewhere():
    rng = np.random.default_rng(0)
    P = 6
    A = rng.normal(size=(P, P))
    metric = A @ A.T / P - 0.2 * np.eye(P)  # indefinite: the hybrid projects it
    grad, params = rng.normal(size=P), rng.normal(size=P)
    everything = hybrid_step(params, grad, metric, np.ones(P, bool), 0.1, 0.05)
    np.testing.assert_allclose(everything, natural_step(params, grad, psd(metric), 0.1, 0.05), atol=1e-12)
    active = np.array([True, False, True, True, False, False])
    mixed = hybrid_step(params, grad, metric, active, 0.1, 0.05, gd_stepsize=0.3)
    np.testing.assert_allclose(mixed[~active], params[~active] - 0.3 * grad[~active])
    sub = natural_step(params[active], grad[active], psd(metric[np.ix_(active, active)]), 0.1, 0.05)
    np.testing.assert_allclose(mixed[active], sub, atol=1e-12)
    assert np.linalg.eigvalsh(psd(metric)).min() > -1e-12 and np.linalg.eigvalsh(metric).min() < 0


def test_untruncated_surrogate_without_noise_is_full_qng_and_beats_sgd_per_step():
    e0 = CHAIN.ground_energy()
    errors = {}
    for key, kwargs in [("surrogate", dict(k=4, mask=False, stepsize=0.05, lam=0.01)), ("sgd", dict(stepsize=0.05))]:
        oracle, params, opt = ShotOracle(ANSATZ, H, None), PARAMS.copy(), make_optimizer(key, **kwargs)
        full = PARAMS.copy()
        for _ in range(15):
            params = opt.step(params, oracle)
            if key == "surrogate":
                full = natural_step(full, oracle.gradient(full), exact_metric(ANSATZ, full), 0.05, 0.01)
        if key == "surrogate":
            np.testing.assert_allclose(params, full, atol=1e-8)
        errors[key] = oracle.energy(params) - e0
    assert errors["surrogate"] < 0.5 * errors["sgd"]


def test_every_optimizer_lowers_the_energy_with_shots():
    e_start = ShotOracle(ANSATZ, H, None).energy(PARAMS)
    for key in ("sgd", "adam", "block_qng", "rng", "surrogate"):
        oracle, params = ShotOracle(ANSATZ, H, 200, seed=9), PARAMS.copy()
        opt = make_optimizer(key, stepsize=0.05)
        for _ in range(8):
            params = opt.step(params, oracle)
        assert oracle.energy(params) < e_start - 0.5, key
        assert oracle.accountant.shots > 0


def test_bad_optimizer_settings_name_the_field():
    with pytest.raises(ValueError, match="^optimizer: 'lbfgs' is not an option"):
        make_optimizer("lbfgs")
    with pytest.raises(ValueError, match=r"^stepsize: 0 is out of range; allowed in \(0, 10\]"):
        make_optimizer("sgd", stepsize=0.0)
    with pytest.raises(ValueError, match="^shots: 0 is out of range"):
        ShotOracle(ANSATZ, H, 0)
