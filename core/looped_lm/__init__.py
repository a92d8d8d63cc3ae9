"""Looped reasoning LMs: cyclic fixed points, attention stabilisation, stages of inference.

Claim (mechanistic analysis of looped LMs): each layer of the recurrent block converges to its own
fixed point, so the block traces a consistent cycle in latent space; attention settles as those
points are reached; the block repeats feedforward-like stages of inference every loop; block size,
input injection and normalisation decide whether the cycle emerges and stays stable.

Status: the model (all designs), Huginn's loop sampler with truncated backprop, ``run_with_cache``,
the metrics (the cycle's spectral radius by Arnoldi on jvp products), lens and stage comparisons
(:mod:`.stages`), and the evidence that separates a learned cycle from the architecture
(:mod:`.evidence`). Measured: untrained models of our designs already reach distinct fixed points with
settled attention (the block is an injected, normalised contraction), so the claim tests ask what only
training gives (the answer read off the cycle, selective attention) and run every claim on two
controls: an untrained model of the same design and the shipped "shuffled" model (the same design
trained on shuffled targets, :func:`.tasks.shuffled_targets`). Shipped: "stable" (Huginn's design)
and "unstable" (additive injection, pre-norm: it learns the task, accuracy 1.00, and never reaches
fixed points), both on modular chain (3 terms mod 5), which is solved in one loop; so the stages of
inference are read on pointer chasing (8 nodes, 8 hops, "pointer", with "pointer_feedforward" of
matching depth and "pointer_shuffled", its shuffled-target control), where loop r does hop r. 5 nodes
and 3 hops (``LIVE_POINTER``) train within a minute. Parity and variable binding (answer-only supervision) need far more steps.
:mod:`.hf_stages` reads the same lens metrics off a local Hugging Face causal LM (feedforward analysis).
Our choices: :mod:`.model` (design variables, state init), :mod:`.tasks`, :mod:`.training` (sampler,
optimiser), :mod:`.metrics` (definitions of delta, separation, attention change, matrix entropy, CKA,
spectral radius), :mod:`.evidence` (thresholds of the claim readings), :mod:`.stages` (the hop taxonomy),
:mod:`.view` (what the page draws: one 64-loop pass on a fixed probe batch, sliced to any loop count).

The page's first view is shipped as plain arrays (:mod:`.ship` writes them, :mod:`.view` reads them with
numpy), and the names whose modules need torch are imported on first use: ``import core.looped_lm``
loads no torch, ``from core.looped_lm import train`` does.
"""

from importlib import import_module

from core.looped_lm.config import DESIGNS, LIVE_POINTER, TASKS, LoopedConfig
from core.looped_lm.view import (HopStages, LoopView, StageView, TrainedView, load_stage_view, load_view, loop_view,
                                 principal_projection, stage_view, train_and_view)

from core.looped_lm.claims import CLAIMS  # noqa: E402

# Names whose modules import torch: loaded on first use, so the page's first view stays torch-free.
_LAZY = {
    "LoopCache": "cache", "run_with_cache": "cache",
    "causal_lm_profile": "hf_stages", "load_causal_lm": "hf_stages", "profile_causal_lm": "hf_stages",
    **dict.fromkeys(("attention_change", "attention_entropy", "convergence_rate", "fixed_point_residuals",
                     "fixed_point_separation", "linear_cka", "matrix_entropy", "spectral_radius"), "metrics"),
    "FeedforwardLM": "model", "LoopedLM": "model",
    "load_pretrained": "pretrained", "ShippedModel": "pretrained", "CausalLM": "hf_stages",
    **dict.fromkeys(("CycleEvidence", "cycle_evidence", "converges", "carries_the_answer", "selective",
                     "untrained_like", "stages_repeat"), "evidence"),
    "hop_stages": "stages", "shuffled_targets": "tasks",
    "Task": "tasks", "make_task": "tasks",
    **dict.fromkeys(("TrainResult", "LoopAccuracy", "LoopDraw", "accuracy_by_hops", "accuracy_by_loops",
                     "sample_loops", "task_of", "train"), "training"),
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"core.looped_lm.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'core.looped_lm' has no attribute {name!r}")


__all__ = [
    "CLAIMS", "LoopedLM", "FeedforwardLM", "LoopedConfig", "train", "TrainResult", "LoopAccuracy", "accuracy_by_loops",
    "accuracy_by_hops", "sample_loops", "LoopDraw", "task_of", "LIVE_POINTER",
    "Task", "TASKS", "make_task", "run_with_cache", "LoopCache", "fixed_point_residuals", "convergence_rate",
    "fixed_point_separation", "spectral_radius", "attention_change", "attention_entropy", "matrix_entropy",
    "linear_cka", "load_pretrained", "ShippedModel", "DESIGNS", "causal_lm_profile", "load_causal_lm", "CausalLM",
    "profile_causal_lm", "principal_projection",
    "LoopView", "StageView", "TrainedView", "loop_view", "stage_view", "load_view", "load_stage_view", "train_and_view",
    "CycleEvidence", "cycle_evidence", "converges", "carries_the_answer", "selective", "untrained_like",
    "stages_repeat", "HopStages", "hop_stages", "shuffled_targets",
]
