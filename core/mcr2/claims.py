"""The MCR² error-bound paper's headline claims, checked by ``bench/mcr2.py``."""


from core.common.claims import Claim
from core.common.decisions import AnyOf, Every, InBand, Some, Threshold, Trend
from core.common.rules import Check, Rule

CLAIMS = (
    Claim("error_bound",
          "Near its local maximisers the regularised MCR² objective satisfies an error bound: the distance to "
          "the set of local maximisers is at most a constant times the gradient norm.",
          "dist(Z, 𝒳*)/‖∇F(Z)‖ over the tail of gradient ascent on free features (d = 10, K = 2, m_k = 30, "
          "ε² = 0.5, λ = 0.01), distance after Procrustes alignment to the closed-form maximiser set, on 5 seeds.",
          "A perturbed strict saddle (one direction at the smaller root), far from every maximiser, where the "
          "ratio must exceed the tail's constant by orders of magnitude."),
    Claim("pl_inequality",
          "The error bound implies the Polyak–Łojasiewicz inequality: ‖∇F‖² ≥ 2μ (F* − F) near the maximisers.",
          "The PL ratio ‖∇F‖²/(F* − F) over the tail, with F* the closed-form maximiser value (not the run's "
          "last value), on 5 seeds.",
          "Ascent at the critical λ_c, where the two roots merge and the maximiser is degenerate: its PL ratio "
          "must fall towards 0."),
    Claim("linear_convergence",
          "Gradient ascent converges linearly to a local maximiser: the gap contracts by a constant factor per step.",
          "Slope of log(F* − F) per step over the tail and on each third of it (equal for a linear rate), the "
          "per-step contraction, and the limit: orthogonal class subspaces with σ² at the predicted root, on 5 seeds.",
          "Ascent at the critical λ_c (degenerate maximiser), whose log-gap slope must flatten along the tail."),
    Claim("geometry_and_accuracy",
          "Optimising MCR² improves representation geometry while keeping downstream accuracy.",
          "An MLP on scikit-learn's digits trained with MCR² against the same MLP trained with cross-entropy: ΔR "
          "and the largest cross-class subspace cosine of unit-norm test features, and logistic-regression test "
          "accuracy, on 3 seeds.",
          "Cross-entropy features (a non-MCR² objective) and the raw pixels, whose geometry must be worse."),
)



def _fits(result):
    return [r["fit"] for r in result["convergence"].values()]


def _kappa_max(result):
    return max(f["kappa"] for f in _fits(result))


def _digit_seeds(result):
    return sorted({k.split("/")[1] for k in result["digits"]})


def _digits(result, objective, seed):
    return result["digits"][f"{objective}/{seed}"]


def _better_margins(result, s):
    """MCR² ΔR over cross-entropy's and over the pixels', and cross-entropy's mean cosine over MCR²'s, on seed s."""
    m, ce = _digits(result, "mcr2", s), _digits(result, "cross_entropy", s)
    return [m["geometry"]["rate_reduction"] - ce["geometry"]["rate_reduction"],
            m["geometry"]["rate_reduction"] - m["raw_geometry"]["rate_reduction"],
            ce["geometry"]["mean_cosine"] - m["geometry"]["mean_cosine"]]


def _accuracy_bands(result):
    """(MCR² accuracy, cross-entropy's less 0.02, cross-entropy's) per seed."""
    out = []
    for s in _digit_seeds(result):
        m, ce = _digits(result, "mcr2", s)["test_accuracy"], _digits(result, "cross_entropy", s)["test_accuracy"]
        out.append((m, ce - 0.02, ce))
    return out


def _tail_margins(result):
    """Per seed: the tail's steps over 100, and 1.2·min − max of dist/‖∇F‖ over it."""
    return [[f["steps"] - 100, 1.2 * f["kappa_min"] - f["kappa"]] for f in _fits(result)]


def _pl_margins(result):
    """Per seed: min − 0.8·max of the PL ratio over the tail, and its min."""
    return [[f["pl_min"] - 0.8 * f["pl_max"], f["pl_min"]] for f in _fits(result)]


def _rate_margins(result):
    """Per seed: −slope of log(F* − F), 0.05 − the thirds' spread, 1e-4 − the limit's σ² error, 1e-8 − its cosine."""
    return [[-c["fit"]["slope"], 0.05 - c["fit"]["slope_spread"], 1e-4 - c["max_rel_sigma_sq_error"],
             1e-8 - c["final_overlap"]] for c in result["convergence"].values()]


