"""The Tikhonov layer: an interpretable-by-design GNN layer whose explanation is (q, p).

Claim: R = (p(L) + Q)^-1 Q, with L the normalised Laplacian, Q = diag(q) positive node scores
from a Q-network and p a learnable polynomial, gives z = Rx, the exact minimiser of
(z - x)^T Q (z - x) + z^T p(L) z. Large q_i: node i's own features drive the prediction; small q_i:
the graph does. p's shape tells low-pass (homophily), high-pass (heterophily) or band-pass. One
layer has a global receptive field; on graph classification it matches opaque baselines.

Our choices (each documented where it lives):
- p in a Bernstein basis on [0, 2] with theta >= 0, so p >= 0 on the spectrum by construction and
  every filter shape stays reachable; conversion to monomials for inspection (:mod:`.operator`).
  theta = (K + 1) softmax(.) (mean 1): R is blind to (q, p) -> (c q, c p), so the layer fixes the
  scale of p; theta starts flat (p = 1, all-pass).
- identifiability: R determines q and p only up to that scale and p only on spec(L); the
  explanation we report is the normalised (q / c, p|spec / c), c the mean of p on the spectrum,
  which R determines (:func:`normalize_parameters`, :func:`parameters_from_operator`);
- the Q-network: GIN-style hops over the raw features, q = softplus(.) + eps (:mod:`.layer`);
- the classifier: a linear encoder (an MLP encoder decided on a node's own features before q
  could act, and q then explained nothing), Tikhonov layer(s), sum pooling of what the layers
  propagated only, SiLU activations, gradient clipping, an optional penalty on mean q
  (:mod:`.models`, :mod:`.training`); GCN and GIN baselines in plain dense torch; the evaluation
  protocol (final-epoch accuracy, no selection on test folds);
- two solvers: dense for small graphs, matrix-free CG with implicit gradients for large ones;
- the datasets, all offline, the motif classes deconfounded (:mod:`.data`; the containers and the
  MUTAG/Cuneiform loaders are shared in :mod:`core.common.graphs`); oversmoothing as the
  Dirichlet energy of linear propagations (:mod:`.smoothing`);
- the page's first view is shipped as plain arrays (:mod:`.view`), and the names that need torch
  (models, training) are imported on first use, so opening the page costs no torch import.
"""

from importlib import import_module

from core.tikhonov_gnn.config import MODELS, TikhonovConfig, recommended_config
from core.tikhonov_gnn.data import DATASETS, Dataset, Graph, load_dataset
from core.tikhonov_gnn.explain import Explanation, explain, explanation_auroc, explanation_from_scores
from core.tikhonov_gnn.occlusion import occlusion_agreement, occlusion_effects
from core.tikhonov_gnn.operator import (NormalizedExplanation, bernstein_eval, bernstein_to_monomial, filter_kind,
                                        normalize_parameters, normalized_laplacian, parameters_from_operator, poly_eval,
                                        tikhonov_objective, tikhonov_operator)
from core.tikhonov_gnn.view import ShippedView, load_view

from core.tikhonov_gnn.claims import CLAIMS  # noqa: E402

# Names whose modules import torch: loaded on first use, so the page's first view stays torch-free.
_LAZY = {"TikhonovLayer": "layer", "tikhonov_solve": "layer", "TikhonovClassifier": "models", "GCN": "models", "GIN": "models",
         "TrainResult": "training", "cross_validate": "training", "load_model": "training",
         "CrossValidation": "training", "LoadedModel": "training",
         "save_model": "training", "train": "training"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"core.tikhonov_gnn.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'core.tikhonov_gnn' has no attribute {name!r}")


__all__ = [
    "CLAIMS", "tikhonov_operator", "tikhonov_objective", "normalized_laplacian", "bernstein_to_monomial", "bernstein_eval",
    "poly_eval", "filter_kind", "normalize_parameters", "parameters_from_operator",
    "NormalizedExplanation", "tikhonov_solve", "TikhonovLayer", "TikhonovClassifier", "GCN", "GIN",
    "load_dataset", "DATASETS", "Dataset", "Graph", "TikhonovConfig", "recommended_config", "MODELS", "train",
    "TrainResult", "cross_validate", "CrossValidation", "save_model", "load_model", "LoadedModel", "explain", "Explanation", "explanation_auroc",
    "explanation_from_scores", "occlusion_effects", "occlusion_agreement", "ShippedView", "load_view",
]
