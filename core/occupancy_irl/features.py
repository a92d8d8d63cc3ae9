"""MaxEnt IRL in a linear reward class that cannot represent ``log pi_E``: where faster convergence could fail.

With a tabular reward the target ``r_E = log pi_E`` solves the problem in one step at eta = 1, so the
interpolation's rate ``1 - eta`` follows by construction. Here the reward is ``r = Phi w`` with d random
features, d + S < S A, so ``log pi_E`` (even up to potential shaping) lies outside the class and no step can
jump to it. Both methods then solve the same problem, the MaxEnt dual in the class, whose optimum matches the
expert's feature expectations ``Phi^T rho_E``:

- the dual gradient (MaxEnt IRL), ``w - alpha Phi^T (rho_w - rho_E)``, its step tuned per MDP on a grid;
- the geometry-aware step, the dual gradient preconditioned by the Fisher of the trajectory law in the class,
  ``w - eta (Phi^T J(r) Phi)^+ Phi^T (rho_w - rho_E)``: the paper's preconditioned form
  ``r - eta J^+ (rho_r - rho_E)`` restricted to the class, with the Fisher at the current reward (the path
  average to the target needs a target the class cannot hold). Its contraction is ``1 - eta`` near the optimum.

The gap is the feature-expectation gap ``||Phi^T (rho_w - rho_E)||_1``.
"""

from __future__ import annotations

import numpy as np

from core.occupancy_irl.mdp import TabularMDP
from core.occupancy_irl.soft import fisher, occupancy, shaping_basis, soft_solve


def random_features(mdp: TabularMDP, d: int, seed: int) -> np.ndarray:
    """``Phi``, shape (S A, d): Gaussian columns of unit norm, seeded (row ``s * A + a``)."""
    sa = mdp.n_states * mdp.n_actions
    if not 1 <= d < sa:
        raise ValueError(f"d: {d} is outside the feature range; allowed 1 <= d < {sa}")
    phi = np.random.default_rng(seed).normal(size=(sa, d))
    return phi / np.linalg.norm(phi, axis=0)


def representation_residual(mdp: TabularMDP, phi: np.ndarray, reward: np.ndarray) -> float:
    """Relative distance of ``reward`` from the class plus potential shaping: 0 when some ``Phi w`` has its
    soft-optimal policy."""
    basis = np.hstack([phi, shaping_basis(mdp)])
    r = reward.ravel()
    coef, *_ = np.linalg.lstsq(basis, r, rcond=None)
    return float(np.linalg.norm(r - basis @ coef) / max(np.linalg.norm(r), 1e-300))


def _gap(phi: np.ndarray, rho: np.ndarray, rho_ref: np.ndarray) -> np.ndarray:
    return np.abs((rho - rho_ref).reshape(*rho.shape[:-2], -1) @ phi).sum(axis=-1)


def natural_gaps(mdp: TabularMDP, phi: np.ndarray, rho_match: np.ndarray, rho_ref: np.ndarray, etas,
                 n_iters: int) -> np.ndarray:
    """Feature gaps to ``rho_ref`` of the Fisher-preconditioned step matching ``rho_match``, one row per eta,
    shape (len(etas), n_iters + 1), from ``w = 0``."""
    out = np.full((len(etas), n_iters + 1), np.nan)
    for i, eta in enumerate(etas):
        w, lp = np.zeros(phi.shape[1]), None
        for k in range(n_iters + 1):
            r = (phi @ w).reshape(mdp.n_states, mdp.n_actions)
            sol = soft_solve(mdp, r, log_policy0=lp)
            lp = sol.log_policy
            rho = occupancy(mdp, sol.policy)
            out[i, k] = _gap(phi, rho, rho_ref)
            if not np.isfinite(out[i, k]):
                break
            h = phi.T @ fisher(mdp, r) @ phi
            w = w - eta * np.linalg.lstsq(h, phi.T @ (rho - rho_match).ravel(), rcond=None)[0]
    return out


def feature_study(n_mdps: int, n_states: int, n_actions: int, d: int, etas, steps, *, gamma: float = 0.9,
                  beta: float = 1.0, max_iters: int = 1500, natural_iters: int = 400, tol: float = 1e-6,
                  seed: int = 0) -> dict:
    """Per random MDP (seeded as the tabular study's), d random features: iterations to a feature gap of ``tol`` of
    the preconditioned step at each eta and of the dual gradient at each step size (its best per MDP), the
    preconditioned step's contraction, ``log pi_E``'s residual outside the class, and the control: the
    preconditioned step at eta = 0.5 matching another expert's features (soft-optimal for ``beta`` times a seeded
    normal reward), its gap to this expert's."""
    from core.common.seeding import derive_seed
    from core.occupancy_irl.experiment import contraction_rate, dual_gradient_gaps, iterations_to, make_problem
    from core.occupancy_irl.mdp import random_mdp
    from core.occupancy_irl.soft import target_reward

    rows = []
    for i in range(n_mdps):
        mdp = random_mdp(n_states, n_actions, gamma, seed=derive_seed(seed, "mdp", i))
        prob = make_problem(mdp, beta=beta)
        rho_e = prob.rho_expert
        phi = random_features(mdp, d, derive_seed(seed, "features", i))
        other = np.random.default_rng(derive_seed(seed, "other expert", i)).normal(size=mdp.r_true.shape)
        rho_o = occupancy(mdp, soft_solve(mdp, beta * other).policy)
        gn = natural_gaps(mdp, phi, rho_e, rho_e, etas, natural_iters)
        gd = dual_gradient_gaps(prob, steps, max_iters, tol, phi=phi)
        gc = natural_gaps(mdp, phi, rho_o, rho_e, [0.5], natural_iters)[0]
        it_d = iterations_to(gd, tol)
        rows.append({"mdp": i, "residual": representation_residual(mdp, phi, target_reward(rho_e)),
                     "iters_natural": dict(zip((f"{e:g}" for e in etas), iterations_to(gn, tol).tolist())),
                     "rate_natural": dict(zip((f"{e:g}" for e in etas), [contraction_rate(g, tol) for g in gn])),
                     "iters_gradient_best": float(np.min(it_d)),
                     "best_step": float(steps[int(np.argmin(it_d))]) if np.isfinite(it_d).any() else None,
                     "control_iters": float(iterations_to(gc, tol)), "control_min_gap": float(np.nanmin(gc))})
    return {"n_states": n_states, "n_actions": n_actions, "d": d, "gamma": gamma, "beta": beta, "tol": tol,
            "max_iters": max_iters, "natural_iters": natural_iters, "etas": [float(e) for e in etas],
            "steps": [float(a) for a in steps], "rows": rows}
