"""Identities of the soft planner, the Fisher and the updates, against independent references."""

import itertools

import numpy as np
import pytest

from core.occupancy_irl import (IRLConfig, StudyConfig, expert_policy, fisher, gridworld, interpolation_step,
                                mirror_step, occupancy, path_fisher, policy_kl, preconditioned_step, random_mdp,
                                shaping_basis, soft_occupancy, soft_solve, target_reward)
from core.occupancy_irl.demos import empirical_occupancy, empirical_policy, sample_demonstrations
from scipy.special import logsumexp


@pytest.fixture(scope="module")
def mdp():
    return random_mdp(8, 3, 0.9, seed=3)


@pytest.fixture(scope="module")
def expert(mdp):
    rho = occupancy(mdp, soft_solve(mdp, mdp.r_true).policy)
    return rho, target_reward(rho)


def test_soft_policy_iteration_matches_plain_soft_value_iteration(mdp):
    V = np.zeros(mdp.n_states)
    for _ in range(600):
        V = logsumexp(mdp.r_true + mdp.gamma * np.einsum("sat,t->sa", mdp.P, V), axis=-1)
    sol = soft_solve(mdp, mdp.r_true)
    np.testing.assert_allclose(sol.V, V, atol=1e-11)
    np.testing.assert_allclose(sol.policy.sum(-1), 1.0, atol=1e-14)
    assert not np.allclose(soft_solve(mdp, mdp.r_true, max_iter=1).V, V, atol=1e-3)   # one sweep is not enough


def test_occupancy_equals_brute_force_trajectory_enumeration():
    """S = 3, A = 2, horizon 4: every one of the 3^4 * 2^4 trajectories, weighted by its probability."""
    m = random_mdp(3, 2, 0.8, seed=11)
    pi = soft_solve(m, m.r_true).policy
    H = 4
    brute = np.zeros((3, 2))
    for states in itertools.product(range(3), repeat=H):
        for actions in itertools.product(range(2), repeat=H):
            p = m.p0[states[0]]
            for t in range(H):
                p *= pi[states[t], actions[t]]
                if t + 1 < H:
                    p *= m.P[states[t], actions[t], states[t + 1]]
            for t in range(H):
                brute[states[t], actions[t]] += (1 - m.gamma) * m.gamma ** t * p
    np.testing.assert_allclose(occupancy(m, pi, horizon=H), brute, atol=1e-15)
    assert np.abs(occupancy(m, pi, horizon=H + 1) - brute).max() > 1e-3          # the horizon matters
    np.testing.assert_allclose(occupancy(m, pi, horizon=600), occupancy(m, pi), atol=1e-12)   # the infinite sum


def test_fisher_is_the_finite_difference_jacobian_symmetric_psd_with_the_shaping_null_space(mdp):
    r = 0.5 * mdp.r_true
    J = fisher(mdp, r)
    eps, SA = 1e-6, mdp.n_states * mdp.n_actions
    fd = np.zeros((SA, SA))
    for i in range(SA):
        e = np.zeros(SA)
        e[i] = eps
        e = e.reshape(r.shape)
        fd[:, i] = (soft_occupancy(mdp, r + e) - soft_occupancy(mdp, r - e)).ravel() / (2 * eps)
    np.testing.assert_allclose(J, fd, atol=5e-9)
    np.testing.assert_allclose(fd, fd.T, atol=5e-9)          # the oracle is symmetric on its own (a Hessian)
    eig = np.linalg.eigvalsh(J)
    assert eig.min() > -1e-14
    assert np.sum(eig > 1e-10 * eig.max()) == mdp.n_states * (mdp.n_actions - 1)
    np.testing.assert_allclose(J @ shaping_basis(mdp), 0.0, atol=1e-14)
    np.testing.assert_allclose(J @ np.ones(SA), 0.0, atol=1e-14)     # the constant shift


def test_mean_value_identity_along_the_reward_line(mdp, expert):
    rho_e, r_e = expert
    for r in (np.zeros_like(r_e), 0.7 * mdp.r_true):
        rhs = (rho_e - soft_occupancy(mdp, r)).ravel()
        lhs = path_fisher(mdp, r, r_e, n_nodes=12) @ (r_e - r).ravel()
        np.testing.assert_allclose(lhs, rhs, atol=1e-10)
        first_order = fisher(mdp, r) @ (r_e - r).ravel()          # control: the start point's Fisher alone
        assert np.abs(first_order - rhs).max() > 1e-3


def test_target_reward_has_the_expert_as_its_soft_optimal_policy(mdp, expert):
    rho_e, r_e = expert
    sol = soft_solve(mdp, r_e)
    np.testing.assert_allclose(sol.policy, expert_policy(rho_e), atol=1e-13)
    np.testing.assert_allclose(sol.V, 0.0, atol=1e-12)
    np.testing.assert_allclose(soft_occupancy(mdp, r_e), rho_e, atol=1e-13)


