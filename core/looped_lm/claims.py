"""The looped LM paper's headline claims, checked by ``bench/looped_lm.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("distinct_fixed_points",
          "Each layer of the looped block converges to its own fixed point, so the block follows a consistent "
          "cyclic trajectory in latent space.",
          "Worst per-layer residual δ after 32 loops and the separation between the layers' fixed points, on the "
          "shipped trained model (modular chain).",
          "Control: the same metrics on an untrained model of the same design, which must not pass."),
    Claim("attention_stabilises",
          "As the fixed points are reached, attention-head behaviour stabilises and stays constant across "
          "recurrences.",
          "Largest change of any head's attention pattern between loops 31 and 32 on the trained model.",
          "Control: an untrained model of the same design."),
    Claim("stages_repeat",
          "Recurrent blocks learn stages of inference that mirror those of feedforward models, repeating them "
          "with each iteration.",
          "Correlation between the looped block's per-layer stage profile (matched feedforward depth) and a "
          "feedforward model trained on the same task.",
          "A feedforward model of matching depth trained on the same task; the stages must be measured on a "
          "task that needs more than one loop."),
    Claim("design_shapes_stability",
          "Architectural choices (injection, norm placement, block size) decide whether cyclic fixed points and "
          "stages emerge and stay stable.",
          "Stable-cycle rate across the bench's designs, counted among designs that learned the task "
          "(accuracy at 32 loops ≥ 0.9).",
          "Designs that did not learn are excluded: an untrained network's dynamics say nothing about design."),
)
