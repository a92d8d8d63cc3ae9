"""MaLoRA's headline claims, checked by ``bench/malora.py``."""

from core.common.claims import Claim

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
