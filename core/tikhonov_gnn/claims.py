"""The Tikhonov GNN paper's headline claims, checked by ``bench/tikhonov_gnn.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("matches_baselines",
          "On standard graph classification benchmarks the Tikhonov layer matches (and sometimes beats) opaque "
          "baselines.",
          "10-fold cross-validated accuracy on MUTAG and Cuneiform (grakel's bundled copies) against GCN and GIN.",
          "GCN and GIN trained on the same folds."),
    Claim("faithful_explanations",
          "The learned node scores q are a faithful explanation: a large q_i marks a node whose own features "
          "drive the prediction.",
          "AUROC of q for the nodes that carry the label on held-out graphs, over 5 seeds, on a motif dataset "
          "(classes with equal edge counts and degree multisets) and a planted-feature dataset.",
          "The same model untrained (its q at initialisation); a random score has AUROC 0.5."),
    Claim("filter_reveals_homophily",
          "The shape of the learned polynomial p reveals whether homophily or heterophily is exploited.",
          "The learned p classified as low- or high-pass on homophilic and heterophilic stochastic block models, "
          "3 seeds each.",
          "The graphs' known homophily."),
    Claim("distinct_operators",
          "Distinct explanations (q, p) necessarily yield distinct propagation operators.",
          "Recovery of the normalised (q / c, p on spec(L) / c) from R alone on 40 random graphs.",
          "Raw pairs (c q, c theta), which give the same R for every c > 0."),
    Claim("long_range",
          "A single layer has a global receptive field, mitigating oversmoothing and oversquashing.",
          "Dirichlet energy of propagated features against depth or strength, and test accuracy reading a value "
          "across a one-node-wide path (2 to 8 hops).",
          "GCN and APPNP propagations on the same graph; GCN and GIN with as many layers as hops."),
)
