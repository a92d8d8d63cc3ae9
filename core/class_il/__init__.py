"""Task confusion in class-incremental learning, bounded by exp(−γ_min/8).

The paper's claim: discriminative class-IL leaves task confusion (TC) unminimised, yet pretraining
attenuates it exponentially: the TC gap (task-aware minus class-IL accuracy) of any CF-optimal
prototype-based learner (SLDA, RanPAC, FeCAM, ...) is at most exp(−γ_min(φ)/8), γ_min the
worst-case Mahalanobis margin between task centroids in the backbone's feature space; across 12
(backbone, dataset) configurations plus random backbones log(TC gap) falls against γ_min with
slope −0.119 (95% CI [−0.134, −0.105]), consistent with −1/8. The optimisation part E_CF falls as
K^{−(α−1)/α} under gradient noise of tail index α (steeper with clipping), and representation
drift is linear in the backbone learning rate (r = +0.998).

What is ours (only the abstract was available), each documented where it lives:

- the learners' details (:mod:`.learners`): SLDA's exact batch merge, RanPAC with M = 500 random
  features and λ chosen per task by RanPAC's 80/20 rule, FeCAM's signed Tukey transform, cosine NCM;
  CF-optimality by construction (frozen backbone, exact sufficient statistics);
- the margin (:mod:`.margin`): squared Mahalanobis distance, pooled within-task covariance,
  Ledoit–Wolf shrinkage, cross-fitted centroid differences; a class-level margin as our alternative;
- the backbones (:mod:`.backbones`): raw pixels, random ReLU layers, small MLPs pretrained with
  scikit-learn on a disjoint part of digits (all classes, digits 0–4, shuffled labels) or on
  synthetic data, MiniLM sentence embeddings and TF-IDF on generated sentences, not ViT/DINOv2/CLIP
  on the paper's benchmarks;
- the datasets (:mod:`.data`): Gaussian tasks that sweep γ_min, scikit-learn's digits (5 tasks × 2
  classes, clean and noisy), 400 generated sentences (5 domains × 2 topics);
- the slope (:mod:`.experiment`): OLS over configurations with a positive gap, percentile
  bootstrap over configurations, our prototype heads rather than the paper's softmax heads;
- the heavy-tail experiment (:mod:`.heavy_tail`): averaged constant-step SGD on a quadratic under
  α-stable or Student-t noise, median error; the drift experiment (:mod:`.drift`): full-batch
  fine-tuning of a digits-pretrained MLP.
The theory-derived training schedule of the abstract is not implemented (its form was not available);
:func:`.margin.gamma_for_gap` gives the margin a target gap needs under the bound.
"""

from core.class_il.data import TaskData, digits_tasks, gaussian_tasks, sentence_tasks
from core.class_il.drift import DriftConfig, DriftResult, Linearity, drift_experiment
from core.class_il.experiment import (CONFIG_KEYS, CONFIG_LABELS, CONFIGS, PAPER_CI, PAPER_SLOPE, THEORY_SLOPE,
                                      ConfigurationResult, ConfigurationSweep, ExperimentConfig, Slope,
                                      SyntheticConfig, SyntheticSweep, configuration_sweep, evaluate_configuration,
                                      fit_slope, synthetic_sweep)
from core.class_il.heavy_tail import HeavyTailConfig, HeavyTailCurve, ecf_curve, tail_index
from core.class_il.learners import (LEARNER_LABELS, LEARNERS, NCM, SLDA, FeCAM, RanPAC, TaskConfusion,
                                    fit_incrementally, task_confusion)
from core.class_il.margin import Margins, class_margin, task_margins, tc_bound

from core.class_il.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "SLDA", "RanPAC", "FeCAM", "NCM", "LEARNERS", "LEARNER_LABELS", "fit_incrementally",
    "TaskConfusion", "task_confusion", "Margins", "task_margins", "class_margin", "tc_bound",
    "TaskData", "gaussian_tasks", "digits_tasks", "sentence_tasks",
    "CONFIGS", "CONFIG_KEYS", "CONFIG_LABELS", "PAPER_SLOPE", "PAPER_CI", "THEORY_SLOPE", "ExperimentConfig",
    "Slope", "fit_slope", "ConfigurationResult", "ConfigurationSweep", "evaluate_configuration",
    "configuration_sweep", "SyntheticConfig", "SyntheticSweep", "synthetic_sweep",
    "HeavyTailConfig", "HeavyTailCurve", "ecf_curve", "tail_index",
    "DriftConfig", "DriftResult", "Linearity", "drift_experiment",
]