_TAIL = ("per seed, the tail's steps over 100 and 1.2·min − max of dist/‖∇F‖ over it (both positive: a tail of more "
         "than 100 steps whose ratio stays within 20% of its minimum)")
_PL = ("per seed, min − 0.8·max of the PL ratio ‖∇F‖²/(F* − F) over the tail, and its min (both positive: bounded "
       "below, within 20% of its maximum)")
_RATE = ("per seed, −slope of log(F* − F), 0.05 − the relative spread of its thirds' slopes, 1e-4 − the limit's "
         "relative σ² error and 1e-8 − its cross-class subspace cosine (all positive: a constant linear rate to the "
         "predicted, orthogonal limit)")

RULES = {
    "error_bound": Rule(
        checks=(Check("some_seed", "claim", _TAIL, _tail_margins, Some(Every(Threshold(0.0, "above")))),
                Check("every_seed", "part", _TAIL, _tail_margins, Every(Every(Threshold(0.0, "above")))),
                Check("saddle", "null", "dist/‖∇F‖ at δ = 10⁻³ from a perturbed strict saddle, less 10 × the largest "
                      "tail constant κ of the seeds", lambda r: r["controls"]["saddle"]["ratio"][2] - 10 * _kappa_max(r),
                      Threshold(0.0, "below", strict=False)),
                Check("saddle_growth", "part", "the saddle control's dist/‖∇F‖ as δ shrinks (10⁻¹ to 10⁻⁵)",
                      "controls.saddle.ratio", Trend("rising", monotone=True)))),
    "pl_inequality": Rule(
        checks=(Check("some_seed", "claim", _PL, _pl_margins, Some(Every(Threshold(0.0, "above")))),
                Check("every_seed", "part", _PL, _pl_margins, Every(Every(Threshold(0.0, "above")))),
                Check("degenerate", "null", "the PL ratio's minimum at the critical λ_c (degenerate maximiser), less a "
                      "quarter of the seeds' smallest",
                      lambda r: r["controls"]["degenerate"]["fit"]["pl_min"] - 0.25 * min(f["pl_min"] for f in _fits(r)),
                      Threshold(0.0, "above", strict=False)))),
    "linear_convergence": Rule(
        checks=(Check("some_seed", "claim", _RATE, _rate_margins, Some(Every(Threshold(0.0, "above")))),
                Check("every_seed", "part", _RATE, _rate_margins, Every(Every(Threshold(0.0, "above")))),
                Check("degenerate", "null", "relative spread of the thirds' log-gap slopes at the critical λ_c",
                      "controls.degenerate.fit.slope_spread", Threshold(0.5, "below", strict=False)))),
    "geometry_and_accuracy": Rule(
        checks=(Check("some_seed", "claim", "per digits seed, MCR² ΔR less cross-entropy's and less the pixels', and "
                      "cross-entropy's mean cross-class cosine less MCR²'s (all positive: better geometry); or MCR²'s "
                      "test accuracy against the band [cross-entropy's − 0.02, cross-entropy's] (accuracy kept)",
                      lambda r: ([_better_margins(r, s) for s in _digit_seeds(r)], _accuracy_bands(r)),
                      AnyOf((Some(Every(Threshold(0.0, "above"))), Some(InBand("above"))))),
                Check("beats_cross_entropy", "part", "per digits seed, MCR² ΔR less cross-entropy's and cross-entropy's "
                      "mean cross-class cosine less MCR²'s (unit-norm test features)",
                      lambda r: [m for s in _digit_seeds(r) for m in (_better_margins(r, s)[0], _better_margins(r, s)[2])],
                      Every(Threshold(0.0, "above"))),
                Check("pixels", "null", "per digits seed, the raw pixels' ΔR less MCR²'s",
                      lambda r: [-_better_margins(r, s)[1] for s in _digit_seeds(r)],
                      Some(Threshold(0.0, "above", strict=False))),
                Check("accuracy", "reference", "MCR²'s logistic-regression test accuracy against cross-entropy's less "
                      "0.02, per digits seed", _accuracy_bands, Every(InBand("above")))),
        reproduced=("some_seed", "beats_cross_entropy", "pixels", "accuracy")),
}
