"""GETO-LP: an exact, grid-efficient LP for fixed-support Wasserstein barycenters.

The paper's claim: on a d-dimensional grid of N points, the barycenter of M distributions can be
computed exactly by an LP with O(d M N^{1+1/d}) variables instead of the classical O(M N^2), and its
solution gives the barycenter and the optimal transport plans to every input without further
optimisation. We check it against POT's classical LP and compare with entropic solvers.

The paper's text was not available to us; everything below is our reading, stated where it lives:

- the formulation (:mod:`.layered`): for a cost that splits over the axes, each coupling is a flow
  through d + 1 copies of the grid, stage k moving mass along axis k only. Exactly
  ``M N sum_k n_k + N`` variables; the M - 1 redundant mass rows are dropped;
- the costs accepted (:mod:`.grid`): "sqeuclidean", "l1", "lp:<p>" on coordinates index x spacing;
  anything not separable is refused. Inputs are rescaled to mass 1 and weights to sum 1;
- the solver (:mod:`.solve`): HiGHS through highspy (interior point + crossover by default), for its
  progress log and its interrupt callback, which make a long solve observable and stoppable;
- the plans (:mod:`.plans`): a Markov composition of the stage flows, a path decomposition whose
  cost equals the LP's for separable costs;
- baselines and exact scoring (:mod:`.baselines`), the applications: digits and shapes
  (:mod:`.images`), colour palettes (:mod:`.palettes`), organ-like volumes (:mod:`.volumes`), built
  for the page by :mod:`.problems`; each kind's default view is shipped by :mod:`.ship`.

POT, HiGHS, PyVista and scikit-learn are imported inside the functions that need them (POT imports
torch when it is installed), so importing this package loads none of them.
"""

from core.geto_lp.barycenter import BarycenterResult, barycenter
from core.geto_lp.baselines import (LABELS, METHODS, Baselines, Comparison, Measurement, SolverRun, compare_solvers,
                                    exact_objective, measured, run_baselines, run_method)
from core.geto_lp.grid import (SEPARABLE, SeparableCost, check_histograms, cost_matrix, count_classical_variables,
                               count_variables, parse_cost)
from core.geto_lp.images import SHAPES, digit_image, shape_image
from core.geto_lp.layered import LayeredLP, build_layered_lp
from core.geto_lp.palettes import SCENES, bin_centres, colour_histogram, scene_image, transfer_palette
from core.geto_lp.plans import FlowPaths, compose_stages, flow_paths, plan_cost
from core.geto_lp.problems import DEFAULTS, KINDS, Problem, input_labels, problem_inputs
from core.geto_lp.solve import SOLVERS, solve_lp
from core.geto_lp.volumes import Surface, isosurface, mass_level, organ_volume

from core.geto_lp.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "barycenter", "BarycenterResult", "SOLVERS", "SEPARABLE",
    "build_layered_lp", "LayeredLP", "solve_lp", "compose_stages", "plan_cost", "flow_paths", "FlowPaths",
    "parse_cost", "SeparableCost", "check_histograms", "cost_matrix", "count_variables", "count_classical_variables",
    "METHODS", "LABELS", "Comparison", "SolverRun", "run_method", "compare_solvers", "exact_objective", "measured",
    "Measurement",
    "Baselines", "run_baselines", "KINDS", "DEFAULTS", "Problem", "input_labels", "problem_inputs",
    "SHAPES", "digit_image", "shape_image",
    "SCENES", "scene_image", "colour_histogram", "bin_centres", "transfer_palette",
    "organ_volume", "isosurface", "mass_level", "Surface",
]
