"""The Hebb-RNN paper's headline claims, checked by ``bench/hebbian_memory.py``."""


from core.common.claims import Claim
from core.common.decisions import AllOf, Every, InBand, Some, Threshold
from core.common.rules import Check, Rule

CLAIMS = (
    Claim("novel_binding_recall",
          "Meta-trained on rank recall, the Hebb-RNN recalls novel item–rank bindings, outperforming control models.",
          "Recall accuracy on fresh episodes of novel random items (3 chunks × 3 items, 4 probes) of the plastic "
          "network against its α = 0 control and an LSTM trained with the same budget, over 3 meta-training seeds.",
          "The α = 0 network and the LSTM (must stay below chance + 0.1 and below the plastic network)."),
    Claim("orthogonal_2d_geometry",
          "The network develops an orthogonal 2-D ordinal geometry: chunk rank and within-chunk rank on separate, "
          "orthogonal axes.",
          "On the encoding states' condition means per (chunk, position): |cos| between the chunk and position axes "
          "< 0.3, top-2 PCs > 70 % of the variance, CCGP > 0.7 for both factors (scikit-learn logistic "
          "decoders), with explicit chunk cues, over 3 seeds.",
          "The same architecture untrained (its initial weights) must fail at least one threshold."),
    Claim("scaffold_transfer",
          "The pre-learned geometric scaffold accelerates learning of a novel task.",
          "Successor recall (probe rank r, answer the item at r + 1): steps to 0.5 training accuracy and mean "
          "accuracy over the run, fine-tuning the meta-trained network against training from scratch, same "
          "episodes and optimiser, 3 seeds.",
          "Training from scratch (the arm without the scaffold)."),
    Claim("geometry_without_cues",
          "With a predictive module the model acquires the hierarchical geometry without explicit chunking signals.",
          "Surprise of a next-syllable predictor trained on a stream of recurring words marks word boundaries "
          "(boundary F1); the Hebb-RNN trained with those boundaries as its only chunk signal on lexicon sequences "
          "is scored on the same geometry thresholds, 3 seeds.",
          "An untrained (uniform) predictor must fail the boundary F1; the untrained network must fail the geometry."),
)



COS_MAX, TOP2_MIN, CCGP_MIN, F1_MIN = 0.3, 0.7, 0.7, 0.8   # the claims' thresholds (bench/hebbian_memory.py reads them)


def _seeds(*path):
    """A stored number of every seed (``path`` into each seed's record)."""
    def at(result):
        out = []
        for s in result["seeds"]:
            for step in path:
                s = s[step]
            out.append(s)
        return out
    return at


def _margins(g: dict) -> tuple:
    """How far a geometry clears each threshold (positive: it does): |cos|, top-2 share, worse CCGP."""
    return COS_MAX - g["cos_axes"], g["top2"] - TOP2_MIN, min(g["ccgp_position"], g["ccgp_chunk"]) - CCGP_MIN


def _geometry(name: str):
    return lambda r: [list(_margins(s["geometry"][name])) for s in r["seeds"]]


def _threshold(i: int, name: str = "plastic"):
    return lambda r: [_margins(s["geometry"][name])[i] for s in r["seeds"]]


def _not_free(result) -> list:
    """Per threshold: the trained network's margins and the untrained one's, over the seeds."""
    return [([_margins(s["geometry"]["plastic"])[i] for s in result["seeds"]],
             [_margins(s["geometry"]["untrained"])[i] for s in result["seeds"]]) for i in range(3)]


def _either_control(result) -> list:
    """The α = 0 network's distance below chance + 0.1 and the plastic network's lead over the LSTM, per seed."""
    seeds = result["seeds"]
    bar = seeds[0]["chance"] + 0.1
    return [[bar - s["recall"]["nonplastic"] for s in seeds],
            [s["recall"]["plastic"] - s["recall"]["lstm"] for s in seeds]]


def _steps(t: dict, arm: str) -> float:
    n = t[f"to_threshold_{arm}"]
    return float("inf") if n is None or n != n or n in (float("inf"), float("-inf")) else n


