"""The looped LM paper's headline claims, checked by ``bench/looped_lm.py``.

Each claim is checked on trained models against two controls that must fail it: an untrained model of
the same design, and the same design trained on shuffled targets. Measured (issue 21): untrained
models of our designs already reach distinct fixed points with settled attention, so for those two
claims the controls are asked what training adds (the answer read off the cycle, selective attention),
and the convergence itself is reported as architectural.
"""

from core.common.claims import Claim

CLAIMS = (
    Claim("distinct_fixed_points",
          "Each layer of the looped block converges to its own fixed point, so the block follows a consistent "
          "cyclic trajectory in latent space.",
          "On Huginn's design trained on modular chain: worst per-layer residual δ after 32 loops, separation "
          "between the layers' fixed points, and the accuracy of the answer the coda reads off the cycle's "
          "fixed point; the same on every design of the bench that learned the task.",
          "Controls: an untrained model of the same design and the same design trained on shuffled targets. "
          "They reach fixed points too (architectural); they must not carry the answer."),
    Claim("attention_stabilises",
          "As the fixed points are reached, attention-head behaviour stabilises and stays constant across "
          "recurrences.",
          "Mean change of the heads' attention between loops 32 and 33, and the settled attention's row entropy "
          "relative to uniform causal attention (selectivity), on the trained model.",
          "Controls: an untrained model of the same design and the same design trained on shuffled targets; "
          "they settle too, onto near-uniform attention."),
    Claim("stages_repeat",
          "Recurrent blocks learn stages of inference that mirror those of feedforward models, repeating them "
          "with each iteration.",
          "Pointer chasing (8 nodes, 8 hops), where more loops resolve more hops: the hops the coda lens reads "
          "right after each loop, the lens entropy and matrix entropy per loop, and CKA against a feedforward "
          "model of matching depth (8 layers) trained on the same task.",
          "An untrained block of the same design and the same block trained on shuffled targets (shipped as "
          "\"pointer_shuffled\"): neither may resolve hops loop after loop."),
    Claim("design_shapes_stability",
          "Architectural choices (injection, norm placement, block size) decide whether cyclic fixed points and "
          "stages emerge and stay stable.",
          "Stable-cycle rate across the bench's designs, each trained on modular chain and counted only if it "
          "learned the task (accuracy at 32 loops ≥ 0.9), with each factor changed alone from Huginn's design.",
          "Designs that did not learn are excluded: an untrained network's dynamics say nothing about design."),
)
