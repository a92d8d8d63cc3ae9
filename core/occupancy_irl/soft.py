"""Discounted MaxEnt (soft) planning, occupancy measures and the Fisher information in reward space.

For a reward ``r[s, a]`` the soft-optimal policy solves ``Q = r + gamma P V``, ``V = logsumexp_a Q``,
``pi = exp(Q - V)``. Its (normalised) occupancy is ``rho(s, a) = (1 - gamma) sum_t gamma^t
Pr(s_t = s, a_t = a)``, which sums to one. Everything broadcasts over leading batch axes of ``r``
(several rewards on one MDP at once).

The Fisher information. ``Phi(r) = (1 - gamma) p0 . V_r`` is convex with gradient ``rho_r``; its
Hessian ``J(r) = d rho_r / d r`` is the Fisher information of the (discounted) trajectory law in
reward coordinates:

    J = C^T diag(rho) C,  C[(s, a), :] = q(s, a) - sum_a' pi(a'|s) q(s, a'),

where ``q(s, a) in R^{SA}`` are the discounted state-action counts expected from (s, a) (the rows of
``(I - gamma P_pi)^-1``): the covariance, over the policy's action noise, of state-action counts.
Equivalently ``J = (1 - gamma) Cov(N, G)``, the covariance of a trajectory's discounted counts ``N``
with its score ``G = sum_t d log pi_r(a_t|s_t) / d r``. (In the finite-horizon non-causal MaxEnt model
with deterministic dynamics ``G = N`` and the Fisher is the covariance of the counts themselves; in the
discounted causal model it is not. Ours: the discounted causal model, so that the issue's gamma = 0.9
figures apply. The tests check ``J`` against a finite-difference Jacobian of ``rho_r`` and against a
Monte Carlo estimate of ``Cov(N, G)``, and that ``Cov(N, N)`` differs.) Its null space is potential shaping
``gamma P Phi - Phi`` (dimension S, the constant shift included), so its rank is S(A - 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.occupancy_irl.mdp import TabularMDP


@dataclass(frozen=True)
class SoftSolution:
    """The soft-optimal solution for one reward (or a batch).

    Attributes
    ----------
    Q : ndarray, shape (..., S, A)
        Soft action values, ``r + gamma P V``.
    V : ndarray, shape (..., S)
        Soft state values, ``logsumexp_a Q``.
    log_policy : ndarray, shape (..., S, A)
        ``Q - V``, kept in log form so that extreme rewards do not underflow.
    iterations : int
        Soft policy-iteration sweeps used.

    Examples
    --------
    >>> sol = soft_solve(random_mdp(3, 2, seed=0), np.zeros((3, 2)))
    >>> sol.policy.round(3)
    array([[0.5, 0.5],
           [0.5, 0.5],
           [0.5, 0.5]])
    """

    Q: np.ndarray
    V: np.ndarray
    log_policy: np.ndarray
    iterations: int

    @property
    def policy(self) -> np.ndarray:
        return np.exp(self.log_policy)


def state_transitions(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """``P_pi[..., s, s'] = sum_a pi(a|s) P[s, a, s']``."""
    return np.einsum("...sa,sat->...st", policy, mdp.P)


def soft_solve(mdp: TabularMDP, reward: np.ndarray, *, log_policy0: np.ndarray | None = None, tol: float = 1e-13,
               max_iter: int = 200) -> SoftSolution:
    """Soft-optimal Q, V and policy by soft policy iteration (quadratically convergent).

    Each sweep evaluates the current policy exactly, ``V = (I - gamma P_pi)^-1 sum_a pi (r - log pi)``,
    then improves it, ``pi <- softmax(r + gamma P V)``; it stops when one soft Bellman backup moves V
    by less than ``tol``.

    .. math:: Q = r + \\gamma P V,\\quad V(s) = \\log \\textstyle\\sum_a e^{Q(s, a)},\\quad
              \\pi(a|s) = e^{Q(s, a) - V(s)}.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP (transitions and discount).
    reward : ndarray, shape (..., S, A)
        One reward table or a batch of them (leading axes are solved at once).
    log_policy0 : ndarray, optional
        A warm start (e.g. the previous iterate's policy), broadcastable to ``reward``.
    tol : float
        Stop when ``max |T V - V| < tol * (1 + max |V|)``; > 0.
    max_iter : int
        Sweeps at most, >= 1.

    Returns
    -------
    SoftSolution
        ``Q``, ``V``, ``log_policy`` with the batch axes of ``reward``, and the sweeps used.

    Raises
    ------
    ValueError
        If ``reward`` does not end in (S, A), or ``tol``/``max_iter`` is out of range.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``); the model is ours, see :mod:`core.occupancy_irl`.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> sol = soft_solve(mdp, mdp.r_true)
    >>> sol.log_policy.shape, bool(np.allclose(sol.policy.sum(-1), 1.0))
    ((3, 2), True)
    >>> bool(np.allclose(sol.V, np.log(np.exp(mdp.r_true + mdp.gamma * mdp.P @ sol.V).sum(-1))))
    True
    """
    from scipy.special import logsumexp    # here, not at the top: the page's first view plans nothing

    reward = np.asarray(reward, dtype=float)
    if not tol > 0 or int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"tol: tol={tol}, max_iter={max_iter}; allowed tol > 0 and an integer max_iter >= 1")
    S, A = mdp.n_states, mdp.n_actions
    if reward.shape[-2:] != (S, A):
        raise ValueError(f"reward: shape {reward.shape} does not end in ({S}, {A}); allowed (..., S, A)")
    log_pi = np.broadcast_to(-np.log(A), reward.shape).copy() if log_policy0 is None else \
        np.broadcast_to(log_policy0, reward.shape).copy()
    eye = np.eye(S)
    for it in range(1, max_iter + 1):
        pi = np.exp(log_pi)
        c = np.sum(pi * (reward - log_pi), axis=-1)
        V = np.linalg.solve(eye - mdp.gamma * state_transitions(mdp, pi), c[..., None])[..., 0]
        Q = reward + mdp.gamma * np.einsum("sat,...t->...sa", mdp.P, V)
        V_new = logsumexp(Q, axis=-1)
        log_pi = Q - V_new[..., None]
        if np.max(np.abs(V_new - V)) < tol * (1.0 + np.max(np.abs(V_new))):    # relative: V can be large
            break
    return SoftSolution(Q, V_new, log_pi, it)


def occupancy(mdp: TabularMDP, policy: np.ndarray, horizon: int | None = None) -> np.ndarray:
    """Normalised discounted occupancy ``rho(s, a) = (1 - gamma) sum_t gamma^t Pr(s_t = s, a_t = a)``.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP (start law, transitions, discount).
    policy : ndarray, shape (..., S, A)
        A stochastic policy (rows sum to one), or a batch of them.
    horizon : int, optional
        Sum over ``t < horizon`` only (forward recursion, >= 0); default the infinite sum, by solving
        ``d = (1 - gamma) p0 + gamma P_pi^T d``.

    Returns
    -------
    ndarray, shape (..., S, A)
        ``rho = d(s) pi(a|s)``; sums to one for the infinite horizon.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> rho = occupancy(mdp, np.full((3, 2), 0.5))
    >>> rho.shape, round(float(rho.sum()), 6)
    ((3, 2), 1.0)
    >>> round(float(occupancy(mdp, np.full((3, 2), 0.5), horizon=1).sum()), 3)    # t = 0 only: 1 - gamma
    0.1
    """
    policy = np.asarray(policy, dtype=float)
    if horizon is not None and (int(horizon) != horizon or horizon < 0):
        raise ValueError(f"horizon: {horizon} is not a step count; allowed None or an integer >= 0")
    Ppi = state_transitions(mdp, policy)
    if horizon is None:
        S = mdp.n_states
        d = np.linalg.solve(np.eye(S) - mdp.gamma * np.swapaxes(Ppi, -1, -2),
                            np.broadcast_to((1 - mdp.gamma) * mdp.p0, policy.shape[:-1])[..., None])[..., 0]
        return d[..., None] * policy
    d_t = np.broadcast_to(mdp.p0, policy.shape[:-1]).copy()
    total = np.zeros(policy.shape[:-1])
    for t in range(horizon):
        total = total + (1 - mdp.gamma) * mdp.gamma ** t * d_t
        d_t = np.einsum("...s,...st->...t", d_t, Ppi)
    return total[..., None] * policy


def soft_occupancy(mdp: TabularMDP, reward: np.ndarray) -> np.ndarray:
    """``rho_r``: the occupancy of the soft-optimal policy for ``reward``.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    reward : ndarray, shape (..., S, A)
        One reward table or a batch.

    Returns
    -------
    ndarray, shape (..., S, A)
        ``occupancy(mdp, soft_solve(mdp, reward).policy)``; the gradient of the soft value
        ``Phi(r) = (1 - gamma) p0 . V_r``.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> rho = soft_occupancy(mdp, mdp.r_true)
    >>> rho.shape, round(float(rho.sum()), 6)
    ((3, 2), 1.0)
    """
    return occupancy(mdp, soft_solve(mdp, reward).policy)


def successor_counts(mdp: TabularMDP, policy: np.ndarray) -> np.ndarray:
    """``M = (I - gamma P_pi)^-1`` over state-action pairs: row (s, a) is ``q(s, a)``, shape (SA, SA).

    ``P_pi[(s, a), (s', a')] = P[s, a, s'] pi(a'|s')``; ``q(s, a)[x]`` is the expected discounted
    number of visits of ``x`` starting with ``(s, a)`` (the visit at t = 0 included).

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    policy : ndarray, shape (S, A)
        The policy that chooses the actions after the first.

    Returns
    -------
    ndarray, shape (SA, SA)
        ``M``, index ``(s, a)`` as ``s * A + a``; each row sums to ``1 / (1 - gamma)``.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> M = successor_counts(mdp, np.full((3, 2), 0.5))
    >>> M.shape, bool(np.allclose(M.sum(1), 1 / (1 - mdp.gamma)))
    ((6, 6), True)
    """
    S, A = mdp.n_states, mdp.n_actions
    Psa = (mdp.P[:, :, :, None] * policy[None, None, :, :]).reshape(S * A, S * A)
    return np.linalg.inv(np.eye(S * A) - mdp.gamma * Psa)


def fisher(mdp: TabularMDP, reward: np.ndarray) -> np.ndarray:
    """The Fisher information ``J(r) = d rho_r / d r`` of the soft-optimal trajectory law, shape (SA, SA).

    .. math:: J = C^\\top \\operatorname{diag}(\\rho_r)\\, C,\\quad
              C_{(s,a)} = q(s,a) - \\textstyle\\sum_{a'} \\pi_r(a'|s)\\, q(s,a').

    Symmetric positive semi-definite by construction, with the shaping space as null space. Index
    ``(s, a)`` is ``s * A + a`` (``reward.ravel()`` order).

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    reward : ndarray, shape (S, A)
        The reward at which the Fisher (the Hessian of the soft value) is taken.

    Returns
    -------
    ndarray, shape (SA, SA)
        ``J(r)``: symmetric PSD of rank S(A - 1).

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``); the model is ours, see :mod:`core.occupancy_irl`.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> J = fisher(mdp, mdp.r_true)
    >>> J.shape, bool(np.allclose(J, J.T)), int(np.linalg.matrix_rank(J))
    ((6, 6), True, 3)
    """
    S, A = mdp.n_states, mdp.n_actions
    pi = soft_solve(mdp, reward).policy
    M = successor_counts(mdp, pi).reshape(S, A, S * A)
    C = (M - np.einsum("sa,sax->sx", pi, M)[:, None, :]).reshape(S * A, S * A)
    rho = occupancy(mdp, pi).ravel()
    return C.T @ (rho[:, None] * C)


def path_fisher(mdp: TabularMDP, reward: np.ndarray, target: np.ndarray, n_nodes: int = 12) -> np.ndarray:
    """The Fisher averaged along the straight line in reward space from ``reward`` to ``target``.

    .. math:: \\bar J = \\int_0^1 J(r + t (r_E - r))\\, dt,

    by ``n_nodes``-point Gauss-Legendre quadrature. The reward line is the e-geodesic: the trajectory
    law is an exponential family in ``r``. By the mean-value theorem ``J_bar (r_E - r) = rho_E - rho_r``.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    reward : ndarray, shape (S, A)
        The start of the path, ``r``.
    target : ndarray, shape (S, A)
        The end of the path, ``r_E``.
    n_nodes : int
        Gauss-Legendre nodes, >= 1.

    Returns
    -------
    ndarray, shape (SA, SA)
        ``J_bar``: symmetric PSD, with the shaping space as null space.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``); the model is ours, see :mod:`core.occupancy_irl`.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> r, r_E = np.zeros((3, 2)), mdp.r_true
    >>> J_bar = path_fisher(mdp, r, r_E, n_nodes=8)
    >>> lhs, rhs = J_bar @ (r_E - r).ravel(), (soft_occupancy(mdp, r_E) - soft_occupancy(mdp, r)).ravel()
    >>> bool(np.allclose(lhs, rhs))
    True
    """
    if int(n_nodes) != n_nodes or n_nodes < 1:
        raise ValueError(f"n_nodes: {n_nodes} is not a node count; allowed an integer >= 1")
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    t, w = (nodes + 1) / 2, weights / 2
    diff = np.asarray(target, float) - np.asarray(reward, float)
    return sum(wi * fisher(mdp, reward + ti * diff) for ti, wi in zip(t, w))


def shaping_basis(mdp: TabularMDP) -> np.ndarray:
    """Columns span potential shaping ``r(s, a) = gamma sum_s' P[s, a, s'] Phi(s') - Phi(s)``, shape (SA, S).

    Rewards that differ by these have the same soft-optimal policy (and occupancy).

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.

    Returns
    -------
    ndarray, shape (SA, S)
        Column ``j`` is the shaping reward of the potential ``Phi = e_j``, raveled as ``s * A + a``.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> B = shaping_basis(mdp)
    >>> B.shape, bool(np.allclose(fisher(mdp, mdp.r_true) @ B, 0.0))
    ((6, 3), True)
    """
    S, A = mdp.n_states, mdp.n_actions
    B = mdp.gamma * mdp.P - np.eye(S)[:, None, :]
    return B.reshape(S * A, S)


def expert_policy(rho: np.ndarray) -> np.ndarray:
    """``pi_E(a|s) = rho(s, a) / sum_a rho(s, a)``: the policy an occupancy measure belongs to.

    Parameters
    ----------
    rho : ndarray, shape (..., S, A)
        An occupancy measure with every state visited (``sum_a rho(s, a) > 0``).

    Returns
    -------
    ndarray, shape (..., S, A)
        The policy; rows sum to one.

    Examples
    --------
    >>> expert_policy(np.array([[0.1, 0.3], [0.4, 0.2]])).round(3)
    array([[0.25 , 0.75 ],
           [0.667, 0.333]])
    """
    rho = np.asarray(rho, float)
    return rho / rho.sum(axis=-1, keepdims=True)


def target_reward(rho_expert: np.ndarray) -> np.ndarray:
    """The target reward ``r_E(s, a) = log pi_E(a|s)``, from the expert occupancy alone (our reading).

    Its soft-optimal policy is ``pi_E`` itself: ``Q = log pi_E``, ``V = logsumexp_a log pi_E = 0``
    solve the soft Bellman equation, so ``rho_{r_E} = rho_E``.

    Parameters
    ----------
    rho_expert : ndarray, shape (S, A)
        The expert occupancy, every state visited and every action taken (else the log is -inf).

    Returns
    -------
    ndarray, shape (S, A)
        ``log pi_E``.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``); the model is ours, see :mod:`core.occupancy_irl`.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> rho_E = soft_occupancy(mdp, 3 * mdp.r_true)
    >>> bool(np.allclose(soft_occupancy(mdp, target_reward(rho_E)), rho_E))
    True
    """
    return np.log(expert_policy(rho_expert))