def _faster(result) -> list:
    return [_steps(s["transfer"], "scratch") - _steps(s["transfer"], "scaffold") for s in result["seeds"]]


def _auc(result) -> list:
    return [s["transfer"]["auc_scaffold"] - s["transfer"]["auc_scratch"] for s in result["seeds"]]


_THRESHOLDS = {"cos": "0.3 − |cos| between the chunk and position axes", "top2": "the top-2 PCs' share of the variance "
               "− 0.7", "ccgp": "the worse CCGP of the two factors − 0.7"}
_CLEARS = Every(Threshold(0.0, "above"))
_MARGIN = "by how far the encoding geometry clears each threshold (positive: it does)"

RULES = {
    "novel_binding_recall": Rule(
        checks=(Check("recall", "claim", "recall accuracy of the plastic network on fresh episodes, per seed",
                      _seeds("recall", "plastic"), Every(Threshold(0.8, "above"))),
                Check("either_control", "claim", "on every seed, the α = 0 network's distance below chance + 0.1, or "
                      "the plastic network's lead over the LSTM (at least one of the two)", _either_control,
                      Some(_CLEARS)),
                Check("alpha_zero", "null", "recall of the α = 0 network per seed, against chance + 0.1 (it must stay "
                      "below)", lambda r: [(s["recall"]["nonplastic"], r["seeds"][0]["chance"] + 0.1, 1.0)
                                           for s in r["seeds"]], Some(InBand("above"))),
                Check("lstm", "reference", "the plastic network's recall minus the LSTM's (same budget), per seed",
                      lambda r: _either_control(r)[1], _CLEARS)),
        reproduced=("recall", "either_control", "alpha_zero", "lstm")),
    "orthogonal_2d_geometry": Rule(
        checks=(Check("some_threshold", "claim", "per threshold (|cos| < 0.3, top-2 > 70%, CCGP > 0.7): the trained "
                      "network clears it on every seed and the untrained one misses it on some seed; at least one "
                      "threshold", _not_free, Some(AllOf((_CLEARS, Some(Threshold(0.0, "below", strict=False)))))),
                *(Check(t, "part", f"{what}, per seed, trained with explicit cues", _threshold(i), _CLEARS)
                  for i, (t, what) in enumerate(_THRESHOLDS.items())),
                Check("untrained", "null", "the same architecture untrained: " + _MARGIN + ", all three at once on "
                      "some seed (it must miss at least one on every seed)", _geometry("untrained"), Some(_CLEARS)))),
    "scaffold_transfer": Rule(
        checks=(Check("steps_or_accuracy", "claim", "on every seed, the scaffold's lead over scratch in steps to 0.5 "
                      "accuracy, or in mean accuracy over the run (at least one of the two)",
                      lambda r: [_faster(r), _auc(r)], Some(_CLEARS)),
                Check("scratch_steps", "reference", "steps to 0.5 accuracy from scratch minus with the scaffold, per "
                      "seed (never reaching 0.5 counts as infinitely many)", _faster, _CLEARS),
                Check("scratch_accuracy", "reference", "mean accuracy over the run with the scaffold minus from "
                      "scratch, per seed", _auc, _CLEARS)),
        reproduced=("steps_or_accuracy", "scratch_steps", "scratch_accuracy")),
    "geometry_without_cues": Rule(
        checks=(Check("boundaries", "claim", "boundary F1 of the trained next-syllable predictor's surprise, per seed",
                      _seeds("boundaries", "trained", "f1"), Every(Threshold(F1_MIN, "above"))),
                Check("uniform_predictor", "null", "boundary F1 of an untrained (uniform) predictor, per seed (it must "
                      "stay below 0.8)", _seeds("boundaries", "untrained", "f1"),
                      Some(Threshold(F1_MIN, "above", strict=False))),
                *(Check(t, "part", f"{what}, per seed, Hebb-RNN with the predicted boundaries as its only chunk "
                        "signal", _threshold(i, "plastic_predicted"), _CLEARS)
                  for i, (t, what) in enumerate(_THRESHOLDS.items()))),
        partly=("boundaries", "uniform_predictor")),
}