@pytest.mark.parametrize("eta", [0.3, 0.6, 1.0])
def test_preconditioned_step_is_the_convex_combination_up_to_shaping(mdp, expert, eta):
    rho_e, r_e = expert
    r = 0.4 * mdp.r_true
    explicit = preconditioned_step(mdp, r, rho_e, r_e, eta)
    convex = interpolation_step(r, r_e, eta)
    np.testing.assert_allclose(soft_occupancy(mdp, explicit), soft_occupancy(mdp, convex), atol=1e-10)
    B = shaping_basis(mdp)
    diff = (explicit - convex).ravel()
    phi = np.linalg.lstsq(B, diff, rcond=None)[0]
    assert np.abs(diff - B @ phi).max() < 1e-9                  # the difference is a potential-shaping term
    # Control: the start point's Fisher alone as preconditioner lands elsewhere.
    J0 = fisher(mdp, r)
    local = r - eta * (np.linalg.pinv(J0, rcond=1e-10, hermitian=True)
                       @ (soft_occupancy(mdp, r) - rho_e).ravel()).reshape(r.shape)
    assert np.abs(soft_occupancy(mdp, local) - soft_occupancy(mdp, convex)).sum() > 1e-3


def test_eta_one_recovers_the_expert_occupancy_in_one_step(mdp, expert):
    rho_e, r_e = expert
    r = mdp.r_true * 0.0 + 2.0 * np.sin(np.arange(r_e.size)).reshape(r_e.shape)
    np.testing.assert_allclose(soft_occupancy(mdp, interpolation_step(r, r_e, 1.0)), rho_e, atol=1e-13)
    assert np.abs(soft_occupancy(mdp, interpolation_step(r, r_e, 0.9)) - rho_e).sum() > 1e-3


def test_interpolation_policy_is_close_to_the_exact_mirror_step(mdp, expert):
    rho_e, r_e = expert
    d_e = rho_e.sum(-1)
    r = np.zeros_like(r_e)
    lp = soft_solve(mdp, r).log_policy
    new = soft_solve(mdp, interpolation_step(r, r_e, 0.5)).log_policy
    md = mirror_step(lp, np.log(expert_policy(rho_e)), 0.5)
    assert policy_kl(new, md, d_e) < 0.1 * policy_kl(new, lp, d_e)
    np.testing.assert_allclose(np.exp(md).sum(-1), 1.0, atol=1e-14)


def test_gridworld_is_a_valid_mdp_with_a_rewarded_goal():
    g = gridworld(4, 0.9, 0.2, seed=1)
    np.testing.assert_allclose(g.P.sum(-1), 1.0, atol=1e-14)
    assert g.r_true[-1, 0] == g.r_true.max() and tuple(g.grid_shape) == (4, 4)
    assert np.all(g.P[0, 0, 0] >= 0.8)          # moving up from the top-left corner stays put (wall + slip)


def test_sampled_demonstrations_converge_to_the_expert_occupancy(mdp, expert):
    rho_e, _ = expert
    pi = expert_policy(rho_e)
    small = sample_demonstrations(mdp, pi, 20, 60, seed=0)
    big = sample_demonstrations(mdp, pi, 4000, 60, seed=0)
    e_small = np.abs(empirical_occupancy(small, mdp) - rho_e).sum()
    e_big = np.abs(empirical_occupancy(big, mdp) - rho_e).sum()
    assert e_big < 0.05 < e_small and e_big < e_small / 4
    assert np.abs(empirical_policy(big, mdp) - pi).max() < 0.03
    again = sample_demonstrations(mdp, pi, 20, 60, seed=0)
    np.testing.assert_array_equal(again.states, small.states)


@pytest.mark.parametrize("field,value", [("eta", 0.0), ("eta", 1.5), ("gamma", 1.0), ("env", "maze"),
                                         ("n_iters", 0), ("dual_step", -1.0), ("grid_size", 20)])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=f"^{field}: .*allowed"):
        IRLConfig(**{field: value})


def test_bad_study_config_names_the_field():
    with pytest.raises(ValueError, match="^etas: .*allowed"):
        StudyConfig(etas=(0.5, 2.0))
    with pytest.raises(ValueError, match="^reward: .*allowed"):
        soft_solve(random_mdp(3, 2, seed=0), np.zeros((2, 2)))


def test_fisher_is_the_covariance_of_discounted_counts_with_the_trajectory_score():
    """Monte Carlo over sampled trajectories: J = (1 - gamma) E[sum_t gamma^t 1[(s_t, a_t)] (sum_{t'<=t} score_t')].

    The score is d log pi_r(a|s) / d r by finite differences (no successor counts involved). Control: the
    plain covariance of the discounted counts, (1 - gamma) Cov(N), which is the Fisher only in the
    finite-horizon non-causal model, must differ.
    """
    m = random_mdp(3, 2, 0.7, seed=5)
    r, SA, eps = m.r_true, 6, 1e-6
    J = fisher(m, r)
    dlog = np.zeros((3, 2, SA))
    for i in range(SA):
        e = np.zeros(SA)
        e[i] = eps
        e = e.reshape(3, 2)
        dlog[:, :, i] = (soft_solve(m, r + e).log_policy - soft_solve(m, r - e).log_policy) / (2 * eps)
    n, H = 40000, 60
    d = sample_demonstrations(m, soft_solve(m, r).policy, n, H, seed=1)
    idx = d.states * 2 + d.actions
    score, cross, counts = np.zeros((n, SA)), np.zeros((SA, SA)), np.zeros((n, SA))
    for t in range(H):
        score += dlog[d.states[:, t], d.actions[:, t]]
        visit = np.zeros((n, SA))
        visit[np.arange(n), idx[:, t]] = m.gamma ** t
        cross += visit.T @ score
        counts += visit
    estimate = (1 - m.gamma) * cross / n
    assert np.abs(estimate - J).max() < 0.08 * np.abs(J).max()
    naive = (1 - m.gamma) * np.cov(counts.T)
    assert np.abs(naive - J).max() > 0.25 * np.abs(J).max()
