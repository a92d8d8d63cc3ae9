"""The Hebb-RNN paper's headline claims, checked by ``bench/hebbian_memory.py``."""

from core.common.claims import Claim

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
