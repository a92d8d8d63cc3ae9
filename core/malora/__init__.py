"""MaLoRA: margin-based LoRA merging, against peft's merge methods.

The paper's claim (abstract only): in multiclass linear classification with near-orthogonal tasks
and l2 regularisation, the optimal LoRA adapter aligns with the max-margin solution on the
fine-tuning data in an intermediate regularisation regime; closed forms give the margins on
pretraining and fine-tuning data, and the regularisation parameter trades retention for adaptation;
merged models have positive margin on every task, and mixing coefficients that balance the margins
maximise the margin on the union of tasks. The resulting training-free rule, MaLoRA, is said to
match or beat adapter-merging baselines.

What is ours (only the abstract was available), each documented where it lives:

- the setting: a frozen linear head W0 pretrained by cross-entropy + l2 on task 0, LoRA on that head
  through peft, trained by full-batch L-BFGS on cross-entropy + lam(||A||^2 + ||B||^2)
  (:mod:`.adapters`); the Crammer-Singer SVM as the max-margin oracle;
- the closed forms and the rule alpha_t = gamma_0 / gamma_t, derived for exactly orthogonal tasks;
  gamma_t is the fine-tuned model's margin on its task (equal to dW_t's own margin when orthogonal),
  optionally a low quantile of the sample margins instead of the minimum (:mod:`.merging`,
  :mod:`.experiment`);
- the baselines: peft's merge_utils on dW with weights 1 and density 0.5; ``svd`` truncates to the
  largest adapter rank; peft's own A/B-separate ``linear`` merge shown as a row, never an oracle;
- the tasks: synthetic Gaussian blocks with an overlap knob, scikit-learn digits on the features of
  an MLP pretrained on digits 0-3, and MiniLM embeddings of generated topic sentences; real features
  are centred at the pretraining mean (:mod:`.tasks`). The paper's "modern architectures" are not
  reproduced: every adapter here sits on a linear head over frozen features.
"""

from core.malora.adapters import (Adapter, AdapterConfig, cosine, fit_head, max_margin_classifier, peft_merge,
                                  peft_model, train_adapter)
from core.malora.experiment import (ROWS, LambdaSweep, Landscape, MergeComparison, MergeConfig, SweepConfig,
                                    compare_merges, lambda_sweep, landscape, orthogonal_check, union_margin_grid)
from core.malora.margins import accuracy, logit_margins, normalized_margin, sample_margins, task_margin
from core.malora.merging import (METHOD_LABELS, METHODS, malora_coefficients, merge, merged_delta,
                                 orthogonal_union_margin)
from core.malora.views import MergeView, merge_view
from core.malora.tasks import (FAMILIES, FAMILY_LABELS, TaskSet, TextCorpus, digits_tasks, make_tasks,
                               synthetic_tasks, text_corpus, text_tasks)

from core.malora.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "sample_margins", "task_margin", "normalized_margin", "logit_margins", "accuracy",
    "Adapter", "AdapterConfig", "train_adapter", "fit_head", "max_margin_classifier", "cosine", "peft_model",
    "peft_merge", "METHODS", "METHOD_LABELS", "malora_coefficients", "merge", "merged_delta",
    "orthogonal_union_margin", "FAMILIES", "FAMILY_LABELS", "TaskSet", "synthetic_tasks", "digits_tasks",
    "text_tasks", "TextCorpus", "text_corpus", "make_tasks", "MergeConfig", "MergeComparison", "compare_merges", "SweepConfig",
    "LambdaSweep", "lambda_sweep", "Landscape", "landscape", "union_margin_grid",
    "orthogonal_check", "ROWS", "MergeView", "merge_view",
]
