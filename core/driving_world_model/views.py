"""The page's first view, computed from the shipped checkpoints and written to ``view.npz``.

For every evaluated variant (:data:`EVALUATED`): error and IoU against horizon, the steering fan's
shifts and its Spearman, probe R²; for the first two test episodes the ground truth and each
variant's rollout (uint8, 0..255) for the animation; for the first context the lateral path of the
ego under each commanded heading, generated (hierarchical DF→TF) and simulated.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from core.driving_world_model.experiment import N_CONTEXT, EvalConfig, Evaluation, evaluate, generate
from core.driving_world_model.metrics import STEER_HORIZON, STEERS, steering_actions, steering_spearman
from core.driving_world_model.sim import SimConfig, counterfactual_truth, lateral_position, make_dataset

EVALUATED = ("flat_df", "flat_tf", "flat_dftf", "hier_df", "hier_dftf", "hier_shuffled")
LABELS = {"flat_df": "flat DF", "flat_tf": "flat TF", "flat_dftf": "flat DF→TF", "hier_df": "hierarchical DF",
          "hier_dftf": "hierarchical DF→TF", "hier_shuffled": "hierarchical, shuffled actions"}
ANIMATED = ("flat_df", "flat_tf", "flat_dftf", "hier_dftf")
N_ANIMATED = 2


@dataclass
class DrivingView:
    """The arrays the page's first view draws.

    Attributes
    ----------
    variants : numpy.ndarray
        Names, in :data:`EVALUATED` order.
    mse, iou : numpy.ndarray
        (variants, horizon) error and vehicle IoU against horizon.
    shifts : numpy.ndarray
        (variants, contexts, steers) generated lateral shifts.
    spearman : numpy.ndarray
        (variants,) steering Spearman.
    probe_r2 : numpy.ndarray
        (variants, 3) held-out R² for speed, lane, gap.
    probe_r2_shuffled : numpy.ndarray
        (variants, 3) the shuffled-target control.
    truth_shifts : numpy.ndarray
        (contexts, steers) the simulator's own shifts.
    truth_spearman : float
        Their Spearman.
    steers : numpy.ndarray
        The commanded headings, rad.
    gt_frames : numpy.ndarray
        (episodes, horizon, 2, 32, 32) uint8 ground truth after the context.
    rollouts : numpy.ndarray
        (animated variants, episodes, horizon, 2, 32, 32) uint8.
    fan_generated : numpy.ndarray
        (steers, horizon + 1) lateral position of the ego in the hierarchical DF→TF rollout, context end first.
    fan_truth : numpy.ndarray
        (steers, horizon + 1) the same in the simulator.
    """

    variants: np.ndarray
    mse: np.ndarray
    iou: np.ndarray
    shifts: np.ndarray
    spearman: np.ndarray
    probe_r2: np.ndarray
    probe_r2_shuffled: np.ndarray
    truth_shifts: np.ndarray
    truth_spearman: float
    steers: np.ndarray
    gt_frames: np.ndarray
    rollouts: np.ndarray
    fan_generated: np.ndarray
    fan_truth: np.ndarray


def load_named(name: str):
    """A flat model or a (high, low) pair for an :data:`EVALUATED` name."""
    from core.driving_world_model.ship import load_variant

    if name.startswith("hier_"):
        suffix = name.split("_", 1)[1]
        return load_variant(f"high_{suffix}"), load_variant(f"low_{suffix}")
    return load_variant(name)


def held_out_data(n_episodes: int = 16):
    """The held-out episodes every evaluation uses (data seed ``TEST_SEED``)."""
    from core.driving_world_model.ship import TEST_SEED

    return make_dataset(SimConfig(), n_episodes, TEST_SEED)


def compute_view(config: EvalConfig = EvalConfig(), seed: int = 0, progress=None) -> DrivingView:
    """Evaluate every shipped variant and collect the first view's arrays."""
    from core.common.progress import report

    data = held_out_data(max(config.n_episodes, config.n_contexts))
    evals: list[Evaluation] = []
    rollouts = []
    for i, name in enumerate(EVALUATED):
        variant = load_named(name)
        evals.append(evaluate(variant, name, data, config, seed))
        if name in ANIMATED:
            eps = np.arange(N_ANIMATED)
            gen = generate(variant, data, eps, data.actions[eps, :N_CONTEXT + config.horizon], config.horizon, config,
                           seed)
            rollouts.append(np.round(gen * 255).astype(np.uint8))
        if not report(progress, i + 1, len(EVALUATED), {}):
            break
    truth = counterfactual_truth(SimConfig(), data.seed, range(config.n_contexts), N_CONTEXT - 1, STEERS,
                                 STEER_HORIZON)
    truth_shifts = lateral_position(truth[:, :, -1]) - lateral_position(truth[:, :, 0])
    hier = load_named("hier_dftf")
    acts = steering_actions(data.actions[:1], N_CONTEXT - 1, STEER_HORIZON + 1, STEERS)
    gen = generate(hier, data, np.zeros(len(STEERS), dtype=int), acts, STEER_HORIZON, config, seed)
    fan_gen = np.concatenate([np.repeat(lateral_position(data.frames[0, N_CONTEXT - 1])[None, None], len(STEERS), 0),
                              lateral_position(gen)], axis=1)
    fan_truth = lateral_position(truth[0])
    h = config.horizon
    return DrivingView(
        variants=np.array([e.name for e in evals]), mse=np.stack([e.mse for e in evals]),
        iou=np.stack([e.iou for e in evals]), shifts=np.stack([e.shifts for e in evals]),
        spearman=np.array([e.spearman for e in evals]), probe_r2=np.stack([e.probe_r2 for e in evals]),
        probe_r2_shuffled=np.stack([e.probe_r2_shuffled for e in evals]), truth_shifts=truth_shifts,
        truth_spearman=steering_spearman(STEERS, truth_shifts), steers=np.asarray(STEERS),
        gt_frames=np.round(data.frames[:N_ANIMATED, N_CONTEXT:N_CONTEXT + h] * 255).astype(np.uint8),
        rollouts=np.stack(rollouts), fan_generated=fan_gen, fan_truth=fan_truth)


def write_view(path=None):
    """Compute the first view from the shipped checkpoints and write it (``view.npz``); returns the path."""
    from core.driving_world_model.ship import VIEW

    path = path or VIEW
    view = compute_view()
    np.savez_compressed(path, **{f.name: np.asarray(getattr(view, f.name)) for f in fields(DrivingView)})
    return path


def shipped_view(path=None) -> DrivingView | None:
    """The shipped first view, or None if it has not been written."""
    from core.driving_world_model.ship import VIEW

    path = path or VIEW
    if not path.is_file():
        return None
    with np.load(path) as z:
        return DrivingView(**{f.name: (float(z[f.name]) if z[f.name].ndim == 0 else z[f.name])
                              for f in fields(DrivingView)})
