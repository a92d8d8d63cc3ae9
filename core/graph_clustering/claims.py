"""GFM-UC's headline claims, checked by ``bench/graph_clustering.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("transfer_beats_scratch",
          "Pretrained on a source domain and only fine-tuned on the target, the clustering network clusters the "
          "target better than the same network trained on the target from scratch.",
          "Target NMI of GFM-UC (pretrained on the cSBM source, 60 label-free fine-tune steps) minus that of the same "
          "network and loss trained from scratch for the same 60 steps, on 3 structured targets (shifted cSBM, "
          "weak-feature cSBM, LFR μ = 0.1) over 5 seeds, mean with a 95% t interval.",
          "The Erdős–Rényi control target with random features, where both must stay near NMI 0 and no gap may appear."),
    Claim("beats_baselines",
          "GFM-UC significantly outperforms state-of-the-art graph clustering methods.",
          "Mean target NMI and ACC of GFM-UC against k-means on features, spectral clustering, DMoN (PyG, batch of one) "
          "and DAEGC-style self-training on the same 3 targets and 5 seeds, with 95% t intervals of the paired gaps.",
          "The control target, where every method must score NMI near 0."),
    Claim("fast_target_clustering",
          "Once pretrained, the model needs only a short fine-tune for fast clustering in a new target domain.",
          "Wall time and NMI of the 60-step fine-tune against the from-scratch network given the pretraining's full "
          "150 steps on the target, as a time ratio in the same run.",
          "The from-scratch network at the fine-tune's 60 steps (the budget without pretraining)."),
    Claim("label_free",
          "The entire learning process, pretraining and fine-tuning, uses no labels.",
          "Every prediction of a full run with the source's and the target's labels replaced by a random permutation, "
          "against the run with the true labels (identical predictions: labels only score).",
          "The scores themselves, which must change when the labels are shuffled."),
    Claim("unified_node_and_graph",
          "The same prototypes and clustering network serve node-level and graph-level clustering.",
          "Graph-level clustering of MUTAG (188 molecules, 2 classes) by the network pooled over whole graphs, NMI "
          "against k-means on mean atom features, from scratch and started from the node-level pretraining, over 5 "
          "seeds.",
          "Shuffled class labels, NMI near 0."),
)
