"""Distributional steering of diffusion models: mean-field weighted interacting particles.

Claim (a mean-field framework for inference-time distributional control): a distribution-level
reward R(mu) (calibration to a population statistic, diversity) defines a tilted target, the
maximiser of R(mu) - KL(mu || p), which satisfies mu* proportional to p exp(dR/dmu[mu*]); a weighted
interacting particle scheme samples it, recovers pointwise (FK) steering when R is linear, and
grounds batch-level heuristics such as particle guidance.

Our formulation and choices: the target and the reward table in :mod:`.rewards` (first variations,
how each self-consistent tilt is solved; for moment rewards the tilt is solved on the clean measure
the noisy particles predict, so intermediate tilts are the final one, not the extreme tilts that
force the predictions themselves onto the constraint); the particle scheme in :mod:`.steer`
(log-weights c + phi_t - phi_resampled, ESS-triggered resampling, optional guided proposal with an
exact importance correction); particle guidance recovered as the framework's unweighted proposal
for kernel repulsion in :mod:`.baselines`; whole-measure checks (binned W1 by POT against its Monte
Carlo floor) in :mod:`.oracles`; the VP diffusion and its Euler-Maruyama kernel in :mod:`.sde`; exact
mixture scores in :mod:`.base`, closed forms in :mod:`.closed_forms`; baselines (unguided,
gradient-only guidance, FK steering, particle guidance) in :mod:`.baselines`; a learned noise-prediction
denoiser in :mod:`.denoiser`; the toy protein (Gō bead chain, Langevin reference, foldedness, max-ent
reweighting) in :mod:`.protein`; ready-made page scenarios in :mod:`.scenarios`; the asset builder
``python -m core.distributional_steering.ship protein`` in :mod:`.ship`; the page's shipped first view
(the default scenario's run) in :mod:`.views`.
"""

from core.distributional_steering.base import GaussianMixtureBase
from core.distributional_steering.baselines import (fk_steering, gradient_guidance, particle_guidance, plugin_guidance,
                                                    unguided)
from core.distributional_steering.denoiser import LearnedBase, load_denoiser, train_denoiser
from core.distributional_steering.protein import Protein, foldedness, load_protein, maxent_reweight
from core.distributional_steering.closed_forms import (GridTilt, MeanTilt, exponential_tilt, linear_tilt_grid,
                                                       mean_calibration_tilt, repulsion_grid, repulsion_potential,
                                                       tempered_grid)
from core.distributional_steering.oracles import grid_sample, histogram_distance, monte_carlo_floor
from core.distributional_steering.resampling import SCHEMES, ess, resample
from core.distributional_steering.rewards import (EntropyReward, KernelRepulsion, MeanCalibration, MMDToTarget,
                                                  MomentConstraint, PointwiseReward, Potential)
from core.distributional_steering.steer import SteeringResult, steer

from core.distributional_steering.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "GaussianMixtureBase", "steer", "SteeringResult", "PointwiseReward", "MeanCalibration", "MomentConstraint",
    "EntropyReward", "KernelRepulsion", "MMDToTarget", "Potential", "unguided", "gradient_guidance",
    "fk_steering", "particle_guidance", "plugin_guidance", "exponential_tilt", "mean_calibration_tilt", "MeanTilt",
    "tempered_grid", "linear_tilt_grid", "GridTilt", "repulsion_grid", "repulsion_potential",
    "grid_sample", "histogram_distance", "monte_carlo_floor",
    "ess", "resample", "SCHEMES", "LearnedBase", "train_denoiser", "load_denoiser", "foldedness", "load_protein",
    "Protein", "maxent_reweight",
]
