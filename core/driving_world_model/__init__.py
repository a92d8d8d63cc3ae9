"""A hierarchical driving world model: a coarse long-horizon predictor, a detailed generator, DF then TF.

The paper's claim (abstract only): a world model that factorises prediction into a high-level
predictor of coarse scene structure over long horizons and a low-level generator conditioned on it
keeps perceptual fidelity and gains spatial and semantic understanding; pretraining with diffusion
forcing (independent per-frame noise levels) gives richer internal representations than teacher
forcing, teacher forcing (clean context, next frame only) gives stabler autoregressive rollouts, so
the model is pretrained with DF and fine-tuned with TF. Evaluated on long-horizon fidelity, steering
responsiveness on counterfactual scenarios and representation quality.

What is ours (the paper, its data and its networks were not available), each documented where it lives:

- the data: a numpy highway with IDM traffic (highway-env's constants) and an ego kinematic bicycle
  whose actions are a heading command and an acceleration, rendered as 2-channel 32x32 ego-centred
  occupancy (vehicles, road) frames (:mod:`.sim`), instead of camera video;
- the network: a conv encoder + GRU over frames and a FiLM U-Net denoiser predicting the clean
  frame, ~93k weights per level (:mod:`.model`); the cosine schedule with T = 100, 10 DDIM steps
  (:mod:`.diffusion`);
- the hierarchy: the high level is the same network on 4x4-pooled 8x8 keyframes every 4 frames with
  the 4 actions between stacked; the low level is conditioned on the next keyframe (:mod:`.training`);
- the recipe's scale: 500 DF steps then 150 TF steps (TF from scratch: 650) on 300 episodes;
- the metrics: vehicle-channel IoU at 0.5, steering Spearman centred per context with a road-centroid
  detector, ridge probes of the GRU state (:mod:`.metrics`).
"""

from core.driving_world_model.diffusion import (SCHEDULE_LABELS, SCHEDULES, T_TRAIN, add_noise, alphas_cumprod,
                                                ddim_step, diffusion_forcing_levels, level_timestep, pyramid_matrix,
                                                scheduling_matrix, teacher_forcing_levels)
from core.driving_world_model.experiment import (EvalConfig, Evaluation, FinetuneConfig, FinetuneRun, evaluate,
                                                 finetune_and_evaluate)
from core.driving_world_model.metrics import ProbeScores, probe_scores, steering_spearman
from core.driving_world_model.sim import DrivingData, SimConfig, coarse_frames, lateral_position, make_dataset
from core.driving_world_model.training import (LevelData, TrainConfig, TrainingBatch, TrainResult, level_data, train,
                                               training_batch)
from core.driving_world_model.views import DrivingView

from core.driving_world_model.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "SimConfig", "DrivingData", "make_dataset", "lateral_position", "coarse_frames",
    "T_TRAIN", "SCHEDULES", "SCHEDULE_LABELS", "alphas_cumprod", "add_noise", "ddim_step", "level_timestep",
    "pyramid_matrix", "scheduling_matrix", "diffusion_forcing_levels", "teacher_forcing_levels",
    "LevelData", "TrainConfig", "TrainingBatch", "TrainResult", "level_data", "training_batch", "train",
    "EvalConfig", "Evaluation", "evaluate", "FinetuneConfig", "FinetuneRun", "finetune_and_evaluate",
    "ProbeScores", "probe_scores", "steering_spearman", "DrivingView",
]
