"""MaLoRA's headline claims, checked by ``bench/malora.py``."""

import numpy as np

from core.common.claims import Claim
from core.common.decisions import Every, InBand, Some, Threshold, Trend
from core.common.rules import Check, Rule

CLAIMS = (
    Claim("max_margin_alignment",
          "In an intermediate regime of the regularisation parameter the optimal LoRA adapter aligns with the "
          "max-margin solution on the fine-tuning data.",
          "cos(vec ΔW, vec W_svm) of peft LoRA adapters (rank 2, cross-entropy + λ(‖A‖²+‖B‖²), L-BFGS) against λ "
          "from 1e-1 to 1e-5 on orthogonal synthetic tasks, over seeds.",
          "scikit-learn's LinearSVC(multi_class='crammer_singer'); control: an adapter trained on shuffled labels."),
    Claim("margin_tradeoff",
          "Closed forms give the margins on pretraining and fine-tuning data: decreasing λ enlarges the fine-tuning "
          "margin and shrinks the pretraining margin, never to zero (retention against adaptation).",
          "Normalised margins of W0 + ΔW on both tasks along the λ sweep against the closed forms "
          "γ₀/√(‖W0‖²+s²) and s·γ_svm/√(‖W0‖²+s²) (s = ‖ΔW‖), over seeds.",
          "The same sweep on near-orthogonal tasks (overlap 0.5), where the closed form must fail and the "
          "pretraining margin may collapse."),
    Claim("merged_positive_margin",
          "Merged models have positive margin on every task.",
          "The smallest per-task margin of W0 + Σ α_t ΔW_t for MaLoRA and task arithmetic on orthogonal tasks, "
          "over seeds.",
          "peft's combination_type='linear' merge (A and B merged separately, which adds cross terms B_s A_t)."),
    Claim("optimal_coefficients",
          "Margin-balancing coefficients α_t = γ₀/γ_t maximise the margin on the union of tasks.",
          "Union margin at α* against the best point of a grid search and against uniform α = 1, on orthogonal and "
          "near-orthogonal synthetic tasks, over seeds.",
          "Uniform α (task arithmetic) and the grid's best point, which α* must match within a grid step."),
    Claim("malora_vs_baselines",
          "MaLoRA matches or outperforms adapter-merging baselines on vision and language classification tasks.",
          "Union test accuracy and union margin of MaLoRA against task arithmetic, TIES, DARE (linear, TIES), "
          "magnitude pruning and SVD (peft.utils.merge_utils on ΔW) on digits (MLP features) and MiniLM text "
          "embeddings, over 5 seeds.",
          "The baselines themselves; the base head (no merge) as the floor."),
)

BASELINES = ("task_arithmetic", "ties", "dare_linear", "dare_ties", "magnitude_prune", "svd")


def _cosines(result, setting, lam_max):
    al = result["alignment"]
    keep = np.array(al["lams"]) <= lam_max
    return np.array(al[setting]["cosine"])[:, keep]


def _alignment_margins(result):
    """How far each setting is from passing, positive when it passes: the isotropic setting's smallest cosine at
    λ ≤ 1e-3 minus 0.97; the stretched setting's smallest of (cosine at λ ≤ 1e-4 minus 0.97, 0.9 minus the class-mean
    control's mean cosine, the adapter's cosine at the smallest λ minus the control's, per seed)."""
    ani = result["alignment"]["anisotropic"]
    ctrl = np.array(ani["mean_classifier"])
    stretched = min(_cosines(result, "anisotropic", 1e-4).min() - 0.97, 0.9 - ctrl.mean(),
                    (np.array(ani["cosine"])[:, -1] - ctrl).min())
    return [float(_cosines(result, "isotropic", 1e-3).min() - 0.97), float(stretched)]


def _relative_error(setting):
    pre, closed = np.array(setting["pre_margin"]), np.array(setting["closed_pre"])
    return float(np.max(np.abs(pre - closed) / closed))


def _min_task_margin(setting, method):
    """Each seed's smallest task margin of ``method``'s merge (NaN where the merge is undefined)."""
    i = setting["methods"].index(method)
    return [float("nan") if any(v is None for v in s["task_margin"][i]) else float(min(s["task_margin"][i]))
            for s in setting["seeds"]]


