"""The side-by-side VQE run: shared start, budgets, interleaving, stopping, seeding, the shipped run."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.quantum_ng import OPTIMIZERS, VQEConfig, run_vqe

SMALL = VQEConfig(model="tfim", n_qubits=4, layers=1, shots=50, snapshots=100, budget=30_000)


@pytest.fixture(scope="module")
def small_run():
    return run_vqe(SMALL, seed=3)


def test_all_optimizers_share_start_and_spend_their_budget(small_run):
    result = small_run
    assert list(result.traces) == list(OPTIMIZERS)
    assert result.ground_energy == pytest.approx(SMALL.chain.ground_energy())
    for key, trace in result.traces.items():
        assert trace.energy[0] == pytest.approx(result.initial_energy)
        assert trace.shots[0] == 0 and np.all(np.diff(trace.shots) == trace.shots_per_step)
        assert trace.shots[-2] < SMALL.budget <= trace.shots[-1]      # stops once the budget is spent
        assert trace.steps == trace.steps_planned
        np.testing.assert_allclose(trace.error, trace.energy - result.ground_energy)
        assert np.all(trace.error > -1e-9)                          # variational: never below E0
    # RNG pays 2P + 1 extra circuits per step, so it affords the fewest steps
    steps = {k: t.steps for k, t in result.traces.items()}
    assert steps["rng"] == min(steps.values()) < steps["sgd"]
    active = result.traces["surrogate"].active[1:]
    assert np.all((active >= 0) & (active <= 1)) and np.isnan(result.traces["sgd"].active).all()


def test_same_seed_same_run_and_stop_returns_what_was_done(small_run):
    a = small_run
    log = ProgressLog(stop_after=7)
    partial = run_vqe(SMALL, seed=3, progress=log)
    assert log.steps == list(range(1, 8)) and log.totals[0] == sum(t.steps_planned for t in a.traces.values())
    assert sum(t.steps for t in partial.traces.values()) == 7
    assert partial.stopped and not a.stopped          # the result says it was stopped
    # interleaved in shot space: after 7 steps nobody is a full step ahead of the others
    spent = [t.shots[-1] for t in partial.traces.values()]
    assert max(spent) - min(spent) <= max(t.shots_per_step for t in partial.traces.values())
    for key, trace in partial.traces.items():  # the same seed replays the same run: a prefix of it
        np.testing.assert_array_equal(trace.energy, a.traces[key].energy[: trace.energy.size])
    other = run_vqe(SMALL.replace(budget=5_000), seed=4)
    assert other.initial_energy != pytest.approx(a.initial_energy)
    frame = partial.to_frame()
    assert len(frame) == 7 + len(OPTIMIZERS) and set(frame["optimizer"]) == set(OPTIMIZERS)


def test_config_validates_with_field_messages():
    with pytest.raises(ValueError, match=r"^k: 5 exceeds the 4 qubits; allowed integers in \[1, 4\]"):
        VQEConfig(n_qubits=4, k=5)
    with pytest.raises(ValueError, match="^optimizers: 'newton' is not an option"):
        VQEConfig(optimizers=("sgd", "newton"))
    with pytest.raises(ValueError, match=r"^n_qubits: 20 is out of range; allowed integers in \[2, 16\]"):
        VQEConfig(n_qubits=20)
    with pytest.raises(ValueError, match="^periodic: a closed chain needs 3 or more qubits"):
        VQEConfig(n_qubits=2, k=1, periodic=True)
    assert VQEConfig.from_dict(VQEConfig().to_dict()) == VQEConfig()


def test_shipped_run_is_what_the_code_computes():
    from core.quantum_ng.ship import SHIPPED, shipped_run

    shipped = shipped_run()
    assert shipped.config == SHIPPED and shipped.config.n_qubits == 6
    # recompute the first steps of every optimiser and compare them with the shipped traces
    log = ProgressLog(stop_after=2 * len(OPTIMIZERS))
    fresh = run_vqe(SHIPPED, seed=shipped.seed, progress=log)
    for key, trace in fresh.traces.items():
        np.testing.assert_allclose(shipped.traces[key].energy[: trace.energy.size], trace.energy, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(shipped.traces[key].shots[: trace.shots.size], trace.shots)
