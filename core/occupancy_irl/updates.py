"""Reward updates for MaxEnt IRL: the dual gradient, its Fisher-preconditioned form, the convex interpolation.

The MaxEnt IRL dual is ``g(r) = Phi(r) - <r, rho_E>`` with ``grad g = rho_r - rho_E``. Its gradient step
is ``r - alpha (rho_r - rho_E)``. Preconditioning by the Fisher averaged along the reward line to the
target, ``r - eta J_bar^+ (rho_r - rho_E)``, equals ``(1 - eta) r + eta r_E`` up to a null-space
(potential-shaping) term, since ``J_bar (r_E - r) = rho_E - rho_r``: the paper's convex interpolation,
computed here both ways.
"""

from __future__ import annotations

import numpy as np

from core.occupancy_irl.mdp import TabularMDP
from core.occupancy_irl.soft import path_fisher, soft_occupancy


def _check_eta(eta: float) -> None:
    if not 0 < eta <= 1:
        raise ValueError(f"eta: {eta} is outside the step range; allowed (0, 1]")


def dual_gradient(mdp: TabularMDP, reward: np.ndarray, rho_expert: np.ndarray) -> np.ndarray:
    """``rho_r - rho_E``: the gradient of the MaxEnt IRL dual at ``reward``.

    .. math:: \\nabla g(r) = \\rho_r - \\rho_E,\\quad g(r) = \\Phi(r) - \\langle r, \\rho_E \\rangle.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    reward : ndarray, shape (S, A)
        The current reward.
    rho_expert : ndarray, shape (S, A)
        The expert's (or the demonstrations') occupancy.

    Returns
    -------
    ndarray, shape (S, A)
        The gradient; it sums to zero (both occupancies sum to one).

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> g = dual_gradient(mdp, np.zeros((3, 2)), soft_occupancy(mdp, mdp.r_true))
    >>> g.shape, round(float(g.sum()), 6)
    ((3, 2), 0.0)
    """
    return soft_occupancy(mdp, reward) - rho_expert


def dual_gradient_step(mdp: TabularMDP, reward: np.ndarray, rho_expert: np.ndarray, step: float) -> np.ndarray:
    """One dual-gradient (MaxEnt IRL) step, ``r - step (rho_r - rho_E)``.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    reward : ndarray, shape (S, A)
        The current reward.
    rho_expert : ndarray, shape (S, A)
        The expert's (or the demonstrations') occupancy.
    step : float
        The step size alpha, > 0.

    Returns
    -------
    ndarray, shape (S, A)
        The next reward.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> rho_E = soft_occupancy(mdp, mdp.r_true)
    >>> gap = lambda r: float(np.abs(soft_occupancy(mdp, r) - rho_E).sum())
    >>> r1 = dual_gradient_step(mdp, np.zeros((3, 2)), rho_E, 8.0)
    >>> bool(gap(r1) < gap(np.zeros((3, 2))))
    True
    """
    if not step > 0:
        raise ValueError(f"step: {step} is not a step size; allowed > 0")
    return reward - step * dual_gradient(mdp, reward, rho_expert)


