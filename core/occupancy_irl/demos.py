"""Expert demonstrations: the exact occupancy, or trajectories sampled from the expert.

With sampled demonstrations both methods see the same trajectories: the dual gradient matches their
empirical discounted occupancy ``rho_hat`` (the usual MaxEnt IRL statistic), the interpolation's target is
``log pi_hat`` with ``pi_hat`` the smoothed empirical policy of the same visits.

Ours: trajectories start from ``p0`` and are cut at ``horizon`` steps; ``rho_hat`` weights step t by
``gamma^t`` and is normalised to sum to one; ``pi_hat(a|s) = (n(s, a) + c) / (n(s) + A c)`` with every
visit counted alike and a pseudo-count ``c = 1`` (Laplace), so that ``log pi_hat`` is finite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_rng
from core.occupancy_irl.mdp import TabularMDP


@dataclass(frozen=True)
class Demonstrations:
    """Sampled expert trajectories.

    Attributes
    ----------
    states, actions : ndarray, shape (N, H)
        State and action indices of N trajectories of H steps.

    Examples
    --------
    >>> d = Demonstrations(np.array([[0, 1]]), np.array([[1, 0]]))
    >>> d.states.shape
    (1, 2)
    """

    states: np.ndarray
    actions: np.ndarray


def sample_demonstrations(mdp: TabularMDP, policy: np.ndarray, n_demos: int, horizon: int, *,
                          seed: int = 0) -> Demonstrations:
    """``n_demos`` trajectories of ``horizon`` steps from ``p0`` under ``policy`` (vectorised over trajectories).

    Parameters
    ----------
    mdp : TabularMDP
        The MDP (start law and transitions).
    policy : ndarray, shape (S, A)
        The expert's policy.
    n_demos : int
        Trajectories, >= 1.
    horizon : int
        Steps per trajectory, >= 1.
    seed : int
        Seed of the draw.

    Returns
    -------
    Demonstrations
        ``states`` and ``actions`` of shape (n_demos, horizon).

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> d = sample_demonstrations(mdp, np.full((3, 2), 0.5), 4, 5, seed=0)
    >>> d.states.shape, bool(d.actions.max() < 2)
    ((4, 5), True)
    """
    if n_demos < 1 or horizon < 1:
        raise ValueError(f"n_demos: {n_demos} trajectories of {horizon} steps; allowed at least 1 of at least 1")
    rng = derive_rng(seed, "demonstrations")
    S, A = mdp.n_states, mdp.n_actions
    cum_pi, cum_P = np.cumsum(policy, axis=-1), np.cumsum(mdp.P, axis=-1)
    states, actions = np.zeros((n_demos, horizon), int), np.zeros((n_demos, horizon), int)
    s = np.minimum(np.searchsorted(np.cumsum(mdp.p0), rng.random(n_demos)), S - 1)
    for t in range(horizon):
        a = np.minimum((cum_pi[s] < rng.random(n_demos)[:, None]).sum(axis=1), A - 1)
        states[:, t], actions[:, t] = s, a
        s = np.minimum((cum_P[s, a] < rng.random(n_demos)[:, None]).sum(axis=1), S - 1)
    return Demonstrations(states, actions)


def empirical_occupancy(demos: Demonstrations, mdp: TabularMDP) -> np.ndarray:
    """``rho_hat``: discounted visit frequencies of the trajectories, normalised to sum to one.

    .. math:: \\hat\\rho(s, a) \\propto \\textstyle\\sum_{i, t} \\gamma^t\\, [s_{it} = s, a_{it} = a]

    Parameters
    ----------
    demos : Demonstrations
        The trajectories.
    mdp : TabularMDP
        The MDP they come from (sizes and discount).

    Returns
    -------
    ndarray, shape (S, A)
        ``rho_hat``, summing to one.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> rho = empirical_occupancy(Demonstrations(np.array([[0, 1]]), np.array([[1, 0]])), mdp)
    >>> rho.round(3)
    array([[0.   , 0.526],
           [0.474, 0.   ],
           [0.   , 0.   ]])
    """
    n, horizon = demos.states.shape
    w = np.broadcast_to(mdp.gamma ** np.arange(horizon), (n, horizon))
    rho = np.zeros((mdp.n_states, mdp.n_actions))
    np.add.at(rho, (demos.states, demos.actions), w)
    return rho / rho.sum()


def empirical_policy(demos: Demonstrations, mdp: TabularMDP, pseudo_count: float = 1.0) -> np.ndarray:
    """``pi_hat(a|s) = (n(s, a) + c) / (n(s) + A c)`` from every visit; uniform in unvisited states.

    Parameters
    ----------
    demos : Demonstrations
        The trajectories.
    mdp : TabularMDP
        The MDP they come from (sizes).
    pseudo_count : float
        The Laplace pseudo-count ``c``, > 0 (so that ``log pi_hat`` is finite).

    Returns
    -------
    ndarray, shape (S, A)
        ``pi_hat``; rows sum to one.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> empirical_policy(Demonstrations(np.array([[0, 0]]), np.array([[1, 1]])), mdp).round(3)
    array([[0.25, 0.75],
           [0.5 , 0.5 ],
           [0.5 , 0.5 ]])
    """
    if not pseudo_count > 0:
        raise ValueError(f"pseudo_count: {pseudo_count} is not positive; allowed > 0")
    counts = np.zeros((mdp.n_states, mdp.n_actions))
    np.add.at(counts, (demos.states, demos.actions), 1.0)
    counts += pseudo_count
    return counts / counts.sum(axis=-1, keepdims=True)
