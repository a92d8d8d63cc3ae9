"""Distributional steering of diffusion models: mean-field weighted interacting particles.

Claim (a mean-field framework for inference-time distributional control): a distribution-level
reward R(mu) (calibration to a population statistic, diversity) defines a tilted target, the
maximiser of R(mu) - KL(mu || p), which satisfies mu* proportional to p exp(dR/dmu[mu*]); a weighted
interacting particle scheme samples it, recovers pointwise (FK) steering when R is linear, and
grounds batch-level heuristics such as particle guidance.

Our formulation and choices: the target and the reward table in :mod:`.rewards` (first variations,
how each self-consistent tilt is solved); the particle scheme in :mod:`.steer` (log-weights
c + phi_t - phi_resampled, ESS-triggered resampling, optional guided proposal with an exact
importance correction); the VP diffusion and its Euler-Maruyama kernel in :mod:`.sde`; exact
mixture scores in :mod:`.base`, closed forms in :mod:`.closed_forms`; baselines (unguided,
gradient-only guidance, FK steering, particle guidance) in :mod:`.baselines`; a learned noise-prediction
denoiser in :mod:`.denoiser`; the toy protein (Gō bead chain, Langevin reference, foldedness, max-ent
reweighting) in :mod:`.protein`; ready-made page scenarios in :mod:`.scenarios`.
"""

from core.distributional_steering.base import GaussianMixtureBase
from core.distributional_steering.baselines import fk_steering, gradient_guidance, particle_guidance, unguided
from core.distributional_steering.denoiser import LearnedBase, load_denoiser, train_denoiser
from core.distributional_steering.protein import foldedness, load_protein, maxent_reweight
from core.distributional_steering.closed_forms import exponential_tilt, mean_calibration_tilt, tempered_grid
from core.distributional_steering.resampling import SCHEMES, ess, resample
from core.distributional_steering.rewards import (EntropyReward, KernelRepulsion, MeanCalibration, MMDToTarget,
                                                  MomentConstraint, PointwiseReward, Potential)
from core.distributional_steering.steer import SteeringResult, steer

from core.distributional_steering.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "GaussianMixtureBase", "steer", "SteeringResult", "PointwiseReward", "MeanCalibration", "MomentConstraint",
    "EntropyReward", "KernelRepulsion", "MMDToTarget", "Potential", "unguided", "gradient_guidance",
    "fk_steering", "particle_guidance", "exponential_tilt", "mean_calibration_tilt", "tempered_grid",
    "ess", "resample", "SCHEMES", "LearnedBase", "train_denoiser", "load_denoiser", "foldedness", "load_protein",
    "maxent_reweight",
]
