"""Being-H0.7's headline claims, checked by ``bench/latent_world_action.py``."""

import numpy as np

from core.common.claims import Claim
from core.common.decisions import Every, Flag, Interval, Some, Threshold
from core.common.rules import Check, Rule

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

MIN_STD, MIN_RANK = 0.1, 8.0   # the collapse thresholds (bench/latent_world_action.py)


def _variant(result, name):
    return [m for m in result["models"].values() if m["variant"] == name]


def _gaps(result, key):
    """Per training seed: the aligned model's probe R² minus the no-alignment ablation's (λ_a = 0)."""
    aligned = {m["seed"]: m for m in _variant(result, "prior")}
    plain = {m["seed"]: m for m in _variant(result, "no_align")}
    return [aligned[s][key] - plain[s][key] for s in sorted(set(aligned) & set(plain))] or None


def _mean(values):
    return None if values is None else float(np.mean(values))


def _success_interval(result):
    """Mean success of the prior policy minus the direct policy's (means over training seeds) ± 2 standard errors
    from the pooled per-evaluation-seed rates of each."""
    pri = [np.mean(m["success"]) for m in _variant(result, "prior")]
    dir_ = [np.mean(m["success"]) for m in _variant(result, "direct")]
    pooled = [s for m in _variant(result, "prior") for s in m["success"]]
    pooled_d = [s for m in _variant(result, "direct") for s in m["success"]]
    se = float(np.sqrt(np.var(pooled) / len(pooled) + np.var(pooled_d) / len(pooled_d)))
    diff = float(np.mean(pri) - np.mean(dir_))
    return diff, diff - 2 * se, diff + 2 * se


def _direct_interval(result):
    diff, low, high = _success_interval(result)
    return -diff, -high, -low


def _chaser_over_prior(result):
    pri = [np.mean(m["success"]) for m in _variant(result, "prior")]
    return float(np.mean(result["references"]["chaser"])) - np.mean(pri)


RULES = {
    "prior_latents_predictive": Rule(
        checks=(Check("mean_gap", "claim", "mean over training seeds of the probe R² gap at t + H from z_prior, aligned "
                      "minus the no-alignment ablation", lambda r: _mean(_gaps(r, "probe_prior")),
                      Threshold(0.0, "above")),
                Check("gap_size", "part", "the same mean gap against the claim test's 0.1",
                      lambda r: _mean(_gaps(r, "probe_prior")), Threshold(0.1, "above", strict=False)),
                Check("every_seed", "part", "the gap of each training seed", lambda r: _gaps(r, "probe_prior"),
                      Every(Threshold(0.0, "above"))),
                Check("current_position", "null", "the same mean gap on the probe of the current target position, "
                      "which any latent that reads the frames can pass", lambda r: _mean(_gaps(r, "probe_current")),
                      Threshold(0.1, "above", strict=False))),
        reproduced=("mean_gap", "gap_size", "every_seed")),
    "no_frame_generation": Rule(
        checks=(Check("no_future_gradient", "claim", "the action's gradient w.r.t. the future frames at inference, every "
                      "variant", lambda r: [x["inference_grad_is_none"] for x in r["graph"].values()],
                      Every(Flag("the gradient is None"))),
                Check("posterior_branch", "null", "the posterior branch's action: absolute sum of its gradient w.r.t. "
                      "the future frames, every variant that has one",
                      lambda r: [x["posterior_grad_abs_sum"] for x in r["graph"].values()
                                 if "posterior_grad_abs_sum" in x] or None,
                      Some(Threshold(0.0, "below", strict=False))),
                Check("pixel_rollout", "reference", "the pixel-rollout world-action model's time per action chunk over "
                      "the prior policy's (batch 1, interleaved rounds)", "speed.pixel_over_prior",
                      Threshold(1.0, "above"))),
        partly=("no_future_gradient", "posterior_branch"),
        reproduced=("no_future_gradient", "posterior_branch", "pixel_rollout")),
    "better_control": Rule(
        checks=(Check("prior_ahead", "claim", "closed-loop success, prior policy minus direct policy (means over "
                      "training seeds) ± 2 standard errors over the pooled evaluation seeds", _success_interval,
                      Interval(0.0, "above")),
                Check("direct_ahead", "null", "the direct policy by the same test: its success minus the prior "
                      "policy's ± 2 standard errors", _direct_interval, Interval(0.0, "above", strict=False)),
                Check("chaser", "null", "the scripted chaser that ignores the future: its mean success minus the prior "
                      "policy's", _chaser_over_prior, Threshold(0.0, "above", strict=False))),
        partly=("direct_ahead", "chaser")),
    "no_latent_collapse": Rule(
        checks=(Check("min_std", "claim", "smallest per-dimension standard deviation of z_prior on held-out samples, "
                      "every shipped aligned model", lambda r: [m["min_std"] for m in _variant(r, "prior")] or None,
                      Every(Threshold(MIN_STD, "above"))),
                Check("effective_rank", "claim", "effective rank of z_prior (of 256), every shipped aligned model",
                      lambda r: [m["effective_rank"] for m in _variant(r, "prior")] or None,
                      Every(Threshold(MIN_RANK, "above"))),
                Check("rank_two", "null", "a rank-2 projection of the same latents by the effective-rank test",
                      lambda r: [m["rank2_effective_rank"] for m in _variant(r, "prior")] or None,
                      Some(Threshold(MIN_RANK, "above", strict=False))))),
}
