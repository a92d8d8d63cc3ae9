"""The robust-decisions paper's headline claims, checked by ``bench/robust_decisions.py``."""

import math

from core.common.claims import Claim
from core.common.decisions import Every, InBand, PairedT, Some, Threshold
from core.common.rules import Check, Diagnosis, Rule

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
          "Not measured: the comparison is with Medina & Vassilvitskii's stated bound (its exponent and constants), "
          "which was not available to us. What we measure against our reading of their rule is claim beats_ric_h.",
          "Their bound; a Cantelli bound of ours on RIC-h's clustered reserves is reported beside the abstract's."),
    Claim("beats_ric_h",
          "Our reading of that comparison: on the same pricing instances, the robust policy at ε*(η) has lower "
          "excess loss than RIC-h (our implementation of Medina & Vassilvitskii's reserve-price rule) as η falls, "
          "and its loss falls faster.",
          "Per error law, paired over the replicates (fresh settings) of the rate experiment: log(loss at ε*(η) / "
          "RIC-h's loss) at the smallest η, 95% t interval below 0; and each replicate's least-squares slope of "
          "that log ratio against log η over the 10 noise levels, 95% t interval above 0.",
          "Nulls: following the prediction (no ball, ε = 0) and a fixed ball (ε = 0.3) that does not shrink with "
          "η, each in the robust policy's place; reference: the abstract's bound against our Cantelli bound for "
          "RIC-h's clusters."),
    Claim("closed_form_policies",
          "The robust policies and their robust optimisation gaps have closed forms in all three settings.",
          "Closed forms against a brute-force grid minimax on random instances.",
          "A brute-force minimax of our own over fine action and state grids; null: the closed form of a ball of half "
          "the radius, which must miss it."),
)

_UNIQUE = ("posted_pricing", "house_flipping")   # problems whose optimal action for a known state is unique
_TYPICAL = ("gaussian", "student_t")             # error laws that target no policy
_HONEST = ("gaussian", "student_t", "worst_case")   # laws not built from ε*(η)
_RATE = 2 / 3 - 0.05                              # the slope's interval must reach this (2/3 within 0.05)
_CASES = ("posted_pricing", "ski_rental:earliest_buy", "ski_rental:never_buy", "house_flipping")


def _brittle(result, problem):
    """Follow-the-prediction's margins from the brittleness test under each typical law: its loss at the smallest η
    over 0.5, and 0.3 over the upper end of its slope's 95% interval (both above 0 when brittle)."""
    out = []
    for law in _TYPICAL:
        f = result["rates"][f"{problem}/{law}"]["follow"]
        out += [f["floor"] - 0.5, 0.3 - f["high"]]
    return out


def _robust_over_follow(result):
    out = []
    for p in _UNIQUE:
        for law in _TYPICAL:
            r = result["rates"][f"{p}/{law}"]
            out.append(r["robust_theory"]["floor"] / r["follow"]["floor"] if r["follow"]["floor"] > 0 else math.inf)
    return out


def _rate(result):
    """Per case × law not built from ε*(η): the ε*(η) policy's slope interval's upper end and its share of runs under
    the bound, each against the low end of its band."""
    return [[(s["high"], _RATE, 2 / 3 + 0.05), (s["share_under_bound"], 0.95, 1.0)]
            for case, r in result["rates"].items() if case.split("/")[1] in _HONEST for s in (r["robust_theory"],)]


def _follow_rate(result):
    return [(result["rates"][f"{p}/{law}"]["follow"]["high"], _RATE, 2 / 3 + 0.05) for p in _UNIQUE for law in _TYPICAL]


def _versus(result, policy, what):
    """Per pricing law, ``policy``'s paired log loss ratios to RIC-h (``smallest``: per replicate at the smallest
    η; ``slopes``: each replicate's slope against log η), from ``versus_ric_h`` (None when not stored)."""
    versus = result.get("versus_ric_h")
    return [v[policy][what] for v in versus.values()] if versus else None


_cluster_bound = Check(
    "cluster_bound", "reference", "the abstract's bound over our Cantelli bound for RIC-h's clustered reserves at the "
    "smallest η, every law (Medina & Vassilvitskii's own bound was not available)",
    lambda r: [b["abstract"][0] / b["ric_clusters"][0] for b in r["bounds"].values()] or None, Every(Threshold(1.0)))


