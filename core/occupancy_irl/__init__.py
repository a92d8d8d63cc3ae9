"""Occupancy-space reward updates for inverse RL, against the MaxEnt dual gradient.

The paper's claim: IRL is usually solved by primal-dual gradient methods that ignore the geometry of
occupancy space. The optimal occupancy and its geometry are known, so the geometry along the
e-geodesic to the expert's occupancy can shape the dual gradient: preconditioning by the Fisher
information averaged along that path gives a natural-gradient-style update that is a convex
interpolation ``r <- (1 - eta) r + eta r_E`` of the old reward and a target reward; policy search over
these rewards is approximate entropic mirror descent on the policy; convergence results follow.

What is ours (only the abstract was available), each documented where it lives:

- the model: tabular, discounted (gamma = 0.9 by default), causal MaxEnt: soft value iteration at
  temperature 1, normalised occupancies, the reward a free table r[s, a] (:mod:`.soft`);
- the Fisher: the Hessian of the soft value, ``J = C^T diag(rho) C``, the covariance over the policy's
  action noise of the discounted state-action counts, equivalently ``(1 - gamma) Cov(N, G)`` of a
  trajectory's discounted counts N with its score G (the paper's "covariance of counts", Cov(N, N), is
  exact in the finite-horizon non-causal model; ours is its discounted causal counterpart) (:mod:`.soft`);
- the geodesic: the abstract says "e-geodesic (straight line in occupancy space)"; we average the
  Fisher along the straight line in *reward* coordinates (the exponential family's e-geodesic), for
  which the mean-value identity ``J_bar (r_E - r) = rho_E - rho_r`` is exact (:func:`.path_fisher`);
- the target reward ``r_E = log pi_E(a|s)``, computed from ``rho_E`` alone: its soft-optimal policy is
  ``pi_E`` exactly. The null space of ``J`` is potential shaping (dimension S, the constant shift
  one direction of it), so the preconditioned step equals the interpolation up to shaping;
- the mirror-descent view: the exact step ``pi' ∝ pi^(1-eta) pi_E^eta`` against the soft-optimal policy
  of the interpolated reward, compared by d_E-weighted KL (:mod:`.updates`);
- the MDPs, experts (soft-optimal for beta * r_true), sampled demonstrations and their smoothing
  (:mod:`.mdp`, :mod:`.demos`); the dual-gradient step grid that defines "best-tuned", the gap (L1 to the
  true expert occupancy) and the divergence rule (:mod:`.experiment`).
The convergence "results" are not stated in the abstract; we measure the linear rate and compare it
with 1 - eta, the rate of the reward iterates.
"""

from core.occupancy_irl.demos import Demonstrations, empirical_occupancy, empirical_policy, sample_demonstrations
from core.occupancy_irl.experiment import (DEMOS, DUAL_STEPS, ENV_LABELS, ENVS, ConvergenceStudy, IRLConfig, IRLRun,
                                           Problem, StudyConfig, convergence_study, dual_gradient_gaps,
                                           interpolation_gaps, iterations_to, make_mdp, make_problem, run_irl)
from core.occupancy_irl.mdp import MOVE_LABELS, TabularMDP, gridworld, random_mdp
from core.occupancy_irl.soft import (SoftSolution, expert_policy, fisher, occupancy, path_fisher, shaping_basis,
                                     soft_occupancy, soft_solve, successor_counts, target_reward)
from core.occupancy_irl.updates import (dual_gradient, dual_gradient_step, interpolation_step, mirror_step,
                                        policy_kl, preconditioned_step)

from core.occupancy_irl.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "TabularMDP", "random_mdp", "gridworld", "MOVE_LABELS",
    "SoftSolution", "soft_solve", "occupancy", "soft_occupancy", "successor_counts", "fisher", "path_fisher",
    "shaping_basis", "expert_policy", "target_reward",
    "dual_gradient", "dual_gradient_step", "preconditioned_step", "interpolation_step", "mirror_step", "policy_kl",
    "Demonstrations", "sample_demonstrations", "empirical_occupancy", "empirical_policy",
    "IRLConfig", "IRLRun", "Problem", "make_mdp", "make_problem", "run_irl", "ENVS", "ENV_LABELS", "DEMOS",
    "StudyConfig", "ConvergenceStudy", "convergence_study", "interpolation_gaps", "dual_gradient_gaps",
    "iterations_to", "DUAL_STEPS",
]