def _column(setting, key, method):
    i = setting["methods"].index(method)
    return np.array([np.nan if s[key][i] is None else s[key][i] for s in setting["seeds"]], dtype=float)


def _grid_distance(result):
    """Per seed: (largest |grid's best α − α*|, 0, one grid step): α* within one step of the grid's best point."""
    orth = result["merges"]["synthetic"]
    gi = orth["methods"].index("grid_oracle")
    out = []
    for s in orth["seeds"]:
        values = np.linspace(0, 2 * max(s["alpha_star"]), orth["config"]["grid"])
        dist = float(np.max(np.abs(np.array(s["weights"][gi]) - np.array(s["alpha_star"]))))
        out.append((dist, 0.0, float(values[1] - values[0] + 1e-12)))
    return out


def _against_grid(result):
    """Per seed: (α*'s union margin, the grid's best − 1e-9, the grid's best)."""
    orth = result["merges"]["synthetic"]
    grid = _column(orth, "union_margin", "grid_oracle")
    return [(float(m), float(g - 1e-9), float(g)) for m, g in zip(_column(orth, "union_margin", "malora"), grid)]


def _uniform_gain(result):
    """Per seed: α*'s union margin minus uniform α's (task arithmetic); None (not measured) where either is
    undefined in some seed."""
    orth = result["merges"]["synthetic"]
    gain = _column(orth, "union_margin", "malora") - _column(orth, "union_margin", "task_arithmetic")
    return None if np.isnan(gain).any() else list(map(float, gain))


def _matches(result, family):
    """(MaLoRA's mean union accuracy, the best baseline's mean − 0.01, the best baseline's mean) on ``family``;
    MaLoRA's mean is NaN unless its merge is defined in every seed."""
    s = result["merges"][family]
    acc = {}
    for meth in ("malora", *BASELINES):
        col = _column(s, "union_accuracy", meth)
        acc[meth] = np.nanmean(col) if np.isfinite(col).any() else np.nan
    best = max(BASELINES, key=lambda b: acc[b])
    defined = int(np.isfinite(_column(s, "union_accuracy", "malora")).sum())
    own = acc["malora"] if defined == len(s["seeds"]) else np.nan
    return float(own), float(acc[best] - 0.01), float(acc[best])


def _over_base(result):
    """Per family: the best baseline's mean union accuracy minus the base head's (no merge)."""
    out = []
    for family in ("digits", "text"):
        s = result["merges"][family]
        best = max(float(np.nanmean(_column(s, "union_accuracy", b))) for b in BASELINES)
        out.append(best - float(np.nanmean(_column(s, "union_accuracy", "base"))))
    return out


