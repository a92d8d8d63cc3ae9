"""The Tikhonov GNN paper's headline claims, checked by ``bench/tikhonov_gnn.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("matches_baselines",
          "On standard graph classification benchmarks the Tikhonov layer matches (and sometimes beats) opaque "
          "baselines.",
          "10-fold cross-validated accuracy on MUTAG (grakel's bundled copy) against GCN and GIN.",
          "GCN and GIN trained on the same folds."),
    Claim("faithful_explanations",
          "The learned node scores q are a faithful explanation: a large q_i marks a node whose own features "
          "drive the prediction.",
          "AUROC of q for the nodes that carry the label, over 5 seeds, on a motif dataset and a planted-feature "
          "dataset.",
          "AUROC 0.5 (a random score)."),
    Claim("filter_reveals_homophily",
          "The shape of the learned polynomial p reveals whether homophily or heterophily is exploited.",
          "The learned p classified as low- or high-pass on homophilic and heterophilic stochastic block models, "
          "3 seeds each.",
          "The graphs' known homophily."),
    Claim("distinct_operators",
          "Distinct explanations (q, p) necessarily yield distinct propagation operators.",
          "Pairs of parameterisations with the same R, after a normalisation of scale.",
          "R computed from each pair."),
    Claim("long_range",
          "A single layer has a global receptive field, mitigating oversmoothing and oversquashing.",
          "Dirichlet energy against depth and a long-range task across a bottleneck.",
          "GCN and APPNP on the same tasks."),
)
