"""GFM-UC's headline claims, checked by ``bench/graph_clustering.py``."""


from core.common.claims import Claim
from core.common.decisions import AnyOf, Every, Flag, InBand, Interval, PairedT, Some, Threshold
from core.common.rules import Check, Rule

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



_TARGETS = ("csbm_shifted", "csbm_weak_features", "lfr")
_CONTROL = "er_control"


def _scratch_gaps(result):
    """GFM-UC − from-scratch NMI per target: [mean, low, high] (95% t interval over seeds)."""
    return [tuple(result["transfer"][t]["nmi_gap"]["scratch"]) for t in _TARGETS]


def _baselines(result):
    return [m for m in result["transfer"][_TARGETS[0]]["methods"] if m not in ("gfm_uc", "scratch")]


_ANY_UP = Some(Interval(0.0, "above"))
_CONTROL_FLAT = Check("control", "null", "mean NMI of every method on the Erdős–Rényi control target (random features)",
                      lambda r: [v[0] for v in r["transfer"][_CONTROL]["nmi_mean"].values()],
                      Some(Threshold(0.06, "above", strict=False)))

RULES = {
    "transfer_beats_scratch": Rule(
        checks=(Check("not_worse", "claim", "GFM-UC − from-scratch NMI per target (95% t interval over seeds): some "
                      "target's interval above 0, or every target's high end at or above 0",
                      lambda r: (_scratch_gaps(r), [g[2] for g in _scratch_gaps(r)]),
                      AnyOf((_ANY_UP, Every(Threshold(0.0, "above", strict=False))))),
                Check("some_gain", "claim", "the same gaps: some target's interval above 0, or some mean gap above 0.01",
                      lambda r: (_scratch_gaps(r), [g[0] for g in _scratch_gaps(r)]),
                      AnyOf((_ANY_UP, Some(Threshold(0.01, "above"))))),
                Check("every_target", "part", "GFM-UC − from-scratch NMI on every target", _scratch_gaps,
                      Every(Interval(0.0, "above"))),
                _CONTROL_FLAT)),
    "beats_baselines": Rule(
        checks=(Check("few_losses", "claim", "targets on which some baseline is significantly ahead of GFM-UC (95% t "
                      "interval of the paired NMI gap wholly below 0)",
                      lambda r: sum(any(r["transfer"][t]["nmi_gap"][b][2] < 0 for b in _baselines(r)) for t in _TARGETS),
                      Threshold(2)),
                Check("every_pair", "part", "GFM-UC − baseline NMI (k-means, spectral, DMoN, DAEGC) on every target",
                      lambda r: [tuple(r["transfer"][t]["nmi_gap"][b]) for t in _TARGETS for b in _baselines(r)],
                      Every(Interval(0.0, "above"))),
                _CONTROL_FLAT)),
    "fast_target_clustering": Rule(
        checks=(Check("faster", "claim", "wall time of the 60-step fine-tune / 150 from-scratch steps, each target",
                      lambda r: [s["time_ratio"] for s in r["speed"].values()], Every(Threshold(1.0))),
                Check("as_good", "claim", "high end of the NMI gap fine-tune − full (150-step) scratch, each target",
                      lambda r: [s["nmi_gap_vs_full"][2] for s in r["speed"].values()],
                      Every(Threshold(0.0, "above", strict=False))),
                Check("short_scratch", "null", "low end of the NMI gap fine-tune − 60-step scratch, each target",
                      lambda r: [s["nmi_gap_vs_short"][1] for s in r["speed"].values()],
                      Some(Threshold(0.0, "below", strict=False))))),
    "label_free": Rule(
        checks=(Check("identical", "claim", "predictions of the run with both domains' labels shuffled against the run "
                      "with the true labels (stored by the bench)", "label_free.identical_predictions",
                      Flag("identical predictions")),
                Check("scores", "null", "NMI against the shuffled labels, in the band [NMI against the true labels − 0.2, "
                      "NMI against the true labels]",
                      lambda r: (r["label_free"]["nmi_shuffled_labels"], r["label_free"]["nmi_true_labels"] - 0.2,
                                 r["label_free"]["nmi_true_labels"]), InBand("above"))),
        partly=("identical", "scores")),
    "unified_node_and_graph": Rule(
        checks=(Check("beats_kmeans", "claim", "MUTAG graph-level NMI of the network less k-means on mean atom "
                      "features (95% t interval over seeds)", "graph_level.gap_vs_kmeans", Interval(0.0, "above")),
                Check("shuffled", "null", "mean NMI against shuffled class labels", "graph_level.shuffled_nmi_mean.0",
                      Threshold(0.03, "above", strict=False)),
                Check("node_pretraining", "part", "graph-level NMI started from the node-level pretraining less from "
                      "scratch, per seed",
                      lambda r: [p - s for p, s in zip(r["graph_level"]["pretrained_nmi"], r["graph_level"]["scratch_nmi"])],
                      PairedT(0.0, "above"))),
        partly=("beats_kmeans", "shuffled")),
}
