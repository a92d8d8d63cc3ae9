"""The occupancy-space IRL paper's headline claims, checked by ``bench/occupancy_irl.py``."""

import math

from core.common.claims import Claim
from core.common.decisions import Binomial, Every, InBand, PairedT, Threshold
from core.common.rules import Check, Rule

CLAIMS = (
    Claim("geodesic_fisher_identity",
          "The geometry along the e-geodesic towards the optimal occupancy shapes the dual gradient: the Fisher "
          "information averaged along that path maps the reward difference to the occupancy difference.",
          "On random MDPs (S = 8, A = 3, γ = 0.9) and a gridworld: the Fisher J(r) against a finite-difference "
          "Jacobian of ρ_r (symmetry, PSD, rank S(A−1)) and a Monte Carlo covariance of discounted counts with "
          "the trajectory score; the mean-value identity J̄(r_E − r) = ρ_E − ρ_r with "
          "32-point Gauss–Legendre; largest absolute errors.",
          "A central finite-difference Jacobian of our own soft planner; the control is the Fisher at the start "
          "point alone, J(r)(r_E − r), which must miss ρ_E − ρ_r."),
    Claim("preconditioned_is_interpolation",
          "Preconditioning the dual gradient with the path-averaged Fisher is a convex interpolation of the old "
          "reward and a target reward, (1 − η) r + η r_E, with little extra cost.",
          "Occupancy difference between the explicit step r − η J̄⁺(ρ_r − ρ_E) and (1 − η) r + η r_E, and the part "
          "of their reward difference outside the shaping space, at η = 0.3, 0.6, 1; η = 1 recovers ρ_E in one "
          "step; time per update of both, against a dual-gradient step.",
          "The step preconditioned by the start point's Fisher alone, J(r)⁺, which must land elsewhere."),
    Claim("approximate_mirror_descent",
          "Policy search over the interpolated rewards induces approximate entropic mirror descent on the policy, "
          "π_{k+1} ∝ π_k^(1−η) π_E^η.",
          "d_E-weighted KL between the soft-optimal policy of the interpolated reward and the exact mirror step, "
          "against the size of the step itself (KL to the previous policy), first step and over 15 steps, 20 random "
          "MDPs, η = 0.3, each against a dual-gradient step's distance from its best-matching mirror step on the "
          "same MDP (η fitted on a grid): paired by MDP, an order of magnitude closer.",
          "Interpolation towards a random target reward (null), which must not be mirror descent towards π_E; the "
          "earlier absolute 10% rule (reference)."),
    Claim("faster_convergence",
          "Geometry-aware IRL converges, and faster than the dual gradient: linearly, at rate 1 − η in our "
          "reading, and in fewer iterations than a best-tuned dual gradient.",
          "Where it could fail, a linear reward class r = Φw with d random features that cannot represent log π_E "
          "(d + S < SA): iterations to a feature-expectation gap of 1e-6 of the geometry-aware step (the dual "
          "gradient preconditioned by the Fisher in the class) at η = 0.5 against the dual gradient at its best of "
          "21 step sizes per MDP, on 50 random MDPs (S = 8, A = 3, d = 8) and 10 larger ones (S = 25, A = 4, d = "
          "25), exact demonstrations; its per-step contraction at η = 0.3, 0.5, 0.8 with 95 % intervals.",
          "The geometry-aware step matching another expert's features (null), which must not reach this expert's; "
          "the tabular study, where log π_E is in the class and the rate follows by construction (reference)."),
)


_SMALL = "exact S=8 A=3"
_LARGE = "exact S=25 A=4"
_ETAS = (0.3, 0.5, 0.8)


def _rows(field: str, reduce=max):
    """The largest (or smallest) of a per-MDP number over the random MDPs and the gridworld; lists flattened."""
    def at(result):
        values = [r[field] for r in result["identities"]["rows"]]
        return reduce(reduce(v) if isinstance(v, list) else v for v in values)
    return at


def _wins(case: str):
    return lambda r: r["convergence"][case]["wins_vs_best_dual"]["0.5"]


_FEAT_SMALL, _FEAT_LARGE = "features S=8 A=3", "features S=25 A=4"


def _feature_wins(case: str, key: str = "iters_natural"):
    """(MDPs on which the step at eta = 0.5, or the control, reaches the gap in fewer iterations than the best-tuned
    dual gradient, MDPs)."""
    def at(r):
        rows = r["features"][case]["rows"]
        mine = [x[key]["0.5"] if key == "iters_natural" else x[key] for x in rows]
        return sum(m < x["iters_gradient_best"] for m, x in zip(mine, rows)), len(rows)
    return at


def _feature_rate(eta: float):
    """The per-MDP contraction of the geometry-aware step at ``eta`` (S = 8)."""
    return lambda r: [x["rate_natural"][f"{eta:g}"] for x in r["features"][_FEAT_SMALL]["rows"]]


def _rate_errors(result) -> list:
    rates = result["convergence"][_SMALL]["rate_interp"]
    return [abs(rates[f"{eta:g}"]["median"] - (1 - eta)) for eta in _ETAS]


def _mirror(field: str, section: str = "mirror_confirm"):
    """Per MDP of ``section``: log10 of ``field``'s ratio over the dual-gradient control's, paired by MDP."""
    def at(result):
        m = result[section]
        return [math.log10(a / b) for a, b in zip(m[field]["values"], m["dual_ratio"]["values"], strict=True)]
    return at