RULES = {
    "max_margin_alignment": Rule(
        checks=(Check("isotropic", "claim", "smallest cosine of ΔW to the Crammer–Singer SVM over seeds at λ ≤ 1e-3, "
                      "isotropic noise", lambda r: float(_cosines(r, "isotropic", 1e-3).min()),
                      Threshold(0.97, "above")),
                Check("stretched", "claim", "smallest cosine over seeds at λ ≤ 1e-4, noise stretched ×4 along one "
                      "direction", lambda r: float(_cosines(r, "anisotropic", 1e-4).min()),
                      Threshold(0.97, "above")),
                Check("beats_class_means", "part", "per seed, the adapter's cosine at the smallest λ minus the "
                      "class-mean classifier's (stretched noise)",
                      lambda r: list(map(float, np.array(r["alignment"]["anisotropic"]["cosine"])[:, -1]
                                         - np.array(r["alignment"]["anisotropic"]["mean_classifier"]))),
                      Every(Threshold(0.0, "above"))),
                Check("class_means", "null", "mean cosine of the class-mean classifier to the SVM over seeds "
                      "(stretched noise): the trivial solution, which must stay below 0.9",
                      lambda r: float(np.mean(r["alignment"]["anisotropic"]["mean_classifier"])),
                      Threshold(0.9, "above", strict=False)),
                Check("either_setting", "claim", "each setting's margin to passing (isotropic: smallest cosine − "
                      "0.97; stretched: the smallest of its cosine − 0.97, 0.9 − the class-mean control, and the "
                      "adapter's lead over the control per seed): the bench's partly needs one setting",
                      _alignment_margins, Some(Threshold(0.0, "above")))),
        reproduced=("isotropic", "stretched", "beats_class_means", "class_means"),
        partly=("either_setting",)),
    "margin_tradeoff": Rule(
        checks=(Check("pretraining_falls", "claim", "pretraining margin along λ 1e-1 → 1e-5, each seed "
                      "(orthogonal tasks)", "tradeoff.orthogonal.pre_margin", Every(Trend("falling", monotone=True))),
                Check("pretraining_positive", "claim", "every pretraining margin along the sweep, every seed",
                      lambda r: [float(v) for row in r["tradeoff"]["orthogonal"]["pre_margin"] for v in row],
                      Every(Threshold(0.0, "above"))),
                Check("finetuning_rises", "claim", "fine-tuning margin along λ 1e-1 → 1e-5, each seed",
                      "tradeoff.orthogonal.ft_margin", Every(Trend("rising", monotone=True))),
                Check("closed_form", "reference", "largest relative error of the pretraining margin against its "
                      "closed form γ₀/√(‖W0‖²+s²), orthogonal tasks",
                      lambda r: _relative_error(r["tradeoff"]["orthogonal"]), Threshold(1e-3)),
                Check("overlap", "null", "the same relative error on near-orthogonal tasks (overlap 0.5), where the "
                      "closed form must fail by more than 20%",
                      lambda r: _relative_error(r["tradeoff"]["overlap_0.5"]), Threshold(0.2, strict=False))),
        reproduced=("pretraining_falls", "pretraining_positive", "finetuning_rises", "closed_form", "overlap")),
    "merged_positive_margin": Rule(
        checks=(Check("malora", "claim", "each seed's smallest task margin of MaLoRA's merge, orthogonal tasks",
                      lambda r: _min_task_margin(r["merges"]["synthetic"], "malora"), Every(Threshold(0.0, "above"))),
                Check("task_arithmetic", "claim", "each seed's smallest task margin of task arithmetic's merge",
                      lambda r: _min_task_margin(r["merges"]["synthetic"], "task_arithmetic"),
                      Every(Threshold(0.0, "above"))),
                Check("peft_linear", "null", "seeds (of 5) where peft's A/B-separate linear merge has a negative "
                      "task margin: it must lose a task in at least 3",
                      lambda r: int(np.sum(np.array(_min_task_margin(r["merges"]["synthetic"], "peft_linear")) < 0)),
                      Threshold(3.0))),
        ),
    "optimal_coefficients": Rule(
        checks=(Check("within_step", "claim", "per seed, the largest distance of the grid's best α from α* against "
                      "one grid step (orthogonal tasks)", _grid_distance, Every(InBand("below"))),
                Check("grid_best", "reference", "per seed, α*'s union margin against the grid search's best "
                      "(less 1e-9)", _against_grid, Every(InBand("above"))),
                Check("uniform", "null", "per seed, uniform α's (task arithmetic) union margin minus α*'s: the "
                      "trivial coefficients, which must be lower in every seed",
                      lambda r: [-g for g in _uniform_gain(r)], Some(Threshold(0.0, "above", strict=False)))),
        reproduced=("within_step", "grid_best", "uniform"),
        partly=("uniform",)),
    "malora_vs_baselines": Rule(
        checks=(Check("some_family", "claim", "MaLoRA's mean union test accuracy over 5 seeds against the best "
                      "merge baseline's less 0.01, digits and text (undefined unless defined in every seed)",
                      lambda r: [_matches(r, f) for f in ("digits", "text")], Some(InBand("above"))),
                Check("digits", "part", "the same on digits (MLP features)", lambda r: _matches(r, "digits"),
                      InBand("above")),
                Check("text", "part", "the same on text (MiniLM embeddings)", lambda r: _matches(r, "text"),
                      InBand("above")),
                Check("over_base_head", "reference", "the best baseline's mean union accuracy minus the base "
                      "head's (no merge), digits and text", _over_base, Every(Threshold(0.0, "above"))))),
}
