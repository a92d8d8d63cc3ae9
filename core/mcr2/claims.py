"""The MCR² error-bound paper's headline claims, checked by ``bench/mcr2.py``."""

from core.common.claims import Claim

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
