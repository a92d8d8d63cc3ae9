"""IRL runs: the dual gradient against the occupancy-space (interpolation) update, on one MDP or many.

:func:`run_irl` drives the page: one MDP, one expert, both methods for ``n_iters`` steps from ``r = 0``,
every reward, occupancy and policy kept. :func:`convergence_study` drives the claim test and the bench:
many random MDPs, iterations to an L1 gap of ``tol`` for several ``eta`` against the dual gradient at
every step size of a grid (the best per MDP is "best-tuned"), and a control whose target reward comes
from a different expert.

Ours: the gap is ``||rho_r - rho_E||_1`` to the *true* expert occupancy, also with sampled
demonstrations; the dual-gradient grid is sqrt(2)-spaced from 1 to 1024 (the best step lies inside it
on our MDPs: 16 to 32 at S = 8, A = 3 and 64 to 90 at S = 25, A = 4, where a grid ending at 64 had its
best at the edge); a run whose gap exceeds 4 times its start or turns NaN counts as diverged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_rng, derive_seed
from core.occupancy_irl.demos import empirical_occupancy, empirical_policy, sample_demonstrations
from core.occupancy_irl.mdp import TabularMDP, gridworld, random_mdp
from core.occupancy_irl.soft import occupancy, soft_solve, target_reward
from core.occupancy_irl.updates import interpolation_step, mirror_step, policy_kl

DUAL_STEPS = tuple(float(2 ** (k / 2)) for k in range(21))     # 1 ... 1024
ENVS = ("gridworld", "random")
ENV_LABELS = {"gridworld": "gridworld", "random": "random MDP"}
DEMOS = ("exact", "sampled")


@dataclass(frozen=True)
class IRLConfig(Config):
    """One IRL problem and both methods' settings (the page's controls).

    Every field is range-checked on construction (``ValueError`` naming the field).

    Examples
    --------
    >>> IRLConfig(env="random", n_states=4).n_states
    4
    >>> IRLConfig(eta=1.5)
    Traceback (most recent call last):
    ...
    ValueError: eta: ...
    """

    env: str = choice("gridworld", ENVS, doc="a feature gridworld or a random MDP")
    grid_size: int = param(5, low=3, high=8, integer=True, doc="gridworld side (S = size², A = 4)")
    n_states: int = param(8, low=2, high=40, integer=True, doc="random MDP states")
    n_actions: int = param(3, low=2, high=6, integer=True, doc="random MDP actions")
    gamma: float = param(0.9, low=0.0, high=0.99, low_open=True, doc="discount")
    slip: float = param(0.1, low=0.0, high=0.5, doc="gridworld: probability a move goes a random way")
    expert_beta: float = param(3.0, low=0.1, high=20.0, doc="expert rationality: soft-optimal for beta * r_true")
    demos: str = choice("exact", DEMOS, doc="exact expert occupancy or sampled trajectories")
    n_demos: int = param(50, low=1, high=5000, integer=True, doc="sampled trajectories")
    demo_horizon: int = param(40, low=1, high=400, integer=True, doc="steps per sampled trajectory")
    eta: float = param(0.3, low=0.0, high=1.0, low_open=True, doc="interpolation step eta")
    dual_step: float = param(32.0, low=0.0, high=1e4, low_open=True, doc="dual-gradient step size alpha")
    n_iters: int = param(40, low=1, high=500, integer=True, doc="iterations of each method")


@dataclass(frozen=True)
class Problem:
    """An MDP, its expert, and what IRL sees of it.

    Attributes
    ----------
    mdp : TabularMDP
        The MDP.
    rho_expert : ndarray, shape (S, A)
        The true expert occupancy (what the gap is measured to).
    rho_demo : ndarray, shape (S, A)
        The dual gradient's statistic: ``rho_E``, or ``rho_hat`` from samples.
    r_target : ndarray, shape (S, A)
        The interpolation's target: ``log pi_E``, or ``log pi_hat`` from the same samples.
    log_policy_expert : ndarray, shape (S, A)
        ``log pi_E`` of the true expert.
    sampling_error : float
        ``||rho_hat - rho_E||_1`` (0 with exact demonstrations).

    Examples
    --------
    >>> prob = make_problem(random_mdp(3, 2, seed=0), beta=3.0)
    >>> prob.sampling_error, bool(np.allclose(prob.rho_demo, prob.rho_expert))
    (0.0, True)
    """

    mdp: TabularMDP
    rho_expert: np.ndarray
    rho_demo: np.ndarray
    r_target: np.ndarray
    log_policy_expert: np.ndarray
    sampling_error: float


def make_mdp(config: IRLConfig, seed: int) -> TabularMDP:
    """The MDP a configuration describes: a gridworld or a random MDP, seeded from ``seed``.

    Parameters
    ----------
    config : IRLConfig
        ``env`` and its sizes, ``gamma`` and (gridworld) ``slip``.
    seed : int
        The run's seed (the MDP's own seed is derived from it).

    Returns
    -------
    TabularMDP

    Examples
    --------
    >>> make_mdp(IRLConfig(grid_size=3), 0).P.shape
    (9, 4, 9)
    >>> make_mdp(IRLConfig(env="random", n_states=5, n_actions=2), 0).P.shape
    (5, 2, 5)
    """
    if config.env == "gridworld":
        return gridworld(config.grid_size, config.gamma, config.slip, seed=derive_seed(seed, "mdp"))
    return random_mdp(config.n_states, config.n_actions, config.gamma, seed=derive_seed(seed, "mdp"))


def make_problem(mdp: TabularMDP, *, beta: float = 1.0, demos: str = "exact", n_demos: int = 50, horizon: int = 40,
                 seed: int = 0) -> Problem:
    """The expert (soft-optimal for ``beta * r_true``) and the demonstrations IRL sees.

    Parameters
    ----------
    mdp : TabularMDP
        The MDP, with its hidden ``r_true``.
    beta : float
        Expert rationality, > 0.
    demos : {"exact", "sampled"}
        The exact expert occupancy, or trajectories sampled from the expert.
    n_demos : int
        Sampled trajectories (``demos="sampled"``), >= 1.
    horizon : int
        Steps per sampled trajectory, >= 1.
    seed : int
        Seeds the demonstrations.

    Returns
    -------
    Problem

    Raises
    ------
    ValueError
        If ``beta`` is not positive or ``demos`` is not an option.

    Examples
    --------
    >>> mdp = random_mdp(3, 2, seed=0)
    >>> prob = make_problem(mdp, beta=3.0, demos="sampled", n_demos=10, horizon=10)
    >>> prob.r_target.shape, bool(prob.sampling_error > 0)
    ((3, 2), True)
    """
    if not beta > 0:
        raise ValueError(f"beta: {beta} is not positive; allowed > 0")
    if demos not in DEMOS:
        raise ValueError(f"demos: {demos!r} is not an option; allowed 'exact', 'sampled'")
    expert = soft_solve(mdp, beta * mdp.r_true)
    rho_e = occupancy(mdp, expert.policy)
    if demos == "exact":
        return Problem(mdp, rho_e, rho_e, target_reward(rho_e), expert.log_policy, 0.0)
    if demos != "sampled":
        raise ValueError(f"demos: {demos!r} is not an option; allowed 'exact', 'sampled'")
    d = sample_demonstrations(mdp, expert.policy, n_demos, horizon, seed=derive_seed(seed, "demos"))
    rho_hat = empirical_occupancy(d, mdp)
    return Problem(mdp, rho_e, rho_hat, np.log(empirical_policy(d, mdp)), expert.log_policy,
                   float(np.abs(rho_hat - rho_e).sum()))


@dataclass(frozen=True)
class IRLRun:
    """Both methods on one problem, iterate by iterate (index 0 is the start, r = 0).

    Attributes
    ----------
    gap_dual, gap_interp : ndarray, shape (K + 1,)
        ``||rho_k - rho_E||_1`` to the true expert occupancy.
    reward_dual, reward_interp : ndarray, shape (K + 1, S, A)
    occupancy_dual, occupancy_interp : ndarray, shape (K + 1, S, A)
    mirror_kl : ndarray, shape (K,)
        ``sum_s d_E(s) KL(pi_{k+1} || pi_k^(1-eta) pi_E^eta / Z)``: how far the interpolation's policy is
        from the exact entropic mirror step.
    step_kl : ndarray, shape (K,)
        ``sum_s d_E(s) KL(pi_{k+1} || pi_k)``: the size of the step, for scale.
    rho_expert, r_target, log_policy_expert : ndarray, shape (S, A)
        The true expert occupancy, the interpolation's target reward and the expert's log-policy.
    grid_shape : ndarray, shape (2,) or (0,)
        The gridworld's rows and columns; empty for a random MDP.
    sampling_error : float
        ``||rho_hat - rho_E||_1`` (0 with exact demonstrations).
    eta : float
        The interpolation step used.
    dual_step : float
        The dual-gradient step size used.
    done : int
        Iterations completed (less than ``n_iters`` when stopped).

    Examples
    --------
    >>> run = run_irl(IRLConfig(env="random", n_states=3, n_actions=2, n_iters=3))
    >>> run.gap_dual.shape, run.reward_interp.shape, run.mirror_kl.shape
    ((4,), (4, 3, 2), (3,))
    """

    gap_dual: np.ndarray
    gap_interp: np.ndarray
    reward_dual: np.ndarray
    reward_interp: np.ndarray
    occupancy_dual: np.ndarray
    occupancy_interp: np.ndarray
    mirror_kl: np.ndarray
    step_kl: np.ndarray
    rho_expert: np.ndarray
    r_target: np.ndarray
    log_policy_expert: np.ndarray
    grid_shape: np.ndarray
    sampling_error: float
    eta: float
    dual_step: float
    done: int

    def to_frame(self):
        """The CSV view: one row per iteration with both gaps and the mirror-descent KLs."""
        import pandas as pd

        k = len(self.gap_dual)
        pad = lambda a: np.concatenate([[np.nan], a])     # noqa: E731  (no step before iteration 0)
        return pd.DataFrame({"iteration": np.arange(k), "gap_dual": self.gap_dual, "gap_interpolation": self.gap_interp,
                             "mirror_kl": pad(self.mirror_kl), "step_kl": pad(self.step_kl)})


def run_irl(config: IRLConfig = IRLConfig(), seed: int = 0, progress=None) -> IRLRun:
    """Run the dual gradient and the interpolation update side by side from ``r = 0``.

    The dual gradient steps ``r <- r - alpha (rho_r - rho_demo)``; the interpolation steps
    ``r <- (1 - eta) r + eta r_E``. Both gaps are measured to the true expert occupancy.

    Parameters
    ----------
    config : IRLConfig
        The problem and both methods' settings (validated on construction).
    seed : int
        Seeds the MDP and the demonstrations.
    progress : callable, optional
        ``progress(k, n_iters, {"gap dual", "gap interpolation"})`` after each iteration; False stops.

    Returns
    -------
    IRLRun
        Every iterate of both methods; ``done`` is the iterations completed.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``); the settings are ours, see the module docstring.

    Examples
    --------
    >>> run = run_irl(IRLConfig(env="random", n_states=3, n_actions=2, eta=1.0, n_iters=2))
    >>> run.done, bool(run.gap_interp[1] < 1e-9), bool(run.gap_dual[-1] < run.gap_dual[0])
    (2, True, True)
    """
    if not isinstance(config, IRLConfig):
        raise ValueError(f"config: {type(config).__name__} is not an IRLConfig; allowed IRLConfig(...)")
    mdp = make_mdp(config, seed)
    prob = make_problem(mdp, beta=config.expert_beta, demos=config.demos, n_demos=config.n_demos,
                        horizon=config.demo_horizon, seed=seed)
    S, A = mdp.n_states, mdp.n_actions
    r = np.zeros((2, S, A))           # [dual, interpolation]
    sol = soft_solve(mdp, r)
    rewards, occs, mkl, skl = [r.copy()], [occupancy(mdp, sol.policy)], [], []
    d_e = prob.rho_expert.sum(axis=-1)
    done = 0
    for k in range(1, config.n_iters + 1):
        rho = occs[-1]
        new = np.stack([r[0] - config.dual_step * (rho[0] - prob.rho_demo),
                        interpolation_step(r[1], prob.r_target, config.eta)])
        new_sol = soft_solve(mdp, new, log_policy0=sol.log_policy)
        mkl.append(policy_kl(new_sol.log_policy[1], mirror_step(sol.log_policy[1], prob.r_target, config.eta), d_e))
        skl.append(policy_kl(new_sol.log_policy[1], sol.log_policy[1], d_e))
        r, sol = new, new_sol
        rewards.append(r.copy())
        occs.append(occupancy(mdp, sol.policy))
        done = k
        gaps = np.abs(occs[-1] - prob.rho_expert).sum(axis=(-1, -2))
        if not report(progress, k, config.n_iters, {"gap dual": float(gaps[0]), "gap interpolation": float(gaps[1])}):
            break
    rew, occ = np.array(rewards), np.array(occs)
    gaps = np.abs(occ - prob.rho_expert).sum(axis=(-1, -2))
    return IRLRun(gaps[:, 0], gaps[:, 1], rew[:, 0], rew[:, 1], occ[:, 0], occ[:, 1], np.array(mkl), np.array(skl),
                  prob.rho_expert, prob.r_target, prob.log_policy_expert, mdp.grid_shape, prob.sampling_error,
                  config.eta, config.dual_step, done)


def interpolation_gaps(prob: Problem, etas, n_iters: int, target: np.ndarray | None = None) -> np.ndarray:
    """Gaps ``||rho_k - rho_E||_1`` of the interpolation update for each eta, shape (len(etas), n_iters + 1).

    Parameters
    ----------
    prob : Problem
        The MDP, the true expert occupancy and the target reward.
    etas : sequence of float
        Steps, each in (0, 1], run side by side from ``r = 0``.
    n_iters : int
        Iterations, >= 0.
    target : ndarray, shape (S, A), optional
        A different target reward (the misspecified control); default ``prob.r_target``.

    Returns
    -------
    ndarray, shape (len(etas), n_iters + 1)
        Column 0 is the start; with exact demonstrations the gap shrinks about ``1 - eta`` per step.

    Examples
    --------
    >>> prob = make_problem(random_mdp(3, 2, seed=0), beta=3.0)
    >>> gaps = interpolation_gaps(prob, [0.5, 1.0], 3)
    >>> gaps.shape, bool(gaps[1, 1] < 1e-9), bool(gaps[0, 3] < gaps[0, 0])
    ((2, 4), True, True)
    """
    mdp, etas = prob.mdp, np.asarray(etas, float)
    if etas.ndim != 1 or not len(etas) or not np.all((etas > 0) & (etas <= 1)):
        raise ValueError(f"etas: {etas.tolist()} is not a list of steps; allowed a non-empty list in (0, 1]")
    if int(n_iters) != n_iters or n_iters < 0:
        raise ValueError(f"n_iters: {n_iters} is not an iteration count; allowed an integer >= 0")
    target = prob.r_target if target is None else target
    r = np.zeros((len(etas), mdp.n_states, mdp.n_actions))
    gaps, lp = [], None
    for _ in range(n_iters + 1):
        sol = soft_solve(mdp, r, log_policy0=lp)
        lp = sol.log_policy
        gaps.append(np.abs(occupancy(mdp, sol.policy) - prob.rho_expert).sum(axis=(-1, -2)))
        r = (1 - etas[:, None, None]) * r + etas[:, None, None] * target
    return np.array(gaps).T


def dual_gradient_gaps(prob: Problem, steps, n_iters: int, tol: float = 0.0, phi: np.ndarray | None = None) -> np.ndarray:
    """Gaps of the dual gradient at each step size, shape (len(steps), n_iters + 1); NaN after a stop.

    With ``phi`` (S A x d features, row ``s * A + a``) the reward is ``Phi w``, the step
    ``w - alpha Phi^T (rho_w - rho_demo)`` and the gap the feature gap ``||Phi^T (rho_w - rho_E)||_1``
    (``core/occupancy_irl/features.py``); without, the tabular reward and the L1 occupancy gap.

    A step size stops once its gap is below ``tol`` (the rest of its row is NaN, so the iteration count
    is read as the last finite entry) or once it diverges (gap above 4x its start, or NaN: the row is
    NaN from there on).

    Parameters
    ----------
    prob : Problem
        The MDP, the demonstrations' occupancy (what the gradient matches) and the true one (the gap).
    steps : sequence of float
        Step sizes alpha, each > 0, run side by side from ``r = 0``.
    n_iters : int
        Iterations at most, >= 0.
    tol : float
        Stop a step size once its gap is at most ``tol`` (>= 0; 0 runs every iteration).
    phi : ndarray, shape (S A, d), optional
        Features of a linear reward class ``Phi w``; default the tabular reward.

    Returns
    -------
    ndarray, shape (len(steps), n_iters + 1)
        Gaps, NaN after a stop or a divergence.

    Examples
    --------
    >>> prob = make_problem(random_mdp(3, 2, seed=0), beta=3.0)
    >>> gaps = dual_gradient_gaps(prob, [4.0, 16.0], 5)
    >>> gaps.shape, bool(np.all(gaps[:, 5] < gaps[:, 0]))
    ((2, 6), True)
    """
    mdp, steps = prob.mdp, np.asarray(steps, float)
    if steps.ndim != 1 or not len(steps) or not np.all(steps > 0):
        raise ValueError(f"steps: {steps.tolist()} is not a list of step sizes; allowed a non-empty list of > 0")
    if int(n_iters) != n_iters or n_iters < 0:
        raise ValueError(f"n_iters: {n_iters} is not an iteration count; allowed an integer >= 0")
    if not tol >= 0:
        raise ValueError(f"tol: {tol} is negative; allowed >= 0")
    out = np.full((len(steps), n_iters + 1), np.nan)
    shape = (mdp.n_states, mdp.n_actions)
    project = (lambda x: x) if phi is None else (lambda x: x.reshape(len(x), -1) @ phi)   # to the class's coordinates
    w = np.zeros((len(steps), *shape)) if phi is None else np.zeros((len(steps), phi.shape[1]))
    live = np.arange(len(steps))
    lp = None
    for k in range(n_iters + 1):
        sol = soft_solve(mdp, w if phi is None else (w @ phi.T).reshape(len(w), *shape), log_policy0=lp)
        rho = occupancy(mdp, sol.policy)
        gap = np.abs(project(rho - prob.rho_expert)).sum(axis=tuple(range(1, w.ndim)))
        ok = np.isfinite(gap) & (gap <= 4 * out[live, 0] if k else np.isfinite(gap))
        out[live[ok], k] = gap[ok]
        keep = ok & (gap > tol)
        step = steps[live].reshape(-1, *[1] * (w.ndim - 1))
        live, w, lp = live[keep], (w - step * project(rho - prob.rho_demo))[keep], sol.log_policy[keep]
        if not len(live):
            break
    return out


def iterations_to(gaps: np.ndarray, tol: float) -> np.ndarray:
    """The first iteration at which each row's gap is at most ``tol`` (inf if never).

    Parameters
    ----------
    gaps : ndarray, shape (..., K + 1)
        Gaps per iteration (NaN counts as not reached).
    tol : float
        The tolerance.

    Returns
    -------
    ndarray, shape (...)
        Iteration indices as floats, ``inf`` where the row never reaches ``tol``.

    Examples
    --------
    >>> iterations_to(np.array([[1.0, 0.1, 1e-7], [1.0, 0.5, 0.2]]), 1e-6)
    array([ 2., inf])
    """
    hit = np.nan_to_num(gaps, nan=np.inf) <= tol
    return np.where(hit.any(axis=-1), hit.argmax(axis=-1), np.inf).astype(float)


@dataclass(frozen=True)
class StudyConfig(Config):
    """Many random MDPs, the interpolation at several eta against the best-tuned dual gradient.

    Attributes
    ----------
    etas : tuple of float
        The interpolation steps compared, each in (0, 1].

    Examples
    --------
    >>> StudyConfig(n_mdps=2, etas=(0.5,)).etas
    (0.5,)
    >>> StudyConfig(etas=(0.0,))
    Traceback (most recent call last):
    ...
    ValueError: etas: ...
    """

    n_mdps: int = param(20, low=1, high=500, integer=True, doc="random MDPs drawn")
    n_states: int = param(8, low=2, high=40, integer=True, doc="states per MDP")
    n_actions: int = param(3, low=2, high=6, integer=True, doc="actions per MDP")
    gamma: float = param(0.9, low=0.0, high=0.99, low_open=True, doc="discount")
    expert_beta: float = param(1.0, low=0.1, high=20.0, doc="expert rationality: soft-optimal for beta * r_true")
    demos: str = choice("exact", DEMOS, doc="exact expert occupancy or sampled trajectories")
    n_demos: int = param(50, low=1, high=5000, integer=True, doc="sampled trajectories per MDP")
    demo_horizon: int = param(40, low=1, high=400, integer=True, doc="steps per sampled trajectory")
    tol: float = param(1e-6, low=0.0, high=1.0, low_open=True, doc="L1 gap that counts as converged")
    max_iters: int = param(1500, low=1, high=20000, integer=True, doc="iterations at most per method")
    etas: tuple = (0.3, 0.5, 0.8)
    control_eta: float = param(0.5, low=0.0, high=1.0, low_open=True,
                               doc="step of the control (interpolation towards another expert's target)")

    def validate(self) -> None:
        if not self.etas or any(not (isinstance(e, (int, float)) and 0 < e <= 1) for e in self.etas):
            raise ValueError(f"etas: {self.etas!r} must be numbers in (0, 1]; allowed a non-empty tuple of (0, 1]")


@dataclass(frozen=True)
class ConvergenceStudy:
    """Iterations to the tolerance, per MDP (rows), for each method.

    Attributes
    ----------
    etas, dual_steps : ndarray
    iters_interp : ndarray, shape (n_mdps, n_etas)
    iters_dual : ndarray, shape (n_mdps, n_steps)
        ``inf`` where a step size never reached the tolerance (or diverged).
    iters_dual_best : ndarray, shape (n_mdps,)
        The best-tuned dual gradient: the fewest iterations over the step grid.
    best_step : ndarray, shape (n_mdps,)
    rate_interp : ndarray, shape (n_mdps, n_etas)
        Mean per-step contraction ``(gap_N / gap_0)^(1/N)`` up to the tolerance (or ``max_iters``).
    rate_dual_best : ndarray, shape (n_mdps,)
    first_ratio_interp : ndarray, shape (n_mdps, n_etas)
        ``gap_1 / gap_0``: the one-step shrink factor.
    final_gap_interp, final_gap_dual_best : ndarray
        Gap after ``max_iters`` (sampled demonstrations: the floor each method settles on).
    control_final_gap : ndarray, shape (n_mdps,)
        The interpolation with a misspecified target (``log pi`` of a different expert) after ``max_iters``.
    control_target_gap : ndarray, shape (n_mdps,)
        ``||rho_E' - rho_E||_1``: where the control should end up.
    sampling_error : ndarray, shape (n_mdps,)
    iters_near_floor_interp : ndarray, shape (n_mdps, n_etas)
    iters_near_floor_dual : ndarray, shape (n_mdps,)
        Iterations until the gap is within 10% of the smallest gap either method reached (with sampled
        demonstrations, the floor; inf if never).
    tol : float
        The tolerance the iteration counts refer to.
    done : int
        MDPs completed (less than ``n_mdps`` when stopped).

    Examples
    --------
    >>> study = convergence_study(StudyConfig(n_mdps=1, n_states=3, n_actions=2, max_iters=50, etas=(0.5,)),
    ...                           dual_steps=(4.0, 8.0))
    >>> study.iters_interp.shape, study.iters_dual.shape, study.done
    ((1, 1), (1, 2), 1)
    """

    etas: np.ndarray
    dual_steps: np.ndarray
    iters_interp: np.ndarray
    iters_dual: np.ndarray
    iters_dual_best: np.ndarray
    best_step: np.ndarray
    rate_interp: np.ndarray
    rate_dual_best: np.ndarray
    first_ratio_interp: np.ndarray
    final_gap_interp: np.ndarray
    final_gap_dual_best: np.ndarray
    control_final_gap: np.ndarray
    control_target_gap: np.ndarray
    sampling_error: np.ndarray
    iters_near_floor_interp: np.ndarray
    iters_near_floor_dual: np.ndarray
    tol: float
    done: int


def contraction_rate(gaps: np.ndarray, tol: float) -> float:
    """Mean per-step contraction ``(gap_N / gap_0)^(1/N)`` up to the first gap under ``tol`` (or the last finite one)."""
    g = gaps[np.isfinite(gaps)]
    n = int(np.argmax(g <= tol)) if np.any(g <= tol) else len(g) - 1
    return float((g[n] / g[0]) ** (1.0 / n)) if n > 0 and g[n] > 0 else float("nan")


def convergence_study(config: StudyConfig = StudyConfig(), seed: int = 0, progress=None,
                      dual_steps=DUAL_STEPS) -> ConvergenceStudy:
    """Iterations to ``tol`` of the interpolation update and the best-tuned dual gradient over random MDPs.

    Both methods see the same demonstrations of the same expert on each MDP. The control runs the
    interpolation at ``control_eta`` towards ``log pi_E'`` of another expert (another true reward on
    the same MDP) and must stay away from ``rho_E``.

    Parameters
    ----------
    config : StudyConfig
        Sizes, demonstrations, tolerance and steps (validated on construction).
    seed : int
        Seeds the MDPs, their experts and demonstrations.
    progress : callable, optional
        Called after each MDP; False stops (rows not done are NaN).
    dual_steps : sequence of float
        The dual gradient's step grid, each > 0.

    Returns
    -------
    ConvergenceStudy
        Per-MDP iteration counts, rates, final gaps and the control's gaps.

    References
    ----------
    .. [1] "Occupancy-space reward updates for inverse reinforcement learning" (NeurIPS 2026,
       ``docs/PAPERS.md``); the settings are ours, see the module docstring.

    Examples
    --------
    >>> study = convergence_study(StudyConfig(n_mdps=1, n_states=3, n_actions=2, max_iters=60, etas=(0.5,)),
    ...                           dual_steps=(4.0, 8.0))
    >>> bool(study.iters_interp[0, 0] < study.iters_dual_best[0]), bool(study.control_final_gap[0] > 1e-3)
    (True, True)
    """
    if not isinstance(config, StudyConfig):
        raise ValueError(f"config: {type(config).__name__} is not a StudyConfig; allowed StudyConfig(...)")
    if not len(dual_steps) or any(not float(a) > 0 for a in dual_steps):
        raise ValueError(f"dual_steps: {tuple(dual_steps)!r} is not a step grid; allowed a non-empty list of > 0")
    n, etas, steps = config.n_mdps, np.asarray(config.etas, float), np.asarray(dual_steps, float)
    nan = lambda *shape: np.full(shape, np.nan)     # noqa: E731
    it_i, it_d, rate_i, first_i, fin_i = nan(n, len(etas)), nan(n, len(steps)), nan(n, len(etas)), nan(n, len(etas)), \
        nan(n, len(etas))
    best, best_step, rate_d, fin_d, ctrl, ctrl_t, samp, near_d = (nan(n) for _ in range(8))
    near_i = nan(n, len(etas))
    done = 0
    for i in range(n):
        mdp = random_mdp(config.n_states, config.n_actions, config.gamma, seed=derive_seed(seed, "mdp", i))
        prob = make_problem(mdp, beta=config.expert_beta, demos=config.demos, n_demos=config.n_demos,
                            horizon=config.demo_horizon, seed=derive_seed(seed, "demos", i))
        horizon = config.max_iters if config.demos == "sampled" else min(config.max_iters, 400)
        gi = interpolation_gaps(prob, etas, horizon)
        it_i[i] = iterations_to(gi, config.tol)
        rate_i[i] = [contraction_rate(g, config.tol) for g in gi]
        first_i[i] = gi[:, 1] / gi[:, 0]
        fin_i[i] = gi[:, -1]
        gd = dual_gradient_gaps(prob, steps, config.max_iters, tol=config.tol if config.demos == "exact" else 0.0)
        it_d[i] = iterations_to(gd, config.tol)
        j = int(np.argmin(it_d[i])) if np.isfinite(it_d[i]).any() else int(np.nanargmin(
            [g[np.isfinite(g)][-1] if np.isfinite(g).any() else np.inf for g in gd]))
        best[i], best_step[i] = it_d[i, j], steps[j]
        rate_d[i] = contraction_rate(gd[j], config.tol)
        fin_d[i] = gd[j][np.isfinite(gd[j])][-1]
        floor = 1.1 * min(np.nanmin(gi), np.nanmin(gd[j]))
        near_i[i], near_d[i] = iterations_to(gi, floor), iterations_to(gd[j][None], floor)[0]
        other_reward = derive_rng(seed, "other expert", i).standard_normal(mdp.r_true.shape)
        other = make_problem(replace(mdp, r_true=other_reward), beta=config.expert_beta)
        ctrl[i] = interpolation_gaps(prob, [config.control_eta], min(horizon, 200), target=other.r_target)[0, -1]
        ctrl_t[i] = float(np.abs(other.rho_expert - prob.rho_expert).sum())
        samp[i] = prob.sampling_error
        done = i + 1
        if not report(progress, done, n, {"iterations interpolation": float(it_i[i, 0]),
                                          "iterations dual (best)": float(best[i])}):
            break
    return ConvergenceStudy(etas, steps, it_i, it_d, best, best_step, rate_i, rate_d, first_i, fin_i, fin_d, ctrl,
                            ctrl_t, samp, near_i, near_d, float(config.tol), done)
