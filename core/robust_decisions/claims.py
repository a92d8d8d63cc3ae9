"""The robust-decisions paper's headline claims, checked by ``bench/robust_decisions.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("follow_is_brittle",
          "Following the prediction can be brittle: even a predictor with arbitrarily small RMSE can incur "
          "constant excess loss.",
          "Follow-the-prediction's average excess loss at the smallest RMSE (η = 0.001) and its log-log slope, "
          "for pricing and house flipping (whose optimal action is unique) and ski rental under both of its "
          "optimal tie-breaks (buy on day ŝ, never buy), under four error laws.",
          "The robust policy on the same predictions, whose loss must vanish; ski rental under the never-buy "
          "tie-break, where following must not look brittle."),
    Claim("robust_rate",
          "Acting against the worst case in an ε-ball gives O(η^(2/3)) excess loss in all three settings.",
          "Log-log slope (95% interval, 10 noise levels x 5 replicates) of the robust policy at ε*(η), per "
          "problem and law: Gaussian, Student-t, a three-point law built from ε*(η), and a worst case searched "
          "over two- and three-point laws of RMSE η; and the share of runs at or below the bound.",
          "Follow the prediction (flat slope where it is brittle) on the same data."),
    Claim("improves_on_medina_vassilvitskii",
          "For posted pricing this improves on Medina and Vassilvitskii (2017).",
          "Loss and rate of the robust policy against our reading of RIC-h on the same pricing instances; and the "
          "abstract's bound against a bound for RIC-h's clustered reserves on those instances, per noise level. "
          "That bound is ours (Cantelli's inequality in each cluster): Medina & Vassilvitskii's own bound, its "
          "exponent and constants, was not available to us.",
          "RIC-h (Medina & Vassilvitskii's reserve-price rule)."),
    Claim("closed_form_policies",
          "The robust policies and their robust optimisation gaps have closed forms in all three settings.",
          "Closed forms against a brute-force grid minimax on random instances.",
          "A brute-force minimax of our own over fine action and state grids."),
)
