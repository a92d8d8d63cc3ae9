"""LVQMark: time-series watermarking over a local VQ-VAE's tokens, with robust re-encoding.

The paper's claim: detectors that re-encode a generated series with a globally coupled model suffer a
bidirectional drift of the null (post-editing shifts the z of non-watermarked series up or down), and
reliable detection needs each recovered unit to depend on a bounded temporal window. L-VQVAE makes each
token from a window of 4 steps (stride 2); LVQMark biases a keyed green half of the codebook by δ in the
prior's logits and detects by re-encoding with a robust encoder.

What is ours (the paper's text was not available; the public code was read, not copied):

- sizes for a CPU: windows of T = 24 (11 tokens), K = 32 codes, width 32, a few hundred Adam steps per
  model (:mod:`.training`); learned positions in the prior instead of RoPE; a stage-2 idempotence loss
  (encode(decode(codes)) = codes) that the reference does not have, without which decoded watermarked
  series re-encoded to the wrong codes on our small models;
- the robust encoder is trained on decoded series of real and uniformly random code sequences under the
  attack grid (the reference trains on attacked series of its own data);
- the empirical z on disjoint chunks of windows (independent detections, Wilson intervals), not on 100
  overlapping draws; the analytic z (Kirchenbauer) is reported beside it and equals transformers'
  private ``WatermarkDetector._compute_z_score`` on the same counts;
- the smoothing width rule, the quality scores' scikit-learn models (:mod:`.quality`), and the data:
  statsmodels' macrodata, SP500 and Victoria's electricity demand, a synthetic ETT-like load and a
  DCM + HRF fMRI simulation (:mod:`.data`).

``import core.lvqmark`` loads no torch; the names that need it load on first use.
"""

from importlib import import_module

from core.lvqmark.attacks import ATTACK_LABELS, ATTACKS, attack
from core.lvqmark.claims import CLAIMS
from core.lvqmark.data import DATASET_LABELS, DATASETS, WINDOW, Series, WindowSplit, hrf, load_series, make_windows
from core.lvqmark.quality import Quality, quality_scores
from core.lvqmark.views import ShippedView, load_view
from core.lvqmark.watermark import (GAMMA, THRESHOLD, EmpiricalNull, GreenCounts, analytic_z, chunk_z, empirical_null,
                                    green_counts, green_table, logit_bias, warmup_length, wilson_interval)

_LAZY = {
    **dict.fromkeys(("TokenizerConfig", "PriorConfig", "RobustConfig", "TrainedTokenizer", "TrainedPrior",
                     "TrainedRobust", "train_tokenizer", "train_prior", "train_robust", "sample_tokens", "ENCODERS"),
                    "training"),
    **dict.fromkeys(("Watermarker", "Generated", "DetectConfig", "Detection", "detect", "LocalityMap",
                     "locality_map"), "detection"),
    "load_watermarker": "store",
    **dict.fromkeys(("TokenizerRun", "tokenizer_run", "detection_run"), "experiment"),
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"core.lvqmark.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'core.lvqmark' has no attribute {name!r}")


__all__ = [
    "CLAIMS", "DATASETS", "DATASET_LABELS", "WINDOW", "Series", "WindowSplit", "load_series", "make_windows", "hrf",
    "ATTACKS", "ATTACK_LABELS", "attack",
    "GAMMA", "THRESHOLD", "warmup_length", "green_table", "logit_bias", "GreenCounts", "green_counts", "analytic_z",
    "EmpiricalNull", "empirical_null", "chunk_z", "wilson_interval",
    "Quality", "quality_scores", "ShippedView", "load_view",
    "ENCODERS", "TokenizerConfig", "PriorConfig", "RobustConfig", "TrainedTokenizer", "TrainedPrior", "TrainedRobust",
    "train_tokenizer", "train_prior", "train_robust", "sample_tokens",
    "Watermarker", "Generated", "DetectConfig", "Detection", "detect", "LocalityMap", "locality_map",
    "load_watermarker", "TokenizerRun", "tokenizer_run", "detection_run",
]
