"""Being-H0.7's headline claims, checked by ``bench/latent_world_action.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("prior_latents_predictive",
          "Aligning a deployable prior branch with a training-only posterior branch that sees future frames makes "
          "the prior's latents predictive of the future, from current observations alone.",
          "Ridge-probe R² of the target's position at t + H from the prior latents z_prior (K = 4, d = 64) on a "
          "held-out dataset, for the aligned model and for the same model trained without alignment, 3 training "
          "seeds each (the shipped models); the claim test asks for a gap of at least 0.1. Also the probe of the "
          "displacement from t to t + H, the part of the future the present frame does not show.",
          "The no-alignment ablation (identical except λ_a = 0), and the probe of the current target position, "
          "which any latent that reads the frames can pass."),
    Claim("no_frame_generation",
          "The policy acts without generating future frames: the posterior branch is discarded at inference, and "
          "acting is cheaper than a pixel-rollout world-action model.",
          "The gradient of the action with respect to the future frames at inference (must be None); milliseconds "
          "per action chunk of the prior policy against the pixel-rollout model and the direct policy, in one run.",
          "The posterior branch's action, whose gradient with respect to the future frames is not None."),
    Claim("better_control",
          "Future-aware latent reasoning improves control over direct observation-to-action policies (the paper: "
          "state-of-the-art or competitive on benchmarks and real robots).",
          "Closed-loop success rate in our interception simulator (the target's future matters: it bounces), "
          "5 held-out evaluation seeds of 100 episodes, for the prior policy, the no-alignment ablation, the direct "
          "policy and the pixel-rollout model, 3 training seeds.",
          "The direct policy (same backbone, no slots), and the scripted chaser that ignores the future."),
    Claim("no_latent_collapse",
          "A lightweight regulariser keeps the aligned latents from collapsing.",
          "Per-dimension standard deviation and effective rank of z_prior on held-out samples, shipped aligned "
          "models.",
          "A rank-2 projection of the same latents, which the effective-rank threshold must reject."),
)
