"""MCR²: the error bound near local maximisers, the PL inequality and linear convergence.

The paper's claim: the (regularised) maximal coding rate reduction objective
F(Z) = R(Z) − R_c(Z | Π) − (λ/2)‖Z‖²_F satisfies an error bound near its local maximisers,
dist(Z, 𝒳*) ≤ κ‖∇F(Z)‖, which implies the Polyak–Łojasiewicz inequality ‖∇F‖² ≥ 2μ(F* − F) and
quadratic growth, so first-order methods converge linearly to a local maximiser; and optimising
MCR² improves representation geometry while keeping downstream accuracy.

What is ours (the abstract leaves it open), each documented where it lives:

- the objective's conventions (:mod:`.objective`): ε as in the paper and the ``mcr2`` PyPI package;
  the original training code's eps is ε² and its loss is −2ΔR (:func:`reference_code_loss`);
- the maximiser set (:mod:`.maximisers`): the closed form for orthogonal class subspaces (σ_k² the
  larger root of λ(1 + αs)(1 + α_k s) = α(α_k − α)s), the rank pattern read off a point's own
  spectrum, and the distance to 𝒳*(r) by alternating Procrustes steps;
- the experiment (:mod:`.ascent`): plain gradient ascent on free features of equal-sized classes
  from Gaussian starts, the tail (gap in [1e-9, 1e-3]) over which slopes and bounds are fitted, and
  F* taken from the closed form rather than the run's last value. No Riemannian variant: the
  paper's setting is the unconstrained regularised objective;
- the controls: a perturbed strict saddle (:func:`saddle_point`), far from every maximiser, for
  the error bound; ascent at the critical λ_c, where the two roots merge into a degenerate
  critical point, for PL and the linear rate; cross-entropy features and raw pixels for geometry;
- the network setting (:mod:`.digits`): an MLP on scikit-learn's digits trained with Adam, its
  training features tracked as the free features are (F, ‖∇_Z F‖, distance to 𝒳*(r), gap, PL
  ratio, contraction), geometry measured on unit-norm test features, accuracy by logistic regression.
"""

from core.mcr2.ascent import (AscentConfig, AscentResult, AscentTrace, Features, TailFit, ascend, fit_tail,
                              initial_features, trace_of)
from core.mcr2.digits import OBJECTIVES, DigitsConfig, DigitsResult, Geometry, geometry, train_digits
from core.mcr2.maximisers import (Projection, Roots, SaddlePoint, critical_lambda, direction_value,
                                  distance_to_maximisers, maximiser_value, rank_pattern, saddle_point,
                                  singular_value_roots, subspace_cosines)
from core.mcr2.objective import (class_coding_rate, coding_rate, rate_reduction, rate_reduction_grad,
                                 reference_code_loss)
from core.mcr2.views import SaddleProbe, saddle_probe

from core.mcr2.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "coding_rate", "class_coding_rate", "rate_reduction", "rate_reduction_grad", "reference_code_loss",
    "Roots", "singular_value_roots", "critical_lambda", "direction_value", "maximiser_value", "rank_pattern",
    "Projection", "distance_to_maximisers", "subspace_cosines", "saddle_point", "SaddlePoint",
    "AscentConfig", "AscentResult", "AscentTrace", "trace_of", "TailFit", "ascend", "fit_tail", "initial_features",
    "Features",
    "OBJECTIVES", "DigitsConfig", "DigitsResult", "Geometry", "geometry", "train_digits",
    "SaddleProbe", "saddle_probe",
]
