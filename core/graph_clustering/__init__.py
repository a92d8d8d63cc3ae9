"""GFM-UC: a graph foundation model for unified, label-free clustering, pretrained then adapted.

The paper's claim: a graph foundation model pretrained on a source domain, by selecting learnable
high-confidence unified subgraph prototypes and training a clustering network with them (node and
graph levels together), clusters a target domain after a short fine-tune that aligns it with the
source in a distribution-aware way, with no labels anywhere, and beats state-of-the-art graph
clustering methods on five datasets.

What is ours (only the abstract was available), each documented where it lives:

- the network: a k-layer GCN (torch_geometric ``GCNConv``) whose node outputs are averaged over each
  node's k-hop ego-subgraph, so each embedding is that subgraph's; K learnable prototypes; DEC's
  Student-t assignment with its sharpened target; the high-confidence subgraphs as the top half of
  each cluster by confidence; DMoN's modularity and collapse losses as the structural term; a
  prototype orthogonality term (:mod:`.gfm`, :mod:`.network`);
- the cross-domain map: each domain's features through its own truncated SVD to 24 dimensions
  (:func:`.data.svd_align`), the GCOPE/MDGFM trick; the fine-tune's distribution-aware alignment as the
  RBF MMD² (or CORAL) between target embeddings and a sample of source embeddings, plus an
  information-maximisation entropy term;
- "graph level": whole graphs mean-pooled through the same network and assigned to the same kind of
  prototypes (:mod:`.graphs`, MUTAG); in node-level pretraining the graph-level signal is the
  collapse (balance) term on the whole graph's mean assignment;
- the data: contextual SBMs and LFR graphs generated from seeds, an Erdős–Rényi control, the karate
  club, MUTAG from grakel's files (:mod:`.data`); the baselines' settings (:mod:`.baselines`).

K (the number of clusters) is given to every method, as usual in clustering benchmarks. The five
datasets of the paper are not reproduced: we measure on our synthetic domains.
"""

from core.graph_clustering.baselines import daegc_labels, dmon_labels, kmeans_features, spectral_labels
from core.graph_clustering.data import (DOMAIN_LABELS, DOMAIN_NOTES, DOMAINS, GraphSet, NodeDomain, karate_club, make_csbm,
                                        make_domain, make_er_control, make_lfr, mutag_graphs, svd_align)
from core.graph_clustering.experiment import BASELINES, METHOD_LABELS, METHODS, TransferRun, project_2d, transfer_run
from core.graph_clustering.graphs import GraphClustering, cluster_graphs
from core.graph_clustering.gfm import AdaptConfig, Clustering, PretrainConfig, Pretrained, adapt, from_scratch, pretrain
from core.graph_clustering.metrics import (ClusterScores, ModularityLosses, ari, cluster_accuracy, contingency,
                                           match_labels, modularity_losses, nmi, score_clustering)

from core.graph_clustering.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "NodeDomain", "GraphSet", "make_csbm", "make_lfr", "make_er_control", "karate_club", "mutag_graphs",
    "svd_align", "make_domain", "DOMAINS", "DOMAIN_LABELS", "DOMAIN_NOTES", "PretrainConfig", "AdaptConfig", "Pretrained",
    "Clustering", "pretrain", "adapt", "from_scratch", "kmeans_features", "spectral_labels", "dmon_labels",
    "daegc_labels", "contingency", "cluster_accuracy", "nmi", "ari", "ClusterScores", "score_clustering",
    "ModularityLosses", "modularity_losses", "TransferRun", "transfer_run", "project_2d", "METHODS", "BASELINES",
    "METHOD_LABELS", "GraphClustering", "cluster_graphs", "match_labels",
]
