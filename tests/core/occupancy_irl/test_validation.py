"""Bad input to the public entry points: a ValueError naming the field, before anything is computed;
and the shipped export payloads are the ones the page's export buttons would build from the shipped run."""

import numpy as np
import pytest

from core.occupancy_irl import (Demonstrations, IRLConfig, StudyConfig, convergence_study, dual_gradient_gaps,
                                dual_gradient_step, empirical_policy, gridworld, interpolation_gaps,
                                interpolation_step, make_problem, mirror_step, occupancy, path_fisher,
                                preconditioned_step, random_mdp, run_irl, soft_solve)
from core.occupancy_irl.ship import export_payloads, shipped_exports, shipped_run


@pytest.fixture(scope="module")
def prob():
    return make_problem(random_mdp(3, 2, seed=0), beta=3.0)


def test_mdp_builders_reject_bad_sizes_and_probabilities():
    with pytest.raises(ValueError, match=r"^gamma: .*allowed \(0, 1\)"):
        random_mdp(3, 2, gamma=1.0)
    with pytest.raises(ValueError, match=r"^size: .*allowed an integer of at least 2"):
        gridworld(1)
    with pytest.raises(ValueError, match=r"^slip: .*allowed \[0, 1\]"):
        gridworld(3, slip=1.5)
    with pytest.raises(ValueError, match=r"^gamma: "):
        gridworld(3, gamma=0.0)


def test_planning_functions_reject_bad_settings(prob):
    mdp, r = prob.mdp, np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"^tol: .*allowed tol > 0"):
        soft_solve(mdp, r, max_iter=0)
    with pytest.raises(ValueError, match=r"^horizon: .*allowed None or an integer >= 0"):
        occupancy(mdp, np.full((3, 2), 0.5), horizon=-1)
    with pytest.raises(ValueError, match=r"^n_nodes: .*allowed an integer >= 1"):
        path_fisher(mdp, r, prob.r_target, n_nodes=0)


@pytest.mark.parametrize("call", [
    lambda p: interpolation_step(np.zeros((3, 2)), p.r_target, 0.0),
    lambda p: interpolation_step(np.zeros((3, 2)), p.r_target, 1.5),
    lambda p: mirror_step(np.zeros((3, 2)), p.log_policy_expert, -0.1),
    lambda p: preconditioned_step(p.mdp, np.zeros((3, 2)), p.rho_expert, p.r_target, 2.0),
])
def test_steps_reject_an_eta_outside_0_1(prob, call):
    with pytest.raises(ValueError, match=r"^eta: .*allowed \(0, 1\]"):
        call(prob)


def test_gradient_steps_and_gap_runs_reject_bad_arguments(prob):
    reward = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"^step: .*allowed > 0"):
        dual_gradient_step(prob.mdp, reward, prob.rho_expert, -1.0)
    with pytest.raises(ValueError, match=r"^etas: "):
        interpolation_gaps(prob, [0.5, 0.0], 3)
    with pytest.raises(ValueError, match=r"^n_iters: .*allowed an integer >= 0"):
        interpolation_gaps(prob, [0.5], -5)
    with pytest.raises(ValueError, match=r"^steps: .*allowed a non-empty list of > 0"):
        dual_gradient_gaps(prob, [4.0, -1.0], 3)
    with pytest.raises(ValueError, match=r"^n_iters: "):
        dual_gradient_gaps(prob, [4.0], -5)
    with pytest.raises(ValueError, match=r"^tol: .*allowed >= 0"):
        dual_gradient_gaps(prob, [4.0], 3, tol=-1.0)
    # The valid calls right next to them do run (the checks are not over-eager).
    assert interpolation_gaps(prob, [1.0], 1)[0, 1] < 1e-9
    assert np.isfinite(dual_gradient_gaps(prob, [4.0], 2)).all()


def test_problem_and_run_entry_points_reject_bad_arguments(prob):
    mdp = prob.mdp
    with pytest.raises(ValueError, match=r"^beta: .*allowed > 0"):
        make_problem(mdp, beta=-1.0)
    with pytest.raises(ValueError, match=r"^demos: .*allowed 'exact', 'sampled'"):
        make_problem(mdp, demos="some")
    with pytest.raises(ValueError, match=r"^n_demos: "):
        make_problem(mdp, demos="sampled", n_demos=0)
    with pytest.raises(ValueError, match=r"^pseudo_count: .*allowed > 0"):
        empirical_policy(Demonstrations(np.zeros((1, 2), int), np.zeros((1, 2), int)), mdp, pseudo_count=0.0)
    with pytest.raises(ValueError, match=r"^config: dict is not an IRLConfig"):
        run_irl({"n_iters": 3})
    with pytest.raises(ValueError, match=r"^eta: "):
        IRLConfig(eta=0.0)
    with pytest.raises(ValueError, match=r"^config: "):
        convergence_study({"n_mdps": 1})
    with pytest.raises(ValueError, match=r"^dual_steps: "):
        convergence_study(StudyConfig(n_mdps=1), dual_steps=())


def test_the_shipped_export_payloads_are_those_of_the_shipped_run():
    shipped, payloads = shipped_run(), shipped_exports()
    assert payloads is not None
    assert payloads == export_payloads(shipped)
    assert payloads.csv.startswith("iteration,gap_dual,gap_interpolation") and len(payloads.csv.splitlines()) == 42
    # A different run's payloads differ (the comparison can fail).
    assert export_payloads(run_irl(IRLConfig(n_iters=2))).json != payloads.json