def preconditioned_step(mdp: TabularMDP, reward: np.ndarray, rho_expert: np.ndarray, r_target: np.ndarray,
                        eta: float, n_nodes: int = 12) -> np.ndarray:
    """The dual gradient preconditioned by the path-averaged Fisher, computed explicitly.

    .. math:: r' = r - \\eta\\, \\bar J^{+} (\\rho_r - \\rho_E),\\quad \\bar J = \\int_0^1 J(r + t (r_E - r)) dt

    (pseudo-inverse, since the shaping directions are a null space). Costs ``n_nodes`` Fisher
    matrices and an SA x SA pseudo-inverse: the reference against which :func:`interpolation_step`
    is checked, not the way to run it.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP.
    reward : ndarray, shape (S, A)
        The current reward ``r``.
    rho_expert : ndarray, shape (S, A)
        The expert occupancy ``rho_E``.
    r_target : ndarray, shape (S, A)
        The end of the path, ``r_E = log pi_E``.
    eta : float
        The step, in (0, 1].
    n_nodes : int
        Gauss-Legendre nodes of the path average, >= 1.

    Returns
    -------
    ndarray, shape (S, A)
        The next reward; it equals :func:`interpolation_step` up to potential shaping.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``).

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> rho_E = soft_occupancy(mdp, 3 * mdp.r_true)
    >>> r, r_E = np.zeros((3, 2)), target_reward(rho_E)
    >>> explicit = preconditioned_step(mdp, r, rho_E, r_E, 0.5, n_nodes=8)
    >>> bool(np.allclose(soft_occupancy(mdp, explicit), soft_occupancy(mdp, interpolation_step(r, r_E, 0.5))))
    True
    """
    _check_eta(eta)
    J = path_fisher(mdp, reward, r_target, n_nodes)
    g = dual_gradient(mdp, reward, rho_expert).ravel()
    return reward - eta * (np.linalg.pinv(J, rcond=1e-10, hermitian=True) @ g).reshape(reward.shape)


def interpolation_step(reward: np.ndarray, r_target: np.ndarray, eta: float) -> np.ndarray:
    """The occupancy-space update ``(1 - eta) r + eta r_E``: no gradient, no Fisher, one line.

    .. math:: r_{k+1} = (1 - \\eta)\\, r_k + \\eta\\, r_E

    Parameters
    ----------
    reward : ndarray, shape (S, A)
        The current reward.
    r_target : ndarray, shape (S, A)
        The target reward ``r_E = log pi_E``.
    eta : float
        The step, in (0, 1]; ``eta = 1`` jumps to the target.

    Returns
    -------
    ndarray, shape (S, A)
        The next reward.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``).

    Examples
    --------
    >>> interpolation_step(np.zeros((1, 2)), np.array([[-1.0, -3.0]]), 0.25)
    array([[-0.25, -0.75]])
    """
    _check_eta(eta)
    return (1.0 - eta) * np.asarray(reward, float) + eta * np.asarray(r_target, float)


def mirror_step(log_policy: np.ndarray, log_policy_expert: np.ndarray, eta: float) -> np.ndarray:
    """The exact entropic mirror step on the policy, ``pi' ∝ pi^(1-eta) pi_E^eta`` per state, in log form.

    Parameters
    ----------
    log_policy : ndarray, shape (..., S, A)
        ``log pi``, the current policy.
    log_policy_expert : ndarray, shape (..., S, A)
        ``log pi_E`` (or the target reward, which is the same thing up to a per-state constant).
    eta : float
        The step, in (0, 1].

    Returns
    -------
    ndarray, shape (..., S, A)
        ``log pi'``, normalised per state.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``).

    Examples
    --------
    >>> out = mirror_step(np.log([[0.5, 0.5]]), np.log([[0.9, 0.1]]), 0.5)
    >>> np.exp(out).round(3)
    array([[0.75, 0.25]])
    """
    _check_eta(eta)
    z = (1.0 - eta) * log_policy + eta * log_policy_expert
    return z - np.logaddexp.reduce(z, axis=-1, keepdims=True)


def policy_kl(log_p: np.ndarray, log_q: np.ndarray, state_weights: np.ndarray) -> float:
    """The state-weighted KL divergence of two policies, ``sum_s d(s) KL(p(.|s) || q(.|s))``.

    Parameters
    ----------
    log_p : ndarray, shape (S, A)
        ``log p``.
    log_q : ndarray, shape (S, A)
        ``log q``.
    state_weights : ndarray, shape (S,)
        ``d(s)``, e.g. the expert's state occupancy.

    Returns
    -------
    float
        The weighted KL, >= 0.

    Examples
    --------
    >>> round(policy_kl(np.log([[0.5, 0.5]]), np.log([[0.9, 0.1]]), np.array([1.0])), 3)
    0.511
    """
    return float(np.sum(state_weights * np.sum(np.exp(log_p) * (log_p - log_q), axis=-1)))