RULES = {
    "geodesic_fisher_identity": Rule(
        checks=(Check("mean_value", "claim", "largest |J̄(r_E − r) − (ρ_E − ρ_r)| over the MDPs, J̄ by 32-point "
                      "Gauss–Legendre along the path", _rows("mean_value_error"), Threshold(1e-9)),
                Check("rank", "claim", "rank of the Fisher J(r) against S(A − 1), per MDP",
                      lambda r: [(x["rank"], x["rank_expected"], x["rank_expected"]) for x in r["identities"]["rows"]],
                      Every(InBand())),
                Check("psd", "claim", "smallest eigenvalue of the Fisher over the MDPs", _rows("min_eigenvalue", min),
                      Threshold(-1e-12, "above")),
                Check("finite_differences", "reference", "largest difference of the Fisher from a central "
                      "finite-difference Jacobian of ρ_r over the MDPs", _rows("fisher_vs_fd"), Threshold(1e-7)),
                Check("monte_carlo", "reference", "the Fisher against (1 − γ) Cov(discounted counts, trajectory score) "
                      "by Monte Carlo, error relative to its largest entry",
                      "identities.monte_carlo.score_covariance_rel_error", Threshold(0.05)),
                Check("start_point", "null", "smallest error of the start point's Fisher alone, J(r)(r_E − r), against "
                      "ρ_E − ρ_r over the MDPs (it must miss)", _rows("first_order_control_error", min),
                      Threshold(1e-3, "below", strict=False))),
        reproduced=("mean_value", "rank", "psd", "finite_differences", "monte_carlo", "start_point"),
        partly=("mean_value", "rank", "psd", "finite_differences", "monte_carlo")),
    "preconditioned_is_interpolation": Rule(
        checks=(Check("occupancy", "claim", "largest L1 occupancy difference between the explicit step "
                      "r − η J̄⁺(ρ_r − ρ_E) and (1 − η) r + η r_E, η = 0.3, 0.6, 1, over the MDPs",
                      _rows("step_occupancy_diff"), Threshold(1e-9)),
                Check("shaping", "claim", "largest part of their reward difference outside the potential-shaping "
                      "space", _rows("step_shaping_residual"), Threshold(1e-8)),
                Check("one_step", "claim", "largest gap to ρ_E after one step at η = 1", _rows("eta1_one_step_gap"),
                      Threshold(1e-10)),
                Check("start_point", "null", "smallest L1 distance between the step preconditioned by the start "
                      "point's Fisher alone, J(r)⁺, and the interpolation (it must land elsewhere)",
                      _rows("local_fisher_control_l1", min), Threshold(1e-3, "below", strict=False)))),
    "approximate_mirror_descent": Rule(
        checks=(Check("closer", "claim", "per random MDP, log10 of the interpolation's distance from the exact mirror "
                      "step (KL over the step's own KL, median over 15 steps, η = 0.3) over a dual-gradient step's "
                      "from its best-matching mirror step (the control): t interval over the registered MDPs 20-39 "
                      "wholly below -1 (an order of magnitude closer)", _mirror("interp_median_ratio"),
                      PairedT(-1.0, "below")),
                Check("first_step", "part", "the same at the first step", _mirror("interp_first"),
                      PairedT(-1.0, "below")),
                Check("random_target", "null", "interpolation towards a random target reward, against the mirror step "
                      "towards π_E: the claim's test, which it must fail", _mirror("random_target_ratio"),
                      PairedT(-1.0, "below")),
                Check("earlier_mdps", "reference", "the claim's test on MDPs 0-19 (the section the rule was written "
                      "after)", _mirror("interp_median_ratio", "mirror"), PairedT(-1.0, "below")),
                Check("absolute", "reference", "the earlier rule: median ratio over 15 steps under 10 % (which the "
                      "control also met)", "mirror.interp_median_ratio.median", Threshold(0.1)))),
    "faster_convergence": Rule(
        checks=(Check("wins", "claim", "MDPs (of 50, S = 8, A = 3, d = 8 features) on which the geometry-aware step at "
                      "η = 0.5 reaches a feature gap of 1e-6 in fewer iterations than the best-tuned dual gradient: the "
                      "95 % Clopper-Pearson interval of the share wholly above one half", _feature_wins(_FEAT_SMALL),
                      Binomial(0.5, "above")),
                Check("wins_larger", "part", "the same on 10 larger MDPs (S = 25, A = 4, d = 25)",
                      _feature_wins(_FEAT_LARGE), Binomial(0.5, "above")),
                *(Check(f"rate_{eta:g}", "part", f"per-MDP contraction at η = {eta:g} (S = 8): its 95 % t interval "
                        f"inside {1 - eta:g} ± 0.05", _feature_rate(eta), PairedT(1 - eta, "inside", band=0.05))
                  for eta in _ETAS),
                Check("misspecified", "null", "the geometry-aware step matching another expert's features, its "
                      "iterations to this expert's gap against the best-tuned dual gradient's: the claim's test, "
                      "which it must fail", _feature_wins(_FEAT_SMALL, "control_iters"), Binomial(0.5, "above")),
                Check("tabular_wins", "reference", "the tabular study (log π_E in the class: by construction): share "
                      "of 50 MDPs on which the interpolation at η = 0.5 wins", _wins(_SMALL),
                      Threshold(0.5, "above")),
                Check("tabular_rates", "reference", "the tabular study: |median contraction − (1 − η)| at η = 0.3, "
                      "0.5, 0.8", _rate_errors, Every(Threshold(0.05))),
                Check("tabular_misspecified", "reference", "the tabular study's control: smallest final L1 gap to ρ_E "
                      "of the interpolation towards log π of a different expert, above 0.05 (it stays away from ρ_E)",
                      lambda r: r["convergence"][_SMALL]["control_min_gap"], Threshold(0.05, "above")))),
}
