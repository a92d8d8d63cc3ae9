"""Tabular MDPs: random MDPs, feature gridworlds, and the experts who act in them.

An MDP here is finite and discounted: ``P[s, a, s']``, a start law ``p0`` and ``gamma``. The expert
of an MDP is the soft-optimal (MaxEnt) policy for a hidden reward ``beta * r_true``; IRL sees only
its occupancy (exact) or trajectories it produced (sampled).

Ours: random MDPs draw each ``P[s, a]`` from a Dirichlet(1) law over ``branching`` random next states
and ``p0`` from Dirichlet(1) over all states (full support, so every state is visited and the
expert's policy is identified from its occupancy); their true reward is standard normal per (s, a).
Gridworlds have four moves (a wall keeps the agent in place), ``slip`` sends a move in a uniformly
random direction, start anywhere with equal probability, and reward each cell by its terrain
feature (three terrain types, weights 0, -0.5, -1) plus +1 at the goal corner.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_rng

MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1))        # up, down, left, right
MOVE_LABELS = ("up", "down", "left", "right")
TERRAIN_WEIGHTS = (0.0, -0.5, -1.0)
GOAL_BONUS = 1.0


@dataclass(frozen=True)
class TabularMDP:
    """A finite discounted MDP.

    Attributes
    ----------
    P : ndarray, shape (S, A, S)
        Transition probabilities ``P[s, a, s']``.
    p0 : ndarray, shape (S,)
        Start-state law.
    gamma : float
        Discount in (0, 1).
    r_true : ndarray, shape (S, A)
        The reward the expert optimises (hidden from IRL).
    features : ndarray, shape (S, F)
        State features that built ``r_true`` (gridworlds; one-hot states for random MDPs).
    grid_shape : ndarray, shape (2,) or (0,)
        Rows and columns of a gridworld (state ``s`` is cell ``divmod(s, cols)``); empty otherwise.

    See Also
    --------
    random_mdp, gridworld : the two builders.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> mdp.n_states, mdp.n_actions, mdp.P.shape
    (3, 2, (3, 2, 3))
    >>> bool(np.allclose(mdp.P.sum(-1), 1.0))
    True
    """

    P: np.ndarray
    p0: np.ndarray
    gamma: float
    r_true: np.ndarray
    features: np.ndarray
    grid_shape: np.ndarray

    @property
    def n_states(self) -> int:
        return self.P.shape[0]

    @property
    def n_actions(self) -> int:
        return self.P.shape[1]


def random_mdp(n_states: int = 8, n_actions: int = 3, gamma: float = 0.9, *, branching: int | None = None,
               seed: int = 0) -> TabularMDP:
    """A random MDP with Dirichlet transitions and a standard normal true reward.

    Parameters
    ----------
    n_states, n_actions : int
        Sizes S >= 2 and A >= 2.
    gamma : float
        Discount in (0, 1).
    branching : int, optional
        Next states reachable from each (s, a) (default: all S).
    seed : int
        Seed of the draw.

    Returns
    -------
    TabularMDP
        ``features`` is the identity (one-hot states); ``grid_shape`` is empty.

    Raises
    ------
    ValueError
        If a size is below 2 or ``gamma`` is outside (0, 1).

    Examples
    --------
    >>> mdp = random_mdp(4, 2, gamma=0.9, branching=2, seed=1)
    >>> mdp.P.shape, mdp.r_true.shape
    ((4, 2, 4), (4, 2))
    >>> int((mdp.P > 0).sum(-1).max())
    2
    """
    if n_states < 2 or n_actions < 2:
        raise ValueError(f"n_states: {n_states} x {n_actions} is too small; allowed at least 2 states and 2 actions")
    if not 0 < gamma < 1:
        raise ValueError(f"gamma: {gamma} is outside the open interval; allowed (0, 1)")
    rng = derive_rng(seed, "random_mdp")
    k = n_states if branching is None else int(np.clip(branching, 1, n_states))
    P = np.zeros((n_states, n_actions, n_states))
    for s in range(n_states):
        for a in range(n_actions):
            support = rng.choice(n_states, size=k, replace=False)
            P[s, a, support] = rng.dirichlet(np.ones(k))
    p0 = rng.dirichlet(np.ones(n_states))
    r_true = rng.standard_normal((n_states, n_actions))
    return TabularMDP(P, p0, float(gamma), r_true, np.eye(n_states), np.zeros(0, dtype=int))


def gridworld(size: int = 5, gamma: float = 0.9, slip: float = 0.1, *, seed: int = 0) -> TabularMDP:
    """A ``size`` x ``size`` gridworld with terrain features and a goal in the bottom-right corner.

    Parameters
    ----------
    size : int
        Side of the grid (S = size**2, A = 4).
    gamma : float
        Discount in (0, 1).
    slip : float
        Probability that a move goes in a uniformly random direction instead.
    seed : int
        Seed of the terrain map.

    Returns
    -------
    TabularMDP
        ``features`` is ``[one-hot terrain (3), goal indicator]`` per state; ``r_true[s, a]`` is
        ``features[s] @ (0, -0.5, -1, 1)`` for every action.

    Raises
    ------
    ValueError
        If ``size`` is below 2, ``gamma`` is outside (0, 1) or ``slip`` outside [0, 1].

    Examples
    --------
    >>> mdp = gridworld(3, slip=0.0)
    >>> mdp.P.shape, mdp.grid_shape
    ((9, 4, 9), array([3, 3]))
    >>> float(mdp.r_true[-1, 0]), float(mdp.P[0, 0, 0])      # goal bonus; "up" from a top cell stays put
    (1.0, 1.0)
    """
    if int(size) != size or size < 2:
        raise ValueError(f"size: {size} is not a grid side; allowed an integer of at least 2")
    if not 0 < gamma < 1:
        raise ValueError(f"gamma: {gamma} is outside the open interval; allowed (0, 1)")
    if not 0 <= slip <= 1:
        raise ValueError(f"slip: {slip} is not a probability; allowed [0, 1]")
    size = int(size)
    rng = derive_rng(seed, "gridworld")
    n = size * size
    terrain = rng.choice(len(TERRAIN_WEIGHTS), size=n, p=(0.6, 0.25, 0.15))
    goal = n - 1
    terrain[goal] = 0
    features = np.zeros((n, len(TERRAIN_WEIGHTS) + 1))
    features[np.arange(n), terrain] = 1.0
    features[goal, -1] = 1.0
    weights = np.array((*TERRAIN_WEIGHTS, GOAL_BONUS))
    P = np.zeros((n, len(MOVES), n))
    for s in range(n):
        row, col = divmod(s, size)
        targets = []
        for dr, dc in MOVES:
            r2, c2 = row + dr, col + dc
            targets.append(r2 * size + c2 if 0 <= r2 < size and 0 <= c2 < size else s)
        for a, target in enumerate(targets):
            P[s, a, target] += 1.0 - slip
            for other in targets:
                P[s, a, other] += slip / len(MOVES)
    r_true = np.repeat((features @ weights)[:, None], len(MOVES), axis=1)
    return TabularMDP(P, np.full(n, 1.0 / n), float(gamma), r_true, features, np.array([size, size]))
