"""A latent world-action policy with prior and posterior branches (Being-H0.7), in a 2-D interception task.

The paper's claim: a policy that maps observations straight to actions learns shallow correlations;
inserting K learnable latent queries between perception and action, and aligning the deployable
prior branch (queries → latents from the current context) with a training-only posterior branch
(the queries replaced by embeddings of future frames), teaches the prior predictive, action-relevant
latents without generating frames at inference.

What is ours (only the abstract was available), each documented where it lives:

- the task: a point agent intercepting a target that bounces around the unit square at a hidden
  velocity, 32 x 32 two-channel frames t - 1 and t, a fixed instruction, a scripted expert with
  action chunks of H = 8 moves and DART noise in the data (:mod:`.sim`);
- the network: one transformer over [19 context tokens | K slots | 1 action token] with a
  block-causal mask; the posterior's slot i embeds the future frame at t + (i + 1) H / K, so K is
  also the number of future frames; the latent is the residual stream at the slots; a π0-style
  flow-matching MLP head on the action token, sampled with 10 Euler steps (:mod:`.model`, :mod:`.flow`);
- the losses: flow matching for both branches (the posterior is also trained to act), alignment of
  the layer-normed latents (stop-gradient on the posterior, or "balanced" 0.8/0.2 in the manner
  of DreamerV3's KL balancing), a VICReg variance + covariance regulariser against collapse; the
  no-alignment ablation sets λ_a = 0 and keeps everything else (:mod:`.train`);
- the baselines: a direct policy (no slots) and a pixel-rollout world-action model that predicts the
  frame at t + H and then acts on it (:mod:`.model`);
- the measurements: ridge probes (R²) of the target's position at t + H from the prior latents,
  effective rank and per-dimension spread, closed-loop success, milliseconds per action chunk
  (:mod:`.evaluate`). Sizes are tiny (d = 64, two layers, minutes of CPU): the paper's scale,
  data (egocentric video, robot demos) and benchmarks are out of reach here.
"""

from core.latent_world_action.evaluate import (CollapseStats, Evaluation, Latents, collapse_stats, compute_latents,
                                               evaluate_policy, ms_per_action, probe_r2)
from core.latent_world_action.flow import euler_sample, gaussian_velocity
from core.latent_world_action.sim import (Dataset, Episodes, Rollout, SimConfig, expert_chunk, make_dataset,
                                          render_frames, rollout, start_states)
from core.latent_world_action.train import (ALIGN_MODES, VARIANT_LABELS, VARIANTS, TrainConfig, TrainedPolicy,
                                            load_policy, save_policy, train_policy)
from core.latent_world_action.views import (LatentPicture, LiveRun, PolicyView, latent_picture, policy_view,
                                            shipped_view, train_live)

from core.latent_world_action.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "VARIANTS", "VARIANT_LABELS", "ALIGN_MODES",
    "SimConfig", "Episodes", "start_states", "render_frames", "expert_chunk", "Dataset", "make_dataset", "Rollout",
    "rollout", "euler_sample", "gaussian_velocity",
    "TrainConfig", "TrainedPolicy", "train_policy", "save_policy", "load_policy",
    "Latents", "compute_latents", "probe_r2", "CollapseStats", "collapse_stats", "ms_per_action", "Evaluation",
    "evaluate_policy", "LatentPicture", "latent_picture", "PolicyView", "policy_view", "shipped_view", "LiveRun",
    "train_live",
]
