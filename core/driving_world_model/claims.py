"""The hierarchical driving world model's headline claims, checked by ``bench/driving_world_model.py``."""

from core.common.claims import Claim

CLAIMS = (
    Claim("df_richer_representations",
          "Pretraining with diffusion forcing yields substantially richer internal representations than teacher "
          "forcing.",
          "Held-out R² of ridge probes from the GRU state to ego speed, lane and lead gap (mean over the three), flat "
          "DF against flat TF at equal steps, over training seeds.",
          "Probes fitted on shuffled targets (R² near or below 0) and the untrained network's features."),
    Claim("tf_stable_rollouts",
          "Teacher forcing (clean context, next frame only) gives more stable autoregressive rollouts; fine-tuning the "
          "DF model with TF keeps that stability.",
          "Vehicle IoU at horizon 32 of autoregressive rollouts from 9 context frames, TF and DF→TF against DF, over "
          "training seeds.",
          "The copy-last-frame baseline (IoU of the last context frame against each future frame)."),
    Claim("hierarchy_long_horizon",
          "Factorising prediction into a coarse long-horizon predictor and a detailed generator conditioned on it gives "
          "better long-horizon fidelity than a flat model.",
          "IoU and error against horizon 1..32, hierarchical DF→TF against flat DF→TF.",
          "The same low-level generator fed ground-truth keyframes (an upper bound) and the flat model."),
    Claim("steering_responsiveness",
          "The hierarchical model responds to steering on counterfactual scenarios.",
          "Spearman's rho of commanded heading (5 values, held 8 frames) against generated lateral shift (road-channel "
          "detector), centred per context; the issue's threshold is 0.8.",
          "The same hierarchy trained on shuffled actions (rho near 0) and the simulator's own shifts (rho near 1)."),
)