RULES = {
    "follow_is_brittle": Rule(
        checks=(Check("brittle_some", "claim", "follow-the-prediction's loss at the smallest η minus 0.5 and 0.3 minus "
                      "its slope's 95% upper end, Gaussian and Student-t errors, per problem with a unique optimum "
                      "(pricing, house flipping)", lambda r: [_brittle(r, p) for p in _UNIQUE],
                      Some(Every(Threshold(0.0, "above")))),
                Check("brittle_every", "part", "the same margins for every such problem and law",
                      lambda r: [m for p in _UNIQUE for m in _brittle(r, p)], Every(Threshold(0.0, "above"))),
                Check("robust_policy", "null", "the robust policy at ε*(η) on the same predictions: its loss at the "
                      "smallest η over following's, per problem and law",
                      _robust_over_follow, Some(Threshold(0.1, "above", strict=False))))),
    "robust_rate": Rule(
        checks=(Check("rate_some", "claim", "per problem × law not built from ε*(η) (Gaussian, Student-t, searched "
                      "worst case): the ε*(η) policy's log-log slope, upper end of its 95% interval, against 2/3 − 0.05, "
                      "and its share of runs under the abstract's bound against 0.95", _rate, Some(Every(InBand("above")))),
                Check("rate_every", "part", "the same for every case × law",
                      lambda r: [t for case in _rate(r) for t in case], Every(InBand("above"))),
                Check("follow", "null", "follow the prediction where it is brittle (pricing, house flipping; Gaussian "
                      "and Student-t): upper end of its slope's 95% interval against 2/3 − 0.05",
                      _follow_rate, Some(InBand("above")))),
        reproduced=("rate_some", "rate_every")),
    "improves_on_medina_vassilvitskii": Rule(
        checks=(_cluster_bound,),
        untested="Medina & Vassilvitskii's stated bound (its exponent and constants) was not available to us; what we "
                 "measure against our reading of their rule is claim beats_ric_h",
        diagnosis=Diagnosis("unavailable", "Medina & Vassilvitskii's stated bound, its exponent and constants, was not "
                            "available to us, so the abstract's comparison is not made; python bench/robust_decisions.py "
                            "measures the robust policy against our reading of RIC-h (claim beats_ric_h) and compares "
                            "the abstract's bound with a Cantelli bound of ours on RIC-h's clusters.")),
    "beats_ric_h": Rule(
        checks=(Check("lower_loss", "claim", "posted pricing, per error law: log(loss at ε*(η) / RIC-h's loss) at the "
                      "smallest η, paired over replicates", lambda r: _versus(r, "robust_theory", "smallest"),
                      Every(PairedT(0.0, "below"))),
                Check("faster_rate", "part", "per error law: each replicate's slope of log(loss at ε*(η) / RIC-h's "
                      "loss) against log η", lambda r: _versus(r, "robust_theory", "slopes"),
                      Every(PairedT(0.0, "above"))),
                Check("no_ball", "null", "following the prediction (ε = 0) in the robust policy's place: log(its loss / "
                      "RIC-h's) at the smallest η, under any law", lambda r: _versus(r, "follow", "smallest"),
                      Some(PairedT(0.0, "below"))),
                Check("fixed_ball", "null", "the robust policy with a fixed ε = 0.3 that does not shrink with η: log(its "
                      "loss / RIC-h's) at the smallest η, under any law", lambda r: _versus(r, "robust", "smallest"),
                      Some(PairedT(0.0, "below"))),
                _cluster_bound)),
    "closed_form_policies": Rule(
        checks=(Check("closed_forms", "claim", "largest difference of the closed-form robust gap from a brute-force "
                      "grid minimax on random instances, in grid tolerances, every problem (ski rental under both "
                      "tie-breaks)", lambda r: [v["max_difference_over_grid_tolerance"]
                                                for v in r["closed_forms"].values()] or None,
                      Every(Threshold(1.0, strict=False))),
                Check("half_radius", "null", "the same difference for the closed form of a ball of half the radius "
                      "in its place (the minimax is over the whole ball), in grid tolerances, every problem",
                      lambda r: [v["half_radius_max_difference_over_grid_tolerance"] for v in r["closed_forms"].values()
                                 if "half_radius_max_difference_over_grid_tolerance" in v] or None,
                      Some(Threshold(1.0, strict=False))),
                *(Check(f"grid_{case.replace(':', '_')}", "reference", f"{case}: against the brute-force minimax of "
                        "our own over fine action and state grids", f"closed_forms.{case}.max_difference_over_grid_tolerance",
                        Threshold(1.0, strict=False)) for case in _CASES))),
}
