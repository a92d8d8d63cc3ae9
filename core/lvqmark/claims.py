"""LVQMark's headline claims, checked by ``bench/lvqmark.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("local_tokens",
          "In L-VQVAE each discrete token is produced from a short contiguous window, so a recovered unit depends "
          "only on a bounded temporal neighbourhood.",
          "Edit one time step of a window and record which tokens' encodings and codes change, for the trained "
          "local tokenizer and for the global-attention encoder, on every dataset.",
          "The global-attention encoder, whose tokens must change outside the edited step's windows."),
    Claim("null_drift_global",
          "Globally coupled re-encoding suffers bidirectional drift of the null: post-editing attacks shift the "
          "green fraction of non-watermarked series up or down, so clean-calibrated thresholds fail.",
          "Δμ₀ = mean g(attacked NoWM) - mean g(clean NoWM) with a paired 95% interval, and the FPR at the clean "
          "threshold, for each attack and strength, for the global-encoder system.",
          "The clean (no attack) row, where Δμ₀ = 0 by construction; the wrong-key and δ = 0 controls of the tests."),
    Claim("local_stabilises_null",
          "Local re-encoding stabilises false positives under attacks: the local system's null drift is smaller "
          "than the global one's.",
          "|Δμ₀| and FPR at FPR target 1e-3, local against global, over every dataset, attack and strength "
          "(the share of conditions where local's |Δμ₀| is smaller).",
          "The global-encoder system trained with the same budget on the same data."),
    Claim("detection_power",
          "LVQMark keeps detection power under post-editing attacks (TPR at FPR 1e-3).",
          "TPR of chunks of 1000 windows (the reference's sample size) at the clean-calibrated threshold 3.09, "
          "per dataset, attack and strength, with Wilson intervals, local and global.",
          "δ = 0 (no watermark) and a wrong detection key, which must give z ≈ 0."),
    Claim("quality_preserved",
          "Watermarking preserves generation quality.",
          "Discriminative, predictive and correlational scores of watermarked against non-watermarked generations "
          "from the same prior, per dataset.",
          "Uniform noise windows, whose discriminative score must be far worse."),
)
