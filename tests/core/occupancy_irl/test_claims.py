"""The paper's convergence claim at small scale, with the control that must fail it; the stop protocol."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.occupancy_irl import IRLConfig, StudyConfig, convergence_study, run_irl
from core.occupancy_irl.ship import SEED, shipped_run


@pytest.fixture(scope="module")
def study():
    # The dual gradient is cut at 120 iterations: past that it has lost against ~20 interpolation steps anyway.
    return convergence_study(StudyConfig(n_mdps=20, max_iters=120, etas=(0.5, 0.8)), seed=0)


@pytest.mark.claim
def test_interpolation_reaches_1e6_in_fewer_iterations_than_the_best_tuned_dual_gradient(study):
    assert study.done == 20
    assert np.all(np.isfinite(study.iters_interp))
    assert np.all(study.iters_interp[:, 0] < study.iters_dual_best)      # eta = 0.5, on every one of 20 MDPs
    assert np.all(study.iters_interp[:, 1] < study.iters_interp[:, 0])   # a larger eta is faster still
    # The dual gradient does converge at its best step size on most MDPs: a real, tuned baseline.
    assert np.mean(np.isfinite(study.iters_dual_best)) >= 0.5
    # Linear rate 1 - eta of the occupancy gap.
    np.testing.assert_allclose(np.median(study.rate_interp, axis=0), [0.5, 0.2], atol=0.03)


@pytest.mark.claim
def test_control_a_misspecified_target_does_not_converge_to_the_expert(study):
    """r_E = log pi of a different expert: the interpolation converges, but to that expert's occupancy."""
    assert np.all(study.control_final_gap > 0.05)
    np.testing.assert_allclose(study.control_final_gap, study.control_target_gap, rtol=1e-4)


def test_run_irl_matches_the_shipped_first_view():
    shipped = shipped_run()
    run = run_irl(IRLConfig(n_iters=10), SEED)
    np.testing.assert_allclose(run.gap_dual, shipped.gap_dual[:11], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(run.gap_interp, shipped.gap_interp[:11], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(run.reward_interp, shipped.reward_interp[:11], atol=1e-12)
    assert shipped.done == IRLConfig().n_iters and shipped.gap_interp[-1] < 1e-5 < shipped.gap_dual[-1]


def test_runs_stop_cleanly_and_report_progress():
    log = ProgressLog(stop_after=3)
    run = run_irl(IRLConfig(env="random", n_iters=50), 1, progress=log)
    assert run.done == 3 and log.steps == [1, 2, 3] and log.totals == [50] * 3
    assert run.gap_dual.shape == (4,) and run.reward_interp.shape == (4, 8, 3)
    assert log.metrics[-1]["gap interpolation"] == run.gap_interp[-1]
    log = ProgressLog(stop_after=2)
    s = convergence_study(StudyConfig(n_mdps=5, max_iters=30, etas=(0.8,)), seed=0, progress=log)
    assert s.done == 2 and np.all(np.isnan(s.iters_interp[2:])) and np.all(np.isfinite(s.iters_interp[:2]))


def test_sampled_demonstrations_give_both_methods_the_same_data_and_a_floor():
    s = convergence_study(StudyConfig(n_mdps=3, demos="sampled", n_demos=30, max_iters=60, etas=(0.5,)), seed=0)
    assert np.all(s.sampling_error > 0.02)
    assert np.all(s.final_gap_interp > 1e-3)          # finite data: neither reaches the true rho_E
    assert np.all(np.isinf(s.iters_interp))           # ... so 1e-6 is out of reach
    a = run_irl(IRLConfig(demos="sampled", n_iters=3), 4)
    b = run_irl(IRLConfig(demos="sampled", n_iters=3), 4)
    np.testing.assert_array_equal(a.r_target, b.r_target)
    assert a.sampling_error > 0 and np.all(np.isfinite(a.r_target))
